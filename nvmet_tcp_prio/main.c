// SPDX-License-Identifier: GPL-2.0
/*
 * nvmet_tcp_prio: SO_PRIORITY for every socket of the in-tree NVMe/TCP
 * target driver (nvmet-tcp): the listener of each TCP port (so its SYN-ACKs
 * carry it) and every accepted connection. Parameters, re-apply, restore
 * and debugfs are in prio_sock.c.
 *
 * How target sockets are recognised: nvmet_tcp_add_port() points the
 * listener's data_ready callback into the nvmet_tcp module before
 * listen(), so a CLOSE->LISTEN socket whose callback belongs to nvmet_tcp
 * is a port listener; its callback's address is remembered. An accepted
 * child starts as a copy of its listener, callbacks included: a child
 * going LISTEN->SYN_RECV with that callback came from an nvmet port. At
 * load, existing sockets are recognised by their callbacks belonging to
 * the nvmet_tcp module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/notifier.h>
#include <net/tcp.h>

#include <xnet/kernel/glue_impl.h>

#include "../nvme_tcp_prio/prio_sock.h"

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

static const struct nvprio_ops nvmet_tcp_prio_ops = {
	.owner = NVMET_TCP_MODULE,
	.classify = nvmet_tcp_prio_classify,
	.classify_existing = nvmet_tcp_prio_classify_existing,
};

static int __init nvmet_tcp_prio_init(void)
{
	int ret = register_module_notifier(&nvmet_tcp_prio_module_nb);

	if (ret)
		return ret;
	ret = nvprio_init(&nvmet_tcp_prio_ops);
	if (ret)
		unregister_module_notifier(&nvmet_tcp_prio_module_nb);
	return ret;
}

static void __exit nvmet_tcp_prio_exit(void)
{
	nvprio_exit();
	unregister_module_notifier(&nvmet_tcp_prio_module_nb);
}

module_init(nvmet_tcp_prio_init);
module_exit(nvmet_tcp_prio_exit);

MODULE_PARM_DESC(so_priority,
		 "SO_PRIORITY for every NVMe/TCP target socket (port listeners and accepted connections) not matched by a rule (0..4294967295; 0 = leave untouched, the default). Writable: re-applied to live sockets.");
MODULE_PARM_DESC(rules,
		 "Per-endpoint priorities, first match wins: rule[;rule...], rule = field[,field...], fields prio=N (required), laddr=ADDR[/LEN] and lport=PORT (the nvmet port), raddr=ADDR[/LEN] (the host), rport=PORT; key=* is a wildcard; prio=0 leaves matching sockets untouched; rules with raddr/rport never match listeners. Example: lport=4420,prio=3;raddr=10.1.0.0/16,prio=2. Read back in canonical form. Writable: re-applied to live sockets.");
MODULE_DESCRIPTION("SO_PRIORITY for the sockets of the in-tree NVMe/TCP target driver");
MODULE_LICENSE("GPL");
