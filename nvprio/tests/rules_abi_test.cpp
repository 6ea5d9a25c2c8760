// SPDX-License-Identifier: GPL-2.0
// The rules' C ABI, as nvme_tcp_prio/nvmet_tcp_prio call it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <nvprio/rules.h>
#include <xnet/abi.h>

namespace {

xnet_prio_endpoint ep4(unsigned char l3, unsigned short lport, unsigned char r3,
		       unsigned short rport)
{
	xnet_prio_endpoint e{};

	e.laddr[10] = e.laddr[11] = 0xff;
	e.laddr[12] = 10;
	e.laddr[15] = l3;
	e.raddr[10] = e.raddr[11] = 0xff;
	e.raddr[12] = 10;
	e.raddr[15] = r3;
	e.lport = lport;
	e.rport = rport;
	return e;
}

} // namespace

TEST(PrioAbi, ParseMatchFormatFree)
{
	const char *s = "raddr=10.0.0.1,rport=4420,prio=3;prio=0\n";
	xnet_prio_rules *r = nullptr;
	xnet_parse_res res{};
	unsigned int prio = 77;
	char buf[128];

	ASSERT_EQ(xnet_prio_rules_parse(s, std::strlen(s), &r, &res), XNET_OK);
	ASSERT_NE(r, nullptr);
	EXPECT_EQ(xnet_prio_rules_count(r), 2u);

	auto e = ep4(2, 40000, 1, 4420);
	EXPECT_EQ(xnet_prio_rules_match(r, &e, &prio), 0);
	EXPECT_EQ(prio, 3u);
	e = ep4(2, 40000, 1, 4421);
	EXPECT_EQ(xnet_prio_rules_match(r, &e, &prio), 1);
	EXPECT_EQ(prio, 0u);

	EXPECT_EQ(xnet_prio_rules_format(r, buf, sizeof(buf)),
		  std::strlen("raddr=10.0.0.1,rport=4420,prio=3;prio=0"));
	EXPECT_STREQ(buf, "raddr=10.0.0.1,rport=4420,prio=3;prio=0");
	xnet_prio_rules_free(r);
}

TEST(PrioAbi, EmptyIsNull)
{
	xnet_prio_rules *r = reinterpret_cast<xnet_prio_rules *>(0x1);
	unsigned int prio = 5;
	char buf[4] = "xyz";
	auto e = ep4(1, 1, 2, 2);

	ASSERT_EQ(xnet_prio_rules_parse("\n", 1, &r, nullptr), XNET_OK);
	EXPECT_EQ(r, nullptr);
	EXPECT_EQ(xnet_prio_rules_match(nullptr, &e, &prio), -1);
	EXPECT_EQ(prio, 5u);
	EXPECT_EQ(xnet_prio_rules_count(nullptr), 0u);
	EXPECT_EQ(xnet_prio_rules_format(nullptr, buf, sizeof(buf)), 0u);
	EXPECT_STREQ(buf, "");
}

TEST(PrioAbi, ErrorLeavesOutputAndNamesToken)
{
	xnet_prio_rules *r = reinterpret_cast<xnet_prio_rules *>(0x1);
	xnet_parse_res res{};
	std::string s = "prio=1;raddr=10.0.0.0/33,prio=2";

	EXPECT_EQ(xnet_prio_rules_parse(s.data(), s.size(), &r, &res), XNET_E_RANGE);
	EXPECT_EQ(r, reinterpret_cast<xnet_prio_rules *>(0x1));
	EXPECT_EQ(s.substr(res.pos, res.len), "raddr=10.0.0.0/33");
}

// The tables and limits below ran in KUnit too (nvme_tcp_prio_rules) until
// 2026-12-07; they are pure logic, so they run here only, through the same
// C ABI, with the same checks. KUnit keeps one case per ABI function, the
// kernel allocator and its failure (nvprio/tests/nvme_tcp_prio_rules_test.c).
namespace {

#define UNTOUCHED 0xdeadbeefu
// What *out holds before a parse that must not write it.
xnet_prio_rules *const SENTINEL = reinterpret_cast<xnet_prio_rules *>(0x5a5a5a5aUL);
#define PRIO_MAX_RULES 32
#define PRIO_MAX_INPUT 4096
#define TEXT_MAX 512

// Addresses as 8 16-bit words, IPv4 as ::ffff:a.b.c.d, turned into the 16
// bytes (network byte order) that the ABI carries by endpoint().
#define V4(a, b, c, d)	{ 0, 0, 0, 0, 0, 0xffff, (a) << 8 | (b), (c) << 8 | (d) }
#define V6(a, b, c, d, e, f, g, h)	{ a, b, c, d, e, f, g, h }

struct ep_words {
	unsigned short laddr[8], raddr[8];
	unsigned short lport, rport;
	unsigned int flags;
};

void to_bytes(unsigned char *out, const unsigned short *w)
{
	for (unsigned int i = 0; i < 8; i++) {
		out[2 * i] = w[i] >> 8;
		out[2 * i + 1] = w[i] & 0xff;
	}
}

xnet_prio_endpoint endpoint(const ep_words &e)
{
	xnet_prio_endpoint ep;

	std::memset(&ep, 0, sizeof(ep));
	to_bytes(ep.laddr, e.laddr);
	to_bytes(ep.raddr, e.raddr);
	ep.lport = e.lport;
	ep.rport = e.rport;
	ep.flags = e.flags;
	return ep;
}

// 10.1.1.1:50000 -> 10.2.2.2:4420
const ep_words ep_default = {
	V4(10, 1, 1, 1), V4(10, 2, 2, 2), 50000, 4420, 0,
};

// Rule sets parsed in a test, freed when it ends.
struct Owned {
	std::vector<xnet_prio_rules *> sets;

