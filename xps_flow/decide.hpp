/* SPDX-License-Identifier: GPL-2.0 */
/*
 * XPS transmit flow steering: the decision, free of kernel types.
 *
 * A flow table is indexed by a flow key (the packet's socket or NIC hash,
 * else key_v4()/key_v6() of its IP tuple, else the kernel's flow hash:
 * chosen by the module, Documentation/xps-flow.md). An entry is one 64-bit
 * word: { valid, tx queue, tag, head }: the tag is 8 bits of the key of
 * the flow that wrote the entry last, head the queue's BQL enqueue byte
 * counter (dql.num_queued) right after the flow's latest packet was handed
 * to the driver. A flow may leave its queue only when
 *  - that queue's qdisc holds no packet and is not being run (packets
 *    still in the qdisc, requeued by it, or dequeued by a run have not
 *    reached the driver, so head does not count them yet), and
 *  - head is no longer pending between the queue's completion counter
 *    (dql.num_completed) and its enqueue counter: every byte of the flow
 *    handed to the driver there has left. The window test (seq::pending())
 *    is right for a head of any age, so an idle flow whose head the
 *    counters have wrapped past, and a head from before a BQL reset
 *    (dql_reset(): both counters 0, from a TX timeout, a ring resize, an
 *    XSK bind, without NETDEV_DOWN), are never mistaken for bytes in
 *    flight.
 * Then nothing of the flow is left on the old queue to be overtaken.
 * Whenever the decision gives the slot to the packet's flow on a queue
 * (xnet_xps_claims(): New, Move, Stale, Expired), the caller stores
 * pack(that queue, tag, its num_queued so far) at once: the packet may wait
 * in that queue's qdisc before the driver has it, and the flow's next
 * packet must find it there.
 *
 * Flows whose keys share a slot move as one: each follows the entry,
 * whoever wrote it, so all their packets are where the entry says or on a
 * queue that is no longer busy, and none is reordered; a collision only
 * holds them back together. The tag (8 bits of the key of the flow that
 * wrote the entry, xnet_xps_tag()) makes a collision seen (255 in 256): the
 * decision says so (Decision::collision) and the datapath counts it, a
 * sign the table is too small for its flows. A flow that left its own
 * entry untracked on a collision, instead, would be reordered whenever XPS
 * moved it with packets in flight (the CollisionsAreSeenAndHoldTogether
 * test shows both).
 *
 * A hold is bounded in time when the caller gives a clock (HoldClock): the
 * first Hold stamps the entry, and a flow held that long goes where it is
 * proposed to (Expired: it may be reordered once, it is not stuck behind a
 * queue that never drains, e.g. one a bulk flow keeps full).
 *
 *   decide(entry, proposed, nqueues, old, clk, tag) -> queue, verdict
 *   pack(queue, head, tag)                          -> the entry to store
 *
 * Entries are read and written as whole words (no lock on the datapath):
 * a torn {queue, tag, head} triple cannot exist.
 */
#ifndef XPS_FLOW_DECIDE_HPP
#define XPS_FLOW_DECIDE_HPP

#include <xnet/types.hpp>
#include <xnet/seq.hpp>
/*
 * The entry layout, the verdicts that need only the entry and the tuple
 * key are defined once, as inline functions C can use too (the module's
 * datapath inlines them): decide.h. This file builds on them.
 */
#include "decide.h"

