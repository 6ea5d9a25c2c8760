// SPDX-License-Identifier: GPL-2.0
/*
 * The flow-steering decision behind its C ABI (decide.h): compiled into
 * xps_flow as decide.o, and into the userspace tests.
 */
#include "decide.h"
#include "decide.hpp"

static_assert(XNET_XPS_MAX_ENTRIES == xnet::xps::kMaxEntries, "bound");

extern "C" int xnet_xps_decide_timed(unsigned long long entry, unsigned char tag,
				     unsigned short proposed, unsigned short nqueues,
				     unsigned int old_completed, unsigned int old_queued,
				     int old_state, unsigned short now, unsigned short limit,
				     unsigned short *queue, unsigned long long *store)
{
	auto d = xnet::xps::decide(entry, proposed, nqueues, [=](xnet::u16) {
		return xnet::xps::OldQueue{ old_completed, old_queued,
					    (old_state & XNET_XPS_OLD_BACKLOG) != 0,
					    (old_state & XNET_XPS_OLD_OTHER_TC) != 0 };
	}, xnet::xps::HoldClock{ now, limit }, tag);

	*queue = d.queue;
	*store = d.store;
	return static_cast<int>(d.verdict) | (d.collision ? XNET_XPS_COLLIDED : 0);
}

extern "C" int xnet_xps_decide(unsigned long long entry, unsigned char tag,
			       unsigned short proposed, unsigned short nqueues,
			       unsigned int old_completed, unsigned int old_queued,
			       int old_state, unsigned short *queue)
{
	unsigned long long store;

	return xnet_xps_decide_timed(entry, tag, proposed, nqueues, old_completed,
				     old_queued, old_state, 0, 0, queue, &store);
}

extern "C" int xnet_xps_busy(unsigned long long entry, unsigned int completed,
			     unsigned int queued, int backlog)
{
	return xnet::xps::valid(entry) &&
	       xnet::xps::busy(entry, xnet::xps::OldQueue{ completed, queued, backlog != 0 });
}

extern "C" void xnet_xps_drain_sample(struct xnet_xps_drain *d, unsigned long long now,
				      unsigned int completed, unsigned int inflight)
{
	*d = xnet::xps::drain_sample(*d, now, completed, inflight);
}

extern "C" unsigned short xnet_xps_hold_limit(unsigned short cap, unsigned int tick_shift,
					      unsigned int drains, unsigned int ns_per_kib,
					      unsigned int inflight)
{
	return xnet::xps::hold_limit(cap, tick_shift, drains, ns_per_kib, inflight);
}

extern "C" unsigned long long xnet_xps_carry(unsigned long long into, int into_busy,
					     unsigned long long from, int from_busy,
					     int *conflict)
{
	auto c = xnet::xps::carry(into, into_busy != 0, from, from_busy != 0);

	*conflict = c.conflict;
	return c.entry;
}

/* queue_of() of decide.h (-1 when empty) and of the C++ core agree. */
namespace xnet {
namespace xps {
namespace abi_check {

constexpr bool same_queue_of(u64 e)
{
	return xnet_xps_queue_of(e) == (valid(e) ? queue_of(e) : -1);
}

static_assert(same_queue_of(0) && same_queue_of(kValid - 1) &&
	      same_queue_of(pack(0, 0)) && same_queue_of(pack(kMaxQueues - 1, 7, 0xff)) &&
	      same_queue_of(pack(0x800, 0xffffffffu, 3)) &&
	      same_queue_of(~0ull), "xnet_xps_queue_of() is valid() ? queue_of() : -1");

/* The fields do not overlap, and fill the word. */
static_assert((XNET_XPS_OWNER_BITS & XNET_XPS_HOLD_BITS) == 0 &&
	      (XNET_XPS_OWNER_BITS | XNET_XPS_HOLD_BITS | 0xffffffffull) == ~0ull &&
	      (XNET_XPS_OWNER_BITS & 0xffffffffull) == 0 &&
	      queue_of(pack(4095, 1, 0xff)) == 4095 && tag_of(pack(4095, 1, 0xff)) == 0xff &&
	      head_of(pack(4095, 0xfeedf00du, 0xff)) == 0xfeedf00du, "entry layout");
static_assert(static_cast<int>(Verdict::Expired) < XNET_XPS_VERDICT_MASK &&
	      (XNET_XPS_COLLIDED & XNET_XPS_VERDICT_MASK) == 0, "verdict bits");
static_assert(XNET_XPS_HOLD_LIMIT_MAX < (XNET_XPS_STAMP_MASK + 1) / 2, "hold wrap");

} /* namespace abi_check */
} /* namespace xps */
} /* namespace xnet */
