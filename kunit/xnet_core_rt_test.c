// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnet_core_rt: the kernel C++ runtime (common/cxxrt.cpp over
 * common/cxxrt_glue.c) in a real kernel: new/delete run
 * constructors and destructors, arrays, virtual dispatch, GFP_ATOMIC
 * allocation, allocation failure (nullptr, no constructor: -fcheck-new),
 * sized deallocation.
 *
 * This file also compiles the C glue (cxxrt_glue.c) into the KUnit kernel,
 * where the modules link it as an object of their own. The glue's
 * kmalloc()/kfree() are routed through a recorder (xnet_core_test_alloc.h)
 * that the suites use to see what the runtime allocated and freed, and to
 * make allocations fail.
 */
#include <kunit/test.h>
#include <linux/bug.h>
#include <linux/gfp.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "xnet_core_test_abi.h"
#include "xnet_core_test_alloc.h"

struct xnet_test_alloc_log xnet_test_alloc_log;

void xnet_test_alloc_reset(void)
{
	memset(&xnet_test_alloc_log, 0, sizeof(xnet_test_alloc_log));
}

static void *xnet_test_kmalloc(size_t size, gfp_t flags)
{
	struct xnet_test_alloc_log *log = &xnet_test_alloc_log;
	void *p = NULL;

	log->allocs++;
	log->last_size = size;
	log->last_gfp = flags;
	if (log->fail)
		log->fail--;
	else
		p = kmalloc(size, flags);
	log->last_ptr = p;
	return p;
}

static void xnet_test_kfree(const void *p)
{
	xnet_test_alloc_log.frees++;
	xnet_test_alloc_log.last_freed = p;
	kfree(p);
}

/*
 * The glue exactly as the modules get it, with its allocator recorded.
 * kmalloc() may itself be a macro (6.10: alloc_hooks() around
 * kmalloc_noprof()); nothing below the glue calls it.
 */
#undef kmalloc
#define kmalloc(size, flags) xnet_test_kmalloc(size, flags)
#define kfree(p) xnet_test_kfree(p)
#include "../common/cxxrt_glue.c"
#undef kmalloc
#undef kfree

#define LOG (&xnet_test_alloc_log)

static struct xnet_test_rt_stats rt_stats(void)
{
	struct xnet_test_rt_stats st;

	xnet_test_rt_get_stats(&st);
	return st;
}

static void xnet_core_rt_new_delete_object(struct kunit *test)
{
	struct xnet_test_rt_stats st;
	void *p = xnet_test_rt_counted_new(42);

	KUNIT_ASSERT_NOT_NULL(test, p);
	st = rt_stats();
	KUNIT_EXPECT_EQ(test, st.ctors, 1L);
	KUNIT_EXPECT_EQ(test, st.dtors, 0L);
	KUNIT_EXPECT_EQ(test, xnet_test_rt_counted_tag(p), 42U);
	KUNIT_EXPECT_EQ(test, xnet_test_rt_counted_seq(p), 0U);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 1UL);
	KUNIT_EXPECT_EQ(test, LOG->last_size,
			(size_t)xnet_test_rt_counted_size());
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_ptr, p);
	/* Plain new may sleep; the glue never warns on failure. */
	KUNIT_EXPECT_EQ(test, LOG->last_gfp, GFP_KERNEL | __GFP_NOWARN);

	xnet_test_rt_counted_delete(p);
	st = rt_stats();
	KUNIT_EXPECT_EQ(test, st.ctors, 1L);
	KUNIT_EXPECT_EQ(test, st.dtors, 1L);
	KUNIT_ASSERT_EQ(test, st.dtor_log_len, 1U);
	KUNIT_EXPECT_EQ(test, st.dtor_log[0], 0U);
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)p);
}

static void xnet_core_rt_delete_null(struct kunit *test)
{
	xnet_test_rt_counted_delete(NULL);
	xnet_test_rt_counted_delete_array(NULL);
	xnet_test_rt_shape_delete(NULL);

	KUNIT_EXPECT_EQ(test, rt_stats().dtors, 0L);
	KUNIT_EXPECT_EQ(test, rt_stats().base_dtors, 0L);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 0UL);
	/* Whether operator delete(nullptr) is called is the compiler's choice. */
	KUNIT_EXPECT_NULL(test, LOG->last_freed);
}

