// SPDX-License-Identifier: GPL-2.0
/*
 * xps_flow datapath: wrapped ndo_select_queue and ndo_start_xmit.
 *
 * select: the queue XPS (netdev_pick_tx) or the driver's own select
 * proposes goes through the C++ decision with the flow's entry: a flow
 * whose old queue has not completed the bytes it queued there stays.
 * xmit: after the driver took the packet (under the TX queue lock), the
 * queue's BQL enqueue counter is exact: it becomes the flow's head.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/sch_generic.h>
#include <linux/vmalloc.h>

#include <xnet/abi.h>
#include "decide.h"

#include "xps_flow.h"

static struct xnet_devhash xfl_hash;

/* The tuple key's random multipliers and offsets, drawn at module start. */
static struct xnet_xps_key_seed xfl_key_seed __read_mostly;

void xfl_key_init(void)
{
	get_random_bytes(&xfl_key_seed, sizeof(xfl_key_seed));
}

/*
 * The flow key a packet's entry is indexed by. Both wrappers must compute
 * the same key for the same packet, and something may hash the packet in
 * between: a qdisc that enqueues it (fq_codel, fq) calls skb_get_hash(),
 * which stores a software hash (sw_hash). So:
 *  - a hash the packet brought from its socket or from the NIC's RSS
 *    (l4_hash without sw_hash) is the key: nothing in the stack replaces it;
 *  - otherwise, for IPv4 and IPv6 with TCP, UDP, UDP-Lite, SCTP or DCCP and
 *    not a fragment, a seeded universal hash of addresses, ports and
 *    protocol (xnet_xps_key_v4/v6(): one multiplication per 32-bit word
 *    and a finalizer), the header read in place; never stored in
 *    skb->hash (the stack's DoS-hardened siphash, used downstream), but
 *    handed to the transmit wrapper (xfl_hand_key());
 *  - anything else (fragments, other protocols, IPv6 extension headers,
 *    VLAN headers in the payload, no IP header): the kernel's flow hash,
 *    skb_get_hash(), which the select wrapper computes and stores, so that
 *    the transmit wrapper finds it in skb->hash.
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

/* Headers not in the linear area: a copy (no stack buffer on the fast path). */
static noinline s64 xfl_tuple_key_copy(const struct sk_buff *skb, int off)
{
	u8 buf[60 + 4];		/* the largest IPv4 header and the ports */
	int len = min_t(int, skb->len - off, sizeof(buf));
	s64 key;

	if (len <= 0 || skb_copy_bits(skb, off, buf, len) < 0)
		return XFL_NO_KEY;
	key = xfl_tuple_parse(skb->protocol, buf, len);
	return key < 0 ? XFL_NO_KEY : key;
}

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
 * it did not come through the select wrapper (pktgen's start_xmit mode, a
 * single queue): nothing to record.
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
 * The select wrapper hands its key to the transmit wrapper in the skb, so
 * that a packet's headers are parsed and hashed once, not twice: in
 * sender_cpu (napi_id on receive), with bit 31 set. netdev_pick_tx() has
 * read sender_cpu (XPS) before the wrapper writes it, and nothing reads it
 * between queue selection and ndo_start_xmit. CPU numbers + 1 and NAPI IDs
 * do not reach bit 31. The transmit wrapper takes the key and clears the
 * field before the driver sees the packet (0: no sender CPU, no NAPI ID;
 * a lower device's queue selection sets it again). A packet that reaches
 * the transmit wrapper without it (requeued after NETDEV_TX_BUSY, or not
 * selected by the wrapper) gets its key computed again: the same key.
 * Without the field (a kernel with neither XPS nor busy polling) the key
 * is always computed twice.
 */
#if IS_ENABLED(CONFIG_XPS) || IS_ENABLED(CONFIG_NET_RX_BUSY_POLL)
#define XFL_HANDOFF	BIT(31)

static __always_inline void xfl_hand_key(struct sk_buff *skb, u32 key)
{
	BUILD_BUG_ON(XNET_XPS_MAX_ENTRIES > XFL_HANDOFF);
	skb->sender_cpu = key | XFL_HANDOFF;	/* the index bits are kept */
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

static __always_inline s64 xfl_taken_key(struct sk_buff *skb)
{
	return xfl_xmit_key(skb);
}
#endif

/* Caller holds rcu_read_lock() (or rcu_read_lock_bh(), as dev_queue_xmit). */
struct xfl_dev *xfl_lookup(const struct net_device *dev)
{
	struct xnet_devnode *n = xnet_devhash_find(&xfl_hash, dev);

	return n ? container_of(n, struct xfl_dev, hn) : NULL;
}

/* RTNL held. */
void xfl_hash_add(struct xfl_dev *xd)
{
	xnet_devhash_add(&xfl_hash, &xd->hn, xd->nd.dev);
}

/* RTNL held; the caller waits for a grace period before freeing @xd. */
void xfl_hash_del(struct xfl_dev *xd)
{
	xnet_devhash_del(&xd->hn);
}

static u16 xfl_select_queue(struct net_device *dev, struct sk_buff *skb,
			    struct net_device *sb_dev);
static netdev_tx_t xfl_start_xmit(struct sk_buff *skb, struct net_device *dev);

/*
 * What dev->netdev_ops points at while steering is on: a copy of the
 * device's own ops with the two wrappers, next to the device's state, so
 * that a wrapper reaches its xfl_dev with container_of() instead of a
 * lookup.
 *
 * Lifetime: code outside RCU reads dev->netdev_ops and keeps the pointer
 * (dev_get_iflink(), AF_PACKET's qdisc bypass, netif_skb_features() and
 * many more read it with nothing held), so no grace period proves that
 * nobody holds a hook any more. Hence a hook is never freed while the
 * module is loaded: one per device, reused by every enable; when its
 * device is detached (or its own ops changed), it goes to xfl_retired and
 * is freed by xfl_hooks_free() at module exit. Module exit cannot run
 * while any device's ops are one of our hooks: each installed hook pins
 * the module (xfl_dev.installed), so rmmod is refused until steering is
 * off everywhere (or the device is gone).
 */
struct xfl_hook {
	const struct net_device_ops ops;	/* written once, before it is installed */
	struct xfl_dev *xd;			/* NULL once retired */
	struct list_head node;			/* xfl_retired, under RTNL */
};

static LIST_HEAD(xfl_retired);		/* hooks of detached devices, RTNL */
static unsigned int xfl_pinned;		/* devices with a hook installed, RTNL */

/*
 * The state of the device a wrapper runs for. Caller: an RCU reader.
 *
 * Fast path: dev->netdev_ops still is our hook (only our hooks have
 * ndo_start_xmit == xfl_start_xmit: xps_flow copies the device's own ops,
 * and a copy of our hook installed by someone else is not supported, see
 * Documentation/xps-flow.md). The hook the caller called us through lives
 * as long as the module, and so does the one we read here. A wrapper that
 * was called through the hook just before xfl_disable() put the device's
 * own ops back, or through another module's ops that wrap ours, finds
 * other ops there: then the RCU hash table, where the xfl_dev stays until
 * a grace period after its detach. NULL only for a caller that is no RCU
 * reader (see xfl_select_queue()) and ran across a whole detach.
 */
static struct xfl_dev *xfl_of(const struct net_device *dev)
{
	const struct net_device_ops *ops = READ_ONCE(dev->netdev_ops);

	if (likely(ops->ndo_start_xmit == xfl_start_xmit))
		return READ_ONCE(container_of(ops, struct xfl_hook, ops)->xd);
	return xfl_lookup(dev);
}

/* The queue the device would pick by itself with @ops. */
static u16 xfl_propose(const struct net_device_ops *ops, struct net_device *dev,
		       struct sk_buff *skb, struct net_device *sb_dev)
{
	if (ops && ops->ndo_select_queue)
		return ops->ndo_select_queue(dev, skb, sb_dev);
	return netdev_pick_tx(dev, skb, sb_dev);
}

/*
 * The flow goes to @queue: a new flow, or one leaving its queue. Say so in
 * the entry now (unless a transmit wrote the slot since it read @old). The
 * transmit wrapper writes the exact head once the driver has the packet,
 * but until then the packet may wait in @queue's qdisc (the queue stopped
 * by BQL or a full ring), and a packet of the same flow selected meanwhile
 * would find the old entry (none, or the queue it left, idle by now) and
 * overtake it. With this one it finds @queue, whose qdisc backlog holds it.
 * Head: the queue's count so far, a lower bound.
 */
static noinline void xfl_steer_claim(struct net_device *dev, u64 *slot,
				     u64 old, u16 queue)
{
	struct netdev_queue *txq;

	if (queue >= dev->real_num_tx_queues)
		return;
	txq = netdev_get_tx_queue(dev, queue);
	cmpxchg64(slot, old, xnet_xps_pack(queue, READ_ONCE(txq->dql.num_queued)));
}

/*
 * The flow in @slot (entry @entry) is on queue @oq and XPS proposes another:
 * may it move? Out of line: the rare case. Caller: an RCU reader.
 */
static noinline u16 xfl_steer_move(struct xfl_dev *xd, struct net_device *dev,
				   struct net_device *sb_dev, struct xfl_table *t,
				   u64 *slot, u64 entry, u16 proposed)
{
	unsigned int completed = 0;
	int verdict, oq, state = 0;
	u64 store;
	u16 queue;

	oq = xnet_xps_queue_of(entry);
	if (oq < dev->real_num_tx_queues) {
		struct netdev_queue *txq = netdev_get_tx_queue(dev, oq);
		struct Qdisc *q = rcu_dereference_check(txq->qdisc,
							rcu_read_lock_bh_held());

		/*
		 * Packets not counted in head yet: still in the qdisc, or
		 * dequeued (a bulk dequeue empties the qdisc) and on their
		 * way to the driver while the qdisc runs. The transmit
		 * wrapper writes the entry before the run ends: once the run
		 * is seen over, a re-read sees the flow's latest head — if it
		 * changed, the flow just sent there: stay.
		 */
		if (q && (!qdisc_is_empty(q) || qdisc_is_running(q)))
			state = XNET_XPS_OLD_BACKLOG;
		smp_rmb();	/* the run's end before the entry's re-read */
		if (READ_ONCE(*slot) != entry)
			state |= XNET_XPS_OLD_BACKLOG;
		completed = READ_ONCE(txq->dql.num_completed);
		/*
		 * Traffic classes (mqprio): the proposal came from the
		 * packet's class range (netdev_pick_tx() picks within
		 * tc_to_txq[tc] of @sb_dev or @dev); the old queue must be
		 * in that range too, or the flow goes where it is allowed.
		 */
		if (unlikely((sb_dev ?: dev)->num_tc) &&
		    netdev_txq_to_tc(sb_dev ?: dev, oq) !=
		    netdev_txq_to_tc(sb_dev ?: dev, proposed))
			state |= XNET_XPS_OLD_OTHER_TC;
		/* A resize is carrying heads over: only an idle queue is left. */
		if (unlikely(READ_ONCE(t->settling)) &&
		    READ_ONCE(txq->dql.num_queued) != completed)
			state |= XNET_XPS_OLD_BACKLOG;
	}
	verdict = xnet_xps_decide_timed(entry, proposed, dev->real_num_tx_queues,
					completed, state, (u16)jiffies,
					READ_ONCE(xfl_hold_limit), &queue, &store);
	/* A hold begins: stamp it, unless a transmit wrote the slot meanwhile. */
	if (unlikely(store))
		cmpxchg64(slot, entry, store);
	else if (queue != oq)
		xfl_steer_claim(dev, slot, entry, queue);
	if (verdict == XNET_XPS_HOLD)
		this_cpu_inc(xd->stats->held);
	else if (verdict == XNET_XPS_MOVE)
		this_cpu_inc(xd->stats->moves);
	else if (verdict == XNET_XPS_STALE)
		this_cpu_inc(xd->stats->stale);
	else if (verdict == XNET_XPS_EXPIRED)
		this_cpu_inc(xd->stats->expired);
	return queue;
}

/* The select wrapper's work. Caller: an RCU reader. */
static u16 xfl_steer(struct net_device *dev, struct sk_buff *skb,
		     struct net_device *sb_dev)
{
	struct xfl_dev *xd = xfl_of(dev);
	struct xfl_table *t;
	u64 *slot, entry;
	u16 proposed;
	u32 key;

	if (unlikely(!xd)) {
		const struct net_device_ops *ops = READ_ONCE(dev->netdev_ops);

		return xfl_propose(ops->ndo_select_queue == xfl_select_queue ?
				   NULL : ops, dev, skb, sb_dev);
	}
	proposed = xfl_propose(xd->orig_ops, dev, skb, sb_dev);
	t = rcu_dereference_check(xd->table, rcu_read_lock_bh_held());
	if (unlikely(!t))
		return proposed;
	key = xfl_select_key(skb);
	xfl_hand_key(skb, key);
	slot = &t->entries[key & t->mask];
	entry = READ_ONCE(*slot);
	this_cpu_inc(xd->stats->lookups);
	/* No entry, or the flow's queue is the proposed one. */
	if (likely(xnet_xps_decide_fast(entry, proposed) >= 0)) {
		if (unlikely(!entry))
			xfl_steer_claim(dev, slot, 0, proposed);
		/* Where XPS wants it again: a timed hold is over. */
		else if (unlikely(entry & XNET_XPS_HOLDING))
			cmpxchg64(slot, entry, entry & ~XNET_XPS_HOLD_BITS);
		return proposed;
	}
	return xfl_steer_move(xd, dev, sb_dev, t, slot, entry, proposed);
}

/*
 * __dev_queue_xmit() (and netpoll, xfrm offload) call this under
 * rcu_read_lock_bh() or with interrupts off: an RCU reader already.
 * AF_PACKET's qdisc bypass (packet_pick_tx_queue()) calls it with nothing
 * held: only then does it take rcu_read_lock() itself.
 */
static u16 xfl_select_queue(struct net_device *dev, struct sk_buff *skb,
			    struct net_device *sb_dev)
{
	u16 queue;

	if (likely(in_softirq()))
		return xfl_steer(dev, skb, sb_dev);
	rcu_read_lock();
	queue = xfl_steer(dev, skb, sb_dev);
	rcu_read_unlock();
	return queue;
}

/*
 * Every caller (dev_hard_start_xmit(), __dev_direct_xmit(), netpoll,
 * pktgen) holds the TX queue lock with bottom halves or interrupts off:
 * an RCU reader.
 */
static netdev_tx_t xfl_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct xfl_dev *xd = xfl_of(dev);
	u16 queue = skb_get_queue_mapping(skb);
	struct netdev_queue *txq;
	struct xfl_table *t;
	netdev_tx_t ret;
	s64 key;
	u32 head;

	/*
	 * No state: only through a hook of a device detached while it was
	 * still in use (not a path the kernel takes: NETDEV_UNREGISTER comes
	 * after the device stopped transmitting). The driver's transmit is
	 * unknown here: drop rather than dereference NULL.
	 */
	if (unlikely(!xd)) {
		WARN_ONCE(1, "xps_flow: %s: transmit through a detached hook\n",
			  netdev_name(dev));
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	key = xfl_taken_key(skb);
	ret = xd->orig_ops->ndo_start_xmit(skb, dev);	/* skb is gone now */
	if (ret != NETDEV_TX_OK || key < 0)
		return ret;

	/* Under the TX queue lock: the driver has just counted the bytes. */
	txq = netdev_get_tx_queue(dev, queue);
	head = READ_ONCE(txq->dql.num_queued);
	if (unlikely(!head) && !xd->warned_no_bql &&
	    atomic_inc_return(&xd->no_bql) == 1000) {
		xd->warned_no_bql = true;
		pr_warn("%s: BQL counters never move: the driver does not report its queues to BQL, steering cannot protect its flows\n",
			netdev_name(dev));
	}
	t = rcu_dereference_bh(xd->table);
	if (likely(t)) {
		u64 *slot = &t->entries[(u32)key & t->mask];

		/* Still held on @queue: the hold keeps its stamp. */
		WRITE_ONCE(*slot, xnet_xps_repack(READ_ONCE(*slot), queue, head));
		this_cpu_inc(xd->stats->recorded);
	}
	return ret;
}

/* The device's ops with our two wrappers (the device's own stay untouched). */
static struct xfl_hook *xfl_hook_new(struct xfl_dev *xd,
				     const struct net_device_ops *orig)
{
	struct xfl_hook *h = kmalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
	/* Not installed yet: the only time its ops are written. */
	struct net_device_ops *const ops = h ? (struct net_device_ops *)&h->ops : NULL;

	if (!h)
		return NULL;
	*ops = *orig;
	ops->ndo_select_queue = xfl_select_queue;
	ops->ndo_start_xmit = xfl_start_xmit;
	h->xd = xd;
	INIT_LIST_HEAD(&h->node);
	return h;
}

/* RTNL held: @xd's hook, not installed by us any more, kept till exit. */
static void xfl_hook_retire(struct xfl_dev *xd)
{
	struct xfl_hook *h;

	if (!xd->ops)
		return;
	h = container_of(xd->ops, struct xfl_hook, ops);
	WRITE_ONCE(h->xd, NULL);
	list_add(&h->node, &xfl_retired);
	xd->ops = NULL;
}

/*
 * Module exit, after every device was detached and a grace period: no
 * device points at a hook, and none has since the module was pinned last.
 */
void xfl_hooks_free(void)
{
	struct xfl_hook *h, *tmp;

	WARN_ON(xfl_pinned);
	list_for_each_entry_safe(h, tmp, &xfl_retired, node) {
		list_del(&h->node);
		kfree(h);
	}
}

/*
 * Drivers and stack code that recognise their own devices by comparing
 * dev->netdev_ops (or its ndo_start_xmit) with the address of their ops,
 * found in Linux 6.1 and 6.12 (grep 'netdev_ops [!=]= &' in drivers/net
 * and net; 6.12 added netdevsim, netkit and icssg_prueth):
 * with our hook installed they no longer recognise the device (tun's
 * TUNSETIFF refuses to attach a queue to a persistent multi-queue tap,
 * ipvlan and DSA lose their ports, ...). By module name, as the kernel
 * spells it ('-' and '_' compare equal). Documentation/xps-flow.md.
 */
static const char *const xfl_ops_comparers[] = {
	"tun", "ipvlan", "gtp", "team", "ppp_generic", "bridge", "hsr",
	"batman_adv", "openvswitch", "dsa_core", "xfrm_interface", "mpoa",
	"clip", "hv_netvsc", "ixgbe", "ice", "mlx5_core", "mlxsw_spectrum",
	"sfc", "sfc_siena", "sfc_falcon", "stmmac", "liquidio", "rocker",
	"adin1110", "mscc_ocelot", "prestera", "fsl_dpaa2_switch",
	"lan966x_switch", "sparx5_switch", "netxen_nic", "qlcnic",
	"via_velocity", "nfp", "bcmsysport", "bnxt_en", "ti_cpsw_new",
	"ti_am65_cpsw_nuss", "amd_xgbe", "ionic", "brcmfmac", "qtnfmac",
	"netdevsim", "netkit", "icssg_prueth",
};

/* The list enable checks (KUnit points it at its own). */
static const char *const *xfl_refused = xfl_ops_comparers;
static unsigned int xfl_nr_refused = ARRAY_SIZE(xfl_ops_comparers);

static bool xfl_name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

static const char *xfl_name_in(const char *name, const char *const *names,
			       unsigned int n)
{
	unsigned int i;

	for (i = 0; name && i < n; i++)
		if (xfl_name_eq(name, names[i]))
			return names[i];
	return NULL;
}

/*
 * The entry of @names that owns @dev's ops, or NULL. The owner is the
 * module that defines the ops struct dev->netdev_ops points at (kallsyms
 * names it: "tap_netdev_ops+0x0/0x2a0 [tun]"); for ops in the kernel image
 * (a built-in driver, or no kallsyms) the device's rtnl_link kind and its
 * parent's driver. Process context (a KSYM_SYMBOL_LEN buffer on the stack).
 */
noinline const char *xfl_ops_comparer(const struct net_device *dev,
				      const char *const *names, unsigned int n)
{
	const struct device *parent = dev->dev.parent;
	char sym[KSYM_SYMBOL_LEN];
	const char *hit;
	size_t len;
	char *mod;

	sprint_symbol(sym, (unsigned long)dev->netdev_ops);
	len = strlen(sym);
	mod = strrchr(sym, '[');
	if (mod && len && sym[len - 1] == ']') {
		sym[len - 1] = 0;
		hit = xfl_name_in(mod + 1, names, n);
		if (hit)
			return hit;
	}
	if (dev->rtnl_link_ops) {
		hit = xfl_name_in(dev->rtnl_link_ops->kind, names, n);
		if (hit)
			return hit;
	}
	if (parent && parent->driver)
		return xfl_name_in(parent->driver->name, names, n);
	return NULL;
}

/* RTNL held: someone else's ops are on top of ours. Said once per device. */
static void xfl_warn_foreign(struct xfl_dev *xd)
{
	if (xd->warned_foreign)
		return;
	xd->warned_foreign = true;
	netdev_warn(xd->nd.dev, "xps_flow: net_device_ops replaced by someone else (%ps) while steering: left in place, xps_flow stays pinned until the device is removed\n",
		    READ_ONCE(xd->nd.dev->netdev_ops));
}

/* Is the queue of entry @e busy (xnet_xps_busy())? RTNL held. */
static int xfl_entry_busy(struct net_device *dev, u64 e)
{
	int q = xnet_xps_queue_of(e);
	struct netdev_queue *txq;
	struct Qdisc *qd;
	int backlog;

	if (q < 0 || q >= dev->real_num_tx_queues)
		return 0;
	txq = netdev_get_tx_queue(dev, q);
	qd = rtnl_dereference(txq->qdisc);
	backlog = qd && (!qdisc_is_empty(qd) || qdisc_is_running(qd));
	return xnet_xps_busy(e, READ_ONCE(txq->dql.num_completed), backlog);
}

/*
 * Carry @old's entries into @t (xnet_xps_carry(): growing, every new slot
 * gets the entry its flows had; shrinking, the entries landing in one slot
 * are merged). @t may be live: entries are replaced by compare-and-swap,
 * so that a head the datapath records meanwhile is merged, not lost.
 * Returns the number of entries that could not be kept (two busy queues
 * in one slot). RTNL held.
 */
static unsigned int xfl_carry(struct net_device *dev, struct xfl_table *t,
			      const struct xfl_table *old)
{
	u32 i, n = max(t->mask, old->mask) + 1;
	unsigned int lost = 0;

	for (i = 0; i < n; i++) {
		u64 from = READ_ONCE(old->entries[i & old->mask]);
		u64 *slot = &t->entries[i & t->mask];
		int from_busy, conflict;
		u64 cur, want;

		if (!(i & 4095))
			cond_resched();
		if (xnet_xps_queue_of(from) < 0)
			continue;
		from_busy = xfl_entry_busy(dev, from);
		cur = READ_ONCE(*slot);
		do {
			want = xnet_xps_carry(cur, xfl_entry_busy(dev, cur), from,
					      from_busy, &conflict);
		} while (want != cur && !try_cmpxchg64(slot, &cur, want));
		lost += conflict;
	}
	return lost;
}

/* A zeroed table of @entries (a power of two, at most 2^20) on @node. */
static struct xfl_table *xfl_table_alloc(u32 entries, int node)
{
	struct xfl_table *t = kzalloc_node(sizeof(*t), GFP_KERNEL_ACCOUNT, node);

	if (!t)
		return NULL;
	/*
	 * 2^n x 8 bytes exactly. kvmalloc serves up to 4 MiB from the page
	 * allocator (no waste for a power of two) and vmallocs 8 MiB with
	 * huge pages allowed: 8 MiB plus a header was rounded up to 10.
	 */
	t->entries = kvzalloc_node(array_size(entries, sizeof(u64)),
				   GFP_KERNEL_ACCOUNT, node);
	if (!t->entries) {
		kfree(t);
		return NULL;
	}
	t->mask = entries - 1;
	return t;
}

static void xfl_table_free(struct xfl_table *t)
{
	if (t) {
		kvfree(t->entries);
		kfree(t);
	}
}

/*
 * Turn steering on with a table of @entries (a power of two), or replace
 * the table. RTNL held. The hook is installed only on the first enable;
 * it pins the module until the device's own ops are back.
 */
int xfl_enable(struct xfl_dev *xd, u32 entries)
{
	struct net_device *dev = xd->nd.dev;
	const struct net_device_ops *cur = READ_ONCE(dev->netdev_ops);
	struct xfl_hook *hook = NULL;
	struct xfl_table *t, *old;
	const char *why;

	old = rtnl_dereference(xd->table);
	if (xd->installed && cur != xd->ops) {
		/* Not ours on top any more: our wrappers may not be called. */
		xfl_warn_foreign(xd);
		return -EBUSY;
	}
	if (!xd->installed) {
		why = xfl_ops_comparer(dev, xfl_refused, xfl_nr_refused);
		if (why) {
			pr_warn_ratelimited("%s: steering refused: driver %s recognises its devices by their net_device_ops, which steering would replace\n",
					    netdev_name(dev), why);
			return -EOPNOTSUPP;
		}
		if (!try_module_get(THIS_MODULE))
			return -ENODEV;		/* being unloaded */
		/* A hook of other ops than the device's now would be wrong. */
		if (!xd->ops || xd->orig_ops != cur) {
			hook = xfl_hook_new(xd, cur);
			if (!hook) {
				module_put(THIS_MODULE);
				return -ENOMEM;
			}
		}
	}
	/* Charged to the writer's memory cgroup: up to 8 MiB per device. */
	t = xfl_table_alloc(entries, dev_to_node(&dev->dev));
	if (!t) {
		if (!xd->installed)
			module_put(THIS_MODULE);
		kfree(hook);	/* never installed: nobody saw it */
		return -ENOMEM;
	}
	if (old) {
		/*
		 * A resize keeps every hold: the entries are carried over
		 * before the new table is published, and again once no
		 * transmit writes the old one any more (heads it recorded
		 * in between); until then, flows move only off idle queues.
		 */
		xfl_carry(dev, t, old);
		t->settling = 1;
	}
	rcu_assign_pointer(xd->table, t);
	if (old) {
		unsigned int lost;

		synchronize_net();
		lost = xfl_carry(dev, t, old);
		WRITE_ONCE(t->settling, 0);
		xfl_table_free(old);	/* no reader since synchronize_net() */
		if (lost)
			netdev_info(dev, "xps_flow: resize to %u entries merged %u busy flows on other queues into one entry each\n",
				    entries, lost);
	}
	if (xd->installed)
		return 0;
	if (hook) {
		xfl_hook_retire(xd);
		xd->orig_ops = cur;
		xd->ops = &hook->ops;
	}
	xd->installed = true;
	xfl_pinned++;
	/* The hook's contents before the pointer (plain loads, dependent). */
	smp_store_release(&dev->netdev_ops, xd->ops);
	return 0;
}

/*
 * Turn steering off: the device's own ops back if ours are still on top
 * (someone else's stay, said once), then the table freed. The hook stays
 * (xfl_hook_retire()); the module pin goes with the restore. RTNL held.
 */
void xfl_disable(struct xfl_dev *xd)
{
	struct xfl_table *t = rtnl_dereference(xd->table);
	bool restored = false;

	if (xd->installed) {
		if (READ_ONCE(xd->nd.dev->netdev_ops) == xd->ops) {
			WRITE_ONCE(xd->nd.dev->netdev_ops, xd->orig_ops);
			xd->installed = false;
			restored = true;
		} else {
			xfl_warn_foreign(xd);
		}
	}
	RCU_INIT_POINTER(xd->table, NULL);
	if (!t && !restored)
		return;
	/* No wrapper reached through dev->netdev_ops runs after this. */
	synchronize_net();
	xfl_table_free(t);
	if (restored) {
		xfl_pinned--;
		module_put(THIS_MODULE);
	}
}

/*
 * The device is being detached (NETDEV_UNREGISTER: closed, no transmit
 * any more; or module exit): steering off, the pin dropped even if
 * someone else's ops are still on top of our hook (the hook stays till
 * module exit), the hook retired. RTNL held.
 */
void xfl_release(struct xfl_dev *xd)
{
	xfl_disable(xd);
	if (xd->installed) {
		xd->installed = false;
		xfl_pinned--;
		module_put(THIS_MODULE);
	}
	xfl_hook_retire(xd);
}

/*
 * Forget every flow (RTNL held, device down: no transmit runs, so the
 * entries can simply be cleared).
 */
void xfl_forget(struct xfl_dev *xd)
{
	struct xfl_table *t = rtnl_dereference(xd->table);
	u32 i;

	for (i = 0; t && i <= t->mask; i++)
		WRITE_ONCE(t->entries[i], 0);
}

u32 xfl_entries_in_use(struct xfl_dev *xd)
{
	struct xfl_table *t;
	u32 i, n = 0;

	rcu_read_lock();
	t = rcu_dereference(xd->table);
	for (i = 0; t && i <= t->mask; i++)
		n += xnet_xps_queue_of(READ_ONCE(t->entries[i])) >= 0;
	rcu_read_unlock();
	return n;
}
