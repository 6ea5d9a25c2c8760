/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel services the C++ side needs, as a plain C ABI. Implemented in
 * C (common/cxxrt_glue.c) where kernel headers are available; called from C++
 * (common/cxxrt.cpp), which never includes a kernel header.
 */
#ifndef XNET_KERNEL_GLUE_H
#define XNET_KERNEL_GLUE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Allocation contexts, mapped to GFP flags by the C side. */
enum xnet_gfp {
	XNET_GFP_KERNEL = 0,	/* may sleep */
	XNET_GFP_ATOMIC = 1,	/* any context, may fail */
};

/* kmalloc(@size, gfp | __GFP_NOWARN) (+ __GFP_ZERO if @zero); NULL on failure. */
void *xnet_rt_alloc(unsigned long size, int gfp, int zero);
void xnet_rt_free(const void *p);
/* A pure virtual function was called: WARN once. */
void xnet_rt_pure_virtual(void);

#ifdef __cplusplus
}
#endif

#endif /* XNET_KERNEL_GLUE_H */
