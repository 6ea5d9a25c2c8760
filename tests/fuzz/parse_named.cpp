// SPDX-License-Identifier: GPL-2.0
// LINK: common/core_abi.cpp
// libFuzzer: -max_len=4200
// libFuzzer target: lists of net device names with values, name[:N],...
// (parse::parse_named_list) and their C ABI xnet_parse_named_list: the
// devices= parameter of pp_frag and xps_flow.
//
// Input: byte 0 is the caller's room in items (0..69, so both sides of
// the 64-item limit), byte 1 selects the spec (default, range, "*"
// allowed or not); the rest is the parameter's value. Properties:
//  - accepted iff a reference (std::string: trimmed of the kernel's
//    isspace() bytes, split on ',' and at each item's first ':', names
//    judged as dev_valid_name() reads in the kernel source, duplicates
//    looked up in a std::set, values by the strtoull reference) accepts,
//    with the same names and values;
//  - a refusal names exactly one item: the first that is bad, whole (its
//    offset in the untrimmed input, its length; 0 for an empty item), and
//    the same reason;
//  - the output array is written only on success and only for [0, count):
//    it has exactly the caller's room, so ASan sees any write past it;
//    *count is untouched on error; every name is NUL-padded;
//  - the canonical text (name:value joined by ',', the default as no
//    value) parses back to the same list;
//  - xnet_parse_named_list (the C ABI) agrees with the core.
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <xnet/abi.h>
#include <xnet/parse.hpp>

#include "fuzz_util.hpp"

using namespace xnet;

