// SPDX-License-Identifier: GPL-2.0
// LINK: common/core_abi.cpp nvprio/rules.cpp
// libFuzzer: -max_len=4200
// libFuzzer target: the NVMe/TCP priority rules grammar
// (prio::parse_rules, format_rules, RuleSet::match) and its C ABI
// (xnet_prio_rules_parse/_format/_match), i.e. what a write to
// /sys/module/nvme{,t}_tcp_prio/parameters/rules runs.
//
// Input: the bytes written to the parameter. Properties:
//  - the verdict (accepted, or the error kind and the field or rule it
//    names by offset and length) equals a reference parser written with
//    std::string splitting, the inet_pton/strtoull references and the
//    documented grammar (nvprio/rules.hpp);
//  - an accepted set has the reference's rules (fields, prefixes, ports,
//    priorities), its canonical text is the reference's text (glibc's
//    inet_ntop for addresses), fits a page and parses back to the same set
//    (fixed point);
//  - a refused input leaves the output set untouched (and *out of the C
//    ABI); an empty set is NULL in the C ABI;
//  - truncated formatting never overruns, is NUL-terminated, reports the
//    full length;
//  - match() equals a naive reference matcher (first rule whose every
//    constrained field matches; listeners skip remote rules) on endpoints
//    built from each rule's own values, with host bits and prefix bits
//    flipped, and on endpoints derived from the input.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <xnet/abi.h>
#include <nvprio/rules.h>
#include <nvprio/rules.hpp>

#include "fuzz_util.hpp"
#include "ref_inet.hpp"

using namespace xnet;
using inet::Addr;
using prio::Rule;
using prio::RuleSet;

