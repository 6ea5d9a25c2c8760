/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wrap-safe comparison of free-running 32-bit counters.
 *
 * BQL's dql.num_queued / dql.num_completed are byte counters that wrap at
 * 2^32. Two counter values are compared through their signed distance, as
 * the kernel's before()/after() do for TCP sequence numbers (RFC 1982): the
 * answer is right while the two values are less than 2^31 apart. At exactly
 * 2^31 apart the order is undefined; callers must keep the distance smaller
 * (a TX queue never has 2 GiB in flight).
 */
#ifndef XNET_SEQ_HPP
#define XNET_SEQ_HPP

#include "types.hpp"

namespace xnet {
namespace seq {

/* Signed distance from @from to @to: > 0 when @to is ahead. */
constexpr s32 diff(u32 to, u32 from)
{
	return static_cast<s32>(static_cast<u32>(to - from));
}

/* @a comes strictly before @b. */
constexpr bool before(u32 a, u32 b)
{
	return diff(a, b) < 0;
}

/* @a comes strictly after @b. */
constexpr bool after(u32 a, u32 b)
{
	return diff(a, b) > 0;
}

/*
 * Has the counter @now reached @mark (now >= mark)? For BQL: has the
 * completion counter passed the enqueue count recorded for a flow.
 */
constexpr bool reached(u32 now, u32 mark)
{
	return diff(now, mark) >= 0;
}

static_assert(before(0xffffffffu, 0u), "wrap");
static_assert(after(5u, 0xfffffff0u), "wrap");
static_assert(reached(7u, 7u) && !reached(6u, 7u), "reached");

} /* namespace seq */
} /* namespace xnet */

#endif /* XNET_SEQ_HPP */
