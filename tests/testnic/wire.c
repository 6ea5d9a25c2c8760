// SPDX-License-Identifier: GPL-2.0
/*
 * xnet_testnic: the wire (one per device: its TX direction) and the peer's
 * RX queues.
 *
 * One order per device: the order in which the TX queues' completions take
 * the device's wire lock. For each packet the wire derives a flow and a
 * sequence number:
 * - the test header (xnet_testnic.h: "XNETSEQ1", be32 flow, be32 seq)
 *   after the Ethernet header with EtherType 0x88B5, or as the start of a
 *   UDP payload over IPv4/IPv6: flow = the header's flow id;
 * - TCP over IPv4/IPv6 data segments (payload > 0, not a fragment):
 *   flow = the 4-tuple, seq = the TCP sequence number. Retransmissions
 *   cannot be told from reordering and are counted as reordered: exact
 *   counts need the test header;
 * - anything else (ARP, ICMP, pure ACKs, SYN/FIN without data): untracked.
 * A packet whose seq is after the highest seen for its flow is in order
 * (and, for the test header, a gap when it is not highest + 1); otherwise
 * (older or equal) it is reordered. The flow table is 4-way set associative
 * with flow_entries entries; a new flow in a full set evicts the least
 * recently used entry (counted; its next packet starts a new flow). Then
 * the packet goes to the peer: scrubbed as by veth (__dev_forward_skb),
 * appended to the FIFO of one peer RX queue (chosen by the flow hash, so
 * each flow keeps the wire's order; with rxqs=1 the whole wire order is
 * kept) under the wire lock, and received by that queue's NAPI in that
 * order (netif_receive_skb_list; no GRO, see tn_rx_poll). A down peer, a
 * full RX backlog (8192), a too-big packet or, with ops_check=1, a peer
 * whose ops pointer is not ours: dropped and counted. Without a peer:
 * freed (consumed).
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "internal.h"
#include "xnet_testnic.h"

#define TN_RX_BACKLOG		8192U

/* ---- the wire ---------------------------------------------------------- */

static int tn_parse_seqhdr(const struct sk_buff *skb, unsigned int off,
			   struct tn_flow_key *key, u32 *seq)
{
	const struct xnet_tn_seqhdr *h;
	struct xnet_tn_seqhdr _h;

	h = skb_header_pointer(skb, off, sizeof(_h), &_h);
	if (!h || memcmp(h->magic, XNET_TN_SEQ_MAGIC, XNET_TN_SEQ_MAGIC_LEN))
		return TN_UNTRACKED;
	key->kind = TN_KIND_TEST;
	key->id = be32_to_cpu(h->flow);
	*seq = be32_to_cpu(h->seq);
	return TN_KIND_TEST;
}

/* TCP data segment at @off with @l4len bytes of header + payload? */
static bool tn_parse_tcp(const struct sk_buff *skb, unsigned int off,
			 unsigned int l4len, struct tn_flow_key *key, u32 *seq)
{
	const struct tcphdr *th;
	struct tcphdr _th;
	unsigned int doff;

	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	if (!th)
		return false;
	doff = th->doff * 4;
	if (doff < sizeof(*th) || l4len <= doff)
		return false;
	key->sport = th->source;
	key->dport = th->dest;
	*seq = ntohl(th->seq);
	return true;
}

static int tn_classify_ip4(const struct sk_buff *skb, unsigned int off,
			   struct tn_flow_key *key, u32 *seq)
{
	const struct iphdr *iph;
	unsigned int ihl, tot;
	struct iphdr _iph;

	iph = skb_header_pointer(skb, off, sizeof(_iph), &_iph);
	if (!iph || iph->version != 4 || iph->ihl < 5 || ip_is_fragment(iph))
		return TN_UNTRACKED;
	ihl = iph->ihl * 4;
	tot = ntohs(iph->tot_len);
	if (tot < ihl)
		return TN_UNTRACKED;
	switch (iph->protocol) {
	case IPPROTO_UDP:
		return tn_parse_seqhdr(skb, off + ihl + sizeof(struct udphdr),
				       key, seq);
	case IPPROTO_TCP:
		if (!tn_parse_tcp(skb, off + ihl, tot - ihl, key, seq))
			return TN_UNTRACKED;
		key->kind = TN_KIND_TCP4;
		key->saddr[0] = iph->saddr;
		key->daddr[0] = iph->daddr;
		return TN_KIND_TCP4;
	}
	return TN_UNTRACKED;
}

