// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <xnet/table.hpp>

#include "user_traits.hpp"

using namespace xnet;

namespace {

struct Entry {
	u32 queue;
	u32 head;
};

class TableTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		UserTraits::fail_next = 0;
		UserTraits::live = 0;
	}
	void TearDown() override
	{
		t.destroy();
		EXPECT_EQ(UserTraits::live, 0) << "leak";
	}
	Pow2Table<Entry, UserTraits> t;
};

} // namespace

TEST_F(TableTest, StartsEmpty)
{
	EXPECT_TRUE(t.empty());
	EXPECT_EQ(t.size(), 0u);
	EXPECT_EQ(t.data(), nullptr);
}

TEST_F(TableTest, RoundsUpAndZeroes)
{
	ASSERT_EQ(t.init(100, 4096), Err::Ok);
	EXPECT_EQ(t.size(), 128u);
	EXPECT_EQ(t.mask(), 127u);
	for (u32 i = 0; i < t.size(); i++) {
		EXPECT_EQ(t.data()[i].queue, 0u);
		EXPECT_EQ(t.data()[i].head, 0u);
	}
	EXPECT_EQ(UserTraits::live, 1);
}

TEST_F(TableTest, HashIsMasked)
{
	ASSERT_EQ(t.init(16, 4096), Err::Ok);
	t.at_hash(0x12345673u).queue = 9;
	EXPECT_EQ(t.data()[3].queue, 9u);
	EXPECT_EQ(&t.at_hash(3), &t.at_hash(0xfffffff3u));
}

TEST_F(TableTest, ReinitReplaces)
{
	ASSERT_EQ(t.init(16, 4096), Err::Ok);
	t.at_hash(1).head = 5;
	ASSERT_EQ(t.init(64, 4096), Err::Ok);
	EXPECT_EQ(t.size(), 64u);
	EXPECT_EQ(t.at_hash(1).head, 0u);
	EXPECT_EQ(UserTraits::live, 1) << "old table freed";
}

TEST_F(TableTest, ZeroFrees)
{
	ASSERT_EQ(t.init(16, 4096), Err::Ok);
	ASSERT_EQ(t.init(0, 4096), Err::Ok);
	EXPECT_TRUE(t.empty());
	EXPECT_EQ(UserTraits::live, 0);
}

TEST_F(TableTest, ErrorsLeaveTableIntact)
{
	ASSERT_EQ(t.init(16, 4096), Err::Ok);
	t.at_hash(2).queue = 4;
	Entry *before = t.data();

	EXPECT_EQ(t.init(8192, 4096), Err::Range);
	EXPECT_EQ(t.init(8, 3000), Err::Invalid);
	UserTraits::fail_next = 1;
	EXPECT_EQ(t.init(32, 4096), Err::NoMem);

	EXPECT_EQ(t.data(), before);
	EXPECT_EQ(t.size(), 16u);
	EXPECT_EQ(t.at_hash(2).queue, 4u);
}

TEST_F(TableTest, BoundIsAccepted)
{
	ASSERT_EQ(t.init(4096, 4096), Err::Ok);
	EXPECT_EQ(t.size(), 4096u);
}
