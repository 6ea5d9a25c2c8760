// SPDX-License-Identifier: GPL-2.0
/*
 * xps_flow's datapath: what runs per packet of a device with a table.
 *
 * Queue choice (xfl_core_pick_tx(), where hook.c resumes
 * netdev_core_pick_tx() for such a device): the queue the driver's
 * ndo_select_queue or XPS (netdev_pick_tx()) proposes goes through the C++
 * decision with the flow's entry: a flow whose old queue has not completed
 * the bytes it queued there stays (xfl_steer()).
 * Head (the net_dev_start_xmit / net_dev_xmit probes): once the driver has
 * taken the packet, under the TX queue lock, the queue's BQL enqueue
 * counter is exact: it becomes the flow's head.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/sch_generic.h>

#include "../compat/ftrace.h"
#include "decide.h"
#include "key.h"
#include "trace.h"
#include "xps_flow.h"

/* The table in a hook: every caller is an RCU reader of some flavour. */
#define xfl_table_of(xd)	rcu_dereference_check((xd)->table, rcu_read_lock_any_held())

/*
 * The decision's write over the entry @old it read: true if the slot
 * still held @old. KUnit injects other CPUs' writes here.
 */
static __always_inline bool xfl_cas(u64 *slot, u64 old, u64 new)
{
#ifdef XFL_TEST_CLAIM_RACE
	XFL_TEST_CLAIM_RACE(slot);	/* KUnit: another CPU wins */
#endif
	return cmpxchg64(slot, old, new) == old;
}

/*
 * The flow goes to @queue: a new flow, or one leaving its queue. Say so in
 * the entry now, if it still is @old: the probe writes the exact head once
 * the driver has the packet, but until then the packet may wait in
 * @queue's qdisc (the queue stopped by BQL or a full ring), and a packet
 * of the same flow selected meanwhile would find the old entry (none, or
 * the queue it left, idle by now) and overtake it. With this one it finds
 * @queue, whose qdisc backlog holds it. Head: the queue's count so far, a
 * lower bound. False when the slot changed since @old was read.
 */
static bool xfl_claim(struct net_device *dev, u64 *slot, u64 old, u16 queue,
		      u8 tag)
{
	struct netdev_queue *txq;

	if (queue >= dev->real_num_tx_queues)
		return true;
	txq = netdev_get_tx_queue(dev, queue);
	return xfl_cas(slot, old,
		       xnet_xps_pack(queue, tag, READ_ONCE(txq->dql.num_queued)));
}

/* The state of @entry's queue @oq that the decision needs (XNET_XPS_OLD_*). */
static int xfl_old_state(struct net_device *dev, struct net_device *sb_dev,
			 struct xfl_table *t, u64 *slot, u64 entry, int oq,
			 u16 proposed, u64 now, unsigned int *completed,
			 unsigned int *queued)
{
	struct netdev_queue *txq = netdev_get_tx_queue(dev, oq);
	struct Qdisc *q = rcu_dereference_check(txq->qdisc, rcu_read_lock_any_held());
	int state = 0;

	/*
	 * Packets not counted in head yet: still in the qdisc, or dequeued
	 * (a bulk dequeue empties the qdisc) and on their way to the driver
	 * while the qdisc runs. The probe writes the entry before the run
	 * ends: once the run is seen over, a re-read sees the flow's latest
	 * head — if it changed, the flow just sent there: stay.
	 */
	if (q && (!qdisc_is_empty(q) || qdisc_is_running(q)))
		state = XNET_XPS_OLD_BACKLOG;
	smp_rmb();	/* the run's end before the entry's re-read */
	if (READ_ONCE(*slot) != entry)
		state |= XNET_XPS_OLD_BACKLOG;
	/*
	 * The window head must be in to count as in flight: completions
	 * first, so that the enqueue count read after them is not behind.
	 */
	*completed = READ_ONCE(txq->dql.num_completed);
	smp_rmb();	/* the completions before the enqueue count */
	*queued = READ_ONCE(txq->dql.num_queued);
	/* The queue's drain, measured here when used (xfl_hold_bound()). */
	if (READ_ONCE(xfl_hold_drains) && likely(oq < t->nr_drain))
		xnet_xps_drain_sample(&t->drain[oq], now, *completed,
				      *queued - *completed);
	/*
	 * Traffic classes (mqprio): the proposal came from the packet's class
	 * range (netdev_pick_tx() picks within tc_to_txq[tc] of @sb_dev or
	 * @dev); the old queue must be in that range too, or the flow goes
	 * where it is allowed.
	 */
	if (unlikely((sb_dev ?: dev)->num_tc) &&
	    netdev_txq_to_tc(sb_dev ?: dev, oq) !=
	    netdev_txq_to_tc(sb_dev ?: dev, proposed))
		state |= XNET_XPS_OLD_OTHER_TC;
	/* A resize is carrying heads over: only an idle queue is left. */
	if (unlikely(READ_ONCE(t->settling)) && *queued != *completed)
		state |= XNET_XPS_OLD_BACKLOG;
	return state;
}

