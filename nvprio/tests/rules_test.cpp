// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include <nvprio/rules.hpp>

using namespace xnet;
using prio::Endpoint;
using prio::RuleSet;

namespace {

struct Parsed {
	parse::Result r;
	std::unique_ptr<RuleSet> set;
};

Parsed parse_rules(const std::string &s)
{
	Parsed p{ {}, std::make_unique<RuleSet>() };
	auto scratch = std::make_unique<RuleSet>();

	p.set->count = 12345;
	p.r = prio::parse_rules(s.data(), s.size(), p.set.get(), scratch.get());
	if (!p.r.ok()) {
		EXPECT_EQ(p.set->count, 12345u) << "untouched on error";
	}
	return p;
}

std::string canon(const std::string &s)
{
	Parsed p = parse_rules(s);
	char buf[4096];

	if (!p.r.ok())
		return std::string("ERR:") + err_str(p.r.err) + "@" + std::to_string(p.r.pos) +
		       "+" + std::to_string(p.r.len);
	prio::format_rules(*p.set, buf, sizeof(buf));
	return buf;
}

Endpoint ep(const std::string &l, u16 lport, const std::string &r, u16 rport)
{
	Endpoint e{};
	inet::Prefix p{};

	EXPECT_EQ(inet::parse_prefix(l.data(), l.size(), &p), Err::Ok);
	std::memcpy(e.laddr, p.addr.b, sizeof(e.laddr));
	EXPECT_EQ(inet::parse_prefix(r.data(), r.size(), &p), Err::Ok);
	std::memcpy(e.raddr, p.addr.b, sizeof(e.raddr));
	e.lport = lport;
	e.rport = rport;
	return e;
}

} // namespace

TEST(PrioRules, CanonicalReadBack)
{
	EXPECT_EQ(canon(""), "");
	EXPECT_EQ(canon("\n"), "");
	EXPECT_EQ(canon("prio=3"), "prio=3");
	EXPECT_EQ(canon("prio=3,raddr=10.0.0.0/8\n"), "raddr=10.0.0.0/8,prio=3");
	EXPECT_EQ(canon("rport=4420,raddr=[FD00::0001],lport=*,prio=0"),
		  "raddr=fd00::1,rport=4420,prio=0");
	EXPECT_EQ(canon("laddr=10.0.0.1,lport=4420,prio=5;raddr=10.9.0.0/16,prio=2;prio=1"),
		  "laddr=10.0.0.1,lport=4420,prio=5;raddr=10.9.0.0/16,prio=2;prio=1");
	EXPECT_EQ(canon("prio=4294967295"), "prio=4294967295");
	// Read-back text parses to the same text (idempotent).
	std::string c = canon("raddr=2001:0db8::0/32,rport=08009,prio=007");
	EXPECT_EQ(c, "raddr=2001:db8::/32,rport=8009,prio=7");
	EXPECT_EQ(canon(c), c);
}

TEST(PrioRules, Errors)
{
	EXPECT_EQ(canon("raddr=10.0.0.1"), "ERR:required field missing@0+14");
	EXPECT_EQ(canon("prio=1,prio=2"), "ERR:duplicate key@7+6");
	EXPECT_EQ(canon("prio=1,color=red"), "ERR:unknown key@7+9");
	EXPECT_EQ(canon("prio=1,raddr"), "ERR:unknown key@7+5");
	EXPECT_EQ(canon("bogus"), "ERR:unknown key@0+5");
	EXPECT_EQ(canon("prio=-1"), "ERR:sign not allowed@0+7");
	EXPECT_EQ(canon("prio=4294967296"), "ERR:number too large@0+15");
	EXPECT_EQ(canon("prio=*"), "ERR:invalid value@0+6");
	EXPECT_EQ(canon("prio=1,rport=0"), "ERR:out of range@7+7");
	EXPECT_EQ(canon("prio=1,rport=65536"), "ERR:number too large@7+11");
	EXPECT_EQ(canon("prio=1,raddr=10.0.0.1/24"),
		  "ERR:address has bits set beyond the prefix length@7+17");
	EXPECT_EQ(canon("prio=1,raddr=10.0.0.300"), "ERR:invalid value@7+16");
	EXPECT_EQ(canon("prio=1,laddr=10.0.0.1,raddr=fd00::1"),
		  "ERR:fields can never match together@0+35");
	EXPECT_EQ(canon("prio=1;;prio=2"), "ERR:empty value@7+0");
	EXPECT_EQ(canon("prio=1;"), "ERR:empty value@7+0");
	EXPECT_EQ(canon("prio=1,"), "ERR:empty value@7+0");
	EXPECT_EQ(canon("prio=1, raddr=10.0.0.1"), "ERR:unknown key@7+15");
	EXPECT_EQ(canon("prio=1\n\n"), "ERR:trailing characters@0+7");
}

TEST(PrioRules, NulInKeyIsUnknown)
{
	EXPECT_EQ(canon(std::string("prio\0=1", 7)), "ERR:unknown key@0+7");
	EXPECT_EQ(canon(std::string("laddr\0lport=1,prio=1", 21)), "ERR:unknown key@0+13");
}