namespace {

// ---- reference parser -------------------------------------------------

struct RefRule {
	bool laddr = false, lport = false, raddr = false, rport = false;
	Addr la{}, ra{};
	unsigned lalen = 0, ralen = 0;
	unsigned lp = 0, rp = 0;
	u64 prio = 0;
};

struct RefResult {
	Err err = Err::Ok;
	size_t pos = 0, len = 0;
	std::vector<RefRule> rules;
};

struct Span {
	size_t start, len;
};

// Pieces of s[start, start + len) between @sep (a trailing separator
// gives an empty last piece; an empty span is one empty piece).
std::vector<Span> split(const std::string &s, size_t start, size_t len, char sep)
{
	std::vector<Span> out;
	size_t end = start + len, p = start;

	for (;;) {
		size_t q = s.find(sep, p);

		if (q == std::string::npos || q >= end) {
			out.push_back({ p, end - p });
			return out;
		}
		out.push_back({ p, q - p });
		p = q + 1;
	}
}

RefResult fail(Err e, size_t pos, size_t len)
{
	RefResult r;

	r.err = e;
	r.pos = pos;
	r.len = len;
	return r;
}

std::string ref_text(const RefRule &r)
{
	std::string t;
	auto add = [&](const std::string &f) {
		if (!t.empty())
			t += ',';
		t += f;
	};

	if (r.laddr)
		add("laddr=" + fuzzref::prefix_text(r.la, r.lalen));
	if (r.lport)
		add("lport=" + std::to_string(r.lp));
	if (r.raddr)
		add("raddr=" + fuzzref::prefix_text(r.ra, r.ralen));
	if (r.rport)
		add("rport=" + std::to_string(r.rp));
	add("prio=" + std::to_string(r.prio));
	return t;
}

std::string ref_text(const std::vector<RefRule> &rules)
{
	std::string t;

	for (size_t i = 0; i < rules.size(); i++)
		t += (i ? ";" : "") + ref_text(rules[i]);
	return t;
}

RefResult reference(const char *s, size_t n)
{
	if (n > parse::kMaxInput)
		return fail(Err::TooLong, parse::kMaxInput, n - parse::kMaxInput);
	if (n > 0 && s[n - 1] == '\n')
		n--;

	std::string in(s, n);
	RefResult res;

	if (n == 0)
		return res;
	std::vector<Span> rules = split(in, 0, n, ';');

	for (size_t k = 0; k < rules.size(); k++) {
		const Span &rs = rules[k];

		// A trailing ';' is an empty rule even past the limit (the
		// core sees the separator before it counts the next rule).
		if (k >= prio::kMaxRules && rs.len == 0 && k + 1 == rules.size())
			return fail(Err::Empty, rs.start, 0);
		if (k >= prio::kMaxRules)
			return fail(Err::TooMany, rs.start, rs.len);
		if (rs.len == 0)
			return fail(Err::Empty, rs.start, 0);

		RefRule rule;
		bool seen_prio = false;
		std::vector<std::string> seen;

		for (const Span &f : split(in, rs.start, rs.len, ',')) {
			if (f.len == 0)
				return fail(Err::Empty, f.start, 0);
			std::string field = in.substr(f.start, f.len);
			size_t eq = field.find('=');

			if (eq == std::string::npos)
				return fail(Err::UnknownKey, f.start, f.len);
			std::string key = field.substr(0, eq), val = field.substr(eq + 1);

			if (key != "laddr" && key != "lport" && key != "raddr" && key != "rport" &&
			    key != "prio")
				return fail(Err::UnknownKey, f.start, f.len);
			for (const std::string &k2 : seen)
				if (k2 == key)
					return fail(Err::Duplicate, f.start, f.len);
			seen.push_back(key);
			if (key == "prio") {
				fuzzref::Uint u = fuzzref::uint_token(val.data(), val.size(),
								      0xffffffffu, 0, 0xffffffffu);
				if (u.err != Err::Ok)
					return fail(u.err, f.start, f.len);
				rule.prio = u.v;
				seen_prio = true;
				continue;
			}
			if (val == "*")
				continue;	// wildcard: no constraint
			if (key == "lport" || key == "rport") {
				fuzzref::Uint u = fuzzref::uint_token(val.data(), val.size(), 65535,
								      1, 65535);
				if (u.err != Err::Ok)
					return fail(u.err, f.start, f.len);
				(key == "lport" ? rule.lport : rule.rport) = true;
				(key == "lport" ? rule.lp : rule.rp) = static_cast<unsigned>(u.v);
				continue;
			}
			fuzzref::Prefix p = fuzzref::prefix(val.data(), val.size());

			if (p.err != Err::Ok)
				return fail(p.err, f.start, f.len);
			if (key == "laddr") {
				rule.laddr = true;
				rule.la = p.addr;
				rule.lalen = p.len;
			} else {
				rule.raddr = true;
				rule.ra = p.addr;
				rule.ralen = p.len;
			}
		}
		if (!seen_prio)
			return fail(Err::Missing, rs.start, rs.len);
		if (rule.laddr && rule.raddr &&
		    fuzzref::mapped_v4(rule.la) != fuzzref::mapped_v4(rule.ra))
			return fail(Err::Conflict, rs.start, rs.len);
		res.rules.push_back(rule);
	}
	if (ref_text(res.rules).size() > prio::kMaxCanonical)
		return fail(Err::TooLong, 0, n);
	return res;
}

// ---- reference matcher ------------------------------------------------

// An endpoint as the reference sees it; check_match() gives the core and
// the C ABI the same one as struct xnet_prio_endpoint.
struct RefEndpoint {
	Addr laddr;
	Addr raddr;
	u16 lport;
	u16 rport;
	bool no_remote;
};

int ref_match(const std::vector<RefRule> &rules, const RefEndpoint &ep)
{
	for (size_t i = 0; i < rules.size(); i++) {
		const RefRule &r = rules[i];

		if (ep.no_remote && (r.raddr || r.rport))
			continue;
		if (r.laddr && !fuzzref::contains(r.la, r.lalen, ep.laddr))
			continue;
		if (r.raddr && !fuzzref::contains(r.ra, r.ralen, ep.raddr))
			continue;
		if (r.lport && r.lp != ep.lport)
			continue;
		if (r.rport && r.rp != ep.rport)
			continue;
		return static_cast<int>(i);
	}
	return -1;
}

// ---- checks -------------------------------------------------------------

std::string core_text(const RuleSet &set)
{
	usize len = prio::format_rules(set, nullptr, 0);
	std::string t(len + 1, '\0');

	FUZZ_CHECK(prio::format_rules(set, &t[0], t.size()) == len, "format length unstable");
	t.resize(len);
	return t;
}

void flip(Addr &a, unsigned bit)
{
	a.b[bit / 8] ^= static_cast<u8>(0x80 >> (bit % 8));
}

void check_match(const char *in, const RuleSet &set, const xnet_prio_rules *abi,
		 const std::vector<RefRule> &ref, const RefEndpoint &ep)
{
	struct xnet_prio_endpoint cep = {};
	unsigned int prio = 0xa5a5a5a5u;

	std::memcpy(cep.laddr, ep.laddr.b, 16);
	std::memcpy(cep.raddr, ep.raddr.b, 16);
	cep.lport = ep.lport;
	cep.rport = ep.rport;
	cep.flags = ep.no_remote ? XNET_PRIO_EP_NO_REMOTE : 0;

	int got = set.match(cep), want = ref_match(ref, ep);

	FUZZ_CHECK(got == want, "'%s': endpoint lport %u rport %u no_remote %d: rule %d, reference %d",
		   in, ep.lport, ep.rport, ep.no_remote, got, want);

	int idx = xnet_prio_rules_match(abi, &cep, &prio);

	FUZZ_CHECK(idx == got, "'%s': xnet_prio_rules_match %d, core %d", in, idx, got);
	FUZZ_CHECK(prio == (got >= 0 ? ref[got].prio : 0xa5a5a5a5u),
		   "'%s': xnet_prio_rules_match priority %u", in, prio);
}

void check_matches(const char *in, const RuleSet &set, const xnet_prio_rules *abi,
		   const std::vector<RefRule> &ref, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < ref.size(); i++) {
		const RefRule &r = ref[i];
		RefEndpoint ep{};

		// The rule's own values; a wildcard address takes the family
		// of the other address (a v4 default otherwise).
		Addr dflt = inet::v4(10, 1, 2, 3);

		if (r.laddr && !fuzzref::mapped_v4(r.la))
			dflt = r.la;
		if (r.raddr && !fuzzref::mapped_v4(r.ra))
			dflt = r.ra;
		ep.laddr = r.laddr ? r.la : dflt;
		ep.raddr = r.raddr ? r.ra : dflt;
		ep.lport = static_cast<u16>(r.lport ? r.lp : 4420);
		ep.rport = static_cast<u16>(r.rport ? r.rp : 50000);
		FUZZ_CHECK(ref_match(ref, ep) >= 0 && ref_match(ref, ep) <= static_cast<int>(i),
			   "rule %zu does not match its own endpoint", i);
		check_match(in, set, abi, ref, ep);
		ep.no_remote = true;
		check_match(in, set, abi, ref, ep);
		ep.no_remote = false;

		// Host bits, then the last prefix bit, then a port off by one.
		for (int side = 0; side < 2; side++) {
			bool has = side ? r.raddr : r.laddr;
			Addr &a = side ? ep.raddr : ep.laddr;
			unsigned len = side ? r.ralen : r.lalen;

			if (!has)
				continue;
			unsigned bits = (fuzzref::mapped_v4(a) ? 96u : 0u) + len;
			Addr keep = a;

			if (bits < 128) {
				flip(a, 127);
				check_match(in, set, abi, ref, ep);
				a = keep;
			}
			if (bits > (fuzzref::mapped_v4(a) ? 96u : 0u)) {
				flip(a, bits - 1);
				check_match(in, set, abi, ref, ep);
				a = keep;
			}
		}
		ep.lport = static_cast<u16>(ep.lport + 1);
		check_match(in, set, abi, ref, ep);
		ep.rport = static_cast<u16>(ep.rport - 1);
		check_match(in, set, abi, ref, ep);
	}
	// A default endpoint, also for an empty set (NULL in the C ABI).
	RefEndpoint dflt{ inet::v4(10, 0, 0, 2), inet::v4(10, 0, 0, 1), 4420, 50000, false };