	~Owned()
	{
		for (auto *r : sets)
			xnet_prio_rules_free(r);
	}

	// Parse s[0..n), which must succeed.
	xnet_prio_rules *parse(const char *s, size_t n)
	{
		xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
		xnet_prio_rules *rules = SENTINEL;
		int err = xnet_prio_rules_parse(s, n, &rules, &res);

		if (err == XNET_OK)
			sets.push_back(rules);
		EXPECT_EQ(err, XNET_OK) << xnet_err_str(err) << " at " << res.pos << "+" << res.len;
		EXPECT_EQ(res.err, XNET_OK);
		EXPECT_EQ(res.pos, 0u);
		EXPECT_EQ(res.len, 0u);
		EXPECT_NE(rules, SENTINEL);
		return err == XNET_OK ? rules : nullptr;
	}

	xnet_prio_rules *parse(const char *s) { return parse(s, std::strlen(s)); }
};

// Canonical text of rules.
std::string format(const xnet_prio_rules *rules)
{
	std::vector<char> buf(2 * PRIO_MAX_INPUT);
	unsigned long n = xnet_prio_rules_format(rules, buf.data(), buf.size());

	EXPECT_EQ(n, std::strlen(buf.data()));
	return buf.data();
}

std::string show(const char *s, size_t n)
{
	std::string o;

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = s[i];

		if (ch >= 0x20 && ch < 0x7f) {
			o += static_cast<char>(ch);
		} else {
			char esc[8];

			std::snprintf(esc, sizeof(esc), "\\x%02x", ch);
			o += esc;
		}
	}
	return o;
}

// Valid rules and their canonical read-back.

struct valid_case {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	unsigned int count;
	const char *canon;	/* nullptr: the input */
};

#define VALID(s, n, c)		{ s, 0, n, c }
#define SAME(s, n)		{ s, 0, n, nullptr }	/* canonical already */

const valid_case valid_cases[] = {
	/* Empty: no rules. */
	VALID("", 0, ""),
	VALID("\n", 0, ""),
	/* prio alone matches every socket. */
	SAME("prio=0", 1),
	SAME("prio=4294967295", 1),
	VALID("prio=3\n", 1, "prio=3"),
	VALID("prio=007", 1, "prio=7"),
	/* The length bounds the input, not a NUL. */
	{ "prio=12", 6, 1, "prio=1" },
	{ "prio=1;prio=2", 6, 1, "prio=1" },
	/* Canonical field order: laddr, lport, raddr, rport, prio. */
	VALID("prio=3,raddr=10.0.0.0/8", 1, "raddr=10.0.0.0/8,prio=3"),
	VALID("prio=1,rport=65535,raddr=1.2.3.4,lport=1,laddr=5.6.7.8", 1,
	      "laddr=5.6.7.8,lport=1,raddr=1.2.3.4,rport=65535,prio=1"),
	SAME("laddr=10.0.0.1,lport=4420,prio=5;raddr=10.9.0.0/16,prio=2;prio=1", 3),
	SAME("prio=1;prio=1", 2),
	/* Ports 1..65535, leading zeros dropped. */
	VALID("lport=00001,rport=65535,prio=0", 1, "lport=1,rport=65535,prio=0"),
	/* IPv4 prefixes: /0 and /32 (full length, not printed). */
	SAME("raddr=0.0.0.0/0,prio=1", 1),
	SAME("raddr=128.0.0.0/1,prio=1", 1),
	VALID("raddr=10.0.0.1/32,prio=1", 1, "raddr=10.0.0.1,prio=1"),
	SAME("raddr=255.255.255.255,prio=1", 1),
	SAME("raddr=10.0.0.0/31,prio=1", 1),
	VALID("raddr=10.0.0.0/008,prio=1", 1, "raddr=10.0.0.0/8,prio=1"),
	/* IPv6 prefixes: /0, /128, RFC 5952 text. */
	SAME("raddr=::/0,prio=1", 1),
	VALID("raddr=0:0:0:0:0:0:0:0/0,prio=1", 1, "raddr=::/0,prio=1"),
	VALID("raddr=fd00::1/128,prio=1", 1, "raddr=fd00::1,prio=1"),
	SAME("laddr=ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127,prio=1", 1),
	SAME("raddr=8000::/1,prio=1", 1),
	VALID("raddr=FE80::ABCD,prio=1", 1, "raddr=fe80::abcd,prio=1"),
	VALID("raddr=2001:db8:0:0:1:0:0:1,prio=1", 1,
	      "raddr=2001:db8::1:0:0:1,prio=1"),
	VALID("raddr=2001:0db8::0/32,rport=08009,prio=007", 1,
	      "raddr=2001:db8::/32,rport=8009,prio=7"),
	VALID("raddr=64:ff9b::1.2.3.4,prio=1", 1, "raddr=64:ff9b::102:304,prio=1"),
	/* Brackets around an IPv6 address, not around the prefix length. */
	VALID("rport=4420,raddr=[FD00::0001],lport=*,prio=0", 1,
	      "raddr=fd00::1,rport=4420,prio=0"),
	VALID("raddr=[fd00::]/64,prio=1", 1, "raddr=fd00::/64,prio=1"),
	VALID("laddr=[::1],prio=1", 1, "laddr=::1,prio=1"),
	/* IPv4-mapped IPv6 is IPv4, with IPv4 prefix lengths. */
	VALID("raddr=::ffff:10.1.2.3,prio=1", 1, "raddr=10.1.2.3,prio=1"),
	VALID("raddr=[::ffff:a01:203],prio=1", 1, "raddr=10.1.2.3,prio=1"),
	VALID("raddr=::ffff:10.0.0.0/8,prio=1", 1, "raddr=10.0.0.0/8,prio=1"),
	VALID("laddr=::ffff:1.2.3.4,raddr=10.0.0.0/8,prio=1", 1,
	      "laddr=1.2.3.4,raddr=10.0.0.0/8,prio=1"),
	/* Wildcards are the same as omitting the key. */
	VALID("laddr=*,lport=*,raddr=*,rport=*,prio=9", 1, "prio=9"),
	VALID("laddr=10.0.0.1,raddr=*,prio=1", 1, "laddr=10.0.0.1,prio=1"),
	VALID("laddr=*,raddr=fd00::1,prio=1", 1, "raddr=fd00::1,prio=1"),
	/* A wildcard lifts the IPv4/IPv6 conflict. */
	VALID("laddr=::1,raddr=*,prio=1", 1, "laddr=::1,prio=1"),
};

} // namespace

