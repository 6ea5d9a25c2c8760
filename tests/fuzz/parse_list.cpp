// SPDX-License-Identifier: GPL-2.0
// LINK: common/core_abi.cpp
// libFuzzer: -max_len=4200
// libFuzzer target: separated lists of unsigned decimals
// (parse::parse_uint_list) and their C ABI xnet_parse_u32_list.
//
// Input: byte 0 is the separator, byte 1 the caller's room in items
// (0..69, so both sides of the 64-item limit), byte 2 selects the range;
// the rest is the text written to the file. Properties:
//  - accepted iff a reference (split on the separator with std::string,
//    each item judged by the strtoull reference) accepts, with the same
//    values;
//  - a refusal names exactly one item: the first that is bad (invalid or
//    beyond the room), by its offset and length (0 for an empty item);
//  - the output array is written only on success and only for [0, count):
//    it has exactly the caller's room, so ASan sees any write past it;
//    *count is untouched on error;
//  - joining the values with the separator parses back to the same list;
//  - xnet_parse_u32_list (the C ABI) agrees with the core.
#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <xnet/abi.h>
#include <xnet/parse.hpp>

#include "fuzz_util.hpp"

using namespace xnet;

namespace {

constexpr u32 kSentinel = 0xa5a5a5a5u;
constexpr usize kCountSentinel = 12345;

struct Range {
	u32 min, max;
};

constexpr Range kRanges[] = {
	{ 0, 0xffffffffu }, { 0, 1000 }, { 1, 65535 }, { 3, 3 }, { 9, 2 },
};

struct Token {
	size_t start, len;
};

// The tokens of @s[0..n) (newline already stripped) split on @sep, as
// std::string::find sees them. An empty input has none.
std::vector<Token> split(const std::string &s, char sep)
{
	std::vector<Token> t;

	if (s.empty())
		return t;
	size_t start = 0;

	for (;;) {
		size_t end = s.find(sep, start);

		if (end == std::string::npos) {
			t.push_back({ start, s.size() - start });
			return t;
		}
		t.push_back({ start, end - start });
		start = end + 1;
	}
}

void check(const char *s, size_t n, char sep, usize cap, Range rg)
{
	u32 *out = new u32[cap];	// exactly the caller's room
	usize count = kCountSentinel;

	for (usize i = 0; i < cap; i++)
		out[i] = kSentinel;
	parse::Result r = parse::parse_uint_list<u32>(s, n, sep, rg.min, rg.max, out,
						      cap, &count);
	std::string in = fuzzref::show(s, n);

	FUZZ_CHECK(r.pos <= n && r.len <= n - r.pos, "'%s': token %zu+%zu outside the input",
		   in.c_str(), r.pos, r.len);
	if (!r.ok()) {
		FUZZ_CHECK(count == kCountSentinel, "'%s' refused (%s) but *count changed",
			   in.c_str(), err_str(r.err));
		for (usize i = 0; i < cap; i++)
			FUZZ_CHECK(out[i] == kSentinel, "'%s' refused (%s) but out[%zu] changed",
				   in.c_str(), err_str(r.err), i);
	} else {
		FUZZ_CHECK(count <= cap && count <= parse::kMaxItems, "'%s': %zu items, room %zu",
			   in.c_str(), count, cap);
		for (usize i = count; i < cap; i++)
			FUZZ_CHECK(out[i] == kSentinel, "'%s': out[%zu] beyond the %zu items changed",
				   in.c_str(), i, count);
	}

	// The reference.
	if (n > parse::kMaxInput) {
		FUZZ_CHECK(r.err == Err::TooLong && r.pos == parse::kMaxInput &&
				   r.len == n - parse::kMaxInput,
			   "%zu bytes: %s@%zu+%zu", n, err_str(r.err), r.pos, r.len);
		delete[] out;
		return;
	}
	size_t m = (n > 0 && s[n - 1] == '\n') ? n - 1 : n;
	std::string text(s, m);
	std::vector<Token> tok = split(text, sep);
	usize room = cap < parse::kMaxItems ? cap : parse::kMaxItems;
	size_t bad = tok.size();
	Err bad_err = Err::Ok;

	for (size_t i = 0; i < tok.size(); i++) {
		fuzzref::Uint u = fuzzref::uint_token(s + tok[i].start, tok[i].len, 0xffffffffu,
						      rg.min, rg.max);
		if (i >= room || u.err != Err::Ok) {
			bad = i;
			bad_err = i >= room ? Err::TooMany : u.err;
			// A trailing separator is an empty item even past the
			// room (the core sees it before it counts the item).
			if (i >= room && tok[i].len == 0 && i + 1 == tok.size())
				bad_err = Err::Empty;
			break;
		}
	}
	if (bad == tok.size()) {
		FUZZ_CHECK(r.ok(), "'%s' (sep 0x%02x, room %zu, [%u, %u]) refused: %s@%zu+%zu",
			   in.c_str(), static_cast<unsigned char>(sep), cap, rg.min, rg.max,
			   err_str(r.err), r.pos, r.len);
		FUZZ_CHECK(count == tok.size(), "'%s': %zu items, reference %zu", in.c_str(),
			   count, tok.size());
		for (size_t i = 0; i < tok.size(); i++) {
			fuzzref::Uint u = fuzzref::uint_token(s + tok[i].start, tok[i].len,
							      0xffffffffu, rg.min, rg.max);
			FUZZ_CHECK(out[i] == u.v, "'%s': item %zu is %u, reference %" PRIu64,
				   in.c_str(), i, out[i], u.v);
			FUZZ_CHECK(out[i] >= rg.min && out[i] <= rg.max, "'%s': item %zu out of range",
				   in.c_str(), i);
		}
	} else {
		const Token &t = tok[bad];

		FUZZ_CHECK(!r.ok(), "'%s' (sep 0x%02x, room %zu, [%u, %u]) accepted, item %zu is bad: %s",
			   in.c_str(), static_cast<unsigned char>(sep), cap, rg.min, rg.max, bad,
			   err_str(bad_err));
		FUZZ_CHECK(r.pos == t.start && r.len == t.len,
			   "'%s': refusal names %zu+%zu, the first bad item is %zu+%zu (%s)",
			   in.c_str(), r.pos, r.len, t.start, t.len, err_str(bad_err));
		FUZZ_CHECK(r.err == bad_err, "'%s': %s, reference %s", in.c_str(), err_str(r.err),
			   err_str(bad_err));
	}

	// Round trip through the canonical text (a digit separator is
	// ambiguous with the values themselves).
	if (r.ok() && !(sep >= '0' && sep <= '9')) {
		std::string joined;

		for (usize i = 0; i < count; i++) {
			if (i)
				joined += sep;
			joined += std::to_string(out[i]);
		}
		std::vector<u32> back(parse::kMaxItems, kSentinel);
		usize bcount = kCountSentinel;
		parse::Result br = parse::parse_uint_list<u32>(joined.data(), joined.size(), sep,
							       rg.min, rg.max, back.data(), cap,
							       &bcount);

		FUZZ_CHECK(br.ok() && bcount == count, "'%s' canonical '%s' does not parse back: %s",
			   in.c_str(), fuzzref::show(joined.data(), joined.size()).c_str(),
			   err_str(br.err));
		for (usize i = 0; i < count; i++)
			FUZZ_CHECK(back[i] == out[i], "'%s': item %zu %u -> %u", in.c_str(), i,
				   out[i], back[i]);
	}

	// The C ABI.
	unsigned int *aout = new unsigned int[cap];
	unsigned int acount = 777;
	struct xnet_parse_res res = { -1, 0xffffffffu, 0xffffffffu };

	for (usize i = 0; i < cap; i++)
		aout[i] = kSentinel;
	int err = xnet_parse_u32_list(s, n, sep, rg.min, rg.max, aout,
				      static_cast<unsigned int>(cap), &acount, &res);

	FUZZ_CHECK(err == static_cast<int>(r.err) && res.err == err && res.pos == r.pos &&
			   res.len == r.len,
		   "'%s': xnet_parse_u32_list %d@%u+%u, core %d@%zu+%zu", in.c_str(), err, res.pos,
		   res.len, static_cast<int>(r.err), r.pos, r.len);
	FUZZ_CHECK(acount == (r.ok() ? count : 777u), "'%s': ABI count %u", in.c_str(), acount);
	FUZZ_CHECK(!std::memcmp(aout, out, cap * sizeof(*out)), "'%s': ABI items differ",
		   in.c_str());
	delete[] aout;
	delete[] out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;

	char sep = static_cast<char>(data[0]);
	usize cap = data[1] % (parse::kMaxItems + 6);
	const Range &rg = kRanges[data[2] % (sizeof(kRanges) / sizeof(kRanges[0]))];
	size_t n = size - 3;
	char *s = static_cast<char *>(std::malloc(n ? n : 1));

	if (n)
		std::memcpy(s, data + 3, n);
	check(s, n, sep, cap, rg);
	std::free(s);
	return 0;
}