static void xnet_core_rt_new_delete_array(struct kunit *test)
{
	const unsigned long n = 5;
	struct xnet_test_rt_stats st;
	void *alloc;
	unsigned long i;
	void *arr = xnet_test_rt_counted_new_array(n);

	KUNIT_ASSERT_NOT_NULL(test, arr);
	st = rt_stats();
	KUNIT_EXPECT_EQ(test, st.ctors, (long)n);
	KUNIT_EXPECT_EQ(test, st.dtors, 0L);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, xnet_test_rt_counted_array_seq(arr, i),
				(unsigned int)i);

	/*
	 * A destructor makes new[] store the count in a cookie of
	 * sizeof(size_t) before the elements (Itanium C++ ABI): the array
	 * is not where the allocation starts.
	 */
	KUNIT_EXPECT_EQ(test, LOG->allocs, 1UL);
	KUNIT_EXPECT_EQ(test, LOG->last_size,
			n * xnet_test_rt_counted_size() + sizeof(size_t));
	alloc = LOG->last_ptr;
	KUNIT_EXPECT_PTR_EQ(test, arr, (void *)((char *)alloc + sizeof(size_t)));

	xnet_test_rt_counted_delete_array(arr);
	st = rt_stats();
	KUNIT_EXPECT_EQ(test, st.dtors, (long)n);
	/* Elements are destroyed in reverse order of construction. */
	KUNIT_ASSERT_EQ(test, st.dtor_log_len, (unsigned int)n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, st.dtor_log[i], (unsigned int)(n - 1 - i));
	/* delete[] frees the allocation, not the first element. */
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)alloc);
}

static void xnet_core_rt_new_array_empty(struct kunit *test)
{
	void *arr = xnet_test_rt_counted_new_array(0);

	/* new T[0] is a valid, distinct, deletable pointer. */
	KUNIT_ASSERT_NOT_NULL(test, arr);
	KUNIT_EXPECT_EQ(test, rt_stats().ctors, 0L);
	xnet_test_rt_counted_delete_array(arr);
	KUNIT_EXPECT_EQ(test, rt_stats().dtors, 0L);
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)LOG->last_ptr);
}

static void xnet_core_rt_new_chars(struct kunit *test)
{
	char *p = xnet_test_rt_chars_new(16);

	KUNIT_ASSERT_NOT_NULL(test, p);
	/* No destructor, no cookie: the array is the allocation. */
	KUNIT_EXPECT_EQ(test, LOG->last_size, (size_t)16);
	KUNIT_EXPECT_PTR_EQ(test, (void *)p, LOG->last_ptr);
	memset(p, 0x5a, 16);
	xnet_test_rt_chars_delete(p);
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)p);
}

static void xnet_core_rt_virtual_dispatch(struct kunit *test)
{
	struct xnet_test_rt_stats st;
	void *sq = xnet_test_rt_shape_new(XNET_TEST_SQUARE, 3, 0);
	void *rect;

	KUNIT_ASSERT_NOT_NULL(test, sq);
	rect = xnet_test_rt_shape_new(XNET_TEST_RECT, 2, 5);
	KUNIT_ASSERT_NOT_NULL(test, rect);

	KUNIT_EXPECT_EQ(test, xnet_test_rt_shape_area(sq), 9U);
	KUNIT_EXPECT_STREQ(test, xnet_test_rt_shape_name(sq), "square");
	KUNIT_EXPECT_EQ(test, xnet_test_rt_shape_area(rect), 10U);
	/* Rect does not override name(): the base's implementation runs. */
	KUNIT_EXPECT_STREQ(test, xnet_test_rt_shape_name(rect), "shape");

	/* Deleting through the base pointer runs both destructors. */
	xnet_test_rt_shape_delete(sq);
	st = rt_stats();
	KUNIT_EXPECT_EQ(test, st.derived_dtors, 1L);
	KUNIT_EXPECT_EQ(test, st.base_dtors, 1L);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)sq);
	xnet_test_rt_shape_delete(rect);
	st = rt_stats();
	KUNIT_EXPECT_EQ(test, st.derived_dtors, 2L);
	KUNIT_EXPECT_EQ(test, st.base_dtors, 2L);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)rect);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 2UL);
}

