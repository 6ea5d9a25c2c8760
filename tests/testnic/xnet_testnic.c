// SPDX-License-Identifier: GPL-2.0
/*
 * xnet_testnic: a test-only multi-queue software Ethernet NIC with BQL.
 *
 * No QEMU NIC gives a 6.1 guest multi-queue TX with BQL; this device does,
 * in the spirit of netdevsim. It is built and loaded by tests only.
 *
 * Devices
 *   Module parameters create devices at load, all in init_net:
 *     pairs=N        N peer pairs tn<2k> <-> tn<2k+1> (default 1)
 *     singles=N      N devices without a peer (packets end on the wire)
 *     txqs=N rxqs=N  TX / RX queues of each device (default 4 / 1)
 *     delay_us=N     initial completion delay of every TX queue (0)
 *     depth=N        initial ring depth of every TX queue (1024)
 *     flow_entries=N wire flow table size, rounded up to a power of two
 *     select_queue=1 devices get an ndo_select_queue (see Datapath)
 *   At runtime, like veth: "ip link add [NAME] [numtxqueues N] [numrxqueues
 *   N] type xnet_tnic" creates NAME (default tn%d) and its peer NAME+"p"
 *   (tn%d when NAME has a '%' or no room for the suffix). "ip link del"
 *   of either end, or deleting the netns of either end, removes both; so
 *   does rmmod for every device. Either end can move to another netns.
 *   ip -d link shows the peer as the link (tn1@tn0).
 *
 * Datapath
 *   No ndo_select_queue by default: the core's netdev_pick_tx (XPS, then
 *   the skb hash) chooses the TX queue. With select_queue=1 (for tests of
 *   code that chains a driver's select, e.g. xps_flow's; and in UML, which
 *   has no XPS) devices are created with one: it proposes the queue set in
 *   the device's select_txq (debugfs), else defers to netdev_pick_tx.
 *   ndo_start_xmit puts the skb on the queue's ring
 *   (FIFO, at most "depth" packets; a full ring stops the queue, a packet
 *   offered to a full ring is returned NETDEV_TX_BUSY and counted, nothing
 *   is dropped) and reports skb->len to BQL (netdev_tx_sent_queue).
 *   Completion: each TX queue has a TX NAPI context, like a real NIC's TX
 *   completion. It completes, in ring order, every packet whose delay has
 *   passed, passes them over the wire (below), and reports them to BQL in
 *   one netdev_tx_completed_queue() per poll, waking the queue when the
 *   ring has room again. With delay 0 the NAPI is scheduled from the xmit
 *   (it runs when the sender re-enables BH); otherwise a per-queue hrtimer
 *   (hard irq, it only schedules the NAPI: the "completion interrupt")
 *   fires when the ring head is due. Why NAPI: dql_completed() must not
 *   run concurrently for one queue and NAPI serialises each queue's
 *   completions; it runs in softirq with the budget rules of real drivers;
 *   and napi_disable() gives ndo_stop a point after which no completion
 *   runs, so the rings can be purged and BQL reset. ndo_stop disables the
 *   NAPIs, cancels the timers, frees what the rings still hold (counted as
 *   "purged") and resets BQL; ndo_uninit removes the debugfs directory and
 *   the NAPIs. Completed skbs are orphaned (the socket's memory is
 *   released as on TX completion of a real NIC).
 *
 * The wire (one per device: its TX direction)
 *   One order per device: the order in which the TX queues' completions
 *   take the device's wire lock. For each packet the wire derives a flow
 *   and a sequence number:
 *   - the test header (xnet_testnic.h: "XNETSEQ1", be32 flow, be32 seq)
 *     after the Ethernet header with EtherType 0x88B5, or as the start of
 *     a UDP payload over IPv4/IPv6: flow = the header's flow id;
 *   - TCP over IPv4/IPv6 data segments (payload > 0, not a fragment):
 *     flow = the 4-tuple, seq = the TCP sequence number. Retransmissions
 *     cannot be told from reordering and are counted as reordered: exact
 *     counts need the test header;
 *   - anything else (ARP, ICMP, pure ACKs, SYN/FIN without data): untracked.
 *   A packet whose seq is after the highest seen for its flow is in order
 *   (and, for the test header, a gap when it is not highest + 1); otherwise
 *   (older or equal) it is reordered. The flow table is 4-way set
 *   associative with flow_entries entries; a new flow in a full set evicts
 *   the least recently used entry (counted; its next packet starts a new
 *   flow). Then the packet goes to the peer: scrubbed as by veth
 *   (__dev_forward_skb), appended to the FIFO of one peer RX queue (chosen
 *   by the flow hash, so each flow keeps the wire's order; with rxqs=1 the
 *   whole wire order is kept) under the wire lock, and received by that
 *   queue's NAPI in that order (netif_receive_skb_list; no GRO, see
 *   tn_rx_poll). A down peer, a full RX backlog (8192) or a too-big packet:
 *   dropped and counted. Without a peer: freed (consumed).
 *
 * debugfs: /sys/kernel/debug/xnet_testnic/<dev>/ (the device's name; on a
 * name clash with another netns, <dev>.<id>; follows renames)
 *   info     r   name, ifindex, peer, queue counts, flow table size
 *   wire     r   "key value" lines: packets bytes test tcp untracked flows
 *                flows_active evictions inorder reordered gaps max_dist
 *                delivered peer_drops consumed
 *   flows    r   one line per flow: kind key pkts reordered gaps hi_seq
 *                max_dist (kind test: key = flow id; tcp4/tcp6: the tuple)
 *   queues   r   header line, then one line per TX queue: txq delay_us depth
 *                len max_len sent_pkts sent_bytes done_pkts done_bytes
 *                stopped busy purged xoff dql_queued dql_completed dql_limit
 *                dql_inflight (xoff: 1 driver-stopped | 2 BQL-stopped;
 *                dql_*: read from the queue's struct dql)
 *   rx       r   header line, then one line per RX queue: rxq len max_len
 *                pkts bytes drops purged enabled
 *   reset    w   "1": zero the wire counters, the flow table and the queue
 *                counters (BQL's own state is not touched)
 *   tx-N/delay_us  rw  completion delay of TX queue N in us, 0..10000000
 *                (applies to packets queued from then on; FIFO order stays)
 *   tx-N/depth     rw  ring depth of TX queue N in packets, 1..16384
 *   select_txq     rw  (select_queue=1 only) the queue ndo_select_queue
 *                proposes, 0..txqs-1, or -1 (default): netdev_pick_tx
 *   dma      r   path (dma-direct | dma_map_ops), optin, then counters
 *                since load: maps saved unmaps errors bad_addr (DMA below)
 *   dma_optin rw 1: opt in to pp_frag's DMA API, 0: opt out
 *   A bad write fails with -EINVAL, logs a warning and changes nothing.
 *   The read-only files cannot seek: each open/read pass is one snapshot.
 *
 * DMA (the saving pp_frag's driver API, pp_frag_api.h, is about)
 *   The module registers one platform device with 64-bit DMA masks; the
 *   xmit gives every frag a DMA address for it (the skb head is not
 *   mapped): pp_frag's mapping of the frag's pool page when the device
 *   opted in and pp_frag_dma_addr() has one ("saved", never unmapped
 *   here), else skb_frag_dma_map() ("maps"), undone at TX completion or
 *   purge ("unmaps"). A failed map drops the packet before BQL hears of it.
 *   At completion the device "reads" each frag through its DMA address
 *   (dma-direct: the memory at that physical address, e.g. a swiotlb bounce
 *   slot): a frag whose bytes there differ is counted as bad_addr and the
 *   wire carries the bytes read, as a real NIC would send them.
 *   Opt-in takes references on pp_frag with symbol_get() (no module
 *   dependency); opt-out quiesces a running device's TX first (no xmit, rings
 *   drained), and happens by itself on NETDEV_UNREGISTER (before pp_frag's).
 *
 * Locking: a TX ring's lock (BH) covers the ring, its counters and the
 * queue's stop/wake; the wire lock covers the wire counters and the flow
 * table and is taken before a peer RX queue's lock (never the other way).
 * The peer pointer is RCU, cleared in dellink before the unregister grace
 * period; an RX queue's "enabled" (under its lock) tells the wire whether
 * it may still append.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#ifdef CONFIG_HAS_DMA
#include <linux/dma-direct.h>
#endif
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/rtnetlink.h>

#include "xnet_testnic.h"
#include "../../pp_frag/pp_frag_api.h"	/* declarations only: symbol_get */

