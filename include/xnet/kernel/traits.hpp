/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's Traits for core templates (see xnet/table.hpp). */
#ifndef XNET_KERNEL_TRAITS_HPP
#define XNET_KERNEL_TRAITS_HPP

#include "glue.h"
#include "../types.hpp"

namespace xnet {
namespace kernel {

struct Traits {
	static void *alloc_zeroed(usize bytes)
	{
		return xnet_rt_alloc(bytes, XNET_GFP_KERNEL, 1);
	}

	static void free(void *p)
	{
		xnet_rt_free(p);
	}
};

} /* namespace kernel */
} /* namespace xnet */

#endif /* XNET_KERNEL_TRAITS_HPP */
