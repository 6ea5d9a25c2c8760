/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Power-of-two sizing with a hard bound, for hash tables indexed with a
 * mask (hash & (size - 1)).
 */
#ifndef XNET_POW2_HPP
#define XNET_POW2_HPP

#include "types.hpp"

namespace xnet {
namespace pow2 {

/* Largest power of two a u32 holds. */
constexpr u32 kMax = 1u << 31;

constexpr bool is_pow2(u32 n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* Smallest power of two >= @n, for 1 <= n <= kMax; 0 otherwise. */
constexpr u32 roundup(u32 n)
{
	if (n == 0 || n > kMax)
		return 0;
	u32 v = n - 1;

	v |= v >> 1;
	v |= v >> 2;
	v |= v >> 4;
	v |= v >> 8;
	v |= v >> 16;
	return v + 1;
}

/*
 * Table size for a request of @req entries with at most @max entries
 * (@max must be a power of two): 0 stays 0 ("off"), anything else is
 * rounded up to a power of two. A request above @max is refused with
 * Err::Range rather than clamped, so that a user sees the bound.
 */
constexpr Err table_size(u32 req, u32 max, u32 *out)
{
	if (!is_pow2(max))
		return Err::Invalid;
	if (req > max)
		return Err::Range;
	*out = req ? roundup(req) : 0;
	return Err::Ok;
}

static_assert(roundup(1) == 1 && roundup(3) == 4 && roundup(4) == 4, "roundup");
static_assert(roundup(kMax) == kMax && roundup(kMax + 1) == 0, "roundup bound");

} /* namespace pow2 */
} /* namespace xnet */

#endif /* XNET_POW2_HPP */
