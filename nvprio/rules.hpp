/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-endpoint socket priority rules for NVMe/TCP (nvme_tcp_prio host,
 * nvmet_tcp_prio target).
 *
 *   rules := "" | rule ( ';' rule )*          at most kMaxRules, first match wins
 *   rule  := field ( ',' field )*             "prio" required, each key once
 *   field := "prio=" UINT32                   the SO_PRIORITY to set
 *          | "laddr=" PREFIX | "raddr=" PREFIX    local / remote address
 *          | "lport=" PORT   | "rport=" PORT      local / remote TCP port (1..65535)
 *          | KEY "=*"                          explicit wildcard (same as omitting)
 *   PREFIX := IPv4 or IPv6 address (IPv6 optionally in [ ]), optional /LEN
 *
 * One trailing newline is accepted. "Local" and "remote" are seen from the
 * socket: on the host raddr/rport are the target's address and port; on the
 * target laddr/lport are the listener's, raddr is the host's. Canonical text
 * (read back from the parameter) lists fields in the order laddr, lport,
 * raddr, rport, prio, omits wildcards, prints addresses canonically and a
 * prefix length only when it is not the full length.
 */
#ifndef NVPRIO_RULES_HPP
#define NVPRIO_RULES_HPP

#include <xnet/parse.hpp>
#include <xnet/types.hpp>

#include "inet.hpp"
#include "rules.h"

namespace xnet {
namespace prio {

constexpr usize kMaxRules = 32;
/* Longest canonical text: a page less the newline and the NUL. */
constexpr usize kMaxCanonical = parse::kMaxInput - 2;

enum Field : u8 {
	kLaddr = 1 << 0,
	kLport = 1 << 1,
	kRaddr = 1 << 2,
	kRport = 1 << 3,
	kPrio = 1 << 4,
};

struct Rule {
	inet::Prefix laddr;
	inet::Prefix raddr;
	u16 lport;
	u16 rport;
	u32 prio;
	u8 fields;	/* Field bits that constrain (prio is always set) */
};

/*
 * A socket as the matcher sees it: struct xnet_prio_endpoint of the C ABI
 * (rules.h), where the fields are, filled by the C glue.
 */
using Endpoint = xnet_prio_endpoint;

constexpr inet::Addr endpoint_addr(const unsigned char (&b)[16])
{
	inet::Addr a{};

	for (int i = 0; i < 16; i++)
		a.b[i] = b[i];
	return a;
}

struct RuleSet {
	Rule rules[kMaxRules];
	u32 count;