#define TN_KIND			"xnet_tnic"
#define TN_DELAY_MAX_US		10000000U
#define TN_DEPTH_MAX		16384U
#define TN_QUEUES_MAX		256U
#define TN_RX_BACKLOG		8192U
#define TN_WAYS			4U
#define TN_FLOWS_MIN		TN_WAYS
#define TN_FLOWS_MAX		65536U
#define TN_DNAME_LEN		(IFNAMSIZ + 12)
#define TN_QUIESCE_MS		(TN_DELAY_MAX_US / 1000 + 1000)
#define TN_FEATURES		(NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA)

static unsigned int tn_pairs = 1;
module_param_named(pairs, tn_pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "peer pairs created at load (tn0<->tn1, ...)");
static unsigned int tn_singles;
module_param_named(singles, tn_singles, uint, 0444);
MODULE_PARM_DESC(singles, "devices without a peer created at load");
static unsigned int tn_txqs = 4;
module_param_named(txqs, tn_txqs, uint, 0444);
MODULE_PARM_DESC(txqs, "TX queues per device (1..256)");
static unsigned int tn_rxqs = 1;
module_param_named(rxqs, tn_rxqs, uint, 0444);
MODULE_PARM_DESC(rxqs, "RX queues per device (1..256)");
static unsigned int tn_delay_us;
module_param_named(delay_us, tn_delay_us, uint, 0444);
MODULE_PARM_DESC(delay_us, "initial TX completion delay of every queue, us");
static unsigned int tn_depth = 1024;
module_param_named(depth, tn_depth, uint, 0444);
MODULE_PARM_DESC(depth, "initial TX ring depth of every queue, packets");
static unsigned int tn_flow_entries = 1024;
module_param_named(flow_entries, tn_flow_entries, uint, 0444);
MODULE_PARM_DESC(flow_entries, "wire flow table entries per device");
static bool tn_select_queue;
module_param_named(select_queue, tn_select_queue, bool, 0444);
MODULE_PARM_DESC(select_queue, "devices get an ndo_select_queue (debugfs select_txq)");
static bool tn_optout_first = true;
module_param_named(optout_first, tn_optout_first, bool, 0444);
MODULE_PARM_DESC(optout_first,
		 "opt out of pp_frag DMA in a NETDEV_UNREGISTER notifier of priority 1, before pp_frag's (N: priority 0, after it if pp_frag loaded first, as a driver that does not order its notifier)");

static struct dentry *tn_dbg_root;
static atomic_t tn_ids = ATOMIC_INIT(0);
static struct rtnl_link_ops tn_link_ops;
/* The module's DMA device (every test NIC maps its frags for it); NULL
 * under KUnit, which has no module init: no DMA work then.
 */
#ifndef XNET_TESTNIC_KUNIT
static struct platform_device *tn_dma_pdev;
#endif
static struct device *tn_dma_dev;
static bool tn_dma_direct;	/* no dma_map_ops: dma-direct, no IOMMU */

/* skb->cb while the skb is on a TX ring (the driver owns cb after xmit). */
struct tn_skb_cb {
	u64 due;		/* ktime_get_ns() from which it may complete */
	unsigned int len;	/* bytes reported to BQL */
	u32 dma_own;		/* bit i: frag i mapped by us, to unmap */
	struct tn_dma_frag *dma;	/* per frag, or NULL (no frags/DMA) */
};

/* A frag's DMA address as a descriptor would carry it. */
struct tn_dma_frag {
	dma_addr_t addr;
	unsigned int len;
	bool elsewhere;		/* not the frag's physical address */
};

#define TN_CB(skb) ((struct tn_skb_cb *)(skb)->cb)

struct tn_priv;

struct tn_txq {
	struct napi_struct napi;
	struct hrtimer timer;
	spinlock_t lock;		/* ring, counters, stop/wake */
	struct sk_buff_head ring;	/* its own lock is unused */
	struct tn_priv *priv;
	unsigned int index;
	unsigned int depth;		/* READ_ONCE/WRITE_ONCE */
	unsigned int delay_us;		/* READ_ONCE/WRITE_ONCE */
	struct tn_txq_stats {		/* under @lock */
		unsigned int max_len;
		u64 sent_pkts, sent_bytes, done_pkts, done_bytes;
		u64 stopped, busy, purged;
	} st;
};

struct tn_rxq {
	struct napi_struct napi;
	spinlock_t lock;		/* list, counters, enabled */
	struct sk_buff_head list;	/* its own lock is unused */
	struct tn_priv *priv;
	bool enabled;
	struct tn_rxq_stats {		/* under @lock */
		unsigned int max_len;
		u64 pkts, bytes, drops, purged;
	} st;
};

enum tn_kind {
	TN_UNTRACKED,
	TN_KIND_TEST,
	TN_KIND_TCP4,
	TN_KIND_TCP6,
};

/* Compared with memcmp and hashed with jhash2: no padding, zeroed. */
struct tn_flow_key {
	u32 kind;
	u32 id;
	__be16 sport, dport;
	__be32 saddr[4], daddr[4];
};

struct tn_flow {
	struct tn_flow_key key;		/* key.kind == 0: free */
	u32 hi;				/* highest seq seen */
	u32 max_dist;
	u64 last;			/* LRU stamp */
	u64 pkts, reordered, gaps;
};

struct tn_wire {
	u64 packets, bytes, test, tcp, untracked;
	u64 flows, evictions, inorder, reordered, gaps;
	u64 delivered, peer_drops, consumed;
	u32 max_dist;
};

/* pp_frag's driver API (pp_frag_api.h), held with symbol_get() while the
 * device is opted in; @addr is read by the xmit (READ_ONCE).
 */
struct tn_ppf {
	int (*reg)(struct net_device *dev, struct device *dma_dev);
	void (*unreg)(struct net_device *dev);
	dma_addr_t (*addr)(struct net_device *dev, struct page *page);
};

struct tn_dma_stats {
	atomic64_t maps;	/* dma_map calls that succeeded */
	atomic64_t saved;	/* frags sent with pp_frag's mapping */
	atomic64_t unmaps;	/* dma_unmap calls */
	atomic64_t errors;	/* packets dropped: a map or allocation failed */
	atomic64_t bad_addr;	/* frags whose address is not the page's */
};

struct tn_priv {
	struct net_device *dev;
	struct net_device __rcu *peer;
	struct tn_txq *txq;
	struct tn_rxq *rxq;
	unsigned int ntxq, nrxq;
	int select_txq;			/* READ_ONCE/WRITE_ONCE; -1: none */
	spinlock_t wire_lock;		/* w, flows, clock */
	struct tn_wire w;
	struct tn_flow *flows;
	unsigned int nflows;
	u32 hash_seed;
	u64 clock;
	unsigned int id;
	struct dentry *dbg;
	char dname[TN_DNAME_LEN];
	struct tn_ppf ppf;		/* RTNL; ppf.addr != NULL: opted in */
	bool tx_quiesced;		/* under every TX ring's lock */
	struct tn_dma_stats dma;
};

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
static void tn_wire(struct tn_priv *priv, struct sk_buff_head *batch)
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
		} else if (tn_rx_enqueue(ppriv, skb, hash)) {
			priv->w.delivered++;
		} else {
			priv->w.peer_drops++;
		}
	}
	spin_unlock(&priv->wire_lock);
	rcu_read_unlock();
}

/* ---- DMA --------------------------------------------------------------- */

/*
 * With dma-direct a DMA address is a physical address, and the device
 * reads what is there. Is it somewhere else than the frag's bytes (a
 * swiotlb bounce slot, or a wrong address)? Then the device read at
 * completion (tn_dma_read()) must look.
 */
static bool tn_dma_elsewhere(const skb_frag_t *f, dma_addr_t addr)
{
#ifdef CONFIG_HAS_DMA
	return tn_dma_direct &&
	       dma_to_phys(tn_dma_dev, addr) !=
	       page_to_phys(skb_frag_page(f)) + skb_frag_off(f);
#else
	return false;
#endif
}