TEST(PrioRules, CanonicalTextAlwaysFitsAPage)
{
	// RFC 5952 can be longer than what was written (the first of two
	// equal zero runs is compressed): 0:0:ffff:ffff:ffff::fffe (24)
	// reads back as ::ffff:ffff:ffff:0:0:fffe (25). Whatever parses must
	// read back within a page (with its newline).
	const char *fields[] = { "laddr=0:0:ffff:ffff:ffff::fffe", "raddr=0:0:ffff:ffff:ffff::fffe",
				 "lport=65535", "rport=65535", "raddr=10.0.0.0/8" };
	unsigned int seed = 12345;
	char buf[3 * parse::kMaxInput];
	int accepted = 0;

	for (int iter = 0; iter < 300; iter++) {
		std::string s;
		usize rules = 1 + (seed = seed * 1103515245 + 12345) % prio::kMaxRules;

		for (usize r = 0; r < rules; r++) {
			s += r ? ";" : "";
			for (usize f = 0; f < 4; f++)
				if (((seed = seed * 1103515245 + 12345) >> 16) & 1)
					s += std::string(fields[f]) + ",";
			s += "prio=4294967295";
		}
		Parsed p = parse_rules(s);
		if (!p.r.ok()) {
			EXPECT_TRUE(p.r.err == Err::TooLong || p.r.err == Err::Conflict) << s;
			continue;
		}
		accepted++;
		EXPECT_LE(prio::format_rules(*p.set, buf, sizeof(buf)), prio::kMaxCanonical) << s;
	}
	EXPECT_GT(accepted, 100);
}

TEST(PrioRules, Limits)
{
	std::string s;

	for (usize i = 0; i < prio::kMaxRules; i++)
		s += (i ? ";" : "") + std::string("prio=") + std::to_string(i);
	Parsed p = parse_rules(s);
	ASSERT_TRUE(p.r.ok());
	EXPECT_EQ(p.set->count, prio::kMaxRules);

	p = parse_rules(s + ";prio=99");
	EXPECT_EQ(p.r.err, Err::TooMany);
	EXPECT_EQ(p.r.pos, s.size() + 1);

	std::string huge = "prio=1,raddr=" + std::string(parse::kMaxInput, '1');
	EXPECT_EQ(parse_rules(huge).r.err, Err::TooLong);
}

TEST(PrioRules, FirstMatchWins)
{
	Parsed p = parse_rules("raddr=10.0.0.0/24,rport=4420,prio=3;"
			       "raddr=10.0.0.0/8,prio=2;"
			       "raddr=fd00::/16,prio=6;"
			       "laddr=192.168.1.1,lport=4421,prio=4");
	ASSERT_TRUE(p.r.ok());
	const RuleSet &s = *p.set;

	EXPECT_EQ(s.match(ep("10.9.9.9", 40000, "10.0.0.5", 4420)), 0);
	EXPECT_EQ(s.match(ep("10.9.9.9", 40000, "10.0.0.5", 4421)), 1);
	EXPECT_EQ(s.match(ep("10.9.9.9", 40000, "10.200.0.5", 4420)), 1);
	EXPECT_EQ(s.match(ep("fd01::9", 40000, "fd00::5", 4420)), 2);
	EXPECT_EQ(s.match(ep("192.168.1.1", 4421, "172.16.0.1", 50000)), 3);
	EXPECT_EQ(s.match(ep("192.168.1.1", 4420, "172.16.0.1", 50000)), -1);
	EXPECT_EQ(s.match(ep("::1", 1, "::1", 2)), -1);
	EXPECT_EQ(s.rules[0].prio, 3u);
	EXPECT_EQ(s.rules[2].prio, 6u);
}

TEST(PrioRules, ListenerHasNoRemote)
{
	Parsed p = parse_rules("rport=4420,prio=1;raddr=10.0.0.0/8,prio=2;lport=4420,prio=3");
	ASSERT_TRUE(p.r.ok());
	Endpoint l = ep("10.0.0.1", 4420, "0.0.0.0", 4420);

	l.flags = XNET_PRIO_EP_NO_REMOTE;
	EXPECT_EQ(p.set->match(l), 2) << "rules on the remote end skip listeners";
	l.flags = 0;
	EXPECT_EQ(p.set->match(l), 0);
}

TEST(PrioRules, WildcardsMatchEverything)
{
	Parsed p = parse_rules("laddr=*,lport=*,raddr=*,rport=*,prio=9");
	ASSERT_TRUE(p.r.ok());
	EXPECT_EQ(p.set->rules[0].fields, 0);
	EXPECT_EQ(p.set->match(ep("1.2.3.4", 1, "5.6.7.8", 2)), 0);
	EXPECT_EQ(p.set->match(ep("::1", 1, "fe80::1", 2)), 0);
}

TEST(PrioRules, DualStackSocketMatchesIpv4Rule)
{
	Parsed p = parse_rules("raddr=10.0.0.0/8,prio=5");
	ASSERT_TRUE(p.r.ok());
	// An IPv6 socket carrying IPv4 (::ffff:10.1.1.1) matches the IPv4 prefix.
	EXPECT_EQ(p.set->match(ep("::ffff:10.2.2.2", 4420, "::ffff:10.1.1.1", 50000)), 0);
}

TEST(PrioRules, TruncatedFormatReportsLength)
{
	Parsed p = parse_rules("raddr=10.0.0.0/8,prio=5;prio=1");
	ASSERT_TRUE(p.r.ok());
	char small[10];
	usize n = prio::format_rules(*p.set, small, sizeof(small));

	EXPECT_EQ(n, std::string("raddr=10.0.0.0/8,prio=5;prio=1").size());
	EXPECT_EQ(std::string(small), "raddr=10.");
}