/*
 * The longest hold on queue @oq now, in hold clock ticks: hold_drains
 * drain times of the bytes on it, hold_max_ms at most
 * (xnet_xps_hold_limit()): the bytes in flight on the driver's ring, and
 * @waiting more in its qdisc. The drain is measured on the datapath's slow
 * path only: whenever a flow wants to leave a queue, its completion
 * counter is sampled (xfl_old_state()); a held flow's every packet takes
 * that path, so a queue that holds flows is measured while it does.
 */
static u16 xfl_hold_bound(const struct xfl_table *t, int oq,
			  unsigned int completed, unsigned int queued,
			  unsigned int waiting)
{
	u16 cap = READ_ONCE(xfl_hold_limit);

	if (!cap || oq < 0 || oq >= t->nr_drain)
		return cap;
	return xnet_xps_hold_limit(cap, READ_ONCE(xfl_hold_shift),
				   READ_ONCE(xfl_hold_drains),
				   READ_ONCE(t->drain[oq].ns_per_kib),
				   min_t(u64, (u64)(queued - completed) + waiting,
					 U32_MAX));
}

/*
 * The bytes waiting in queue @oq's qdisc (a sum over CPUs for a lockless
 * one: only asked for when a hold is about to expire).
 */
static noinline unsigned int xfl_qdisc_bytes(struct net_device *dev, int oq)
{
	struct netdev_queue *txq = netdev_get_tx_queue(dev, oq);
	struct Qdisc *q = rcu_dereference_check(txq->qdisc, rcu_read_lock_any_held());
	u32 qlen, backlog = 0;

	if (q)
		qdisc_qstats_qlen_backlog(q, &qlen, &backlog);
	return backlog;
}

/*
 * The flow in @slot is on another queue than the proposed one: may it
 * move? Decided and claimed in one loop: when the claim (or a hold's
 * stamp) loses (another CPU wrote the slot after it was read), the
 * decision is taken again on what that CPU wrote; after XFL_CLAIM_TRIES
 * losses the packet follows the entry it last read (a hold: never a queue
 * the slot does not name). Out of line: the rare case.
 */
