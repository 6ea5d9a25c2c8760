// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of the C++ runtime (cxxrt.cpp): the C definitions of
 * include/xnet/kernel/glue.h. Compiled into each module as cxxrt_glue.o
 * (scripts/common.mk).
 */

#include <linux/bug.h>
#include <linux/gfp.h>
#include <linux/slab.h>

#include <xnet/kernel/glue.h>

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
