// SPDX-License-Identifier: GPL-2.0
/*
 * xps_flow's flow key: the seed, and the tuple parse for headers outside
 * the linear area (out of line: a stack buffer the fast path must not
 * pay for). The rest is inline in key.h.
 */
#include <linux/random.h>

#include "key.h"

/* The tuple key's random multipliers and offsets, drawn at module start. */
struct xnet_xps_key_seed xfl_key_seed __read_mostly;

void xfl_key_init(void)
{
	get_random_bytes(&xfl_key_seed, sizeof(xfl_key_seed));
}

/* Headers not in the linear area: a copy. */
noinline s64 xfl_tuple_key_copy(const struct sk_buff *skb, int off)
{
	u8 buf[60 + 4];		/* the largest IPv4 header and the ports */
	int len = min_t(int, skb->len - off, sizeof(buf));
	s64 key;

	if (len <= 0 || skb_copy_bits(skb, off, buf, len) < 0)
		return XFL_NO_KEY;
	key = xfl_tuple_parse(skb->protocol, buf, len);
	return key < 0 ? XFL_NO_KEY : key;
}
