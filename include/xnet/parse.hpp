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
 *
 * Named lists (parse_named_list(), below) are the net devices a module
 * parameter names, each with a value: name[:uint],...
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

/*
 * Whitespace as the kernel's isspace() says (lib/ctype.c, the same table
 * in 6.1 and 6.12): '\t' '\n' '\v' '\f' '\r' (9..13), ' ' and 0xa0 (the
 * Latin-1 no-break space). What strim() trims and dev_valid_name() refuses.
 */
constexpr bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') ||
	       static_cast<unsigned char>(c) == 0xa0;
}

/* The kernel's IFNAMSIZ: a device name and its NUL. */
constexpr usize kIfNameSize = XNET_IFNAMSIZ;

/*
 * Does the kernel's dev_valid_name() (net/core/dev.c) accept @s[0..n) as
 * a net device name? The function is the same in 6.1 and 6.12: not empty,
 * strnlen(name, IFNAMSIZ) < IFNAMSIZ (1..15 bytes), neither "." nor "..",
 * and no byte that is '/', ':' or isspace() (is_space()). Any other byte
 * is fine ('*', '%', bytes >= 0x80 but 0xa0). A NUL is refused too: the
 * kernel sees a C string, where it would end the name.
 */
constexpr bool dev_valid_name(const char *s, usize n)
{
	if (n == 0 || n >= kIfNameSize)
		return false;
	if (s[0] == '.' && (n == 1 || (n == 2 && s[1] == '.')))
		return false;
	for (usize i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || s[i] == '\0' || is_space(s[i]))
			return false;
	return true;
}

using Named = ::xnet_named;
using NamedSpec = ::xnet_named_spec;

namespace detail {

/* The end of the item that begins at @i: the next ',', else @e. */
constexpr usize item_end(const char *s, usize i, usize e)
{
	while (i < e && s[i] != ',')
		i++;
	return i;
}

/* The end of the name of the item @s[i..end): its first ':', else @end. */
constexpr usize name_end(const char *s, usize i, usize end)
{
	while (i < end && s[i] != ':')
		i++;
	return i;
}

constexpr bool same(const char *a, const char *b, usize n)
{
	for (usize i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * One pass over the items of the trimmed, non-empty @s[b..e): checks
 * every item, and with @out, writes them and *count (the second pass, of
 * a list the first found good). Duplicates are looked for in the input
 * itself: no scratch copy of the list on the (kernel) stack.
 */
constexpr Result named_items(const char *s, usize b, usize e,
			     const NamedSpec &spec, Named *out, usize cap,
			     usize *count)
{
	usize items = 0;

	for (usize start = b;; ) {
		usize end = item_end(s, start, e);
		usize ne = name_end(s, start, end);
		usize len = end - start;

		if (len == 0)
			return { Err::Empty, start, 0 };
		if (items == cap)
			return { Err::TooMany, start, len };
		if (ne - start == 1 && s[start] == '*') {
			if (!(spec.flags & XNET_NAMED_STAR))
				return { Err::BadName, start, len };
		} else if (!dev_valid_name(s + start, ne - start)) {
			return { Err::BadName, start, len };
		}

		u32 v = spec.def;

		if (ne != end) {
			Result r = parse_uint_token<u32>(s + ne + 1, end - ne - 1,
							 spec.min, spec.max, &v);
			if (!r.ok())
				return { r.err, start, len };
		}
		for (usize j = b; j < start; j = item_end(s, j, e) + 1) {
			usize je = name_end(s, j, item_end(s, j, e));

			if (je - j == ne - start && same(s + j, s + start, ne - start))
				return { Err::Duplicate, start, len };
		}
		if (out) {
			for (usize k = 0; k < kIfNameSize; k++)
				out[items].name[k] = start + k < ne ? s[start + k] : '\0';
			out[items].value = v;
		}
		items++;
		if (end == e)
			break;
		start = end + 1;	/* past a trailing ',', the empty item */
	}
	if (out)
		*count = items;
	return { Err::Ok, 0, 0 };
}

} /* namespace detail */

/*
 * A named list into @out[0..cap) (@cap clamped to kMaxItems), *count
 * receiving the number of items:
 *   named := "" | item ( "," item )*
 *   item  := name [ ":" uint ]
 * Whitespace (is_space()) around the whole input is ignored, as the
 * kernel's strim() ignores it (so a trailing '\n' too); an input of
 * nothing else is the empty list. Inside, none is: "a, b" and "a:1 ,b"
 * are refused. A name is what dev_valid_name() accepts, or "*" when
 * @spec.flags has XNET_NAMED_STAR (refused without). A name without a
 * value gets @spec.def; a value is a uint (decimal, leading zeros allowed)
 * in [@spec.min, @spec.max]. A name may appear once. Refused: input
 * longer than kMaxInput (TooLong, the excess named, whitespace counted),
 * else the first bad item (left to right), named whole by pos (in the
 * untrimmed input) and len, for the first of these reasons:
 *   Empty      an empty item (",,", a ',' first or last: len 0)
 *   TooMany    an item past @cap
 *   BadName    a name dev_valid_name() refuses (":5" too), or "*"
 *   Empty, Sign, Invalid, Trailing, Overflow, Range: its value, as
 *              parse_uint() judges it ("name:" is Empty, "a:1:2" Trailing)
 *   Duplicate  a name given before (the second is named)
 * On error nothing is written to @out or *count.
 */
constexpr Result parse_named_list(const char *s, usize n, const NamedSpec &spec,
				  Named *out, usize cap, usize *count)
{
	if (n > kMaxInput)
		return { Err::TooLong, kMaxInput, n - kMaxInput };

	usize b = 0;
	usize e = n;

	while (b < e && is_space(s[b]))
		b++;
	while (e > b && is_space(s[e - 1]))
		e--;
	if (b == e) {
		*count = 0;
		return { Err::Ok, 0, 0 };
	}
	if (cap > kMaxItems)
		cap = kMaxItems;

	Result r = detail::named_items(s, b, e, spec, nullptr, cap, nullptr);

	if (r.ok())
		detail::named_items(s, b, e, spec, out, cap, count);
	return r;
}

} /* namespace parse */
} /* namespace xnet */

#endif /* XNET_PARSE_HPP */
