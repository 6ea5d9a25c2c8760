// SPDX-License-Identifier: GPL-2.0
// The C ABI that C glue calls: same definitions as in the modules.
#include <gtest/gtest.h>

#include <cstring>

#include <xnet/abi.h>

TEST(Abi, ParseU32)
{
	unsigned int v = 0;
	struct xnet_parse_res res = { -1, 99, 99 };

	EXPECT_EQ(xnet_parse_u32("17\n", 3, 0, 100, &v, &res), XNET_OK);
	EXPECT_EQ(v, 17u);
	EXPECT_EQ(res.err, XNET_OK);
	EXPECT_EQ(xnet_parse_u32("170", 3, 0, 100, &v, &res), XNET_E_RANGE);
	EXPECT_EQ(v, 17u);
	EXPECT_EQ(res.err, XNET_E_RANGE);
	EXPECT_EQ(res.len, 3u);
	EXPECT_EQ(xnet_parse_u32("x", 1, 0, 100, &v, nullptr), XNET_E_INVALID);
}

TEST(Abi, ParseList)
{
	unsigned int out[4] = {};
	unsigned int n = 0;
	struct xnet_parse_res res;
	const char *s = "3,1,2";

	EXPECT_EQ(xnet_parse_u32_list(s, std::strlen(s), ',', 0, 7, out, 4, &n, &res), XNET_OK);
	EXPECT_EQ(n, 3u);
	EXPECT_EQ(out[0], 3u);
	s = "3,1,2,9";
	EXPECT_EQ(xnet_parse_u32_list(s, std::strlen(s), ',', 0, 7, out, 4, &n, &res),
		  XNET_E_RANGE);
	EXPECT_EQ(res.pos, 6u);
	EXPECT_EQ(n, 3u);
}

TEST(Abi, ErrStr)
{
	EXPECT_STREQ(xnet_err_str(XNET_E_SIGN), "sign not allowed");
	EXPECT_STREQ(xnet_err_str(-5), "unknown error");
}
