/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The errors of the C++ core, one a line: XNET_ERR(C name, xnet::Err name,
 * text). No include guard: abi.h makes enum xnet_err from it, types.hpp
 * xnet::Err and xnet::err_str(). Append only: the values are the C ABI.
 */
XNET_ERR(XNET_OK, Ok, "ok")
XNET_ERR(XNET_E_EMPTY, Empty, "empty value")
XNET_ERR(XNET_E_INVALID, Invalid, "invalid value")
XNET_ERR(XNET_E_SIGN, Sign, "sign not allowed")
XNET_ERR(XNET_E_OVERFLOW, Overflow, "number too large")
XNET_ERR(XNET_E_RANGE, Range, "out of range")
XNET_ERR(XNET_E_TRAILING, Trailing, "trailing characters")
XNET_ERR(XNET_E_TOO_MANY, TooMany, "too many items")
XNET_ERR(XNET_E_TOO_LONG, TooLong, "input too long")
XNET_ERR(XNET_E_NOMEM, NoMem, "out of memory")
XNET_ERR(XNET_E_UNKNOWN_KEY, UnknownKey, "unknown key")
XNET_ERR(XNET_E_DUPLICATE, Duplicate, "duplicate key")
XNET_ERR(XNET_E_MISSING, Missing, "required field missing")
XNET_ERR(XNET_E_CONFLICT, Conflict, "fields can never match together")
XNET_ERR(XNET_E_HOST_BITS, HostBits, "address has bits set beyond the prefix length")
XNET_ERR(XNET_E_BAD_NAME, BadName, "not a device name")