/*
 * The device reads the frags at their DMA addresses, as a NIC does when it
 * fetches a descriptor's buffer: the wire carries what it read. A frag
 * whose DMA address holds other bytes than the frag (a bounce buffer
 * nobody synced, a wrong offset into a pool page) is counted as bad_addr
 * and goes on the wire as read: returns a copy of @skb carrying those
 * bytes, or NULL to send @skb as it is. Before the frags are unmapped.
 */
static struct sk_buff *tn_dma_read(struct tn_priv *priv, struct sk_buff *skb)
{
	const struct skb_shared_info *si = skb_shinfo(skb);
	struct tn_dma_frag *d = TN_CB(skb)->dma;
	unsigned int i, off = skb_headlen(skb);
	struct sk_buff *nskb = NULL;

	if (!d)
		return NULL;
	for (i = 0; i < si->nr_frags; off += skb_frag_size(&si->frags[i]), i++) {
		const skb_frag_t *f = &si->frags[i];
		const void *seen;

		if (!d[i].elsewhere)
			continue;
		seen = phys_to_virt(dma_to_phys(tn_dma_dev, d[i].addr));
		if (!memcmp(seen, skb_frag_address(f), skb_frag_size(f)))
			continue;
		atomic64_inc(&priv->dma.bad_addr);
		if (!nskb) {
			nskb = skb_copy(skb, GFP_ATOMIC);
			if (!nskb) {
				atomic64_inc(&priv->dma.errors);
				return NULL;
			}
			TN_CB(nskb)->dma = NULL;
			TN_CB(nskb)->dma_own = 0;
		}
		memcpy(nskb->data + off, seen, skb_frag_size(f));
	}
	return nskb;
}

/* Unmap what tn_dma_map() mapped for @skb and free its addresses. */
static void tn_dma_unmap(struct tn_priv *priv, struct sk_buff *skb)
{
	struct tn_dma_frag *d = TN_CB(skb)->dma;
	u32 own = TN_CB(skb)->dma_own;
	unsigned int i, n = 0;

	if (!d)
		return;
	for (i = 0; own; i++, own >>= 1) {
		if (!(own & 1))
			continue;
		dma_unmap_page(tn_dma_dev, d[i].addr, d[i].len, DMA_TO_DEVICE);
		n++;
	}
	kfree(d);
	TN_CB(skb)->dma = NULL;
	TN_CB(skb)->dma_own = 0;
	if (n)
		atomic64_add(n, &priv->dma.unmaps);
}

/*
 * Every frag of @skb gets a DMA address for the module's DMA device, as a
 * real NIC's descriptors would: pp_frag's mapping of the frag's pool page
 * when the device opted in and pp_frag has one (never unmapped by us),
 * else a dma_map_page() undone at TX completion. The skb head is not
 * mapped (it is never a pool page). Outside the ring lock, like a
 * driver's mapping; 0 or -ENOMEM (the packet must be dropped).
 */
static int tn_dma_map(struct tn_priv *priv, struct sk_buff *skb)
{
	const struct skb_shared_info *si = skb_shinfo(skb);
	dma_addr_t (*ppf_addr)(struct net_device *dev, struct page *page);
	unsigned int i, n = si->nr_frags, maps = 0, saved = 0;
	struct tn_dma_frag *d;

	TN_CB(skb)->dma = NULL;
	TN_CB(skb)->dma_own = 0;
	if (!tn_dma_dev || !n)
		return 0;
	d = kmalloc_array(n, sizeof(*d), GFP_ATOMIC);
	if (!d)
		goto err;
	TN_CB(skb)->dma = d;
	ppf_addr = READ_ONCE(priv->ppf.addr);
	for (i = 0; i < n; i++) {
		const skb_frag_t *f = &si->frags[i];
		struct page *page = skb_frag_page(f);
		dma_addr_t addr = DMA_MAPPING_ERROR;

		if (ppf_addr)
			addr = ppf_addr(priv->dev, page);
		if (addr != DMA_MAPPING_ERROR) {
			/* pp_frag's address of the frag's page itself. */
			addr += skb_frag_off(f);
			saved++;
		} else {
			addr = skb_frag_dma_map(tn_dma_dev, f, 0,
						skb_frag_size(f), DMA_TO_DEVICE);
			if (dma_mapping_error(tn_dma_dev, addr))
				goto err;
			TN_CB(skb)->dma_own |= BIT(i);
			maps++;
		}
		d[i].addr = addr;
		d[i].len = skb_frag_size(f);
		d[i].elsewhere = tn_dma_elsewhere(f, addr);
	}
	if (maps)
		atomic64_add(maps, &priv->dma.maps);
	if (saved)
		atomic64_add(saved, &priv->dma.saved);
	return 0;

err:
	if (maps)
		atomic64_add(maps, &priv->dma.maps);
	tn_dma_unmap(priv, skb);
	atomic64_inc(&priv->dma.errors);
	return -ENOMEM;
}

/* ---- TX ---------------------------------------------------------------- */

/* Ring lock held; @due is the ring head's due time. */
static void tn_tx_kick(struct tn_txq *q, u64 due)
{
	if (due <= ktime_get_ns())
		napi_schedule(&q->napi);
	else
		hrtimer_start(&q->timer, ns_to_ktime(due), HRTIMER_MODE_ABS);
}

static enum hrtimer_restart tn_tx_timer(struct hrtimer *timer)
{
	struct tn_txq *q = container_of(timer, struct tn_txq, timer);

	napi_schedule(&q->napi);
	return HRTIMER_NORESTART;
}

static netdev_tx_t tn_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	u16 qi = skb_get_queue_mapping(skb);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, qi);
	struct tn_txq *q = &priv->txq[qi];
	unsigned int len = skb->len, depth = READ_ONCE(q->depth);
	unsigned int qlen;
	bool was_empty;
	u64 due;

	if (unlikely(tn_dma_map(priv, skb))) {
		/* Before BQL heard of it: dropped, as a driver does. */
		dev_core_stats_tx_dropped_inc(dev);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	spin_lock(&q->lock);
	if (unlikely(skb_queue_len(&q->ring) >= depth)) {
		/* Depth lowered under a full ring: the qdisc requeues. */
		netif_tx_stop_queue(txq);
		q->st.busy++;
		spin_unlock(&q->lock);
		tn_dma_unmap(priv, skb);
		return NETDEV_TX_BUSY;
	}
	skb_tx_timestamp(skb);
	due = ktime_get_ns() + (u64)READ_ONCE(q->delay_us) * NSEC_PER_USEC;
	TN_CB(skb)->due = due;
	TN_CB(skb)->len = len;
	was_empty = skb_queue_empty(&q->ring);
	__skb_queue_tail(&q->ring, skb);
	/* Before the completion can see the skb: BQL must never complete
	 * bytes it was not told about.
	 */
	netdev_tx_sent_queue(txq, len);
	q->st.sent_pkts++;
	q->st.sent_bytes += len;
	qlen = skb_queue_len(&q->ring);
	q->st.max_len = max(q->st.max_len, qlen);
	if (qlen >= depth) {
		netif_tx_stop_queue(txq);
		q->st.stopped++;
	}
	/* A non-empty ring always has its NAPI scheduled or its timer armed
	 * for the head (see tn_tx_poll), so only a new head needs a kick.
	 */
	if (was_empty)
		tn_tx_kick(q, due);
	spin_unlock(&q->lock);
	return NETDEV_TX_OK;
}