static int tn_classify_ip6(const struct sk_buff *skb, unsigned int off,
			   struct tn_flow_key *key, u32 *seq)
{
	const struct ipv6hdr *ip6h;
	struct ipv6hdr _ip6h;
	unsigned int l4, end;
	u8 nexthdr;

	ip6h = skb_header_pointer(skb, off, sizeof(_ip6h), &_ip6h);
	if (!ip6h || ip6h->version != 6)
		return TN_UNTRACKED;
	l4 = off + sizeof(*ip6h);
	end = l4 + ntohs(ip6h->payload_len);
	nexthdr = ip6h->nexthdr;
	if (nexthdr != IPPROTO_TCP && nexthdr != IPPROTO_UDP) {
		__be16 frag = 0;
		int r = ipv6_skip_exthdr(skb, l4, &nexthdr, &frag);

		if (r < 0 || frag)
			return TN_UNTRACKED;
		l4 = r;
	}
	if (end < l4)
		return TN_UNTRACKED;
	switch (nexthdr) {
	case IPPROTO_UDP:
		return tn_parse_seqhdr(skb, l4 + sizeof(struct udphdr), key,
				       seq);
	case IPPROTO_TCP:
		if (!tn_parse_tcp(skb, l4, end - l4, key, seq))
			return TN_UNTRACKED;
		key->kind = TN_KIND_TCP6;
		memcpy(key->saddr, &ip6h->saddr, sizeof(key->saddr));
		memcpy(key->daddr, &ip6h->daddr, sizeof(key->daddr));
		return TN_KIND_TCP6;
	}
	return TN_UNTRACKED;
}

/* @skb starts at its Ethernet header (TX side). */
static int tn_classify(const struct sk_buff *skb, struct tn_flow_key *key,
		       u32 *seq)
{
	unsigned int off = ETH_HLEN;
	const struct ethhdr *eth;
	struct ethhdr _eth;
	__be16 proto;

	memset(key, 0, sizeof(*key));
	eth = skb_header_pointer(skb, 0, sizeof(_eth), &_eth);
	if (!eth)
		return TN_UNTRACKED;
	proto = eth->h_proto;
	if (eth_type_vlan(proto)) {
		const struct vlan_hdr *vh;
		struct vlan_hdr _vh;

		vh = skb_header_pointer(skb, off, sizeof(_vh), &_vh);
		if (!vh)
			return TN_UNTRACKED;
		proto = vh->h_vlan_encapsulated_proto;
		off += VLAN_HLEN;
	}
	switch (proto) {
	case htons(XNET_TN_ETH_P_SEQ):
		return tn_parse_seqhdr(skb, off, key, seq);
	case htons(ETH_P_IP):
		return tn_classify_ip4(skb, off, key, seq);
	case htons(ETH_P_IPV6):
		return tn_classify_ip6(skb, off, key, seq);
	}
	return TN_UNTRACKED;
}

/* Wire lock held. */
static void tn_flow_record(struct tn_priv *priv, const struct tn_flow_key *key,
			   u32 hash, u32 seq)
{
	unsigned int set = hash & (priv->nflows / TN_WAYS - 1);
	struct tn_flow *e = &priv->flows[set * TN_WAYS];
	struct tn_flow *f = NULL, *free = NULL, *lru = NULL;
	struct tn_wire *w = &priv->w;
	unsigned int i;
	s32 d;

	for (i = 0; i < TN_WAYS; i++, e++) {
		if (!e->key.kind) {
			if (!free)
				free = e;
		} else if (!memcmp(&e->key, key, sizeof(*key))) {
			f = e;
			break;
		} else if (!lru || e->last < lru->last) {
			lru = e;
		}
	}
	if (!f) {
		if (free) {
			f = free;
		} else {
			f = lru;
			w->evictions++;
		}
		memset(f, 0, sizeof(*f));
		f->key = *key;
		f->hi = seq;
		f->pkts = 1;
		f->last = ++priv->clock;
		w->flows++;
		w->inorder++;
		return;
	}
	f->last = ++priv->clock;
	f->pkts++;
	d = (s32)(seq - f->hi);
	if (d > 0) {
		if (key->kind == TN_KIND_TEST && d != 1) {
			f->gaps++;
			w->gaps++;
		}
		f->hi = seq;
		w->inorder++;
		return;
	}
	f->reordered++;
	w->reordered++;
	f->max_dist = max_t(u32, f->max_dist, f->hi - seq);
	w->max_dist = max_t(u32, w->max_dist, f->hi - seq);
}

