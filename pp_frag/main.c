// SPDX-License-Identifier: GPL-2.0
/*
 * pp_frag: socket-to-netdev page-frag recycling for socket transmit.
 *
 * Every net device gets /sys/class/net/<dev>/pp_frag_pool_pages: writing
 * N > 0 gives the device a pool of at most N pages (order 3, 32 KiB, with
 * order-0 fallback) on its NUMA node; 0 removes it. Sockets whose route
 * leads to a device with a pool take the pages of their page_frag
 * (sk_page_frag_refill(): TCP sendmsg, ip_append_data) from it, and a
 * page is reused once the stack dropped every reference (pool.c). The
 * `devices` parameter names devices to give a pool as they appear.
 * Documentation/pp-frag.md explains the design.
 *
 * This file: load and unload. The rest, by concern: params.c (the
 * `devices` parameter), devices.c (an entry and a pool per device, the
 * sysfs files), pool.c (the pool and its pages), hook.c (the refill
 * hook), shrink.c (memory pressure), dma.c (the drivers' DMA opt-in),
 * debugfs.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/init.h>
#include <linux/module.h>

#include "pp_frag.h"

#define PPF_EXIT_WAIT_MS	2000

static int __init pp_frag_init(void)
{
	int err;

	err = ppf_shrinker_init();
	if (err)
		return err;
	err = ppf_hook_init();
	if (err)
		goto err_shrinker;
	err = ppf_devices_start();
	if (err)
		goto err_hook;
	ppf_debugfs_init();
	return 0;

err_hook:
	ppf_hook_exit();
err_shrinker:
	ppf_shrinker_exit();
	return err;
}

static void __exit pp_frag_exit(void)
{
	unsigned int waited = 0;

	ppf_debugfs_exit();
	/* No refill reaches a pool after this (and none is still running). */
	ppf_hook_exit();
	ppf_devices_stop();
	ppf_shrinker_exit();
	/* Mapped pages still in flight: give them a moment, then let go. */
	while (ppf_orphans_count() && waited < PPF_EXIT_WAIT_MS) {
		msleep(100);
		waited += 100;
	}
	ppf_orphans_stop();
	ppf_orphans_reap(true, 0);
}

module_init(pp_frag_init);
module_exit(pp_frag_exit);

MODULE_DESCRIPTION("Socket-to-netdev page-frag recycling for socket transmit");
MODULE_LICENSE("GPL");
MODULE_VERSION(XNET_VERSION);
