// SPDX-License-Identifier: GPL-2.0
/*
 * nvme_tcp_prio: SO_PRIORITY for every socket of the in-tree NVMe/TCP host
 * driver (nvme-tcp): admin and I/O queues, discovery controllers, from the
 * SYN on, including reconnects and resets. Parameters, re-apply, restore
 * and debugfs are in prio_sock.c.
 *
 * How a host socket is recognised: nvme_tcp_alloc_queue() creates it with
 * sock_create() (no file: held by the kernel) and, before connecting, sets
 * TCP_SYNCNT 1, TCP_NODELAY and SO_LINGER with a zero timeout. A kernel-held
 * socket going CLOSE->SYN_SENT with all three is taken for an NVMe/TCP
 * queue. At load, existing sockets are recognised by their data_ready
 * callback belonging to the nvme_tcp module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/inet_connection_sock.h>
#include <net/tcp.h>

#include <xnet/kernel/glue_impl.h>

#include "prio_sock.h"

static enum nvprio_role nvme_tcp_prio_classify(const struct sock *sk,
					       int oldstate, int newstate)
{
	if (oldstate != TCP_CLOSE || newstate != TCP_SYN_SENT)
		return NVPRIO_NONE;
	if (!nvprio_kernel_held(sk))
		return NVPRIO_NONE;
	if (inet_csk(sk)->icsk_syn_retries != 1 ||
	    !sock_flag(sk, SOCK_LINGER) || sk->sk_lingertime ||
	    !(tcp_sk(sk)->nonagle & TCP_NAGLE_OFF))
		return NVPRIO_NONE;
	return NVPRIO_HOST;
}

static enum nvprio_role nvme_tcp_prio_classify_existing(const struct sock *sk)
{
	return sk->sk_state == TCP_LISTEN ? NVPRIO_NONE : NVPRIO_HOST;
}

static const struct nvprio_ops nvme_tcp_prio_ops = {
	.owner = "nvme_tcp",
	.classify = nvme_tcp_prio_classify,
	.classify_existing = nvme_tcp_prio_classify_existing,
};

static int __init nvme_tcp_prio_init(void)
{
	return nvprio_init(&nvme_tcp_prio_ops);
}

static void __exit nvme_tcp_prio_exit(void)
{
	nvprio_exit();
}

module_init(nvme_tcp_prio_init);
module_exit(nvme_tcp_prio_exit);

MODULE_PARM_DESC(so_priority,
		 "SO_PRIORITY for every NVMe/TCP host socket not matched by a rule (0..4294967295; 0 = leave untouched, the default). Writable: re-applied to live sockets.");
MODULE_PARM_DESC(rules,
		 "Per-endpoint priorities, first match wins: rule[;rule...], rule = field[,field...], fields prio=N (required), raddr=ADDR[/LEN] and rport=PORT (the target), laddr=ADDR[/LEN], lport=PORT; key=* is a wildcard; prio=0 leaves matching sockets untouched. Example: raddr=10.0.0.0/24,rport=4420,prio=3;raddr=fd00::/64,prio=5. Read back in canonical form. Writable: re-applied to live sockets.");
MODULE_DESCRIPTION("SO_PRIORITY for the sockets of the in-tree NVMe/TCP host driver");
MODULE_LICENSE("GPL");