/* Hand @skb (orphaned, starting at its Ethernet header) to the peer. */
static bool tn_rx_enqueue(struct tn_priv *ppriv, struct sk_buff *skb, u32 hash)
{
	struct net_device *peer = ppriv->dev;
	unsigned int idx = reciprocal_scale(hash, ppriv->nrxq);
	struct tn_rxq *rq = &ppriv->rxq[idx];
	bool ok = false;

	if (unlikely(!pskb_may_pull(skb, ETH_HLEN))) {
		dev_core_stats_rx_dropped_inc(peer);
		kfree_skb(skb);
		return false;
	}
	/* Scrubs (netns), checks MTU and the peer being up, eth_type_trans. */
	if (__dev_forward_skb(peer, skb) != NET_RX_SUCCESS)
		return false;
	skb_record_rx_queue(skb, idx);

	spin_lock(&rq->lock);
	if (rq->enabled && skb_queue_len(&rq->list) < TN_RX_BACKLOG) {
		__skb_queue_tail(&rq->list, skb);
		rq->st.max_len = max(rq->st.max_len, skb_queue_len(&rq->list));
		ok = true;
	} else {
		rq->st.drops++;
	}
	spin_unlock(&rq->lock);

	if (!ok) {
		dev_core_stats_rx_dropped_inc(peer);
		kfree_skb(skb);
		return false;
	}
	napi_schedule(&rq->napi);
	return true;
}

/* Completed packets of one TX queue, in ring order: the wire, then the peer. */
void tn_wire(struct tn_priv *priv, struct sk_buff_head *batch)
{
	struct net_device *dev = priv->dev, *peer;
	struct tn_priv *ppriv = NULL;
	struct tn_flow_key key;
	struct sk_buff *skb;
	u32 seq = 0, hash;
	int kind;

	rcu_read_lock();
	peer = rcu_dereference(priv->peer);
	if (peer)
		ppriv = netdev_priv(peer);

	spin_lock(&priv->wire_lock);
	while ((skb = __skb_dequeue(batch))) {
		unsigned int len = TN_CB(skb)->len;

		priv->w.packets++;
		priv->w.bytes += len;
		kind = tn_classify(skb, &key, &seq);
		if (kind == TN_UNTRACKED) {
			priv->w.untracked++;
			hash = 0;
		} else {
			if (kind == TN_KIND_TEST)
				priv->w.test++;
			else
				priv->w.tcp++;
			hash = jhash2((const u32 *)&key, sizeof(key) / 4,
				      priv->hash_seed);
			tn_flow_record(priv, &key, hash, seq);
		}
		dev_sw_netstats_tx_add(dev, 1, len);
		if (!ppriv) {
			priv->w.consumed++;
			consume_skb(skb);
		} else if (unlikely(!tn_ops_ok(ppriv))) {
			/* ops_check: the peer is not ours by its ops pointer
			 * (counted in the peer's ops_mismatch).
			 */
			priv->w.peer_drops++;
			dev_core_stats_rx_dropped_inc(peer);
			kfree_skb(skb);
		} else if (tn_rx_enqueue(ppriv, skb, hash)) {
			priv->w.delivered++;
		} else {
			priv->w.peer_drops++;
		}
	}
	spin_unlock(&priv->wire_lock);
	rcu_read_unlock();
}

/* ---- RX (the peer side of a wire) -------------------------------------- */

/*
 * No GRO: TCP transmits clones of the skbs on its retransmit queue, and GRO
 * would merge frags into a clone's shared skb_shared_info (veth unclones
 * first). The stack takes clones fine otherwise (loopback does the same),
 * and every wire packet reaches it as is, in order.
 */
int tn_rx_poll(struct napi_struct *napi, int budget)
{
	struct tn_rxq *rq = container_of(napi, struct tn_rxq, napi);
	struct net_device *dev = rq->priv->dev;
	struct sk_buff *skb;
	LIST_HEAD(list);
	int done = 0;

	spin_lock(&rq->lock);
	while (done < budget && (skb = __skb_dequeue(&rq->list))) {
		list_add_tail(&skb->list, &list);
		rq->st.pkts++;
		rq->st.bytes += skb->len;
		dev_sw_netstats_rx_add(dev, skb->len);
		done++;
	}
	spin_unlock(&rq->lock);

	netif_receive_skb_list(&list);
	if (done < budget && napi_complete_done(napi, done)) {
		spin_lock(&rq->lock);
		if (!skb_queue_empty(&rq->list))
			napi_schedule(napi);
		spin_unlock(&rq->lock);
	}
	return done;
}
