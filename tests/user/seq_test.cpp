// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include <xnet/seq.hpp>

using namespace xnet;

namespace {

const u32 kPoints[] = {
	0, 1, 2, 0x7ffffffeu, 0x7fffffffu, 0x80000000u, 0x80000001u,
	0xfffffffeu, 0xffffffffu,
};

// The shortest signed distance from @b to @a, computed without wrapping.
s32 ref_diff(u32 a, u32 b)
{
	s64 delta = (static_cast<s64>(a) - static_cast<s64>(b)) & 0xffffffffLL;

	return static_cast<s32>(delta < 0x80000000LL ? delta : delta - 0x100000000LL);
}

} // namespace

TEST(Seq, EqualAtEveryPoint)
{
	for (u32 x : kPoints) {
		EXPECT_EQ(seq::diff(x, x), 0) << std::hex << x;
		EXPECT_TRUE(seq::reached(x, x)) << std::hex << x;
		EXPECT_FALSE(seq::before(x, x)) << std::hex << x;
		EXPECT_FALSE(seq::after(x, x)) << std::hex << x;
	}
}

TEST(Seq, OrderWithoutWrap)
{
	EXPECT_TRUE(seq::before(1, 2));
	EXPECT_FALSE(seq::before(2, 1));
	EXPECT_FALSE(seq::before(7, 7));
	EXPECT_TRUE(seq::after(2, 1));
	EXPECT_FALSE(seq::after(1, 2));
	EXPECT_FALSE(seq::after(7, 7));
	EXPECT_EQ(seq::diff(10, 3), 7);
	EXPECT_EQ(seq::diff(3, 10), -7);
	EXPECT_EQ(seq::diff(2, 1), 1);
	EXPECT_EQ(seq::diff(1, 2), -1);
	EXPECT_EQ(seq::diff(1000, 0), 1000);
	EXPECT_TRUE(seq::reached(2, 1));
	EXPECT_FALSE(seq::reached(1, 2));
}

TEST(Seq, OrderAcrossWrap)
{
	// 0xffffffff is one step before 0, though numerically larger.
	EXPECT_TRUE(seq::before(0xffffffffu, 0u));
	EXPECT_TRUE(seq::after(0u, 0xffffffffu));
	EXPECT_FALSE(seq::after(0xffffffffu, 0u));
	EXPECT_FALSE(seq::before(0u, 0xffffffffu));
	EXPECT_EQ(seq::diff(0u, 0xffffffffu), 1);
	EXPECT_EQ(seq::diff(0xffffffffu, 0u), -1);
	EXPECT_TRUE(seq::reached(0u, 0xffffffffu));
	EXPECT_FALSE(seq::reached(0xffffffffu, 0u));

	EXPECT_TRUE(seq::before(0xfffffff0u, 0x10u));
	EXPECT_EQ(seq::diff(0x10u, 0xfffffff0u), 0x20);
	EXPECT_EQ(seq::diff(0xfffffff0u, 0x10u), -0x20);
	EXPECT_TRUE(seq::after(5u, 0xfffffff0u));
	EXPECT_EQ(seq::diff(5u, 0xfffffff0u), 21);
	EXPECT_EQ(seq::diff(0xfffffff0u, 5u), -21);
	EXPECT_TRUE(seq::reached(5u, 0xfffffff0u));
	EXPECT_FALSE(seq::reached(0xfffffff0u, 5u));
}

TEST(Seq, AcrossHalf)
{
	// Crossing 2^31 is nothing special for the signed distance.
	EXPECT_TRUE(seq::after(0x80000000u, 0x7fffffffu));
	EXPECT_TRUE(seq::before(0x7fffffffu, 0x80000000u));
	EXPECT_EQ(seq::diff(0x80000000u, 0x7fffffffu), 1);
	EXPECT_EQ(seq::diff(0x7fffffffu, 0x80000000u), -1);
	EXPECT_TRUE(seq::reached(0x80000001u, 0x7ffffff0u));
}

TEST(Seq, LargestDistances)
{
	// 2^31 - 1 apart: still ordered correctly in both directions.
	EXPECT_TRUE(seq::before(0u, 0x7fffffffu));
	EXPECT_TRUE(seq::after(0x7fffffffu, 0u));
	EXPECT_TRUE(seq::before(0x80000000u, 0xffffffffu));
	for (u32 a : { 0u, 1u, 0x40000000u, 0x80000000u, 0xc0000000u, 0xffffffffu }) {
		u32 b = a + 0x7fffffffu;	// may wrap

		EXPECT_TRUE(seq::after(b, a)) << std::hex << a;
		EXPECT_TRUE(seq::before(a, b)) << std::hex << a;
		EXPECT_EQ(seq::diff(b, a), INT_MAX) << std::hex << a;
		EXPECT_EQ(seq::diff(a, b), -INT_MAX) << std::hex << a;
		EXPECT_TRUE(seq::reached(b, a)) << std::hex << a;
		EXPECT_FALSE(seq::reached(a, b)) << std::hex << a;
	}
	// Exactly 2^31 apart the distance is INT_MIN: the order is undefined.
	EXPECT_EQ(seq::diff(0x80000000u, 0u), INT_MIN);
	EXPECT_EQ(seq::diff(0u, 0x80000000u), INT_MIN);
	// 2^31 + 1 apart is read as the other direction (documented limit).
	EXPECT_TRUE(seq::after(0u, 0x80000001u));
	EXPECT_TRUE(seq::before(0x80000001u, 0u));
	EXPECT_EQ(seq::diff(0x80000001u, 0u), -INT_MAX);
}