static void xnet_core_rt_delete_second_base(struct kunit *test)
{
	struct xnet_test_rt_stats st;
	void *alloc;
	void *second = xnet_test_rt_mi_new(7);

	KUNIT_ASSERT_NOT_NULL(test, second);
	alloc = LOG->last_ptr;
	/* The second base lies inside the object, not at its start. */
	KUNIT_EXPECT_PTR_NE(test, second, alloc);
	KUNIT_EXPECT_EQ(test, xnet_test_rt_mi_tag(second), 7U);

	xnet_test_rt_mi_delete(second);
	st = rt_stats();
	KUNIT_EXPECT_EQ(test, st.derived_dtors, 1L);
	KUNIT_EXPECT_EQ(test, st.base_dtors, 1L);
	/* The virtual destructor adjusts back to the allocation. */
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)alloc);
}

static DEFINE_SPINLOCK(xnet_core_rt_lock);

static void xnet_core_rt_new_atomic(struct kunit *test)
{
	void *p, *arr;

	/* GFP_ATOMIC: fine with a spinlock held. */
	spin_lock(&xnet_core_rt_lock);
	p = xnet_test_rt_counted_new_atomic(9);
	spin_unlock(&xnet_core_rt_lock);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, LOG->last_gfp, GFP_ATOMIC | __GFP_NOWARN);
	KUNIT_EXPECT_EQ(test, rt_stats().ctors, 1L);
	KUNIT_EXPECT_EQ(test, xnet_test_rt_counted_tag(p), 9U);
	xnet_test_rt_counted_delete(p);
	KUNIT_EXPECT_EQ(test, rt_stats().dtors, 1L);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)p);

	spin_lock(&xnet_core_rt_lock);
	arr = xnet_test_rt_counted_new_array_atomic(3);
	spin_unlock(&xnet_core_rt_lock);

	KUNIT_ASSERT_NOT_NULL(test, arr);
	KUNIT_EXPECT_EQ(test, LOG->last_gfp, GFP_ATOMIC | __GFP_NOWARN);
	KUNIT_EXPECT_EQ(test, rt_stats().ctors, 4L);
	xnet_test_rt_counted_delete_array(arr);
	KUNIT_EXPECT_EQ(test, rt_stats().dtors, 4L);
}

static void xnet_core_rt_alloc_fail_huge(struct kunit *test)
{
	const unsigned long big = 1UL << 40;
	struct xnet_test_rt_stats st;

	/* An object of 2^40 bytes: kmalloc fails, no constructor runs. */
	KUNIT_EXPECT_NULL(test, xnet_test_rt_huge_new());
	KUNIT_EXPECT_EQ(test, LOG->allocs, 1UL);
	KUNIT_EXPECT_EQ(test, LOG->last_size, (size_t)big);

	KUNIT_EXPECT_NULL(test, xnet_test_rt_chars_new(big));
	KUNIT_EXPECT_EQ(test, LOG->last_size, (size_t)big);

	/* 2^40 elements of a class with constructors. */
	KUNIT_EXPECT_NULL(test, xnet_test_rt_counted_new_array(big));
	KUNIT_EXPECT_EQ(test, LOG->last_size,
			big * xnet_test_rt_counted_size() + sizeof(size_t));

	/*
	 * n * sizeof(T) overflows: with -fno-exceptions GCC asks operator
	 * new[] for SIZE_MAX (which fails) instead of a wrapped small size.
	 */
	KUNIT_EXPECT_NULL(test, xnet_test_rt_counted_new_array(ULONG_MAX / 4));
	KUNIT_EXPECT_EQ(test, LOG->last_size, (size_t)SIZE_MAX);

	st = rt_stats();
	KUNIT_EXPECT_EQ(test, st.huge_ctors, 0L);
	KUNIT_EXPECT_EQ(test, st.ctors, 0L);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 4UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 0UL);
}

