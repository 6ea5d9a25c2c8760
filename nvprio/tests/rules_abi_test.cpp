// SPDX-License-Identifier: GPL-2.0
// The rules' C ABI, as nvme_tcp_prio/nvmet_tcp_prio call it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <nvprio/rules.h>

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
