// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the XPS flow-steering decision of xps_flow (C++ core through
 * decide.h): every verdict, BQL counters around the 2^32
 * wrap, the qdisc backlog rule, table sizing bounds, and entries that are
 * never torn while kthreads rewrite them.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>

#include "../decide.h"

static int decide(u64 entry, u16 proposed, u16 nq, u32 completed, int backlog,
		  u16 *queue)
{
	return xnet_xps_decide(entry, proposed, nq, completed, backlog, queue);
}

static void xps_flow_decide_verdicts(struct kunit *test)
{
	u16 q = 0xffff;

	KUNIT_EXPECT_EQ(test, decide(0, 3, 4, 0, 0, &q), XNET_XPS_NEW);
	KUNIT_EXPECT_EQ(test, q, 3);
	KUNIT_EXPECT_EQ(test, decide(xnet_xps_pack(3, 10), 3, 4, 0, 1, &q), XNET_XPS_SAME);
	KUNIT_EXPECT_EQ(test, q, 3);
	KUNIT_EXPECT_EQ(test, decide(xnet_xps_pack(6, 10), 1, 4, 0, 1, &q), XNET_XPS_STALE);
	KUNIT_EXPECT_EQ(test, q, 1);
	KUNIT_EXPECT_EQ(test, decide(xnet_xps_pack(0, 10), 1, 4, 9, 0, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, q, 0);
	KUNIT_EXPECT_EQ(test, decide(xnet_xps_pack(0, 10), 1, 4, 10, 0, &q), XNET_XPS_MOVE);
	KUNIT_EXPECT_EQ(test, q, 1);
	KUNIT_EXPECT_EQ(test, decide(xnet_xps_pack(0, 10), 1, 4, 11, 1, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, q, 0);
}

static void xps_flow_decide_wrap(struct kunit *test)
{
	u64 e = xnet_xps_pack(2, 0x10);	/* head just past the wrap */
	u16 q;

	KUNIT_EXPECT_EQ(test, decide(e, 1, 4, 0xfffffff0u, 0, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, decide(e, 1, 4, 0xf, 0, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, decide(e, 1, 4, 0x10, 0, &q), XNET_XPS_MOVE);
	e = xnet_xps_pack(2, 0xfffffff0u);	/* head just before it */
	KUNIT_EXPECT_EQ(test, decide(e, 1, 4, 0xffffff00u, 0, &q), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, decide(e, 1, 4, 5, 0, &q), XNET_XPS_MOVE);
}

static void xps_flow_decide_entry(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(0), -1);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(xnet_xps_pack(0, 0)), 0);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(xnet_xps_pack(65535, ~0u)), 65535);
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
		WRITE_ONCE(r->entry, xnet_xps_pack(r->queue, (u32)r->queue << 16 | (i++ & 0xffff)));
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
	u64 e = xnet_xps_pack(0, 10), st = 1, s;
	u16 q = 0xffff;

	KUNIT_EXPECT_EQ(test, xnet_xps_decide_timed(e, 1, 4, 0, XNET_XPS_OLD_BACKLOG,
						    500, 25, &q, &st), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, q, 0);
	s = st;
	KUNIT_ASSERT_NE(test, s, 0ULL);
	KUNIT_EXPECT_TRUE(test, s & XNET_XPS_HOLDING);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(s), 0);
	KUNIT_EXPECT_EQ(test, (u32)s, 10U);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide_timed(s, 1, 4, 0, XNET_XPS_OLD_BACKLOG,
						    524, 25, &q, &st), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, st, 0ULL);
	KUNIT_EXPECT_EQ(test, xnet_xps_decide_timed(s, 1, 4, 0, XNET_XPS_OLD_BACKLOG,
						    525, 25, &q, &st), XNET_XPS_EXPIRED);
	KUNIT_EXPECT_EQ(test, q, 1);
	/* Unbounded (limit 0): held, never stamped. */
	KUNIT_EXPECT_EQ(test, xnet_xps_decide_timed(e, 1, 4, 0, XNET_XPS_OLD_BACKLOG,
						    500, 0, &q, &st), XNET_XPS_HOLD);
	KUNIT_EXPECT_EQ(test, st, 0ULL);
	/* Transmit: same queue keeps the stamp, another drops it. */
	KUNIT_EXPECT_EQ(test, xnet_xps_repack(s, 0, 99) & XNET_XPS_HOLD_BITS,
			s & XNET_XPS_HOLD_BITS);
	KUNIT_EXPECT_EQ(test, xnet_xps_repack(s, 1, 99), xnet_xps_pack(1, 99));
}

static struct kunit_case xps_flow_decide_cases[] = {
	KUNIT_CASE(xps_flow_decide_verdicts),
	KUNIT_CASE(xps_flow_decide_timed_hold),
	KUNIT_CASE(xps_flow_decide_wrap),
	KUNIT_CASE(xps_flow_decide_entry),
	KUNIT_CASE(xps_flow_decide_concurrent_entries),
	{}
};

static struct kunit_suite xps_flow_decide_suite = {
	.name = "xps_flow_decide",
	.test_cases = xps_flow_decide_cases,
};

kunit_test_suite(xps_flow_decide_suite);
