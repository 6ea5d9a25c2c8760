// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnet_core_inet: IPv4/IPv6 addresses and prefixes
 * (include/xnet/inet.hpp) below what the rules' C ABI shows, through the
 * test ABI: the bytes a text parses to, RFC 5952 text of any address,
 * prefix matching and the host-bits check at every prefix length, and the
 * bounded Writer that never overruns its buffer.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>

#include <xnet/abi.h>
#include "xnet_core_test_abi.h"

#define TEXT_MAX 64

/* Addresses as 8 16-bit words, IPv4 as ::ffff:a.b.c.d. */
#define V4(a, b, c, d)	{ 0, 0, 0, 0, 0, 0xffff, (a) << 8 | (b), (c) << 8 | (d) }
#define V6(a, b, c, d, e, f, g, h)	{ a, b, c, d, e, f, g, h }

/* The 16 bytes (network byte order) of the address in words @w. */
static void to_bytes(unsigned char *out, const unsigned short *w)
{
	unsigned int i;

	for (i = 0; i < 8; i++) {
		out[2 * i] = w[i] >> 8;
		out[2 * i + 1] = w[i] & 0xff;
	}
}

static struct xnet_test_prefix prefix(const unsigned short *w,
				      unsigned char len)
{
	struct xnet_test_prefix p;

	to_bytes(p.addr, w);
	p.len = len;
	return p;
}

static bool addr_eq(const unsigned char *a, const unsigned char *b)
{
	return !memcmp(a, b, 16);
}

/* Canonical text of @p into @buf[TEXT_MAX]; checks the returned length. */
static void text_of(struct kunit *test, const struct xnet_test_prefix *p,
		    char *buf)
{
	unsigned long n = xnet_test_inet_format_prefix(p, buf, TEXT_MAX);

	KUNIT_EXPECT_LT(test, n, (unsigned long)TEXT_MAX);
	KUNIT_EXPECT_EQ(test, n, (unsigned long)strlen(buf));
}

/* Parsing: the bytes, the length and the canonical text. */

struct parse_case {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	int err;
	unsigned short addr[8];	/* on success */
	unsigned char plen;
	const char *canon;
};

#define OK(s, a, l, c)		{ s, 0, XNET_OK, a, l, c }
#define BAD(s, e)		{ s, 0, e, { 0 }, 0, NULL }

