// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <xnet/abi.h>
#include <xnet/parse.hpp>

using namespace xnet;
using parse::Result;

namespace {

constexpr u32 kUntouched = 0xdeadbeefu;
constexpr usize kNoPos = ~usize{ 0 };	// pos/len not checked (success)

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

// One value: every row checks the error, the offending token, and that
// nothing is written on error.
TEST(ParseUint, Cases)
{
	static const struct {
		const char *in;
		usize len;	// 0: strlen(in)
		u32 min, max;
		Err err;
		u32 value;	// on success
		usize pos, tok;	// offending token on error
	} cases[] = {
#define OK(s, v)		{ s, 0, 0, 0xffffffffu, Err::Ok, v, kNoPos, kNoPos }
#define OK_IN(s, lo, hi, v)	{ s, 0, lo, hi, Err::Ok, v, kNoPos, kNoPos }
#define BAD(s, e, p, l)		{ s, 0, 0, 0xffffffffu, Err::e, 0, p, l }
#define BAD_IN(s, lo, hi, e, p, l) { s, 0, lo, hi, Err::e, 0, p, l }
		OK("0", 0),
		OK("7", 7),
		OK("42", 42),
		OK("4294967295", 4294967295u),
		OK("007", 7),
		OK("0000000000000000000000000000000042", 42),
		OK("00000000000000000000004294967295", 4294967295u),
		OK("5\n", 5),
		OK("4294967295\n", 4294967295u),
		// The length bounds the input, not a NUL.
		{ "123", 2, 0, 0xffffffffu, Err::Ok, 12, kNoPos, kNoPos },
		{ "1\0002", 3, 0, 0xffffffffu, Err::Trailing, 0, 0, 3 },
		BAD("", Empty, 0, 0),
		BAD("\n", Empty, 0, 0),
		BAD("5\n\n", Trailing, 0, 2),
		BAD("\n5", Invalid, 0, 2),
		BAD("+1", Sign, 0, 2),
		BAD("-1", Sign, 0, 2),
		BAD("-0", Sign, 0, 2),
		BAD(" 1", Invalid, 0, 2),
		BAD("1 ", Trailing, 0, 2),
		BAD("1\t", Trailing, 0, 2),
		BAD("0x10", Trailing, 0, 4),
		BAD("x10", Invalid, 0, 3),
		BAD("12abc", Trailing, 0, 5),
		BAD("abc", Invalid, 0, 3),
		BAD("1e3", Trailing, 0, 3),
		BAD("1.5", Trailing, 0, 3),
		BAD("4294967296", Overflow, 0, 10),
		BAD("4294967296\n", Overflow, 0, 10),
		BAD("4294967300", Overflow, 0, 10),
		BAD("9999999999", Overflow, 0, 10),
		BAD("18446744073709551616", Overflow, 0, 20),
		BAD("123456789012345678901234567890123456789012345678901234567890",
		    Overflow, 0, 60),
		// Overflow is found before the junk after it.
		BAD("99999999999x", Overflow, 0, 12),
		OK_IN("5", 5, 10, 5),
		OK_IN("10", 5, 10, 10),
		OK_IN("10\n", 10, 10, 10),
		BAD_IN("4", 5, 10, Range, 0, 1),
		BAD_IN("11", 5, 10, Range, 0, 2),
		BAD_IN("0", 1, 0xffffffffu, Range, 0, 1),
		BAD_IN("4294967295", 0, 4294967294u, Range, 0, 10),
		BAD_IN("0000000011\n", 5, 10, Range, 0, 10),
#undef OK
#undef OK_IN
#undef BAD
#undef BAD_IN
	};

	for (const auto &c : cases) {
		usize n = c.len ? c.len : std::strlen(c.in);
		u32 out = kUntouched;
		Result r = parse::parse_uint<u32>(c.in, n, c.min, c.max, &out);

		SCOPED_TRACE(testing::Message() << '"' << std::string(c.in, n) << "\" in ["
						<< c.min << ", " << c.max << "]");
		EXPECT_EQ(r.err, c.err);
		if (c.err == Err::Ok) {
			EXPECT_EQ(out, c.value);
			EXPECT_EQ(r.len, 0u);
		} else {
			EXPECT_EQ(out, kUntouched) << "nothing is written on error";
			EXPECT_EQ(r.pos, c.pos);
			EXPECT_EQ(r.len, c.tok);
			EXPECT_LE(r.pos + r.len, n);
		}
	}
}

// The C ABI's result struct is optional.
TEST(ParseUint, AbiResultOptional)
{
	unsigned int out = kUntouched;

	EXPECT_EQ(xnet_parse_u32("17", 2, 0, 100, &out, nullptr), XNET_OK);
	EXPECT_EQ(out, 17u);
	EXPECT_EQ(xnet_parse_u32("170", 3, 0, 100, &out, nullptr), XNET_E_RANGE);
	EXPECT_EQ(out, 17u);
}

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

