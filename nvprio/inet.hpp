/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPv4/IPv6 addresses and prefixes: strict text parsing, canonical text
 * (dotted quad; RFC 5952 for IPv6), prefix matching. Bounded and
 * allocation-free, like parse.hpp.
 *
 * An IPv4 address is stored as an IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d), so one 16-byte form covers both families, and an IPv6
 * socket that carries IPv4 traffic (dual-stack listener) matches IPv4
 * prefixes.
 */
#ifndef NVPRIO_INET_HPP
#define NVPRIO_INET_HPP

#include <xnet/parse.hpp>
#include <xnet/types.hpp>

namespace xnet {
namespace inet {

struct Addr {
	u8 b[16];

	constexpr bool is_v4() const
	{
		for (int i = 0; i < 10; i++)
			if (b[i])
				return false;
		return b[10] == 0xff && b[11] == 0xff;
	}

	constexpr bool operator==(const Addr &o) const
	{
		for (int i = 0; i < 16; i++)
			if (b[i] != o.b[i])
				return false;
		return true;
	}
};

constexpr Addr v4(u8 a, u8 b, u8 c, u8 d)
{
	return Addr{ { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d } };
}

/* An address with a prefix length in the address's own family (0..32 or 0..128). */
struct Prefix {
	Addr addr;
	u8 len;

	constexpr bool is_v4() const { return addr.is_v4(); }
	constexpr u8 max_len() const { return is_v4() ? 32 : 128; }
	/* Prefix length counted over the 128-bit mapped form. */
	constexpr u32 bits128() const { return is_v4() ? 96u + len : len; }

	/* Does @a fall inside this prefix (same family)? */
	constexpr bool contains(const Addr &a) const
	{
		if (a.is_v4() != is_v4())
			return false;
		u32 bits = bits128();

		for (u32 i = 0; i < 16 && bits > 0; i++) {
			u8 mask = bits >= 8 ? 0xff : static_cast<u8>(0xff << (8 - bits));

			if ((a.b[i] & mask) != (addr.b[i] & mask))
				return false;
			bits = bits >= 8 ? bits - 8 : 0;
		}
		return true;
	}

	/* No address bits set beyond the prefix length. */
	constexpr bool host_bits_clear() const
	{
		u32 bits = bits128();

		for (u32 i = 0; i < 16; i++) {
			u8 keep = bits >= 8 ? 0xff : static_cast<u8>(0xff << (8 - bits));

			if (bits < 8 && (addr.b[i] & static_cast<u8>(~keep)))
				return false;
			bits = bits >= 8 ? bits - 8 : 0;
		}
		return true;
	}
};

constexpr int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Dotted quad, exactly four decimal parts 0..255, no leading zeros ("01"). */
constexpr bool parse_v4(const char *s, usize n, u8 out[4])
{
	usize i = 0;

	for (int part = 0; part < 4; part++) {
		usize start = i;
		u32 v = 0;

		while (i < n && parse::is_digit(s[i]) && i - start < 3)
			v = v * 10 + static_cast<u32>(s[i++] - '0');
		if (i == start || v > 255 || (i - start > 1 && s[start] == '0'))
			return false;
		out[part] = static_cast<u8>(v);
		if (part < 3) {
			if (i >= n || s[i] != '.')
				return false;
			i++;
		}
	}
	return i == n;
}

/* RFC 4291 text form, including "::" and a trailing dotted quad. */
constexpr bool parse_v6(const char *s, usize n, Addr *out)
{
	u16 words[8] = {};
	int count = 0, gap = -1;
	usize i = 0;

	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		i = 2;
		if (i == n) {
			*out = Addr{};
			return true;
		}
	} else if (n > 0 && s[0] == ':') {
		return false;
	}
	while (i < n) {
		if (count == 8)
			return false;
		/* A dotted quad may end the address (::ffff:1.2.3.4). */
		usize end = i;

		while (end < n && s[end] != ':')
			end++;
		bool dotted = false;

		for (usize k = i; k < end; k++)
			if (s[k] == '.')
				dotted = true;
		if (dotted) {
			u8 q[4] = {};

			if (end != n || count > 6 || !parse_v4(s + i, end - i, q))
				return false;
			words[count++] = static_cast<u16>(q[0] << 8 | q[1]);
			words[count++] = static_cast<u16>(q[2] << 8 | q[3]);
			i = n;
			break;
		}
		u32 v = 0;
		usize digits = 0;

		while (i < n && hexval(s[i]) >= 0 && digits < 4) {
			v = v << 4 | static_cast<u32>(hexval(s[i++]));
			digits++;
		}
		if (digits == 0 || (i < n && s[i] != ':'))
			return false;
		words[count++] = static_cast<u16>(v);
		if (i == n)
			break;
		i++;	/* ':' */
		if (i < n && s[i] == ':') {
			if (gap >= 0)
				return false;	/* two "::" */
			gap = count;
			i++;
		} else if (i == n) {
			return false;		/* trailing single ':' */
		}
	}
	if (gap < 0 && count != 8)
		return false;
	if (gap >= 0 && count == 8)
		return false;	/* "::" must stand for at least one word */