static int tn_tx_poll(struct napi_struct *napi, int budget)
{
	struct tn_txq *q = container_of(napi, struct tn_txq, napi);
	struct tn_priv *priv = q->priv;
	struct netdev_queue *txq = netdev_get_tx_queue(priv->dev, q->index);
	unsigned int pkts = 0, bytes = 0;
	struct sk_buff_head batch;
	struct sk_buff *skb;
	u64 now;

	if (unlikely(!budget))	/* netpoll: nothing to do without budget */
		return 0;

	__skb_queue_head_init(&batch);
	now = ktime_get_ns();
	spin_lock(&q->lock);
	while (pkts < budget) {
		skb = skb_peek(&q->ring);
		if (!skb || TN_CB(skb)->due > now)
			break;
		__skb_unlink(skb, &q->ring);
		__skb_queue_tail(&batch, skb);
		pkts++;
		bytes += TN_CB(skb)->len;
	}
	q->st.done_pkts += pkts;
	q->st.done_bytes += bytes;
	spin_unlock(&q->lock);

	if (pkts) {
		/* Done with the sender's socket, as a NIC's TX completion
		 * (outside our locks: destructors may do work).
		 */
		struct sk_buff *tmp, *seen;

		skb_queue_walk_safe(&batch, skb, tmp) {
			seen = tn_dma_read(priv, skb);
			tn_dma_unmap(priv, skb);
			skb_orphan(skb);
			if (seen) {
				__skb_queue_after(&batch, skb, seen);
				__skb_unlink(skb, &batch);
				consume_skb(skb);
			}
		}
		tn_wire(priv, &batch);
		netdev_tx_completed_queue(txq, pkts, bytes);
		spin_lock(&q->lock);
		if (netif_tx_queue_stopped(txq) && !priv->tx_quiesced &&
		    skb_queue_len(&q->ring) < READ_ONCE(q->depth))
			netif_tx_wake_queue(txq);
		spin_unlock(&q->lock);
	}
	if (pkts == budget)
		return budget;
	if (napi_complete_done(napi, pkts)) {
		/* Re-check under the lock: an xmit that found the ring
		 * non-empty did not kick.
		 */
		spin_lock(&q->lock);
		skb = skb_peek(&q->ring);
		if (skb)
			tn_tx_kick(q, TN_CB(skb)->due);
		spin_unlock(&q->lock);
	}
	return pkts;
}

/* ---- RX (the peer side of a wire) -------------------------------------- */

/*
 * No GRO: TCP transmits clones of the skbs on its retransmit queue, and GRO
 * would merge frags into a clone's shared skb_shared_info (veth unclones
 * first). The stack takes clones fine otherwise (loopback does the same),
 * and every wire packet reaches it as is, in order.
 */
static int tn_rx_poll(struct napi_struct *napi, int budget)
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

/* ---- net_device_ops ---------------------------------------------------- */

static int tn_open(struct net_device *dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	struct net_device *peer;
	unsigned int i;

	for (i = 0; i < priv->nrxq; i++) {
		struct tn_rxq *rq = &priv->rxq[i];

		napi_enable(&rq->napi);
		spin_lock_bh(&rq->lock);
		rq->enabled = true;
		spin_unlock_bh(&rq->lock);
	}
	for (i = 0; i < priv->ntxq; i++)
		napi_enable(&priv->txq[i].napi);
	netif_tx_start_all_queues(dev);

	peer = rtnl_dereference(priv->peer);
	if (!peer) {
		netif_carrier_on(dev);
	} else if (netif_running(peer)) {
		netif_carrier_on(dev);
		netif_carrier_on(peer);
	}
	return 0;
}

static unsigned int tn_purge(struct sk_buff_head *list)
{
	unsigned int n = 0;
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(list))) {
		kfree_skb(skb);
		n++;
	}
	return n;
}

/* A TX ring's skbs, with their DMA mappings. */
static unsigned int tn_tx_purge(struct tn_priv *priv, struct sk_buff_head *list)
{
	struct sk_buff *skb;

	skb_queue_walk(list, skb)
		tn_dma_unmap(priv, skb);
	return tn_purge(list);
}

static int tn_stop(struct net_device *dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	struct sk_buff_head tmp;
	struct net_device *peer;
	unsigned int i, n;

	netif_carrier_off(dev);
	peer = rtnl_dereference(priv->peer);
	if (peer)
		netif_carrier_off(peer);

	for (i = 0; i < priv->ntxq; i++) {
		struct tn_txq *q = &priv->txq[i];

		/* No completion runs after this; the timer only schedules
		 * the (disabled) NAPI.
		 */
		napi_disable(&q->napi);
		hrtimer_cancel(&q->timer);
		__skb_queue_head_init(&tmp);
		spin_lock_bh(&q->lock);
		skb_queue_splice_init(&q->ring, &tmp);
		spin_unlock_bh(&q->lock);
		n = tn_tx_purge(priv, &tmp);
		spin_lock_bh(&q->lock);
		q->st.purged += n;
		spin_unlock_bh(&q->lock);
		while (n--)
			dev_core_stats_tx_dropped_inc(dev);
		netdev_tx_reset_queue(netdev_get_tx_queue(dev, i));
	}
	for (i = 0; i < priv->nrxq; i++) {
		struct tn_rxq *rq = &priv->rxq[i];

		__skb_queue_head_init(&tmp);
		spin_lock_bh(&rq->lock);
		rq->enabled = false;	/* the peer's wire appends no more */
		skb_queue_splice_init(&rq->list, &tmp);
		spin_unlock_bh(&rq->lock);
		napi_disable(&rq->napi);
		n = tn_purge(&tmp);
		spin_lock_bh(&rq->lock);
		rq->st.purged += n;
		spin_unlock_bh(&rq->lock);
		while (n--)
			dev_core_stats_rx_dropped_inc(dev);
	}
	return 0;
}

static int tn_get_iflink(const struct net_device *dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	struct net_device *peer;
	int iflink = 0;

	rcu_read_lock();
	peer = rcu_dereference(priv->peer);
	if (peer)
		iflink = peer->ifindex;
	rcu_read_unlock();
	return iflink;
}

static void tn_debugfs_init(struct tn_priv *priv);

static void tn_free_priv(struct tn_priv *priv)
{
	kfree(priv->txq);
	priv->txq = NULL;
	kfree(priv->rxq);
	priv->rxq = NULL;
	kvfree(priv->flows);
	priv->flows = NULL;
	free_percpu(priv->dev->tstats);
	priv->dev->tstats = NULL;
}

