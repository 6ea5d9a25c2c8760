// SPDX-License-Identifier: GPL-2.0
/*
 * The page-frag pool behind its C ABI (frag_pool.h): compiled into pp_frag
 * as frag_pool.o, and into the userspace tests.
 */
#include "frag_pool.h"
#include "frag_pool.hpp"

namespace xnet {
namespace frag {

/* The page reference counts behind the C ABI: the C side's. */
struct AbiTraits {
	static u32 refs(void *page) { return xnet_frag_page_refs(page); }
	static void ref_add(void *page, u32 n) { xnet_frag_page_ref_add(page, n); }
};

using AbiPool = Pool<AbiTraits>;

} /* namespace frag */
} /* namespace xnet */

extern "C" int xnet_frag_pool_init(struct xnet_frag_pool *p,
				   struct xnet_frag_slot *slots, unsigned int cap)
{
	return xnet::frag::AbiPool::init(*p, slots, cap) == xnet::Err::Ok ? 0 : -22;
}

extern "C" unsigned int xnet_frag_add(struct xnet_frag_pool *p,
				      struct xnet_frag_cache *c, void *page,
				      unsigned int order)
{
	return xnet::frag::AbiPool(*p).add(*c, page, order);
}

extern "C" unsigned int xnet_frag_refill(struct xnet_frag_pool *p,
					 struct xnet_frag_cache *c)
{
	return xnet::frag::AbiPool(*p).refill(*c);
}

extern "C" void xnet_frag_flush(struct xnet_frag_pool *p, struct xnet_frag_cache *c)
{
	xnet::frag::AbiPool(*p).flush(*c);
}

extern "C" void xnet_frag_drain(struct xnet_frag_pool *p, struct xnet_frag_cache *c)
{
	xnet::frag::AbiPool(*p).drain(*c);
}

extern "C" unsigned int xnet_frag_take(struct xnet_frag_pool *p,
				       struct xnet_frag_cache *c)
{
	return xnet::frag::AbiPool(*p).take(*c);
}

extern "C" unsigned int xnet_frag_shrink(struct xnet_frag_pool *p,
					 unsigned int *out, unsigned int max)
{
	return xnet::frag::AbiPool(*p).shrink(out, max);
}

extern "C" void xnet_frag_forget(struct xnet_frag_pool *p, unsigned int slot)
{
	xnet::frag::AbiPool(*p).forget(slot);
}

extern "C" unsigned int xnet_frag_in_flight(const struct xnet_frag_pool *p)
{
	return p->ring_len;
}
