// SPDX-License-Identifier: GPL-2.0
/*
 * nvmet_tcp_prio: SO_PRIORITY for the sockets of the in-tree NVMe/TCP target driver.
 *
 * Module skeleton: loads and unloads; the feature lands on top of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/printk.h>

#include <xnet/kernel/glue_impl.h>

static int __init nvmet_tcp_prio_init(void)
{
	pr_debug("loaded\n");
	return 0;
}

static void __exit nvmet_tcp_prio_exit(void)
{
	pr_debug("unloaded\n");
}

module_init(nvmet_tcp_prio_init);
module_exit(nvmet_tcp_prio_exit);

MODULE_DESCRIPTION("SO_PRIORITY for the sockets of the in-tree NVMe/TCP target driver");
MODULE_LICENSE("GPL");
