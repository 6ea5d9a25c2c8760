// SPDX-License-Identifier: GPL-2.0
/*
 * pp_frag: Socket-to-netdev page-frag recycling for socket transmit.
 *
 * Module skeleton: loads and unloads; the feature lands on top of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/printk.h>

#include <xnet/kernel/glue_impl.h>

static int __init pp_frag_init(void)
{
	pr_debug("loaded\n");
	return 0;
}

static void __exit pp_frag_exit(void)
{
	pr_debug("unloaded\n");
}

module_init(pp_frag_init);
module_exit(pp_frag_exit);

MODULE_DESCRIPTION("Socket-to-netdev page-frag recycling for socket transmit");
MODULE_LICENSE("GPL");
