// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <string>

#include <xnet/inet.hpp>

using namespace xnet;
using inet::Addr;
using inet::Prefix;

namespace {

Err pfx(const std::string &s, Prefix *p)
{
	return inet::parse_prefix(s.data(), s.size(), p);
}

std::string text(const Prefix &p)
{
	char buf[64];
	inet::Writer w{ buf, sizeof(buf), 0 };

	inet::format_prefix(w, p);
	w.finish();
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