static noinline u16 xfl_steer_move(struct xfl_dev *xd, struct net_device *dev,
				   struct net_device *sb_dev, struct xfl_table *t,
				   u64 *slot, u64 entry, u16 proposed, u32 key)
{
	u64 now = ktime_get_mono_fast_ns();
	u16 clock = now >> READ_ONCE(xfl_hold_shift), limit;
	unsigned int tries = 0, completed, queued;
	u8 tag = xnet_xps_tag(key);
	bool collided = false;
	int verdict;
	u16 queue;

	for (;;) {
		int oq, state = 0;
		u64 store;

		completed = 0;
		queued = 0;
		oq = xnet_xps_queue_of(entry);
		if (oq >= 0 && oq < dev->real_num_tx_queues)
			state = xfl_old_state(dev, sb_dev, t, slot, entry, oq,
					      proposed, now, &completed, &queued);
		limit = xfl_hold_bound(t, oq, completed, queued, 0);
		verdict = xnet_xps_decide_timed(entry, tag, proposed,
						dev->real_num_tx_queues,
						completed, queued, state, clock,
						limit, &queue, &store);
		/*
		 * Past the drain of the driver's ring: the qdisc's bytes count
		 * too (the flow's own may wait there), asked for only now.
		 */
		if (unlikely((verdict & XNET_XPS_VERDICT_MASK) == XNET_XPS_EXPIRED)) {
			u16 longer = xfl_hold_bound(t, oq, completed, queued,
						    xfl_qdisc_bytes(dev, oq));

			if (longer > limit) {
				verdict = xnet_xps_decide_timed(entry, tag, proposed,
								dev->real_num_tx_queues,
								completed, queued,
								state, clock, longer,
								&queue, &store);
				limit = longer;
			}
		}
		collided |= verdict & XNET_XPS_COLLIDED;
		verdict &= XNET_XPS_VERDICT_MASK;
		/*
		 * What the decision writes, it writes over the entry it read:
		 * a hold's stamp, or a claim. Same and Hold alone write nothing.
		 */
		if (unlikely(store)) {
			if (xfl_cas(slot, entry, store))
				break;
		} else if (!xnet_xps_claims(verdict) ||
			   xfl_claim(dev, slot, entry, queue, tag)) {
			break;
		}
		/* Lost: decide again on what won. */
		entry = READ_ONCE(*slot);
		if (++tries < XFL_CLAIM_TRIES)
			continue;
		oq = xnet_xps_queue_of(entry);
		if (oq >= 0 && oq < dev->real_num_tx_queues) {
			verdict = oq == proposed ? XNET_XPS_SAME : XNET_XPS_HOLD;
			queue = oq;
		}
		this_cpu_inc(xd->stats->claims_lost);
		break;
	}
	if (unlikely(collided)) {
		this_cpu_inc(xd->stats->collisions);
		trace_xps_flow_collision(dev, key, entry, proposed);
	}
	if (verdict == XNET_XPS_HOLD) {
		this_cpu_inc(xd->stats->held);
		trace_xps_flow_hold(dev, key, entry, proposed, queue, completed,
				    queued, clock, limit);
	} else if (verdict == XNET_XPS_MOVE) {
		this_cpu_inc(xd->stats->moves);
		trace_xps_flow_move(dev, key, entry, proposed, queue, completed,
				    queued, clock, limit);
	} else if (verdict == XNET_XPS_STALE) {
		this_cpu_inc(xd->stats->stale);
	} else if (verdict == XNET_XPS_EXPIRED) {
		this_cpu_inc(xd->stats->expired);
		trace_xps_flow_expire(dev, key, entry, proposed, queue,
				      completed, queued, clock, limit);
	}
	return queue;
}

/*
 * The queue for @skb on @xd's device, given the queue the device proposed.
 * Caller: an RCU reader (the queue choice's caller holds one).
 */
u16 xfl_steer(struct xfl_dev *xd, struct net_device *dev, struct sk_buff *skb,
	      struct net_device *sb_dev, u16 proposed)
{
	struct xfl_table *t = xfl_table_of(xd);
	u64 *slot, entry;
	u32 key;
	u8 tag;

