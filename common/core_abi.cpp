// SPDX-License-Identifier: GPL-2.0
/*
 * Definitions of the core's C ABI (include/xnet/abi.h). Compiled into each
 * module as core_abi.o (scripts/common.mk), and into the userspace tests.
 */
#include <xnet/abi.h>
#include <xnet/abi_util.hpp>
#include <xnet/types.hpp>
#include <xnet/parse.hpp>

extern "C" const char *xnet_err_str(int err)
{
	return xnet::err_str(static_cast<xnet::Err>(err));
}

extern "C" int xnet_parse_u32(const char *s, unsigned long n, unsigned int min,
			      unsigned int max, unsigned int *out,
			      struct xnet_parse_res *res)
{
	xnet::u32 v = 0;
	auto r = xnet::parse::parse_uint<xnet::u32>(s, n, min, max, &v);

	if (r.ok())
		*out = v;
	return xnet::abi::report(r, res);
}

extern "C" int xnet_parse_u32_list(const char *s, unsigned long n, char sep,
				   unsigned int min, unsigned int max,
				   unsigned int *out, unsigned int cap,
				   unsigned int *count,
				   struct xnet_parse_res *res)
{
	xnet::usize items = 0;
	auto r = xnet::parse::parse_uint_list<xnet::u32>(s, n, sep, min, max,
							 out, cap, &items);

	if (r.ok())
		*count = static_cast<unsigned int>(items);
	return xnet::abi::report(r, res);
}

extern "C" int xnet_parse_named_list(const char *s, unsigned long n,
				     const struct xnet_named_spec *spec,
				     struct xnet_named *out, unsigned int cap,
				     unsigned int *count,
				     struct xnet_parse_res *res)
{
	xnet::usize items = 0;
	auto r = xnet::parse::parse_named_list(s, n, *spec, out, cap, &items);

	if (r.ok())
		*count = static_cast<unsigned int>(items);
	return xnet::abi::report(r, res);
}