	check_match(in, set, abi, ref, dflt);

	// Endpoints from the input bytes (whatever they are).
	for (size_t off = 0; off + 36 <= size && off < 36 * 4; off += 36) {
		RefEndpoint ep{};

		std::memcpy(ep.laddr.b, data + off, 16);
		std::memcpy(ep.raddr.b, data + off + 16, 16);
		ep.lport = static_cast<u16>(data[off + 32] << 8 | data[off + 33]);
		ep.rport = static_cast<u16>(data[off + 34] << 8 | data[off + 35]);
		ep.no_remote = data[off] & 1;
		check_match(in, set, abi, ref, ep);
		for (int k = 0; k < 10; k++)	// and as IPv4
			ep.laddr.b[k] = ep.raddr.b[k] = 0;
		ep.laddr.b[10] = ep.laddr.b[11] = ep.raddr.b[10] = ep.raddr.b[11] = 0xff;
		check_match(in, set, abi, ref, ep);
	}
}

void check_rules_equal(const char *in, const RuleSet &set, const std::vector<RefRule> &ref)
{
	FUZZ_CHECK(set.count == ref.size() && set.count <= prio::kMaxRules,
		   "'%s': %u rules, reference %zu", in, set.count, ref.size());
	for (u32 i = 0; i < set.count; i++) {
		const Rule &r = set.rules[i];
		const RefRule &w = ref[i];
		u8 want_fields = static_cast<u8>((w.laddr ? prio::kLaddr : 0) | (w.lport ? prio::kLport : 0) |
						 (w.raddr ? prio::kRaddr : 0) | (w.rport ? prio::kRport : 0));

		FUZZ_CHECK(r.fields == want_fields, "'%s': rule %u fields 0x%x, reference 0x%x", in, i,
			   r.fields, want_fields);
		FUZZ_CHECK(r.prio == w.prio, "'%s': rule %u prio %u", in, i, r.prio);
		if (w.laddr)
			FUZZ_CHECK(r.laddr.addr == w.la && r.laddr.len == w.lalen,
				   "'%s': rule %u laddr differs", in, i);
		if (w.raddr)
			FUZZ_CHECK(r.raddr.addr == w.ra && r.raddr.len == w.ralen,
				   "'%s': rule %u raddr differs", in, i);
		if (w.lport)
			FUZZ_CHECK(r.lport == w.lp, "'%s': rule %u lport %u", in, i, r.lport);
		if (w.rport)
			FUZZ_CHECK(r.rport == w.rp, "'%s': rule %u rport %u", in, i, r.rport);
	}
}

