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
#include <xnet/xps_abi.h>

#include "xps_flow.h"

static DEFINE_HASHTABLE(xfl_hash, 6);

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
 *    protocol (xnet_xps_key_v4/v6(): one multiplication per 32-bit word),
 *    the header read in place, and never stored in the skb (skb->hash is
 *    the stack's DoS-hardened siphash, used downstream);
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
 * single queue): nothing to record, as before.
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

/* Caller holds rcu_read_lock() (or rcu_read_lock_bh(), as dev_queue_xmit). */
struct xfl_dev *xfl_lookup(const struct net_device *dev)
{
	struct xfl_dev *xd;

	hash_for_each_possible_rcu(xfl_hash, xd, hnode, (unsigned long)dev)
		if (xd->dev == dev)
			return xd;
	return NULL;
}

/* RTNL held. */
void xfl_hash_add(struct xfl_dev *xd)
{
	hash_add_rcu(xfl_hash, &xd->hnode, (unsigned long)xd->dev);
}

/* RTNL held; the caller waits for a grace period before freeing @xd. */
void xfl_hash_del(struct xfl_dev *xd)
{
	hash_del_rcu(&xd->hnode);
}

static u16 xfl_select_queue(struct net_device *dev, struct sk_buff *skb,
			    struct net_device *sb_dev);
static netdev_tx_t xfl_start_xmit(struct sk_buff *skb, struct net_device *dev);

/*
 * What dev->netdev_ops points at while steering is on: a copy of the
 * device's own ops with the two wrappers, next to the device's state, so
 * that a wrapper reaches its xfl_dev with container_of() instead of a
 * lookup. Freed only after synchronize_net() following the restore.
 */
struct xfl_hook {
	const struct net_device_ops ops;	/* written once, before it is installed */
	struct xfl_dev *xd;
};

/*
 * The state of the device a wrapper runs for. Caller: an RCU reader.
 *
 * Fast path: dev->netdev_ops still is our hook (only our hooks have
 * ndo_start_xmit == xfl_start_xmit: xps_flow copies the device's own ops,
 * and another module interposing on top of it is not supported, see
 * Documentation/xps-flow.md). The hook the caller called us through lives
 * until the caller's read-side section ends, and so does the one we read
 * here. A wrapper that was called through the hook just before
 * xfl_disable() put the device's own ops back finds those instead: then
 * the RCU hash table, where the xfl_dev stays until a grace period after
 * its detach. NULL only for a caller that is no RCU reader (see
 * xfl_select_queue()) and ran across a whole detach.
 */
static struct xfl_dev *xfl_of(const struct net_device *dev)
{
	const struct net_device_ops *ops = READ_ONCE(dev->netdev_ops);

	if (likely(ops->ndo_start_xmit == xfl_start_xmit))
		return container_of(ops, struct xfl_hook, ops)->xd;
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
 * The flow in @slot (entry @entry) is on queue @oq and XPS proposes another:
 * may it move? Out of line: the rare case. Caller: an RCU reader.
 */
static noinline u16 xfl_steer_move(struct xfl_dev *xd, struct net_device *dev,
				   u64 *slot, u64 entry, u16 proposed)
{
	unsigned int completed = 0;
	int verdict, oq, backlog = 0;
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
		backlog = q && (!qdisc_is_empty(q) || qdisc_is_running(q));
		smp_rmb();	/* the run's end before the entry's re-read */
		if (READ_ONCE(*slot) != entry)
			backlog = 1;
		completed = READ_ONCE(txq->dql.num_completed);
	}
	verdict = xnet_xps_decide(entry, proposed, dev->real_num_tx_queues,
				  completed, backlog, &queue);
	if (verdict == XNET_XPS_HOLD)
		this_cpu_inc(xd->stats->held);
	else if (verdict == XNET_XPS_MOVE)
		this_cpu_inc(xd->stats->moves);
	else if (verdict == XNET_XPS_STALE)
		this_cpu_inc(xd->stats->stale);
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

	if (unlikely(!xd)) {
		const struct net_device_ops *ops = READ_ONCE(dev->netdev_ops);

		return xfl_propose(ops->ndo_select_queue == xfl_select_queue ?
				   NULL : ops, dev, skb, sb_dev);
	}
	proposed = xfl_propose(xd->orig_ops, dev, skb, sb_dev);
	t = rcu_dereference_check(xd->table, rcu_read_lock_bh_held());
	if (unlikely(!t))
		return proposed;
	slot = &t->entries[xfl_select_key(skb) & t->mask];
	entry = READ_ONCE(*slot);
	this_cpu_inc(xd->stats->lookups);
	/* No entry, or the flow's queue is the proposed one. */
	if (likely(xnet_xps_decide_fast(entry, proposed) >= 0))
		return proposed;
	return xfl_steer_move(xd, dev, slot, entry, proposed);
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

	key = xfl_xmit_key(skb);
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
		WRITE_ONCE(t->entries[(u32)key & t->mask],
			   xnet_xps_pack(queue, head));
		this_cpu_inc(xd->stats->recorded);
	}
	return ret;
}

static void xfl_table_free_rcu(struct rcu_head *head)
{
	kvfree(container_of(head, struct xfl_table, rcu));
}

/* The device's ops with our two wrappers (the device's own stay untouched). */
static struct xfl_hook *xfl_hook_new(struct xfl_dev *xd,
				     const struct net_device_ops *orig)
{
	struct xfl_hook *h = kmalloc(sizeof(*h), GFP_KERNEL);
	/* Not installed yet: the only time its ops are written. */
	struct net_device_ops *const ops = h ? (struct net_device_ops *)&h->ops : NULL;

	if (!h)
		return NULL;
	*ops = *orig;
	ops->ndo_select_queue = xfl_select_queue;
	ops->ndo_start_xmit = xfl_start_xmit;
	h->xd = xd;
	return h;
}

/*
 * Turn steering on with a table of @entries (a power of two), or replace
 * the table. RTNL held. The ops are swapped in only on the first enable.
 */
int xfl_enable(struct xfl_dev *xd, u32 entries)
{
	struct net_device *dev = xd->dev;
	struct xfl_hook *hook = NULL;
	struct xfl_table *t, *old;

	old = rtnl_dereference(xd->table);
	if (!old) {
		hook = xfl_hook_new(xd, dev->netdev_ops);
		if (!hook)
			return -ENOMEM;
	}
	t = kvzalloc_node(struct_size(t, entries, entries), GFP_KERNEL,
			  dev_to_node(&dev->dev));
	if (!t) {
		kfree(hook);
		return -ENOMEM;
	}
	t->mask = entries - 1;
	rcu_assign_pointer(xd->table, t);
	if (old) {
		call_rcu(&old->rcu, xfl_table_free_rcu);
		return 0;
	}
	xd->orig_ops = dev->netdev_ops;
	xd->ops = &hook->ops;
	/* The hook's contents before the pointer (plain loads, dependent). */
	smp_store_release(&dev->netdev_ops, xd->ops);
	return 0;
}

/* Turn steering off: the device's own ops back, then the table freed. */
void xfl_disable(struct xfl_dev *xd)
{
	struct xfl_table *t = rtnl_dereference(xd->table);

	if (!t)
		return;
	WRITE_ONCE(xd->dev->netdev_ops, xd->orig_ops);
	RCU_INIT_POINTER(xd->table, NULL);
	/* No wrapper runs after this, and no reader holds the table. */
	synchronize_net();
	kvfree(t);
	kfree(container_of(xd->ops, struct xfl_hook, ops));
	xd->ops = NULL;
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