static int tn_dev_init(struct net_device *dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	unsigned int i;

	priv->dev = dev;
	priv->ntxq = dev->num_tx_queues;
	priv->nrxq = dev->num_rx_queues;
	priv->nflows = tn_flow_entries;
	priv->select_txq = -1;
	priv->hash_seed = get_random_u32();
	priv->id = atomic_inc_return(&tn_ids);
	spin_lock_init(&priv->wire_lock);

	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	priv->txq = kcalloc(priv->ntxq, sizeof(*priv->txq), GFP_KERNEL);
	priv->rxq = kcalloc(priv->nrxq, sizeof(*priv->rxq), GFP_KERNEL);
	priv->flows = kvcalloc(priv->nflows, sizeof(*priv->flows), GFP_KERNEL);
	if (!dev->tstats || !priv->txq || !priv->rxq || !priv->flows) {
		tn_free_priv(priv);
		return -ENOMEM;
	}

	for (i = 0; i < priv->ntxq; i++) {
		struct tn_txq *q = &priv->txq[i];

		q->priv = priv;
		q->index = i;
		q->depth = tn_depth;
		q->delay_us = tn_delay_us;
		spin_lock_init(&q->lock);
		__skb_queue_head_init(&q->ring);
		hrtimer_init(&q->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
		q->timer.function = tn_tx_timer;
		netif_napi_add_tx(dev, &q->napi, tn_tx_poll);
	}
	for (i = 0; i < priv->nrxq; i++) {
		struct tn_rxq *rq = &priv->rxq[i];

		rq->priv = priv;
		spin_lock_init(&rq->lock);
		__skb_queue_head_init(&rq->list);
		netif_napi_add(dev, &rq->napi, tn_rx_poll);
	}
	tn_debugfs_init(priv);
	return 0;
}

/* After ndo_stop (or a failed register): NAPIs disabled, timers idle. */
static void tn_dev_uninit(struct net_device *dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	unsigned int i;

	debugfs_remove_recursive(priv->dbg);	/* waits for open handlers */
	priv->dbg = NULL;
	for (i = 0; i < priv->ntxq; i++) {
		hrtimer_cancel(&priv->txq[i].timer);
		tn_tx_purge(priv, &priv->txq[i].ring);
		__netif_napi_del(&priv->txq[i].napi);
	}
	for (i = 0; i < priv->nrxq; i++) {
		tn_purge(&priv->rxq[i].list);
		__netif_napi_del(&priv->rxq[i].napi);
	}
	synchronize_net();	/* napi_hash / napi_list readers */
}

/* priv_destructor: after uninit and the unregister grace period. */
static void tn_dev_free(struct net_device *dev)
{
	tn_free_priv(netdev_priv(dev));
}

/* select_queue=1 only: the queue the test set, else the core's choice. */
static u16 tn_select(struct net_device *dev, struct sk_buff *skb,
		     struct net_device *sb_dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	int q = READ_ONCE(priv->select_txq);

	if (q >= 0 && q < dev->real_num_tx_queues)
		return q;
	return netdev_pick_tx(dev, skb, sb_dev);
}

#define TN_NETDEV_OPS							\
	.ndo_init		= tn_dev_init,				\
	.ndo_uninit		= tn_dev_uninit,			\
	.ndo_open		= tn_open,				\
	.ndo_stop		= tn_stop,				\
	.ndo_start_xmit		= tn_xmit,				\
	.ndo_get_stats64	= dev_get_tstats64,			\
	.ndo_set_mac_address	= eth_mac_addr,				\
	.ndo_validate_addr	= eth_validate_addr,			\
	.ndo_get_iflink		= tn_get_iflink

/* By default no ndo_select_queue: netdev_pick_tx and XPS choose. */
static const struct net_device_ops tn_netdev_ops = {
	TN_NETDEV_OPS,
};

static const struct net_device_ops tn_netdev_ops_select = {
	TN_NETDEV_OPS,
	.ndo_select_queue	= tn_select,
};

static void tn_get_drvinfo(struct net_device *dev,
			   struct ethtool_drvinfo *info)
{
	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
}

static const struct ethtool_ops tn_ethtool_ops = {
	.get_drvinfo	= tn_get_drvinfo,
	.get_link	= ethtool_op_get_link,
};

static void tn_setup(struct net_device *dev)
{
	ether_setup(dev);
	/* skbs sit on our lists: the same skb must not come twice (pktgen) */
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
	/* xmit takes BH locks: no netpoll (it may xmit from hard irq) */
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE | IFF_DISABLE_NETPOLL;
	dev->netdev_ops = tn_select_queue ? &tn_netdev_ops_select :
					    &tn_netdev_ops;
	dev->ethtool_ops = &tn_ethtool_ops;
	dev->needs_free_netdev = true;
	dev->priv_destructor = tn_dev_free;
	dev->features |= TN_FEATURES;
	dev->hw_features |= TN_FEATURES | NETIF_F_GSO_SOFTWARE;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = ETH_MAX_MTU;
}

/* ---- creation and deletion --------------------------------------------- */

/*
 * RTNL held. Registers @dev (allocated, not registered) and, if @peer_name,
 * its peer. On error nothing is registered any more; the caller frees @dev
 * with free_netdev() (which defers to the unregister if needed).
 */
static int tn_register(struct net_device *dev, const char *peer_name)
{
	struct tn_priv *priv, *ppriv;
	struct net_device *peer;
	int err;

	err = register_netdevice(dev);
	if (err)
		return err;
	netif_carrier_off(dev);
	if (!peer_name)
		return 0;

	peer = alloc_netdev_mqs(sizeof(struct tn_priv), peer_name,
				strchr(peer_name, '%') ? NET_NAME_ENUM :
							 NET_NAME_PREDICTABLE,
				tn_setup, dev->num_tx_queues,
				dev->num_rx_queues);
	if (!peer) {
		err = -ENOMEM;
		goto err_dev;
	}
	dev_net_set(peer, dev_net(dev));
	peer->rtnl_link_ops = &tn_link_ops;
	peer->mtu = dev->mtu;
	eth_hw_addr_random(peer);
	err = register_netdevice(peer);
	if (err) {
		free_netdev(peer);
		goto err_dev;
	}
	netif_carrier_off(peer);

	priv = netdev_priv(dev);
	ppriv = netdev_priv(peer);
	rcu_assign_pointer(priv->peer, peer);
	rcu_assign_pointer(ppriv->peer, dev);
	return 0;

err_dev:
	unregister_netdevice(dev);
	return err;
}

static int tn_validate(struct nlattr *tb[], struct nlattr *data[],
		       struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		if (nla_len(tb[IFLA_ADDRESS]) != ETH_ALEN)
			return -EINVAL;
		if (!is_valid_ether_addr(nla_data(tb[IFLA_ADDRESS])))
			return -EADDRNOTAVAIL;
	}
	return 0;
}

static int tn_newlink(struct net *src_net, struct net_device *dev,
		      struct nlattr *tb[], struct nlattr *data[],
		      struct netlink_ext_ack *extack)
{
	char peer_name[IFNAMSIZ];

	if (!tb[IFLA_ADDRESS])
		eth_hw_addr_random(dev);
	if (!tb[IFLA_IFNAME])
		strscpy(dev->name, "tn%d", IFNAMSIZ);
	if (strchr(dev->name, '%') || strlen(dev->name) + 2 > IFNAMSIZ)
		strscpy(peer_name, "tn%d", IFNAMSIZ);
	else
		snprintf(peer_name, IFNAMSIZ, "%sp", dev->name);
	return tn_register(dev, peer_name);
}

/* Both ends go (like veth); a second call for the peer is harmless. */
static void tn_dellink(struct net_device *dev, struct list_head *head)
{
	struct tn_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);

	RCU_INIT_POINTER(priv->peer, NULL);
	unregister_netdevice_queue(dev, head);
	if (peer) {
		priv = netdev_priv(peer);
		RCU_INIT_POINTER(priv->peer, NULL);
		unregister_netdevice_queue(peer, head);
	}
}

static struct net *tn_get_link_net(const struct net_device *dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);

	return peer ? dev_net(peer) : dev_net(dev);
}

static unsigned int tn_get_num_tx_queues(void)
{
	return tn_txqs;
}

static unsigned int tn_get_num_rx_queues(void)
{
	return tn_rxqs;
}

static struct rtnl_link_ops tn_link_ops = {
	.kind			= TN_KIND,
	.priv_size		= sizeof(struct tn_priv),
	.setup			= tn_setup,
	.validate		= tn_validate,
	.newlink		= tn_newlink,
	.dellink		= tn_dellink,
	.get_link_net		= tn_get_link_net,
	.get_num_tx_queues	= tn_get_num_tx_queues,
	.get_num_rx_queues	= tn_get_num_rx_queues,
};

/*
 * RTNL held: a device in init_net named tn%d, with a peer or without
 * (its peer is the next tn%d). Returns the device or an ERR_PTR.
 */
static struct net_device *tn_create(bool with_peer)
{
	struct net_device *dev;
	int err;

	dev = alloc_netdev_mqs(sizeof(struct tn_priv), "tn%d", NET_NAME_ENUM,
			       tn_setup, tn_txqs, tn_rxqs);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->rtnl_link_ops = &tn_link_ops;
	eth_hw_addr_random(dev);
	err = tn_register(dev, with_peer ? "tn%d" : NULL);
	if (err) {
		free_netdev(dev);
		return ERR_PTR(err);
	}
	return dev;
}

/* ---- debugfs ----------------------------------------------------------- */

/*
 * Read-only seq_file files that cannot seek: every reader gets one snapshot
 * (a seek would re-generate the text, and a line-by-line reader that seeks
 * back, like bash's read builtin on a seekable file, would land mid-line of
 * a newer snapshot; on a non-seekable file it reads sequentially).
 */
#define TN_SHOW_FOPS(__name)						\
static int __name##_open(struct inode *inode, struct file *file)	\
{									\
	int err = single_open(file, __name##_show, inode->i_private);	\
									\
	return err ?: nonseekable_open(inode, file);			\
}									\
static const struct file_operations __name##_fops = {			\
	.owner		= THIS_MODULE,					\
	.open		= __name##_open,				\
	.read		= seq_read,					\
	.release	= single_release,				\
}

static int tn_info_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	struct net_device *dev = priv->dev, *peer;

	seq_printf(m, "name %s\nifindex %d\n", dev->name, dev->ifindex);
	rcu_read_lock();
	peer = rcu_dereference(priv->peer);
	if (peer)
		seq_printf(m, "peer %s\npeer_ifindex %d\npeer_netns %s\n",
			   peer->name, peer->ifindex,
			   net_eq(dev_net(dev), dev_net(peer)) ? "same" :
								 "other");
	else
		seq_puts(m, "peer -\n");
	rcu_read_unlock();
	seq_printf(m, "txqs %u\nrxqs %u\nflow_entries %u\nflow_ways %u\n",
		   dev->real_num_tx_queues, dev->real_num_rx_queues,
		   priv->nflows, TN_WAYS);
	return 0;
}

