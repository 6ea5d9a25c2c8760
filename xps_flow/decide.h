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
 * Decide the queue for a flow whose table entry is @entry, given the
 * queue XPS (or the driver) proposes, the number of real TX queues, and
 * the state of the entry's queue read by the caller (ignored unless the
 * flow wants to move): @old_completed, its BQL completion counter, and
 * @old_state, XNET_XPS_OLD_* flags: its qdisc holds packets, or it lies
 * outside the proposed queue's traffic class range. Returns the verdict,
 * the queue in *queue.
 */
#define XNET_XPS_OLD_BACKLOG	1	/* its qdisc holds packets */
#define XNET_XPS_OLD_OTHER_TC	2	/* not in the proposed queue's class */

int xnet_xps_decide(unsigned long long entry, unsigned short proposed,
		    unsigned short nqueues, unsigned int old_completed,
		    int old_state, unsigned short *queue);

/*
 * The same with holds bounded in time: @now is a coarse clock (the
 * module: jiffies), @limit the longest hold in its units (0: unbounded,
 * as xnet_xps_decide(); else below XNET_XPS_STAMP_MASK / 2). A hold that
 * starts stamps the entry: *store is then the entry to write back (if the
 * slot still holds @entry), else 0. A flow held @limit or longer goes to
 * the proposed queue (XNET_XPS_EXPIRED).
 */
int xnet_xps_decide_timed(unsigned long long entry, unsigned short proposed,
			  unsigned short nqueues, unsigned int old_completed,
			  int old_state, unsigned short now, unsigned short limit,
			  unsigned short *queue, unsigned long long *store);

/*
 * Is @entry's queue busy: its qdisc holds packets (@backlog non-zero) or
 * its completion counter @completed has not reached the entry's head?
 * (xnet::xps::busy()). An empty entry is never busy.
 */
int xnet_xps_busy(unsigned long long entry, unsigned int completed,
		  int backlog);

/*
 * Two entries landing in one slot of a resized table: the one to keep
 * (xnet::xps::carry()); *conflict set when both were busy on different
 * queues (one is lost).
 */
unsigned long long xnet_xps_carry(unsigned long long into, int into_busy,
				  unsigned long long from, int from_busy,
				  int *conflict);

/*
 * The entry layout, inline for the datapath (two calls per packet less):
 * bit 63 valid, bit 62 a timed hold is on, bits 48..61 when it began (the
 * caller's clock, 14 bits), bits 32..47 the queue, bits 0..31 head. The one
 * definition: the C++ core (decide.hpp, which C cannot include) builds
 * pack(), decide() and its tuple key on these (constexpr in C++ for that).
 */
#ifdef __cplusplus
#define XNET_XPS_CONSTEXPR constexpr
#else
#define XNET_XPS_CONSTEXPR
#endif

#define XNET_XPS_VALID		0x8000000000000000ull	/* bit 63 */
#define XNET_XPS_HOLDING	0x4000000000000000ull	/* bit 62 */
#define XNET_XPS_STAMP_SHIFT	48
#define XNET_XPS_STAMP_MASK	0x3fffu			/* bits 48..61 */
#define XNET_XPS_HOLD_BITS	(XNET_XPS_HOLDING | \
				 (unsigned long long)XNET_XPS_STAMP_MASK << XNET_XPS_STAMP_SHIFT)

/* The entry for a flow just handed to the driver on @queue. */
static inline XNET_XPS_CONSTEXPR unsigned long long
xnet_xps_pack(unsigned short queue, unsigned int head)
{
	return XNET_XPS_VALID | (unsigned long long)queue << 32 | head;
}

/*
 * The entry after the flow's next packet went to the driver on @queue:
 * a hold in progress on that queue keeps its stamp; any other queue
 * starts afresh.
 */
static inline XNET_XPS_CONSTEXPR unsigned long long
xnet_xps_repack(unsigned long long old, unsigned short queue, unsigned int head)
{
	unsigned long long e = xnet_xps_pack(queue, head);

	if ((old & XNET_XPS_VALID) && (unsigned short)(old >> 32) == queue)
		e |= old & XNET_XPS_HOLD_BITS;
	return e;
}

/* Its queue, or -1 for an empty entry. */
static inline XNET_XPS_CONSTEXPR int xnet_xps_queue_of(unsigned long long entry)
{
	return entry & XNET_XPS_VALID ? (int)(unsigned short)(entry >> 32) : -1;
}

/*
 * The decision's two outcomes that need nothing but the entry, inline for
 * the datapath (one call per packet less): XNET_XPS_NEW (no entry) or
 * XNET_XPS_SAME (the entry's queue is the proposed one), both meaning "the
 * proposed queue"; -1 when the flow wants to change queues: then the
 * caller reads the old queue's state and calls xnet_xps_decide(). The
 * first step of xnet::xps::decide(), which calls it.
 */
static inline XNET_XPS_CONSTEXPR int
xnet_xps_decide_fast(unsigned long long entry, unsigned short proposed)
{
	if (!(entry & XNET_XPS_VALID))
		return XNET_XPS_NEW;
	if ((unsigned short)(entry >> 32) == proposed)
		return XNET_XPS_SAME;
	return -1;
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
