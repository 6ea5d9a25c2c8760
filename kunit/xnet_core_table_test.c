// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnet_core_table: xnet::Pow2Table<u64, xnet::kernel::Traits>
 * (include/xnet/table.hpp) on the kernel allocator, through the test ABI.
 * The allocation log of xnet_core_rt_test.c shows what the table asked the
 * allocator for and lets a test make an allocation fail.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/kernel.h>

#include <xnet/abi.h>
#include "xnet_core_test_abi.h"
#include "xnet_core_test_alloc.h"

#define LOG (&xnet_test_alloc_log)
#define ENTRY sizeof(unsigned long long)

/*
 * A table that is deleted (and its entries freed) when the test ends, by
 * the suite's exit, which also runs after a failed assertion.
 */
static struct xnet_test_table *new_table(struct kunit *test)
{
	struct xnet_test_table *t = xnet_test_table_new();

	KUNIT_ASSERT_NOT_NULL(test, t);
	test->priv = t;
	xnet_test_alloc_reset();
	return t;
}

static bool all_zero(struct xnet_test_table *t)
{
	unsigned long long *e = xnet_test_table_data(t);
	unsigned int i;

	for (i = 0; i < xnet_test_table_size(t); i++)
		if (e[i])
			return false;
	return true;
}

static void fill(struct xnet_test_table *t, unsigned long long base)
{
	unsigned long long *e = xnet_test_table_data(t);
	unsigned int i;

	for (i = 0; i < xnet_test_table_size(t); i++)
		e[i] = base + i;
}

static bool filled(struct xnet_test_table *t, unsigned long long base)
{
	unsigned long long *e = xnet_test_table_data(t);
	unsigned int i;

	for (i = 0; i < xnet_test_table_size(t); i++)
		if (e[i] != base + i)
			return false;
	return true;
}

static void xnet_core_table_starts_empty(struct kunit *test)
{
	struct xnet_test_table *t = new_table(test);

	KUNIT_EXPECT_EQ(test, xnet_test_table_size(t), 0U);
	KUNIT_EXPECT_TRUE(test, xnet_test_table_empty(t));
	KUNIT_EXPECT_NULL(test, xnet_test_table_data(t));
	/* destroy() of an empty table frees nothing. */
	xnet_test_table_destroy(t);
	KUNIT_EXPECT_EQ(test, LOG->frees, 0UL);
}

struct size_case {
	unsigned int req, max, size;
};

static const struct size_case size_cases[] = {
	{ 1, 1024, 1 }, { 2, 1024, 2 }, { 3, 1024, 4 }, { 17, 1024, 32 },
	{ 64, 1024, 64 }, { 1000, 1024, 1024 }, { 1024, 1024, 1024 },
	{ 1, 1, 1 }, { 4097, 8192, 8192 },
};

static void size_case_desc(const struct size_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "req %u max %u", c->req, c->max);
}

KUNIT_ARRAY_PARAM(table_sizes, size_cases, size_case_desc);

static void xnet_core_table_init_sizes(struct kunit *test)
{
	const struct size_case *c = test->param_value;
	struct xnet_test_table *t = new_table(test);

	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, c->req, c->max), XNET_OK);
	KUNIT_EXPECT_EQ(test, xnet_test_table_size(t), c->size);
	KUNIT_EXPECT_EQ(test, xnet_test_table_mask(t), c->size - 1);
	KUNIT_EXPECT_FALSE(test, xnet_test_table_empty(t));
	KUNIT_EXPECT_NOT_NULL(test, xnet_test_table_data(t));
	/* One zeroed allocation of exactly size entries, from process context. */
	KUNIT_EXPECT_EQ(test, LOG->allocs, 1UL);
	KUNIT_EXPECT_EQ(test, LOG->last_size, (size_t)c->size * ENTRY);
	KUNIT_EXPECT_EQ(test, LOG->last_gfp,
			GFP_KERNEL | __GFP_NOWARN | __GFP_ZERO);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_ptr, (void *)xnet_test_table_data(t));
}

