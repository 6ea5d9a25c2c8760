// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <string>
#include <utility>
#include <algorithm>

#include <nvprio/inet.hpp>

using namespace xnet;
using inet::Addr;
using inet::Prefix;

namespace {

Err pfx(const std::string &s, Prefix *p)
{
	return inet::parse_prefix(s.data(), s.size(), p);
}

// Canonical text of @p; checks the length the Writer reports.
std::string text(const Prefix &p)
{
	char buf[64];
	inet::Writer w{ buf, sizeof(buf), 0 };

	inet::format_prefix(w, p);
	usize n = w.finish();
	EXPECT_LT(n, sizeof(buf));
	EXPECT_EQ(n, std::strlen(buf));
	return buf;
}

std::string canon(const std::string &s)
{
	Prefix p{};
	Err e = pfx(s, &p);

	return e == Err::Ok ? text(p) : std::string("ERR:") + err_str(e);
}

Addr a6(const std::string &s)
{
	Addr a{};

	EXPECT_TRUE(inet::parse_v6(s.data(), s.size(), &a)) << s;
	return a;
}

// Addresses as 8 16-bit words, IPv4 as ::ffff:a.b.c.d.
#define V4(a, b, c, d)	{ 0, 0, 0, 0, 0, 0xffff, (a) << 8 | (b), (c) << 8 | (d) }
#define V6(a, b, c, d, e, f, g, h)	{ a, b, c, d, e, f, g, h }

struct Words {
	u16 w[8];
};

// The address (network byte order) of the words @w.
Addr of_words(const Words &w)
{
	Addr a{};

	for (int i = 0; i < 8; i++) {
		a.b[2 * i] = static_cast<u8>(w.w[i] >> 8);
		a.b[2 * i + 1] = static_cast<u8>(w.w[i]);
	}
	return a;
}

Prefix prefix(const Words &w, u8 len)
{
	return Prefix{ of_words(w), len };
}

std::string hex(const Addr &a)
{
	static const char digits[] = "0123456789abcdef";
	std::string s;

	for (u8 b : a.b) {
		s += digits[b >> 4];
		s += digits[b & 0xf];
	}
	return s;
}

void flip(Addr *a, u32 bit)
{
	a->b[bit / 8] ^= static_cast<u8>(0x80 >> (bit % 8));
}

// Clear the bits of @a from @bit on.
void clear_from(Addr *a, u32 bit)
{
	for (; bit < 128; bit++)
		a->b[bit / 8] &= static_cast<u8>(~(0x80 >> (bit % 8)));
}

} // namespace

TEST(Inet, V4Parse)
{
	EXPECT_EQ(canon("10.0.0.1"), "10.0.0.1");
	EXPECT_EQ(canon("255.255.255.255"), "255.255.255.255");
	EXPECT_EQ(canon("0.0.0.0/0"), "0.0.0.0/0");
	EXPECT_EQ(canon("10.1.0.0/16"), "10.1.0.0/16");
	EXPECT_EQ(canon("10.0.0.1/32"), "10.0.0.1");
	for (const char *bad : { "10.0.0", "10.0.0.1.2", "256.0.0.1", "10.0.0.01", "1..2.3",
				 "10.0.0.1.", "a.b.c.d", "10.0.0.1/33", "10.0.0.1/-1",
				 "10.0.0.1/", "[10.0.0.1]", "1.2.3.4 " })
		EXPECT_NE(canon(bad).rfind("ERR:", 0), std::string::npos) << bad;
	EXPECT_EQ(canon("10.0.0.1/24"), std::string("ERR:") + err_str(Err::HostBits));
	EXPECT_EQ(canon(""), std::string("ERR:") + err_str(Err::Empty));
}