	/* A queue the entry cannot name (more than rtnetlink's 4096). */
	if (unlikely(!t || proposed >= XNET_XPS_MAX_QUEUES))
		return proposed;
	key = xfl_select_key(skb);
	xfl_hand_key(skb, key);
	tag = xnet_xps_tag(key);
	slot = &t->entries[key & t->mask];
	entry = READ_ONCE(*slot);
	this_cpu_inc(xd->stats->lookups);
	/* No entry, or the flow's queue is the proposed one. */
	if (likely(xnet_xps_decide_fast(entry, proposed) >= 0)) {
		if (unlikely(xnet_xps_collided(entry, tag))) {
			this_cpu_inc(xd->stats->collisions);
			trace_xps_flow_collision(dev, key, entry, proposed);
		}
		/* A new flow claims its slot; lost, the winner's entry decides. */
		if (unlikely(!entry) && !xfl_claim(dev, slot, 0, proposed, tag)) {
			entry = READ_ONCE(*slot);
			if (xnet_xps_decide_fast(entry, proposed) < 0)
				return xfl_steer_move(xd, dev, sb_dev, t, slot,
						      entry, proposed, key);
		} else if (unlikely(entry & XNET_XPS_HOLDING)) {
			/* Where XPS wants it again: a timed hold is over. */
			cmpxchg64(slot, entry, entry & ~XNET_XPS_HOLD_BITS);
		}
		return proposed;
	}
	return xfl_steer_move(xd, dev, sb_dev, t, slot, entry, proposed, key);
}

/*
 * netdev_core_pick_tx() of 6.1 and 6.12 (the same body), with the flow
 * table's verdict on the queue it chose: hook.c resumes that function here
 * for a device with a table. Not exported, so not called: copied, and the
 * copy checked against both trees' (Documentation/xps-flow.md, "Hooks").
 * One difference: a sender_cpu past nr_cpu_ids rather than NR_CPUS is
 * reset (no CPU has such a number; the kernel's own bound is the larger).
 * @xd: the device's state as the handler found it (x86-64: a fourth
 * argument it passes in %rcx, compat/ftrace.h), else looked up here. It
 * lives as long as the caller's RCU read-side section; its table may be
 * gone since (xfl_steer() then returns the proposal).
 */
struct netdev_queue *xfl_core_pick_tx(struct net_device *dev,
				      struct sk_buff *skb,
				      struct net_device *sb_dev,
				      struct xfl_dev *xd)
{
	int queue_index = 0;

#ifdef CONFIG_XPS
	u32 sender_cpu = skb->sender_cpu - 1;

	if (sender_cpu >= nr_cpu_ids)
		skb->sender_cpu = raw_smp_processor_id() + 1;
#endif

	if (dev->real_num_tx_queues != 1) {
		const struct net_device_ops *ops = dev->netdev_ops;

		if (ops->ndo_select_queue)
			queue_index = ops->ndo_select_queue(dev, skb, sb_dev);
		else
			queue_index = netdev_pick_tx(dev, skb, sb_dev);

		queue_index = netdev_cap_txqueue(dev, queue_index);
#ifndef XNET_HAVE_FREGS_ARG3
		xd = xfl_steered_find(dev);
#endif
		if (likely(xd))
			queue_index = xfl_steer(xd, dev, skb, sb_dev, queue_index);
	}

	skb_set_queue_mapping(skb, queue_index);
	return netdev_get_tx_queue(dev, queue_index);
}

/*
 * The probes. net_dev_start_xmit and net_dev_xmit fire in xmit_one() on
 * one CPU, around the driver's ndo_start_xmit, under the TX queue lock
 * with bottom halves off (and preemption off in the probe). The second
 * may see a freed skb: the first keeps what it needs per CPU. A stacked
 * device transmits inside its ndo_start_xmit, so the pairs nest: a stack.
 * hook.c registers the end probe before the start probe and removes it
 * after: every entry pushed is popped.
 */
#define XFL_XMIT_DEPTH	4

struct xfl_xmit {
	const struct sk_buff *skb;	/* compared; written only if refused */
	struct xfl_dev *xd;
	u32 key;
	u16 queue;
};