static void xnet_core_table_zeroed(struct kunit *test)
{
	struct xnet_test_table *t = new_table(test);
	unsigned long long *old;

	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, 100, 1024), XNET_OK);
	KUNIT_ASSERT_EQ(test, xnet_test_table_size(t), 128U);
	KUNIT_EXPECT_TRUE(test, all_zero(t));

	/* Dirty it, re-init at the same size: the new entries are zero. */
	fill(t, 0x1111);
	old = xnet_test_table_data(t);
	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, 128, 1024), XNET_OK);
	KUNIT_EXPECT_EQ(test, xnet_test_table_size(t), 128U);
	KUNIT_EXPECT_PTR_NE(test, xnet_test_table_data(t), old);
	KUNIT_EXPECT_TRUE(test, all_zero(t));
}

static void xnet_core_table_at_hash(struct kunit *test)
{
	static const unsigned int hashes[] = {
		0, 1, 15, 16, 17, 31, 0x12345678, 0x7fffffff, 0x80000000,
		0xfffffff0, 0xffffffff,
	};
	struct xnet_test_table *t = new_table(test);
	unsigned long long *e;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, 16, 1024), XNET_OK);
	e = xnet_test_table_data(t);
	for (i = 0; i < ARRAY_SIZE(hashes); i++)
		KUNIT_EXPECT_PTR_EQ_MSG(test, xnet_test_table_at_hash(t, hashes[i]),
					&e[hashes[i] & 15], "hash %#x", hashes[i]);

	/* Hashes equal modulo the size share an entry. */
	*xnet_test_table_at_hash(t, 5) = 55;
	KUNIT_EXPECT_EQ(test, *xnet_test_table_at_hash(t, 21), 55ULL);
	KUNIT_EXPECT_EQ(test, *xnet_test_table_at_hash(t, 0xfffffff5), 55ULL);
	KUNIT_EXPECT_EQ(test, *xnet_test_table_at_hash(t, 6), 0ULL);

	/* A table of one entry maps every hash to it. */
	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, 1, 1024), XNET_OK);
	KUNIT_EXPECT_EQ(test, xnet_test_table_mask(t), 0U);
	KUNIT_EXPECT_PTR_EQ(test, xnet_test_table_at_hash(t, 0xffffffff),
			    xnet_test_table_data(t));
}

static void xnet_core_table_reinit_replaces(struct kunit *test)
{
	struct xnet_test_table *t = new_table(test);
	unsigned long long *old;

	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, 8, 64), XNET_OK);
	fill(t, 100);
	old = xnet_test_table_data(t);

	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, 32, 64), XNET_OK);
	KUNIT_EXPECT_EQ(test, xnet_test_table_size(t), 32U);
	KUNIT_EXPECT_PTR_NE(test, xnet_test_table_data(t), old);
	KUNIT_EXPECT_TRUE(test, all_zero(t));
	/* The old entries were freed after the new ones were allocated. */
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)old);

	/* Shrinking works the same way. */
	old = xnet_test_table_data(t);
	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, 2, 64), XNET_OK);
	KUNIT_EXPECT_EQ(test, xnet_test_table_size(t), 2U);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)old);
}

static void xnet_core_table_init_zero_frees(struct kunit *test)
{
	struct xnet_test_table *t = new_table(test);
	unsigned long long *old;

	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, 8, 64), XNET_OK);
	old = xnet_test_table_data(t);

	KUNIT_EXPECT_EQ(test, xnet_test_table_init(t, 0, 64), XNET_OK);
	KUNIT_EXPECT_EQ(test, xnet_test_table_size(t), 0U);
	KUNIT_EXPECT_TRUE(test, xnet_test_table_empty(t));
	KUNIT_EXPECT_NULL(test, xnet_test_table_data(t));
	KUNIT_EXPECT_EQ(test, LOG->allocs, 1UL);	/* nothing allocated */
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)old);

	/* Again on the empty table: nothing to free. */
	KUNIT_EXPECT_EQ(test, xnet_test_table_init(t, 0, 64), XNET_OK);
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
}

