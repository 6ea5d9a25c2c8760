// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the XPS flow-steering decision of xps_flow (C++ core through
 * decide.h): every verdict, BQL counters around the 2^32
 * wrap, an idle head long behind them and a BQL reset, the qdisc backlog
 * rule, collisions, table sizing bounds, and entries that are never torn
 * while kthreads rewrite them.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>

#include "../decide.h"

/* A queue with 64 KiB in flight beyond @completed; flow tag 0. */
static int decide(u64 entry, u16 proposed, u16 nq, u32 completed, int backlog,
		  u16 *queue)
{
	return xnet_xps_decide(entry, 0, proposed, nq, completed,
			       completed + 0x10000, backlog, queue);
}

#define pack(queue, head)	xnet_xps_pack(queue, 0, head)

static void xps_flow_decide_verdicts(struct kunit *test)
{
	u16 q = 0xffff;

	KUNIT_EXPECT_EQ(test, decide(0, 3, 4, 0, 0, &q), XNET_XPS_NEW);
	KUNIT_EXPECT_EQ(test, q, 3);
	KUNIT_EXPECT_EQ(test, decide(pack(3, 10), 3, 4, 0, 1, &q), XNET_XPS_SAME);
	KUNIT_EXPECT_EQ(test, q, 3);
	KUNIT_EXPECT_EQ(test, decide(pack(6, 10), 1, 4, 0, 1, &q), XNET_XPS_STALE);
	KUNIT_EXPECT_EQ(test, q, 1);
	KUNIT_EXPECT_EQ(test, decide(pack(0, 10), 1, 4, 9, 0, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, q, 0);
	KUNIT_EXPECT_EQ(test, decide(pack(0, 10), 1, 4, 10, 0, &q), XNET_XPS_MOVE);
	KUNIT_EXPECT_EQ(test, q, 1);
	KUNIT_EXPECT_EQ(test, decide(pack(0, 10), 1, 4, 11, 1, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, q, 0);
}

static void xps_flow_decide_wrap(struct kunit *test)
{
	u64 e = pack(2, 0x10);	/* head just past the wrap */
	u16 q;

	KUNIT_EXPECT_EQ(test, decide(e, 1, 4, 0xfffffff0u, 0, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, decide(e, 1, 4, 0xf, 0, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, decide(e, 1, 4, 0x10, 0, &q), XNET_XPS_MOVE);
	e = pack(2, 0xfffffff0u);	/* head just before it */
	KUNIT_EXPECT_EQ(test, decide(e, 1, 4, 0xffffff00u, 0, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, decide(e, 1, 4, 5, 0, &q), XNET_XPS_MOVE);
}

/*
 * The window test: an idle flow's head that the counters have wrapped
 * past (2^31 bytes and more of other flows later), and a head from before
 * a BQL reset (both counters 0 again), are not in flight: the flow moves.
 */
static void xps_flow_decide_stale_heads(struct kunit *test)
{
	u32 done = 0x1000 + 0x80000010u;
	u16 q;

	KUNIT_EXPECT_EQ(test, xnet_xps_decide(pack(0, 0x1000), 0, 1, 2, done,
					      done + 3000, 0, &q), XNET_XPS_MOVE);
	KUNIT_EXPECT_EQ(test, q, 1);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide(pack(0, 0x70000000u), 0, 1, 2, 0, 0, 0, &q),
			XNET_XPS_MOVE);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide(pack(0, 0x70000000u), 0, 1, 2, 0, 0,
					      XNET_XPS_OLD_BACKLOG, &q), XNET_XPS_HOLD);
}

/* Another flow's entry: decided on as the slot's, and flagged. */
static void xps_flow_decide_collision(struct kunit *test)
{
	u64 a = xnet_xps_pack(0, 0x11, 100);
	u16 q;

	KUNIT_EXPECT_EQ(test, xnet_xps_decide(a, 0x22, 1, 2, 50, 200, 0, &q),
			XNET_XPS_HOLD | XNET_XPS_COLLIDED);
	KUNIT_EXPECT_EQ(test, q, 0);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide(a, 0x11, 1, 2, 50, 200, 0, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide(a, 0x22, 1, 2, 100, 200, 0, &q),
			XNET_XPS_MOVE | XNET_XPS_COLLIDED);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide_fast(a, 0), XNET_XPS_SAME);
	KUNIT_EXPECT_EQ(test, xnet_xps_collided(a, 0x22), 1);
	KUNIT_EXPECT_EQ(test, xnet_xps_collided(a, 0x11), 0);
	KUNIT_EXPECT_EQ(test, xnet_xps_collided(0, 0x22), 0);
	KUNIT_EXPECT_EQ(test, xnet_xps_tag(0xd2800001u), 0xa5);	/* bit 31 not in it */
}

static void xps_flow_decide_entry(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(0), -1);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(pack(0, 0)), 0);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(xnet_xps_pack(4095, 0xff, ~0u)), 4095);
	KUNIT_EXPECT_EQ(test, xnet_xps_tag_of(xnet_xps_pack(4095, 0xa5, ~0u)), 0xa5);
	KUNIT_EXPECT_EQ(test, (u32)xnet_xps_pack(4095, 0xa5, 0xfeedf00d), 0xfeedf00dU);
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

/*
 * Timed holds through the C ABI as the module calls it: the first hold
 * stamps (store), within the limit it holds, at the limit it expires; the
 * transmit side's repack keeps a stamp only on the held queue.
 */
static void xps_flow_decide_timed_hold(struct kunit *test)
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
						    524, 25, &q, &st), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, st, 0ULL);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide_timed(s, 0, 1, 4, 0, 0, XNET_XPS_OLD_BACKLOG,
						    525, 25, &q, &st), XNET_XPS_EXPIRED);
	KUNIT_EXPECT_EQ(test, q, 1);
	/* Unbounded (limit 0): held, never stamped. */
	KUNIT_EXPECT_EQ(test, xnet_xps_decide_timed(e, 0, 1, 4, 0, 0, XNET_XPS_OLD_BACKLOG,
						    500, 0, &q, &st), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, st, 0ULL);
	/* Transmit: same queue keeps the stamp, another drops it. */
	KUNIT_EXPECT_EQ(test, xnet_xps_repack(s, 0, 0, 99) & XNET_XPS_HOLD_BITS,
			s & XNET_XPS_HOLD_BITS);
	KUNIT_EXPECT_EQ(test, xnet_xps_repack(s, 1, 0, 99), pack(1, 99));
}

static struct kunit_case xps_flow_decide_cases[] = {
	KUNIT_CASE(xps_flow_decide_verdicts),
	KUNIT_CASE(xps_flow_decide_timed_hold),
	KUNIT_CASE(xps_flow_decide_wrap),
	KUNIT_CASE(xps_flow_decide_stale_heads),
	KUNIT_CASE(xps_flow_decide_collision),
	KUNIT_CASE(xps_flow_decide_entry),
	KUNIT_CASE(xps_flow_decide_concurrent_entries),
	{}
};

static struct kunit_suite xps_flow_decide_suite = {
	.name = "xps_flow_decide",
	.test_cases = xps_flow_decide_cases,
};

kunit_test_suite(xps_flow_decide_suite);