	u16 full[8] = {};
	int tail = gap >= 0 ? count - gap : 0;

	for (int k = 0; k < (gap >= 0 ? gap : count); k++)
		full[k] = words[k];
	for (int k = 0; k < tail; k++)
		full[8 - tail + k] = words[gap + k];
	for (int k = 0; k < 8; k++) {
		out->b[2 * k] = static_cast<u8>(full[k] >> 8);
		out->b[2 * k + 1] = static_cast<u8>(full[k]);
	}
	return true;
}

/*
 * ADDR or ADDR/LEN, IPv6 optionally in brackets ("[fd00::1]/64" or
 * "[fd00::1/64]" are both refused: brackets hold only the address).
 * A prefix with host bits set is refused (as ip-route does). Without
 * /LEN the prefix is the full address.
 */
constexpr Err parse_prefix(const char *s, usize n, Prefix *out)
{
	usize slash = n;

	for (usize i = 0; i < n; i++)
		if (s[i] == '/') {
			slash = i;
			break;
		}
	const char *a = s;
	usize an = slash;

	if (an >= 2 && a[0] == '[' && a[an - 1] == ']') {
		a++;
		an -= 2;
	}
	if (an == 0)
		return Err::Empty;

	Prefix p{};
	u8 q[4] = {};

	if (parse_v4(a, an, q)) {
		p.addr = v4(q[0], q[1], q[2], q[3]);
		if (a != s)
			return Err::Invalid;	/* [1.2.3.4] */
	} else if (!parse_v6(a, an, &p.addr)) {
		return Err::Invalid;
	}
	p.len = p.max_len();
	if (slash < n) {
		u8 len = 0;
		parse::Result r = parse::parse_uint_token<u8>(s + slash + 1, n - slash - 1,
							      0, p.max_len(), &len);
		if (!r.ok())
			return r.err;
		p.len = len;
	}
	if (!p.host_bits_clear())
		return Err::HostBits;
	*out = p;
	return Err::Ok;
}

/* A bounded writer for canonical text. Never overruns; counts what it skipped. */
struct Writer {
	char *buf;
	usize cap;
	usize len;	/* bytes that would have been written */

	constexpr void put(char c)
	{
		if (len + 1 < cap)
			buf[len] = c;
		len++;
	}
	constexpr void puts(const char *s)
	{
		while (*s)
			put(*s++);
	}
	constexpr void put_uint(u64 v)
	{
		char tmp[20] = {};
		int k = 0;

		do {
			tmp[k++] = static_cast<char>('0' + v % 10);
			v /= 10;
		} while (v);
		while (k)
			put(tmp[--k]);
	}
	constexpr void put_hex16(u16 v)
	{
		const char *hex = "0123456789abcdef";
		bool started = false;

		for (int shift = 12; shift >= 0; shift -= 4) {
			u16 d = (v >> shift) & 0xf;

			if (d || started || shift == 0) {
				put(hex[d]);
				started = true;
			}
		}
	}
	/* NUL-terminate (truncating if needed); returns the untruncated length. */
	constexpr usize finish()
	{
		if (cap)
			buf[len < cap ? len : cap - 1] = '\0';
		return len;
	}
};

/* Canonical text: a.b.c.d, or RFC 5952 (lowercase, longest zero run as "::"). */
constexpr void format_addr(Writer &w, const Addr &a)
{
	if (a.is_v4()) {
		for (int i = 12; i < 16; i++) {
			if (i > 12)
				w.put('.');
			w.put_uint(a.b[i]);
		}
		return;
	}
	u16 words[8] = {};

	for (int k = 0; k < 8; k++)
		words[k] = static_cast<u16>(a.b[2 * k] << 8 | a.b[2 * k + 1]);
	/* Longest run of >= 2 zero words, first one on ties (RFC 5952 4.2). */
	int best = -1, best_len = 1;

	for (int k = 0; k < 8;) {
		if (words[k]) {
			k++;
			continue;
		}
		int j = k;

		while (j < 8 && !words[j])
			j++;
		if (j - k > best_len) {
			best = k;
			best_len = j - k;
		}
		k = j;
	}
	for (int k = 0; k < 8; k++) {
		if (k == best) {
			w.puts("::");
			k += best_len - 1;
			continue;
		}
		if (k > 0 && k != best + best_len)
			w.put(':');
		w.put_hex16(words[k]);
	}
}

constexpr void format_prefix(Writer &w, const Prefix &p)
{
	format_addr(w, p.addr);
	if (p.len != p.max_len()) {
		w.put('/');
		w.put_uint(p.len);
	}
}

} /* namespace inet */
} /* namespace xnet */

#endif /* NVPRIO_INET_HPP */
