/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types for the freestanding core. Uses the compiler's own
 * predefined macros: no libc, libstdc++ or kernel header is included, so
 * the same code compiles in userspace tests, KUnit (UML) and the modules.
 */
#ifndef XNET_TYPES_HPP
#define XNET_TYPES_HPP

namespace xnet {

using u8 = __UINT8_TYPE__;
using u16 = __UINT16_TYPE__;
using u32 = __UINT32_TYPE__;
using u64 = __UINT64_TYPE__;
using s32 = __INT32_TYPE__;
using s64 = __INT64_TYPE__;
using usize = __SIZE_TYPE__;

static_assert(sizeof(u32) == 4 && sizeof(u64) == 8, "fixed-width types");

/* Errors of the core. The C glue maps every one of them to an errno. */
enum class Err : int {
	Ok = 0,
	Empty,		/* nothing where a value was expected */
	Invalid,	/* a character that cannot start or continue a value */
	Sign,		/* '+' or '-': values are unsigned */
	Overflow,	/* does not fit the value type */
	Range,		/* outside [min, max] */
	Trailing,	/* junk after a complete value */
	TooMany,	/* more list items than the caller has room for */
	TooLong,	/* input longer than the parser accepts */
	NoMem,		/* allocation failed */
	UnknownKey,	/* key=value with a key the grammar does not know */
	Duplicate,	/* the same key twice */
	Missing,	/* a required field is absent */
	Conflict,	/* fields that can never match together */
	HostBits,	/* address bits set beyond the prefix length */
	Last = HostBits,
};

constexpr const char *err_str(Err e)
{
	switch (e) {
	case Err::Ok: return "ok";
	case Err::Empty: return "empty value";
	case Err::Invalid: return "invalid value";
	case Err::Sign: return "sign not allowed";
	case Err::Overflow: return "number too large";
	case Err::Range: return "out of range";
	case Err::Trailing: return "trailing characters";
	case Err::TooMany: return "too many items";
	case Err::TooLong: return "input too long";
	case Err::NoMem: return "out of memory";
	case Err::UnknownKey: return "unknown key";
	case Err::Duplicate: return "duplicate key";
	case Err::Missing: return "required field missing";
	case Err::Conflict: return "fields can never match together";
	case Err::HostBits: return "address has bits set beyond the prefix length";
	}
	return "unknown error";
}

} /* namespace xnet */

#endif /* XNET_TYPES_HPP */
