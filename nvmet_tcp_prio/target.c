// SPDX-License-Identifier: GPL-2.0
/*
 * How nvmet_tcp_prio recognises the sockets of the NVMe/TCP target driver.
 *
 * nvmet_tcp_add_port() points the listener's data_ready callback into the
 * nvmet_tcp module before listen(), so a CLOSE->LISTEN socket whose
 * callback belongs to nvmet_tcp is a port listener; its callback's address
 * is remembered. An accepted child starts as a copy of its listener,
 * callbacks included: a child going LISTEN->SYN_RECV with that callback
 * came from an nvmet port. At load, existing sockets are recognised by
 * their callbacks belonging to the nvmet_tcp module (checked by the
 * engine).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/notifier.h>
#include <net/tcp.h>

#include "../nvprio/prio_sock.h"

#define NVMET_TCP_MODULE "nvmet_tcp"

/* data_ready of nvmet-tcp listeners; reset when nvmet_tcp goes away. */
static void *nvmet_tcp_prio_listen_ready;

static enum nvprio_role nvmet_tcp_prio_classify(const struct sock *sk,
						int oldstate, int newstate)
{
	void *fn = READ_ONCE(sk->sk_data_ready);

	if (oldstate == TCP_CLOSE && newstate == TCP_LISTEN) {
		if (!nvprio_fn_owned_by(fn, NVMET_TCP_MODULE))
			return NVPRIO_NONE;
		if (READ_ONCE(sk->sk_priority))
			pr_warn_once("nvmet_tcp.so_priority is set: nvmet-tcp applies it to accepted sockets after this module, which then leaves them alone; set it to 0 to let this module decide\n");
		WRITE_ONCE(nvmet_tcp_prio_listen_ready, fn);
		return NVPRIO_LISTEN;
	}
	if (newstate == TCP_SYN_RECV && fn &&
	    fn == READ_ONCE(nvmet_tcp_prio_listen_ready))
		return NVPRIO_ACCEPT;
	return NVPRIO_NONE;
}

static enum nvprio_role nvmet_tcp_prio_classify_existing(const struct sock *sk)
{
	if (sk->sk_state != TCP_LISTEN)
		return NVPRIO_ACCEPT;
	WRITE_ONCE(nvmet_tcp_prio_listen_ready, READ_ONCE(sk->sk_data_ready));
	return NVPRIO_LISTEN;
}

static int nvmet_tcp_prio_module_event(struct notifier_block *nb,
				       unsigned long action, void *data)
{
	struct module *mod = data;

	if (action == MODULE_STATE_GOING && !strcmp(mod->name, NVMET_TCP_MODULE))
		WRITE_ONCE(nvmet_tcp_prio_listen_ready, NULL);
	return NOTIFY_DONE;
}

static struct notifier_block nvmet_tcp_prio_module_nb = {
	.notifier_call = nvmet_tcp_prio_module_event,
};

int nvmet_tcp_prio_target_init(void)
{
	return register_module_notifier(&nvmet_tcp_prio_module_nb);
}

void nvmet_tcp_prio_target_exit(void)
{
	unregister_module_notifier(&nvmet_tcp_prio_module_nb);
}

const struct nvprio_ops nvmet_tcp_prio_ops = {
	.owner = NVMET_TCP_MODULE,
	.classify = nvmet_tcp_prio_classify,
	.classify_existing = nvmet_tcp_prio_classify_existing,
};
