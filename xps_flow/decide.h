/* SPDX-License-Identifier: GPL-2.0 */
/* C ABI of the XPS flow-steering decision (decide.hpp, decide.cpp). */
#ifndef XPS_FLOW_DECIDE_H
#define XPS_FLOW_DECIDE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The verdicts, defined once in verdicts.h; decide.hpp makes xnet::xps::Verdict. */
enum xnet_xps_verdict {
#define XNET_XPS_VERDICT(c, cxx) c,
#include "verdicts.h"
#undef XNET_XPS_VERDICT
};

#define XNET_XPS_MAX_ENTRIES	1048576u	/* 2^20 entries, 8 MiB */

/*
 * Decide the queue for a packet of the flow with tag @tag (xnet_xps_tag()
 * of its key) whose table slot holds @entry, given the queue XPS (or the
 * driver) proposes, the number of real TX queues, and the state of the
 * entry's queue read by the caller (ignored unless the flow wants to
 * move): @old_completed and @old_queued, its BQL
 * counters (completed read first), and @old_state, XNET_XPS_OLD_* flags:
 * its qdisc holds packets, or it lies outside the proposed queue's traffic
 * class range. Returns the verdict (with XNET_XPS_COLLIDED, below), the
 * queue in *queue.
 */
#define XNET_XPS_OLD_BACKLOG	1	/* its qdisc holds packets */
#define XNET_XPS_OLD_OTHER_TC	2	/* not in the proposed queue's class */

int xnet_xps_decide(unsigned long long entry, unsigned char tag,
		    unsigned short proposed, unsigned short nqueues,
		    unsigned int old_completed, unsigned int old_queued,
		    int old_state, unsigned short *queue);

/*
 * The same with holds bounded in time: @now is a coarse clock (the
 * module: jiffies in units of 2^hold_shift), @limit the longest hold in
 * its units (0: unbounded, as xnet_xps_decide(); else at most
 * XNET_XPS_HOLD_LIMIT_MAX). A hold that starts stamps the entry: *store is
 * then the entry to write back (if the slot still holds @entry), else 0.
 * A flow held @limit or longer goes to the proposed queue
 * (XNET_XPS_EXPIRED).
 */
int xnet_xps_decide_timed(unsigned long long entry, unsigned char tag,
			  unsigned short proposed, unsigned short nqueues,
			  unsigned int old_completed, unsigned int old_queued,
			  int old_state, unsigned short now, unsigned short limit,
			  unsigned short *queue, unsigned long long *store);

/*
 * Or'ed into the verdict of both calls above: the entry was another
 * flow's (its tag differs from @tag). The decision is the same as for the
 * entry's own flow: flows that share a slot move as one (a collision holds
 * them back together, it never reorders), but the datapath counts it.
 */
#define XNET_XPS_COLLIDED	0x100
#define XNET_XPS_VERDICT_MASK	0xff

/*
 * Does the verdict give the slot to the packet's flow on the queue chosen
 * (the caller claims it: xnet_xps_pack() of that queue and its count so
 * far)? New, Move, Stale and Expired do; Same and Hold (the flow stays
 * where its entry is) do not.
 */
static inline int xnet_xps_claims(int verdict)
{
	verdict &= XNET_XPS_VERDICT_MASK;
	return verdict != XNET_XPS_SAME && verdict != XNET_XPS_HOLD;
}

/*
 * The drain of a TX queue, measured where the datapath reads the queue
 * anyway (a flow wants to leave it): how long the queue takes to complete
 * a KiB, an average over samples at least XNET_XPS_DRAIN_SAMPLE_NS apart.
 * A hold on the queue lasts at most @drains drain times of the bytes in
 * flight on it (xnet_xps_hold_limit()), hold_max_ms at most: a flow is not
 * pinned to a queue that drains slowly, or that others keep full; it
 * moves, and may be reordered once. Written by any CPU without a lock: an
 * estimate, a race costs one sample.
 */
struct xnet_xps_drain {
	unsigned long long ns;		/* when @completed last moved; 0: never */
	unsigned int completed;		/* dql.num_completed then */
	unsigned int ns_per_kib;	/* the average; 0: none yet */
};

#define XNET_XPS_DRAIN_SAMPLE_NS	100000ull	/* 100 us */

/*
 * @d after the queue was seen at @now (ns) with completion counter
 * @completed and @inflight bytes between it and the enqueue counter.
 */
void xnet_xps_drain_sample(struct xnet_xps_drain *d, unsigned long long now,
			   unsigned int completed, unsigned int inflight);

/*
 * The longest hold on a queue with @inflight bytes in flight that drains
 * at @ns_per_kib: @drains times its drain time, in ticks of 2^@tick_shift
 * ns, rounded up, at least one tick and at most @cap (hold_max_ms in
 * ticks; 0: unbounded, returned as is). Without an estimate, nothing in
 * flight (the backlog is in the qdisc, or stuck) or @drains 0: @cap.
 */
