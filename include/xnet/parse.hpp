/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounded, allocation-free parsing of the values that module parameters
 * and sysfs files accept.
 *
 * Grammar (strict on purpose, so that a typo is an error, not a surprise):
 *   uint  := DIGIT+                      decimal only, leading zeros allowed
 *   list  := "" | uint ( SEP uint )*     SEP chosen by the caller, e.g. ','
 * One trailing '\n' is accepted ("echo 3 > file" writes "3\n"). Rejected:
 * signs, spaces, empty items, hex/octal prefixes, values that overflow the
 * type or leave [min, max], junk after a value, more items than the caller
 * has room for, input longer than kMaxInput. On error nothing is written
 * to the output (lists are parsed into scratch first) and the result names
 * the offending token (the whole item) by position and length.
 */
#ifndef XNET_PARSE_HPP
#define XNET_PARSE_HPP

#include "types.hpp"

namespace xnet {
namespace parse {

/* Longest input accepted: one page, as sysfs hands to a store(). */
constexpr usize kMaxInput = 4096;
/* Longest list the list parser handles. */
constexpr usize kMaxItems = 64;

struct Result {
	Err err;
	usize pos;	/* offset of the offending token (or of the end) */
	usize len;	/* its length, 0 if none */

	constexpr bool ok() const { return err == Err::Ok; }
};

constexpr bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Length of @s[0..n) without one trailing newline. */
constexpr usize strip_newline(const char *s, usize n)
{
	return (n > 0 && s[n - 1] == '\n') ? n - 1 : n;
}

/*
 * Parse one unsigned decimal that spans exactly @s[0..n) (no newline
 * handling: callers strip it). @U is an unsigned integer type.
 */
template <typename U>
constexpr Result parse_uint_token(const char *s, usize n, U min, U max, U *out)
{
	static_assert(static_cast<U>(-1) > 0, "unsigned types only");
	if (n == 0)
		return { Err::Empty, 0, 0 };
	if (s[0] == '+' || s[0] == '-')
		return { Err::Sign, 0, n };

	U v = 0;
	usize i = 0;

	for (; i < n && is_digit(s[i]); i++) {
		U d = static_cast<U>(s[i] - '0');

		if (v > (static_cast<U>(-1) - d) / 10)
			return { Err::Overflow, 0, n };
		v = static_cast<U>(v * 10 + d);
	}
	if (i == 0)
		return { Err::Invalid, 0, n };
	if (i != n)
		return { Err::Trailing, 0, n };
	if (v < min || v > max)
		return { Err::Range, 0, n };
	*out = v;
	return { Err::Ok, 0, 0 };
}

/* Parse a whole input holding one value (one trailing '\n' allowed). */
template <typename U>
constexpr Result parse_uint(const char *s, usize n, U min, U max, U *out)
{
	if (n > kMaxInput)
		return { Err::TooLong, kMaxInput, n - kMaxInput };
	return parse_uint_token(s, strip_newline(s, n), min, max, out);
}

/*
 * Parse a @sep separated list into @out[0..cap); *count receives the
 * number of items. An empty input is an empty list. On error @out and
 * *count are left untouched.
 */
template <typename U>
constexpr Result parse_uint_list(const char *s, usize n, char sep, U min,
				 U max, U *out, usize cap, usize *count)
{
	if (n > kMaxInput)
		return { Err::TooLong, kMaxInput, n - kMaxInput };
	n = strip_newline(s, n);
	if (cap > kMaxItems)
		cap = kMaxItems;

	U tmp[kMaxItems] = {};
	usize items = 0;
	usize start = 0;

	while (n > 0) {
		usize end = start;

		while (end < n && s[end] != sep)
			end++;
		if (items == cap)
			return { Err::TooMany, start, end - start };

		Result r = parse_uint_token(s + start, end - start, min, max,
					    &tmp[items]);
		if (!r.ok()) {
			r.pos += start;
			if (r.err == Err::Empty)
				r.pos = start;
			return r;
		}
		items++;
		if (end == n)
			break;
		start = end + 1;
		if (start == n)	/* trailing separator: empty last item */
			return { Err::Empty, start, 0 };
	}
	for (usize i = 0; i < items; i++)
		out[i] = tmp[i];
	*count = items;
	return { Err::Ok, 0, 0 };
}

} /* namespace parse */
} /* namespace xnet */

#endif /* XNET_PARSE_HPP */
