// SPDX-License-Identifier: GPL-2.0
// libFuzzer: -max_len=256
// libFuzzer target: IPv4/IPv6 addresses and prefixes (inet::parse_v4,
// parse_v6, parse_prefix: the laddr=/raddr= values of the nvme priority
// rules) and their canonical text (format_prefix, inet::Writer).
//
// Input: the text of one ADDR[/LEN]. Properties:
//  - parse_v4 and parse_v6 accept exactly what glibc's inet_pton accepts,
//    with the same 4/16 bytes;
//  - parse_prefix agrees with a reference built on inet_pton and strtoull
//    (brackets only around an IPv6 address, LEN within the family's
//    range, no host bits) in verdict, address and length;
//  - a refused input leaves the output untouched;
//  - the canonical text is glibc's inet_ntop text (RFC 5952; except that
//    glibc writes IPv4-compatible addresses as ::a.b.c.d), parses back to
//    the same prefix and is a fixed point;
//  - a truncated write never overruns, is NUL-terminated and is a prefix
//    of the full text, whose length it reports;
//  - a prefix contains its own address and every address differing only
//    in host bits, and not one that differs in its last prefix bit.
#include <cstdint>
#include <cstring>
#include <string>

#include <nvprio/inet.hpp>

#include "fuzz_util.hpp"
#include "ref_inet.hpp"

using namespace xnet;
using inet::Addr;
using inet::Prefix;

namespace {

std::string text_of(const Prefix &p)
{
	char buf[64];
	inet::Writer w{ buf, sizeof(buf), 0 };

	inet::format_prefix(w, p);
	usize len = w.finish();

	FUZZ_CHECK(len < sizeof(buf), "canonical text of %zu bytes", len);
	return std::string(buf, len);
}

void flip(Addr &a, unsigned bit)
{
	a.b[bit / 8] ^= static_cast<u8>(0x80 >> (bit % 8));
}

void check_direct(const char *s, size_t n)
{
	std::string in(s, n);
	std::string shown = fuzzref::show(s, n);

	// parse_v4 against inet_pton(AF_INET).
	u8 q[4] = { 1, 2, 3, 4 };
	unsigned char r4[4];
	bool ok4 = inet::parse_v4(s, n, q);
	bool ref4 = !fuzzref::has_nul(in) && inet_pton(AF_INET, in.c_str(), r4) == 1;

	FUZZ_CHECK(ok4 == ref4, "'%s': parse_v4 %d, inet_pton %d", shown.c_str(), ok4, ref4);
	if (ok4)
		FUZZ_CHECK(!std::memcmp(q, r4, 4), "'%s': parse_v4 bytes differ", shown.c_str());

	// parse_v6 against inet_pton(AF_INET6).
	Addr a6;
	unsigned char r6[16];

	std::memset(a6.b, 0xa5, sizeof(a6.b));
	bool ok6 = inet::parse_v6(s, n, &a6);
	bool ref6 = !fuzzref::has_nul(in) && inet_pton(AF_INET6, in.c_str(), r6) == 1;

	FUZZ_CHECK(ok6 == ref6, "'%s': parse_v6 %d, inet_pton %d", shown.c_str(), ok6, ref6);
	if (ok6)
		FUZZ_CHECK(!std::memcmp(a6.b, r6, 16), "'%s': parse_v6 bytes differ", shown.c_str());
}

void check_prefix(const char *s, size_t n)
{
	std::string shown = fuzzref::show(s, n);
	Prefix p;

	std::memset(&p, 0xa5, sizeof(p));
	Prefix untouched = p;
	Err e = inet::parse_prefix(s, n, &p);
	fuzzref::Prefix ref = fuzzref::prefix(s, n);

	FUZZ_CHECK(e == ref.err, "'%s': %s, reference %s", shown.c_str(), err_str(e),
		   err_str(ref.err));
	if (e != Err::Ok) {
		FUZZ_CHECK(!std::memcmp(&p, &untouched, sizeof(p)), "'%s' refused but the output changed",
			   shown.c_str());
		return;
	}
	FUZZ_CHECK(p.addr == ref.addr && p.len == ref.len, "'%s': address or length differs",
		   shown.c_str());
	FUZZ_CHECK(p.len <= p.max_len() && p.host_bits_clear(), "'%s': len %u", shown.c_str(),
		   p.len);

	// Canonical text against inet_ntop, round trip, fixed point.
	std::string t = text_of(p);
	std::string want = fuzzref::prefix_text(p.addr, p.len);

	FUZZ_CHECK(t == want, "'%s' -> '%s', reference '%s'", shown.c_str(), t.c_str(),
		   want.c_str());
	Prefix back;

	std::memset(&back, 0x5a, sizeof(back));
	FUZZ_CHECK(inet::parse_prefix(t.data(), t.size(), &back) == Err::Ok &&
			   back.addr == p.addr && back.len == p.len,
		   "'%s' -> '%s' does not parse back", shown.c_str(), t.c_str());
	FUZZ_CHECK(text_of(back) == t, "'%s': '%s' is not a fixed point", shown.c_str(), t.c_str());

	// Truncated writes: an exact-size heap buffer for every capacity.
	for (usize cap = 0; cap <= t.size() + 1; cap++) {
		char *buf = static_cast<char *>(std::malloc(cap ? cap : 1));
		inet::Writer w{ cap ? buf : nullptr, cap, 0 };

		inet::format_prefix(w, p);
		usize len = w.finish();

		FUZZ_CHECK(len == t.size(), "'%s': cap %zu reports %zu, full %zu", t.c_str(), cap, len,
			   t.size());
		if (cap) {
			usize kept = cap - 1 < t.size() ? cap - 1 : t.size();

			FUZZ_CHECK(buf[kept] == '\0' && !std::memcmp(buf, t.data(), kept),
				   "'%s': cap %zu is not a NUL-terminated prefix", t.c_str(), cap);
		}
		std::free(buf);
	}

	// Matching: the prefix's own address, host bits flipped, the last
	// prefix bit flipped.
	unsigned bits = p.bits128();

	FUZZ_CHECK(p.contains(p.addr), "'%s' does not contain its own address", t.c_str());
	for (unsigned bit = bits; bit < 128; bit += 1 + (bit % 7)) {
		Addr h = p.addr;

		flip(h, bit);
		// An IPv6 prefix shorter than /96 can reach ::ffff:0:0/96, the
		// IPv4-mapped block: those addresses are IPv4, never matched.
		if (h.is_v4() != p.is_v4()) {
			FUZZ_CHECK(!p.contains(h), "'%s' matches the other family (host bit %u)",
				   t.c_str(), bit);
			continue;
		}
		FUZZ_CHECK(p.contains(h), "'%s' does not contain its address with host bit %u set",
			   t.c_str(), bit);
	}
	if (bits > (p.is_v4() ? 96u : 0u)) {
		Addr o = p.addr;

		flip(o, bits - 1);
		FUZZ_CHECK(!p.contains(o), "'%s' contains an address outside (bit %u)", t.c_str(),
			   bits - 1);
	}
	// The other family never matches.
	Addr other = p.is_v4() ? Addr{ { 0x20, 0x01, 0x0d, 0xb8 } } : inet::v4(10, 0, 0, 1);

	FUZZ_CHECK(!p.contains(other), "'%s' matches the other family", t.c_str());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = static_cast<char *>(std::malloc(size ? size : 1));

	if (size)
		std::memcpy(s, data, size);
	check_direct(s, size);
	check_prefix(s, size);
	std::free(s);
	return 0;
}
