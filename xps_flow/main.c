// SPDX-License-Identifier: GPL-2.0
/*
 * xps_flow: XPS transmit flow steering with BQL in-flight tracking.
 *
 * Module skeleton: loads and unloads; the feature lands on top of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/printk.h>

#include <xnet/kernel/glue_impl.h>

static int __init xps_flow_init(void)
{
	pr_debug("loaded\n");
	return 0;
}

static void __exit xps_flow_exit(void)
{
	pr_debug("unloaded\n");
}

module_init(xps_flow_init);
module_exit(xps_flow_exit);

MODULE_DESCRIPTION("XPS transmit flow steering with BQL in-flight tracking");
MODULE_LICENSE("GPL");
