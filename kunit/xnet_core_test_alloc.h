/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the C++ runtime's C glue (common/cxxrt_glue.c) asked kmalloc()/
 * kfree() for. xnet_core_rt_test.c, which compiles the glue into the KUnit
 * kernel, routes the glue's kmalloc() and kfree() through a recorder (the
 * real allocator still does the work) and can make the next allocations
 * fail. Tests run one at a time, so the log
 * is plain data; every suite that uses it resets it in its init.
 */
#ifndef XNET_CORE_TEST_ALLOC_H
#define XNET_CORE_TEST_ALLOC_H

#include <linux/types.h>

struct xnet_test_alloc_log {
	unsigned long allocs;	/* kmalloc() calls, failed ones included */
	unsigned long frees;	/* kfree() calls, kfree(NULL) included */
	size_t last_size;	/* of the last kmalloc() */
	gfp_t last_gfp;
	void *last_ptr;		/* what the last kmalloc() returned */
	const void *last_freed;	/* what the last kfree() was given */
	unsigned int fail;	/* fail this many of the next kmalloc()s */
};

extern struct xnet_test_alloc_log xnet_test_alloc_log;

void xnet_test_alloc_reset(void);

#endif /* XNET_CORE_TEST_ALLOC_H */