	// The same template at 64 bits: the bound moves with the type.
	q = 1;
	ASSERT_TRUE(parse::parse_uint<u64>("4294967296", 10, 0, ~0ull, &q).ok());
	EXPECT_EQ(q, 4294967296ull);
	ASSERT_TRUE(parse::parse_uint<u64>("18446744073709551615\n", 21, 0, ~0ull, &q).ok());
	EXPECT_EQ(q, ~0ull);
	q = 1;
	Result r = parse::parse_uint<u64>("18446744073709551616", 20, 0, ~0ull, &q);
	EXPECT_EQ(r.err, Err::Overflow);
	EXPECT_EQ(r.len, 20u);
	EXPECT_EQ(q, 1u) << "output untouched on error";
}

TEST(ParseUint, TooLong)
{
	u32 v = 0;
	std::string zeros(parse::kMaxInput, '0');

	ASSERT_EQ(parse::kMaxInput, 4096u);
	EXPECT_TRUE(u32_of(zeros, &v).ok()) << "exactly the bound is fine";
	Result r = u32_of(zeros + "0", &v);
	EXPECT_EQ(r.err, Err::TooLong);

	// Exactly kMaxInput bytes: leading zeros, then the value.
	std::string page(parse::kMaxInput, '0');
	page.back() = '7';
	v = kUntouched;
	ASSERT_TRUE(u32_of(page, &v).ok());
	EXPECT_EQ(v, 7u);

	// One byte more is refused; the excess is the offending token.
	v = kUntouched;
	r = u32_of(page + "7", &v);
	EXPECT_EQ(r.err, Err::TooLong);
	EXPECT_EQ(r.pos, 4096u);
	EXPECT_EQ(r.len, 1u);
	EXPECT_EQ(v, kUntouched);

	// The trailing newline counts toward the limit.
	EXPECT_EQ(u32_of(page + "\n", &v).err, Err::TooLong);
	EXPECT_EQ(v, kUntouched);

	// Far too long: still refused up front, whatever the content.
	r = u32_of(std::string(1u << 20, '0'), &v);
	EXPECT_EQ(r.err, Err::TooLong);
	EXPECT_EQ(r.pos, 4096u);
	EXPECT_EQ(r.len, (1u << 20) - 4096u);

	// A page of non-zero digits overflows, reported as one token.
	r = u32_of(std::string(parse::kMaxInput, '9'), &v);
	EXPECT_EQ(r.err, Err::Overflow);
	EXPECT_EQ(r.pos, 0u);
	EXPECT_EQ(r.len, 4096u);
	EXPECT_EQ(v, kUntouched);
}

TEST(ParseUint, ErrorNamesToken)
{
	u32 v;
	Result r = u32_of("12abc\n", &v);

	EXPECT_EQ(r.err, Err::Trailing);
	EXPECT_EQ(r.pos, 0u);
	EXPECT_EQ(r.len, 5u);
}

