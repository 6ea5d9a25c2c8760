// SPDX-License-Identifier: GPL-2.0
// Reference for ADDR[/LEN] built on glibc's inet_pton/inet_ntop and
// strtoull (fuzz_util.hpp), shared by the inet and rules targets.
#ifndef XNET_TESTS_FUZZ_REF_INET_HPP
#define XNET_TESTS_FUZZ_REF_INET_HPP

#include <arpa/inet.h>
#include <cstdio>
#include <string>

#include <nvprio/inet.hpp>

#include "fuzz_util.hpp"

namespace fuzzref {

using xnet::u8;
using xnet::inet::Addr;

inline bool has_nul(const std::string &s)
{
	return s.find('\0') != std::string::npos;
}

inline bool mapped_v4(const Addr &a)
{
	for (int i = 0; i < 10; i++)
		if (a.b[i])
			return false;
	return a.b[10] == 0xff && a.b[11] == 0xff;
}

struct Prefix {
	Err err;
	Addr addr;
	u8 len;
};

inline Prefix prefix(const char *s, size_t n)
{
	std::string in(s, n);
	size_t slash = in.find('/');

	if (slash == std::string::npos)
		slash = n;
	std::string a = in.substr(0, slash);
	bool bracket = a.size() >= 2 && a.front() == '[' && a.back() == ']';

	if (bracket)
		a = a.substr(1, a.size() - 2);
	if (a.empty())
		return { Err::Empty, {}, 0 };
	if (has_nul(a))
		return { Err::Invalid, {}, 0 };

	Prefix p{ Err::Ok, {}, 0 };
	unsigned char b4[4];

	if (inet_pton(AF_INET, a.c_str(), b4) == 1) {
		if (bracket)
			return { Err::Invalid, {}, 0 };
		p.addr = xnet::inet::v4(b4[0], b4[1], b4[2], b4[3]);
	} else if (inet_pton(AF_INET6, a.c_str(), p.addr.b) != 1) {
		return { Err::Invalid, {}, 0 };
	}
	// An IPv4-mapped address is IPv4, however it was written.
	bool v4 = mapped_v4(p.addr);

	u8 max = v4 ? 32 : 128;

	p.len = max;
	if (slash < n) {
		fuzzref::Uint u = fuzzref::uint_token(s + slash + 1, n - slash - 1, 255, 0, max);

		if (u.err != Err::Ok)
			return { u.err, {}, 0 };
		p.len = static_cast<u8>(u.v);
	}
	unsigned bits = (v4 ? 96u : 0u) + p.len;

	for (unsigned i = bits; i < 128; i++)
		if (p.addr.b[i / 8] & (0x80 >> (i % 8)))
			return { Err::HostBits, {}, 0 };
	return p;
}

/*
 * Canonical text of an address: glibc's inet_ntop, which follows RFC 5952
 * except that it writes IPv4-compatible addresses (::a.b.c.d, the first
 * six words zero) in dotted form; RFC 5952 wants hex there.
 */
inline std::string addr_text(const Addr &a)
{
	char t[INET6_ADDRSTRLEN];

	if (mapped_v4(a)) {
		inet_ntop(AF_INET, a.b + 12, t, sizeof(t));
		return t;
	}
	inet_ntop(AF_INET6, a.b, t, sizeof(t));
	if (std::string(t).find('.') != std::string::npos)
		std::snprintf(t, sizeof(t), "::%x:%x", a.b[12] << 8 | a.b[13],
			      a.b[14] << 8 | a.b[15]);
	return t;
}

inline std::string prefix_text(const Addr &a, unsigned len)
{
	std::string t = addr_text(a);

	if (len != (mapped_v4(a) ? 32u : 128u))
		t += "/" + std::to_string(len);
	return t;
}

/* Does @a lie in @p/@len (both in the 16-byte mapped form, same family)? */
inline bool contains(const Addr &p, unsigned len, const Addr &a)
{
	if (mapped_v4(p) != mapped_v4(a))
		return false;
	unsigned bits = (mapped_v4(p) ? 96u : 0u) + len;

	for (unsigned i = 0; i < bits; i++) {
		unsigned char m = static_cast<unsigned char>(0x80 >> (i % 8));

		if ((p.b[i / 8] & m) != (a.b[i / 8] & m))
			return false;
	}
	return true;
}

} // namespace fuzzref

#endif
