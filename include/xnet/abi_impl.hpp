/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Definitions of the C ABI in abi.h. Include from exactly one .cpp file of
 * each module (and of each test binary): the functions are not inline.
 */
#ifndef XNET_ABI_IMPL_HPP
#define XNET_ABI_IMPL_HPP

#include "abi.h"
#include "abi_util.hpp"
#include "types.hpp"
#include "parse.hpp"
#include "pow2.hpp"
#include "seq.hpp"


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

extern "C" int xnet_seq_reached(unsigned int now, unsigned int mark)
{
	return xnet::seq::reached(now, mark);
}

extern "C" int xnet_seq_diff(unsigned int to, unsigned int from)
{
	return xnet::seq::diff(to, from);
}

extern "C" int xnet_table_size(unsigned int req, unsigned int max,
			       unsigned int *out)
{
	return static_cast<int>(xnet::pow2::table_size(req, max, out));
}

#endif /* XNET_ABI_IMPL_HPP */
