// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_tcp_prio_rules: the NVMe/TCP socket priority rules
 * (nvprio/rules.hpp: grammar, canonical text, first-match-wins
 * matcher, over the prefixes of nvprio/inet.hpp) through their C ABI
 * (nvprio/rules.h), exactly as nvme_tcp_prio and nvmet_tcp_prio
 * call it. The allocation log of xnet_core_rt_test.c shows what a parse
 * asked the allocator for and lets a test make an allocation fail.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>

#include <xnet/abi.h>
#include "../rules.h"
#include "xnet_core_test_alloc.h"
#include "xnet_kunit_desc.h"

#define LOG (&xnet_test_alloc_log)
#define UNTOUCHED 0xdeadbeefu
/* What *out holds before a parse that must not write it. */
#define SENTINEL ((struct xnet_prio_rules *)0x5a5a5a5aUL)
#define PRIO_MAX_RULES 32
#define PRIO_MAX_INPUT 4096
#define TEXT_MAX 512

/*
 * Addresses as 8 16-bit words, IPv4 as ::ffff:a.b.c.d, turned into the 16
 * bytes (network byte order) that the ABI carries by endpoint().
 */
#define V4(a, b, c, d)	{ 0, 0, 0, 0, 0, 0xffff, (a) << 8 | (b), (c) << 8 | (d) }
#define V6(a, b, c, d, e, f, g, h)	{ a, b, c, d, e, f, g, h }

struct ep_words {
	unsigned short laddr[8], raddr[8];
	unsigned short lport, rport;
	unsigned int flags;
};

static void to_bytes(unsigned char *out, const unsigned short *w)
{
	unsigned int i;

	for (i = 0; i < 8; i++) {
		out[2 * i] = w[i] >> 8;
		out[2 * i + 1] = w[i] & 0xff;
	}
}

static struct xnet_prio_endpoint endpoint(const struct ep_words *e)
{
	struct xnet_prio_endpoint ep;

	memset(&ep, 0, sizeof(ep));
	to_bytes(ep.laddr, e->laddr);
	to_bytes(ep.raddr, e->raddr);
	ep.lport = e->lport;
	ep.rport = e->rport;
	ep.flags = e->flags;
	return ep;
}

/* 10.1.1.1:50000 -> 10.2.2.2:4420 */
static const struct ep_words ep_default = {
	V4(10, 1, 1, 1), V4(10, 2, 2, 2), 50000, 4420, 0,
};

/* Escape @s[0..n) into @desc for a parameter description. */
static void desc_escape(char *desc, const char *s, size_t n)
{
	xnet_kunit_desc_escape(desc, "", s, n, 40);
}

static void desc_append(char *desc, const char *what)
{
	size_t o = strlen(desc);

	scnprintf(desc + o, KUNIT_PARAM_DESC_SIZE - o, " %s", what);
}

/* Rule sets are freed when the test ends, also after a failed assertion. */
static int rules_res_init(struct kunit_resource *res, void *rules)
{
	res->data = rules;
	return 0;
}

static void rules_res_free(struct kunit_resource *res)
{
	xnet_prio_rules_free(res->data);
}

static void track(struct kunit *test, struct xnet_prio_rules *rules)
{
	void *res;

	if (!rules)
		return;
	res = kunit_alloc_resource(test, rules_res_init, rules_res_free,
				   GFP_KERNEL, rules);
	if (!res)
		xnet_prio_rules_free(rules);
	KUNIT_ASSERT_PTR_EQ(test, res, (void *)rules);
}

/* Parse @s[0..n), which must succeed; the result is tracked. */
static struct xnet_prio_rules *parse_n(struct kunit *test, const char *s,
				       size_t n)
{
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	struct xnet_prio_rules *rules = SENTINEL;
	int err = xnet_prio_rules_parse(s, n, &rules, &res);

	track(test, err == XNET_OK ? rules : NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, XNET_OK, "%s at %u+%u", xnet_err_str(err),
			    res.pos, res.len);
	KUNIT_EXPECT_EQ(test, res.err, XNET_OK);
	KUNIT_EXPECT_EQ(test, res.pos, 0U);
	KUNIT_EXPECT_EQ(test, res.len, 0U);
	KUNIT_EXPECT_PTR_NE(test, rules, SENTINEL);
	return rules;
}

static struct xnet_prio_rules *parse(struct kunit *test, const char *s)
{
	return parse_n(test, s, strlen(s));
}