static const struct parse_case parse_cases[] = {
	/* IPv4, stored IPv4-mapped. */
	OK("10.0.0.1", V4(10, 0, 0, 1), 32, "10.0.0.1"),
	OK("0.0.0.0", V4(0, 0, 0, 0), 32, "0.0.0.0"),
	OK("255.255.255.255", V4(255, 255, 255, 255), 32, "255.255.255.255"),
	OK("0.0.0.0/0", V4(0, 0, 0, 0), 0, "0.0.0.0/0"),
	OK("128.0.0.0/1", V4(128, 0, 0, 0), 1, "128.0.0.0/1"),
	OK("10.1.0.0/16", V4(10, 1, 0, 0), 16, "10.1.0.0/16"),
	OK("10.1.2.0/23", V4(10, 1, 2, 0), 23, "10.1.2.0/23"),
	OK("10.0.0.0/08", V4(10, 0, 0, 0), 8, "10.0.0.0/8"),
	OK("10.0.0.1/32", V4(10, 0, 0, 1), 32, "10.0.0.1"),
	OK("192.168.1.254/31", V4(192, 168, 1, 254), 31, "192.168.1.254/31"),
	/* IPv6, RFC 4291 text in, RFC 5952 text out. */
	OK("::", V6(0, 0, 0, 0, 0, 0, 0, 0), 128, "::"),
	OK("::/0", V6(0, 0, 0, 0, 0, 0, 0, 0), 0, "::/0"),
	OK("::1", V6(0, 0, 0, 0, 0, 0, 0, 1), 128, "::1"),
	OK("1::", V6(1, 0, 0, 0, 0, 0, 0, 0), 128, "1::"),
	OK("1::1", V6(1, 0, 0, 0, 0, 0, 0, 1), 128, "1::1"),
	OK("fd00::1", V6(0xfd00, 0, 0, 0, 0, 0, 0, 1), 128, "fd00::1"),
	OK("FD00:0:0:0:0:0:0:1", V6(0xfd00, 0, 0, 0, 0, 0, 0, 1), 128, "fd00::1"),
	OK("fd00:0000:0000:0000:0000:0000:0000:0001",
	   V6(0xfd00, 0, 0, 0, 0, 0, 0, 1), 128, "fd00::1"),
	OK("1:2:3:4:5:6:7:8", V6(1, 2, 3, 4, 5, 6, 7, 8), 128, "1:2:3:4:5:6:7:8"),
	OK("1::2:3:4:5:6:7", V6(1, 0, 2, 3, 4, 5, 6, 7), 128, "1:0:2:3:4:5:6:7"),
	OK("2001:0db8:0000:0000:0000:ff00:0042:8329",
	   V6(0x2001, 0xdb8, 0, 0, 0, 0xff00, 0x42, 0x8329), 128,
	   "2001:db8::ff00:42:8329"),
	OK("fd00::/8", V6(0xfd00, 0, 0, 0, 0, 0, 0, 0), 8, "fd00::/8"),
	OK("fd00::/64", V6(0xfd00, 0, 0, 0, 0, 0, 0, 0), 64, "fd00::/64"),
	OK("8000::/1", V6(0x8000, 0, 0, 0, 0, 0, 0, 0), 1, "8000::/1"),
	OK("fd00::1/128", V6(0xfd00, 0, 0, 0, 0, 0, 0, 1), 128, "fd00::1"),
	OK("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127",
	   V6(0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xfffe),
	   127, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127"),
	/* Brackets hold only an IPv6 address. */
	OK("[fd00::1]", V6(0xfd00, 0, 0, 0, 0, 0, 0, 1), 128, "fd00::1"),
	OK("[fd00::]/64", V6(0xfd00, 0, 0, 0, 0, 0, 0, 0), 64, "fd00::/64"),
	OK("[::ffff:1.2.3.4]", V4(1, 2, 3, 4), 32, "1.2.3.4"),
	/* A trailing dotted quad. */
	OK("::ffff:10.1.2.3", V4(10, 1, 2, 3), 32, "10.1.2.3"),
	OK("::FFFF:a01:203", V4(10, 1, 2, 3), 32, "10.1.2.3"),
	OK("0:0:0:0:0:ffff:10.1.2.3", V4(10, 1, 2, 3), 32, "10.1.2.3"),
	/* IPv4-mapped IPv6 is IPv4: its prefix length is an IPv4 one. */
	OK("::ffff:10.0.0.0/8", V4(10, 0, 0, 0), 8, "10.0.0.0/8"),
	OK("::ffff:0.0.0.0/0", V4(0, 0, 0, 0), 0, "0.0.0.0/0"),
	OK("::1.2.3.4", V6(0, 0, 0, 0, 0, 0, 0x102, 0x304), 128, "::102:304"),
	OK("::fffe:1.2.3.4", V6(0, 0, 0, 0, 0, 0xfffe, 0x102, 0x304), 128,
	   "::fffe:102:304"),
	OK("64:ff9b::1.2.3.4", V6(0x64, 0xff9b, 0, 0, 0, 0, 0x102, 0x304), 128,
	   "64:ff9b::102:304"),
	OK("1:2:3:4:5:6:1.2.3.4", V6(1, 2, 3, 4, 5, 6, 0x102, 0x304), 128,
	   "1:2:3:4:5:6:102:304"),
	/* The length bounds the input, not a NUL. */
	{ "10.0.0.1/24", 8, XNET_OK, V4(10, 0, 0, 1), 32, "10.0.0.1" },
	{ "fd00::1x", 7, XNET_OK, V6(0xfd00, 0, 0, 0, 0, 0, 0, 1), 128,
	  "fd00::1" },

	BAD("", XNET_E_EMPTY),
	BAD("[]", XNET_E_EMPTY),
	BAD("/8", XNET_E_EMPTY),
	BAD("[]/8", XNET_E_EMPTY),
	BAD("10.0.0.0/", XNET_E_EMPTY),
	/* Dotted quads: four decimal parts 0..255, no leading zeros. */
	BAD("10.0.0", XNET_E_INVALID),
	BAD("10.0.0.1.2", XNET_E_INVALID),
	BAD("256.0.0.1", XNET_E_INVALID),
	BAD("1234.0.0.1", XNET_E_INVALID),
	BAD("10.0.0.01", XNET_E_INVALID),
	BAD("00.0.0.0", XNET_E_INVALID),
	BAD("1..2.3", XNET_E_INVALID),
	BAD("10.0.0.1.", XNET_E_INVALID),
	BAD(".10.0.0.1", XNET_E_INVALID),
	BAD("a.b.c.d", XNET_E_INVALID),
	BAD("0x0a.0.0.1", XNET_E_INVALID),
	BAD("-1.0.0.0", XNET_E_INVALID),
	BAD(" 1.2.3.4", XNET_E_INVALID),
	BAD("1.2.3.4 ", XNET_E_INVALID),
	BAD("[10.0.0.1]", XNET_E_INVALID),
	BAD("[10.0.0.0]/8", XNET_E_INVALID),
	/* IPv6 text. */
	BAD(":", XNET_E_INVALID),
	BAD(":::", XNET_E_INVALID),
	BAD("1:::2", XNET_E_INVALID),
	BAD("1::2::3", XNET_E_INVALID),
	BAD("fd00:", XNET_E_INVALID),
	BAD(":fd00::", XNET_E_INVALID),
	BAD("::1:", XNET_E_INVALID),
	BAD("1:2:3:4:5:6:7", XNET_E_INVALID),
	BAD("1:2:3:4:5:6:7:8:9", XNET_E_INVALID),
	BAD("1:2:3:4:5:6:7::8", XNET_E_INVALID),
	BAD("1:2:3:4::5:6:7:8", XNET_E_INVALID),
	BAD("12345::", XNET_E_INVALID),
	BAD("g::1", XNET_E_INVALID),
	BAD("fe80::1%eth0", XNET_E_INVALID),
	BAD("[fd00::1/64]", XNET_E_INVALID),
	BAD("[fd00::1", XNET_E_INVALID),
	BAD("fd00::1]", XNET_E_INVALID),
	BAD("[[::1]]", XNET_E_INVALID),
	BAD("::1.2.3", XNET_E_INVALID),
	BAD("::1.2.3.04", XNET_E_INVALID),
	BAD("1.2.3.4::", XNET_E_INVALID),
	BAD("::ffff:1.2.3.4:1", XNET_E_INVALID),
	BAD("1:2:3:4:5:6:7:1.2.3.4", XNET_E_INVALID),
	/* Prefix lengths: decimal, in the address's family. */
	BAD("10.0.0.0/x", XNET_E_INVALID),
	BAD("10.0.0.0/ 8", XNET_E_INVALID),
	BAD("10.0.0.0/-1", XNET_E_SIGN),
	BAD("10.0.0.0/+8", XNET_E_SIGN),
	BAD("10.0.0.0/256", XNET_E_OVERFLOW),
	BAD("10.0.0.1/33", XNET_E_RANGE),
	BAD("::/129", XNET_E_RANGE),
	BAD("::ffff:10.0.0.0/104", XNET_E_RANGE),
	BAD("10.0.0.0/8x", XNET_E_TRAILING),
	BAD("10.0.0.0/8/8", XNET_E_TRAILING),
	/* Host bits set beyond the prefix length. */
	BAD("10.0.0.1/24", XNET_E_HOST_BITS),
	BAD("10.0.0.1/31", XNET_E_HOST_BITS),
	BAD("1.0.0.0/0", XNET_E_HOST_BITS),
	BAD("11.0.0.0/7", XNET_E_HOST_BITS),
	BAD("fd00::1/64", XNET_E_HOST_BITS),
	BAD("::1/127", XNET_E_HOST_BITS),
	BAD("8000::/0", XNET_E_HOST_BITS),
	BAD("fd00::/7", XNET_E_HOST_BITS),
};

static void parse_case_desc(const struct parse_case *c, char *desc)
{
	size_t n = c->len ? c->len : strlen(c->in);

	scnprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%.*s\" %s", (int)n, c->in,
		  xnet_err_str(c->err));
}

