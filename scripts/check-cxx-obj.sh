#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Reject a C++ object that would need a C++ runtime in the kernel:
#   - sections the module loader ignores or that mean unwinding/exceptions
#     (.init_array/.ctors: global constructors never run; .eh_frame,
#     .gcc_except_table: exceptions/unwind tables)
#   - undefined C++ runtime symbols (__cxa_*, __gxx_*, _Unwind_*, std::,
#     typeinfo/vtables of the runtime)
#
# Usage: check-cxx-obj.sh OBJDUMP NM OBJECT
objdump=${1:-objdump}
nm=${2:-nm}
obj=$3
rc=0

bad_sections=$($objdump -h "$obj" | awk '{print $2}' |
	grep -E '^\.(init_array|fini_array|ctors|dtors|preinit_array|eh_frame|eh_frame_hdr|gcc_except_table)(\.|$)' |
	sort -u | tr "\n" " ")
if [ -n "$bad_sections" ]; then
	echo "error: $obj: C++ object has forbidden section(s): $bad_sections" >&2
	rc=1
fi

# _ZSt / _ZNSt / _ZNKSt: std::; _ZTI/_ZTS: typeinfo (RTTI); _ZTV.*cxxabi: runtime vtables
bad_syms=$($nm -u "$obj" | awk '{print $NF}' |
	grep -E '^(__cxa_|__gxx_|_Unwind_|__dso_handle|_ZSt|_ZNSt|_ZNKSt|_ZTI|_ZTS|_ZTVN10__cxxabiv)' |
	sort -u | tr "\n" " ")
if [ -n "$bad_syms" ]; then
	echo "error: $obj: C++ object needs C++ runtime symbol(s): $bad_syms" >&2
	rc=1
fi
exit $rc