/* Canonical text of @rules into a test-managed buffer. */
static char *format(struct kunit *test, const struct xnet_prio_rules *rules)
{
	char *buf = kunit_kzalloc(test, 2 * PRIO_MAX_INPUT, GFP_KERNEL);
	unsigned long n;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	n = xnet_prio_rules_format(rules, buf, 2 * PRIO_MAX_INPUT);
	KUNIT_EXPECT_EQ(test, n, (unsigned long)strlen(buf));
	return buf;
}

/* Valid rules and their canonical read-back. */

struct valid_case {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	unsigned int count;
	const char *canon;	/* NULL: the input */
};

#define VALID(s, n, c)		{ s, 0, n, c }
#define SAME(s, n)		{ s, 0, n, NULL }	/* canonical already */

static const struct valid_case valid_cases[] = {
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

static void valid_case_desc(const struct valid_case *c, char *desc)
{
	desc_escape(desc, c->in, c->len ? c->len : strlen(c->in));
}

KUNIT_ARRAY_PARAM(valid, valid_cases, valid_case_desc);

static void nvme_tcp_prio_rules_valid(struct kunit *test)
{
	const struct valid_case *c = test->param_value;
	const char *canon = c->canon ?: c->in;
	struct xnet_prio_rules *rules, *again;
	char *text;

	rules = parse_n(test, c->in, c->len ? c->len : strlen(c->in));
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(rules), c->count);
	/* An empty set is NULL, a non-empty one is not. */
	KUNIT_EXPECT_EQ(test, !rules, c->count == 0);

	text = format(test, rules);
	KUNIT_EXPECT_STREQ(test, text, canon);

	/* The read-back parses to itself: parse(format(x)) == format(x). */
	again = parse(test, text);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(again), c->count);
	KUNIT_EXPECT_STREQ(test, format(test, again), canon);
}

/* Invalid rules: the error and the offending token. */

struct invalid_case {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	int err;
	unsigned int pos, tok;
};

#define BAD(s, e, p, l)		{ s, 0, e, p, l }
#define BAD_N(s, n, e, p, l)	{ s, n, e, p, l }

static const struct invalid_case invalid_cases[] = {
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

static void invalid_case_desc(const struct invalid_case *c, char *desc)
{
	desc_escape(desc, c->in, c->len ? c->len : strlen(c->in));
	desc_append(desc, xnet_err_str(c->err));
}

KUNIT_ARRAY_PARAM(invalid, invalid_cases, invalid_case_desc);

static void nvme_tcp_prio_rules_invalid(struct kunit *test)
{
	const struct invalid_case *c = test->param_value;
	size_t n = c->len ? c->len : strlen(c->in);
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	struct xnet_prio_rules *rules = SENTINEL;
	int err = xnet_prio_rules_parse(c->in, n, &rules, &res);

	if (err == XNET_OK)
		track(test, rules);
	KUNIT_EXPECT_EQ_MSG(test, err, c->err, "%s", xnet_err_str(err));
	KUNIT_EXPECT_EQ(test, res.err, c->err);
	KUNIT_EXPECT_EQ(test, res.pos, c->pos);
	KUNIT_EXPECT_EQ(test, res.len, c->tok);
	KUNIT_EXPECT_LE(test, res.pos + res.len, (unsigned int)n);
	/* Output untouched on error. */
	KUNIT_EXPECT_PTR_EQ(test, rules, SENTINEL);
	/* The result struct is optional. */
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse(c->in, n, &rules, NULL),
			c->err);
	KUNIT_EXPECT_PTR_EQ(test, rules, SENTINEL);
}

/* An error leaves the caller's current rule set as it was. */
static void nvme_tcp_prio_rules_error_keeps_current(struct kunit *test)
{
	static const char text[] = "raddr=10.0.0.0/8,rport=4420,prio=3";
	const struct xnet_prio_endpoint ep = endpoint(&ep_default);
	struct xnet_prio_rules *rules = parse(test, text), *cur = rules;
	struct xnet_parse_res res;
	unsigned int prio = UNTOUCHED;

	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse("prio=1;rport=0,prio=2", 21,
						    &cur, &res), XNET_E_RANGE);
	KUNIT_EXPECT_PTR_EQ(test, cur, rules);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(cur), 1U);
	KUNIT_EXPECT_STREQ(test, format(test, cur), text);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(cur, &ep, &prio), 0);
	KUNIT_EXPECT_EQ(test, prio, 3U);
}

