// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the XPS flow-steering decision of xps_flow (xps_flow/decide.hpp)
 * built with the kernel's flags, through its C ABI (decide.h) as the
 * module calls it: one case per function the ABI defines out of line, to
 * show the kernel build of the core agrees, and entries that are never
 * torn while kthreads rewrite them with the kernel's READ_ONCE() and
 * WRITE_ONCE(). Every verdict, the counters around the 2^32 wrap, stale
 * heads, collisions and timed holds, branch by branch, are pure logic and
 * tested in userspace only (xps_flow/tests/decide_test.cpp;
 * Documentation/testing.md).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>

#include "../decide.h"

#define pack(queue, head)	xnet_xps_pack(queue, 0, head)

/* xnet_xps_decide(): a new flow, a hold, a move, another flow's entry. */
static void xps_flow_decide_abi_decide(struct kunit *test)
{
	u16 q = 0xffff;

	KUNIT_EXPECT_EQ(test, xnet_xps_decide(0, 0, 3, 4, 0, 0, 0, &q), XNET_XPS_NEW);
	KUNIT_EXPECT_EQ(test, q, 3);
	/* 64 KiB in flight beyond completed 9: head 10 is not done. */
	KUNIT_EXPECT_EQ(test, xnet_xps_decide(pack(0, 10), 0, 1, 4, 9, 9 + 0x10000, 0, &q),
			XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, q, 0);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide(pack(0, 10), 0, 1, 4, 10, 10 + 0x10000, 0, &q),
			XNET_XPS_MOVE);
	KUNIT_EXPECT_EQ(test, q, 1);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide(pack(0, 10), 0x22, 1, 4, 10, 10 + 0x10000,
					      XNET_XPS_OLD_BACKLOG, &q),
			XNET_XPS_HOLD | XNET_XPS_COLLIDED);
	KUNIT_EXPECT_EQ(test, q, 0);
}

/*
 * xnet_xps_decide_timed(): the first hold stamps (store), at the limit it
 * expires; the transmit side's repack keeps the stamp on the held queue.
 */
static void xps_flow_decide_abi_decide_timed(struct kunit *test)
{
	u64 e = pack(0, 10), st = 1, s;
	u16 q = 0xffff;

	KUNIT_EXPECT_EQ(test, xnet_xps_decide_timed(e, 0, 1, 4, 0, 0, XNET_XPS_OLD_BACKLOG,
						    500, 25, &q, &st), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, q, 0);
	s = st;
	KUNIT_ASSERT_NE(test, s, 0ULL);
	KUNIT_EXPECT_TRUE(test, s & XNET_XPS_HOLDING);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(s), 0);
	KUNIT_EXPECT_EQ(test, (u32)s, 10U);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide_timed(s, 0, 1, 4, 0, 0, XNET_XPS_OLD_BACKLOG,
						    525, 25, &q, &st), XNET_XPS_EXPIRED);
	KUNIT_EXPECT_EQ(test, q, 1);
	KUNIT_EXPECT_EQ(test, st, 0ULL);
	KUNIT_EXPECT_EQ(test, xnet_xps_repack(s, 0, 0, 99) & XNET_XPS_HOLD_BITS,
			s & XNET_XPS_HOLD_BITS);
	KUNIT_EXPECT_EQ(test, xnet_xps_repack(s, 1, 0, 99), pack(1, 99));
}

/* xnet_xps_busy(): a head in flight, a backlog; an empty entry never. */
static void xps_flow_decide_abi_busy(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xnet_xps_busy(pack(0, 100), 99, 200, 0), 1);
	KUNIT_EXPECT_EQ(test, xnet_xps_busy(pack(0, 100), 100, 200, 0), 0);
	KUNIT_EXPECT_EQ(test, xnet_xps_busy(pack(0, 100), 100, 200, 1), 1);
	KUNIT_EXPECT_EQ(test, xnet_xps_busy(0, 0, 0, 1), 0);
}

