// SPDX-License-Identifier: GPL-2.0
/*
 * The flow-steering decision behind its C ABI (decide.h): compiled into
 * xps_flow as decide.o, and into the userspace tests.
 */
#include "decide.h"
#include "decide.hpp"

static_assert(XNET_XPS_MAX_ENTRIES == xnet::xps::kMaxEntries, "bound");

extern "C" int xnet_xps_decide_timed(unsigned long long entry, unsigned short proposed,
				     unsigned short nqueues, unsigned int old_completed,
				     int old_state, unsigned short now, unsigned short limit,
				     unsigned short *queue, unsigned long long *store)
{
	auto d = xnet::xps::decide(entry, proposed, nqueues, [=](xnet::u16) {
		return xnet::xps::OldQueue{ old_completed,
					    (old_state & XNET_XPS_OLD_BACKLOG) != 0,
					    (old_state & XNET_XPS_OLD_OTHER_TC) != 0 };
	}, xnet::xps::HoldClock{ now, limit });

	*queue = d.queue;
	*store = d.store;
	return static_cast<int>(d.verdict);
}

extern "C" int xnet_xps_decide(unsigned long long entry, unsigned short proposed,
			       unsigned short nqueues, unsigned int old_completed,
			       int old_state, unsigned short *queue)
{
	unsigned long long store;

	return xnet_xps_decide_timed(entry, proposed, nqueues, old_completed,
				     old_state, 0, 0, queue, &store);
}

extern "C" int xnet_xps_busy(unsigned long long entry, unsigned int completed,
			     int backlog)
{
	return xnet::xps::valid(entry) &&
	       xnet::xps::busy(entry, xnet::xps::OldQueue{ completed, backlog != 0 });
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
	      same_queue_of(pack(0, 0)) && same_queue_of(pack(0xffff, 7)) &&
	      same_queue_of(pack(0x8000, 0xffffffffu)) &&
	      same_queue_of(~0ull), "xnet_xps_queue_of() is valid() ? queue_of() : -1");

} /* namespace abi_check */
} /* namespace xps */
} /* namespace xnet */