TEST(PrioAbi, ValidAndCanonical)
{
	for (const valid_case &c : valid_cases) {
		const size_t n = c.len ? c.len : std::strlen(c.in);
		const char *canon = c.canon ? c.canon : c.in;
		Owned o;

		SCOPED_TRACE(show(c.in, n));
		xnet_prio_rules *rules = o.parse(c.in, n);
		EXPECT_EQ(xnet_prio_rules_count(rules), c.count);
		// An empty set is NULL, a non-empty one is not.
		EXPECT_EQ(!rules, c.count == 0);

		const std::string text = format(rules);
		EXPECT_EQ(text, canon);

		// The read-back parses to itself: parse(format(x)) == format(x).
		xnet_prio_rules *again = o.parse(text.c_str());
		EXPECT_EQ(xnet_prio_rules_count(again), c.count);
		EXPECT_EQ(format(again), canon);
	}
}

namespace {

// Invalid rules: the error and the offending token.

struct invalid_case {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	int err;
	unsigned int pos, tok;
};

#define BAD(s, e, p, l)		{ s, 0, e, p, l }
#define BAD_N(s, n, e, p, l)	{ s, n, e, p, l }

const invalid_case invalid_cases[] = {
	/* Empty rules, fields and values. */
	BAD(";prio=1", XNET_E_EMPTY, 0, 0),
	BAD("prio=1;", XNET_E_EMPTY, 7, 0),
	BAD("prio=1;\n", XNET_E_EMPTY, 7, 0),
	BAD("prio=1;;prio=2", XNET_E_EMPTY, 7, 0),
	BAD(",prio=1", XNET_E_EMPTY, 0, 0),
	BAD("prio=1,", XNET_E_EMPTY, 7, 0),
	BAD("prio=1,,rport=1", XNET_E_EMPTY, 7, 0),
	BAD("prio=", XNET_E_EMPTY, 0, 5),
	BAD("prio=1,raddr=", XNET_E_EMPTY, 7, 6),
	BAD("prio=1,raddr=/8", XNET_E_EMPTY, 7, 8),
	BAD("prio=1,raddr=[]", XNET_E_EMPTY, 7, 8),
	BAD("prio=1,raddr=10.0.0.0/", XNET_E_EMPTY, 7, 15),
	BAD("prio=1,lport=", XNET_E_EMPTY, 7, 6),
	/* Not a value. */
	BAD("prio=*", XNET_E_INVALID, 0, 6),
	BAD("prio=x", XNET_E_INVALID, 0, 6),
	BAD("prio=1,rport=x", XNET_E_INVALID, 7, 7),
	BAD("prio=1,lport=*4420", XNET_E_INVALID, 7, 11),
	BAD("prio=1,laddr=**", XNET_E_INVALID, 7, 8),
	BAD("prio=1,raddr=10.0.0.300", XNET_E_INVALID, 7, 16),
	BAD("prio=1,raddr=10.0.0", XNET_E_INVALID, 7, 12),
	BAD("prio=1,raddr=10.0.0.1.2", XNET_E_INVALID, 7, 16),
	BAD("prio=1,raddr=10.0.0.01", XNET_E_INVALID, 7, 15),
	BAD("prio=1,raddr= 10.0.0.1", XNET_E_INVALID, 7, 15),
	BAD("prio=1,raddr=10.0.0.0/x", XNET_E_INVALID, 7, 16),
	BAD("prio=1,raddr=[10.0.0.1]", XNET_E_INVALID, 7, 16),
	BAD("prio=1,raddr=[fd00::1/64]", XNET_E_INVALID, 7, 18),
	BAD("prio=1,raddr=[fd00::1", XNET_E_INVALID, 7, 14),
	BAD("prio=1,raddr=fd00::1::2", XNET_E_INVALID, 7, 16),
	BAD("prio=1,raddr=fd00::g", XNET_E_INVALID, 7, 13),
	BAD("prio=1,raddr=fd00:", XNET_E_INVALID, 7, 11),
	BAD("prio=1,raddr=1:2:3:4:5:6:7", XNET_E_INVALID, 7, 19),
	BAD("prio=1,raddr=fe80::1%eth0", XNET_E_INVALID, 7, 18),
	/* Signs. */
	BAD("prio=-1", XNET_E_SIGN, 0, 7),
	BAD("prio=+1", XNET_E_SIGN, 0, 7),
	BAD("prio=1,rport=+4420", XNET_E_SIGN, 7, 11),
	BAD("prio=1,raddr=10.0.0.0/-8", XNET_E_SIGN, 7, 17),
	/* Overflow of the value's type (prio u32, ports u16, lengths u8). */
	BAD("prio=4294967296", XNET_E_OVERFLOW, 0, 15),
	BAD("prio=1,rport=65536", XNET_E_OVERFLOW, 7, 11),
	BAD("prio=1,lport=99999999999", XNET_E_OVERFLOW, 7, 17),
	BAD("prio=1,raddr=10.0.0.0/256", XNET_E_OVERFLOW, 7, 18),
	/* Out of range. */
	BAD("prio=1,rport=0", XNET_E_RANGE, 7, 7),
	BAD("prio=1,lport=00", XNET_E_RANGE, 7, 8),
	BAD("prio=1,raddr=10.0.0.0/33", XNET_E_RANGE, 7, 17),
	BAD("prio=1,raddr=::/129", XNET_E_RANGE, 7, 12),
	BAD("prio=1,raddr=::ffff:10.0.0.0/104", XNET_E_RANGE, 7, 25),
	BAD("prio=1;raddr=10.0.0.0/33,prio=2", XNET_E_RANGE, 7, 17),
	/* Junk after a value. */
	BAD("prio=1x", XNET_E_TRAILING, 0, 7),
	BAD("prio=0x10", XNET_E_TRAILING, 0, 9),
	BAD("prio=1\n\n", XNET_E_TRAILING, 0, 7),
	BAD("prio=1\r\n", XNET_E_TRAILING, 0, 7),
	BAD_N("prio=1\0", 7, XNET_E_TRAILING, 0, 7),
	BAD("prio=1,rport=4420 ", XNET_E_TRAILING, 7, 11),
	BAD("prio=1,raddr=10.0.0.0/8x", XNET_E_TRAILING, 7, 17),
	BAD("prio=1,raddr=10.0.0.0/8/8", XNET_E_TRAILING, 7, 18),
	/* Keys are exact and lowercase; a field without '=' has none. */
	BAD("prio=1,color=red", XNET_E_UNKNOWN_KEY, 7, 9),
	BAD("prio", XNET_E_UNKNOWN_KEY, 0, 4),
	BAD("bogus", XNET_E_UNKNOWN_KEY, 0, 5),
	BAD("\n\n", XNET_E_UNKNOWN_KEY, 0, 1),
	BAD("prio=1,raddr", XNET_E_UNKNOWN_KEY, 7, 5),
	BAD("prio=1;*", XNET_E_UNKNOWN_KEY, 7, 1),
	BAD("PRIO=1", XNET_E_UNKNOWN_KEY, 0, 6),
	BAD("=1", XNET_E_UNKNOWN_KEY, 0, 2),
	BAD("pri=1", XNET_E_UNKNOWN_KEY, 0, 5),
	BAD("priority=1", XNET_E_UNKNOWN_KEY, 0, 10),
	BAD("prio =1", XNET_E_UNKNOWN_KEY, 0, 7),
	BAD("prio=1, raddr=10.0.0.1", XNET_E_UNKNOWN_KEY, 7, 15),
	/* A NUL ends no key: the key is the whole token before '='. */
	BAD_N("prio\0=1", 7, XNET_E_UNKNOWN_KEY, 0, 7),
	BAD_N("rport\0=1,prio=1", 15, XNET_E_UNKNOWN_KEY, 0, 8),
	BAD_N("laddr\0lport=10.0.0.1,prio=1", 27, XNET_E_UNKNOWN_KEY, 0, 20),
	BAD_N("prio\0rport=1", 12, XNET_E_UNKNOWN_KEY, 0, 12),
	/* Other keys after the NUL (as the key strings may lie in memory). */
	BAD_N("lport\0raddr=4420,prio=1", 23, XNET_E_UNKNOWN_KEY, 0, 16),
	BAD_N("raddr\0rport=10.0.0.1,prio=1", 27, XNET_E_UNKNOWN_KEY, 0, 20),
	BAD_N("rport\0prio=1", 12, XNET_E_UNKNOWN_KEY, 0, 12),
	BAD_N("prio=1,rport\0prio=1", 19, XNET_E_UNKNOWN_KEY, 7, 12),
	/* Each key once, wildcards included; found before the value. */
	BAD("prio=1,prio=2", XNET_E_DUPLICATE, 7, 6),
	BAD("prio=1,prio=x", XNET_E_DUPLICATE, 7, 6),
	BAD("raddr=*,raddr=10.0.0.1,prio=1", XNET_E_DUPLICATE, 8, 14),
	BAD("prio=1,rport=1,rport=*", XNET_E_DUPLICATE, 15, 7),
	BAD("prio=1;prio=1,lport=1,lport=2", XNET_E_DUPLICATE, 22, 7),
	/* prio is required; the whole rule is named. */
	BAD("raddr=10.0.0.1", XNET_E_MISSING, 0, 14),
	BAD("laddr=*", XNET_E_MISSING, 0, 7),
	BAD("prio=1;rport=4420", XNET_E_MISSING, 7, 10),
	BAD("prio=1;rport=4420\n", XNET_E_MISSING, 7, 10),
	/* A field error comes before a missing prio. */
	BAD("raddr=10.0.0.1/24", XNET_E_HOST_BITS, 0, 17),
	/* An IPv4 local and an IPv6 remote address never match together. */
	BAD("prio=1,laddr=10.0.0.1,raddr=fd00::1", XNET_E_CONFLICT, 0, 35),
	BAD("laddr=::1,raddr=10.0.0.0/8,prio=2", XNET_E_CONFLICT, 0, 33),
	BAD("prio=1;laddr=::ffff:1.2.3.4,raddr=::1,prio=2", XNET_E_CONFLICT, 7, 37),
	/* Address bits beyond the prefix length, as ip-route refuses them. */
	BAD("prio=1,raddr=10.0.0.1/24", XNET_E_HOST_BITS, 7, 17),
	BAD("prio=1,raddr=1.0.0.0/0", XNET_E_HOST_BITS, 7, 15),
	BAD("prio=1,raddr=11.0.0.0/7", XNET_E_HOST_BITS, 7, 16),
	BAD("prio=1,raddr=fd00::1/64", XNET_E_HOST_BITS, 7, 16),
	BAD("prio=1,raddr=[fd00::1]/64", XNET_E_HOST_BITS, 7, 18),
	BAD("prio=1,laddr=::1/127", XNET_E_HOST_BITS, 7, 13),
	BAD("prio=1,laddr=8000::/0", XNET_E_HOST_BITS, 7, 14),
	/* The first error wins. */
	BAD("prio=x;prio=-1", XNET_E_INVALID, 0, 6),
	BAD("prio=1;raddr=10.0.0.1/24;color=red", XNET_E_HOST_BITS, 7, 17),
};

} // namespace

