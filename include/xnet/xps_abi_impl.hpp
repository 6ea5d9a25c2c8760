/* SPDX-License-Identifier: GPL-2.0 */
/* Definitions of xps_abi.h: include from exactly one .cpp of a module. */
#ifndef XNET_XPS_ABI_IMPL_HPP
#define XNET_XPS_ABI_IMPL_HPP

#include "xps_abi.h"
#include "xps_flow.hpp"

static_assert(XNET_XPS_MAX_ENTRIES == xnet::xps::kMaxEntries, "bound");
static_assert(static_cast<int>(xnet::xps::Verdict::Stale) == XNET_XPS_STALE,
	      "Verdict mirrors xnet_xps_verdict");

extern "C" int xnet_xps_decide(unsigned long long entry, unsigned short proposed,
			       unsigned short nqueues, unsigned int old_completed,
			       int old_backlog, unsigned short *queue)
{
	auto d = xnet::xps::decide(entry, proposed, nqueues, [=](xnet::u16) {
		return xnet::xps::OldQueue{ old_completed, old_backlog != 0 };
	});

	*queue = d.queue;
	return static_cast<int>(d.verdict);
}

/* The C inlines of the entry layout are the C++ one. */
namespace xnet {
namespace xps {
namespace abi_check {

constexpr bool same_pack(u16 q, u32 head)
{
	return xnet_xps_pack(q, head) == pack(q, head);
}

constexpr bool same_queue_of(u64 e)
{
	return xnet_xps_queue_of(e) == (valid(e) ? queue_of(e) : -1);
}

static_assert(XNET_XPS_VALID == kValid, "valid bit");
static_assert(same_pack(0, 0) && same_pack(1, 0xffffffffu) &&
	      same_pack(0xffff, 0) && same_pack(0xffff, 0xffffffffu) &&
	      same_pack(0x1234, 0x80000001u), "xnet_xps_pack() is pack()");
static_assert(same_queue_of(0) && same_queue_of(kValid - 1) &&
	      same_queue_of(pack(0, 0)) && same_queue_of(pack(0xffff, 7)) &&
	      same_queue_of(pack(0x8000, 0xffffffffu)) &&
	      same_queue_of(~0ull), "xnet_xps_queue_of() is valid() ? queue_of() : -1");

/*
 * xnet_xps_decide_fast() is decide() wherever it answers: the same verdict
 * and queue, and it answers exactly when decide() needs no queue state.
 */
struct NoState {
	bool *asked;

	constexpr OldQueue operator()(u16) const
	{
		*asked = true;
		return { 0, true };
	}
};

constexpr bool same_fast(u64 e, u16 proposed, u16 nqueues)
{
	bool asked = false;
	Decision d = decide(e, proposed, nqueues, NoState{ &asked });
	int fast = xnet_xps_decide_fast(e, proposed);

	if (fast < 0)	/* decide() must go further: Stale, Hold or Move */
		return d.verdict != Verdict::New && d.verdict != Verdict::Same;
	return !asked && static_cast<int>(d.verdict) == fast &&
	       d.queue == proposed;
}

static_assert(same_fast(0, 0, 4) && same_fast(0, 3, 4) &&
	      same_fast(kValid - 1, 1, 4) && same_fast(pack(1, 5), 1, 4) &&
	      same_fast(pack(0xffff, 0), 0xffff, 4) &&
	      same_fast(pack(1, 5), 2, 4) && same_fast(pack(7, 5), 2, 4) &&
	      same_fast(pack(2, 0xffffffffu), 0, 1) &&
	      same_fast(~0ull, 0xffff, 0xffff) && same_fast(~0ull, 0, 1),
	      "xnet_xps_decide_fast() is decide() where it answers");

/* xnet_xps_key_v4/v6() are key_v4/v6(). */
constexpr xnet_xps_key_seed c_seed(u64 x)
{
	xnet_xps_key_seed s{};

	for (int i = 0; i < 10; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		s.mul[i] = x;
	}
	s.add4 = x * 3;
	s.add6 = x * 5 + 1;
	return s;
}

constexpr KeySeed cpp_seed(const xnet_xps_key_seed &c)
{
	KeySeed s{};

	for (int i = 0; i < 10; i++)
		s.mul[i] = c.mul[i];
	s.add4 = c.add4;
	s.add6 = c.add6;
	return s;
}

constexpr bool same_keys(u64 seed, u32 w)
{
	const xnet_xps_key_seed c = c_seed(seed);
	const KeySeed k = cpp_seed(c);
	const u32 addr[8] = { w, ~w, w * 3, 0, 0xffffffffu, w ^ 0x5a5a5a5au, 1, w + 7 };

	return xnet_xps_key_v4(&c, w, ~w, w * 7, 6) == key_v4(k, w, ~w, w * 7, 6) &&
	       xnet_xps_key_v4(&c, 0, 0, 0, 0) == key_v4(k, 0, 0, 0, 0) &&
	       xnet_xps_key_v6(&c, addr, w, 17) == key_v6(k, addr, w, 17) &&
	       xnet_xps_key_v6(&c, addr, 0xffffffffu, 255) ==
	       key_v6(k, addr, 0xffffffffu, 255);
}

static_assert(same_keys(0, 0) && same_keys(1, 0xffffffffu) &&
	      same_keys(0xdeadbeefcafef00dull, 0x0a000001u) &&
	      same_keys(~0ull, 0x80000000u), "xnet_xps_key_v4/v6() are key_v4/v6()");

} /* namespace abi_check */
} /* namespace xps */
} /* namespace xnet */

#endif /* XNET_XPS_ABI_IMPL_HPP */