KUNIT_ARRAY_PARAM(inet_parse, parse_cases, parse_case_desc);

static void xnet_core_inet_parse(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	size_t n = c->len ? c->len : strlen(c->in);
	struct xnet_test_prefix p, again, want = prefix(c->addr, c->plen);
	char text[TEXT_MAX];

	memset(&p, 0xa5, sizeof(p));
	KUNIT_ASSERT_EQ_MSG(test, xnet_test_inet_parse_prefix(c->in, n, &p),
			    c->err, "%s", xnet_err_str(c->err));
	if (c->err != XNET_OK) {
		/* Nothing is written on error. */
		KUNIT_EXPECT_EQ(test, p.len, 0xa5);
		KUNIT_EXPECT_EQ(test, p.addr[0], 0xa5);
		KUNIT_EXPECT_EQ(test, p.addr[15], 0xa5);
		return;
	}
	KUNIT_EXPECT_TRUE_MSG(test, addr_eq(p.addr, want.addr), "%16phN", p.addr);
	KUNIT_EXPECT_EQ(test, p.len, c->plen);
	text_of(test, &p, text);
	KUNIT_EXPECT_STREQ(test, text, c->canon);

	/* The canonical text parses back to the same prefix. */
	KUNIT_ASSERT_EQ(test, xnet_test_inet_parse_prefix(text, strlen(text),
							  &again), XNET_OK);
	KUNIT_EXPECT_TRUE(test, addr_eq(again.addr, want.addr));
	KUNIT_EXPECT_EQ(test, again.len, c->plen);
}

