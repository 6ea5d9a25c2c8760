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

TEST(Pow2, Max)
{
	EXPECT_EQ(pow2::kMax, 0x80000000u);
	EXPECT_EQ(pow2::roundup(0x40000001u), pow2::kMax);
}

TEST(Pow2, TableSizeCases)
{
	constexpr u32 kUntouched = 0xdeadbeefu;
	static const struct {
		const char *name;
		u32 req, max;
		Err err;
		u32 size;	// expected *out; kUntouched on error
	} cases[] = {
		{ "zero is off", 0, 1024, Err::Ok, 0 },
		{ "zero with max 1", 0, 1, Err::Ok, 0 },
		{ "one", 1, 1024, Err::Ok, 1 },
		{ "two", 2, 1024, Err::Ok, 2 },
		{ "three", 3, 1024, Err::Ok, 4 },
		{ "five", 5, 1024, Err::Ok, 8 },
		{ "1000", 1000, 1024, Err::Ok, 1024 },
		{ "1023", 1023, 1024, Err::Ok, 1024 },
		{ "513", 513, 1024, Err::Ok, 1024 },
		{ "exact 64", 64, 1024, Err::Ok, 64 },
		{ "req == max", 1024, 1024, Err::Ok, 1024 },
		{ "max + 1", 1025, 1024, Err::Range, kUntouched },
		{ "max 1, req 1", 1, 1, Err::Ok, 1 },
		{ "max 1, req 2", 2, 1, Err::Range, kUntouched },
		{ "kMax", pow2::kMax, pow2::kMax, Err::Ok, pow2::kMax },
		{ "kMax - 1", pow2::kMax - 1, pow2::kMax, Err::Ok, pow2::kMax },
		{ "2^30 + 1", 0x40000001u, pow2::kMax, Err::Ok, pow2::kMax },
		{ "0x80000001", 0x80000001u, pow2::kMax, Err::Range, kUntouched },
		{ "0xffffffff", 0xffffffffu, pow2::kMax, Err::Range, kUntouched },
		{ "0xffffffff, max 1024", 0xffffffffu, 1024, Err::Range, kUntouched },
		{ "max not a power", 3, 1000, Err::Invalid, kUntouched },
		{ "max 0", 0, 0, Err::Invalid, kUntouched },
		{ "max 0xffffffff", 1, 0xffffffffu, Err::Invalid, kUntouched },
		{ "max 3, req 0", 0, 3, Err::Invalid, kUntouched },
	};

	for (const auto &c : cases) {
		u32 out = kUntouched;

		EXPECT_EQ(pow2::table_size(c.req, c.max, &out), c.err) << c.name;
		EXPECT_EQ(out, c.size) << c.name;
	}
}

TEST(Pow2, EveryPower)
{
	constexpr u32 kUntouched = 0xdeadbeefu;

	for (u32 k = 0; k < 32; k++) {
		u32 p = 1u << k, out = kUntouched;

		EXPECT_TRUE(pow2::is_pow2(p)) << "2^" << k;
		EXPECT_EQ(pow2::roundup(p), p) << "2^" << k;
		EXPECT_EQ(pow2::table_size(p, pow2::kMax, &out), Err::Ok) << "2^" << k;
		EXPECT_EQ(out, p) << "2^" << k;
		// One above rounds up to the next power.
		if (k >= 1 && k < 31) {
			out = kUntouched;
			EXPECT_FALSE(pow2::is_pow2(p + 1)) << "2^" << k << " + 1";
			EXPECT_EQ(pow2::table_size(p + 1, pow2::kMax, &out), Err::Ok)
				<< "2^" << k << " + 1";
			EXPECT_EQ(out, p << 1) << "2^" << k << " + 1";
		}
		// One below rounds up to the power itself.
		if (k >= 2) {
			EXPECT_FALSE(pow2::is_pow2(p - 1)) << "2^" << k << " - 1";
			EXPECT_EQ(pow2::roundup(p - 1), p) << "2^" << k << " - 1";
		}
	}
}

TEST(Pow2, EveryMax)
{
	constexpr u32 kUntouched = 0xdeadbeefu;

	// For every power-of-two bound: max is accepted, max + 1 is not.
	for (u32 k = 0; k < 32; k++) {
		u32 max = 1u << k, out = kUntouched;

		EXPECT_EQ(pow2::table_size(max, max, &out), Err::Ok) << "max 2^" << k;
		EXPECT_EQ(out, max) << "max 2^" << k;
		out = kUntouched;
		EXPECT_EQ(pow2::table_size(max + 1, max, &out), Err::Range) << "max 2^" << k;
		EXPECT_EQ(out, kUntouched) << "max 2^" << k;
		// A non-power bound next to it is refused, whatever req.
		if (k >= 1) {
			EXPECT_EQ(pow2::table_size(1, max + 1, &out), Err::Invalid)
				<< "max 2^" << k << " + 1";
			EXPECT_EQ(out, kUntouched) << "max 2^" << k << " + 1";
		}
	}
}
