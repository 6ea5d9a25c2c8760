/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xps_flow's flow key: the index of a packet's entry, computed once at
 * queue selection (xfl_select_key()) and handed to the transmit probe in
 * the skb (xfl_hand_key(), xfl_taken_key()). Inline: the datapath's hot
 * part. key.c holds the seed and the out-of-line header copy.
 */
#ifndef XPS_FLOW_KEY_H
#define XPS_FLOW_KEY_H

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/ip.h>

#include "decide.h"

void xfl_key_init(void);			/* before any table is on */

/* The tuple key's random multipliers and offsets, drawn at module start. */
extern struct xnet_xps_key_seed xfl_key_seed;

/*
 * The flow key a packet's entry is indexed by. Queue selection and the
 * transmit probe must use the same key for the same packet, and something may hash the packet in
 * between: a qdisc that enqueues it (fq_codel, fq) calls skb_get_hash(),
 * which stores a software hash (sw_hash). So:
 *  - a hash the packet brought from its socket or from the NIC's RSS
 *    (l4_hash without sw_hash) is the key: nothing in the stack replaces it;
 *  - otherwise, for IPv4 and IPv6 with TCP, UDP, UDP-Lite, SCTP or DCCP and
 *    not a fragment, a seeded universal hash of addresses, ports and
 *    protocol (xnet_xps_key_v4/v6(): one multiplication per 32-bit word
 *    and a finalizer), the header read in place; never stored in
 *    skb->hash (the stack's DoS-hardened siphash, used downstream), but
 *    handed to the transmit probe (xfl_hand_key());
 *  - anything else (fragments, other protocols, IPv6 extension headers,
 *    VLAN headers in the payload, no IP header): the kernel's flow hash,
 *    skb_get_hash(), which queue selection computes and stores, so that
 *    the transmit probe finds it in skb->hash.
 * xfl_tuple_key() is the middle case.
 */
static __always_inline bool xfl_has_ports(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_DCCP;
}

/*
 * Keys are returned in an s64 (no key: negative), not through a pointer:
 * an address-taken local would cost the fast path a stack canary.
 */
#define XFL_NO_KEY	(-1)	/* not a packet with a tuple key */
#define XFL_SHORT	(-2)	/* too few bytes to tell */

/* The tuple key of the IP packet at @nh, with @len bytes there. */
static __always_inline s64 xfl_tuple_parse(__be16 proto, const u8 *nh,
					   int len)
{
	if (proto == htons(ETH_P_IP)) {
		const struct iphdr *iph = (const struct iphdr *)nh;
		int ihl;

		if (len < (int)sizeof(*iph))
			return XFL_SHORT;
		ihl = iph->ihl * 4;
		if (iph->version != 4 || ihl < (int)sizeof(*iph) ||
		    ip_is_fragment(iph) || !xfl_has_ports(iph->protocol))
			return XFL_NO_KEY;
		if (len < ihl + 4)
			return XFL_SHORT;
		return xnet_xps_key_v4(&xfl_key_seed, (__force u32)iph->saddr,
				       (__force u32)iph->daddr,
				       *(const u32 *)(nh + ihl),	/* the ports */
				       iph->protocol);
	}
	if (proto == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)nh;

		if (len < (int)sizeof(*ip6) + 4)
			return XFL_SHORT;
		/* Extension headers (a fragment header too) go the slow way. */
		if (ip6->version != 6 || !xfl_has_ports(ip6->nexthdr))
			return XFL_NO_KEY;
		/* saddr and daddr are 8 consecutive words of the header. */
		return xnet_xps_key_v6(&xfl_key_seed,
				       (const u32 *)ip6->saddr.s6_addr32,
				       *(const u32 *)(ip6 + 1),	/* the ports */
				       ip6->nexthdr);
	}
	return XFL_NO_KEY;
}

/* Headers not in the linear area: a copy, out of line (key.c). */
s64 xfl_tuple_key_copy(const struct sk_buff *skb, int off);

