/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C definitions of glue.h. Include from exactly one C file of each module,
 * after the kernel headers below are available.
 */
#ifndef XNET_KERNEL_GLUE_IMPL_H
#define XNET_KERNEL_GLUE_IMPL_H

#include <linux/bug.h>
#include <linux/gfp.h>
#include <linux/slab.h>

#include "glue.h"

void *xnet_rt_alloc(unsigned long size, int gfp, int zero)
{
	gfp_t flags = (gfp == XNET_GFP_ATOMIC ? GFP_ATOMIC : GFP_KERNEL) |
		      __GFP_NOWARN;

	if (zero)
		flags |= __GFP_ZERO;
	return kmalloc(size, flags);
}

void xnet_rt_free(const void *p)
{
	kfree(p);
}

void xnet_rt_pure_virtual(void)
{
	WARN_ONCE(1, "%s: pure virtual function called\n", KBUILD_MODNAME);
}

#endif /* XNET_KERNEL_GLUE_IMPL_H */
