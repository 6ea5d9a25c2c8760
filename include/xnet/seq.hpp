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

/*
 * Is @mark still pending on a counter pair: issued (@issued has passed
 * it) but not done (@done has not reached it), i.e. in the window
 * (@done, @issued]? Exact at any distance from the window, wrap included,
 * as long as @issued - @done is the true in-flight amount: a mark far in
 * the past (an idle flow while the queue carried 2 GiB of others' bytes)
 * or from before a reset of both counters lies outside the window instead
 * of looking like the future. A mark equal to @done is done.
 */
constexpr bool pending(u32 mark, u32 done, u32 issued)
{
	return mark != done && mark - done <= issued - done;
}

static_assert(before(0xffffffffu, 0u), "wrap");
static_assert(after(5u, 0xfffffff0u), "wrap");
static_assert(reached(7u, 7u) && !reached(6u, 7u), "reached");
static_assert(pending(8u, 7u, 8u) && !pending(7u, 7u, 8u) && !pending(9u, 7u, 8u) &&
	      pending(2u, 0xfffffff0u, 5u) && !pending(0x80000010u, 0x10u, 0x20u),
	      "pending");

} /* namespace seq */
} /* namespace xnet */

#endif /* XNET_SEQ_HPP */