TN_SHOW_FOPS(tn_info);

static int tn_wire_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	unsigned int i, active = 0;
	struct tn_wire w;

	spin_lock_bh(&priv->wire_lock);
	w = priv->w;
	for (i = 0; i < priv->nflows; i++)
		if (priv->flows[i].key.kind)
			active++;
	spin_unlock_bh(&priv->wire_lock);

	seq_printf(m, "packets %llu\nbytes %llu\n", w.packets, w.bytes);
	seq_printf(m, "test %llu\ntcp %llu\nuntracked %llu\n", w.test, w.tcp,
		   w.untracked);
	seq_printf(m, "flows %llu\nflows_active %u\nevictions %llu\n", w.flows,
		   active, w.evictions);
	seq_printf(m, "inorder %llu\nreordered %llu\ngaps %llu\nmax_dist %u\n",
		   w.inorder, w.reordered, w.gaps, w.max_dist);
	seq_printf(m, "delivered %llu\npeer_drops %llu\nconsumed %llu\n",
		   w.delivered, w.peer_drops, w.consumed);
	return 0;
}

TN_SHOW_FOPS(tn_wire);

static void tn_flow_print(struct seq_file *m, const struct tn_flow *f)
{
	const struct tn_flow_key *k = &f->key;

	switch (k->kind) {
	case TN_KIND_TEST:
		seq_printf(m, "test %u", k->id);
		break;
	case TN_KIND_TCP4:
		seq_printf(m, "tcp4 %pI4:%u>%pI4:%u", &k->saddr[0],
			   ntohs(k->sport), &k->daddr[0], ntohs(k->dport));
		break;
	default:
		seq_printf(m, "tcp6 [%pI6c]:%u>[%pI6c]:%u", k->saddr,
			   ntohs(k->sport), k->daddr, ntohs(k->dport));
		break;
	}
	seq_printf(m, " %llu %llu %llu %u %u\n", f->pkts, f->reordered, f->gaps,
		   f->hi, f->max_dist);
}

static int tn_flows_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	unsigned int i, n = 0;
	struct tn_flow *copy;

	copy = kvmalloc_array(priv->nflows, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	spin_lock_bh(&priv->wire_lock);
	for (i = 0; i < priv->nflows; i++)
		if (priv->flows[i].key.kind)
			copy[n++] = priv->flows[i];
	spin_unlock_bh(&priv->wire_lock);

	seq_puts(m, "kind key pkts reordered gaps hi_seq max_dist\n");
	for (i = 0; i < n; i++)
		tn_flow_print(m, &copy[i]);
	kvfree(copy);
	return 0;
}

TN_SHOW_FOPS(tn_flows);

static int tn_queues_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	unsigned int i;

	seq_puts(m, "txq delay_us depth len max_len sent_pkts sent_bytes done_pkts done_bytes stopped busy purged xoff dql_queued dql_completed dql_limit dql_inflight\n");
	for (i = 0; i < priv->ntxq; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(priv->dev, i);
		struct tn_txq *q = &priv->txq[i];
		struct tn_txq_stats s;
		unsigned int len, xoff = 0;
		unsigned int dq = 0, dc = 0, dl = 0;

		spin_lock_bh(&q->lock);
		s = q->st;
		len = skb_queue_len(&q->ring);
		spin_unlock_bh(&q->lock);
		if (netif_tx_queue_stopped(txq))
			xoff |= 1;
#ifdef CONFIG_BQL
		if (test_bit(__QUEUE_STATE_STACK_XOFF, &txq->state))
			xoff |= 2;
		dq = READ_ONCE(txq->dql.num_queued);
		dc = READ_ONCE(txq->dql.num_completed);
		dl = READ_ONCE(txq->dql.limit);
#endif
		seq_printf(m, "%u %u %u %u %u %llu %llu %llu %llu %llu %llu %llu %u %u %u %u %u\n",
			   i, READ_ONCE(q->delay_us), READ_ONCE(q->depth),
			   len, s.max_len, s.sent_pkts, s.sent_bytes,
			   s.done_pkts, s.done_bytes, s.stopped, s.busy,
			   s.purged, xoff, dq, dc, dl, dq - dc);
	}
	return 0;
}

TN_SHOW_FOPS(tn_queues);

static int tn_rx_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	unsigned int i;

	seq_puts(m, "rxq len max_len pkts bytes drops purged enabled\n");
	for (i = 0; i < priv->nrxq; i++) {
		struct tn_rxq *rq = &priv->rxq[i];
		struct tn_rxq_stats s;
		unsigned int len;
		bool en;

		spin_lock_bh(&rq->lock);
		s = rq->st;
		len = skb_queue_len(&rq->list);
		en = rq->enabled;
		spin_unlock_bh(&rq->lock);
		seq_printf(m, "%u %u %u %llu %llu %llu %llu %d\n", i, len,
			   s.max_len, s.pkts, s.bytes, s.drops, s.purged, en);
	}
	return 0;
}

TN_SHOW_FOPS(tn_rx);

/* A decimal u32 (digits only), optionally followed by one newline. */
static int tn_parse_u32(const char __user *ubuf, size_t count, u32 *val)
{
	char buf[24];

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (!isdigit(buf[0]))	/* kstrtou32 takes a '+' */
		return -EINVAL;
	return kstrtou32(buf, 10, val);
}

static ssize_t tn_u32_read(char __user *ubuf, size_t count, loff_t *ppos,
			   u32 val)
{
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%u\n", val);

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t tn_delay_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct tn_txq *q = file->private_data;

	return tn_u32_read(ubuf, count, ppos, READ_ONCE(q->delay_us));
}

static ssize_t tn_delay_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct tn_txq *q = file->private_data;
	int err;
	u32 val;

	err = tn_parse_u32(ubuf, count, &val);
	if (err == -EFAULT)
		return err;
	if (err || val > TN_DELAY_MAX_US) {
		pr_warn("%s: tx-%u/delay_us: invalid value (want 0..%u)\n",
			q->priv->dev->name, q->index, TN_DELAY_MAX_US);
		return -EINVAL;
	}
	WRITE_ONCE(q->delay_us, val);
	return count;
}

static const struct file_operations tn_delay_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tn_delay_read,
	.write	= tn_delay_write,
	.llseek	= default_llseek,
};

static ssize_t tn_depth_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct tn_txq *q = file->private_data;

	return tn_u32_read(ubuf, count, ppos, READ_ONCE(q->depth));
}

static ssize_t tn_depth_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct tn_txq *q = file->private_data;
	struct net_device *dev = q->priv->dev;
	struct netdev_queue *txq = netdev_get_tx_queue(dev, q->index);
	int err;
	u32 val;

	err = tn_parse_u32(ubuf, count, &val);
	if (err == -EFAULT)
		return err;
	if (err || val < 1 || val > TN_DEPTH_MAX) {
		pr_warn("%s: tx-%u/depth: invalid value (want 1..%u)\n",
			dev->name, q->index, TN_DEPTH_MAX);
		return -EINVAL;
	}
	spin_lock_bh(&q->lock);
	WRITE_ONCE(q->depth, val);
	if (netif_running(dev) && netif_tx_queue_stopped(txq) &&
	    !q->priv->tx_quiesced &&
	    skb_queue_len(&q->ring) < val)
		netif_tx_wake_queue(txq);
	spin_unlock_bh(&q->lock);
	return count;
}

static const struct file_operations tn_depth_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tn_depth_read,
	.write	= tn_depth_write,
	.llseek	= default_llseek,
};

static ssize_t tn_select_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct tn_priv *priv = file->private_data;
	char buf[16];
	int len;

	len = scnprintf(buf, sizeof(buf), "%d\n", READ_ONCE(priv->select_txq));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* A queue number, or -1: netdev_pick_tx decides. */
static ssize_t tn_select_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct tn_priv *priv = file->private_data;
	char buf[4];
	int err;
	u32 val;

	if (count == 2 || count == 3) {
		if (copy_from_user(buf, ubuf, count))
			return -EFAULT;
		buf[count] = '\0';
		if (!strcmp(buf, "-1") || !strcmp(buf, "-1\n")) {
			WRITE_ONCE(priv->select_txq, -1);
			return count;
		}
	}
	err = tn_parse_u32(ubuf, count, &val);
	if (err == -EFAULT)
		return err;
	if (err || val >= priv->ntxq) {
		pr_warn("%s: select_txq: invalid value (want -1 or 0..%u)\n",
			priv->dev->name, priv->ntxq - 1);
		return -EINVAL;
	}
	WRITE_ONCE(priv->select_txq, val);
	return count;
}

