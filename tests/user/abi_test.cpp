// SPDX-License-Identifier: GPL-2.0
// The C ABI that C glue calls: same definitions as in the modules.
#include <gtest/gtest.h>

#include <cstddef>
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

TEST(Abi, NamedLayout)
{
	EXPECT_EQ(sizeof(struct xnet_named), 20u);
	EXPECT_EQ(offsetof(struct xnet_named, value), 16u);
	EXPECT_EQ(XNET_IFNAMSIZ, 16);
	EXPECT_STREQ(xnet_err_str(XNET_E_BAD_NAME), "not a device name");
}

TEST(Abi, ParseNamed)
{
	const struct xnet_named_spec spec = { 4096, 1, 1048576, XNET_NAMED_STAR };
	struct xnet_named out[3];
	unsigned int n = 99;
	struct xnet_parse_res res = { -1, 99, 99 };
	const char *s = " e0:100,*,x0 \n";

	std::memset(out, 0x5a, sizeof(out));
	EXPECT_EQ(xnet_parse_named_list(s, std::strlen(s), &spec, out, 3, &n, &res), XNET_OK);
	EXPECT_EQ(res.err, XNET_OK);
	ASSERT_EQ(n, 3u);
	EXPECT_STREQ(out[0].name, "e0");
	EXPECT_EQ(out[0].value, 100u);
	EXPECT_STREQ(out[1].name, "*");
	EXPECT_EQ(out[1].value, 4096u);
	EXPECT_STREQ(out[2].name, "x0");

	// Refused: the whole item named, nothing written.
	std::memset(out, 0x5a, sizeof(out));
	s = "e0,x0:0x10,y0";
	EXPECT_EQ(xnet_parse_named_list(s, std::strlen(s), &spec, out, 3, &n, &res),
		  XNET_E_TRAILING);
	EXPECT_EQ(res.err, XNET_E_TRAILING);
	EXPECT_EQ(res.pos, 3u);
	EXPECT_EQ(res.len, 7u);
	EXPECT_EQ(n, 3u);
	for (size_t i = 0; i < sizeof(out); i++)
		EXPECT_EQ(reinterpret_cast<unsigned char *>(out)[i], 0x5a) << i;

	s = "e0,e0";
	EXPECT_EQ(xnet_parse_named_list(s, std::strlen(s), &spec, out, 3, &n, &res),
		  XNET_E_DUPLICATE);
	EXPECT_EQ(res.pos, 3u);
	EXPECT_EQ(res.len, 2u);
	s = "a,b,c,d";
	EXPECT_EQ(xnet_parse_named_list(s, std::strlen(s), &spec, out, 3, &n, nullptr),
		  XNET_E_TOO_MANY);

	// Without XNET_NAMED_STAR, "*" is not a name.
	const struct xnet_named_spec plain = { 256, 1, 65536, 0 };
	s = "*";
	EXPECT_EQ(xnet_parse_named_list(s, 1, &plain, out, 3, &n, &res), XNET_E_BAD_NAME);
	EXPECT_EQ(res.len, 1u);
	EXPECT_EQ(xnet_parse_named_list("\n", 1, &plain, out, 3, &n, &res), XNET_OK);
	EXPECT_EQ(n, 0u);
}