/* No rules: an empty string is NULL, and NULL matches nothing. */
static void nvme_tcp_prio_rules_null(struct kunit *test)
{
	const struct xnet_prio_endpoint ep = endpoint(&ep_default);
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	struct xnet_prio_rules *rules = SENTINEL;
	unsigned int prio = UNTOUCHED;
	char buf[4] = "xyz";

	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse("", 0, &rules, &res), XNET_OK);
	KUNIT_EXPECT_NULL(test, rules);
	KUNIT_EXPECT_EQ(test, res.err, XNET_OK);
	rules = SENTINEL;
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse("\n", 1, &rules, NULL), XNET_OK);
	KUNIT_EXPECT_NULL(test, rules);

	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(NULL, &ep, &prio), -1);
	KUNIT_EXPECT_EQ(test, prio, UNTOUCHED);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(NULL), 0U);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_format(NULL, buf, sizeof(buf)), 0UL);
	KUNIT_EXPECT_STREQ(test, buf, "");
	/* cap 0: nothing written, so no buffer is needed. */
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_format(NULL, NULL, 0), 0UL);
	xnet_prio_rules_free(NULL);
}

/* Limits: kMaxRules rules, kMaxInput bytes. */

/* "rport=1,prio=100;...;rport=n,prio=99+n" into @buf; returns its length. */
static size_t make_rules(char *buf, size_t size, unsigned int n)
{
	size_t o = 0;
	unsigned int i;

	for (i = 1; i <= n; i++)
		o += scnprintf(buf + o, size - o, "%srport=%u,prio=%u",
			       i > 1 ? ";" : "", i, 99 + i);
	return o;
}

static void nvme_tcp_prio_rules_max_rules(struct kunit *test)
{
	struct xnet_prio_endpoint ep = endpoint(&ep_default);
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	struct xnet_prio_rules *rules, *out = SENTINEL;
	char *buf = kunit_kzalloc(test, TEXT_MAX * 4, GFP_KERNEL);
	unsigned int prio = UNTOUCHED;
	size_t n, n32;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	n32 = make_rules(buf, TEXT_MAX * 4, PRIO_MAX_RULES);
	rules = parse(test, buf);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(rules), (unsigned int)PRIO_MAX_RULES);
	KUNIT_EXPECT_STREQ(test, format(test, rules), buf);
	/* The last rule is there and matches. */
	ep.rport = PRIO_MAX_RULES;
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(rules, &ep, &prio),
			PRIO_MAX_RULES - 1);
	KUNIT_EXPECT_EQ(test, prio, 99U + PRIO_MAX_RULES);
	ep.rport = PRIO_MAX_RULES + 1;
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(rules, &ep, &prio), -1);

	/* One more is refused: the 33rd rule is the offending token. */
	n = make_rules(buf, TEXT_MAX * 4, PRIO_MAX_RULES + 1);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse(buf, n, &out, &res),
			XNET_E_TOO_MANY);
	KUNIT_EXPECT_EQ(test, res.err, XNET_E_TOO_MANY);
	KUNIT_EXPECT_EQ(test, res.pos, (unsigned int)n32 + 1);
	KUNIT_EXPECT_EQ(test, res.len, (unsigned int)strlen("rport=33,prio=132"));
	KUNIT_EXPECT_PTR_EQ(test, out, SENTINEL);

	/* Even when the rule past the limit is itself invalid. */
	strscpy(buf + n32, ";color=red", TEXT_MAX * 4 - n32);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse(buf, strlen(buf), &out, &res),
			XNET_E_TOO_MANY);
	KUNIT_EXPECT_EQ(test, res.pos, (unsigned int)n32 + 1);
	KUNIT_EXPECT_EQ(test, res.len, 9U);
	KUNIT_EXPECT_PTR_EQ(test, out, SENTINEL);

	/* An error before the limit is reported as itself. */
	make_rules(buf, TEXT_MAX * 4, PRIO_MAX_RULES + 8);
	memcpy(buf + strlen("rport=1,prio=100;rport=2,prio="), "x01", 3);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse(buf, strlen(buf), &out, &res),
			XNET_E_INVALID);
	KUNIT_EXPECT_EQ(test, res.pos, 25U);
	KUNIT_EXPECT_EQ(test, res.len, 8U);
	KUNIT_EXPECT_PTR_EQ(test, out, SENTINEL);
}

