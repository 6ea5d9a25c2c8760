// SPDX-License-Identifier: GPL-2.0
// Userspace Traits for the core templates: malloc with failure injection.
#ifndef XNET_TESTS_USER_TRAITS_HPP
#define XNET_TESTS_USER_TRAITS_HPP

#include <cstdlib>

#include <xnet/types.hpp>

struct UserTraits {
	static inline int fail_next = 0;	// fail this many allocations
	static inline int live = 0;		// outstanding allocations

	static void *alloc_zeroed(xnet::usize bytes)
	{
		if (fail_next > 0) {
			fail_next--;
			return nullptr;
		}
		void *p = std::calloc(1, bytes);
		if (p)
			live++;
		return p;
	}

	static void free(void *p)
	{
		if (p)
			live--;
		std::free(p);
	}
};

#endif
