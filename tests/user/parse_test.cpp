// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <xnet/parse.hpp>

using namespace xnet;
using parse::Result;

namespace {

Result u32_of(const std::string &s, u32 *out, u32 min = 0, u32 max = 0xffffffffu)
{
	return parse::parse_uint<u32>(s.data(), s.size(), min, max, out);
}

Result list_of(const std::string &s, std::vector<u32> *v, usize cap = 8,
	       u32 min = 0, u32 max = 0xffffffffu)
{
	u32 buf[parse::kMaxItems];
	usize n = 999;

	for (auto &b : buf)
		b = 0xdeadbeef;
	Result r = parse::parse_uint_list<u32>(s.data(), s.size(), ',', min, max,
					       buf, cap, &n);
	if (r.ok())
		v->assign(buf, buf + n);
	else
		EXPECT_EQ(n, 999u) << "count untouched on error";
	for (usize i = r.ok() ? n : 0; i < parse::kMaxItems; i++)
		EXPECT_EQ(buf[i], 0xdeadbeefu) << "output untouched at " << i;
	return r;
}

} // namespace

TEST(ParseUint, Valid)
{
	u32 v = 0;

	ASSERT_TRUE(u32_of("0", &v).ok());
	EXPECT_EQ(v, 0u);
	ASSERT_TRUE(u32_of("42", &v).ok());
	EXPECT_EQ(v, 42u);
	ASSERT_TRUE(u32_of("007", &v).ok());
	EXPECT_EQ(v, 7u);
	ASSERT_TRUE(u32_of("4294967295", &v).ok());
	EXPECT_EQ(v, 4294967295u);
	ASSERT_TRUE(u32_of("000000000000000000000000000001", &v).ok());
	EXPECT_EQ(v, 1u);
}

TEST(ParseUint, TrailingNewline)
{
	u32 v = 0;

	ASSERT_TRUE(u32_of("5\n", &v).ok());
	EXPECT_EQ(v, 5u);
	EXPECT_EQ(u32_of("5\n\n", &v).err, Err::Trailing);
	EXPECT_EQ(u32_of("\n", &v).err, Err::Empty);
	EXPECT_EQ(u32_of("5\r\n", &v).err, Err::Trailing);
}

TEST(ParseUint, Rejects)
{
	u32 v = 77;

	EXPECT_EQ(u32_of("", &v).err, Err::Empty);
	EXPECT_EQ(u32_of("+1", &v).err, Err::Sign);
	EXPECT_EQ(u32_of("-1", &v).err, Err::Sign);
	EXPECT_EQ(u32_of(" 1", &v).err, Err::Invalid);
	EXPECT_EQ(u32_of("1 ", &v).err, Err::Trailing);
	EXPECT_EQ(u32_of("0x10", &v).err, Err::Trailing);
	EXPECT_EQ(u32_of("12abc", &v).err, Err::Trailing);
	EXPECT_EQ(u32_of("abc", &v).err, Err::Invalid);
	EXPECT_EQ(u32_of("4294967296", &v).err, Err::Overflow);
	EXPECT_EQ(u32_of("99999999999999999999999999", &v).err, Err::Overflow);
	EXPECT_EQ(u32_of(std::string("1\0", 2), &v).err, Err::Trailing);
	EXPECT_EQ(v, 77u) << "output untouched on error";
}

TEST(ParseUint, Bounds)
{
	u32 v = 77;

	EXPECT_TRUE(u32_of("3", &v, 1, 7).ok());
	EXPECT_EQ(v, 3u);
	EXPECT_TRUE(u32_of("1", &v, 1, 7).ok());
	EXPECT_TRUE(u32_of("7", &v, 1, 7).ok());
	v = 77;
	EXPECT_EQ(u32_of("0", &v, 1, 7).err, Err::Range);
	EXPECT_EQ(u32_of("8", &v, 1, 7).err, Err::Range);
	EXPECT_EQ(v, 77u);
}

TEST(ParseUint, OtherWidths)
{
	u8 b = 0;
	u64 q = 0;

	EXPECT_TRUE(parse::parse_uint<u8>("255", 3, 0, 255, &b).ok());
	EXPECT_EQ(b, 255);
	EXPECT_EQ(parse::parse_uint<u8>("256", 3, 0, 255, &b).err, Err::Overflow);
	EXPECT_TRUE(parse::parse_uint<u64>("18446744073709551615", 20, 0, ~0ull, &q).ok());
	EXPECT_EQ(q, ~0ull);
	EXPECT_EQ(parse::parse_uint<u64>("18446744073709551616", 20, 0, ~0ull, &q).err,
		  Err::Overflow);
}