TEST(PrioAbi, InvalidNamesTheToken)
{
	for (const invalid_case &c : invalid_cases) {
		const size_t n = c.len ? c.len : std::strlen(c.in);
		xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
		xnet_prio_rules *rules = SENTINEL;

		SCOPED_TRACE(show(c.in, n) + " " + xnet_err_str(c.err));
		int err = xnet_prio_rules_parse(c.in, n, &rules, &res);

		if (err == XNET_OK)
			xnet_prio_rules_free(rules);
		EXPECT_EQ(err, c.err) << xnet_err_str(err);
		EXPECT_EQ(res.err, c.err);
		EXPECT_EQ(res.pos, c.pos);
		EXPECT_EQ(res.len, c.tok);
		EXPECT_LE(res.pos + res.len, n);
		// Output untouched on error.
		EXPECT_EQ(rules, SENTINEL);
		// The result struct is optional.
		rules = SENTINEL;
		err = xnet_prio_rules_parse(c.in, n, &rules, nullptr);
		if (err == XNET_OK)
			xnet_prio_rules_free(rules);
		EXPECT_EQ(err, c.err);
		EXPECT_EQ(rules, SENTINEL);
	}
}

// An error leaves the caller's current rule set as it was.
TEST(PrioAbi, ErrorKeepsCurrent)
{
	static const char text[] = "raddr=10.0.0.0/8,rport=4420,prio=3";
	const xnet_prio_endpoint ep = endpoint(ep_default);
	Owned o;
	xnet_prio_rules *rules = o.parse(text), *cur = rules;
	xnet_parse_res res;
	unsigned int prio = UNTOUCHED;

	EXPECT_EQ(xnet_prio_rules_parse("prio=1;rport=0,prio=2", 21, &cur, &res), XNET_E_RANGE);
	EXPECT_EQ(cur, rules);
	EXPECT_EQ(xnet_prio_rules_count(cur), 1u);
	EXPECT_EQ(format(cur), text);
	EXPECT_EQ(xnet_prio_rules_match(cur, &ep, &prio), 0);
	EXPECT_EQ(prio, 3u);
}

