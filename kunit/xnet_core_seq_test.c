// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnet_core_seq: wrap-safe comparison of free-running 32-bit
 * counters (include/xnet/seq.hpp) through abi.h (reached, diff) and the
 * test ABI (before, after).
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>

#include <xnet/abi.h>
#include "xnet_core_test_abi.h"

static const unsigned int seq_points[] = {
	0, 1, 2, 0x7ffffffe, 0x7fffffff, 0x80000000, 0x80000001,
	0xfffffffe, 0xffffffff,
};

static void xnet_core_seq_equal(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(seq_points); i++) {
		unsigned int x = seq_points[i];

		KUNIT_EXPECT_EQ_MSG(test, xnet_seq_diff(x, x), 0, "x=%#x", x);
		KUNIT_EXPECT_TRUE_MSG(test, xnet_seq_reached(x, x), "x=%#x", x);
		KUNIT_EXPECT_FALSE_MSG(test, xnet_test_seq_before(x, x), "x=%#x", x);
		KUNIT_EXPECT_FALSE_MSG(test, xnet_test_seq_after(x, x), "x=%#x", x);
	}
}

static void xnet_core_seq_small_steps(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, xnet_test_seq_before(1, 2));
	KUNIT_EXPECT_FALSE(test, xnet_test_seq_after(1, 2));
	KUNIT_EXPECT_TRUE(test, xnet_test_seq_after(2, 1));
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(2, 1), 1);
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(1, 2), -1);
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(1000, 0), 1000);
	KUNIT_EXPECT_TRUE(test, xnet_seq_reached(2, 1));
	KUNIT_EXPECT_FALSE(test, xnet_seq_reached(1, 2));
}

static void xnet_core_seq_around_zero(struct kunit *test)
{
	/* 0xffffffff is one step before 0, though numerically larger. */
	KUNIT_EXPECT_TRUE(test, xnet_test_seq_before(0xffffffff, 0));
	KUNIT_EXPECT_TRUE(test, xnet_test_seq_after(0, 0xffffffff));
	KUNIT_EXPECT_FALSE(test, xnet_test_seq_after(0xffffffff, 0));
	KUNIT_EXPECT_FALSE(test, xnet_test_seq_before(0, 0xffffffff));
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(0, 0xffffffff), 1);
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(0xffffffff, 0), -1);
	KUNIT_EXPECT_TRUE(test, xnet_seq_reached(0, 0xffffffff));
	KUNIT_EXPECT_FALSE(test, xnet_seq_reached(0xffffffff, 0));

	KUNIT_EXPECT_TRUE(test, xnet_test_seq_after(5, 0xfffffff0));
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(5, 0xfffffff0), 21);
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(0xfffffff0, 5), -21);
	KUNIT_EXPECT_TRUE(test, xnet_seq_reached(5, 0xfffffff0));
	KUNIT_EXPECT_FALSE(test, xnet_seq_reached(0xfffffff0, 5));
}

static void xnet_core_seq_around_half(struct kunit *test)
{
	/* Crossing 2^31 is nothing special for the signed distance. */
	KUNIT_EXPECT_TRUE(test, xnet_test_seq_after(0x80000000, 0x7fffffff));
	KUNIT_EXPECT_TRUE(test, xnet_test_seq_before(0x7fffffff, 0x80000000));
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(0x80000000, 0x7fffffff), 1);
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(0x7fffffff, 0x80000000), -1);
	KUNIT_EXPECT_TRUE(test, xnet_seq_reached(0x80000001, 0x7ffffff0));
}

static void xnet_core_seq_max_distance(struct kunit *test)
{
	static const unsigned int bases[] = {
		0, 1, 0x40000000, 0x80000000, 0xc0000000, 0xffffffff,
	};
	unsigned int i;

	/* 2^31 - 1 apart is the farthest the order is defined. */
	for (i = 0; i < ARRAY_SIZE(bases); i++) {
		unsigned int a = bases[i];
		unsigned int b = a + 0x7fffffffu;	/* may wrap */

		KUNIT_EXPECT_TRUE_MSG(test, xnet_test_seq_after(b, a), "a=%#x", a);
		KUNIT_EXPECT_TRUE_MSG(test, xnet_test_seq_before(a, b), "a=%#x", a);
		KUNIT_EXPECT_EQ_MSG(test, xnet_seq_diff(b, a), INT_MAX, "a=%#x", a);
		KUNIT_EXPECT_EQ_MSG(test, xnet_seq_diff(a, b), -INT_MAX, "a=%#x", a);
		KUNIT_EXPECT_TRUE_MSG(test, xnet_seq_reached(b, a), "a=%#x", a);
		KUNIT_EXPECT_FALSE_MSG(test, xnet_seq_reached(a, b), "a=%#x", a);
	}
	/* One more and the distance is INT_MIN: the order is undefined. */
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(0x80000000, 0), INT_MIN);
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(0, 0x80000000), INT_MIN);
	/* And one further the order flips: 2^31 + 1 ahead is behind. */
	KUNIT_EXPECT_TRUE(test, xnet_test_seq_before(0x80000001, 0));
	KUNIT_EXPECT_EQ(test, xnet_seq_diff(0x80000001, 0), -INT_MAX);
}