namespace xnet {
namespace xps {

/* Largest table a device may have (entries; 8 bytes each: 8 MiB). */
constexpr u32 kMaxEntries = 1u << 20;

constexpr u64 kValid = XNET_XPS_VALID;
constexpr u64 kHolding = XNET_XPS_HOLDING;
constexpr u64 kHoldBits = XNET_XPS_HOLD_BITS;
constexpr u16 kStampMask = XNET_XPS_STAMP_MASK;
constexpr u16 kMaxQueues = XNET_XPS_MAX_QUEUES;

constexpr u64 pack(u16 queue, u32 head, u8 tag = 0) { return xnet_xps_pack(queue, tag, head); }

constexpr bool valid(u64 e) { return e & kValid; }
constexpr u16 queue_of(u64 e)
{
	return static_cast<u16>(e >> XNET_XPS_QUEUE_SHIFT) & (kMaxQueues - 1);
}
constexpr u8 tag_of(u64 e) { return xnet_xps_tag_of(e); }
constexpr u32 head_of(u64 e) { return static_cast<u32>(e); }
constexpr u16 stamp_of(u64 e) { return static_cast<u16>(e >> XNET_XPS_STAMP_SHIFT) & kStampMask; }

/* The verdicts of verdicts.h, with the values of enum xnet_xps_verdict. */
enum class Verdict : u8 {
#define XNET_XPS_VERDICT(c, cxx) cxx = c,
#include "verdicts.h"
#undef XNET_XPS_VERDICT
};

struct Decision {
	u16 queue;
	Verdict verdict;
	u64 store = 0;	/* non-zero: write it back (a hold's stamp) */
	bool collision = false;	/* the entry was another flow's */
};

/*
 * A coarse clock for bounded holds: @now (10 bits used), @limit the
 * longest hold in its units, at most XNET_XPS_HOLD_LIMIT_MAX (wrap-around);
 * 0 holds without bound.
 */
struct HoldClock {
	u16 now = 0;
	u16 limit = 0;
};

/* What the datapath reads of the flow's old queue when it wants to move. */
struct OldQueue {
	u32 completed;		/* dql.num_completed, read first */
	u32 queued;		/* dql.num_queued, read after it */
	bool backlog;		/* its qdisc holds packets */
	/*
	 * It is outside the queue range of the proposed queue's traffic
	 * class (mqprio, an nvme priority change): the flow may not stay.
	 */
	bool other_class = false;
};

/*
 * Does @entry's queue, in state @o, still hold bytes of the entry's flow
 * (its qdisc holds packets, or head is still pending between its
 * completion and enqueue counters)? A flow may leave a queue only when it
 * is not busy.
 */
constexpr bool busy(u64 entry, OldQueue o)
{
	return o.backlog || seq::pending(head_of(entry), o.completed, o.queued);
}

/*
 * The decision on the entry alone, whoever wrote it (decide() adds the
 * tag's verdict on that).
 */
template <typename Old>
constexpr Decision decide_entry(u64 entry, u16 proposed, u16 nqueues, Old &&old,
				HoldClock clk)
{
	int fast = xnet_xps_decide_fast(entry, proposed);	/* New, Same */

	if (fast >= 0)
		return { proposed, static_cast<Verdict>(fast) };

	u16 q = queue_of(entry);

	if (q >= nqueues)
		return { proposed, Verdict::Stale };

	OldQueue o = old(q);

	/* Never hold a flow on a queue its class no longer allows. */
	if (o.other_class)
		return { proposed, Verdict::Stale };
	if (!busy(entry, o))
		return { proposed, Verdict::Move };
	if (!clk.limit)
		return { q, Verdict::Hold };
	if (!(entry & kHolding))
		return { q, Verdict::Hold,
			 (entry & ~kHoldBits) | kHolding |
			 static_cast<u64>(clk.now & kStampMask) << XNET_XPS_STAMP_SHIFT };
	if (static_cast<u16>((clk.now - stamp_of(entry)) & kStampMask) < clk.limit)
		return { q, Verdict::Hold };
	return { proposed, Verdict::Expired };
}

/*
 * @old(q) returns queue q's state; it is called at most once, only when
 * the flow wants to change queues.
 */
template <typename Old>
constexpr Decision decide(u64 entry, u16 proposed, u16 nqueues, Old &&old,
			  HoldClock clk = {}, u8 tag = 0)
{
	Decision d = decide_entry(entry, proposed, nqueues, old, clk);

	d.collision = xnet_xps_collided(entry, tag);
	return d;
}

/*
 * The drain estimate (decide.h, struct xnet_xps_drain): @d after the queue
 * was seen at @now with completion counter @completed and @inflight bytes
 * in flight. @d.ns is when the counter last moved (or the queue was last
 * seen idle): a sample spans at least XNET_XPS_DRAIN_SAMPLE_NS of
 * progress, dt x 1024 / bytes completed, and the average weighs it 1/4.
 * While nothing completes with bytes in flight (a queue that stalls, or
 * one whose completions come late in bursts) the time since the last
 * progress per KiB in flight is a lower bound of the drain, and the
 * estimate is raised to it at once: a hold then lasts at least a few times
 * as long as the stall so far, until the queue moves again or hold_max_ms.
 * Idle (nothing in flight): no measure, the estimate is kept.
 */
using Drain = xnet_xps_drain;

constexpr u32 kNsPerKibMax = 0xffffffffu;

constexpr u32 ns_per_kib(u64 dt, u32 bytes)
{
	u64 v = dt * 1024 / bytes;

	return v > kNsPerKibMax ? kNsPerKibMax : v ? static_cast<u32>(v) : 1;
}

constexpr Drain drain_sample(Drain d, u64 now, u32 completed, u32 inflight)
{
	u32 done = completed - d.completed;

	if (!d.ns || now < d.ns || (!done && !inflight))
		return { now, completed, d.ns_per_kib };	/* start, or idle */
	u64 dt = now - d.ns;

	if (!done) {
		u32 stall = ns_per_kib(dt, inflight);

		return { d.ns, d.completed, stall > d.ns_per_kib ? stall : d.ns_per_kib };
	}
	if (dt < XNET_XPS_DRAIN_SAMPLE_NS)
		return d;
	u64 sample = ns_per_kib(dt, done);

	if (d.ns_per_kib)
		sample = (3 * static_cast<u64>(d.ns_per_kib) + sample) / 4;
	return { now, completed, static_cast<u32>(sample ? sample : 1) };
}

constexpr u16 hold_limit(u16 cap, u32 tick_shift, u32 drains, u32 ns_per_kib, u32 inflight)
{
	if (!cap || !drains || !ns_per_kib || !inflight || tick_shift > 63)
		return cap;
	/* At most 64 x 2^32 x 2^32 / 2^10: no overflow in 64 bits below 2^6 drains. */
	u64 ns = static_cast<u64>(drains) * ns_per_kib / 1024 * inflight +
		 static_cast<u64>(drains) * ns_per_kib % 1024 * inflight / 1024;
	u64 ticks = (ns >> tick_shift) + 1;

	return ticks < cap ? static_cast<u16>(ticks) : cap;
}

/*
 * A table resize carries every entry over into the new table, so that no
 * hold is dropped. Growing, each new slot gets the one old entry its flows
 * map to. Shrinking, several old entries (@into, what the slot has so far,
 * and @from) land in one slot; carry() says which to keep (@*_busy: that
 * entry's queue is busy(), read by the caller):
 *  - one empty: the other;
 *  - the same queue: the later head (it covers the other's bytes too);
 *  - different queues: the busy one: the flows of an entry whose queue has
 *    drained may go anywhere, those of a busy one must stay. Both busy: no
 *    one entry can hold both; @into is kept, and conflict says so (the
 *    flows of @from may be reordered once).
 */
struct Carried {
	u64 entry;
	bool conflict;
};

constexpr Carried carry(u64 into, bool into_busy, u64 from, bool from_busy)
{
	if (!valid(from))
		return { into, false };
	if (!valid(into))
		return { from, false };
	if (queue_of(into) == queue_of(from))
		return { seq::reached(head_of(from), head_of(into)) ? from : into,
			 false };
	if (from_busy && !into_busy)
		return { from, false };
	return { into, from_busy && into_busy };
}

/* The tuple key (decide.h: multiply-add-shift over the tuple's words). */
using KeySeed = xnet_xps_key_seed;

constexpr u32 key_v4(const KeySeed &s, u32 saddr, u32 daddr, u32 ports,
		     u8 proto)
{
	return xnet_xps_key_v4(&s, saddr, daddr, ports, proto);
}

/* @addr: saddr then daddr, 8 words (as consecutive in the IPv6 header). */
constexpr u32 key_v6(const KeySeed &s, const u32 *addr, u32 ports, u8 proto)
{
	return xnet_xps_key_v6(&s, addr, ports, proto);
}

} /* namespace xps */
} /* namespace xnet */

#endif /* XPS_FLOW_DECIDE_HPP */