// Lists: the error and the offending token, and nothing written past the
// items (on success) or at all (on error).
TEST(ParseList, Cases)
{
	constexpr usize kCap = 4;
	static const struct {
		const char *in;
		char sep;
		usize cap;
		Err err;
		usize count;		// on success
		u32 vals[kCap];		// on success
		usize pos, tok;		// on error
	} cases[] = {
#define LOK(s, n, ...) { s, ',', kCap, Err::Ok, n, { __VA_ARGS__ }, 0, 0 }
#define LBAD(s, e, p, l) { s, ',', kCap, Err::e, 0, { 0 }, p, l }
		LOK("1,2,3", 3, 1, 2, 3),
		LOK("1,2,3\n", 3, 1, 2, 3),
		LOK("7", 1, 7),
		LOK("0,1000", 2, 0, 1000),
		LOK("007,08", 2, 7, 8),
		LOK("4,3,2,1", 4, 4, 3, 2, 1),
		LOK("", 0),
		LOK("\n", 0),
		LBAD("1,,2", Empty, 2, 0),
		LBAD(",1", Empty, 0, 0),
		LBAD("1,", Empty, 2, 0),
		LBAD("1,\n", Empty, 2, 0),
		LBAD(",", Empty, 0, 0),
		LBAD("1,2\n\n", Trailing, 2, 2),
		LBAD("1,x,3", Invalid, 2, 1),
		LBAD("1,22x,3", Trailing, 2, 3),
		LBAD("1,2000,3", Range, 2, 4),
		LBAD("1,+2", Sign, 2, 2),
		LBAD("1,-2", Sign, 2, 2),
		LBAD("1, 2", Invalid, 2, 2),
		LBAD("1 ,2", Trailing, 0, 2),
		LBAD("1,99999999999", Overflow, 2, 11),
		LBAD("10,20,30,4294967296", Overflow, 9, 10),
		LBAD("1;2", Trailing, 0, 3),
		// Too many items: the first item that does not fit is named.
		LBAD("1,2,3,4,5", TooMany, 8, 1),
		LBAD("1,2,3,4,55,6", TooMany, 8, 2),
		{ "1,2,3", ',', 3, Err::Ok, 3, { 1, 2, 3 }, 0, 0 },
		{ "1,2,3", ',', 2, Err::TooMany, 0, { 0 }, 4, 1 },
		{ "1", ',', 0, Err::TooMany, 0, { 0 }, 0, 1 },
		{ "", ',', 0, Err::Ok, 0, { 0 }, 0, 0 },
		// The separator is the caller's.
		{ "1:2:3", ':', kCap, Err::Ok, 3, { 1, 2, 3 }, 0, 0 },
		{ "1 2", ' ', kCap, Err::Ok, 2, { 1, 2 }, 0, 0 },
		{ "1,2", ':', kCap, Err::Trailing, 0, { 0 }, 0, 3 },
#undef LOK
#undef LBAD
	};

	for (const auto &c : cases) {
		usize n = std::strlen(c.in);
		u32 out[kCap + 1];
		usize count = kUntouched;

		SCOPED_TRACE(testing::Message() << '"' << c.in << "\" sep '" << c.sep
						<< "' cap " << c.cap);
		for (auto &o : out)
			o = kUntouched;
		Result r = parse::parse_uint_list<u32>(c.in, n, c.sep, 0, 1000, out, c.cap,
						       &count);
		EXPECT_EQ(r.err, c.err);
		usize i = 0;
		if (c.err == Err::Ok) {
			EXPECT_EQ(count, c.count);
			for (; i < c.count && i < kCap; i++)
				EXPECT_EQ(out[i], c.vals[i]) << "item " << i;
		} else {
			EXPECT_EQ(r.pos, c.pos);
			EXPECT_EQ(r.len, c.tok);
			EXPECT_LE(r.pos + r.len, n);
			// Count untouched on error, and the items before the bad one.
			EXPECT_EQ(count, kUntouched);
		}
		// Nothing past the items (nor past cap) is written.
		for (; i < kCap + 1; i++)
			EXPECT_EQ(out[i], kUntouched) << "slot " << i;
	}
}