static void nvme_tcp_prio_rules_max_input(struct kunit *test)
{
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	struct xnet_prio_rules *rules, *out = SENTINEL;
	char *buf = kunit_kmalloc(test, 2 * PRIO_MAX_INPUT, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	/* "prio=000...07": exactly kMaxInput bytes is accepted. */
	memset(buf, '0', 2 * PRIO_MAX_INPUT);
	memcpy(buf, "prio=", 5);
	buf[PRIO_MAX_INPUT - 1] = '7';
	rules = parse_n(test, buf, PRIO_MAX_INPUT);
	KUNIT_EXPECT_STREQ(test, format(test, rules), "prio=7");

	/* The trailing newline counts toward the limit. */
	buf[PRIO_MAX_INPUT] = '\n';
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse(buf, PRIO_MAX_INPUT + 1, &out, &res),
			XNET_E_TOO_LONG);
	KUNIT_EXPECT_EQ(test, res.err, XNET_E_TOO_LONG);
	KUNIT_EXPECT_EQ(test, res.pos, (unsigned int)PRIO_MAX_INPUT);
	KUNIT_EXPECT_EQ(test, res.len, 1U);
	KUNIT_EXPECT_PTR_EQ(test, out, SENTINEL);
	buf[PRIO_MAX_INPUT - 2] = '8';
	buf[PRIO_MAX_INPUT - 1] = '\n';
	rules = parse_n(test, buf, PRIO_MAX_INPUT);
	KUNIT_EXPECT_STREQ(test, format(test, rules), "prio=8");

	/* Longer input is refused up front, whatever it holds. */
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse(buf, 2 * PRIO_MAX_INPUT, &out, &res),
			XNET_E_TOO_LONG);
	KUNIT_EXPECT_EQ(test, res.pos, (unsigned int)PRIO_MAX_INPUT);
	KUNIT_EXPECT_EQ(test, res.len, (unsigned int)PRIO_MAX_INPUT);
	KUNIT_EXPECT_PTR_EQ(test, out, SENTINEL);
}

/* Canonical text into a short buffer: truncated, terminated, full length. */
static void nvme_tcp_prio_rules_format_truncates(struct kunit *test)
{
	static const char text[] =
		"laddr=fd00::/64,lport=4420,raddr=fd00::2,rport=50000,prio=7;prio=1";
	const size_t len = sizeof(text) - 1;
	struct xnet_prio_rules *rules = parse(test, text);
	char *buf = kunit_kmalloc(test, len + 8, GFP_KERNEL);
	size_t cap, i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (cap = 0; cap <= len + 2; cap++) {
		size_t kept = cap ? min(cap - 1, len) : 0;

		memset(buf, 'X', len + 8);
		KUNIT_EXPECT_EQ_MSG(test, xnet_prio_rules_format(rules, buf, cap),
				    (unsigned long)len, "cap %zu", cap);
		KUNIT_EXPECT_EQ_MSG(test, strncmp(buf, text, kept), 0,
				    "cap %zu", cap);
		if (cap)
			KUNIT_EXPECT_EQ_MSG(test, buf[kept], '\0', "cap %zu", cap);
		/* Nothing past the terminating NUL is written. */
		for (i = cap ? kept + 1 : 0; i < len + 8; i++)
			KUNIT_EXPECT_EQ_MSG(test, buf[i], 'X', "cap %zu byte %zu",
					    cap, i);
	}
	/* Asking for the length only. */
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_format(rules, NULL, 0),
			(unsigned long)len);
}

/* Matching. */

struct match_case {
	const char *what;
	const char *rules;
	struct ep_words ep;
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

static const struct match_case match_cases[] = {
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

static void match_case_desc(const struct match_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(match, match_cases, match_case_desc);

static void nvme_tcp_prio_rules_match(struct kunit *test)
{
	const struct match_case *c = test->param_value;
	struct xnet_prio_rules *rules = parse(test, c->rules);
	struct xnet_prio_endpoint ep = endpoint(&c->ep);
	unsigned int prio = UNTOUCHED;

	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(rules, &ep, &prio), c->idx);
	/* The priority of the matching rule, untouched if none. */
	KUNIT_EXPECT_EQ(test, prio, c->idx < 0 ? UNTOUCHED : c->prio);
	/* Matching changes nothing: the same answer again. */
	prio = UNTOUCHED;
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(rules, &ep, &prio), c->idx);
	KUNIT_EXPECT_EQ(test, prio, c->idx < 0 ? UNTOUCHED : c->prio);
}

/* Allocation: two GFP_KERNEL objects per parse; matching allocates none. */

static void nvme_tcp_prio_rules_alloc(struct kunit *test)
{
	const struct xnet_prio_endpoint ep = endpoint(&ep_default);
	struct xnet_prio_rules *rules = SENTINEL;
	unsigned int prio = UNTOUCHED;
	char buf[32];

	/* Success: the scratch copy is freed, the result kept. */
	KUNIT_ASSERT_EQ(test, xnet_prio_rules_parse("rport=4420,prio=5", 17,
						    &rules, NULL), XNET_OK);
	track(test, rules);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->last_gfp, GFP_KERNEL | __GFP_NOWARN);
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	KUNIT_EXPECT_PTR_NE(test, LOG->last_freed, (const void *)rules);