static const struct file_operations tn_select_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tn_select_read,
	.write	= tn_select_write,
	.llseek	= default_llseek,
};

static ssize_t tn_reset_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct tn_priv *priv = file->private_data;
	unsigned int i;
	int err;
	u32 val;

	err = tn_parse_u32(ubuf, count, &val);
	if (err == -EFAULT)
		return err;
	if (err || val != 1) {
		pr_warn("%s: reset: invalid value (want 1)\n",
			priv->dev->name);
		return -EINVAL;
	}
	spin_lock_bh(&priv->wire_lock);
	memset(&priv->w, 0, sizeof(priv->w));
	memset(priv->flows, 0, priv->nflows * sizeof(*priv->flows));
	priv->clock = 0;
	spin_unlock_bh(&priv->wire_lock);
	for (i = 0; i < priv->ntxq; i++) {
		struct tn_txq *q = &priv->txq[i];

		spin_lock_bh(&q->lock);
		memset(&q->st, 0, sizeof(q->st));
		q->st.max_len = skb_queue_len(&q->ring);
		spin_unlock_bh(&q->lock);
	}
	for (i = 0; i < priv->nrxq; i++) {
		struct tn_rxq *rq = &priv->rxq[i];

		spin_lock_bh(&rq->lock);
		memset(&rq->st, 0, sizeof(rq->st));
		rq->st.max_len = skb_queue_len(&rq->list);
		spin_unlock_bh(&rq->lock);
	}
	return count;
}

static const struct file_operations tn_reset_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= tn_reset_write,
	.llseek	= noop_llseek,
};

/* ---- pp_frag DMA opt-in ------------------------------------------------ */

static bool tn_rings_empty(struct tn_priv *priv)
{
	unsigned int i;
	bool empty = true;

	for (i = 0; i < priv->ntxq && empty; i++) {
		struct tn_txq *q = &priv->txq[i];

		spin_lock_bh(&q->lock);
		empty = skb_queue_empty(&q->ring);
		spin_unlock_bh(&q->lock);
	}
	return empty;
}

static void tn_tx_set_quiesced(struct tn_priv *priv, bool on)
{
	unsigned int i;

	for (i = 0; i < priv->ntxq; i++) {
		spin_lock_bh(&priv->txq[i].lock);
		priv->tx_quiesced = on;
		spin_unlock_bh(&priv->txq[i].lock);
	}
}

/*
 * RTNL, device running: no xmit runs or starts (netif_tx_disable takes
 * every queue's xmit lock; completions do not wake the queues while
 * tx_quiesced), and every packet on the rings has completed (their
 * mappings are undone and no frag uses pp_frag's any more). Completions go
 * on meanwhile: waits for the slowest delay_us. -ETIMEDOUT (resumed) if
 * the rings did not drain.
 */
static int tn_tx_quiesce(struct tn_priv *priv)
{
	unsigned long end = jiffies + msecs_to_jiffies(TN_QUIESCE_MS);

	tn_tx_set_quiesced(priv, true);
	netif_tx_disable(priv->dev);
	while (!tn_rings_empty(priv)) {
		if (time_after(jiffies, end)) {
			tn_tx_set_quiesced(priv, false);
			netif_tx_wake_all_queues(priv->dev);
			return -ETIMEDOUT;
		}
		usleep_range(500, 1000);
	}
	return 0;
}

static void tn_ppf_put(const struct tn_ppf *p)
{
	if (p->reg)
		symbol_put(pp_frag_dma_register);
	if (p->unreg)
		symbol_put(pp_frag_dma_unregister);
	if (p->addr)
		symbol_put(pp_frag_dma_addr);
}

/* RTNL. Pool pages of the device come with pp_frag's mapping from now. */
static int tn_dma_optin(struct tn_priv *priv)
{
	struct tn_ppf p;
	int err;

	ASSERT_RTNL();
	if (priv->ppf.addr)
		return 0;
	if (!tn_dma_dev)
		return -ENODEV;
	/* References on pp_frag: it cannot go while we are opted in. */
	p.reg = symbol_get(pp_frag_dma_register);
	p.unreg = symbol_get(pp_frag_dma_unregister);
	p.addr = symbol_get(pp_frag_dma_addr);
	if (!p.reg || !p.unreg || !p.addr) {
		pr_warn("%s: dma_optin: pp_frag is not loaded\n",
			priv->dev->name);
		err = -ENOENT;
		goto err_put;
	}
	err = p.reg(priv->dev, tn_dma_dev);
	if (err) {
		pr_warn("%s: dma_optin: pp_frag_dma_register: %d\n",
			priv->dev->name, err);
		goto err_put;
	}
	priv->ppf.reg = p.reg;
	priv->ppf.unreg = p.unreg;
	WRITE_ONCE(priv->ppf.addr, p.addr);
	return 0;

err_put:
	tn_ppf_put(&p);
	return err;
}

/*
 * RTNL. Opt out once the device no longer transmits (pp_frag_api.h): a
 * running device has its TX quiesced around pp_frag_dma_unregister(); a
 * down one has no packet on its rings (ndo_stop purged them).
 */
static int tn_dma_optout(struct tn_priv *priv)
{
	struct net_device *dev = priv->dev;
	bool running = netif_running(dev);
	struct tn_ppf p = priv->ppf;
	int err;

	ASSERT_RTNL();
	if (!p.addr)
		return 0;
	if (running) {
		err = tn_tx_quiesce(priv);
		if (err) {
			pr_warn("%s: dma_optin: TX rings did not drain, still opted in\n",
				dev->name);
			return err;
		}
	}
	WRITE_ONCE(priv->ppf.addr, NULL);
	p.unreg(dev);
	memset(&priv->ppf, 0, sizeof(priv->ppf));
	if (running) {
		tn_tx_set_quiesced(priv, false);
		netif_tx_wake_all_queues(dev);
	}
	tn_ppf_put(&p);
	return 0;
}

static int tn_dma_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	struct tn_dma_stats *d = &priv->dma;

	seq_printf(m, "path %s\noptin %d\n",
		   tn_dma_direct ? "dma-direct" : "dma_map_ops",
		   !!READ_ONCE(priv->ppf.addr));
	seq_printf(m, "maps %lld\nsaved %lld\nunmaps %lld\nerrors %lld\nbad_addr %lld\n",
		   (s64)atomic64_read(&d->maps), (s64)atomic64_read(&d->saved),
		   (s64)atomic64_read(&d->unmaps),
		   (s64)atomic64_read(&d->errors),
		   (s64)atomic64_read(&d->bad_addr));
	return 0;
}

TN_SHOW_FOPS(tn_dma);

static ssize_t tn_optin_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct tn_priv *priv = file->private_data;

	return tn_u32_read(ubuf, count, ppos, !!READ_ONCE(priv->ppf.addr));
}

static ssize_t tn_optin_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct tn_priv *priv = file->private_data;
	int err;
	u32 val;

	err = tn_parse_u32(ubuf, count, &val);
	if (err == -EFAULT)
		return err;
	if (err || val > 1) {
		pr_warn("%s: dma_optin: invalid value (want 0 or 1)\n",
			priv->dev->name);
		return -EINVAL;
	}
	/* Not rtnl_lock(): ndo_uninit (RTNL) waits for this handler. */
	if (!rtnl_trylock())
		return restart_syscall();
	err = val ? tn_dma_optin(priv) : tn_dma_optout(priv);
	rtnl_unlock();
	return err ?: count;
}

static const struct file_operations tn_optin_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tn_optin_read,
	.write	= tn_optin_write,
	.llseek	= default_llseek,
};

/* RTNL held: the directory name this device should have now. */
static void tn_debugfs_want(struct tn_priv *priv, char *buf, size_t len)
{
	struct dentry *d;

	strscpy(buf, priv->dev->name, len);
	if (!strcmp(buf, priv->dname))
		return;
	d = debugfs_lookup(buf, tn_dbg_root);
	if (d) {
		dput(d);
		snprintf(buf, len, "%s.%u", priv->dev->name, priv->id);
	}
}