/* The tuple key, or XFL_NO_KEY. */
static __always_inline s64 xfl_tuple_key(const struct sk_buff *skb)
{
	int off = skb_network_offset(skb);
	s64 key;

	if (unlikely(off < 0))
		return XFL_NO_KEY;
	key = xfl_tuple_parse(skb->protocol, skb->data + off,
			      (int)skb_headlen(skb) - off);
	if (likely(key != XFL_SHORT))
		return key;
	return xfl_tuple_key_copy(skb, off);
}

/* The hash the packet brought from its socket or NIC, else the tuple key. */
static __always_inline s64 xfl_given_key(const struct sk_buff *skb)
{
	if (skb->l4_hash && !skb->sw_hash)
		return skb->hash;
	return xfl_tuple_key(skb);
}

/* The key at queue selection. */
static __always_inline u32 xfl_select_key(struct sk_buff *skb)
{
	s64 key = xfl_given_key(skb);

	if (key >= 0)
		return key;
	return skb_get_hash(skb);
}

/*
 * The key at transmit, the one xfl_select_key() gave this packet; or
 * XFL_NO_KEY for a packet that needs the kernel's flow hash and has none:
 * it was not steered at selection (pktgen's start_xmit mode, a single
 * queue, a table turned on meanwhile): nothing to record.
 */
static __always_inline s64 xfl_xmit_key(const struct sk_buff *skb)
{
	s64 key = xfl_given_key(skb);

	if (key >= 0)
		return key;
	if (!skb->sw_hash)
		return XFL_NO_KEY;
	return skb->hash;
}

/*
 * Queue selection hands its key to the transmit probe in the skb, so that
 * a packet's headers are parsed and hashed once, not twice: in sender_cpu
 * (napi_id on receive), with bit 31 set. netdev_pick_tx() has read
 * sender_cpu (XPS) before xfl_steer() writes it, and nothing reads it
 * between queue selection and ndo_start_xmit. CPU numbers + 1 and NAPI IDs
 * do not reach bit 31. The net_dev_start_xmit probe takes the key and
 * clears the field before the driver sees the packet (0: no sender CPU, no
 * NAPI ID; a lower device's queue selection sets it again). A packet the
 * driver refused with NETDEV_TX_BUSY gets it back from the net_dev_xmit
 * probe (it is requeued, still the stack's). A packet that reaches the
 * probe without it was not steered at selection (pktgen's start_xmit
 * mode, a table turned on meanwhile): nothing to record, and the probe
 * returns before any lookup. Without the field (a kernel with neither XPS
 * nor busy polling) every packet is looked up and its key computed twice.
 */
#if IS_ENABLED(CONFIG_XPS) || IS_ENABLED(CONFIG_NET_RX_BUSY_POLL)
#define XFL_HANDOFF	BIT(31)

static __always_inline void xfl_hand_key(struct sk_buff *skb, u32 key)
{
	BUILD_BUG_ON(XNET_XPS_MAX_ENTRIES > XFL_HANDOFF);
	skb->sender_cpu = key | XFL_HANDOFF;	/* the index bits are kept */
}

/*
 * Whether queue selection steered the packet: the transmit probe of every
 * other packet (a device without a table, most of them) returns here,
 * before it looks anything up.
 */
static __always_inline bool xfl_key_handed(const struct sk_buff *skb)
{
	return READ_ONCE(skb->sender_cpu) & XFL_HANDOFF;
}

/* The key at transmit: the one handed over, else xfl_xmit_key(). */
static __always_inline s64 xfl_taken_key(struct sk_buff *skb)
{
	u32 tag = skb->sender_cpu;

	if (likely(tag & XFL_HANDOFF)) {
		skb->sender_cpu = 0;
		return tag & ~XFL_HANDOFF;
	}
	return xfl_xmit_key(skb);
}
#else
static __always_inline void xfl_hand_key(struct sk_buff *skb, u32 key)
{
}

static __always_inline bool xfl_key_handed(const struct sk_buff *skb)
{
	return true;	/* no field: every packet asks */
}

static __always_inline s64 xfl_taken_key(struct sk_buff *skb)
{
	return xfl_xmit_key(skb);
}
#endif

#endif /* XPS_FLOW_KEY_H */