/* RFC 5952 text of addresses given as bytes. */

struct format_case {
	unsigned short addr[8];
	unsigned char plen;
	const char *text;
};

#define F(a, l, t)	{ a, l, t }

static const struct format_case format_cases[] = {
	F(V6(0, 0, 0, 0, 0, 0, 0, 0), 128, "::"),
	F(V6(0, 0, 0, 0, 0, 0, 0, 1), 128, "::1"),
	F(V6(1, 0, 0, 0, 0, 0, 0, 0), 128, "1::"),
	F(V6(1, 0, 0, 0, 0, 0, 0, 1), 128, "1::1"),
	/* 4.2.1: the longest run of zero words; 4.2.3: the first on ties. */
	F(V6(1, 0, 2, 0, 0, 0, 3, 4), 128, "1:0:2::3:4"),
	F(V6(1, 0, 0, 2, 0, 0, 3, 4), 128, "1::2:0:0:3:4"),
	F(V6(0, 0, 1, 2, 3, 0, 0, 4), 128, "::1:2:3:0:0:4"),
	F(V6(0, 0, 0, 1, 0, 0, 0, 0), 128, "0:0:0:1::"),
	F(V6(0x2001, 0xdb8, 0, 0, 1, 0, 0, 1), 128, "2001:db8::1:0:0:1"),
	/* 4.2.2: one zero word is not compressed. */
	F(V6(1, 0, 2, 3, 4, 5, 6, 7), 128, "1:0:2:3:4:5:6:7"),
	F(V6(0, 1, 2, 3, 4, 5, 6, 7), 128, "0:1:2:3:4:5:6:7"),
	F(V6(1, 2, 3, 4, 5, 6, 7, 0), 128, "1:2:3:4:5:6:7:0"),
	F(V6(1, 0, 1, 0, 1, 0, 1, 0), 128, "1:0:1:0:1:0:1:0"),
	/* 4.1: no leading zeros; 4.3: lowercase. */
	F(V6(0x10, 0x100, 0x1000, 0xf, 0xabcd, 0xef01, 0xa, 0xb0), 128,
	  "10:100:1000:f:abcd:ef01:a:b0"),
	F(V6(0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff), 128,
	  "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
	/* IPv4-mapped is IPv4 (dotted quad); nothing else is. */
	F(V4(1, 2, 3, 4), 32, "1.2.3.4"),
	F(V4(0, 0, 0, 0), 32, "0.0.0.0"),
	F(V4(255, 255, 255, 255), 32, "255.255.255.255"),
	F(V4(10, 0, 0, 0), 8, "10.0.0.0/8"),
	F(V4(0, 0, 0, 0), 0, "0.0.0.0/0"),
	F(V6(0, 0, 0, 0, 0, 0xfffe, 0x102, 0x304), 128, "::fffe:102:304"),
	F(V6(0, 0, 0, 0, 0, 0x00ff, 0x102, 0x304), 128, "::ff:102:304"),
	F(V6(0, 0, 0, 0, 1, 0xffff, 0x102, 0x304), 128, "::1:ffff:102:304"),
	F(V6(0x100, 0, 0, 0, 0, 0xffff, 0x102, 0x304), 128,
	  "100::ffff:102:304"),
	F(V6(0, 0, 0, 0, 0, 0, 0x102, 0x304), 128, "::102:304"),
	/* The length only when it is not the full one. */
	F(V6(0xfd00, 0, 0, 0, 0, 0, 0, 0), 64, "fd00::/64"),
	F(V6(0, 0, 0, 0, 0, 0, 0, 0), 0, "::/0"),
	F(V6(0xfd00, 0, 0, 0, 0, 0, 0, 2), 127, "fd00::2/127"),
};

static void format_case_desc(const struct format_case *c, char *desc)
{
	strscpy(desc, c->text, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(inet_format, format_cases, format_case_desc);

static void xnet_core_inet_format(struct kunit *test)
{
	const struct format_case *c = test->param_value;
	struct xnet_test_prefix p = prefix(c->addr, c->plen), back;
	char text[TEXT_MAX];

	text_of(test, &p, text);
	KUNIT_EXPECT_STREQ(test, text, c->text);

	/* And the text is the same address. */
	KUNIT_ASSERT_EQ(test, xnet_test_inet_parse_prefix(c->text,
							  strlen(c->text),
							  &back), XNET_OK);
	KUNIT_EXPECT_TRUE_MSG(test, addr_eq(back.addr, p.addr), "%16phN",
			      back.addr);
	KUNIT_EXPECT_EQ(test, back.len, c->plen);
}

/* Prefix matching and host bits at every length. */

static void flip(unsigned char *a, unsigned int bit)
{
	a[bit / 8] ^= 0x80 >> (bit % 8);
}

/* Clear the bits of @a from @bit on. */
static void clear_from(unsigned char *a, unsigned int bit)
{
	for (; bit < 128; bit++)
		a[bit / 8] &= ~(0x80 >> (bit % 8));
}

/*
 * A prefix of every length over @base (whose bits after the family's
 * fixed part are all tried as host bits), with @off the family's offset in
 * the 128-bit form (96 for IPv4, 0 for IPv6) and @other an address of the
 * other family.
 */
static void check_every_len(struct kunit *test, const unsigned short *base_w,
			    unsigned int off, const unsigned short *other_w)
{
	unsigned int max = 128 - off, len;
	unsigned char base[16], other[16];
	char text[TEXT_MAX];

	to_bytes(base, base_w);
	to_bytes(other, other_w);

	for (len = 0; len <= max; len++) {
		unsigned int bits = off + len;
		struct xnet_test_prefix p, q;
		unsigned char a[16];

		memcpy(p.addr, base, 16);
		clear_from(p.addr, bits);
		p.len = len;

		/* Inside: the prefix itself and the base with its host bits. */
		KUNIT_EXPECT_TRUE_MSG(test, xnet_test_inet_contains(&p, p.addr),
				      "/%u", len);
		KUNIT_EXPECT_TRUE_MSG(test, xnet_test_inet_contains(&p, base),
				      "/%u", len);
		/* Outside: the last prefix bit flipped. */
		if (len) {
			memcpy(a, base, 16);
			flip(a, bits - 1);
			KUNIT_EXPECT_FALSE_MSG(test, xnet_test_inet_contains(&p, a),
					       "/%u", len);
		}
		/* Inside: the first and the last host bit flipped. */
		if (len < max) {
			memcpy(a, p.addr, 16);
			flip(a, bits);
			KUNIT_EXPECT_TRUE_MSG(test, xnet_test_inet_contains(&p, a),
					      "/%u", len);
			memcpy(a, p.addr, 16);
			flip(a, 127);
			KUNIT_EXPECT_TRUE_MSG(test, xnet_test_inet_contains(&p, a),
					      "/%u", len);
		}
		/* Families never mix, not even for /0. */
		KUNIT_EXPECT_FALSE_MSG(test, xnet_test_inet_contains(&p, other),
				       "/%u", len);

		/* Its text parses back to it: no host bits set. */
		memset(&q, 0, sizeof(q));
		text_of(test, &p, text);
		KUNIT_EXPECT_EQ_MSG(test, xnet_test_inet_parse_prefix(text,
								      strlen(text),
								      &q),
				    XNET_OK, "%s", text);
		KUNIT_EXPECT_TRUE_MSG(test, addr_eq(q.addr, p.addr), "%s", text);
		KUNIT_EXPECT_EQ_MSG(test, q.len, len, "%s", text);

		/* The first or the last host bit set: refused. */
		if (len < max) {
			q = p;
			flip(q.addr, bits);
			text_of(test, &q, text);
			KUNIT_EXPECT_EQ_MSG(test,
					    xnet_test_inet_parse_prefix(text, strlen(text),
									&q),
					    XNET_E_HOST_BITS, "%s", text);
			q = p;
			flip(q.addr, 127);
			text_of(test, &q, text);
			KUNIT_EXPECT_EQ_MSG(test,
					    xnet_test_inet_parse_prefix(text, strlen(text),
									&q),
					    XNET_E_HOST_BITS, "%s", text);
		}
	}
}

static void xnet_core_inet_v4_every_len(struct kunit *test)
{
	static const unsigned short base[8] = V4(0xa5, 0x5a, 0xc3, 0x3c);
	static const unsigned short v6[8] = V6(0, 0, 0, 0, 0, 0, 0, 0);
	static const unsigned short all[8] = V4(0, 0, 0, 0);
	static const unsigned short near[8] = V6(0, 0, 0, 0, 0, 0xfffe, 0, 0);
	struct xnet_test_prefix p = prefix(all, 0), a = prefix(near, 128);

	check_every_len(test, base, 96, v6);
	/* IPv4 /0 holds every IPv4 address and nothing else. */
	KUNIT_EXPECT_TRUE(test, xnet_test_inet_contains(&p, prefix(base, 0).addr));
	KUNIT_EXPECT_FALSE(test, xnet_test_inet_contains(&p, a.addr));
}

static void xnet_core_inet_v6_every_len(struct kunit *test)
{
	static const unsigned short base[8] = V6(0xa55a, 0xc33c, 0x0ff0, 0x9669,
						 0x1234, 0x5678, 0x9abc, 0xdef1);
	static const unsigned short v4[8] = V4(0, 0, 0, 0);
	static const unsigned short all[8] = V6(0, 0, 0, 0, 0, 0, 0, 0);
	static const unsigned short mapped[8] = V4(0xa5, 0x5a, 0xc3, 0x3c);
	struct xnet_test_prefix p = prefix(all, 0), a = prefix(mapped, 32);

	check_every_len(test, base, 0, v4);
	/* IPv6 /0 holds every IPv6 address but no IPv4-mapped one. */
	KUNIT_EXPECT_TRUE(test, xnet_test_inet_contains(&p, prefix(base, 0).addr));
	KUNIT_EXPECT_FALSE(test, xnet_test_inet_contains(&p, a.addr));
}

/* The Writer: truncates, terminates, reports the full length. */

static void check_truncation(struct kunit *test,
			     const struct xnet_test_prefix *p, const char *full)
{
	size_t len = strlen(full), cap, i;
	char buf[TEXT_MAX + 8];

	KUNIT_ASSERT_LT(test, len + 2, (size_t)TEXT_MAX);
	for (cap = 0; cap <= len + 2; cap++) {
		size_t kept = cap ? min(cap - 1, len) : 0;

		memset(buf, 'X', sizeof(buf));
		KUNIT_EXPECT_EQ_MSG(test, xnet_test_inet_format_prefix(p, buf, cap),
				    (unsigned long)len, "cap %zu", cap);
		KUNIT_EXPECT_EQ_MSG(test, strncmp(buf, full, kept), 0, "cap %zu",
				    cap);
		if (cap)
			KUNIT_EXPECT_EQ_MSG(test, buf[kept], '\0', "cap %zu", cap);
		for (i = cap ? kept + 1 : 0; i < sizeof(buf); i++)
			KUNIT_EXPECT_EQ_MSG(test, buf[i], 'X', "cap %zu byte %zu",
					    cap, i);
	}
}

static void xnet_core_inet_writer_truncates(struct kunit *test)
{
	static const unsigned short w4[8] = V4(255, 255, 255, 255);
	static const unsigned short w6[8] = V6(0xffff, 0xffff, 0xffff, 0xffff,
					       0xffff, 0xffff, 0xffff, 0xfffe);
	const struct xnet_test_prefix v4 = prefix(w4, 32), v6 = prefix(w6, 127);

	check_truncation(test, &v4, "255.255.255.255");
	check_truncation(test, &v6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127");
	/* The length only: no buffer. */
	KUNIT_EXPECT_EQ(test, xnet_test_inet_format_prefix(&v4, NULL, 0), 15UL);
}

static void xnet_core_inet_writer_uint(struct kunit *test)
{
	static const struct {
		unsigned long long v;
		const char *text;
	} cases[] = {
		{ 0, "0" },
		{ 9, "9" },
		{ 10, "10" },
		{ 4294967295ULL, "4294967295" },
		{ 10000000000000000000ULL, "10000000000000000000" },
		/* 20 digits: the longest a u64 has. */
		{ ULLONG_MAX, "18446744073709551615" },
	};
	char buf[32];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(buf, 'X', sizeof(buf));
		KUNIT_EXPECT_EQ(test, xnet_test_inet_put_uint(cases[i].v, buf,
							      sizeof(buf)),
				(unsigned long)strlen(cases[i].text));
		KUNIT_EXPECT_STREQ(test, buf, cases[i].text);
	}
	/* Truncated to the buffer, length still counted. */
	memset(buf, 'X', sizeof(buf));
	KUNIT_EXPECT_EQ(test, xnet_test_inet_put_uint(ULLONG_MAX, buf, 5), 20UL);
	KUNIT_EXPECT_STREQ(test, buf, "1844");
	KUNIT_EXPECT_EQ(test, buf[5], 'X');
}

static struct kunit_case xnet_core_inet_cases[] = {
	KUNIT_CASE_PARAM(xnet_core_inet_parse, inet_parse_gen_params),
	KUNIT_CASE_PARAM(xnet_core_inet_format, inet_format_gen_params),
	KUNIT_CASE(xnet_core_inet_v4_every_len),
	KUNIT_CASE(xnet_core_inet_v6_every_len),
	KUNIT_CASE(xnet_core_inet_writer_truncates),
	KUNIT_CASE(xnet_core_inet_writer_uint),
	{}
};

static struct kunit_suite xnet_core_inet_suite = {
	.name = "xnet_core_inet",
	.test_cases = xnet_core_inet_cases,
};

kunit_test_suite(xnet_core_inet_suite);