void check(const uint8_t *data, size_t n)
{
	// A heap copy of exactly @n bytes: ASan sees any read past the end.
	char *s = static_cast<char *>(std::malloc(n ? n : 1));

	if (n)
		std::memcpy(s, data, n);
	std::string shown = fuzzref::show(s, n);
	const char *in = shown.c_str();

	RuleSet *out = new RuleSet, *scratch = new RuleSet, *untouched = new RuleSet;

	std::memset(static_cast<void *>(out), 0xa5, sizeof(*out));
	std::memcpy(static_cast<void *>(untouched), out, sizeof(*out));
	parse::Result r = prio::parse_rules(s, n, out, scratch);
	RefResult ref = reference(s, n);

	FUZZ_CHECK(r.err == ref.err && r.pos == ref.pos && r.len == ref.len,
		   "'%s' (%zu bytes): %s@%zu+%zu, reference %s@%zu+%zu", in, n, err_str(r.err), r.pos,
		   r.len, err_str(ref.err), ref.pos, ref.len);
	FUZZ_CHECK(r.pos <= n && r.len <= n - r.pos, "'%s': token outside the input", in);

	// The C ABI: same verdict, *out untouched on error, NULL when empty.
	auto *const kUntouched = reinterpret_cast<xnet_prio_rules *>(0x5a5a5a5a5a5a5a50ull);
	xnet_prio_rules *abi = kUntouched;
	struct xnet_parse_res res = { -1, 0xffffffffu, 0xffffffffu };
	int err = xnet_prio_rules_parse(s, n, &abi, &res);

	FUZZ_CHECK(err == static_cast<int>(r.err) && res.err == err && res.pos == r.pos &&
			   res.len == r.len,
		   "'%s': xnet_prio_rules_parse %d@%u+%u, core %s", in, err, res.pos, res.len,
		   err_str(r.err));

	if (!r.ok()) {
		FUZZ_CHECK(!std::memcmp(out, untouched, sizeof(*out)),
			   "'%s' refused (%s) but the rule set changed", in, err_str(r.err));
		FUZZ_CHECK(abi == kUntouched, "'%s' refused but *out changed", in);
		goto done;
	}
	{
		check_rules_equal(in, *out, ref.rules);

		std::string text = core_text(*out), want = ref_text(ref.rules);

		FUZZ_CHECK(text == want, "'%s': canonical '%s', reference '%s'", in,
			   fuzzref::show(text.data(), text.size()).c_str(),
			   fuzzref::show(want.data(), want.size()).c_str());
		FUZZ_CHECK(text.size() <= prio::kMaxCanonical, "'%s': canonical text of %zu bytes", in,
			   text.size());

		// Fixed point: the canonical text (with the newline a read gives)
		// parses back to the same set.
		RuleSet *back = new RuleSet;
		std::string nl = text + "\n";
		parse::Result br = prio::parse_rules(nl.data(), nl.size(), back, scratch);

		FUZZ_CHECK(br.ok(), "'%s': canonical '%s' refused: %s@%zu", in,
			   fuzzref::show(text.data(), text.size()).c_str(), err_str(br.err), br.pos);
		check_rules_equal(in, *back, ref.rules);
		FUZZ_CHECK(core_text(*back) == text, "'%s': canonical text is not a fixed point", in);
		delete back;

		// Truncated formatting into exact-size heap buffers.
		usize caps[] = { 0, 1, 2, text.size() / 2, text.size(), text.size() + 1 };

		for (usize cap : caps) {
			char *buf = static_cast<char *>(std::malloc(cap ? cap : 1));
			usize len = prio::format_rules(*out, cap ? buf : nullptr, cap);

			FUZZ_CHECK(len == text.size(), "'%s': cap %zu reports %zu", in, cap, len);
			if (cap) {
				usize kept = cap - 1 < len ? cap - 1 : len;

				FUZZ_CHECK(buf[kept] == '\0' && !std::memcmp(buf, text.data(), kept),
					   "'%s': cap %zu is not a NUL-terminated prefix", in, cap);
			}
			std::free(buf);
		}

		// The C ABI's set.
		FUZZ_CHECK((abi == nullptr) == (out->count == 0), "'%s': ABI set %p for %u rules", in,
			   static_cast<void *>(abi), out->count);
		FUZZ_CHECK(xnet_prio_rules_count(abi) == out->count, "'%s': ABI count", in);
		std::string abuf(text.size() + 1, 'x');

		FUZZ_CHECK(xnet_prio_rules_format(abi, &abuf[0], abuf.size()) == text.size() &&
				   !std::strcmp(abuf.c_str(), text.c_str()),
			   "'%s': xnet_prio_rules_format differs", in);

		check_matches(in, *out, abi, ref.rules, data, n);
		xnet_prio_rules_free(abi);
	}
done:
	delete untouched;
	delete scratch;
	delete out;
	std::free(s);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size);
	return 0;
}
