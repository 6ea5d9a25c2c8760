// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <xnet/pow2.hpp>

using namespace xnet;

TEST(Pow2, IsPow2)
{
	EXPECT_FALSE(pow2::is_pow2(0));
	EXPECT_TRUE(pow2::is_pow2(1));
	EXPECT_TRUE(pow2::is_pow2(2));
	EXPECT_FALSE(pow2::is_pow2(3));
	EXPECT_TRUE(pow2::is_pow2(0x80000000u));
	EXPECT_FALSE(pow2::is_pow2(0xffffffffu));
}

TEST(Pow2, Roundup)
{
	EXPECT_EQ(pow2::roundup(0), 0u);
	EXPECT_EQ(pow2::roundup(1), 1u);
	EXPECT_EQ(pow2::roundup(2), 2u);
	EXPECT_EQ(pow2::roundup(3), 4u);
	EXPECT_EQ(pow2::roundup(1000), 1024u);
	EXPECT_EQ(pow2::roundup(1025), 2048u);
	EXPECT_EQ(pow2::roundup(0x80000000u), 0x80000000u);
	EXPECT_EQ(pow2::roundup(0x80000001u), 0u);
	EXPECT_EQ(pow2::roundup(0xffffffffu), 0u);
}

TEST(Pow2, TableSizeBounds)
{
	u32 out = 12345;

	EXPECT_EQ(pow2::table_size(0, 1024, &out), Err::Ok);
	EXPECT_EQ(out, 0u);
	EXPECT_EQ(pow2::table_size(1, 1024, &out), Err::Ok);
	EXPECT_EQ(out, 1u);
	EXPECT_EQ(pow2::table_size(600, 1024, &out), Err::Ok);
	EXPECT_EQ(out, 1024u);
	EXPECT_EQ(pow2::table_size(1024, 1024, &out), Err::Ok);
	EXPECT_EQ(out, 1024u);

	out = 7;
	EXPECT_EQ(pow2::table_size(1025, 1024, &out), Err::Range);
	EXPECT_EQ(out, 7u) << "untouched on error";
	EXPECT_EQ(pow2::table_size(0xffffffffu, 1024, &out), Err::Range);
	EXPECT_EQ(pow2::table_size(4, 1000, &out), Err::Invalid) << "bound must be a power of two";
	EXPECT_EQ(pow2::table_size(4, 0, &out), Err::Invalid);
	EXPECT_EQ(out, 7u);
	EXPECT_EQ(pow2::table_size(0x80000000u, 0x80000000u, &out), Err::Ok);
	EXPECT_EQ(out, 0x80000000u);
}
