// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnet_core_pow2: bounded power-of-two table sizing
 * (include/xnet/pow2.hpp) through abi.h (xnet_table_size) and the test ABI
 * (roundup, is_pow2, kMax).
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include <xnet/abi.h>
#include "xnet_core_test_abi.h"

#define POW2_MAX 0x80000000u	/* pow2::kMax */
#define UNTOUCHED 0xdeadbeefu

struct pow2_case {
	const char *name;
	unsigned int req, max;
	int err;
	unsigned int size;	/* expected *out; UNTOUCHED on error */
};

static const struct pow2_case pow2_cases[] = {
	{ "zero is off", 0, 1024, XNET_OK, 0 },
	{ "zero with max 1", 0, 1, XNET_OK, 0 },
	{ "one", 1, 1024, XNET_OK, 1 },
	{ "two", 2, 1024, XNET_OK, 2 },
	{ "three", 3, 1024, XNET_OK, 4 },
	{ "five", 5, 1024, XNET_OK, 8 },
	{ "1000", 1000, 1024, XNET_OK, 1024 },
	{ "1023", 1023, 1024, XNET_OK, 1024 },
	{ "513", 513, 1024, XNET_OK, 1024 },
	{ "exact 64", 64, 1024, XNET_OK, 64 },
	{ "req == max", 1024, 1024, XNET_OK, 1024 },
	{ "max + 1", 1025, 1024, XNET_E_RANGE, UNTOUCHED },
	{ "max 1, req 1", 1, 1, XNET_OK, 1 },
	{ "max 1, req 2", 2, 1, XNET_E_RANGE, UNTOUCHED },
	{ "kMax", POW2_MAX, POW2_MAX, XNET_OK, POW2_MAX },
	{ "kMax - 1", POW2_MAX - 1, POW2_MAX, XNET_OK, POW2_MAX },
	{ "2^30 + 1", 0x40000001, POW2_MAX, XNET_OK, POW2_MAX },
	{ "0x80000001", 0x80000001, POW2_MAX, XNET_E_RANGE, UNTOUCHED },
	{ "0xffffffff", 0xffffffff, POW2_MAX, XNET_E_RANGE, UNTOUCHED },
	{ "0xffffffff, max 1024", 0xffffffff, 1024, XNET_E_RANGE, UNTOUCHED },
	{ "max not a power", 3, 1000, XNET_E_INVALID, UNTOUCHED },
	{ "max 0", 0, 0, XNET_E_INVALID, UNTOUCHED },
	{ "max 0xffffffff", 1, 0xffffffff, XNET_E_INVALID, UNTOUCHED },
	{ "max 3, req 0", 0, 3, XNET_E_INVALID, UNTOUCHED },
};

static void pow2_case_desc(const struct pow2_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s (req %#x max %#x)",
		 c->name, c->req, c->max);
}

KUNIT_ARRAY_PARAM(pow2_table_size, pow2_cases, pow2_case_desc);

static void xnet_core_pow2_table_size(struct kunit *test)
{
	const struct pow2_case *c = test->param_value;
	unsigned int out = UNTOUCHED;

	KUNIT_EXPECT_EQ(test, xnet_table_size(c->req, c->max, &out), c->err);
	KUNIT_EXPECT_EQ(test, out, c->size);
}

static void xnet_core_pow2_every_power(struct kunit *test)
{
	unsigned int k;

	for (k = 0; k < 32; k++) {
		unsigned int p = 1u << k, out = UNTOUCHED;

		KUNIT_EXPECT_TRUE_MSG(test, xnet_test_pow2_is_pow2(p), "2^%u", k);
		KUNIT_EXPECT_EQ_MSG(test, xnet_test_pow2_roundup(p), p, "2^%u", k);
		KUNIT_EXPECT_EQ_MSG(test, xnet_table_size(p, POW2_MAX, &out),
				    XNET_OK, "2^%u", k);
		KUNIT_EXPECT_EQ_MSG(test, out, p, "2^%u", k);
		/* One above rounds up to the next power. */
		if (k >= 1 && k < 31) {
			out = UNTOUCHED;
			KUNIT_EXPECT_FALSE_MSG(test, xnet_test_pow2_is_pow2(p + 1),
					       "2^%u + 1", k);
			KUNIT_EXPECT_EQ_MSG(test, xnet_table_size(p + 1, POW2_MAX, &out),
					    XNET_OK, "2^%u + 1", k);
			KUNIT_EXPECT_EQ_MSG(test, out, p << 1, "2^%u + 1", k);
		}
		/* One below rounds up to the power itself. */
		if (k >= 2) {
			KUNIT_EXPECT_FALSE_MSG(test, xnet_test_pow2_is_pow2(p - 1),
					       "2^%u - 1", k);
			KUNIT_EXPECT_EQ_MSG(test, xnet_test_pow2_roundup(p - 1), p,
					    "2^%u - 1", k);
		}
	}
}

static void xnet_core_pow2_roundup_bounds(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xnet_test_pow2_max(), POW2_MAX);
	KUNIT_EXPECT_FALSE(test, xnet_test_pow2_is_pow2(0));
	KUNIT_EXPECT_FALSE(test, xnet_test_pow2_is_pow2(0xffffffff));
	/* Outside [1, kMax] roundup() answers 0 rather than overflowing. */
	KUNIT_EXPECT_EQ(test, xnet_test_pow2_roundup(0), 0U);
	KUNIT_EXPECT_EQ(test, xnet_test_pow2_roundup(POW2_MAX + 1), 0U);
	KUNIT_EXPECT_EQ(test, xnet_test_pow2_roundup(0xffffffff), 0U);
	KUNIT_EXPECT_EQ(test, xnet_test_pow2_roundup(1), 1U);
	KUNIT_EXPECT_EQ(test, xnet_test_pow2_roundup(0x40000001), POW2_MAX);
}

static void xnet_core_pow2_every_max(struct kunit *test)
{
	unsigned int k;

	/* For every power-of-two bound: max is accepted, max + 1 is not. */
	for (k = 0; k < 32; k++) {
		unsigned int max = 1u << k, out = UNTOUCHED;

		KUNIT_EXPECT_EQ_MSG(test, xnet_table_size(max, max, &out),
				    XNET_OK, "max 2^%u", k);
		KUNIT_EXPECT_EQ_MSG(test, out, max, "max 2^%u", k);
		out = UNTOUCHED;
		KUNIT_EXPECT_EQ_MSG(test, xnet_table_size(max + 1, max, &out),
				    XNET_E_RANGE, "max 2^%u", k);
		KUNIT_EXPECT_EQ_MSG(test, out, UNTOUCHED, "max 2^%u", k);
		/* A non-power bound next to it is refused, whatever req. */
		if (k >= 1) {
			KUNIT_EXPECT_EQ_MSG(test, xnet_table_size(1, max + 1, &out),
					    XNET_E_INVALID, "max 2^%u + 1", k);
			KUNIT_EXPECT_EQ_MSG(test, out, UNTOUCHED, "max 2^%u + 1", k);
		}
	}
}

static struct kunit_case xnet_core_pow2_cases[] = {
	KUNIT_CASE_PARAM(xnet_core_pow2_table_size, pow2_table_size_gen_params),
	KUNIT_CASE(xnet_core_pow2_every_power),
	KUNIT_CASE(xnet_core_pow2_roundup_bounds),
	KUNIT_CASE(xnet_core_pow2_every_max),
	{}
};

static struct kunit_suite xnet_core_pow2_suite = {
	.name = "xnet_core_pow2",
	.test_cases = xnet_core_pow2_cases,
};

kunit_test_suite(xnet_core_pow2_suite);
