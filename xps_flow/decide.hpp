/* SPDX-License-Identifier: GPL-2.0 */
/*
 * XPS transmit flow steering: the decision, free of kernel types.
 *
 * A flow table is indexed by a flow key (the packet's socket or NIC hash,
 * else key_v4()/key_v6() of its IP tuple, else the kernel's flow hash:
 * chosen by the module, Documentation/xps-flow.md). An entry is one 64-bit
 * word: { valid, tx queue, head }, where head is the queue's BQL enqueue
 * byte counter (dql.num_queued) right after the flow's latest packet was
 * handed to the driver. A flow may leave its queue only when
 *  - that queue's qdisc holds no packet (packets still in the qdisc have
 *    not reached the driver, so head does not count them yet), and
 *  - the queue's completion counter (dql.num_completed) has reached head:
 *    every byte of the flow handed to the driver there has left.
 * Then nothing of the flow is left on the old queue to be overtaken.
 * Whenever the decision is a queue other than the entry's (New, Move,
 * Stale, Expired), the caller stores pack(that queue, its num_queued so
 * far) at once: the packet may wait in that queue's qdisc before the
 * driver has it, and the flow's next packet must find it there.
 * A hold is bounded in time when the caller gives a clock (HoldClock): the
 * first Hold stamps the entry, and a flow held that long goes where it is
 * proposed to (Expired: it may be reordered once, it is not stuck behind a
 * queue that never drains, e.g. one a bulk flow keeps full).
 *
 *   decide(entry, proposed, nqueues, old) -> queue to use, verdict
 *   pack(queue, head)                     -> the entry to store
 *
 * Entries are read and written as whole words (no lock on the datapath):
 * a torn {queue, head} pair cannot exist. Two flows that share an entry
 * (hash collision) can only hold each other back longer, never reorder.
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

constexpr u64 pack(u16 queue, u32 head) { return xnet_xps_pack(queue, head); }

constexpr bool valid(u64 e) { return e & kValid; }
constexpr u16 queue_of(u64 e) { return static_cast<u16>(e >> 32); }
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
};

/*
 * A coarse clock for bounded holds: @now (14 bits used), @limit the
 * longest hold in its units, below kStampMask / 2 (wrap-around); 0 holds
 * without bound.
 */
struct HoldClock {
	u16 now = 0;
	u16 limit = 0;
};

/* What the datapath reads of the flow's old queue when it wants to move. */
struct OldQueue {
	u32 completed;		/* dql.num_completed */
	bool backlog;		/* its qdisc holds packets */
	/*
	 * It is outside the queue range of the proposed queue's traffic
	 * class (mqprio, an nvme priority change): the flow may not stay.
	 */
	bool other_class = false;
};

/*
 * Does @entry's queue, in state @o, still hold bytes of the entry's flows
 * (its qdisc holds packets, or its completions have not reached head)?
 * A flow may leave a queue only when it is not busy.
 */
constexpr bool busy(u64 entry, OldQueue o)
{
	return o.backlog || !seq::reached(o.completed, head_of(entry));
}

/*
 * @old(q) returns queue q's state; it is called at most once, only when
 * the flow wants to change queues.
 */
template <typename Old>
constexpr Decision decide(u64 entry, u16 proposed, u16 nqueues, Old &&old,
			  HoldClock clk = {})
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