TEST(ParseList, Limits)
{
	ASSERT_EQ(parse::kMaxItems, 64u);
	std::vector<u32> out(2 * parse::kMaxItems, kUntouched);
	usize count = kUntouched;
	std::string s;

	// kMaxItems items fit, even with a bigger cap.
	for (usize i = 0; i < parse::kMaxItems; i++)
		s += (i ? "," : "") + std::to_string(i);
	Result r = parse::parse_uint_list<u32>(s.data(), s.size(), ',', 0, 1000, out.data(),
					       out.size(), &count);
	ASSERT_TRUE(r.ok());
	EXPECT_EQ(count, parse::kMaxItems);
	for (usize i = 0; i < parse::kMaxItems; i++)
		EXPECT_EQ(out[i], i);

	// One more does not: the cap is clamped to kMaxItems.
	out.assign(out.size(), kUntouched);
	count = kUntouched;
	s += "," + std::to_string(parse::kMaxItems);
	r = parse::parse_uint_list<u32>(s.data(), s.size(), ',', 0, 1000, out.data(),
					out.size(), &count);
	EXPECT_EQ(r.err, Err::TooMany);
	// The offending token is the 65th item, "64", at the end.
	EXPECT_EQ(r.pos, s.size() - 2);
	EXPECT_EQ(r.len, 2u);
	EXPECT_EQ(count, kUntouched);
	for (usize i = 0; i < out.size(); i++)
		EXPECT_EQ(out[i], kUntouched) << "slot " << i;

	// Too long input for a list, too.
	s.assign(parse::kMaxInput + 1, '1');
	for (usize i = 1; i < s.size(); i += 2)
		s[i] = ',';
	r = parse::parse_uint_list<u32>(s.data(), s.size(), ',', 0, 1000, out.data(),
					parse::kMaxItems, &count);
	EXPECT_EQ(r.err, Err::TooLong);
	EXPECT_EQ(r.pos, 4096u);
	EXPECT_EQ(r.len, 1u);
	EXPECT_EQ(count, kUntouched);
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

TEST(Err, Texts)
{
	EXPECT_STREQ(err_str(Err::Ok), "ok");
	EXPECT_STREQ(err_str(Err::Range), "out of range");
	EXPECT_STREQ(err_str(Err::TooLong), "input too long");
	EXPECT_STREQ(err_str(Err::NoMem), "out of memory");
	EXPECT_STREQ(err_str(static_cast<Err>(-1)), "unknown error");
	// Numbered densely from Ok, each with its own text (not its
	// neighbour's); everything after Last is unknown.
	EXPECT_GE(static_cast<int>(Err::Last), static_cast<int>(Err::NoMem));
	for (int e = 1; e <= static_cast<int>(Err::Last); e++)
		EXPECT_STRNE(err_str(static_cast<Err>(e)), err_str(static_cast<Err>(e - 1))) << e;
	for (int e = static_cast<int>(Err::Last) + 1; e <= 1000; e++)
		EXPECT_STREQ(err_str(static_cast<Err>(e)), "unknown error") << e;
}

// Named lists: name[:uint],... (parse::parse_named_list).
namespace {

constexpr parse::NamedSpec kPages = { 256, 1, 65536, 0 };
constexpr parse::NamedSpec kAll = { 4096, 1, 1048576, XNET_NAMED_STAR };
constexpr char kFill = '\x5a';	// the output's bytes before a call

struct NamedCase {
	std::string in;
	Err err;
	std::vector<std::pair<std::string, u32>> items;	// on success
	usize pos, len;					// on error
	usize cap;
	const parse::NamedSpec *spec;
};

NamedCase nok(std::string in, std::vector<std::pair<std::string, u32>> items,
	      usize cap = 4, const parse::NamedSpec *spec = &kPages)
{
	return { std::move(in), Err::Ok, std::move(items), 0, 0, cap, spec };
}

NamedCase nbad(std::string in, Err err, usize pos, usize len, usize cap = 4,
	       const parse::NamedSpec *spec = &kPages)
{
	return { std::move(in), err, {}, pos, len, cap, spec };
}

bool untouched(const void *p, usize n)
{
	const char *c = static_cast<const char *>(p);

	for (usize i = 0; i < n; i++)
		if (c[i] != kFill)
			return false;
	return true;
}

// Parses @c into an output one slot larger than its cap, and checks the
// verdict, the items, and that nothing is written on error or past the
// items on success.
void check_named(const NamedCase &c)
{
	parse::Named out[parse::kMaxItems + 1];
	usize count = kUntouched;

	SCOPED_TRACE(testing::Message() << '"' << c.in << "\" cap " << c.cap
					<< (c.spec->flags & XNET_NAMED_STAR ? " star" : ""));
	std::memset(out, kFill, sizeof(out));
	Result r = parse::parse_named_list(c.in.data(), c.in.size(), *c.spec, out,
					   c.cap, &count);
	EXPECT_EQ(r.err, c.err) << err_str(r.err);
	usize first = 0;
	if (c.err == Err::Ok) {
		EXPECT_EQ(r.pos, 0u);
		EXPECT_EQ(r.len, 0u);
		ASSERT_EQ(count, c.items.size());
		for (usize i = 0; i < count; i++) {
			EXPECT_EQ(std::string(out[i].name), c.items[i].first) << "item " << i;
			EXPECT_EQ(out[i].value, c.items[i].second) << "item " << i;
			// NUL-terminated and NUL-padded.
			for (usize k = c.items[i].first.size(); k < parse::kIfNameSize; k++)
				EXPECT_EQ(out[i].name[k], '\0') << "item " << i << " byte " << k;
		}
		first = count;
	} else {
		EXPECT_EQ(r.pos, c.pos);
		EXPECT_EQ(r.len, c.len);
		EXPECT_LE(r.pos + r.len, c.in.size());
		EXPECT_EQ(count, kUntouched) << "count untouched on error";
	}
	for (usize i = first; i < parse::kMaxItems + 1; i++)
		EXPECT_TRUE(untouched(&out[i], sizeof(out[i]))) << "slot " << i;
}

} // namespace

TEST(ParseNamed, Cases)
{
	const std::string nul("a\0b", 3);
	const NamedCase cases[] = {
		// The empty list: nothing, or whitespace only.
		nok("", {}),
		nok("\n", {}),
		nok(" \t\r\n\v\f", {}),
		nok("\xa0", {}),
		nok("", {}, 0),
		nok("\n", {}, 0),
		// The default value, an explicit one, the bounds.
		nok("eth0", { { "eth0", 256 } }),
		nok("eth0:1", { { "eth0", 1 } }),
		nok("eth0:65536", { { "eth0", 65536 } }),
		nok("eth0:0008", { { "eth0", 8 } }),
		nok("eth0:256,eth1", { { "eth0", 256 }, { "eth1", 256 } }),
		nok("a,b:2,c,d:4", { { "a", 256 }, { "b", 2 }, { "c", 256 }, { "d", 4 } }),
		// Whitespace around the whole value, a trailing newline (or more).
		nok("eth0\n", { { "eth0", 256 } }),
		nok("eth0:7\n", { { "eth0", 7 } }),
		nok("  eth0:7,eth1 \n", { { "eth0", 7 }, { "eth1", 256 } }),
		nok("\teth0\r\n\n", { { "eth0", 256 } }),
		nok("\xa0" "eth0\xa0", { { "eth0", 256 } }),
		// Names: 1..15 bytes, anything dev_valid_name() takes.
		nok("abcdefghijklmno", { { "abcdefghijklmno", 256 } }),
		nok("abcdefghijklmno:9", { { "abcdefghijklmno", 9 } }),
		nok("x", { { "x", 256 } }),
		nok("...,.a,a.,a..", { { "...", 256 }, { ".a", 256 }, { "a.", 256 }, { "a..", 256 } }),
		nok("e*,eth%d,a-b_c@d", { { "e*", 256 }, { "eth%d", 256 }, { "a-b_c@d", 256 } }),
		nok("\x80\xff,\xc3\xa9t", { { "\x80\xff", 256 }, { "\xc3\xa9t", 256 } }),
		// Case matters; a prefix is another name.
		nok("e0,E0", { { "e0", 256 }, { "E0", 256 } }),
		nok("eth0,eth00,eth", { { "eth0", 256 }, { "eth00", 256 }, { "eth", 256 } }),
		// "*" where the spec allows it, alone or among names.
		nok("*", { { "*", 4096 } }, 4, &kAll),
		nok("*:256,e0:64", { { "*", 256 }, { "e0", 64 } }, 4, &kAll),
		nok("e0,*:1048576", { { "e0", 4096 }, { "*", 1048576 } }, 4, &kAll),
		nok("**,*x", { { "**", 4096 }, { "*x", 4096 } }, 4, &kAll),
		// cap items fit.
		nok("a", { { "a", 256 } }, 1),

		// Empty items: len 0, at the item.
		nbad(",", Err::Empty, 0, 0),
		nbad("a,,b", Err::Empty, 2, 0),
		nbad(",a", Err::Empty, 0, 0),
		nbad("a,", Err::Empty, 2, 0),
		nbad("a,\n", Err::Empty, 2, 0),
		nbad("a, \n", Err::Empty, 2, 0),
		nbad("  a,,b", Err::Empty, 4, 0),
		nbad(",,", Err::Empty, 0, 0),
		// Whitespace inside.
		nbad("a b", Err::BadName, 0, 3),
		nbad("a, b", Err::BadName, 2, 2),
		nbad("a ,b", Err::BadName, 0, 2),
		nbad(" a , b ", Err::BadName, 1, 2),
		nbad("a\tb", Err::BadName, 0, 3),
		nbad("a\nb", Err::BadName, 0, 3),
		nbad("a\vb:3", Err::BadName, 0, 5),
		nbad("a\xa0" "b", Err::BadName, 0, 3),
		nbad("a :3", Err::BadName, 0, 4),
		nbad("a: 3", Err::Invalid, 0, 4),
		nbad("a:3 ,b", Err::Trailing, 0, 4),
		nbad("a:3\n,b", Err::Trailing, 0, 4),
		// Names dev_valid_name() refuses.
		nbad("abcdefghijklmnop", Err::BadName, 0, 16),
		nbad("abcdefghijklmnop:5", Err::BadName, 0, 18),
		nbad("e0,abcdefghijklmnopqrstuvwxyz", Err::BadName, 3, 26),
		nbad(".", Err::BadName, 0, 1),
		nbad("..", Err::BadName, 0, 2),
		nbad("..:4", Err::BadName, 0, 4),
		nbad("e0,.", Err::BadName, 3, 1),
		nbad("/", Err::BadName, 0, 1),
		nbad("bad/name", Err::BadName, 0, 8),
		nbad("a/:3", Err::BadName, 0, 4),
		nbad(":5", Err::BadName, 0, 2),
		nbad(":", Err::BadName, 0, 1),
		nbad(nul, Err::BadName, 0, 3),
		// "*" without the spec's flag; "*" with it is one name, too.
		nbad("*", Err::BadName, 0, 1),
		nbad("*:8", Err::BadName, 0, 3),
		nbad("e0,*", Err::BadName, 3, 1),
		nbad("*,*:8", Err::Duplicate, 2, 3, 4, &kAll),
		nbad("*:0", Err::Range, 0, 3, 4, &kAll),
		// Values.
		nbad("a:", Err::Empty, 0, 2),
		nbad("a:\n", Err::Empty, 0, 2),
		nbad("a:,b", Err::Empty, 0, 2),
		nbad("a:0", Err::Range, 0, 3),
		nbad("a:00", Err::Range, 0, 4),
		nbad("a:65537", Err::Range, 0, 7),
		nbad("e0:5,a:65537", Err::Range, 5, 7),
		nbad("a:4294967295", Err::Range, 0, 12),
		nbad("a:4294967296", Err::Overflow, 0, 12),
		nbad("a:99999999999999999999", Err::Overflow, 0, 22),
		nbad("a:-1", Err::Sign, 0, 4),
		nbad("a:+1", Err::Sign, 0, 4),
		nbad("a:-0", Err::Sign, 0, 4),
		nbad("a:x", Err::Invalid, 0, 3),
		nbad("a:abc", Err::Invalid, 0, 5),
		nbad("a:1x", Err::Trailing, 0, 4),
		nbad("a:0x10", Err::Trailing, 0, 6),
		nbad("a:1.5", Err::Trailing, 0, 5),
		nbad("a:1:2", Err::Trailing, 0, 5),
		nbad("a::1", Err::Invalid, 0, 4),
		nbad("e0,x0:1:2,y", Err::Trailing, 3, 6),
		// Duplicates: the second is named.
		nbad("a,a", Err::Duplicate, 2, 1),
		nbad("a:1,b,a:2", Err::Duplicate, 6, 3),
		nbad("a,b,b\n", Err::Duplicate, 4, 1),
		nbad("x0,x0", Err::Duplicate, 3, 2),
		nbad("abcdefghijklmno,abcdefghijklmno:3", Err::Duplicate, 16, 17),
		// Too many: the first item past cap.
		nbad("a,b,c,d,e", Err::TooMany, 8, 1),
		nbad("a,b,c,d,e:5,f", Err::TooMany, 8, 3),
		nbad("a,b", Err::TooMany, 2, 1, 1),
		nbad("a", Err::TooMany, 0, 1, 0),
		nbad("a\n", Err::TooMany, 0, 1, 0),
		// The first bad item is named; within an item: empty, too many,
		// name, value, duplicate.
		nbad("a/b,c:0", Err::BadName, 0, 3),
		nbad("c:0,a/b", Err::Range, 0, 3),
		nbad("a/b:0", Err::BadName, 0, 5),
		nbad("a,a:0", Err::Range, 2, 3),
		nbad("a,a/b,a", Err::BadName, 2, 3),
		nbad("a,b,c,d,,", Err::Empty, 8, 0),
		nbad("a,b,c,d,.", Err::TooMany, 8, 1),
		nbad("a,b,c,d,a", Err::TooMany, 8, 1),
	};

	for (const auto &c : cases)
		check_named(c);
}

// No scratch copy: the input is read in place, and the output is written
// only once the whole list is known to be good.
TEST(ParseNamed, NothingWrittenOnError)
{
	parse::Named out[4];
	usize count = 3;

	std::memset(out, kFill, sizeof(out));
	const char *s = "a:1,b:2,c:3,c";
	Result r = parse::parse_named_list(s, std::strlen(s), kPages, out, 4, &count);
	EXPECT_EQ(r.err, Err::Duplicate);
	EXPECT_EQ(count, 3u);
	EXPECT_TRUE(untouched(out, sizeof(out)));

	// A good list overwrites the whole name (no byte of an old one is left).
	std::memcpy(out[0].name, "abcdefghijklmno", 16);
	s = "ab:5";
	ASSERT_TRUE(parse::parse_named_list(s, std::strlen(s), kPages, out, 4, &count).ok());
	EXPECT_EQ(count, 1u);
	EXPECT_STREQ(out[0].name, "ab");
	for (usize k = 2; k < parse::kIfNameSize; k++)
		EXPECT_EQ(out[0].name[k], '\0') << k;
	EXPECT_EQ(out[0].value, 5u);
	EXPECT_TRUE(untouched(&out[1], 3 * sizeof(out[1])));
}

TEST(ParseNamed, Limits)
{
	ASSERT_EQ(parse::kMaxItems, 64u);
	std::string s;

	// kMaxItems distinct names fit, even with a bigger cap...
	for (usize i = 0; i < parse::kMaxItems; i++)
		s += (i ? ",d" : "d") + std::to_string(i) + ":" + std::to_string(i + 1);
	NamedCase all = nok(s, {}, parse::kMaxItems + 1);
	for (usize i = 0; i < parse::kMaxItems; i++)
		all.items.push_back({ "d" + std::to_string(i), static_cast<u32>(i + 1) });
	check_named(all);
	// ... one more does not: the cap is clamped to kMaxItems.
	usize at = s.size() + 1;
	s += ",d64";
	check_named(nbad(s, Err::TooMany, at, 3, parse::kMaxItems + 1));

	// Exactly kMaxInput bytes: fine (leading zeros, surrounding space).
	std::string page = "eth0:" + std::string(parse::kMaxInput - 5 - 2, '0') + "9\n";
	ASSERT_EQ(page.size(), parse::kMaxInput);
	check_named(nok(page, { { "eth0", 9 } }));
	std::string spaces = std::string(parse::kMaxInput - 4, ' ') + "eth0";
	check_named(nok(spaces, { { "eth0", 256 } }));
	// One byte more is refused, whitespace too: the excess is named.
	check_named(nbad(page + "\n", Err::TooLong, parse::kMaxInput, 1));
	check_named(nbad(spaces + " ", Err::TooLong, parse::kMaxInput, 1));
	check_named(nbad(std::string(3 * parse::kMaxInput, ','), Err::TooLong,
			 parse::kMaxInput, 2 * parse::kMaxInput));
	check_named(nbad(std::string(parse::kMaxInput + 1, '\n'), Err::TooLong,
			 parse::kMaxInput, 1));
}

// The same rule as the kernel's dev_valid_name() (6.1, 6.12) and isspace().
TEST(ParseNamed, DevValidName)
{
	for (int c = 0; c < 256; c++) {
		bool space = c == ' ' || (c >= 9 && c <= 13) || c == 0xa0;
		char ch = static_cast<char>(c);

		EXPECT_EQ(parse::is_space(ch), space) << c;
		bool ok = c != '/' && c != ':' && c != 0 && !space && c != '.';
		EXPECT_EQ(parse::dev_valid_name(&ch, 1), ok) << c;
		char two[2] = { 'e', ch };
		EXPECT_EQ(parse::dev_valid_name(two, 2), ok || c == '.') << c;
	}
	EXPECT_FALSE(parse::dev_valid_name("", 0));
	EXPECT_TRUE(parse::dev_valid_name("abcdefghijklmno", 15));
	EXPECT_FALSE(parse::dev_valid_name("abcdefghijklmnop", 16));
	EXPECT_FALSE(parse::dev_valid_name("..", 2));
	EXPECT_TRUE(parse::dev_valid_name("...", 3));
	EXPECT_TRUE(parse::dev_valid_name("*", 1)) << "the kernel's rule; the list refuses it";
	EXPECT_EQ(parse::kIfNameSize, 16u);
}

namespace {

constexpr Err named_err(const char *s, usize n, usize cap)
{
	parse::Named out[2] = {};
	usize count = 0;

	return parse::parse_named_list(s, n, kAll, out, cap, &count).err;
}

constexpr u32 named_value(const char *s, usize n, usize i)
{
	parse::Named out[2] = {};
	usize count = 0;

	return parse::parse_named_list(s, n, kAll, out, 2, &count).ok() ? out[i].value : 0;
}

} // namespace

// Usable at compile time (no hidden state, nothing the kernel would run at
// load).
static_assert(named_err("a,a", 3, 2) == Err::Duplicate, "duplicate");
static_assert(named_err("a,b,c", 5, 2) == Err::TooMany, "too many");
static_assert(named_value("*:8,e0", 6, 0) == 8, "value");
static_assert(named_value("*:8,e0", 6, 1) == 4096, "default");