	/* Matching, counting and formatting do not allocate (any context). */
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(rules, &ep, &prio), 0);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(rules), 1U);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_format(rules, buf, sizeof(buf)),
			(unsigned long)strlen("rport=4420,prio=5"));
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);

	/* Empty and invalid input: both objects freed. */
	xnet_test_alloc_reset();
	rules = SENTINEL;
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse("\n", 1, &rules, NULL), XNET_OK);
	KUNIT_EXPECT_NULL(test, rules);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 2UL);
	KUNIT_EXPECT_NOT_NULL(test, LOG->last_freed);

	xnet_test_alloc_reset();
	rules = SENTINEL;
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse("prio=1;prio", 11, &rules, NULL),
			XNET_E_UNKNOWN_KEY);
	KUNIT_EXPECT_PTR_EQ(test, rules, SENTINEL);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 2UL);
	KUNIT_EXPECT_NOT_NULL(test, LOG->last_freed);

	/* free() gives back what parse() returned. */
	xnet_test_alloc_reset();
	rules = NULL;
	KUNIT_ASSERT_EQ(test, xnet_prio_rules_parse("prio=1", 6, &rules, NULL),
			XNET_OK);
	KUNIT_ASSERT_NOT_NULL(test, rules);
	xnet_prio_rules_free(rules);
	KUNIT_EXPECT_EQ(test, LOG->frees, 2UL);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)rules);
}

static void nvme_tcp_prio_rules_nomem(struct kunit *test)
{
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	struct xnet_prio_rules *rules = SENTINEL;
	unsigned int fail;

	for (fail = 1; fail <= 2; fail++) {
		xnet_test_alloc_reset();
		LOG->fail = fail;
		KUNIT_EXPECT_EQ_MSG(test, xnet_prio_rules_parse("prio=1", 6, &rules,
								&res),
				    XNET_E_NOMEM, "fail %u", fail);
		KUNIT_EXPECT_EQ(test, res.err, XNET_E_NOMEM);
		KUNIT_EXPECT_EQ(test, res.pos, 0U);
		KUNIT_EXPECT_EQ(test, res.len, 0U);
		KUNIT_EXPECT_PTR_EQ(test, rules, SENTINEL);
		KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
		KUNIT_EXPECT_EQ(test, LOG->fail, 0U);
		if (fail == 1) {
			/*
			 * The one object that was allocated is freed (whether
			 * delete of the failed one reaches kfree(NULL) is the
			 * compiler's choice).
			 */
			KUNIT_EXPECT_NOT_NULL(test, LOG->last_ptr);
			KUNIT_EXPECT_TRUE(test, LOG->frees == 2 ||
					  (LOG->frees == 1 &&
					   LOG->last_freed == LOG->last_ptr));
		} else {
			KUNIT_EXPECT_NULL(test, LOG->last_freed);
		}
	}
	/* The allocator is back: parsing works again. */
	xnet_test_alloc_reset();
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(parse(test, "prio=1")), 1U);
}

static int nvme_tcp_prio_rules_init(struct kunit *test)
{
	xnet_test_alloc_reset();
	return 0;
}

static void nvme_tcp_prio_rules_exit(struct kunit *test)
{
	xnet_test_alloc_reset();
}

static struct kunit_case nvme_tcp_prio_rules_cases[] = {
	KUNIT_CASE_PARAM(nvme_tcp_prio_rules_valid, valid_gen_params),
	KUNIT_CASE_PARAM(nvme_tcp_prio_rules_invalid, invalid_gen_params),
	KUNIT_CASE(nvme_tcp_prio_rules_error_keeps_current),
	KUNIT_CASE(nvme_tcp_prio_rules_null),
	KUNIT_CASE(nvme_tcp_prio_rules_max_rules),
	KUNIT_CASE(nvme_tcp_prio_rules_max_input),
	KUNIT_CASE(nvme_tcp_prio_rules_format_truncates),
	KUNIT_CASE_PARAM(nvme_tcp_prio_rules_match, match_gen_params),
	KUNIT_CASE(nvme_tcp_prio_rules_alloc),
	KUNIT_CASE(nvme_tcp_prio_rules_nomem),
	{}
};

static struct kunit_suite nvme_tcp_prio_rules_suite = {
	.name = "nvme_tcp_prio_rules",
	.init = nvme_tcp_prio_rules_init,
	.exit = nvme_tcp_prio_rules_exit,
	.test_cases = nvme_tcp_prio_rules_cases,
};

kunit_test_suite(nvme_tcp_prio_rules_suite);
