// SPDX-License-Identifier: GPL-2.0
// Shared by the libFuzzer targets: a property check that aborts (libFuzzer
// then saves the input as a crash), and the reference parsers the targets
// compare the core against.
#ifndef XNET_TESTS_FUZZ_UTIL_HPP
#define XNET_TESTS_FUZZ_UTIL_HPP

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <xnet/types.hpp>

#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			std::fprintf(stderr, "%s:%d: property failed: %s: ",   \
				     __FILE__, __LINE__, #cond);               \
			std::fprintf(stderr, __VA_ARGS__);                     \
			std::fputc('\n', stderr);                              \
			std::abort();                                          \
		}                                                              \
	} while (0)

namespace fuzzref {

using xnet::Err;
using xnet::u64;

// The input as a printable string for messages (at most 80 bytes).
inline std::string show(const char *s, size_t n)
{
	std::string o;

	for (size_t i = 0; i < n && i < 80; i++) {
		unsigned char c = static_cast<unsigned char>(s[i]);

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			o += static_cast<char>(c);
		} else {
			char b[8];

			std::snprintf(b, sizeof(b), "\\x%02x", c);
			o += b;
		}
	}
	if (n > 80)
		o += "...";
	return o;
}

struct Uint {
	Err err;
	u64 v;
};

// What the documented grammar (include/xnet/parse.hpp) says about one token
// s[0..n) (no newline handling) for an unsigned type whose largest value is
// @tmax, within [min, max]. Built on strtoull, not on the core.
inline Uint uint_token(const char *s, size_t n, u64 tmax, u64 min, u64 max)
{
	if (n == 0)
		return { Err::Empty, 0 };
	if (s[0] == '+' || s[0] == '-')
		return { Err::Sign, 0 };

	size_t digits = 0;

	while (digits < n && s[digits] >= '0' && s[digits] <= '9')
		digits++;
	if (digits == 0)
		return { Err::Invalid, 0 };

	std::string d(s, digits);

	errno = 0;
	unsigned long long v = std::strtoull(d.c_str(), nullptr, 10);

	if (errno == ERANGE || v > tmax)
		return { Err::Overflow, 0 };	// found while reading digits
	if (digits != n)
		return { Err::Trailing, 0 };
	if (v < min || v > max)
		return { Err::Range, 0 };
	return { Err::Ok, v };
}

} // namespace fuzzref

#endif
