// SPDX-License-Identifier: GPL-2.0
// LINK: common/core_abi.cpp
// libFuzzer: -max_len=4200
// libFuzzer target: one unsigned decimal (parse::parse_uint, the parser
// behind every integer module parameter and sysfs file: so_priority,
// xps_dev_flow_table_cnt, pp_frag_pool_pages) and its C ABI xnet_parse_u32.
//
// Input: the bytes written to the file. Properties, for every value type
// (u8, u16, u32, u64) and the ranges the modules use plus edge ranges:
//  - the verdict (value or error kind, position, length) equals a strtoull
//    based reference of the documented grammar;
//  - an accepted value lies in [min, max]; printing it back and parsing
//    the text gives the same value, and the text is the input without
//    leading zeros and newline;
//  - a refused input leaves the output untouched;
//  - xnet_parse_u32 (what the C glue calls) agrees with the core.
#include <cinttypes>
#include <cstdint>
#include <cstring>

#include <xnet/abi.h>
#include <xnet/parse.hpp>
#include <pp_frag/frag_pool.h>
#include <xps_flow/decide.h>

#include "fuzz_util.hpp"

using namespace xnet;

namespace {

template <typename U>
void check_one(const char *s, size_t n, U min, U max)
{
	const U kSentinel = static_cast<U>(0xa5a5a5a5a5a5a5a5ull);
	U out = kSentinel;
	parse::Result r = parse::parse_uint<U>(s, n, min, max, &out);

	// Reference verdict.
	Err want;
	size_t want_pos = 0, want_len = 0;
	u64 want_v = 0;

	if (n > parse::kMaxInput) {
		want = Err::TooLong;
		want_pos = parse::kMaxInput;
		want_len = n - parse::kMaxInput;
	} else {
		size_t m = (n > 0 && s[n - 1] == '\n') ? n - 1 : n;
		fuzzref::Uint u = fuzzref::uint_token(s, m, static_cast<U>(-1), min, max);

		want = u.err;
		want_v = u.v;
		want_len = want == Err::Ok ? 0 : m;
	}
	FUZZ_CHECK(r.err == want, "'%s' (%zu bytes) in [%" PRIu64 ", %" PRIu64 "] of a %zu-byte type: %s, reference %s",
		   fuzzref::show(s, n).c_str(), n, static_cast<u64>(min), static_cast<u64>(max),
		   sizeof(U), err_str(r.err), err_str(want));
	FUZZ_CHECK(r.pos == want_pos && r.len == want_len, "'%s': token %zu+%zu, reference %zu+%zu",
		   fuzzref::show(s, n).c_str(), r.pos, r.len, want_pos, want_len);
	if (!r.ok()) {
		FUZZ_CHECK(out == kSentinel, "'%s' refused but the output changed",
			   fuzzref::show(s, n).c_str());
		return;
	}
	FUZZ_CHECK(out == want_v, "'%s': %" PRIu64 ", reference %" PRIu64,
		   fuzzref::show(s, n).c_str(), static_cast<u64>(out), want_v);
	FUZZ_CHECK(out >= min && out <= max, "'%s': %" PRIu64 " outside the range",
		   fuzzref::show(s, n).c_str(), static_cast<u64>(out));

	// Round trip: the printed value parses back to itself and is the
	// input without leading zeros (and without the newline).
	char text[32];
	int len = std::snprintf(text, sizeof(text), "%" PRIu64 "\n", static_cast<u64>(out));
	U back = kSentinel, back_nl = kSentinel;

	FUZZ_CHECK(parse::parse_uint<U>(text, len - 1, min, max, &back).ok() && back == out,
		   "'%s' does not parse back", text);
	FUZZ_CHECK(parse::parse_uint<U>(text, len, min, max, &back_nl).ok() && back_nl == out,
		   "'%s' with its newline does not parse back", text);

	size_t m = (n > 0 && s[n - 1] == '\n') ? n - 1 : n;
	size_t z = 0;

	while (z + 1 < m && s[z] == '0')
		z++;
	FUZZ_CHECK(m - z == static_cast<size_t>(len - 1) && !std::memcmp(s + z, text, m - z),
		   "'%s' prints as '%.*s'", fuzzref::show(s, n).c_str(), len - 1, text);
}

// What the C glue calls, for the ranges the modules use.
void check_abi(const char *s, size_t n, u32 min, u32 max)
{
	const unsigned int kSentinel = 0xa5a5a5a5u;
	unsigned int out = kSentinel, core = kSentinel;
	struct xnet_parse_res res = { -1, 0xffffffffu, 0xffffffffu };
	int err = xnet_parse_u32(s, n, min, max, &out, &res);
	parse::Result r = parse::parse_uint<u32>(s, n, min, max, &core);

	FUZZ_CHECK(err == static_cast<int>(r.err) && res.err == err &&
			   res.pos == r.pos && res.len == r.len,
		   "'%s': xnet_parse_u32 %d@%u+%u, core %d@%zu+%zu", fuzzref::show(s, n).c_str(),
		   err, res.pos, res.len, static_cast<int>(r.err), r.pos, r.len);
	FUZZ_CHECK(out == core, "'%s': xnet_parse_u32 gave %u, core %u",
		   fuzzref::show(s, n).c_str(), out, core);
	if (err != XNET_OK)
		FUZZ_CHECK(out == kSentinel, "'%s' refused but *out changed", fuzzref::show(s, n).c_str());
	// The result report is optional.
	unsigned int out2 = kSentinel;

	FUZZ_CHECK(xnet_parse_u32(s, n, min, max, &out2, nullptr) == err && out2 == out,
		   "'%s': xnet_parse_u32 without a report differs", fuzzref::show(s, n).c_str());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// A heap copy of exactly @size bytes: ASan sees any read past the end.
	char *s = static_cast<char *>(std::malloc(size ? size : 1));

	if (size)
		std::memcpy(s, data, size);

	static const u32 k32[][2] = {
		{ 0, 0xffffffffu },			/* nvme_tcp_prio so_priority */
		{ 0, XNET_XPS_MAX_ENTRIES },		/* xps_dev_flow_table_cnt */
		{ 0, XNET_FRAG_MAX_PAGES },		/* pp_frag_pool_pages */
		{ 1, 65535 }, { 7, 7 }, { 0, 0 }, { 0xffffffffu, 0xffffffffu },
		{ 10, 3 },				/* empty range: all refused */
	};
	for (const auto &r : k32) {
		check_one<u32>(s, size, r[0], r[1]);
		check_abi(s, size, r[0], r[1]);
	}
	check_one<u8>(s, size, 0, 32);			/* IPv4 prefix length */
	check_one<u8>(s, size, 0, 128);			/* IPv6 prefix length */
	check_one<u8>(s, size, 0, 255);
	check_one<u16>(s, size, 1, 65535);		/* ports */
	check_one<u64>(s, size, 0, ~0ull);
	check_one<u64>(s, size, 5, 1000000000000000000ull);
	std::free(s);
	return 0;
}