namespace {

constexpr usize kCountSentinel = 12345;
constexpr unsigned char kFill = 0xa5;

constexpr parse::NamedSpec kSpecs[] = {
	{ 256, 1, 65536, 0 },				// pp_frag
	{ 4096, 1, 1048576, XNET_NAMED_STAR },		// xps_flow
	{ 0, 0, 0xffffffffu, XNET_NAMED_STAR },
	{ 7, 7, 7, 0 },
	{ 5, 9, 2, XNET_NAMED_STAR },			// min > max: no value fits
};

// The kernel's isspace() (lib/ctype.c): not the C library's, which has no
// 0xa0 in the "C" locale.
bool kspace(char c)
{
	unsigned char u = static_cast<unsigned char>(c);

	return u == ' ' || (u >= 9 && u <= 13) || u == 0xa0;
}

// dev_valid_name() of net/core/dev.c (6.1, 6.12) on a C string, and no NUL
// inside (the kernel would end the name there).
bool valid_name(const std::string &name)
{
	if (name.empty() || name.size() >= 16 || name == "." || name == "..")
		return false;
	for (char c : name)
		if (c == '/' || c == ':' || c == '\0' || kspace(c))
			return false;
	return true;
}

struct Item {
	std::string name;
	u32 value;
};

struct Ref {
	Err err;
	size_t pos, len;	// the bad item
	std::vector<Item> items;
};

Ref reference(const std::string &in, const parse::NamedSpec &spec, usize cap)
{
	if (in.size() > parse::kMaxInput)
		return { Err::TooLong, parse::kMaxInput, in.size() - parse::kMaxInput, {} };

	size_t b = 0, e = in.size();

	while (b < e && kspace(in[b]))
		b++;
	while (e > b && kspace(in[e - 1]))
		e--;

	Ref ref = { Err::Ok, 0, 0, {} };
	std::set<std::string> seen;
	usize room = cap < parse::kMaxItems ? cap : parse::kMaxItems;

	if (b == e)
		return ref;
	for (size_t start = b;;) {
		size_t comma = in.find(',', start);
		size_t end = comma == std::string::npos || comma > e ? e : comma;
		std::string item = in.substr(start, end - start);
		size_t colon = item.find(':');
		std::string name = item.substr(0, colon);
		auto bad = [&](Err err) {
			return Ref{ err, start, item.size(), {} };
		};

		if (item.empty())
			return bad(Err::Empty);
		if (ref.items.size() == room)
			return bad(Err::TooMany);
		if (name == "*" ? !(spec.flags & XNET_NAMED_STAR) : !valid_name(name))
			return bad(Err::BadName);

		u64 v = spec.def;

		if (colon != std::string::npos) {
			fuzzref::Uint u = fuzzref::uint_token(item.data() + colon + 1,
							      item.size() - colon - 1, 0xffffffffu,
							      spec.min, spec.max);
			if (u.err != Err::Ok)
				return bad(u.err);
			v = u.v;
		}
		if (!seen.insert(name).second)
			return bad(Err::Duplicate);
		ref.items.push_back({ name, static_cast<u32>(v) });
		if (end == e)
			return ref;
		start = end + 1;
	}
}

bool filled(const void *p, size_t n)
{
	const unsigned char *c = static_cast<const unsigned char *>(p);

	for (size_t i = 0; i < n; i++)
		if (c[i] != kFill)
			return false;
	return true;
}

void check(const char *s, size_t n, const parse::NamedSpec &spec, usize cap)
{
	parse::Named *out = new parse::Named[cap];	// exactly the caller's room
	usize count = kCountSentinel;

	std::memset(static_cast<void *>(out), kFill, cap * sizeof(*out));
	parse::Result r = parse::parse_named_list(s, n, spec, out, cap, &count);
	std::string in = fuzzref::show(s, n);

	FUZZ_CHECK(r.pos <= n && r.len <= n - r.pos, "'%s': item %zu+%zu outside the input",
		   in.c_str(), r.pos, r.len);
	if (!r.ok()) {
		FUZZ_CHECK(count == kCountSentinel, "'%s' refused (%s) but *count changed",
			   in.c_str(), err_str(r.err));
		FUZZ_CHECK(filled(out, cap * sizeof(*out)), "'%s' refused (%s) but out changed",
			   in.c_str(), err_str(r.err));
	} else {
		FUZZ_CHECK(count <= cap && count <= parse::kMaxItems, "'%s': %zu items, room %zu",
			   in.c_str(), count, cap);
		FUZZ_CHECK(filled(out + count, (cap - count) * sizeof(*out)),
			   "'%s': out beyond the %zu items changed", in.c_str(), count);
	}

	Ref ref = reference(std::string(s, n), spec, cap);

	if (ref.err == Err::Ok) {
		FUZZ_CHECK(r.ok(), "'%s' (room %zu, def %u [%u, %u] flags %u) refused: %s@%zu+%zu",
			   in.c_str(), cap, spec.def, spec.min, spec.max, spec.flags,
			   err_str(r.err), r.pos, r.len);
		FUZZ_CHECK(count == ref.items.size(), "'%s': %zu items, reference %zu", in.c_str(),
			   count, ref.items.size());
		for (usize i = 0; i < count; i++) {
			const Item &it = ref.items[i];

			FUZZ_CHECK(std::memcmp(out[i].name, it.name.data(), it.name.size()) == 0,
				   "'%s': item %zu is '%s', reference '%s'", in.c_str(), i,
				   fuzzref::show(out[i].name, it.name.size()).c_str(),
				   fuzzref::show(it.name.data(), it.name.size()).c_str());
			for (usize k = it.name.size(); k < parse::kIfNameSize; k++)
				FUZZ_CHECK(out[i].name[k] == '\0', "'%s': item %zu byte %zu not NUL",
					   in.c_str(), i, k);
			FUZZ_CHECK(out[i].value == it.value, "'%s': item %zu value %u, reference %u",
				   in.c_str(), i, out[i].value, it.value);
		}
	} else {
		FUZZ_CHECK(!r.ok(), "'%s' (room %zu, def %u [%u, %u] flags %u) accepted, reference: %s@%zu+%zu",
			   in.c_str(), cap, spec.def, spec.min, spec.max, spec.flags,
			   err_str(ref.err), ref.pos, ref.len);
		FUZZ_CHECK(r.err == ref.err && r.pos == ref.pos && r.len == ref.len,
			   "'%s': %s@%zu+%zu, reference %s@%zu+%zu", in.c_str(), err_str(r.err),
			   r.pos, r.len, err_str(ref.err), ref.pos, ref.len);
	}

	// The canonical text parses back to the same list.
	if (r.ok()) {
		std::string joined;

		// The default written as no value: it need not be in range.
		for (usize i = 0; i < count; i++)
			joined += (i ? "," : "") + std::string(out[i].name) +
				  (out[i].value == spec.def ? "" : ":" + std::to_string(out[i].value));

		std::vector<parse::Named> back(parse::kMaxItems);
		usize bcount = kCountSentinel;
		parse::Result br = parse::parse_named_list(joined.data(), joined.size(), spec,
							   back.data(), cap, &bcount);

		FUZZ_CHECK(br.ok() && bcount == count, "'%s' canonical '%s' does not parse back: %s",
			   in.c_str(), fuzzref::show(joined.data(), joined.size()).c_str(),
			   err_str(br.err));
		for (usize i = 0; i < count; i++)
			FUZZ_CHECK(!std::memcmp(&back[i], &out[i], sizeof(out[i])),
				   "'%s': item %zu changed through '%s'", in.c_str(), i,
				   fuzzref::show(joined.data(), joined.size()).c_str());
	}

	// The C ABI.
	struct xnet_named *aout = new struct xnet_named[cap];
	unsigned int acount = 777;
	struct xnet_parse_res res = { -1, 0xffffffffu, 0xffffffffu };

	std::memset(static_cast<void *>(aout), kFill, cap * sizeof(*aout));
	int err = xnet_parse_named_list(s, n, &spec, aout, static_cast<unsigned int>(cap),
					&acount, &res);

	FUZZ_CHECK(err == static_cast<int>(r.err) && res.err == err && res.pos == r.pos &&
			   res.len == r.len,
		   "'%s': xnet_parse_named_list %d@%u+%u, core %d@%zu+%zu", in.c_str(), err,
		   res.pos, res.len, static_cast<int>(r.err), r.pos, r.len);
	FUZZ_CHECK(acount == (r.ok() ? count : 777u), "'%s': ABI count %u", in.c_str(), acount);
	FUZZ_CHECK(!std::memcmp(aout, out, cap * sizeof(*out)), "'%s': ABI items differ",
		   in.c_str());
	delete[] aout;
	delete[] out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;

	usize cap = data[0] % (parse::kMaxItems + 6);
	const parse::NamedSpec &spec = kSpecs[data[1] % (sizeof(kSpecs) / sizeof(kSpecs[0]))];
	size_t n = size - 2;
	char *s = static_cast<char *>(std::malloc(n ? n : 1));

	if (n)
		std::memcpy(s, data + 2, n);
	check(s, n, spec, cap);
	std::free(s);
	return 0;
}
