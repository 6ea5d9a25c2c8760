/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types for the freestanding core. Uses the compiler's own
 * predefined macros: no libc, libstdc++ or kernel header is included (abi.h
 * is the project's plain C), so the same code compiles in userspace tests,
 * KUnit (UML) and the modules.
 */
#ifndef XNET_TYPES_HPP
#define XNET_TYPES_HPP

#include "abi.h"

namespace xnet {

using u8 = __UINT8_TYPE__;
using u16 = __UINT16_TYPE__;
using u32 = __UINT32_TYPE__;
using u64 = __UINT64_TYPE__;
using s32 = __INT32_TYPE__;
using s64 = __INT64_TYPE__;
using usize = __SIZE_TYPE__;

static_assert(sizeof(u32) == 4 && sizeof(u64) == 8, "fixed-width types");

/*
 * Errors of the core: those of enum xnet_err (abi.h), from the one list
 * in abi_err.h. The C glue maps every one of them to an errno.
 */
enum class Err : int {
#define XNET_ERR(c, cxx, text) cxx = c,
#include "abi_err.h"
#undef XNET_ERR
	Last = XNET_E_COUNT - 1,
};

constexpr const char *err_str(Err e)
{
	switch (e) {
#define XNET_ERR(c, cxx, text) case Err::cxx: return text;
#include "abi_err.h"
#undef XNET_ERR
	}
	return "unknown error";
}

} /* namespace xnet */

#endif /* XNET_TYPES_HPP */
