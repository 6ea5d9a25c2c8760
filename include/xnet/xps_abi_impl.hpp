/* SPDX-License-Identifier: GPL-2.0 */
/* Definitions of xps_abi.h: include from exactly one .cpp of a module. */
#ifndef XNET_XPS_ABI_IMPL_HPP
#define XNET_XPS_ABI_IMPL_HPP

#include "xps_abi.h"
#include "xps_flow.hpp"

static_assert(XNET_XPS_MAX_ENTRIES == xnet::xps::kMaxEntries, "bound");
static_assert(static_cast<int>(xnet::xps::Verdict::Stale) == XNET_XPS_STALE,
	      "Verdict mirrors xnet_xps_verdict");

extern "C" int xnet_xps_decide(unsigned long long entry, unsigned short proposed,
			       unsigned short nqueues, unsigned int old_completed,
			       int old_backlog, unsigned short *queue)
{
	auto d = xnet::xps::decide(entry, proposed, nqueues, [=](xnet::u16) {
		return xnet::xps::OldQueue{ old_completed, old_backlog != 0 };
	});

	*queue = d.queue;
	return static_cast<int>(d.verdict);
}

extern "C" unsigned long long xnet_xps_pack(unsigned short queue, unsigned int head)
{
	return xnet::xps::pack(queue, head);
}

extern "C" int xnet_xps_queue_of(unsigned long long entry)
{
	return xnet::xps::valid(entry) ? xnet::xps::queue_of(entry) : -1;
}

#endif /* XNET_XPS_ABI_IMPL_HPP */