TEST(ParseUint, TooLong)
{
	u32 v = 0;
	std::string zeros(parse::kMaxInput, '0');

	EXPECT_TRUE(u32_of(zeros, &v).ok()) << "exactly the bound is fine";
	Result r = u32_of(zeros + "0", &v);
	EXPECT_EQ(r.err, Err::TooLong);
}

TEST(ParseUint, ErrorNamesToken)
{
	u32 v;
	Result r = u32_of("12abc\n", &v);

	EXPECT_EQ(r.err, Err::Trailing);
	EXPECT_EQ(r.pos, 0u);
	EXPECT_EQ(r.len, 5u);
}

TEST(ParseList, Valid)
{
	std::vector<u32> v;

	ASSERT_TRUE(list_of("1,2,3", &v).ok());
	EXPECT_EQ(v, (std::vector<u32>{ 1, 2, 3 }));
	ASSERT_TRUE(list_of("1,2,3\n", &v).ok());
	EXPECT_EQ(v, (std::vector<u32>{ 1, 2, 3 }));
	ASSERT_TRUE(list_of("9", &v).ok());
	EXPECT_EQ(v, (std::vector<u32>{ 9 }));
	ASSERT_TRUE(list_of("", &v).ok());
	EXPECT_TRUE(v.empty());
	ASSERT_TRUE(list_of("\n", &v).ok());
	EXPECT_TRUE(v.empty());
}

TEST(ParseList, EmptyItems)
{
	std::vector<u32> v;
	Result r = list_of("1,,2", &v);

	EXPECT_EQ(r.err, Err::Empty);
	EXPECT_EQ(r.pos, 2u);
	r = list_of(",1", &v);
	EXPECT_EQ(r.err, Err::Empty);
	EXPECT_EQ(r.pos, 0u);
	r = list_of("1,", &v);
	EXPECT_EQ(r.err, Err::Empty);
	EXPECT_EQ(r.pos, 2u);
	EXPECT_EQ(list_of(",", &v).err, Err::Empty);
}

TEST(ParseList, BadItemIsNamed)
{
	std::vector<u32> v;
	Result r = list_of("10,2x0,30", &v);

	EXPECT_EQ(r.err, Err::Trailing);
	EXPECT_EQ(r.pos, 3u);
	EXPECT_EQ(r.len, 3u);
	r = list_of("10,20,-3", &v);
	EXPECT_EQ(r.err, Err::Sign);
	EXPECT_EQ(r.pos, 6u);
	EXPECT_EQ(r.len, 2u);
	r = list_of("1, 2", &v);
	EXPECT_EQ(r.err, Err::Invalid);
	EXPECT_EQ(r.pos, 2u);
	r = list_of("1,5,9", &v, 8, 0, 8);
	EXPECT_EQ(r.err, Err::Range);
	EXPECT_EQ(r.pos, 4u);
	EXPECT_EQ(r.len, 1u);
}

TEST(ParseList, Capacity)
{
	std::vector<u32> v;

	ASSERT_TRUE(list_of("1,2,3", &v, 3).ok());
	Result r = list_of("1,2,3,4", &v, 3);
	EXPECT_EQ(r.err, Err::TooMany);
	EXPECT_EQ(r.pos, 6u);

	// Capacity above kMaxItems is clamped to it.
	std::string many;
	for (usize i = 0; i <= parse::kMaxItems; i++)
		many += (i ? "," : "") + std::to_string(i);
	u32 big[parse::kMaxItems + 8];
	usize n = 0;
	r = parse::parse_uint_list<u32>(many.data(), many.size(), ',', 0, 1000,
					big, parse::kMaxItems + 8, &n);
	EXPECT_EQ(r.err, Err::TooMany);
}

TEST(ParseList, TooLong)
{
	std::vector<u32> v;
	std::string s(parse::kMaxInput + 1, '1');

	EXPECT_EQ(list_of(s, &v).err, Err::TooLong);
}

TEST(ParseList, OtherSeparator)
{
	u32 out[4];
	usize n = 0;
	const char *s = "4:5:6";

	ASSERT_TRUE(parse::parse_uint_list<u32>(s, std::strlen(s), ':', 0, 9, out, 4, &n).ok());
	EXPECT_EQ(n, 3u);
	EXPECT_EQ(out[2], 6u);
	EXPECT_EQ(parse::parse_uint_list<u32>(s, std::strlen(s), ',', 0, 9, out, 4, &n).err,
		  Err::Trailing);
}

TEST(Err, EveryCodeHasText)
{
	for (int e = 0; e <= static_cast<int>(Err::Last); e++)
		EXPECT_STRNE(err_str(static_cast<Err>(e)), "unknown error") << e;
	EXPECT_STREQ(err_str(static_cast<Err>(1000)), "unknown error");
}
