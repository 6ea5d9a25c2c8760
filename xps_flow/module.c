// SPDX-License-Identifier: GPL-2.0
/*
 * xps_flow's module init and exit, and the C glue of the C++ runtime
 * (defined once per module). Nothing else: KUnit compiles the other C
 * files into its suite and calls xfl_start()/xfl_stop() itself.
 */
#include <linux/init.h>
#include <linux/module.h>

#include "xps_flow.h"

static int __init xps_flow_init(void)
{
	return xfl_start();
}

static void __exit xps_flow_exit(void)
{
	xfl_stop();
}

module_init(xps_flow_init);
module_exit(xps_flow_exit);

MODULE_DESCRIPTION("XPS transmit flow steering with BQL in-flight tracking");
MODULE_LICENSE("GPL");
MODULE_VERSION(XNET_VERSION);