/* xnet_xps_carry(): the busy entry is kept; both busy is a conflict. */
static void xps_flow_decide_abi_carry(struct kunit *test)
{
	const u64 q0 = pack(0, 100), q1 = pack(1, 50);
	int conflict = -1;

	KUNIT_EXPECT_EQ(test, xnet_xps_carry(q0, 0, q1, 1, &conflict), q1);
	KUNIT_EXPECT_EQ(test, conflict, 0);
	KUNIT_EXPECT_EQ(test, xnet_xps_carry(q0, 1, q1, 1, &conflict), q0);
	KUNIT_EXPECT_EQ(test, conflict, 1);
}

/* xnet_xps_drain_sample(): 10 KiB completed in 200 us is 20 us a KiB. */
static void xps_flow_decide_abi_drain_sample(struct kunit *test)
{
	struct xnet_xps_drain d = { 1000000, 0, 0 };

	xnet_xps_drain_sample(&d, 1200000, 10240, 100);
	KUNIT_EXPECT_EQ(test, d.ns_per_kib, 20000U);
	KUNIT_EXPECT_EQ(test, d.ns, 1200000ULL);
	KUNIT_EXPECT_EQ(test, d.completed, 10240U);
}

/* xnet_xps_hold_limit(): 4 drains of 64 KiB at 20 us/KiB; unbounded. */
static void xps_flow_decide_abi_hold_limit(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xnet_xps_hold_limit(477, 20, 4, 20000, 65536), 5);
	KUNIT_EXPECT_EQ(test, xnet_xps_hold_limit(3, 20, 4, 20000, 65536), 3);
	KUNIT_EXPECT_EQ(test, xnet_xps_hold_limit(0, 20, 4, 20000, 65536), 0);
}

struct xps_flow_race {
	u64 entry;
	u16 queue;
	bool stop;
	struct completion done;
};

/* Rewrites the shared entry with {queue, head} where head encodes queue. */
static int xps_flow_writer(void *arg)
{
	struct xps_flow_race *r = arg;
	u32 i = 0;

	while (!READ_ONCE(r->stop)) {
		WRITE_ONCE(r->entry, pack(r->queue, (u32)r->queue << 16 | (i++ & 0xffff)));
		if (!(i & 0x3ff))
			cond_resched();
	}
	complete(&r->done);
	return 0;
}

static void xps_flow_decide_concurrent_entries(struct kunit *test)
{
	struct xps_flow_race w[2] = {};
	struct task_struct *t;
	unsigned long seen = 0, torn = 0, i, end;
	int k;

	for (k = 0; k < 2; k++) {
		w[k].queue = k + 1;
		init_completion(&w[k].done);
	}
	for (k = 0; k < 2; k++) {
		t = kthread_run(xps_flow_writer, &w[k], "xps_flow_w%d", k);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	/*
	 * Both writers running first: on SMP (under TCG) the loop below can
	 * end before they are scheduled at all.
	 */
	end = jiffies + 5 * HZ;
	for (k = 0; k < 2; k++) {
		while (!READ_ONCE(w[k].entry) && time_before(jiffies, end))
			cond_resched();
	}
	for (i = 0; i < 200000; i++) {
		u64 e = READ_ONCE(w[i & 1].entry);
		int q = xnet_xps_queue_of(e);

		if (q < 0)
			continue;
		seen++;
		if ((u32)e >> 16 != (u32)q)
			torn++;
		if (!(i & 0xfff))
			cond_resched();
	}
	for (k = 0; k < 2; k++) {
		WRITE_ONCE(w[k].stop, true);
		wait_for_completion(&w[k].done);
	}
	KUNIT_EXPECT_GT(test, seen, 0UL);
	KUNIT_EXPECT_EQ(test, torn, 0UL);
}

static struct kunit_case xps_flow_decide_cases[] = {
	KUNIT_CASE(xps_flow_decide_abi_decide),
	KUNIT_CASE(xps_flow_decide_abi_decide_timed),
	KUNIT_CASE(xps_flow_decide_abi_busy),
	KUNIT_CASE(xps_flow_decide_abi_carry),
	KUNIT_CASE(xps_flow_decide_abi_drain_sample),
	KUNIT_CASE(xps_flow_decide_abi_hold_limit),
	KUNIT_CASE(xps_flow_decide_concurrent_entries),
	{}
};

static struct kunit_suite xps_flow_decide_suite = {
	.name = "xps_flow_decide",
	.test_cases = xps_flow_decide_cases,
};

kunit_test_suite(xps_flow_decide_suite);