	/* Index of the first rule matching @ep, or -1. */
	constexpr int match(const Endpoint &ep) const
	{
		const inet::Addr laddr = endpoint_addr(ep.laddr);
		const inet::Addr raddr = endpoint_addr(ep.raddr);
		const bool no_remote = ep.flags & XNET_PRIO_EP_NO_REMOTE;

		for (u32 i = 0; i < count; i++) {
			const Rule &r = rules[i];

			if ((r.fields & (kRaddr | kRport)) && no_remote)
				continue;
			if ((r.fields & kLaddr) && !r.laddr.contains(laddr))
				continue;
			if ((r.fields & kRaddr) && !r.raddr.contains(raddr))
				continue;
			if ((r.fields & kLport) && r.lport != ep.lport)
				continue;
			if ((r.fields & kRport) && r.rport != ep.rport)
				continue;
			return static_cast<int>(i);
		}
		return -1;
	}
};

struct Key {
	const char *name;
	Field field;
};

constexpr Key kKeys[] = {
	{ "laddr", kLaddr }, { "lport", kLport }, { "raddr", kRaddr },
	{ "rport", kRport }, { "prio", kPrio },
};

/* Is @s[0..n) exactly @lit? @s may hold a NUL: never read past @lit's end. */
constexpr bool token_eq(const char *s, usize n, const char *lit)
{
	usize i = 0;

	for (; i < n; i++)
		if (lit[i] == '\0' || lit[i] != s[i])
			return false;
	return lit[i] == '\0';
}

/* Parse one "key=value" field of a rule; @seen tracks duplicate keys. */
constexpr parse::Result parse_field(const char *s, usize n, Rule *r, u8 *seen)
{
	usize eq = 0;

	while (eq < n && s[eq] != '=')
		eq++;
	if (eq == n)	/* not key=value */
		return { n ? Err::UnknownKey : Err::Empty, 0, n };

	const Key *key = nullptr;

	for (const Key &k : kKeys)
		if (token_eq(s, eq, k.name))
			key = &k;
	if (!key)
		return { Err::UnknownKey, 0, n };
	if (*seen & key->field)
		return { Err::Duplicate, 0, n };
	*seen |= key->field;

	const char *v = s + eq + 1;
	usize vn = n - eq - 1;

	if (vn == 1 && v[0] == '*' && key->field != kPrio)
		return { Err::Ok, 0, 0 };

	Err e = Err::Ok;

	switch (key->field) {
	case kLaddr:
	case kRaddr: {
		inet::Prefix p{};

		e = inet::parse_prefix(v, vn, &p);
		if (e == Err::Ok) {
			if (key->field == kLaddr)
				r->laddr = p;
			else
				r->raddr = p;
		}
		break;
	}
	case kLport:
	case kRport: {
		u16 port = 0;

		e = parse::parse_uint_token<u16>(v, vn, 1, 65535, &port).err;
		if (e == Err::Ok) {
			if (key->field == kLport)
				r->lport = port;
			else
				r->rport = port;
		}
		break;
	}
	case kPrio:
		e = parse::parse_uint_token<u32>(v, vn, 0, 0xffffffffu, &r->prio).err;
		break;
	}
	if (e != Err::Ok)
		return { e, 0, n };
	if (key->field != kPrio)
		r->fields |= key->field;
	return { Err::Ok, 0, 0 };
}

constexpr parse::Result parse_rule(const char *s, usize n, Rule *r)
{
	u8 seen = 0;
	usize start = 0;

	*r = Rule{};
	if (n == 0)
		return { Err::Empty, 0, 0 };
	for (;;) {
		usize end = start;

		while (end < n && s[end] != ',')
			end++;
		parse::Result fr = parse_field(s + start, end - start, r, &seen);

		if (!fr.ok()) {
			fr.pos = start;
			fr.len = end - start;
			return fr;
		}
		if (end == n)
			break;
		start = end + 1;
		if (start == n)
			return { Err::Empty, start, 0 };
	}
	if (!(seen & kPrio))
		return { Err::Missing, 0, n };	/* no prio= */
	if ((r->fields & kLaddr) && (r->fields & kRaddr) &&
	    r->laddr.is_v4() != r->raddr.is_v4())
		return { Err::Conflict, 0, n };	/* IPv4 with IPv6 */
	return { Err::Ok, 0, 0 };
}

constexpr void format_rule(inet::Writer &w, const Rule &r)
{
	bool first = true;
	auto sep = [&]() {
		if (!first)
			w.put(',');
		first = false;
	};

	if (r.fields & kLaddr) {
		sep();
		w.puts("laddr=");
		inet::format_prefix(w, r.laddr);
	}
	if (r.fields & kLport) {
		sep();
		w.puts("lport=");
		w.put_uint(r.lport);
	}
	if (r.fields & kRaddr) {
		sep();
		w.puts("raddr=");
		inet::format_prefix(w, r.raddr);
	}
	if (r.fields & kRport) {
		sep();
		w.puts("rport=");
		w.put_uint(r.rport);
	}
	sep();
	w.puts("prio=");
	w.put_uint(r.prio);
}

/* Canonical text of @set into @buf (NUL-terminated); returns the full length. */
constexpr usize format_rules(const RuleSet &set, char *buf, usize cap)
{
	inet::Writer w{ buf, cap, 0 };

	for (u32 i = 0; i < set.count; i++) {
		if (i)
			w.put(';');
		format_rule(w, set.rules[i]);
	}
	return w.finish();
}

/*
 * Parse a whole rules string into @out. On error @out is untouched and the
 * result names the offending field (or rule).
 */
constexpr parse::Result parse_rules(const char *s, usize n, RuleSet *out,
				    RuleSet *scratch)
{
	if (n > parse::kMaxInput)
		return { Err::TooLong, parse::kMaxInput, n - parse::kMaxInput };
	n = parse::strip_newline(s, n);
	scratch->count = 0;

	usize start = 0;

	while (n > 0) {
		usize end = start;

		while (end < n && s[end] != ';')
			end++;
		if (scratch->count == kMaxRules)
			return { Err::TooMany, start, end - start };

		parse::Result r = parse_rule(s + start, end - start,
					     &scratch->rules[scratch->count]);
		if (!r.ok()) {
			r.pos += start;
			return r;
		}
		scratch->count++;
		if (end == n)
			break;
		start = end + 1;
		if (start == n)
			return { Err::Empty, start, 0 };
	}
	/*
	 * The canonical text must fit where it is read back (a page with a
	 * newline): RFC 5952 can be longer than the spelling written.
	 */
	if (format_rules(*scratch, nullptr, 0) > kMaxCanonical)
		return { Err::TooLong, 0, n };
	*out = *scratch;
	return { Err::Ok, 0, 0 };
}

} /* namespace prio */
} /* namespace xnet */

#endif /* NVPRIO_RULES_HPP */