unsigned short xnet_xps_hold_limit(unsigned short cap, unsigned int tick_shift,
				   unsigned int drains, unsigned int ns_per_kib,
				   unsigned int inflight);

/*
 * Is @entry's queue busy: its qdisc holds packets (@backlog non-zero) or
 * the entry's head is still in flight between its completion counter
 * @completed and its enqueue counter @queued (xnet::xps::busy())? An empty
 * entry is never busy.
 */
int xnet_xps_busy(unsigned long long entry, unsigned int completed,
		  unsigned int queued, int backlog);

/*
 * Two entries landing in one slot of a resized table: the one to keep
 * (xnet::xps::carry()); *conflict set when both were busy and one is lost.
 */
unsigned long long xnet_xps_carry(unsigned long long into, int into_busy,
				  unsigned long long from, int from_busy,
				  int *conflict);

/*
 * The entry layout, inline for the datapath (two calls per packet less):
 *   bit  63     valid
 *   bit  62     a timed hold is on
 *   bits 52..61 when it began (the caller's clock, 10 bits)
 *   bits 40..51 the queue (12 bits: rtnetlink's limit of 4096 TX queues)
 *   bits 32..39 the tag: bits 23..30 of the key of the flow that wrote
 *               it last (xnet_xps_tag()), bits the table's index (the
 *               key's low bits, at most 20) never uses: a flow that finds
 *               another flow's entry in its slot is seen (255 in 256)
 *   bits  0..31 head
 * The one definition: the C++ core (decide.hpp, which C cannot include)
 * builds pack(), decide() and its tuple key on these (constexpr in C++
 * for that).
 */
#ifdef __cplusplus
#define XNET_XPS_CONSTEXPR constexpr
#else
#define XNET_XPS_CONSTEXPR
#endif

#define XNET_XPS_VALID		0x8000000000000000ull	/* bit 63 */
#define XNET_XPS_HOLDING	0x4000000000000000ull	/* bit 62 */
#define XNET_XPS_STAMP_SHIFT	52
#define XNET_XPS_STAMP_MASK	0x3ffu			/* bits 52..61 */
#define XNET_XPS_HOLD_BITS	(XNET_XPS_HOLDING | \
				 (unsigned long long)XNET_XPS_STAMP_MASK << XNET_XPS_STAMP_SHIFT)
/* The longest hold in clock units: below half the stamp's range (wrap). */
#define XNET_XPS_HOLD_LIMIT_MAX	(XNET_XPS_STAMP_MASK / 2)
#define XNET_XPS_QUEUE_SHIFT	40
#define XNET_XPS_MAX_QUEUES	4096u			/* bits 40..51 */
#define XNET_XPS_TAG_SHIFT	32
#define XNET_XPS_TAG_MASK	0xffu			/* bits 32..39 */
#define XNET_XPS_QUEUE_FIELD	((unsigned long long)(XNET_XPS_MAX_QUEUES - 1) << \
				 XNET_XPS_QUEUE_SHIFT)
#define XNET_XPS_TAG_FIELD	((unsigned long long)XNET_XPS_TAG_MASK << XNET_XPS_TAG_SHIFT)
/* Where the entry is, and where and whose: each compared in one go. */
#define XNET_XPS_QUEUE_BITS	(XNET_XPS_VALID | XNET_XPS_QUEUE_FIELD)
#define XNET_XPS_OWNER_BITS	(XNET_XPS_QUEUE_BITS | XNET_XPS_TAG_FIELD)

/*
 * The tag of a flow key: its bits 23..30. The table's index uses bits
 * 0..19 at most; bit 31 is not used because the module hands keys from
 * queue selection to the transmit probe with bit 31 as the flag
 * (xps_flow/key.h).
 */
static inline XNET_XPS_CONSTEXPR unsigned char xnet_xps_tag(unsigned int key)
{
	return (unsigned char)(key >> 23);
}

/* The entry for flow @tag just handed to the driver on @queue (< 4096). */
static inline XNET_XPS_CONSTEXPR unsigned long long
xnet_xps_pack(unsigned short queue, unsigned char tag, unsigned int head)
{
	return XNET_XPS_VALID |
	       (unsigned long long)(queue & (XNET_XPS_MAX_QUEUES - 1)) << XNET_XPS_QUEUE_SHIFT |
	       (unsigned long long)tag << XNET_XPS_TAG_SHIFT | head;
}

/* Its tag (meaningless for an empty entry). */
static inline XNET_XPS_CONSTEXPR unsigned char xnet_xps_tag_of(unsigned long long entry)
{
	return (unsigned char)(entry >> XNET_XPS_TAG_SHIFT);
}

/*
 * The entry after flow @tag's next packet went to the driver on @queue:
 * a hold in progress on that queue keeps its stamp (whichever of the
 * slot's flows began it: they move as one); any other queue starts afresh.
 */
