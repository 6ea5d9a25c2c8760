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

/*
 * The tuple key of a packet that brings no hash of its own (see
 * Documentation/xps-flow.md): IPv4 or IPv6 addresses, ports and protocol,
 * hashed with multiply-add-shift over 32-bit words (Thorup, "High Speed
 * Hashing for Integers and Strings", 2015): with 64-bit random multipliers
 * and offset, the high 32 bits of
 *     add + sum(mul[i] * word[i])   (mod 2^64)
 * are a strongly universal hash of the words: for any two different
 * tuples, the keys collide with probability ~2^-32 over the seed, whatever
 * the tuples are. A collision only holds two flows back together, never
 * reorders; the seed keeps others from choosing colliding flows. One
 * multiplication per word: ~4x cheaper than jhash_3words().
 *
 * Words: the addresses as 32-bit words in packet order (IPv4: 1 each,
 * IPv6: 4 each), the 32 bits of source and destination port as read
 * from the packet, the protocol number. IPv4 and IPv6 have their own
 * offsets, so that keys of the two families collide no more than others.
 */
struct KeySeed {
	u64 mul[10];	/* saddr words 0-3, daddr words 4-7, ports 8, proto 9 */
	u64 add4, add6;
};

constexpr u32 key_fold(u64 h) { return static_cast<u32>(h >> 32); }

constexpr u32 key_v4(const KeySeed &s, u32 saddr, u32 daddr, u32 ports,
		     u8 proto)
{
	return key_fold(s.add4 + s.mul[0] * saddr + s.mul[4] * daddr +
			s.mul[8] * ports + s.mul[9] * proto);
}

/* @addr: saddr then daddr, 8 words (as consecutive in the IPv6 header). */
constexpr u32 key_v6(const KeySeed &s, const u32 *addr, u32 ports, u8 proto)
{
	u64 h = s.add6 + s.mul[8] * ports + s.mul[9] * proto;

	for (int i = 0; i < 8; i++)
		h += s.mul[i] * addr[i];
	return key_fold(h);
}

} /* namespace xps */
} /* namespace xnet */

#endif /* XNET_XPS_FLOW_HPP */
