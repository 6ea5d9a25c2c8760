/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placement new and the allocation tags of the kernel runtime, without
 * <new>. Safe to include anywhere; the definitions are in common/cxxrt.cpp.
 */
#ifndef XNET_KERNEL_NEW_HPP
#define XNET_KERNEL_NEW_HPP

#include "../types.hpp"

namespace xnet {
namespace kernel {
struct AtomicTag {};
inline constexpr AtomicTag atomic{};
} /* namespace kernel */
} /* namespace xnet */

inline void *operator new(xnet::usize, void *where) noexcept
{
	return where;
}

inline void *operator new[](xnet::usize, void *where) noexcept
{
	return where;
}

void *operator new(xnet::usize n, xnet::kernel::AtomicTag) noexcept;
void *operator new[](xnet::usize n, xnet::kernel::AtomicTag) noexcept;
void operator delete(void *p, xnet::kernel::AtomicTag) noexcept;
void operator delete[](void *p, xnet::kernel::AtomicTag) noexcept;

#endif /* XNET_KERNEL_NEW_HPP */