// No rules: an empty string is NULL, and NULL matches nothing.
TEST(PrioAbi, NullRules)
{
	const xnet_prio_endpoint ep = endpoint(ep_default);
	xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	xnet_prio_rules *rules = SENTINEL;
	unsigned int prio = UNTOUCHED;
	char buf[4] = "xyz";

	EXPECT_EQ(xnet_prio_rules_parse("", 0, &rules, &res), XNET_OK);
	EXPECT_EQ(rules, nullptr);
	EXPECT_EQ(res.err, XNET_OK);
	rules = SENTINEL;
	EXPECT_EQ(xnet_prio_rules_parse("\n", 1, &rules, nullptr), XNET_OK);
	EXPECT_EQ(rules, nullptr);

	EXPECT_EQ(xnet_prio_rules_match(nullptr, &ep, &prio), -1);
	EXPECT_EQ(prio, UNTOUCHED);
	EXPECT_EQ(xnet_prio_rules_count(nullptr), 0u);
	EXPECT_EQ(xnet_prio_rules_format(nullptr, buf, sizeof(buf)), 0ul);
	EXPECT_STREQ(buf, "");
	// cap 0: nothing written, so no buffer is needed.
	EXPECT_EQ(xnet_prio_rules_format(nullptr, nullptr, 0), 0ul);
	xnet_prio_rules_free(nullptr);
}

// Limits: kMaxRules rules, kMaxInput bytes.

namespace {

// "rport=1,prio=100;...;rport=n,prio=99+n"
std::string make_rules(unsigned int n)
{
	std::string s;

	for (unsigned int i = 1; i <= n; i++)
		s += (i > 1 ? ";rport=" : "rport=") + std::to_string(i) + ",prio=" +
		     std::to_string(99 + i);
	return s;
}

} // namespace