TEST(Seq, AllPairsMatchReference)
{
	for (u32 a : kPoints) {
		for (u32 b : kPoints) {
			s32 d = ref_diff(a, b);

			SCOPED_TRACE(testing::Message() << std::hex << "a=" << a << " b=" << b);
			EXPECT_EQ(seq::diff(a, b), d);
			EXPECT_EQ(seq::before(a, b), d < 0);
			EXPECT_EQ(seq::after(a, b), d > 0);
			EXPECT_EQ(seq::reached(a, b), d >= 0);
			// Antisymmetric, except exactly 2^31 apart.
			if (d != INT_MIN) {
				EXPECT_EQ(seq::before(a, b), seq::after(b, a));
			}
		}
	}
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

// BQL: dql.num_queued and dql.num_completed are byte counters that wrap.
// Record the enqueue count after each packet of a flow (its "mark"); the
// flow's packets have left the queue once num_completed reached the mark.
// Walk both counters across 2^32 and compare every answer with the same
// question asked of 64-bit counters that do not wrap.
TEST(Seq, BqlWalkMatches64BitCounters)
{
	constexpr usize kMarks = 8;
	u64 queued = 0xffffffffull - 40 * 1500 + 7;	// wraps mid-walk
	u64 completed = queued;
	std::vector<u64> marks;
	unsigned int checks = 0;
	bool wrapped_queued = false, wrapped_completed = false;
	bool mark_wrapped_ahead = false;

	for (unsigned int step = 0; step < 400; step++) {
		unsigned int len = 60 + (step * 37) % 1455;	// 60..1514

		// Enqueue a packet; every third one belongs to "our" flow.
		queued += len;
		if (step % 3 == 0 && marks.size() < kMarks)
			marks.push_back(queued);
		// Complete in bursts, never past what was queued.
		if (step % 4 == 3) {
			u64 upto = queued - (step % 8 == 7 ? 0 : len / 2);

			if (upto > completed)
				completed = upto;
		}

		if (static_cast<u32>(queued) < static_cast<u32>(queued - len))
			wrapped_queued = true;
		if (completed > 0xffffffffull)
			wrapped_completed = true;

		// In flight, as the driver sees it from 32-bit counters.
		EXPECT_EQ(seq::diff(static_cast<u32>(queued), static_cast<u32>(completed)),
			  static_cast<s32>(queued - completed)) << "step " << step;

		for (u64 mark : marks) {
			bool want = completed >= mark;

			if (static_cast<u32>(mark) < static_cast<u32>(completed) && !want)
				mark_wrapped_ahead = true;
			checks++;
			EXPECT_EQ(seq::reached(static_cast<u32>(completed), static_cast<u32>(mark)),
				  want) << "step " << step << std::hex << ": completed "
					<< static_cast<u32>(completed) << " mark "
					<< static_cast<u32>(mark);
		}
		// Forget the marks the counter has passed.
		while (!marks.empty() && completed >= marks.front())
			marks.erase(marks.begin());
	}

	EXPECT_GT(checks, 100u);
	// The walk really crossed 2^32, with a mark numerically below.
	EXPECT_TRUE(wrapped_queued);
	EXPECT_TRUE(wrapped_completed);
	EXPECT_TRUE(mark_wrapped_ahead);
}

// pending(): a mark in the window (done, issued], at every point of the
// circle, and never a mark outside it however far (the idle-flow wrap and
// a counter reset, which reached() gets wrong).
TEST(Seq, PendingIsTheWindow)
{
	for (u32 done : kPoints) {
		for (u32 inflight : { 0u, 1u, 1500u, 0x10000u }) {
			const u32 issued = done + inflight;

			EXPECT_FALSE(seq::pending(done, done, issued)) << std::hex << done;
			EXPECT_EQ(seq::pending(done + 1, done, issued), inflight >= 1);
			EXPECT_EQ(seq::pending(issued, done, issued), inflight != 0);
			EXPECT_FALSE(seq::pending(issued + 1, done, issued));
			// A mark 2^31 + 16 behind: reached() calls it the future.
			const u32 old = done - 0x80000010u;
			EXPECT_FALSE(seq::reached(done, old));
			EXPECT_FALSE(seq::pending(old, done, issued)) << std::hex << done;
		}
	}
	// Both counters reset to 0 (dql_reset()): any old mark is done.
	EXPECT_FALSE(seq::pending(0x12345678u, 0, 0));
	EXPECT_FALSE(seq::pending(5u, 0, 0));
}
