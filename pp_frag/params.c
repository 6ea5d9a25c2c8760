// SPDX-License-Identifier: GPL-2.0
/*
 * pp_frag's `devices` parameter: name[:pages],... names devices of the
 * initial netns that get a pool when they appear (devices.c asks).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/netdevice.h>

#include <xnet/abi.h>
#include "../common/named_param.h"
#include "pp_frag.h"

#define PPF_DEFAULT_PAGES	256	/* 8 MiB of order-3 pages */
#define PPF_MAX_NAMED		16

static struct xnet_named ppf_named[PPF_MAX_NAMED];
static char ppf_devices_str[PPF_MAX_NAMED * (IFNAMSIZ + 8)];

/* name[:pages],..., each name once (common/named_param.h). */
static struct xnet_named_param ppf_devices = {
	.unit = "pages",
	.spec = {
		.def = PPF_DEFAULT_PAGES,
		.min = 1,
		.max = XNET_FRAG_MAX_PAGES,
	},
	.named = ppf_named,
	.cap = PPF_MAX_NAMED,
	.str = ppf_devices_str,
	.str_size = sizeof(ppf_devices_str),
};

static const struct kernel_param_ops ppf_devices_ops = {
	.set = xnet_named_param_set,
	.get = xnet_named_param_get,
};
module_param_cb(devices, &ppf_devices_ops, &ppf_devices, 0444);
MODULE_PARM_DESC(devices,
		 "Devices of the initial netns given a pool when they appear or are renamed so: name[:pages],..., each name once, at most 16 (pages: bound of the pool, 1..65536, default 256 = 8 MiB)");

/* The pages devices= gives a device named @name; 0 when it names none. */
unsigned int ppf_named_pages(const char *name)
{
	const struct xnet_named *d = xnet_named_find(&ppf_devices, name);

	return d ? d->value : 0;
}
