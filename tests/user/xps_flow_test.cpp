// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <thread>
#include <vector>

#include <xnet/table.hpp>
#include <xnet/xps_flow.hpp>

#include "user_traits.hpp"

using namespace xnet;
using xps::Verdict;

namespace {

struct Completed {
	u32 value;
	int *calls;

	u32 operator()(u16) const
	{
		(*calls)++;
		return value;
	}
};

} // namespace

TEST(XpsFlow, PackRoundTrip)
{
	u64 e = xps::pack(7, 0xfffffff0u);

	EXPECT_TRUE(xps::valid(e));
	EXPECT_EQ(xps::queue_of(e), 7);
	EXPECT_EQ(xps::head_of(e), 0xfffffff0u);
	EXPECT_FALSE(xps::valid(0));
	e = xps::pack(0xffff, 0);
	EXPECT_EQ(xps::queue_of(e), 0xffff);
	EXPECT_EQ(xps::head_of(e), 0u);
}

TEST(XpsFlow, EveryBranch)
{
	int calls = 0;

	auto d = xps::decide(0, 3, 4, Completed{ 0, &calls });
	EXPECT_EQ(d.queue, 3);
	EXPECT_EQ(d.verdict, Verdict::New);

	d = xps::decide(xps::pack(3, 100), 3, 4, Completed{ 0, &calls });
	EXPECT_EQ(d.queue, 3);
	EXPECT_EQ(d.verdict, Verdict::Same);

	d = xps::decide(xps::pack(5, 100), 1, 4, Completed{ 0, &calls });
	EXPECT_EQ(d.queue, 1);
	EXPECT_EQ(d.verdict, Verdict::Stale) << "queue 5 of 4 is gone";
	EXPECT_EQ(calls, 0) << "completion counter not read for these";

	d = xps::decide(xps::pack(0, 100), 1, 4, Completed{ 99, &calls });
	EXPECT_EQ(d.queue, 0);
	EXPECT_EQ(d.verdict, Verdict::Hold);
	EXPECT_EQ(calls, 1);

	d = xps::decide(xps::pack(0, 100), 1, 4, Completed{ 100, &calls });
	EXPECT_EQ(d.queue, 1);
	EXPECT_EQ(d.verdict, Verdict::Move) << "completed == head: drained";

	d = xps::decide(xps::pack(0, 100), 1, 4, Completed{ 150, &calls });
	EXPECT_EQ(d.verdict, Verdict::Move);
}

TEST(XpsFlow, CountersAroundTheWrap)
{
	int calls = 0;
	const u64 e = xps::pack(2, 0x00000010u);	// head just past the wrap

	EXPECT_EQ(xps::decide(e, 1, 4, Completed{ 0xfffffff0u, &calls }).verdict, Verdict::Hold);
	EXPECT_EQ(xps::decide(e, 1, 4, Completed{ 0x0000000fu, &calls }).verdict, Verdict::Hold);
	EXPECT_EQ(xps::decide(e, 1, 4, Completed{ 0x00000010u, &calls }).verdict, Verdict::Move);
	EXPECT_EQ(xps::decide(e, 1, 4, Completed{ 0x00001000u, &calls }).verdict, Verdict::Move);

	const u64 f = xps::pack(2, 0xfffffff0u);	// head just before the wrap
	EXPECT_EQ(xps::decide(f, 1, 4, Completed{ 0xffffff00u, &calls }).verdict, Verdict::Hold);
	EXPECT_EQ(xps::decide(f, 1, 4, Completed{ 0x00000005u, &calls }).verdict, Verdict::Move);
}

// A model of two TX queues with BQL byte counters, each completing in FIFO
// order, one slow. A flow whose proposed queue flips between them (the
// sender migrating between CPUs) must arrive in order with steering, and
// does not without it.
namespace {

struct Pkt {
	u32 flow;
	u32 seq;
	u32 len;
};

struct Queue {
	std::deque<Pkt> ring;
	u32 queued = 0xffffff00u;	// start near the wrap
	u32 completed = 0xffffff00u;
	int period;			// completes one packet every period ticks
	u32 burst;			// at most this many at a time
};

int run_model(bool steer)
{
	Queue q[2];
	q[0].period = 3;	// slower than the sender
	q[0].burst = 1;
	q[1].period = 1;
	q[1].burst = 4;
	u64 entry = 0;
	u32 seq = 0, last_seen = 0;
	bool first = true;
	int reordered = 0;

	for (int tick = 0; tick < 4000; tick++) {
		u16 proposed = (tick / 7) % 2;	// the sender migrates
		u16 use = proposed;

		if (steer)
			use = xps::decide(entry, proposed, 2,
					  [&](u16 i) { return q[i].completed; }).queue;
		Pkt p{ 1, seq++, static_cast<u32>(100 + tick % 1400) };
		q[use].ring.push_back(p);
		q[use].queued += p.len;
		if (steer)
			entry = xps::pack(use, q[use].queued);

		for (auto &qq : q)
			for (u32 k = 0; tick % qq.period == 0 && k < qq.burst && !qq.ring.empty(); k++) {
				Pkt d = qq.ring.front();
				qq.ring.pop_front();
				qq.completed += d.len;
				if (!first && d.seq < last_seen)
					reordered++;
				last_seen = first || d.seq > last_seen ? d.seq : last_seen;
				first = false;
			}
	}
	return reordered;
}

} // namespace

TEST(XpsFlow, ModelNoReorderWithSteering)
{
	EXPECT_GT(run_model(false), 0) << "the model must reorder without steering";
	EXPECT_EQ(run_model(true), 0);
}

TEST(XpsFlow, TableOfEntries)
{
	Pow2Table<u64, UserTraits> t;

	UserTraits::live = 0;
	ASSERT_EQ(t.init(1000, xps::kMaxEntries), Err::Ok);
	EXPECT_EQ(t.size(), 1024u);
	EXPECT_EQ(t.init(xps::kMaxEntries + 1, xps::kMaxEntries), Err::Range);
	EXPECT_FALSE(xps::valid(t.at_hash(0xdeadbeef)));
	t.destroy();
	EXPECT_EQ(UserTraits::live, 0);
}

// Entries are whole words: concurrent writers and readers never see a
// queue paired with a head that was not written with it.
TEST(XpsFlow, ConcurrentEntryUpdatesAreNeverTorn)
{
	u64 word = 0;
	std::atomic<bool> stop{ false };
	std::atomic<long> torn{ 0 }, seen{ 0 };
	auto writer = [&](u16 q) {
		for (u32 i = 0; !stop.load(std::memory_order_relaxed); i++)
			__atomic_store_n(&word, xps::pack(q, q * 0x10000u + (i & 0xffff)),
					 __ATOMIC_RELAXED);
	};
	std::vector<std::thread> w;
	for (u16 q = 1; q <= 3; q++)
		w.emplace_back(writer, q);
	// Read until the writers have produced plenty of values (bounded).
	for (long i = 0; i < 200000000 && seen < 1000000; i++) {
		u64 e = __atomic_load_n(&word, __ATOMIC_RELAXED);

		if (!xps::valid(e))
			continue;
		seen++;
		if (xps::head_of(e) >> 16 != xps::queue_of(e))
			torn++;
	}
	stop = true;
	for (auto &t : w)
		t.join();
	EXPECT_GT(seen.load(), 0);
	EXPECT_EQ(torn.load(), 0);
}
