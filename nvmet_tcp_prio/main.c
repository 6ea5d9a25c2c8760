// SPDX-License-Identifier: GPL-2.0
/*
 * nvmet_tcp_prio: SO_PRIORITY for every socket of the in-tree NVMe/TCP
 * target driver (nvmet-tcp): the listener of each TCP port (so its SYN-ACKs
 * carry it) and every accepted connection. How target sockets are
 * recognised is in target.c; parameters, re-apply, restore and debugfs in
 * the engine (nvprio/prio_sock.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "../nvprio/prio_sock.h"

static int __init nvmet_tcp_prio_init(void)
{
	int ret = nvmet_tcp_prio_target_init();

	if (ret)
		return ret;
	ret = nvprio_init(&nvmet_tcp_prio_ops);
	if (ret)
		nvmet_tcp_prio_target_exit();
	return ret;
}

static void __exit nvmet_tcp_prio_exit(void)
{
	nvprio_exit();
	nvmet_tcp_prio_target_exit();
}

module_init(nvmet_tcp_prio_init);
module_exit(nvmet_tcp_prio_exit);

MODULE_PARM_DESC(so_priority,
		 "SO_PRIORITY for every NVMe/TCP target socket (port listeners and accepted connections) not matched by a rule (0..4294967295; 0 = leave untouched, the default). Writable: re-applied to live sockets.");
MODULE_PARM_DESC(rules,
		 "Per-endpoint priorities, first match wins: rule[;rule...], rule = field[,field...], fields prio=N (required), laddr=ADDR[/LEN] and lport=PORT (the nvmet port), raddr=ADDR[/LEN] (the host), rport=PORT; key=* is a wildcard; prio=0 leaves matching sockets untouched; rules with raddr/rport never match listeners. Example: lport=4420,prio=3;raddr=10.1.0.0/16,prio=2. Read back in canonical form. Writable: re-applied to live sockets.");
MODULE_DESCRIPTION("SO_PRIORITY for the sockets of the in-tree NVMe/TCP target driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(XNET_VERSION);