TEST(Inet, V6ParseAndRfc5952)
{
	EXPECT_EQ(canon("::"), "::");
	EXPECT_EQ(canon("::1"), "::1");
	EXPECT_EQ(canon("fd00::1"), "fd00::1");
	EXPECT_EQ(canon("FD00:0:0:0:0:0:0:1"), "fd00::1");
	EXPECT_EQ(canon("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1") << "first longest run";
	EXPECT_EQ(canon("2001:0db8:0000:0000:0000:ff00:0042:8329"), "2001:db8::ff00:42:8329");
	EXPECT_EQ(canon("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1") << "no :: for one zero word";
	EXPECT_EQ(canon("1::"), "1::");
	EXPECT_EQ(canon("[fd00::1]"), "fd00::1");
	EXPECT_EQ(canon("[fd00::]/64"), "fd00::/64");
	EXPECT_EQ(canon("fd00::/8"), "fd00::/8");
	EXPECT_EQ(canon("::ffff:10.1.2.3"), "10.1.2.3") << "mapped IPv4 is IPv4";
	EXPECT_EQ(canon("64:ff9b::1.2.3.4"), "64:ff9b::102:304");
	for (const char *bad : { ":", ":::", "1:::2", "1::2::3", "fd00:", ":fd00::", "1:2:3:4:5:6:7",
				 "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8", "12345::", "g::1",
				 "fd00::1/129", "[fd00::1/64]", "[fd00::1", "::1.2.3", "1.2.3.4::" })
		EXPECT_NE(canon(bad).rfind("ERR:", 0), std::string::npos) << bad;
	EXPECT_EQ(canon("fd00::1/64"), std::string("ERR:") + err_str(Err::HostBits));
}

TEST(Inet, PrefixContains)
{
	Prefix p{};

	ASSERT_EQ(pfx("10.1.0.0/16", &p), Err::Ok);
	EXPECT_TRUE(p.contains(inet::v4(10, 1, 200, 3)));
	EXPECT_FALSE(p.contains(inet::v4(10, 2, 0, 1)));
	EXPECT_FALSE(p.contains(a6("fd00::1"))) << "families never mix";

	ASSERT_EQ(pfx("10.1.2.0/23", &p), Err::Ok);
	EXPECT_TRUE(p.contains(inet::v4(10, 1, 3, 255)));
	EXPECT_FALSE(p.contains(inet::v4(10, 1, 4, 0)));

	ASSERT_EQ(pfx("0.0.0.0/0", &p), Err::Ok);
	EXPECT_TRUE(p.contains(inet::v4(192, 0, 2, 1)));
	EXPECT_FALSE(p.contains(a6("::1"))) << "/0 of IPv4 is all of IPv4 only";

	ASSERT_EQ(pfx("fd00:0:0:8000::/49", &p), Err::Ok);
	EXPECT_TRUE(p.contains(a6("fd00:0:0:ffff::1")));
	EXPECT_FALSE(p.contains(a6("fd00:0:0:7fff::1")));

	ASSERT_EQ(pfx("::/0", &p), Err::Ok);
	EXPECT_TRUE(p.contains(a6("2001:db8::1")));
	EXPECT_FALSE(p.contains(inet::v4(1, 2, 3, 4)));

	// An IPv6 prefix over the IPv4-mapped block (found by the fuzzer):
	// its IPv6 addresses match, the mapped ones are IPv4 and do not.
	ASSERT_EQ(pfx("::fffe:0:0/95", &p), Err::Ok);
	EXPECT_TRUE(p.contains(a6("::fffe:1:2")));
	EXPECT_FALSE(p.contains(a6("::ffff:0:0")));
	EXPECT_FALSE(p.contains(inet::v4(0, 0, 0, 0)));

	ASSERT_EQ(pfx("10.0.0.7", &p), Err::Ok);
	EXPECT_TRUE(p.contains(inet::v4(10, 0, 0, 7)));
	EXPECT_FALSE(p.contains(inet::v4(10, 0, 0, 6)));
}

TEST(Inet, WriterNeverOverruns)
{
	char buf[8];
	inet::Writer w{ buf, sizeof(buf), 0 };
	Prefix p{};

	ASSERT_EQ(pfx("255.255.255.255", &p), Err::Ok);
	inet::format_prefix(w, p);
	EXPECT_EQ(w.finish(), 15u) << "full length reported";
	EXPECT_STREQ(buf, "255.255");
}

// Parsing: the bytes, the length and the canonical text, which parses back
// to the same prefix; nothing is written on error.
TEST(Inet, ParseCases)
{
	static const struct {
		const char *in;
		usize len;	// 0: strlen(in)
		Err err;
		Words addr;	// on success
		u8 plen;
		const char *canon;
	} cases[] = {
#define OK(s, a, l, c)	{ s, 0, Err::Ok, { a }, l, c }
#define BAD(s, e)	{ s, 0, Err::e, {}, 0, nullptr }
		// IPv4, stored IPv4-mapped.
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
		// IPv6, RFC 4291 text in, RFC 5952 text out.
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
		// Brackets hold only an IPv6 address.
		OK("[fd00::1]", V6(0xfd00, 0, 0, 0, 0, 0, 0, 1), 128, "fd00::1"),
		OK("[fd00::]/64", V6(0xfd00, 0, 0, 0, 0, 0, 0, 0), 64, "fd00::/64"),
		OK("[::ffff:1.2.3.4]", V4(1, 2, 3, 4), 32, "1.2.3.4"),
		// A trailing dotted quad.
		OK("::ffff:10.1.2.3", V4(10, 1, 2, 3), 32, "10.1.2.3"),
		OK("::FFFF:a01:203", V4(10, 1, 2, 3), 32, "10.1.2.3"),
		OK("0:0:0:0:0:ffff:10.1.2.3", V4(10, 1, 2, 3), 32, "10.1.2.3"),
		// IPv4-mapped IPv6 is IPv4: its prefix length is an IPv4 one.
		OK("::ffff:10.0.0.0/8", V4(10, 0, 0, 0), 8, "10.0.0.0/8"),
		OK("::ffff:0.0.0.0/0", V4(0, 0, 0, 0), 0, "0.0.0.0/0"),
		OK("::1.2.3.4", V6(0, 0, 0, 0, 0, 0, 0x102, 0x304), 128, "::102:304"),
		OK("::fffe:1.2.3.4", V6(0, 0, 0, 0, 0, 0xfffe, 0x102, 0x304), 128,
		   "::fffe:102:304"),
		OK("64:ff9b::1.2.3.4", V6(0x64, 0xff9b, 0, 0, 0, 0, 0x102, 0x304), 128,
		   "64:ff9b::102:304"),
		OK("1:2:3:4:5:6:1.2.3.4", V6(1, 2, 3, 4, 5, 6, 0x102, 0x304), 128,
		   "1:2:3:4:5:6:102:304"),
		// The length bounds the input, not a NUL.
		{ "10.0.0.1/24", 8, Err::Ok, { V4(10, 0, 0, 1) }, 32, "10.0.0.1" },
		{ "fd00::1x", 7, Err::Ok, { V6(0xfd00, 0, 0, 0, 0, 0, 0, 1) }, 128,
		  "fd00::1" },

		BAD("", Empty),
		BAD("[]", Empty),
		BAD("/8", Empty),
		BAD("[]/8", Empty),
		BAD("10.0.0.0/", Empty),
		// Dotted quads: four decimal parts 0..255, no leading zeros.
		BAD("10.0.0", Invalid),
		BAD("10.0.0.1.2", Invalid),
		BAD("256.0.0.1", Invalid),
		BAD("1234.0.0.1", Invalid),
		BAD("10.0.0.01", Invalid),
		BAD("00.0.0.0", Invalid),
		BAD("1..2.3", Invalid),
		BAD("10.0.0.1.", Invalid),
		BAD(".10.0.0.1", Invalid),
		BAD("a.b.c.d", Invalid),
		BAD("0x0a.0.0.1", Invalid),
		BAD("-1.0.0.0", Invalid),
		BAD(" 1.2.3.4", Invalid),
		BAD("1.2.3.4 ", Invalid),
		BAD("[10.0.0.1]", Invalid),
		BAD("[10.0.0.0]/8", Invalid),
		// IPv6 text.
		BAD(":", Invalid),
		BAD(":::", Invalid),
		BAD("1:::2", Invalid),
		BAD("1::2::3", Invalid),
		BAD("fd00:", Invalid),
		BAD(":fd00::", Invalid),
		BAD("::1:", Invalid),
		BAD("1:2:3:4:5:6:7", Invalid),
		BAD("1:2:3:4:5:6:7:8:9", Invalid),
		BAD("1:2:3:4:5:6:7::8", Invalid),
		BAD("1:2:3:4::5:6:7:8", Invalid),
		BAD("12345::", Invalid),
		BAD("g::1", Invalid),
		BAD("fe80::1%eth0", Invalid),
		BAD("[fd00::1/64]", Invalid),
		BAD("[fd00::1", Invalid),
		BAD("fd00::1]", Invalid),
		BAD("[[::1]]", Invalid),
		BAD("::1.2.3", Invalid),
		BAD("::1.2.3.04", Invalid),
		BAD("1.2.3.4::", Invalid),
		BAD("::ffff:1.2.3.4:1", Invalid),
		BAD("1:2:3:4:5:6:7:1.2.3.4", Invalid),
		// Prefix lengths: decimal, in the address's family.
		BAD("10.0.0.0/x", Invalid),
		BAD("10.0.0.0/ 8", Invalid),
		BAD("10.0.0.0/-1", Sign),
		BAD("10.0.0.0/+8", Sign),
		BAD("10.0.0.0/256", Overflow),
		BAD("10.0.0.1/33", Range),
		BAD("::/129", Range),
		BAD("::ffff:10.0.0.0/104", Range),
		BAD("10.0.0.0/8x", Trailing),
		BAD("10.0.0.0/8/8", Trailing),
		// Host bits set beyond the prefix length.
		BAD("10.0.0.1/24", HostBits),
		BAD("10.0.0.1/31", HostBits),
		BAD("1.0.0.0/0", HostBits),
		BAD("11.0.0.0/7", HostBits),
		BAD("fd00::1/64", HostBits),
		BAD("::1/127", HostBits),
		BAD("8000::/0", HostBits),
		BAD("fd00::/7", HostBits),
#undef OK
#undef BAD
	};

	for (const auto &c : cases) {
		usize n = c.len ? c.len : std::strlen(c.in);
		Prefix p, again{};

		SCOPED_TRACE(testing::Message() << '"' << std::string(c.in, n) << '"');
		std::memset(&p, 0xa5, sizeof(p));
		ASSERT_EQ(inet::parse_prefix(c.in, n, &p), c.err) << err_str(c.err);
		if (c.err != Err::Ok) {
			EXPECT_EQ(p.len, 0xa5) << "nothing is written on error";
			EXPECT_EQ(p.addr.b[0], 0xa5);
			EXPECT_EQ(p.addr.b[15], 0xa5);
			continue;
		}
		Prefix want = prefix(c.addr, c.plen);

		EXPECT_TRUE(p.addr == want.addr) << hex(p.addr);
		EXPECT_EQ(p.len, c.plen);
		std::string t = text(p);
		EXPECT_EQ(t, c.canon);

		// The canonical text parses back to the same prefix.
		ASSERT_EQ(pfx(t, &again), Err::Ok);
		EXPECT_TRUE(again.addr == want.addr) << hex(again.addr);
		EXPECT_EQ(again.len, c.plen);
	}
}

// RFC 5952 text of addresses given as bytes; the text is the same address.
TEST(Inet, FormatCases)
{
	static const struct {
		Words addr;
		u8 plen;
		const char *text;
	} cases[] = {
#define F(a, l, t)	{ { a }, l, t }
		F(V6(0, 0, 0, 0, 0, 0, 0, 0), 128, "::"),
		F(V6(0, 0, 0, 0, 0, 0, 0, 1), 128, "::1"),
		F(V6(1, 0, 0, 0, 0, 0, 0, 0), 128, "1::"),
		F(V6(1, 0, 0, 0, 0, 0, 0, 1), 128, "1::1"),
		// 4.2.1: the longest run of zero words; 4.2.3: the first on ties.
		F(V6(1, 0, 2, 0, 0, 0, 3, 4), 128, "1:0:2::3:4"),
		F(V6(1, 0, 0, 2, 0, 0, 3, 4), 128, "1::2:0:0:3:4"),
		F(V6(0, 0, 1, 2, 3, 0, 0, 4), 128, "::1:2:3:0:0:4"),
		F(V6(0, 0, 0, 1, 0, 0, 0, 0), 128, "0:0:0:1::"),
		F(V6(0x2001, 0xdb8, 0, 0, 1, 0, 0, 1), 128, "2001:db8::1:0:0:1"),
		// 4.2.2: one zero word is not compressed.
		F(V6(1, 0, 2, 3, 4, 5, 6, 7), 128, "1:0:2:3:4:5:6:7"),
		F(V6(0, 1, 2, 3, 4, 5, 6, 7), 128, "0:1:2:3:4:5:6:7"),
		F(V6(1, 2, 3, 4, 5, 6, 7, 0), 128, "1:2:3:4:5:6:7:0"),
		F(V6(1, 0, 1, 0, 1, 0, 1, 0), 128, "1:0:1:0:1:0:1:0"),
		// 4.1: no leading zeros; 4.3: lowercase.
		F(V6(0x10, 0x100, 0x1000, 0xf, 0xabcd, 0xef01, 0xa, 0xb0), 128,
		  "10:100:1000:f:abcd:ef01:a:b0"),
		F(V6(0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff), 128,
		  "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
		// IPv4-mapped is IPv4 (dotted quad); nothing else is.
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
		// The length only when it is not the full one.
		F(V6(0xfd00, 0, 0, 0, 0, 0, 0, 0), 64, "fd00::/64"),
		F(V6(0, 0, 0, 0, 0, 0, 0, 0), 0, "::/0"),
		F(V6(0xfd00, 0, 0, 0, 0, 0, 0, 2), 127, "fd00::2/127"),
#undef F
	};

	for (const auto &c : cases) {
		Prefix p = prefix(c.addr, c.plen), back{};

		SCOPED_TRACE(c.text);
		EXPECT_EQ(text(p), c.text);
		ASSERT_EQ(pfx(c.text, &back), Err::Ok);
		EXPECT_TRUE(back.addr == p.addr) << hex(back.addr);
		EXPECT_EQ(back.len, c.plen);
	}
}

namespace {

// A prefix of every length over @base (whose bits after the family's fixed
// part are all tried as host bits), with @off the family's offset in the
// 128-bit form (96 for IPv4, 0 for IPv6) and @other an address of the
// other family.
void check_every_len(const Addr &base, u32 off, const Addr &other)
{
	u32 max = 128 - off;

	for (u32 len = 0; len <= max; len++) {
		u32 bits = off + len;
		Prefix p{ base, static_cast<u8>(len) }, q{};
		Addr a;

		SCOPED_TRACE(testing::Message() << "/" << len);
		clear_from(&p.addr, bits);

		// Inside: the prefix itself and the base with its host bits.
		EXPECT_TRUE(p.contains(p.addr));
		EXPECT_TRUE(p.contains(base));
		// Outside: the last prefix bit flipped.
		if (len) {
			a = base;
			flip(&a, bits - 1);
			EXPECT_FALSE(p.contains(a));
		}
		// Inside: the first and the last host bit flipped.
		if (len < max) {
			a = p.addr;
			flip(&a, bits);
			EXPECT_TRUE(p.contains(a));
			a = p.addr;
			flip(&a, 127);
			EXPECT_TRUE(p.contains(a));
		}
		// Families never mix, not even for /0.
		EXPECT_FALSE(p.contains(other));

		// Its text parses back to it: no host bits set.
		std::string t = text(p);
		EXPECT_EQ(pfx(t, &q), Err::Ok) << t;
		EXPECT_TRUE(q.addr == p.addr) << t;
		EXPECT_EQ(q.len, len) << t;

		// The first or the last host bit set: refused.
		if (len < max) {
			q = p;
			flip(&q.addr, bits);
			t = text(q);
			EXPECT_EQ(pfx(t, &q), Err::HostBits) << t;
			q = p;
			flip(&q.addr, 127);
			t = text(q);
			EXPECT_EQ(pfx(t, &q), Err::HostBits) << t;
		}
	}
}

} // namespace

TEST(Inet, V4EveryLength)
{
	const Addr base = of_words({ V4(0xa5, 0x5a, 0xc3, 0x3c) });
	const Prefix all = prefix({ V4(0, 0, 0, 0) }, 0);

	check_every_len(base, 96, of_words({ V6(0, 0, 0, 0, 0, 0, 0, 0) }));
	// IPv4 /0 holds every IPv4 address and nothing else.
	EXPECT_TRUE(all.contains(base));
	EXPECT_FALSE(all.contains(of_words({ V6(0, 0, 0, 0, 0, 0xfffe, 0, 0) })));
}

TEST(Inet, V6EveryLength)
{
	const Addr base = of_words({ V6(0xa55a, 0xc33c, 0x0ff0, 0x9669,
					0x1234, 0x5678, 0x9abc, 0xdef1) });
	const Prefix all = prefix({ V6(0, 0, 0, 0, 0, 0, 0, 0) }, 0);

	check_every_len(base, 0, of_words({ V4(0, 0, 0, 0) }));
	// IPv6 /0 holds every IPv6 address but no IPv4-mapped one.
	EXPECT_TRUE(all.contains(base));
	EXPECT_FALSE(all.contains(of_words({ V4(0xa5, 0x5a, 0xc3, 0x3c) })));
}

// The Writer at every capacity: truncates, terminates, never writes past
// the capacity, reports the full length.
TEST(Inet, WriterTruncatesAtEveryCapacity)
{
	const Prefix v4 = prefix({ V4(255, 255, 255, 255) }, 32);
	const Prefix v6 = prefix({ V6(0xffff, 0xffff, 0xffff, 0xffff,
				      0xffff, 0xffff, 0xffff, 0xfffe) }, 127);

	for (const auto &[p, full] : { std::pair<Prefix, std::string>{ v4, "255.255.255.255" },
				       { v6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127" } }) {
		usize len = full.size();
		char buf[72];

		ASSERT_LT(len + 2, 64u);
		for (usize cap = 0; cap <= len + 2; cap++) {
			usize kept = cap ? std::min(cap - 1, len) : 0;
			inet::Writer w{ buf, cap, 0 };

			SCOPED_TRACE(testing::Message() << full << " cap " << cap);
			std::memset(buf, 'X', sizeof(buf));
			inet::format_prefix(w, p);
			EXPECT_EQ(w.finish(), len);
			EXPECT_EQ(std::strncmp(buf, full.c_str(), kept), 0);
			if (cap) {
				EXPECT_EQ(buf[kept], '\0');
			}
			for (usize i = cap ? kept + 1 : 0; i < sizeof(buf); i++)
				EXPECT_EQ(buf[i], 'X') << "byte " << i;
		}
	}
	// The length only: no buffer.
	inet::Writer w{ nullptr, 0, 0 };

	inet::format_prefix(w, v4);
	EXPECT_EQ(w.finish(), 15u);
}

TEST(Inet, WriterUint)
{
	static const struct {
		u64 v;
		const char *text;
	} cases[] = {
		{ 0, "0" },
		{ 9, "9" },
		{ 10, "10" },
		{ 4294967295ull, "4294967295" },
		{ 10000000000000000000ull, "10000000000000000000" },
		// 20 digits: the longest a u64 has.
		{ ULLONG_MAX, "18446744073709551615" },
	};
	char buf[32];

	for (const auto &c : cases) {
		inet::Writer w{ buf, sizeof(buf), 0 };

		std::memset(buf, 'X', sizeof(buf));
		w.put_uint(c.v);
		EXPECT_EQ(w.finish(), std::strlen(c.text));
		EXPECT_STREQ(buf, c.text);
	}
	// Truncated to the buffer, length still counted.
	inet::Writer w{ buf, 5, 0 };

	std::memset(buf, 'X', sizeof(buf));
	w.put_uint(ULLONG_MAX);
	EXPECT_EQ(w.finish(), 20u);
	EXPECT_STREQ(buf, "1844");
	EXPECT_EQ(buf[5], 'X');
}
