/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page-frag pool: pages a socket's page_frag draws from, reused once the
 * stack has dropped every reference to them. Free of kernel types: a page
 * is an opaque pointer whose reference count Traits reads and raises.
 *
 * Reference bias, as drivers recycle RX pages: the pool holds `bias`
 * references on each of its pages (XNET_FRAG_BIAS when topped up). Handing
 * a page out gives one of them to the caller's page_frag, which drops it
 * with put_page() like any other; the stack takes and drops its own for
 * every frag. So a page is idle — nobody but the pool refers to it — exactly
 * when its count equals the pool's bias, and a page whose count is higher
 * is never handed out again. References only the pool holds cannot be
 * taken by anyone else, so an idle page stays idle until handed out.
 *
 * Layout (all state in frag_pool.h's C structs, locking by the caller):
 *  - slots: one per page, at most `cap` (the pool's bound);
 *  - ring: FIFO of pages handed out, oldest first (pool lock);
 *  - per-CPU caches: `ready` idle pages to hand out without the lock, and
 *    `retired` pages this CPU handed out, moved to the ring in batches.
 * A refill (pool lock) flushes the cache's retired pages and examines the
 * oldest pages on the ring: the first to have been handed out are the
 * likeliest to be idle (their data sent and acknowledged). Busy pages go
 * back to the tail, so one long-held page cannot block the others.
 */
#ifndef PP_FRAG_FRAG_POOL_HPP
#define PP_FRAG_FRAG_POOL_HPP

#include <xnet/types.hpp>
#include "frag_pool.h"

namespace xnet {
namespace frag {

using Slot = xnet_frag_slot;
using Cache = xnet_frag_cache;
using PoolState = xnet_frag_pool;

constexpr u32 kMaxPages = XNET_FRAG_MAX_PAGES;
constexpr u32 kCache = XNET_FRAG_CACHE;
constexpr u32 kScan = XNET_FRAG_SCAN;
constexpr u32 kBias = XNET_FRAG_BIAS;
constexpr u32 kNone = XNET_FRAG_NONE;
/* Top the bias up before handing out when it would fall below this. */
constexpr u32 kBiasLow = 2;

enum State : u8 {
	Unused = XNET_FRAG_UNUSED,
	Ready = XNET_FRAG_READY,
	Retired = XNET_FRAG_RETIRED,
	Flight = XNET_FRAG_FLIGHT,
};

/*
 * Traits:
 *   static u32 refs(void *page);            the page's reference count
 *   static void ref_add(void *page, u32 n); take n more references
 */
template <class Traits>
class Pool {
public:
	explicit Pool(PoolState &s) : s_(s) {}

	/* @slots: @cap zeroed slots. */
	static Err init(PoolState &s, Slot *slots, u32 cap)
	{
		if (!slots || cap == 0 || cap > kMaxPages)
			return Err::Range;
		s.slots = slots;
		s.cap = cap;
		s.pages = 0;
		s.ring_head = s.ring_tail = kNone;
		s.ring_len = 0;
		/* Unused list: every slot, in order. */
		for (u32 i = 0; i < cap; i++) {
			slots[i] = Slot{};
			slots[i].next = i + 1 < cap ? i + 1 : kNone;
		}
		s.unused = 0;
		return Err::Ok;
	}

	/* Pool lock. A new page (caller's one reference) becomes ready in @c. */
	u32 add(Cache &c, void *page, u32 order)
	{
		if (s_.unused == kNone || c.nready >= kCache || !page)
			return kNone;
		u32 i = s_.unused;
		Slot &sl = s_.slots[i];

		s_.unused = sl.next;
		Traits::ref_add(page, kBias - 1);
		sl.page = page;
		sl.dma = 0;
		sl.bias = kBias;
		sl.next = kNone;
		sl.order = static_cast<u8>(order);
		sl.state = Ready;
		s_.pages++;
		c.ready[c.nready++] = i;
		return i;
	}

	/* Pool lock. */
	void flush(Cache &c)
	{
		for (u32 k = 0; k < c.nretired; k++)
			push(c.retired[k]);
		c.nretired = 0;
	}

	/*
	 * Pool lock, and @c's owner excluded. Give all of @c's pages back to
	 * the ring (ready ones are idle: the shrinker then finds them).
	 */
	void drain(Cache &c)
	{
		flush(c);
		while (c.nready)
			push(c.ready[--c.nready]);
	}

	/*
	 * Pool lock. Returns the number of pages that became ready in @c.
	 * Each page on the ring is examined at most once: a busy page put
	 * back at the tail of a short ring must not be read kScan times.
	 */
	u32 refill(Cache &c)
	{
		u32 got = 0;

		flush(c);
		u32 scan = s_.ring_len < kScan ? s_.ring_len : kScan;

		for (u32 n = 0; n < scan && c.nready < kCache; n++) {
			u32 i = pop();
			Slot &sl = s_.slots[i];

			if (idle(sl)) {
				sl.state = Ready;
				c.ready[c.nready++] = i;
				got++;
			} else {
				push(i);
			}
		}
		return got;
	}

	/* Cache. Hand out a ready page: one pool reference becomes the caller's. */
	u32 take(Cache &c)
	{
		if (!c.nready || c.nretired >= kCache)
			return kNone;
		u32 i = c.ready[--c.nready];
		Slot &sl = s_.slots[i];

		if (sl.bias < kBiasLow + 1) {
			/* Only the pool refers to the page: the top-up is ours. */
			Traits::ref_add(sl.page, kBias - sl.bias);
			sl.bias = kBias;
		}
		sl.bias--;
		sl.state = Retired;
		c.retired[c.nretired++] = i;
		return i;
	}

	/* Pool lock. Detach up to @max idle pages from the ring into @out. */
	u32 shrink(u32 *out, u32 max)
	{
		u32 got = 0;

		for (u32 n = s_.ring_len; n && got < max; n--) {
			u32 i = pop();

			if (idle(s_.slots[i])) {
				s_.slots[i].state = Unused;	/* until forget() */
				out[got++] = i;
			} else {
				push(i);
			}
		}
		return got;
	}

	/* Pool lock. The caller released @i's page. */
	void forget(u32 i)
	{
		Slot &sl = s_.slots[i];

		sl = Slot{};
		sl.next = s_.unused;
		s_.unused = i;
		s_.pages--;
	}

	u32 in_flight() const { return s_.ring_len; }

	/* Idle: no reference but the pool's. */
	static bool idle(const Slot &sl) { return Traits::refs(sl.page) == sl.bias; }

private:
	void push(u32 i)
	{
		Slot &sl = s_.slots[i];

		sl.state = Flight;
		sl.next = kNone;
		if (s_.ring_tail == kNone)
			s_.ring_head = i;
		else
			s_.slots[s_.ring_tail].next = i;
		s_.ring_tail = i;
		s_.ring_len++;
	}

	u32 pop()
	{
		u32 i = s_.ring_head;

		s_.ring_head = s_.slots[i].next;
		if (s_.ring_head == kNone)
			s_.ring_tail = kNone;
		s_.slots[i].next = kNone;
		s_.ring_len--;
		return i;
	}

	PoolState &s_;
};

} /* namespace frag */
} /* namespace xnet */

#endif /* PP_FRAG_FRAG_POOL_HPP */
