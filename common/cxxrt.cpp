// SPDX-License-Identifier: GPL-2.0
/*
 * The C++ runtime a kernel object needs, and nothing more. Compiled into
 * each module (and the KUnit kernel) once, as cxxrt.o (scripts/common.mk);
 * its kernel side is cxxrt_glue.c.
 *
 * - operator new/new[] allocate with GFP_KERNEL and return nullptr on
 *   failure; the build uses -fcheck-new, so a new-expression that gets
 *   nullptr runs no constructor and yields nullptr: callers check it.
 *   new (xnet::kernel::atomic) T allocates with GFP_ATOMIC.
 * - every operator delete form (sized, array) frees with kfree.
 * - __cxa_pure_virtual warns once and traps.
 * Global constructors are rejected at build time (scripts/check-cxx-obj.sh)
 * because the module loader never runs .init_array.
 */
#include <xnet/kernel/glue.h>
#include <xnet/kernel/new.hpp>

void *operator new(xnet::usize n)
{
	return xnet_rt_alloc(n, XNET_GFP_KERNEL, 0);
}

void *operator new[](xnet::usize n)
{
	return xnet_rt_alloc(n, XNET_GFP_KERNEL, 0);
}

void *operator new(xnet::usize n, xnet::kernel::AtomicTag) noexcept
{
	return xnet_rt_alloc(n, XNET_GFP_ATOMIC, 0);
}

void *operator new[](xnet::usize n, xnet::kernel::AtomicTag) noexcept
{
	return xnet_rt_alloc(n, XNET_GFP_ATOMIC, 0);
}

void operator delete(void *p) noexcept
{
	xnet_rt_free(p);
}

void operator delete[](void *p) noexcept
{
	xnet_rt_free(p);
}

void operator delete(void *p, xnet::usize) noexcept
{
	xnet_rt_free(p);
}

void operator delete[](void *p, xnet::usize) noexcept
{
	xnet_rt_free(p);
}

/* Called only if a constructor fails after new (xnet::kernel::atomic). */
void operator delete(void *p, xnet::kernel::AtomicTag) noexcept
{
	xnet_rt_free(p);
}

void operator delete[](void *p, xnet::kernel::AtomicTag) noexcept
{
	xnet_rt_free(p);
}

extern "C" void __cxa_pure_virtual(void);

extern "C" void __cxa_pure_virtual(void)
{
	xnet_rt_pure_virtual();
	__builtin_trap();
}