/* RTNL held (ndo_init). */
static void tn_debugfs_init(struct tn_priv *priv)
{
	char name[16], want[TN_DNAME_LEN];
	struct dentry *d, *qd;
	unsigned int i;

	priv->dbg = NULL;
	priv->dname[0] = '\0';
	if (IS_ERR_OR_NULL(tn_dbg_root))
		return;
	tn_debugfs_want(priv, want, sizeof(want));
	d = debugfs_create_dir(want, tn_dbg_root);
	if (IS_ERR(d))
		return;
	priv->dbg = d;
	strscpy(priv->dname, want, sizeof(priv->dname));
	debugfs_create_file("info", 0444, d, priv, &tn_info_fops);
	debugfs_create_file("wire", 0444, d, priv, &tn_wire_fops);
	debugfs_create_file("flows", 0444, d, priv, &tn_flows_fops);
	debugfs_create_file("queues", 0444, d, priv, &tn_queues_fops);
	debugfs_create_file("rx", 0444, d, priv, &tn_rx_fops);
	debugfs_create_file("reset", 0200, d, priv, &tn_reset_fops);
	if (tn_dma_dev) {
		debugfs_create_file("dma", 0444, d, priv, &tn_dma_fops);
		debugfs_create_file("dma_optin", 0600, d, priv,
				    &tn_optin_fops);
	}
	if (priv->dev->netdev_ops == &tn_netdev_ops_select)
		debugfs_create_file("select_txq", 0600, d, priv,
				    &tn_select_fops);
	for (i = 0; i < priv->ntxq; i++) {
		snprintf(name, sizeof(name), "tx-%u", i);
		qd = debugfs_create_dir(name, d);
		debugfs_create_file("delay_us", 0600, qd, &priv->txq[i],
				    &tn_delay_fops);
		debugfs_create_file("depth", 0600, qd, &priv->txq[i],
				    &tn_depth_fops);
	}
}

/* RTNL held: follow a rename or a move to another netns. */
static void tn_debugfs_sync(struct tn_priv *priv)
{
	char want[TN_DNAME_LEN];
	struct dentry *d;

	if (!priv->dbg)
		return;
	tn_debugfs_want(priv, want, sizeof(want));
	if (!strcmp(want, priv->dname))
		return;
	d = debugfs_rename(tn_dbg_root, priv->dbg, tn_dbg_root, want);
	if (!IS_ERR(d))
		strscpy(priv->dname, want, sizeof(priv->dname));
}

static int tn_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	/* Not netdev_ops: xps_flow may interpose a copy of them. */
	if (dev->rtnl_link_ops != &tn_link_ops)
		return NOTIFY_DONE;
	if (event == NETDEV_CHANGENAME || event == NETDEV_REGISTER)
		tn_debugfs_sync(netdev_priv(dev));
	/* Closed by now (delete, netns move): opt out before pp_frag's own
	 * NETDEV_UNREGISTER forgets the device and its mappings.
	 */
	if (event == NETDEV_UNREGISTER)
		tn_dma_optout(netdev_priv(dev));
	return NOTIFY_DONE;
}

/* Before the notifiers of priority 0 (pp_frag's among them), or not. */
static struct notifier_block tn_notifier = {
	.notifier_call = tn_netdev_event,
	.priority = 1,
};

/* ---- module ------------------------------------------------------------ */

/*
 * The link kind, the notifier and the debugfs root: what the module sets up
 * before creating its devices, and KUnit (kunit/xps_flow_steer_test.c,
 * which includes this file and creates devices with tn_create()) per suite.
 */
static int tn_start(void)
{
	int err;

	tn_dbg_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	tn_notifier.priority = tn_optout_first ? 1 : 0;
	err = register_netdevice_notifier(&tn_notifier);
	if (err)
		goto err_dbg;
	err = rtnl_link_register(&tn_link_ops);
	if (err)
		goto err_notifier;
	return 0;

err_notifier:
	unregister_netdevice_notifier(&tn_notifier);
err_dbg:
	debugfs_remove_recursive(tn_dbg_root);
	tn_dbg_root = NULL;
	return err;
}

/* Deletes every device of this kind in every netns, then undoes tn_start. */
static void tn_shutdown(void)
{
	rtnl_link_unregister(&tn_link_ops);
	unregister_netdevice_notifier(&tn_notifier);
	debugfs_remove_recursive(tn_dbg_root);
	tn_dbg_root = NULL;
}

#ifndef XNET_TESTNIC_KUNIT
static int __init tn_check_param(const char *name, unsigned int val,
				 unsigned int min, unsigned int max)
{
	if (val >= min && val <= max)
		return 0;
	pr_err("%s=%u out of range %u..%u\n", name, val, min, max);
	return -EINVAL;
}

/*
 * One DMA-capable device for the module: a platform device with 64-bit
 * streaming and coherent masks. No driver binds it and no IOMMU is set up
 * for it: dma_map_page() goes through dma-direct (x86 without IOMMU or
 * GART: no dma_map_ops), with no swiotlb bounce (every address fits the
 * mask; bouncing is only forced for swiotlb=force or memory encryption).
 * Which path it is shows in each device's debugfs "dma" file.
 */
static int __init tn_dma_init(void)
{
	const struct platform_device_info info = {
		.name		= KBUILD_MODNAME "_dma",
		.id		= PLATFORM_DEVID_NONE,
		.dma_mask	= DMA_BIT_MASK(64),
	};
	struct platform_device *pdev;
	int err;

	pdev = platform_device_register_full(&info);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		platform_device_unregister(pdev);
		return err;
	}
	tn_dma_pdev = pdev;
	tn_dma_dev = &pdev->dev;
	tn_dma_direct = !get_dma_ops(tn_dma_dev);
	return 0;
}

static void tn_dma_exit(void)
{
	tn_dma_dev = NULL;
	platform_device_unregister(tn_dma_pdev);
	tn_dma_pdev = NULL;
}

static int __init tn_init(void)
{
	unsigned int i;
	int err;

	BUILD_BUG_ON(sizeof(struct tn_skb_cb) >
		     sizeof_field(struct sk_buff, cb));
	BUILD_BUG_ON(sizeof(struct tn_flow_key) % sizeof(u32));
	BUILD_BUG_ON(MAX_SKB_FRAGS > 32);	/* tn_skb_cb.dma_own */
	err = tn_check_param("pairs", tn_pairs, 0, 64) ?:
	      tn_check_param("singles", tn_singles, 0, 64) ?:
	      tn_check_param("txqs", tn_txqs, 1, TN_QUEUES_MAX) ?:
	      tn_check_param("rxqs", tn_rxqs, 1, TN_QUEUES_MAX) ?:
	      tn_check_param("delay_us", tn_delay_us, 0, TN_DELAY_MAX_US) ?:
	      tn_check_param("depth", tn_depth, 1, TN_DEPTH_MAX) ?:
	      tn_check_param("flow_entries", tn_flow_entries, 1, TN_FLOWS_MAX);
	if (err)
		return err;
	tn_flow_entries = roundup_pow_of_two(max(tn_flow_entries,
						 TN_FLOWS_MIN));

	err = tn_dma_init();
	if (err) {
		pr_err("no DMA device: %d\n", err);
		return err;
	}
	err = tn_start();
	if (err) {
		tn_dma_exit();
		return err;
	}
	rtnl_lock();
	for (i = 0; i < tn_pairs + tn_singles && !err; i++)
		err = PTR_ERR_OR_ZERO(tn_create(i < tn_pairs));
	rtnl_unlock();
	if (err) {
		pr_err("creating the devices failed: %d\n", err);
		tn_shutdown();
		tn_dma_exit();
	}
	return err;
}

/* Deleting the devices opted them out (NETDEV_UNREGISTER): pp_frag holds
 * no mapping for the DMA device any more.
 */
static void __exit tn_exit(void)
{
	tn_shutdown();
	tn_dma_exit();
}

module_init(tn_init);
module_exit(tn_exit);
#endif /* XNET_TESTNIC_KUNIT */

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xnet test NIC: multi-queue software Ethernet with BQL, XPS and a reorder-counting wire");
MODULE_ALIAS_RTNL_LINK(TN_KIND);