static void xnet_core_table_error_keeps_old(struct kunit *test)
{
	struct xnet_test_table *t = new_table(test);
	unsigned long long *old;

	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, 8, 16), XNET_OK);
	fill(t, 500);
	old = xnet_test_table_data(t);

	/* Above max: Range, the table and its entries are as they were. */
	KUNIT_EXPECT_EQ(test, xnet_test_table_init(t, 17, 16), XNET_E_RANGE);
	KUNIT_EXPECT_EQ(test, xnet_test_table_init(t, 0xffffffff, 16),
			XNET_E_RANGE);
	/* A bound that is not a power of two: Invalid, same. */
	KUNIT_EXPECT_EQ(test, xnet_test_table_init(t, 4, 24), XNET_E_INVALID);
	KUNIT_EXPECT_EQ(test, xnet_test_table_init(t, 0, 24), XNET_E_INVALID);
	KUNIT_EXPECT_EQ(test, xnet_test_table_size(t), 8U);
	KUNIT_EXPECT_PTR_EQ(test, xnet_test_table_data(t), old);
	KUNIT_EXPECT_TRUE(test, filled(t, 500));
	/* Refused before allocating. */
	KUNIT_EXPECT_EQ(test, LOG->allocs, 1UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 0UL);

	/* Out of memory: NoMem, the old table is kept, nothing freed. */
	LOG->fail = 1;
	KUNIT_EXPECT_EQ(test, xnet_test_table_init(t, 16, 16), XNET_E_NOMEM);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 0UL);
	KUNIT_EXPECT_EQ(test, xnet_test_table_size(t), 8U);
	KUNIT_EXPECT_PTR_EQ(test, xnet_test_table_data(t), old);
	KUNIT_EXPECT_TRUE(test, filled(t, 500));
}

static void xnet_core_table_destroy(struct kunit *test)
{
	struct xnet_test_table *t = new_table(test);
	unsigned long long *old;

	KUNIT_ASSERT_EQ(test, xnet_test_table_init(t, 4, 16), XNET_OK);
	old = xnet_test_table_data(t);
	xnet_test_table_destroy(t);
	KUNIT_EXPECT_TRUE(test, xnet_test_table_empty(t));
	KUNIT_EXPECT_NULL(test, xnet_test_table_data(t));
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)old);
	/* Twice is harmless. */
	xnet_test_table_destroy(t);
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	/* And the table can be used again. */
	KUNIT_EXPECT_EQ(test, xnet_test_table_init(t, 4, 16), XNET_OK);
	KUNIT_EXPECT_EQ(test, xnet_test_table_size(t), 4U);
}

static int xnet_core_table_init(struct kunit *test)
{
	test->priv = NULL;
	xnet_test_alloc_reset();
	return 0;
}

static void xnet_core_table_exit(struct kunit *test)
{
	xnet_test_table_delete(test->priv);	/* NULL-safe */
	test->priv = NULL;
	xnet_test_alloc_reset();
}

static struct kunit_case xnet_core_table_cases[] = {
	KUNIT_CASE(xnet_core_table_starts_empty),
	KUNIT_CASE_PARAM(xnet_core_table_init_sizes, table_sizes_gen_params),
	KUNIT_CASE(xnet_core_table_zeroed),
	KUNIT_CASE(xnet_core_table_at_hash),
	KUNIT_CASE(xnet_core_table_reinit_replaces),
	KUNIT_CASE(xnet_core_table_init_zero_frees),
	KUNIT_CASE(xnet_core_table_error_keeps_old),
	KUNIT_CASE(xnet_core_table_destroy),
	{}
};

static struct kunit_suite xnet_core_table_suite = {
	.name = "xnet_core_table",
	.init = xnet_core_table_init,
	.exit = xnet_core_table_exit,
	.test_cases = xnet_core_table_cases,
};

kunit_test_suite(xnet_core_table_suite);