static inline XNET_XPS_CONSTEXPR unsigned long long
xnet_xps_repack(unsigned long long old, unsigned short queue, unsigned char tag,
		unsigned int head)
{
	unsigned long long e = xnet_xps_pack(queue, tag, head);

	if (!((old ^ e) & XNET_XPS_QUEUE_BITS))
		e |= old & XNET_XPS_HOLD_BITS;
	return e;
}

/* Its queue, or -1 for an empty entry. */
static inline XNET_XPS_CONSTEXPR int xnet_xps_queue_of(unsigned long long entry)
{
	return entry & XNET_XPS_VALID ?
	       (int)((entry >> XNET_XPS_QUEUE_SHIFT) & (XNET_XPS_MAX_QUEUES - 1)) : -1;
}

/*
 * The decision's two outcomes that need nothing but the entry, inline for
 * the datapath (one call per packet less): XNET_XPS_NEW (no entry) or
 * XNET_XPS_SAME (the entry's queue is the proposed one, whichever flow of
 * the slot wrote it), both meaning "the proposed queue"; -1 when the flow
 * wants to change queues: then the caller reads the old queue's state and
 * calls xnet_xps_decide(). The first step of xnet::xps::decide(), which
 * calls it. A collision (xnet_xps_collided()) is the caller's to count.
 */
static inline XNET_XPS_CONSTEXPR int
xnet_xps_decide_fast(unsigned long long entry, unsigned short proposed)
{
	if (!(entry & XNET_XPS_VALID))
		return XNET_XPS_NEW;
	if (!((entry ^ xnet_xps_pack(proposed, 0, 0)) & XNET_XPS_QUEUE_BITS))
		return XNET_XPS_SAME;
	return -1;
}

/* Was @entry written by another flow than the one with tag @tag? */
static inline XNET_XPS_CONSTEXPR int
xnet_xps_collided(unsigned long long entry, unsigned char tag)
{
	return (entry & XNET_XPS_VALID) && xnet_xps_tag_of(entry) != tag;
}

/*
 * The tuple key of a packet that brings no hash of its own (see
 * Documentation/xps-flow.md), inline for the datapath (xnet::xps::key_v4()
 * and key_v6() in C++): IPv4 or IPv6 addresses, ports and protocol, hashed
 * with multiply-add-shift over 32-bit words (Thorup, "High Speed Hashing
 * for Integers and Strings", 2015): with 64-bit random multipliers and
 * offset, the high 32 bits of
 *     add + sum(mul[i] * word[i])   (mod 2^64)
 * are a strongly universal hash of the words: for any two different
 * tuples, the keys collide with probability ~2^-32 over the seed, whatever
 * the tuples are. A collision only holds two flows back together, never
 * reorders; the seed (random, drawn once) keeps others from choosing
 * colliding flows. One multiplication per word: ~4x cheaper than
 * jhash_3words().
 *
 * The sum is linear in the words, and flows that differ only in a grid of
 * ports (one client's connections to a few servers) land on a lattice of
 * slots: the table indexes with the low bits of the key, and for some
 * seeds most flows of such a grid shared a slot (80 % of 1M flows in a
 * 2^20 table for the worst of 201 seeds, make bench-scale). A finalizer,
 * xnet_xps_key_mix() (xor-shift, multiply, xor-shift: a bijection of the
 * 32 bits, so the key stays strongly universal), spreads every bit of the
 * sum into the low ones. About five instructions.
 *
 * Words: the addresses as 32-bit words in packet order (IPv4: 1 each,
 * IPv6: 4 each), the 32 bits of source and destination port as read from
 * the packet (network order), the protocol number. IPv4 and IPv6 have
 * their own offsets, so that keys of the two families collide no more
 * than others.
 */
struct xnet_xps_key_seed {
	unsigned long long mul[10];	/* saddr 0-3, daddr 4-7, ports 8, proto 9 */
	unsigned long long add4, add6;
};

static inline XNET_XPS_CONSTEXPR unsigned int xnet_xps_key_mix(unsigned int h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	return h ^ (h >> 13);
}

static inline XNET_XPS_CONSTEXPR unsigned int
xnet_xps_key_v4(const struct xnet_xps_key_seed *s, unsigned int saddr,
		unsigned int daddr, unsigned int ports, unsigned char proto)
{
	return xnet_xps_key_mix((unsigned int)((s->add4 + s->mul[0] * saddr +
						 s->mul[4] * daddr +
						 s->mul[8] * ports +
						 s->mul[9] * proto) >> 32));
}

/* @addr: the 8 words of saddr and daddr, consecutive as in the header. */
static inline XNET_XPS_CONSTEXPR unsigned int
xnet_xps_key_v6(const struct xnet_xps_key_seed *s, const unsigned int *addr,
		unsigned int ports, unsigned char proto)
{
	unsigned long long h = s->add6 + s->mul[8] * ports + s->mul[9] * proto;

	for (int i = 0; i < 8; i++)
		h += s->mul[i] * addr[i];
	return xnet_xps_key_mix((unsigned int)(h >> 32));
}

#ifdef __cplusplus
}
#endif

#endif /* XPS_FLOW_DECIDE_H */
