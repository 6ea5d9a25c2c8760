/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the C ABI definitions (the .cpp files; inline). */
#ifndef XNET_ABI_UTIL_HPP
#define XNET_ABI_UTIL_HPP

#include "abi.h"
#include "parse.hpp"

namespace xnet {
namespace abi {

inline int report(const parse::Result &r, struct xnet_parse_res *res)
{
	if (res) {
		res->err = static_cast<int>(r.err);
		res->pos = static_cast<unsigned int>(r.pos);
		res->len = static_cast<unsigned int>(r.len);
	}
	return static_cast<int>(r.err);
}

} /* namespace abi */
} /* namespace xnet */

#endif /* XNET_ABI_UTIL_HPP */
