/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C ABI of the C++ core: what C glue (modules, KUnit suites) calls.
 * Plain data only; no kernel or C++ header. Defined in common/core_abi.cpp.
 */
#ifndef XNET_ABI_H
#define XNET_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The core's errors, each defined once, in abi_err.h: enum xnet_err here
 * and xnet::Err with its texts (types.hpp) are made from that list.
 */
enum xnet_err {
#define XNET_ERR(c, cxx, text) c,
#include "abi_err.h"
#undef XNET_ERR
	XNET_E_COUNT		/* not an error: how many there are */
};

/* Where parsing failed: the offending token is input[pos, pos + len). */
struct xnet_parse_res {
	int err;		/* enum xnet_err */
	unsigned int pos;
	unsigned int len;
};

/* Human-readable text for an enum xnet_err. */
const char *xnet_err_str(int err);

/* One unsigned decimal in [min, max]; see include/xnet/parse.hpp. */
int xnet_parse_u32(const char *s, unsigned long n, unsigned int min,
		   unsigned int max, unsigned int *out,
		   struct xnet_parse_res *res);

/* A @sep separated list of such values, at most @cap items. */
int xnet_parse_u32_list(const char *s, unsigned long n, char sep,
			unsigned int min, unsigned int max, unsigned int *out,
			unsigned int cap, unsigned int *count,
			struct xnet_parse_res *res);

/*
 * A list of net device names, each with a value: name[:N],... (the
 * grammar: parse_named_list() in include/xnet/parse.hpp). The name is
 * NUL-terminated and NUL-padded; XNET_IFNAMSIZ is the kernel's IFNAMSIZ.
 */
#define XNET_IFNAMSIZ		16

struct xnet_named {
	char name[XNET_IFNAMSIZ];
	unsigned int value;
};

#define XNET_NAMED_STAR		0x1	/* "*" is a name (every device) */

/* What a list accepts: a name without ":N" gets @def; N in [@min, @max]. */
struct xnet_named_spec {
	unsigned int def;
	unsigned int min;
	unsigned int max;
	unsigned int flags;	/* XNET_NAMED_* */
};

/*
 * At most @cap items into @out, *count of them; on error nothing is
 * written and @res names the whole offending item.
 */
int xnet_parse_named_list(const char *s, unsigned long n,
			  const struct xnet_named_spec *spec,
			  struct xnet_named *out, unsigned int cap,
			  unsigned int *count, struct xnet_parse_res *res);

#ifdef __cplusplus
}
#endif

#endif /* XNET_ABI_H */