struct xfl_xmit_stack {
	unsigned int depth;
	struct xfl_xmit e[XFL_XMIT_DEPTH];
};

static DEFINE_PER_CPU(struct xfl_xmit_stack, xfl_xmits);

/* No probe registered (hook.c): nothing can be in flight. */
void xfl_xmit_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(&xfl_xmits, cpu)->depth = 0;
}

void xfl_probe_start_xmit(void *data, const struct sk_buff *cskb,
			  const struct net_device *dev)
{
	/*
	 * The key's hand-off field is cleared before the driver sees the
	 * packet (key.h): the skb is the caller's until then.
	 */
	struct sk_buff *skb = (struct sk_buff *)cskb;
	struct xfl_xmit_stack *s;
	struct xfl_dev *xd;
	s64 key;

	/* Not steered at selection: every device without a table. */
	if (likely(!xfl_key_handed(skb)))
		return;
	xd = xfl_steered_find(dev);
	if (unlikely(!xd))
		return;		/* its table went off meanwhile */
	key = xfl_taken_key(skb);
	s = this_cpu_ptr(&xfl_xmits);
	if (key < 0 || unlikely(s->depth >= XFL_XMIT_DEPTH))
		return;
	s->e[s->depth++] = (struct xfl_xmit){
		.skb = skb, .xd = xd, .key = key,
		.queue = skb_get_queue_mapping(skb),
	};
}

/* Once per device: a driver whose queues never count bytes. */
static noinline void xfl_no_bql(struct xfl_dev *xd, struct net_device *dev)
{
	if (!xd->warned_no_bql && atomic_inc_return(&xd->no_bql) == 1000) {
		xd->warned_no_bql = true;
		pr_warn_ratelimited("%s: BQL counters never move: the driver does not report its queues to BQL, steering cannot protect its flows\n",
				    netdev_name(dev));
	}
}

void xfl_probe_xmit(void *data, struct sk_buff *skb, int rc,
		    struct net_device *dev, unsigned int skb_len)
{
	struct xfl_xmit_stack *s = this_cpu_ptr(&xfl_xmits);
	struct netdev_queue *txq;
	struct xfl_table *t;
	struct xfl_xmit *e;
	u32 head;

	if (likely(!s->depth))
		return;
	e = &s->e[s->depth - 1];
	if (e->skb != skb || e->xd->nd.dev != dev)
		return;		/* a device in between that is not steered */
	s->depth--;
	if (unlikely(rc != NETDEV_TX_OK)) {
		/*
		 * Refused, not consumed: the skb is requeued, still the
		 * stack's. Its next start probe needs the key again.
		 */
		if (rc == NETDEV_TX_BUSY)
			xfl_hand_key(skb, e->key);
		return;
	}
	/* Under the TX queue lock: the driver has just counted the bytes. */
	txq = netdev_get_tx_queue(dev, e->queue);
	head = READ_ONCE(txq->dql.num_queued);
	if (unlikely(!head))
		xfl_no_bql(e->xd, dev);
	t = xfl_table_of(e->xd);
	if (likely(t)) {
		u64 *slot = &t->entries[e->key & t->mask];
		u64 old = READ_ONCE(*slot);

		/*
		 * The head, on the entry's queue only: a slot claimed for
		 * another queue meanwhile (a packet selected after this one,
		 * still before its driver) keeps that claim. A hold on @queue
		 * keeps its stamp. Compare-and-swap: a stamp written at
		 * selection must not undo the head (the TX lock serialises
		 * the heads of one queue).
		 */
		do {
			if (old && xnet_xps_queue_of(old) != e->queue) {
				this_cpu_inc(e->xd->stats->unrecorded);
				return;
			}
		} while (!try_cmpxchg64(slot, &old,
					xnet_xps_repack(old, e->queue,
							xnet_xps_tag(e->key), head)));
		this_cpu_inc(e->xd->stats->recorded);
	}
}
