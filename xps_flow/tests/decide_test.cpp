// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <thread>
#include <vector>

#include <random>

#include <xps_flow/decide.h>
#include <xps_flow/decide.hpp>


using namespace xnet;
using xps::Verdict;

namespace {

struct Completed {
	u32 value;
	int *calls;
	bool backlog = false;

	xps::OldQueue operator()(u16) const
	{
		(*calls)++;
		return { value, value + 0x10000u, backlog };	/* 64 KiB in flight */
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
	e = xps::pack(4095, 0, 0xa5);
	EXPECT_EQ(xps::queue_of(e), 4095);
	EXPECT_EQ(xps::tag_of(e), 0xa5);
	EXPECT_EQ(xps::head_of(e), 0u);
	EXPECT_EQ(xnet_xps_tag(0x52800000u | 0x7fffffu), 0xa5);
	EXPECT_EQ(xnet_xps_tag(0xd2800000u), 0xa5) << "bit 31 is not in the tag";
	EXPECT_EQ(xnet_xps_tag(0xd2800001u), 0xa5);
	/* The C inlines the datapath uses. */
	EXPECT_EQ(xnet_xps_queue_of(0), -1);
	EXPECT_EQ(xnet_xps_queue_of(xnet_xps_pack(0, 0, 0)), 0);
	EXPECT_EQ(xnet_xps_queue_of(xnet_xps_pack(4095, 0xff, ~0u)), 4095);
	EXPECT_EQ(xnet_xps_tag_of(xnet_xps_pack(4095, 0xa5, ~0u)), 0xa5);
	EXPECT_EQ(static_cast<u32>(xnet_xps_pack(4095, 0xa5, 0xfeedf00du)), 0xfeedf00du);
	EXPECT_EQ(xnet_xps_pack(7, 0, 0xfffffff0u), xps::pack(7, 0xfffffff0u));
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

	d = xps::decide(xps::pack(0, 100), 1, 4, Completed{ 150, &calls, true });
	EXPECT_EQ(d.queue, 0);
	EXPECT_EQ(d.verdict, Verdict::Hold) << "drained driver ring, but the qdisc holds packets";

	/* The C ABI: every verdict and the queue beside it. */
	unsigned short q = 0xffff;
	auto c = [&](u64 entry, u16 proposed, u32 completed, int backlog) {
		return xnet_xps_decide(entry, 0, proposed, 4, completed, completed + 0x10000u,
				       backlog, &q);
	};
	EXPECT_EQ(c(0, 3, 0, 0), XNET_XPS_NEW);
	EXPECT_EQ(q, 3);
	EXPECT_EQ(c(xps::pack(3, 10), 3, 0, 1), XNET_XPS_SAME);
	EXPECT_EQ(q, 3);
	EXPECT_EQ(c(xps::pack(6, 10), 1, 0, 1), XNET_XPS_STALE);
	EXPECT_EQ(q, 1);
	EXPECT_EQ(c(xps::pack(0, 10), 1, 9, 0), XNET_XPS_HOLD);
	EXPECT_EQ(q, 0);
	EXPECT_EQ(c(xps::pack(0, 10), 1, 10, 0), XNET_XPS_MOVE);
	EXPECT_EQ(q, 1);
	EXPECT_EQ(c(xps::pack(0, 10), 1, 11, 1), XNET_XPS_HOLD);
	EXPECT_EQ(q, 0);
}

// The datapath's inline shortcut (decide.h) answers New or Same exactly
// when decide() does, without the old queue's state; otherwise it defers.
TEST(XpsFlow, FastPathIsDecide)
{
	std::mt19937_64 rng(42);
	int fast = 0, deferred = 0;

	for (int i = 0; i < 200000; i++) {
		u16 nq = 1 + rng() % 8;
		u16 proposed = rng() % nq;
		u8 tag = rng() % 4;
		u64 e = rng();

		if (rng() % 2)	// mostly entries whose queue is near proposed
			e = xps::pack(rng() % 10, static_cast<u32>(rng()), rng() % 4);
		int calls = 0;
		auto d = xps::decide(e, proposed, nq, Completed{ 0, &calls }, {}, tag);
		int f = xnet_xps_decide_fast(e, proposed);

		EXPECT_EQ(d.collision, xnet_xps_collided(e, tag) != 0);
		if (f < 0) {
			deferred++;
			EXPECT_NE(d.verdict, Verdict::New);
			EXPECT_NE(d.verdict, Verdict::Same);
		} else {
			fast++;
			EXPECT_EQ(f, static_cast<int>(d.verdict));
			EXPECT_EQ(d.queue, proposed);
			EXPECT_EQ(calls, 0);
		}
	}
	EXPECT_GT(fast, 10000);
	EXPECT_GT(deferred, 10000);
}

// The tuple key: the C inline is the C++ one; every word of the tuple and
// the seed count; 64 flows that differ only in the source port (pktgen's
// bench traffic) spread over a 1024-entry table like random keys would.
namespace {

xnet_xps_key_seed random_seed(std::mt19937_64 &rng)
{
	xnet_xps_key_seed c{};

	for (auto &m : c.mul)
		m = rng();
	c.add4 = rng();
	c.add6 = rng();
	return c;
}

xps::KeySeed cpp(const xnet_xps_key_seed &c)
{
	xps::KeySeed s{};

	for (int i = 0; i < 10; i++)
		s.mul[i] = c.mul[i];
	s.add4 = c.add4;
	s.add6 = c.add6;
	return s;
}

u32 ports(u16 sport, u16 dport)	// as read from the header on little endian
{
	return static_cast<u32>(__builtin_bswap16(dport)) << 16 | __builtin_bswap16(sport);
}

} // namespace

TEST(XpsFlow, TupleKey)
{
	std::mt19937_64 rng(7);

	for (int i = 0; i < 1000; i++) {
		const xnet_xps_key_seed c = random_seed(rng);
		const xps::KeySeed s = cpp(c);
		u32 a[8];

		for (auto &w : a)
			w = static_cast<u32>(rng());
		u32 p = static_cast<u32>(rng());
		u8 proto = static_cast<u8>(rng());

		ASSERT_EQ(xnet_xps_key_v4(&c, a[0], a[4], p, proto), xps::key_v4(s, a[0], a[4], p, proto));
		ASSERT_EQ(xnet_xps_key_v6(&c, a, p, proto), xps::key_v6(s, a, p, proto));
	}

	// Each word counts (the multipliers are random, so a change of one
	// word moves the key unless its multiplier's product vanishes in the
	// high half: never with these).
	const xnet_xps_key_seed c = random_seed(rng);
	const xps::KeySeed s = cpp(c);
	const u32 k = xps::key_v4(s, 0x0a630001, 0x0a630002, ports(1000, 9), 17);

	EXPECT_NE(k, xps::key_v4(s, 0x0a630003, 0x0a630002, ports(1000, 9), 17));
	EXPECT_NE(k, xps::key_v4(s, 0x0a630001, 0x0a630003, ports(1000, 9), 17));
	EXPECT_NE(k, xps::key_v4(s, 0x0a630001, 0x0a630002, ports(1001, 9), 17));
	EXPECT_NE(k, xps::key_v4(s, 0x0a630001, 0x0a630002, ports(1000, 10), 17));
	EXPECT_NE(k, xps::key_v4(s, 0x0a630001, 0x0a630002, ports(1000, 9), 6));
	xps::KeySeed s2 = s;
	s2.add4 += 1ull << 32;
	EXPECT_NE(k, xps::key_v4(s2, 0x0a630001, 0x0a630002, ports(1000, 9), 17));
	u32 a6[8] = { 0xfd, 0, 0, 0x01000000, 0xfd, 0, 0, 0x02000000 };
	const u32 k6 = xps::key_v6(s, a6, ports(1000, 9), 17);
	a6[2] ^= 1;
	EXPECT_NE(k6, xps::key_v6(s, a6, ports(1000, 9), 17));

	// 64 source ports into 1024 entries: colliding pairs, summed over
	// seeds, close to what uniformly random keys give (C(64,2)/1024 each).
	double pairs = 0;
	const int seeds = 2000;

	for (int i = 0; i < seeds; i++) {
		const xps::KeySeed r = cpp(random_seed(rng));
		int used[1024] = {};

		for (u16 sp = 1000; sp < 1064; sp++)
			pairs += used[xps::key_v4(r, 0x0a630001, 0x0a630002, ports(sp, 9), 17) & 1023]++;
	}
	const double expect = 64.0 * 63 / 2 / 1024;

	EXPECT_NEAR(pairs / seeds, expect, 0.15 * expect) << "mean colliding pairs per seed";
}

// A grid of ports (16 destination x 625 source ports, 10,000 flows between
// two hosts, as make bench-scale sends) in a table of 2^20 entries: under
// every one of 200 seeds, about as few flows share a slot as with random
// keys (48 expected). Without xnet_xps_key_mix() the low bits of the
// linear sum put the grid on a lattice, and some seeds made thousands of
// these flows share a slot.
TEST(XpsFlow, TupleKeyPortGrid)
{
	std::mt19937_64 rng(11);
	std::vector<u32> slots;
	int worst = 0;

	for (int i = 0; i < 200; i++) {
		const xps::KeySeed r = cpp(random_seed(rng));

		slots.clear();
		for (u16 dp = 0; dp < 16; dp++)
			for (u16 sp = 0; sp < 625; sp++)
				slots.push_back(xps::key_v4(r, 0x0a630001, 0x0a630002,
							   ports(1000 + sp, 20000 + dp), 17) &
						(XNET_XPS_MAX_ENTRIES - 1));
		std::sort(slots.begin(), slots.end());
		const int sharing = static_cast<int>(slots.size()) -
			static_cast<int>(std::unique(slots.begin(), slots.end()) - slots.begin());
		worst = std::max(worst, sharing);
	}
	EXPECT_LT(worst, 150) << "flows sharing a slot under the worst seed";
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

// A model of two TX queues, each a qdisc in front of a driver ring with BQL
// byte counters, both FIFO, one slow. A flow whose proposed queue flips
// between them (the sender migrating between CPUs) must arrive in order
// with steering. Without steering it reorders; with a head taken at
// selection or ignoring the qdisc (Eric Dumazet's objection to the 2016
// RFC) it still can: the model checks each variant.
namespace {

struct Pkt {
	u32 flow;
	u32 seq;
	u32 len;
};

struct Queue {
	std::deque<Pkt> qdisc;		// not yet handed to the driver
	std::deque<Pkt> ring;		// handed to the driver, counted by BQL
	u32 queued = 0xffffff00u;	// start near the wrap
	u32 completed = 0xffffff00u;
	int period;			// completes one packet every period ticks
	u32 burst;			// at most this many at a time
	u32 ring_max;			// driver ring size: the qdisc backs up
};

enum class Steer { Off, On, IgnoreQdisc };

int run_model(Steer steer)
{
	Queue q[2];
	q[0].period = 1;	// flow 1 alone fills it
	q[0].burst = 4;
	q[0].ring_max = 4;
	q[1].period = 1;
	q[1].burst = 8;
	q[1].ring_max = 8;
	// Flow 0 (one packet a tick) migrates between the queues; flow 1
	// (four a tick) always uses queue 0 and keeps it backed up, so flow
	// 0's packets wait in queue 0's qdisc behind it while the driver ring
	// holds only flow 1's: flow 0's head can be complete then.
	u64 entry[2] = {};
	u32 seq[2] = {}, last_seen[2] = {};
	bool first[2] = { true, true };
	int reordered = 0;

	for (int tick = 0; tick < 6000; tick++) {
		for (u32 n = 0; n < 5; n++) {
			u32 f = n == 0 ? 0 : 1;
			u16 proposed = f == 0 ? (tick / 7) % 2 : 0;
			u16 use = proposed;

			if (steer != Steer::Off)
				use = xps::decide(entry[f], proposed, 2, [&](u16 i) {
					bool backlog = steer == Steer::On && !q[i].qdisc.empty();
					return xps::OldQueue{ q[i].completed, q[i].queued, backlog };
				}).queue;
			q[use].qdisc.push_back(Pkt{ f, seq[f]++, static_cast<u32>(100 + tick % 1400) });
		}

		for (u16 i = 0; i < 2; i++) {
			Queue &qq = q[i];

			// qdisc -> driver: the flow's head is recorded at this moment
			while (!qq.qdisc.empty() && qq.ring.size() < qq.ring_max) {
				Pkt p = qq.qdisc.front();
				qq.qdisc.pop_front();
				qq.ring.push_back(p);
				qq.queued += p.len;
				if (steer != Steer::Off)
					entry[p.flow] = xps::pack(i, qq.queued);
			}
			for (u32 k = 0; tick % qq.period == 0 && k < qq.burst && !qq.ring.empty(); k++) {
				Pkt d = qq.ring.front();
				qq.ring.pop_front();
				qq.completed += d.len;
				if (!first[d.flow] && d.seq < last_seen[d.flow])
					reordered++;
				if (first[d.flow] || d.seq > last_seen[d.flow])
					last_seen[d.flow] = d.seq;
				first[d.flow] = false;
			}
		}
	}
	return reordered;
}

} // namespace

TEST(XpsFlow, ModelNoReorderWithSteering)
{
	EXPECT_GT(run_model(Steer::Off), 0) << "the model must reorder without steering";
	EXPECT_GT(run_model(Steer::IgnoreQdisc), 0)
		<< "a head that ignores packets still in the qdisc must not be enough";
	EXPECT_EQ(run_model(Steer::On), 0);
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

TEST(XpsFlow, Busy)
{
	u64 e = xps::pack(1, 100);

	EXPECT_TRUE(xps::busy(e, { 99, 200, false }));	/* completions behind head */
	EXPECT_FALSE(xps::busy(e, { 100, 200, false }));
	EXPECT_TRUE(xps::busy(e, { 100, 200, true }));	/* qdisc still holds packets */
	/* Around the wrap: head just past it, completions just before. */
	e = xps::pack(1, 5);
	EXPECT_TRUE(xps::busy(e, { 0xfffffff0u, 10, false }));
	EXPECT_FALSE(xps::busy(e, { 6, 10, false }));
}

TEST(XpsFlow, CarryKeepsEveryHoldItCan)
{
	const u64 q0a = xps::pack(0, 100), q0b = xps::pack(0, 200);
	const u64 q1 = xps::pack(1, 50);

	/* Empty on either side: the other. */
	EXPECT_EQ(xps::carry(0, false, q1, true).entry, q1);
	EXPECT_EQ(xps::carry(q1, true, 0, false).entry, q1);
	EXPECT_EQ(xps::carry(0, false, 0, false).entry, 0u);
	/* Same queue: the later head, whatever the order and busy flags. */
	EXPECT_EQ(xps::carry(q0a, true, q0b, false).entry, q0b);
	EXPECT_EQ(xps::carry(q0b, false, q0a, true).entry, q0b);
	EXPECT_EQ(xps::carry(xps::pack(0, 0xfffffff0u), true, xps::pack(0, 3), true).entry,
		  xps::pack(0, 3));	/* 3 is after the wrap */
	/* Different queues: the busy one; neither busy: the first. */
	EXPECT_EQ(xps::carry(q0a, false, q1, true).entry, q1);
	EXPECT_EQ(xps::carry(q1, true, q0a, false).entry, q1);
	EXPECT_EQ(xps::carry(q0a, false, q1, false).entry, q0a);
	EXPECT_FALSE(xps::carry(q0a, false, q1, true).conflict);
	EXPECT_FALSE(xps::carry(q0a, false, q1, false).conflict);
	/* Both busy on different queues: one is lost, and it is said. */
	auto c = xps::carry(q0a, true, q1, true);
	EXPECT_EQ(c.entry, q0a);
	EXPECT_TRUE(c.conflict);
	EXPECT_FALSE(xps::carry(q0a, true, q0b, true).conflict);
	/* The C ABI agrees. */
	int conflict = 0;
	EXPECT_EQ(xnet_xps_carry(q0a, 1, q1, 1, &conflict), q0a);
	EXPECT_EQ(conflict, 1);
	EXPECT_EQ(xnet_xps_carry(q0a, 0, q1, 1, &conflict), q1);
	EXPECT_EQ(conflict, 0);
	EXPECT_EQ(xnet_xps_busy(q0a, 99, 200, 0), 1);
	EXPECT_EQ(xnet_xps_busy(q0a, 100, 200, 0), 0);
	EXPECT_EQ(xnet_xps_busy(0, 0, 0, 1), 0);	/* empty: never busy */
	/* Same queue, other flow's tag: merged as one, the later head. */
	const u64 q0t = xps::pack(0, 300, 9);
	EXPECT_EQ(xps::carry(q0a, true, q0t, true).entry, q0t);
	EXPECT_FALSE(xps::carry(q0a, true, q0t, true).conflict);
}

/*
 * A resize that carries entries over (growing: each new slot from the old
 * slot its keys map to; shrinking: carry() per landing) keeps every flow's
 * decision: a flow that was held is held by the new table too.
 */
TEST(XpsFlow, ResizeKeepsHolds)
{
	std::mt19937 rng(7);
	const u32 old_n = 64;
	std::vector<u64> old(old_n, 0);
	/* Queue q has completed up to done[q]; queue 0 also has a backlog. */
	const u32 done[2] = { 1000, 5000 };
	auto state = [&](u16 q) { return xps::OldQueue{ done[q], done[q] + 0x10000u, q == 0 }; };
	auto is_busy = [&](u64 e) { return xps::valid(e) && xps::busy(e, state(xps::queue_of(e))); };

	/* A few flows, every one on queue 0 (busy: held) — one per slot. */
	std::vector<u32> keys;
	for (u32 i = 0; i < 8; i++) {
		u32 k = rng();
		if (xps::valid(old[k & (old_n - 1)]))
			continue;
		old[k & (old_n - 1)] = xps::pack(0, 900 + i);
		keys.push_back(k);
	}
	for (u32 new_n : { 4096u, 64u, 8u, 1u }) {
		std::vector<u64> t(new_n, 0);
		if (new_n >= old_n) {
			for (u32 j = 0; j < new_n; j++)
				t[j] = old[j & (old_n - 1)];
		} else {
			for (u32 i = 0; i < old_n; i++) {
				u64 &slot = t[i & (new_n - 1)];
				slot = xps::carry(slot, is_busy(slot), old[i], is_busy(old[i])).entry;
			}
		}
		for (u32 k : keys) {
			/* Proposed queue 1: the flow must stay on 0. */
			auto d = xps::decide(t[k & (new_n - 1)], 1, 2, state);
			EXPECT_EQ(d.verdict, Verdict::Hold) << "new size " << new_n;
			EXPECT_EQ(d.queue, 0);
		}
	}
}

/*
 * A flow is never held on a queue outside the proposed queue's traffic
 * class range (mqprio, an nvme priority change), however busy it is.
 */
TEST(XpsFlow, NeverHeldOutsideItsClass)
{
	const u64 e = xps::pack(0, 100);
	int calls = 0;
	auto d = xps::decide(e, 1, 4, [&](u16) {
		calls++;
		return xps::OldQueue{ 0, 0, true, true };	/* busy, other class */
	});

	EXPECT_EQ(d.verdict, Verdict::Stale);
	EXPECT_EQ(d.queue, 1);
	EXPECT_EQ(calls, 1);
	/* Same class, busy: held, as before. */
	d = xps::decide(e, 1, 4, [](u16) { return xps::OldQueue{ 0, 0, true, false }; });
	EXPECT_EQ(d.verdict, Verdict::Hold);
	/* Same queue: the class does not matter (nothing to read). */
	d = xps::decide(e, 0, 4, [](u16) { return xps::OldQueue{ 0, 0, true, true }; });
	EXPECT_EQ(d.verdict, Verdict::Same);
	/* The C ABI's flags. */
	unsigned short q = 9;
	EXPECT_EQ(xnet_xps_decide(e, 0, 1, 4, 0, 0, XNET_XPS_OLD_BACKLOG | XNET_XPS_OLD_OTHER_TC, &q),
		  XNET_XPS_STALE);
	EXPECT_EQ(q, 1);
	EXPECT_EQ(xnet_xps_decide(e, 0, 1, 4, 0, 0, XNET_XPS_OLD_BACKLOG, &q), XNET_XPS_HOLD);
	EXPECT_EQ(q, 0);
}

/*
 * Holds bounded in time: the first Hold stamps the entry (store), later
 * ones within the limit keep holding, at the limit the flow goes where it
 * is proposed (Expired), and the clock's 14-bit wrap is handled.
 */
TEST(XpsFlow, TimedHold)
{
	auto busy = [](u16) { return xps::OldQueue{ 0, 0, true }; };
	const u64 e = xps::pack(0, 100);

	/* No clock: held without bound, nothing stored (the old behaviour). */
	auto d = xps::decide(e, 1, 4, busy);
	EXPECT_EQ(d.verdict, Verdict::Hold);
	EXPECT_EQ(d.store, 0u);

	/* A hold begins at 1000: stamped, queue and head kept. */
	d = xps::decide(e, 1, 4, busy, { 1000, 50 });
	ASSERT_EQ(d.verdict, Verdict::Hold);
	EXPECT_EQ(d.queue, 0);
	const u64 s = d.store;
	ASSERT_NE(s, 0u);
	EXPECT_TRUE(s & xps::kHolding);
	EXPECT_EQ(xps::stamp_of(s), 1000);
	EXPECT_EQ(xps::queue_of(s), 0);
	EXPECT_EQ(xps::head_of(s), 100u);
	EXPECT_TRUE(xps::valid(s));

	/* Within the limit: held, nothing to store. */
	d = xps::decide(s, 1, 4, busy, { 1049, 50 });
	EXPECT_EQ(d.verdict, Verdict::Hold);
	EXPECT_EQ(d.store, 0u);
	/* At the limit: the proposed queue. */
	d = xps::decide(s, 1, 4, busy, { 1050, 50 });
	EXPECT_EQ(d.verdict, Verdict::Expired);
	EXPECT_EQ(d.queue, 1);

	/* Across the wrap of the 10-bit stamp. */
	d = xps::decide(e, 1, 4, busy, { 0x3f0, 50 });
	const u64 w = d.store;
	EXPECT_EQ(xps::stamp_of(w), 0x3f0);
	EXPECT_EQ(xps::decide(w, 1, 4, busy, { 0x010, 50 }).verdict, Verdict::Hold);
	EXPECT_EQ(xps::decide(w, 1, 4, busy, { 0x022, 50 }).verdict, Verdict::Expired);
	/* Only the low 10 bits of the clock count. */
	EXPECT_EQ(xps::decide(w, 1, 4, busy, { 0xfc10, 50 }).verdict, Verdict::Hold);
	/* The longest limit the stamp allows still expires. */
	d = xps::decide(e, 1, 4, busy, { 10, XNET_XPS_HOLD_LIMIT_MAX });
	EXPECT_EQ(xps::decide(d.store, 1, 4, busy,
			      { 10 + XNET_XPS_HOLD_LIMIT_MAX - 1, XNET_XPS_HOLD_LIMIT_MAX }).verdict,
		  Verdict::Hold);
	EXPECT_EQ(xps::decide(d.store, 1, 4, busy,
			      { 10 + XNET_XPS_HOLD_LIMIT_MAX, XNET_XPS_HOLD_LIMIT_MAX }).verdict,
		  Verdict::Expired);

	/* Drained meanwhile: a move, whatever the stamp says. */
	d = xps::decide(s, 1, 4, [](u16) { return xps::OldQueue{ 100, 100, false }; }, { 900, 50 });
	EXPECT_EQ(d.verdict, Verdict::Move);
	/* Another class: Stale before any timing. */
	d = xps::decide(s, 1, 4, [](u16) { return xps::OldQueue{ 0, 0, true, true }; }, { 1001, 50 });
	EXPECT_EQ(d.verdict, Verdict::Stale);
	/* The proposed queue is the flow's: Same (the caller clears the stamp). */
	EXPECT_EQ(xps::decide(s, 0, 4, busy, { 900, 50 }).verdict, Verdict::Same);

	/* The C ABI. */
	unsigned short q = 9;
	unsigned long long st = 1;
	EXPECT_EQ(xnet_xps_decide_timed(e, 0, 1, 4, 0, 0, XNET_XPS_OLD_BACKLOG, 1000, 50, &q, &st),
		  XNET_XPS_HOLD);
	EXPECT_EQ(st, s);
	EXPECT_EQ(xnet_xps_decide_timed(s, 0, 1, 4, 0, 0, XNET_XPS_OLD_BACKLOG, 1049, 50, &q, &st),
		  XNET_XPS_HOLD);
	EXPECT_EQ(q, 0);
	EXPECT_EQ(st, 0u) << "within the limit: nothing to store";
	EXPECT_EQ(xnet_xps_decide_timed(s, 0, 1, 4, 0, 0, XNET_XPS_OLD_BACKLOG, 1050, 50, &q, &st),
		  XNET_XPS_EXPIRED);
	EXPECT_EQ(q, 1);
	EXPECT_EQ(st, 0u);
	/* Unbounded (limit 0): held, never stamped. */
	st = 1;
	EXPECT_EQ(xnet_xps_decide_timed(e, 0, 1, 4, 0, 0, XNET_XPS_OLD_BACKLOG, 1000, 0, &q, &st),
		  XNET_XPS_HOLD);
	EXPECT_EQ(st, 0u);
}

/* A transmit on the held queue keeps the stamp; any other queue drops it. */
TEST(XpsFlow, RepackKeepsAHoldOnItsQueue)
{
	auto busy = [](u16) { return xps::OldQueue{ 0, 0, true }; };
	const u64 s = xps::decide(xps::pack(2, 100), 1, 4, busy, { 77, 50 }).store;

	ASSERT_NE(s, 0u);
	u64 r = xnet_xps_repack(s, 2, 0, 300);
	EXPECT_EQ(xps::head_of(r), 300u);
	EXPECT_EQ(xps::queue_of(r), 2);
	EXPECT_TRUE(r & xps::kHolding);
	EXPECT_EQ(xps::stamp_of(r), 77);
	r = xnet_xps_repack(s, 1, 0, 300);
	EXPECT_EQ(r, xps::pack(1, 300));
	/* Another flow of the slot on the same queue: its tag, the same hold. */
	r = xnet_xps_repack(s, 2, 7, 300);
	EXPECT_EQ(xps::tag_of(r), 7);
	EXPECT_EQ(xps::stamp_of(r), 77);
	EXPECT_TRUE(r & xps::kHolding);
	EXPECT_EQ(xnet_xps_repack(0, 3, 0, 5), xps::pack(3, 5));
	EXPECT_EQ(xnet_xps_repack(xps::pack(3, 1), 3, 0, 5), xps::pack(3, 5));
}

/*
 * Two flows in one slot (keys equal in the index bits, tags differ): the
 * second is decided on the first's entry as if it were its own (the flows
 * move as one), and the decision says it collided.
 */
TEST(XpsFlow, TagsSeeCollisions)
{
	const u64 a = xps::pack(0, 100, 0x11);	/* flow A on queue 0 */
	int calls = 0;

	/* B (tag 0x22) proposed queue 1 while A's queue is busy: held. */
	auto d = xps::decide(a, 1, 4, Completed{ 50, &calls }, {}, 0x22);
	EXPECT_EQ(d.verdict, Verdict::Hold);
	EXPECT_EQ(d.queue, 0);
	EXPECT_TRUE(d.collision);
	/* B proposed A's queue: Same, a collision all the same. */
	EXPECT_EQ(xnet_xps_decide_fast(a, 0), XNET_XPS_SAME) << "the fast path answers";
	EXPECT_TRUE(xnet_xps_collided(a, 0x22)) << "... and the caller counts";
	d = xps::decide(a, 0, 4, Completed{ 50, &calls }, {}, 0x22);
	EXPECT_EQ(d.verdict, Verdict::Same);
	EXPECT_TRUE(d.collision);
	/* A's queue idle: B moves where it is proposed. */
	d = xps::decide(a, 1, 4, Completed{ 100, &calls }, {}, 0x22);
	EXPECT_EQ(d.verdict, Verdict::Move);
	EXPECT_TRUE(d.collision);
	/* A itself: no collision. */
	d = xps::decide(a, 1, 4, Completed{ 50, &calls }, {}, 0x11);
	EXPECT_EQ(d.verdict, Verdict::Hold);
	EXPECT_FALSE(d.collision);
	EXPECT_FALSE(xnet_xps_collided(a, 0x11));
	/* An empty slot collides with nothing. */
	EXPECT_FALSE(xps::decide(0, 1, 4, Completed{ 0, &calls }, {}, 0x22).collision);
	EXPECT_FALSE(xnet_xps_collided(0, 0x22));
	/* The C ABI: the flag beside the verdict. */
	unsigned short q = 9;
	EXPECT_EQ(xnet_xps_decide(a, 0x22, 1, 4, 50, 0x10050, 0, &q),
		  XNET_XPS_HOLD | XNET_XPS_COLLIDED);
	EXPECT_EQ(q, 0);
	EXPECT_FALSE(xnet_xps_claims(XNET_XPS_HOLD | XNET_XPS_COLLIDED));
	EXPECT_TRUE(xnet_xps_claims(XNET_XPS_MOVE | XNET_XPS_COLLIDED));
	EXPECT_EQ(xnet_xps_decide(a, 0x11, 0, 4, 0, 0, 0, &q), XNET_XPS_SAME);
	EXPECT_EQ(xnet_xps_decide(a, 0x22, 1, 4, 100, 0x10100, 0, &q),
		  XNET_XPS_MOVE | XNET_XPS_COLLIDED);
	EXPECT_EQ(q, 1);
}

/*
 * A model of two FIFO queues (driver rings with BQL counters; no qdisc)
 * and 64 flows in a 16-slot table, each flow proposed its own queue that
 * flips now and then: collisions happen, are seen, and no flow is
 * reordered, since every flow follows its slot's entry whoever wrote it.
 * The other policy, a flow that leaves another's busy entry alone and
 * goes where it is proposed, untracked, reorders.
 */
namespace {

struct CollisionRun {
	int collisions = 0, reordered = 0;
};

CollisionRun run_collisions(bool follow)
{
	std::mt19937 rng(3);
	const u32 nflows = 64, slots = 16;
	std::vector<u32> key(nflows), seq(nflows, 0), last(nflows, 0), flip(nflows);
	std::vector<bool> seen(nflows, false);
	std::vector<u64> table(slots, 0);
	u32 queued[2] = { 0xfffff000u, 0xfffff000u }, completed[2] = { 0xfffff000u, 0xfffff000u };
	struct P { u32 flow, seq; };
	std::deque<P> ring[2];
	CollisionRun r;

	for (u32 f = 0; f < nflows; f++) {
		key[f] = rng();
		flip[f] = 20 + rng() % 40;
	}
	for (int tick = 0; tick < 40000; tick++) {
		const u32 f = rng() % nflows;
		const u8 tag = xnet_xps_tag(key[f]);
		u64 &slot = table[key[f] % slots];
		const u16 proposed = (tick / flip[f] + f) % 2;
		auto state = [&](u16 i) { return xps::OldQueue{ completed[i], queued[i], false }; };
		auto d = xps::decide(slot, proposed, 2, state, {}, tag);
		bool untracked = false;

		r.collisions += d.collision;
		if (!follow && d.collision && xps::busy(slot, state(xps::queue_of(slot)))) {
			d.queue = proposed;
			untracked = true;
		}
		queued[d.queue] += 100;
		ring[d.queue].push_back({ f, seq[f]++ });
		if (!untracked)
			slot = xnet_xps_repack(slot, d.queue, tag, queued[d.queue]);
		/* Queue 0 completes a packet every other tick, queue 1 every tick. */
		for (u16 i = 0; i < 2; i++) {
			if (ring[i].empty() || (i == 0 && tick % 2))
				continue;
			P p = ring[i].front();
			ring[i].pop_front();
			completed[i] += 100;
			if (seen[p.flow] && p.seq < last[p.flow])
				r.reordered++;
			if (!seen[p.flow] || p.seq > last[p.flow])
				last[p.flow] = p.seq;
			seen[p.flow] = true;
		}
	}
	return r;
}

} // namespace

TEST(XpsFlow, CollisionsAreSeenAndHoldTogether)
{
	CollisionRun follow = run_collisions(true), untracked = run_collisions(false);

	EXPECT_GT(follow.collisions, 1000) << "64 flows in 16 slots must collide";
	EXPECT_EQ(follow.reordered, 0);
	EXPECT_GT(untracked.reordered, 0) << "a flow that leaves its slot untracked reorders";
}

/*
 * An idle flow whose head the queue's counters have since wrapped past
 * (2^31 bytes and more of other flows): moved, not held as if its head
 * were in the future. The old test (reached(completed, head)) held it.
 */
TEST(XpsFlow, IdleHeadAfterTheWrapMoves)
{
	const u64 e = xps::pack(0, 0x1000);
	const u32 completed = 0x1000 + 0x80000010u, queued = completed + 3000;
	int calls = 0;

	ASSERT_FALSE(seq::reached(completed, 0x1000)) << "the case the old test got wrong";
	auto d = xps::decide(e, 1, 2, [&](u16) {
		calls++;
		return xps::OldQueue{ completed, queued, false };
	});
	EXPECT_EQ(d.verdict, Verdict::Move);
	EXPECT_EQ(calls, 1);
}

/*
 * A BQL reset without NETDEV_DOWN (dql_reset(): a TX timeout, virtio_net's
 * ring resize, an XSK bind): both counters back to 0 while a flow's head
 * is large. The flow may move (the driver dropped or completed its ring);
 * it was held before, until hold_max_ms.
 */
TEST(XpsFlow, BqlResetIsSeen)
{
	const u64 e = xps::pack(0, 0x70000000u);

	ASSERT_FALSE(seq::reached(0, 0x70000000u));
	EXPECT_EQ(xps::decide(e, 1, 2, [](u16) { return xps::OldQueue{ 0, 0, false }; }).verdict,
		  Verdict::Move);
	/* Traffic resumed since the reset: still not this flow's bytes. */
	EXPECT_EQ(xps::decide(e, 1, 2, [](u16) { return xps::OldQueue{ 1000, 4000, false }; })
			  .verdict,
		  Verdict::Move);
	/* A qdisc that holds packets still holds the flow. */
	EXPECT_EQ(xps::decide(e, 1, 2, [](u16) { return xps::OldQueue{ 0, 0, true }; }).verdict,
		  Verdict::Hold);
}

/* The drain estimate: its samples, a stalled queue, an idle one. */
TEST(XpsFlow, DrainSample)
{
	xps::Drain d = {};

	d = xps::drain_sample(d, 1000000, 0, 0);	/* first sight: a start */
	EXPECT_EQ(d.ns, 1000000u);
	EXPECT_EQ(d.ns_per_kib, 0u);
	d = xps::drain_sample(d, 1050000, 5000, 100);	/* 50 us: too close */
	EXPECT_EQ(d.ns, 1000000u);
	EXPECT_EQ(d.completed, 0u);
	d = xps::drain_sample(d, 1200000, 10240, 100);	/* 10 KiB in 200 us */
	EXPECT_EQ(d.ns_per_kib, 20000u);
	EXPECT_EQ(d.ns, 1200000u);
	d = xps::drain_sample(d, 1400000, 10240 + 5120, 100);	/* 5 KiB: 40 us/KiB */
	EXPECT_EQ(d.ns_per_kib, (3 * 20000u + 40000u) / 4);
	/* Across the counter's wrap. */
	xps::Drain w = { 1000000, 0xfffffc00u, 0 };
	w = xps::drain_sample(w, 1200000, 0x00000400u, 0);	/* 2 KiB in 200 us */
	EXPECT_EQ(w.ns_per_kib, 100000u);
	/*
	 * A stall: nothing completed with 1 KiB in flight. The estimate is
	 * raised to the stall so far (1 ms, then 5 ms per KiB), the anchor
	 * stays where the counter last moved.
	 */
	xps::Drain st = { 1000000, 500, 20000 };
	st = xps::drain_sample(st, 2000000, 500, 1024);
	EXPECT_EQ(st.ns_per_kib, 1000000u);
	EXPECT_EQ(st.ns, 1000000u);
	st = xps::drain_sample(st, 6000000, 500, 1024);
	EXPECT_EQ(st.ns_per_kib, 5000000u);
	/* ... and it moves again: 2 KiB over the 5.1 ms since the anchor. */
	st = xps::drain_sample(st, 6100000, 500 + 2048, 1024);
	EXPECT_EQ(st.ns_per_kib, (3 * 5000000u + 5100000u / 2) / 4);
	EXPECT_EQ(st.ns, 6100000u);
	/* Idle (nothing in flight, nothing done): no measure, estimate kept. */
	xps::Drain idle = { 1000000, 500, 20000 };
	idle = xps::drain_sample(idle, 2000000, 500, 0);
	EXPECT_EQ(idle.ns_per_kib, 20000u);
	EXPECT_EQ(idle.ns, 2000000u);
	/* The C ABI. */
	xnet_xps_drain d2 = { 1000000, 0, 0 };
	xnet_xps_drain_sample(&d2, 1200000, 10240, 100);
	EXPECT_EQ(d2.ns_per_kib, 20000u);
}

TEST(XpsFlow, HoldLimitFollowsTheDrain)
{
	/* 64 KiB in flight at 20 us/KiB: 1.28 ms a drain; 4 drains 5.12 ms. */
	const u32 shift = 20;	/* ticks of 1.048576 ms */
	EXPECT_EQ(xps::hold_limit(477, shift, 4, 20000, 65536), 5120000u / 1048576 + 1);
	/* Capped by hold_max_ms. */
	EXPECT_EQ(xps::hold_limit(3, shift, 4, 20000, 65536), 3);
	/* No estimate, nothing in flight, drains 0, unbounded: the cap. */
	EXPECT_EQ(xps::hold_limit(477, shift, 4, 0, 65536), 477);
	EXPECT_EQ(xps::hold_limit(477, shift, 4, 20000, 0), 477);
	EXPECT_EQ(xps::hold_limit(477, shift, 0, 20000, 65536), 477);
	EXPECT_EQ(xps::hold_limit(0, shift, 4, 20000, 65536), 0);
	/* At least one tick. */
	EXPECT_EQ(xps::hold_limit(477, shift, 1, 1, 1), 1);
	/* No overflow at the extremes. */
	EXPECT_EQ(xps::hold_limit(511, 0, 64, 0xffffffffu, 0xffffffffu), 511);
	EXPECT_EQ(xnet_xps_hold_limit(477, shift, 4, 20000, 65536), 5);
}

/*
 * A flow held on a queue that a bulk flow keeps full: with the hold bound
 * by the queue's drain, it leaves after about `drains` drain times and is
 * reordered at most once per move; bound by hold_max_ms alone it waits the
 * whole cap. The model: queue 0 completes one 1 KiB packet every 10 us
 * (its qdisc never empties), queue 1 is idle; the flow sends one packet
 * every 10 us, proposed queue 1 from t = 1 ms.
 */
namespace {

struct PinRun {
	u64 moved_at_ns = 0;
	int expired = 0;
};

PinRun run_pinned(u32 drains)
{
	const u32 shift = 16;	/* 65.5 us ticks */
	const u16 cap = 500;	/* 32.8 ms */
	u32 queued = 0, completed = 0;
	xps::Drain d = {};
	u64 entry = 0;
	PinRun r;

	for (u64 now = 10000; now < 100000000; now += 10000) {
		/* The bulk flow keeps 64 KiB on the ring; one KiB completes a step. */
		while (queued - completed < 65536)
			queued += 1024;
		completed += 1024;
		const u16 proposed = now < 1000000 ? 0 : 1;
		auto state = [&](u16) {
			return xps::OldQueue{ completed, queued, true };	/* backlog */
		};
		d = xps::drain_sample(d, now, completed, queued - completed);
		const u16 limit = xps::hold_limit(cap, shift, drains, d.ns_per_kib,
						  queued - completed);
		auto dec = xps::decide(entry, proposed, 2, state,
				       { static_cast<u16>(now >> shift), limit });
		if (dec.store)
			entry = dec.store;
		if (dec.verdict == Verdict::Expired)
			r.expired++;
		if (dec.queue == 1) {
			r.moved_at_ns = now;
			break;
		}
		if (dec.verdict != Verdict::Hold || !dec.store)
			entry = xnet_xps_repack(entry, dec.queue, 0, queued);
	}
	return r;
}

} // namespace

TEST(XpsFlow, NeverPinnedToASlowQueue)
{
	PinRun drain = run_pinned(4), cap = run_pinned(0);

	/* 64 KiB at 10 us/KiB: 655 us a drain; 4 drains 2.6 ms (+1 tick). */
	ASSERT_GT(drain.moved_at_ns, 0u);
	EXPECT_EQ(drain.expired, 1);
	EXPECT_LT(drain.moved_at_ns - 1000000, 3000000u);
	EXPECT_GT(drain.moved_at_ns - 1000000, 2000000u);
	/* hold_max_ms alone: the whole 32.8 ms. */
	ASSERT_GT(cap.moved_at_ns, 0u);
	EXPECT_GT(cap.moved_at_ns - 1000000, 32000000u);
}