static void xnet_core_rt_alloc_fail_injected(struct kunit *test)
{
	void *p;

	LOG->fail = 1;
	KUNIT_EXPECT_NULL(test, xnet_test_rt_counted_new(1));
	KUNIT_EXPECT_EQ(test, LOG->allocs, 1UL);
	KUNIT_EXPECT_EQ(test, rt_stats().ctors, 0L);

	LOG->fail = 1;
	KUNIT_EXPECT_NULL(test, xnet_test_rt_counted_new_atomic(2));
	LOG->fail = 1;
	KUNIT_EXPECT_NULL(test, xnet_test_rt_counted_new_array(3));
	LOG->fail = 1;
	KUNIT_EXPECT_NULL(test, xnet_test_rt_counted_new_array_atomic(3));
	LOG->fail = 1;
	KUNIT_EXPECT_NULL(test, xnet_test_rt_shape_new(XNET_TEST_SQUARE, 1, 1));
	LOG->fail = 1;
	KUNIT_EXPECT_NULL(test, xnet_test_rt_mi_new(1));
	KUNIT_EXPECT_EQ(test, LOG->allocs, 6UL);
	KUNIT_EXPECT_EQ(test, rt_stats().ctors, 0L);
	KUNIT_EXPECT_EQ(test, rt_stats().base_dtors, 0L);
	KUNIT_EXPECT_EQ(test, LOG->frees, 0UL);

	/* The failure was one-shot: the next allocation succeeds. */
	p = xnet_test_rt_counted_new(5);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, rt_stats().ctors, 1L);
	xnet_test_rt_counted_delete(p);
}

static void xnet_core_rt_sized_delete(struct kunit *test)
{
	void *p;

	/* The build compiles with sized deallocation (C++14 and later). */
	KUNIT_EXPECT_GE(test, xnet_test_rt_sized_dealloc_macro(), 201309L);

	/*
	 * Deleting a derived object through its base passes the size of the
	 * derived object (from the virtual destructor) to a sized delete.
	 */
	KUNIT_ASSERT_TRUE(test, xnet_test_rt_sized_delete_derived());
	KUNIT_EXPECT_GT(test, xnet_test_rt_sized_derived_size(), 40UL);
	KUNIT_EXPECT_EQ(test, rt_stats().sized_delete_size,
			xnet_test_rt_sized_derived_size());
	KUNIT_EXPECT_EQ(test, LOG->last_size,
			(size_t)xnet_test_rt_sized_derived_size());
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)LOG->last_ptr);

	/* The global sized forms free what they are given. */
	p = xnet_test_rt_global_sized_delete(24);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)p);
	p = xnet_test_rt_global_sized_delete_array(40);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)p);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 3UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 3UL);
}

static int xnet_core_rt_init(struct kunit *test)
{
	xnet_test_rt_reset();
	xnet_test_alloc_reset();
	return 0;
}

static void xnet_core_rt_exit(struct kunit *test)
{
	xnet_test_alloc_reset();
}

static struct kunit_case xnet_core_rt_cases[] = {
	KUNIT_CASE(xnet_core_rt_new_delete_object),
	KUNIT_CASE(xnet_core_rt_delete_null),
	KUNIT_CASE(xnet_core_rt_new_delete_array),
	KUNIT_CASE(xnet_core_rt_new_array_empty),
	KUNIT_CASE(xnet_core_rt_new_chars),
	KUNIT_CASE(xnet_core_rt_virtual_dispatch),
	KUNIT_CASE(xnet_core_rt_delete_second_base),
	KUNIT_CASE(xnet_core_rt_new_atomic),
	KUNIT_CASE(xnet_core_rt_alloc_fail_huge),
	KUNIT_CASE(xnet_core_rt_alloc_fail_injected),
	KUNIT_CASE(xnet_core_rt_sized_delete),
	{}
};

static struct kunit_suite xnet_core_rt_suite = {
	.name = "xnet_core_rt",
	.init = xnet_core_rt_init,
	.exit = xnet_core_rt_exit,
	.test_cases = xnet_core_rt_cases,
};

kunit_test_suite(xnet_core_rt_suite);

MODULE_DESCRIPTION("KUnit tests for the xnet modules' C++ core");
MODULE_LICENSE("GPL");
