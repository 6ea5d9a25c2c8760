// SPDX-License-Identifier: GPL-2.0
/*
 * nvme_tcp_prio: SO_PRIORITY for every socket of the in-tree NVMe/TCP host
 * driver (nvme-tcp): admin and I/O queues, discovery controllers, from the
 * SYN on, including reconnects and resets. How host sockets are recognised
 * is in host.c; parameters, re-apply, restore and debugfs in the engine
 * (nvprio/prio_sock.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "../nvprio/prio_sock.h"

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
MODULE_VERSION(XNET_VERSION);