TEST(PrioAbi, MaxRules)
{
	xnet_prio_endpoint ep = endpoint(ep_default);
	xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	xnet_prio_rules *out = SENTINEL;
	unsigned int prio = UNTOUCHED;
	Owned o;

	const std::string s32 = make_rules(PRIO_MAX_RULES);
	const size_t n32 = s32.size();
	xnet_prio_rules *rules = o.parse(s32.c_str());
	EXPECT_EQ(xnet_prio_rules_count(rules), unsigned(PRIO_MAX_RULES));
	EXPECT_EQ(format(rules), s32);
	// The last rule is there and matches.
	ep.rport = PRIO_MAX_RULES;
	EXPECT_EQ(xnet_prio_rules_match(rules, &ep, &prio), PRIO_MAX_RULES - 1);
	EXPECT_EQ(prio, 99u + PRIO_MAX_RULES);
	ep.rport = PRIO_MAX_RULES + 1;
	EXPECT_EQ(xnet_prio_rules_match(rules, &ep, &prio), -1);

	// One more is refused: the 33rd rule is the offending token.
	std::string s = make_rules(PRIO_MAX_RULES + 1);
	EXPECT_EQ(xnet_prio_rules_parse(s.data(), s.size(), &out, &res), XNET_E_TOO_MANY);
	EXPECT_EQ(res.err, XNET_E_TOO_MANY);
	EXPECT_EQ(res.pos, n32 + 1);
	EXPECT_EQ(res.len, std::strlen("rport=33,prio=132"));
	EXPECT_EQ(out, SENTINEL);

	// Even when the rule past the limit is itself invalid.
	s = s32 + ";color=red";
	EXPECT_EQ(xnet_prio_rules_parse(s.data(), s.size(), &out, &res), XNET_E_TOO_MANY);
	EXPECT_EQ(res.pos, n32 + 1);
	EXPECT_EQ(res.len, 9u);
	EXPECT_EQ(out, SENTINEL);

	// An error before the limit is reported as itself.
	s = make_rules(PRIO_MAX_RULES + 8);
	s.replace(std::strlen("rport=1,prio=100;rport=2,prio="), 3, "x01");
	EXPECT_EQ(xnet_prio_rules_parse(s.data(), s.size(), &out, &res), XNET_E_INVALID);
	EXPECT_EQ(res.pos, 25u);
	EXPECT_EQ(res.len, 8u);
	EXPECT_EQ(out, SENTINEL);
}

TEST(PrioAbi, MaxInput)
{
	xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	xnet_prio_rules *out = SENTINEL;
	std::string buf(2 * PRIO_MAX_INPUT, '0');
	Owned o;

	// "prio=000...07": exactly kMaxInput bytes is accepted.
	buf.replace(0, 5, "prio=");
	buf[PRIO_MAX_INPUT - 1] = '7';
	EXPECT_EQ(format(o.parse(buf.data(), PRIO_MAX_INPUT)), "prio=7");

	// The trailing newline counts toward the limit.
	buf[PRIO_MAX_INPUT] = '\n';
	EXPECT_EQ(xnet_prio_rules_parse(buf.data(), PRIO_MAX_INPUT + 1, &out, &res),
		  XNET_E_TOO_LONG);
	EXPECT_EQ(res.err, XNET_E_TOO_LONG);
	EXPECT_EQ(res.pos, unsigned(PRIO_MAX_INPUT));
	EXPECT_EQ(res.len, 1u);
	EXPECT_EQ(out, SENTINEL);
	buf[PRIO_MAX_INPUT - 2] = '8';
	buf[PRIO_MAX_INPUT - 1] = '\n';
	EXPECT_EQ(format(o.parse(buf.data(), PRIO_MAX_INPUT)), "prio=8");

	// Longer input is refused up front, whatever it holds.
	EXPECT_EQ(xnet_prio_rules_parse(buf.data(), 2 * PRIO_MAX_INPUT, &out, &res),
		  XNET_E_TOO_LONG);
	EXPECT_EQ(res.pos, unsigned(PRIO_MAX_INPUT));
	EXPECT_EQ(res.len, unsigned(PRIO_MAX_INPUT));
	EXPECT_EQ(out, SENTINEL);
}

// Canonical text into a short buffer: truncated, terminated, full length.
TEST(PrioAbi, FormatTruncates)
{
	static const char text[] =
		"laddr=fd00::/64,lport=4420,raddr=fd00::2,rport=50000,prio=7;prio=1";
	const size_t len = sizeof(text) - 1;
	Owned o;
	xnet_prio_rules *rules = o.parse(text);
	std::vector<char> buf(len + 8);

	for (size_t cap = 0; cap <= len + 2; cap++) {
		const size_t kept = cap ? std::min(cap - 1, len) : 0;

		SCOPED_TRACE("cap " + std::to_string(cap));
		std::fill(buf.begin(), buf.end(), 'X');
		EXPECT_EQ(xnet_prio_rules_format(rules, buf.data(), cap), len);
		EXPECT_EQ(std::strncmp(buf.data(), text, kept), 0);
		if (cap) {
			EXPECT_EQ(buf[kept], '\0');
		}
		// Nothing past the terminating NUL is written.
		for (size_t i = cap ? kept + 1 : 0; i < len + 8; i++)
			EXPECT_EQ(buf[i], 'X') << "byte " << i;
	}
	// Asking for the length only.
	EXPECT_EQ(xnet_prio_rules_format(rules, nullptr, 0), len);
}

