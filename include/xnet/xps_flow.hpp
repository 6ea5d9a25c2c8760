/* SPDX-License-Identifier: GPL-2.0 */
/*
 * XPS transmit flow steering: the decision, free of kernel types.
 *
 * A flow table is indexed by the skb flow hash. An entry is one 64-bit
 * word: { valid, tx queue, head }, where head is the queue's BQL enqueue
 * byte counter (dql.num_queued) right after the flow's latest packet was
 * handed to the driver. A flow may leave its queue only when
 *  - that queue's qdisc holds no packet (packets still in the qdisc have
 *    not reached the driver, so head does not count them yet), and
 *  - the queue's completion counter (dql.num_completed) has reached head:
 *    every byte of the flow handed to the driver there has left.
 * Then nothing of the flow is left on the old queue to be overtaken.
 *
 *   decide(entry, proposed, nqueues, old) -> queue to use, verdict
 *   pack(queue, head)                     -> the entry to store
 *
 * Entries are read and written as whole words (no lock on the datapath):
 * a torn {queue, head} pair cannot exist. Two flows that share an entry
 * (hash collision) can only hold each other back longer, never reorder.
 */
#ifndef XNET_XPS_FLOW_HPP
#define XNET_XPS_FLOW_HPP

#include "types.hpp"
#include "seq.hpp"

namespace xnet {
namespace xps {

/* Largest table a device may have (entries; 8 bytes each: 8 MiB). */
constexpr u32 kMaxEntries = 1u << 20;

constexpr u64 kValid = 1ull << 63;

constexpr u64 pack(u16 queue, u32 head)
{
	return kValid | (static_cast<u64>(queue) << 32) | head;
}

constexpr bool valid(u64 e) { return e & kValid; }
constexpr u16 queue_of(u64 e) { return static_cast<u16>(e >> 32); }
constexpr u32 head_of(u64 e) { return static_cast<u32>(e); }

enum class Verdict : u8 {
	New,	/* no entry: the proposed queue */
	Same,	/* the proposed queue is the flow's queue */
	Move,	/* the old queue has drained: move to the proposed one */
	Hold,	/* the old queue still holds the flow's bytes: stay */
	Stale,	/* the old queue no longer exists: the proposed one */
};

struct Decision {
	u16 queue;
	Verdict verdict;
};

/* What the datapath reads of the flow's old queue when it wants to move. */
struct OldQueue {
	u32 completed;		/* dql.num_completed */
	bool backlog;		/* its qdisc holds packets */
};

/*
 * @old(q) returns queue q's state; it is called at most once, only when
 * the flow wants to change queues.
 */
template <typename Old>
constexpr Decision decide(u64 entry, u16 proposed, u16 nqueues, Old &&old)
{
	if (!valid(entry))
		return { proposed, Verdict::New };

	u16 q = queue_of(entry);

	if (q == proposed)
		return { proposed, Verdict::Same };
	if (q >= nqueues)
		return { proposed, Verdict::Stale };

	OldQueue o = old(q);

	if (o.backlog || !seq::reached(o.completed, head_of(entry)))
		return { q, Verdict::Hold };
	return { proposed, Verdict::Move };
}

} /* namespace xps */
} /* namespace xnet */

#endif /* XNET_XPS_FLOW_HPP */
