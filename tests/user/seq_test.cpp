// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <xnet/seq.hpp>

using namespace xnet;

TEST(Seq, OrderWithoutWrap)
{
	EXPECT_TRUE(seq::before(1, 2));
	EXPECT_FALSE(seq::before(2, 1));
	EXPECT_FALSE(seq::before(7, 7));
	EXPECT_TRUE(seq::after(2, 1));
	EXPECT_FALSE(seq::after(7, 7));
	EXPECT_EQ(seq::diff(10, 3), 7);
	EXPECT_EQ(seq::diff(3, 10), -7);
}

TEST(Seq, OrderAcrossWrap)
{
	EXPECT_TRUE(seq::before(0xffffffffu, 0u));
	EXPECT_TRUE(seq::after(0u, 0xffffffffu));
	EXPECT_TRUE(seq::before(0xfffffff0u, 0x10u));
	EXPECT_EQ(seq::diff(0x10u, 0xfffffff0u), 0x20);
	EXPECT_EQ(seq::diff(0xfffffff0u, 0x10u), -0x20);
}

TEST(Seq, LargestDistances)
{
	// 2^31 - 1 apart: still ordered correctly in both directions.
	EXPECT_TRUE(seq::before(0u, 0x7fffffffu));
	EXPECT_TRUE(seq::after(0x7fffffffu, 0u));
	EXPECT_TRUE(seq::before(0x80000000u, 0xffffffffu));
	// 2^31 + 1 apart is read as the other direction (documented limit).
	EXPECT_TRUE(seq::after(0u, 0x80000001u));
}

TEST(Seq, ReachedIsInclusive)
{
	EXPECT_TRUE(seq::reached(100, 100));
	EXPECT_TRUE(seq::reached(101, 100));
	EXPECT_FALSE(seq::reached(99, 100));
	EXPECT_TRUE(seq::reached(3, 0xfffffffeu));
	EXPECT_FALSE(seq::reached(0xfffffffeu, 3));
}

// A BQL-like walk: the queue's completion counter chases a head recorded
// just before the enqueue counter wraps; it must not be "reached" until
// the completion counter itself has wrapped and caught up.
TEST(Seq, CompletionChasesHeadAcrossWrap)
{
	u32 queued = 0xffffff00u;
	u32 completed = queued;

	queued += 0x180;	// wraps to 0x80
	const u32 head = queued;

	int steps_before = 0;
	while (!seq::reached(completed, head)) {
		completed += 0x40;
		steps_before++;
		ASSERT_LT(steps_before, 100);
	}
	EXPECT_EQ(steps_before, 6);
	EXPECT_EQ(completed, 0x80u);
}