/* The shortest signed distance from @b to @a, computed without wrapping. */
static int seq_ref_diff(unsigned int a, unsigned int b)
{
	s64 delta = ((s64)a - (s64)b) & 0xffffffffLL;	/* 0 .. 2^32 - 1 */

	return (int)(delta < 0x80000000LL ? delta : delta - 0x100000000LL);
}

static void xnet_core_seq_all_pairs(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(seq_points); i++) {
		for (j = 0; j < ARRAY_SIZE(seq_points); j++) {
			unsigned int a = seq_points[i], b = seq_points[j];
			int d = seq_ref_diff(a, b);

			KUNIT_EXPECT_EQ_MSG(test, xnet_seq_diff(a, b), d,
					    "a=%#x b=%#x", a, b);
			KUNIT_EXPECT_EQ_MSG(test, xnet_test_seq_before(a, b),
					    (int)(d < 0), "a=%#x b=%#x", a, b);
			KUNIT_EXPECT_EQ_MSG(test, xnet_test_seq_after(a, b),
					    (int)(d > 0), "a=%#x b=%#x", a, b);
			KUNIT_EXPECT_EQ_MSG(test, xnet_seq_reached(a, b),
					    (int)(d >= 0), "a=%#x b=%#x", a, b);
			/* Antisymmetric, except exactly 2^31 apart. */
			if (d != INT_MIN)
				KUNIT_EXPECT_EQ_MSG(test,
						    xnet_test_seq_before(a, b),
						    xnet_test_seq_after(b, a),
						    "a=%#x b=%#x", a, b);
		}
	}
}

/*
 * BQL: dql.num_queued and dql.num_completed are byte counters that wrap.
 * Record the enqueue count after each packet of a flow (its "mark"); the
 * flow's packets have left the queue once num_completed reached the mark.
 * Walk both counters across 2^32 and compare every answer with the same
 * question asked of 64-bit counters that do not wrap.
 */
#define BQL_MARKS 8

static void xnet_core_seq_bql_walk(struct kunit *test)
{
	u64 queued = 0xffffffffULL - 40 * 1500 + 7;	/* wraps mid-walk */
	u64 completed = queued;
	u64 marks[BQL_MARKS];
	unsigned int nmarks = 0, step, checks = 0, errors = 0;
	bool wrapped_queued = false, wrapped_completed = false;
	bool mark_wrapped_ahead = false;

	for (step = 0; step < 400; step++) {
		unsigned int len = 60 + (step * 37) % 1455;	/* 60..1514 */
		unsigned int i;

		/* Enqueue a packet; every third one belongs to "our" flow. */
		queued += len;
		if (step % 3 == 0 && nmarks < BQL_MARKS)
			marks[nmarks++] = queued;
		/* Complete in bursts, never past what was queued. */
		if (step % 4 == 3) {
			u64 upto = queued - (step % 8 == 7 ? 0 : len / 2);

			if (upto > completed)
				completed = upto;
		}

		if ((u32)queued < (u32)(queued - len))
			wrapped_queued = true;
		if (completed > 0xffffffffULL)
			wrapped_completed = true;

		/* In flight, as the driver sees it from 32-bit counters. */
		if (xnet_seq_diff((u32)queued, (u32)completed) !=
		    (int)(queued - completed))
			errors++;

		for (i = 0; i < nmarks; i++) {
			bool want = completed >= marks[i];
			bool got = xnet_seq_reached((u32)completed, (u32)marks[i]);

			if ((u32)marks[i] < (u32)completed && !want)
				mark_wrapped_ahead = true;
			checks++;
			if (got != want) {
				errors++;
				kunit_info(test, "step %u: completed %#x mark %#x: reached=%d want %d\n",
					   step, (u32)completed, (u32)marks[i], got, want);
			}
		}
		/* Forget the marks the counter has passed. */
		while (nmarks && completed >= marks[0])
			memmove(marks, marks + 1, --nmarks * sizeof(marks[0]));
	}

	KUNIT_EXPECT_EQ(test, errors, 0U);
	KUNIT_EXPECT_GT(test, checks, 100U);
	/* The walk really crossed 2^32, with a mark numerically below. */
	KUNIT_EXPECT_TRUE(test, wrapped_queued);
	KUNIT_EXPECT_TRUE(test, wrapped_completed);
	KUNIT_EXPECT_TRUE(test, mark_wrapped_ahead);
}

static struct kunit_case xnet_core_seq_cases[] = {
	KUNIT_CASE(xnet_core_seq_equal),
	KUNIT_CASE(xnet_core_seq_small_steps),
	KUNIT_CASE(xnet_core_seq_around_zero),
	KUNIT_CASE(xnet_core_seq_around_half),
	KUNIT_CASE(xnet_core_seq_max_distance),
	KUNIT_CASE(xnet_core_seq_all_pairs),
	KUNIT_CASE(xnet_core_seq_bql_walk),
	{}
};

static struct kunit_suite xnet_core_seq_suite = {
	.name = "xnet_core_seq",
	.test_cases = xnet_core_seq_cases,
};

kunit_test_suite(xnet_core_seq_suite);