namespace {

// Matching.

struct match_case {
	const char *what;
	const char *rules;
	ep_words ep;
	int idx;		/* -1: no rule matches */
	unsigned int prio;
};

#define RULES_MIX							\
	"raddr=10.0.0.0/24,rport=4420,prio=3;"				\
	"raddr=10.0.0.0/8,prio=2;"					\
	"raddr=fd00::/16,prio=6;"					\
	"laddr=192.168.1.1,lport=4421,prio=4;"				\
	"laddr=fe80::/10,rport=8009,prio=7;"				\
	"lport=4420,prio=8"
#define RULES_ALL0	"raddr=0.0.0.0/0,prio=4;raddr=::/0,prio=6"
#define RULES_ANY	"laddr=*,lport=*,raddr=*,rport=*,prio=9"
#define RULES_DUP	"rport=4420,prio=1;rport=4420,prio=2;prio=3"
#define RULES_BITS	"laddr=10.1.2.0/23,prio=1;raddr=fd00:0:0:8000::/49,prio=2"
#define RULES_LISTEN							\
	"rport=4420,prio=1;raddr=10.0.0.0/8,prio=2;raddr=0.0.0.0/0,prio=3;"	\
	"laddr=10.0.0.0/8,lport=4420,prio=4;raddr=*,rport=*,prio=5"

#define M(w, r, l, lp, rm, rp, i, p) { w, r, { l, rm, lp, rp, 0 }, i, p }
/* A listener: no remote end (XNET_PRIO_EP_NO_REMOTE). */
#define L(w, r, l, lp, rm, rp, i, p)					\
	{ w, r, { l, rm, lp, rp, XNET_PRIO_EP_NO_REMOTE }, i, p }

const match_case match_cases[] = {
	M("v4 first rule", RULES_MIX, V4(10, 9, 9, 9), 40000,
	  V4(10, 0, 0, 5), 4420, 0, 3),
	M("v4 last address of /24", RULES_MIX, V4(10, 9, 9, 9), 40000,
	  V4(10, 0, 0, 255), 4420, 0, 3),
	M("v4 other rport falls through", RULES_MIX, V4(10, 9, 9, 9), 40000,
	  V4(10, 0, 0, 5), 4421, 1, 2),
	M("v4 just past /24", RULES_MIX, V4(10, 9, 9, 9), 40000,
	  V4(10, 0, 1, 0), 4420, 1, 2),
	M("v4 inside /8", RULES_MIX, V4(10, 9, 9, 9), 40000,
	  V4(10, 255, 255, 255), 50000, 1, 2),
	M("v4 outside every prefix", RULES_MIX, V4(10, 9, 9, 9), 40000,
	  V4(11, 0, 0, 0), 4420, -1, 0),
	M("v4 just below /8", RULES_MIX, V4(10, 9, 9, 9), 40000,
	  V4(9, 255, 255, 255), 4420, -1, 0),
	M("v4-mapped socket, v4 rule", RULES_MIX,
	  V6(0, 0, 0, 0, 0, 0xffff, 0x0a09, 0x0909), 40000,
	  V6(0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0005), 4420, 0, 3),
	M("v4-compatible is v6", RULES_MIX, V6(0, 0, 0, 0, 0, 0, 0x0a09, 0x0909),
	  40000, V6(0, 0, 0, 0, 0, 0, 0x0a00, 0x0005), 4420, -1, 0),
	M("NAT64 is v6", RULES_MIX, V6(0x64, 0xff9b, 0, 0, 0, 0, 0x0a09, 0x0909),
	  40000, V6(0x64, 0xff9b, 0, 0, 0, 0, 0x0a00, 0x0005), 4420, -1, 0),
	M("v6 rule", RULES_MIX, V6(0xfd01, 0, 0, 0, 0, 0, 0, 9), 40000,
	  V6(0xfd00, 0, 0, 0, 0, 0, 0, 5), 4420, 2, 6),
	M("v6 last address of /16", RULES_MIX, V6(0xfd01, 0, 0, 0, 0, 0, 0, 9),
	  40000, V6(0xfd00, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
		    0xffff), 4420, 2, 6),
	M("v6 just past /16", RULES_MIX, V6(0xfd01, 0, 0, 0, 0, 0, 0, 9), 40000,
	  V6(0xfd01, 0, 0, 0, 0, 0, 0, 0), 4420, -1, 0),
	M("laddr and lport", RULES_MIX, V4(192, 168, 1, 1), 4421,
	  V4(172, 16, 0, 1), 50000, 3, 4),
	M("laddr, other lport", RULES_MIX, V4(192, 168, 1, 1), 4420,
	  V4(172, 16, 0, 1), 50000, 5, 8),
	M("local and remote not swapped", RULES_MIX, V4(172, 16, 0, 1), 50000,
	  V4(192, 168, 1, 1), 4421, -1, 0),
	M("lport is not rport", RULES_MIX, V4(172, 16, 0, 1), 50000,
	  V4(172, 16, 0, 2), 4420, -1, 0),
	M("v6 /10 first address", RULES_MIX, V6(0xfe80, 0, 0, 0, 0, 0, 0, 0),
	  40000, V6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), 8009, 4, 7),
	M("v6 /10 last word", RULES_MIX, V6(0xfebf, 0xffff, 0, 0, 0, 0, 0, 1),
	  40000, V6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), 8009, 4, 7),
	M("v6 just past /10", RULES_MIX, V6(0xfec0, 0, 0, 0, 0, 0, 0, 0),
	  40000, V6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), 8009, -1, 0),
	M("v6 /10, other rport", RULES_MIX, V6(0xfe80, 0, 0, 0, 0, 0, 0, 1),
	  40000, V6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), 8010, -1, 0),
	M("v6 lport only rule", RULES_MIX, V6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 2),
	  4420, V6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), 4420, 5, 8),
	M("v4 /0 takes v4", RULES_ALL0, V4(1, 2, 3, 4), 1, V4(0, 0, 0, 0), 1,
	  0, 4),
	M("v4 /0 takes broadcast", RULES_ALL0, V4(1, 2, 3, 4), 1,
	  V4(255, 255, 255, 255), 65535, 0, 4),
	M("v6 /0 takes v6, not v4 /0", RULES_ALL0, V4(1, 2, 3, 4), 1,
	  V6(0, 0, 0, 0, 0, 0, 0, 0), 1, 1, 6),
	M("v6 /0 takes v6", RULES_ALL0, V4(1, 2, 3, 4), 1,
	  V6(0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff),
	  1, 1, 6),
	M("::fffe:0:0/96 is v6", RULES_ALL0, V4(1, 2, 3, 4), 1,
	  V6(0, 0, 0, 0, 0, 0xfffe, 0x0102, 0x0304), 1, 1, 6),
	M("wildcards match v4", RULES_ANY, V4(1, 2, 3, 4), 1, V4(5, 6, 7, 8), 2,
	  0, 9),
	M("wildcards match v6", RULES_ANY, V6(0, 0, 0, 0, 0, 0, 0, 1), 65535,
	  V6(0xfe80, 0, 0, 0, 0, 0, 0, 1), 1, 0, 9),
	M("wildcards match zeros", RULES_ANY, V6(0, 0, 0, 0, 0, 0, 0, 0), 0,
	  V6(0, 0, 0, 0, 0, 0, 0, 0), 0, 0, 9),
	M("first of two equal rules", RULES_DUP, V4(1, 1, 1, 1), 1,
	  V4(2, 2, 2, 2), 4420, 0, 1),
	M("catch-all last", RULES_DUP, V4(1, 1, 1, 1), 1, V4(2, 2, 2, 2), 4421,
	  2, 3),
	M("v4 /23 first", RULES_BITS, V4(10, 1, 2, 0), 1, V4(0, 0, 0, 0), 1,
	  0, 1),
	M("v4 /23 last", RULES_BITS, V4(10, 1, 3, 255), 1, V4(0, 0, 0, 0), 1,
	  0, 1),
	M("v4 /23 below", RULES_BITS, V4(10, 1, 1, 255), 1, V4(0, 0, 0, 0), 1,
	  -1, 0),
	M("v4 /23 above", RULES_BITS, V4(10, 1, 4, 0), 1, V4(0, 0, 0, 0), 1,
	  -1, 0),
	M("v6 /49 first", RULES_BITS, V4(1, 1, 1, 1), 1,
	  V6(0xfd00, 0, 0, 0x8000, 0, 0, 0, 0), 1, 1, 2),
	M("v6 /49 last", RULES_BITS, V4(1, 1, 1, 1), 1,
	  V6(0xfd00, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff), 1, 1, 2),
	M("v6 /49 below", RULES_BITS, V4(1, 1, 1, 1), 1,
	  V6(0xfd00, 0, 0, 0x7fff, 0xffff, 0xffff, 0xffff, 0xffff), 1, -1, 0),
	M("v6 /49 above", RULES_BITS, V4(1, 1, 1, 1), 1,
	  V6(0xfd00, 0, 1, 0, 0, 0, 0, 0), 1, -1, 0),
	/* Listeners: rules on the remote end skip them, even /0. */
	L("listener skips raddr/rport rules", RULES_LISTEN, V4(10, 0, 0, 1),
	  4420, V4(10, 0, 0, 2), 4420, 3, 4),
	M("same socket connected", RULES_LISTEN, V4(10, 0, 0, 1), 4420,
	  V4(10, 0, 0, 2), 4420, 0, 1),
	M("connected, raddr rule", RULES_LISTEN, V4(10, 0, 0, 1), 4420,
	  V4(10, 0, 0, 2), 4421, 1, 2),
	M("connected, raddr /0", RULES_LISTEN, V4(10, 0, 0, 1), 4420,
	  V4(11, 0, 0, 2), 4421, 2, 3),
	L("listener, wildcards are no constraint", RULES_LISTEN,
	  V4(11, 0, 0, 1), 4420, V4(0, 0, 0, 0), 0, 4, 5),
	L("listener on v6", RULES_LISTEN, V6(0xfd00, 0, 0, 0, 0, 0, 0, 1), 4420,
	  V6(0, 0, 0, 0, 0, 0, 0, 0), 0, 4, 5),
	L("listener, no rule", RULES_BITS, V4(1, 1, 1, 1), 1,
	  V6(0xfd00, 0, 0, 0x8000, 0, 0, 0, 0), 1, -1, 0),
};

} // namespace

TEST(PrioAbi, FirstMatchWinsTable)
{
	for (const match_case &c : match_cases) {
		Owned o;
		xnet_prio_rules *rules = o.parse(c.rules);
		const xnet_prio_endpoint ep = endpoint(c.ep);
		unsigned int prio = UNTOUCHED;

		SCOPED_TRACE(c.what);
		EXPECT_EQ(xnet_prio_rules_match(rules, &ep, &prio), c.idx);
		// The priority of the matching rule, untouched if none.
		EXPECT_EQ(prio, c.idx < 0 ? UNTOUCHED : c.prio);
		// Matching changes nothing: the same answer again.
		prio = UNTOUCHED;
		EXPECT_EQ(xnet_prio_rules_match(rules, &ep, &prio), c.idx);
		EXPECT_EQ(prio, c.idx < 0 ? UNTOUCHED : c.prio);
	}
}
