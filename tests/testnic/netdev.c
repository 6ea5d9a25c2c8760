// SPDX-License-Identifier: GPL-2.0
/*
 * xnet_testnic: net_device_ops, ethtool_ops and the device setup.
 *
 * No ndo_select_queue by default: the core's netdev_pick_tx (XPS, then the
 * skb hash) chooses the TX queue. With select_queue=1 (for tests of code
 * that chains a driver's select, e.g. xps_flow's; and in UML, which has no
 * XPS) devices are created with one: it proposes the queue set in the
 * device's select_txq (debugfs), else defers to netdev_pick_tx.
 *
 * With ops_check=1 the NIC recognises its devices by their ops pointer, as
 * ixgbe (netif_is_ixgbe()), mlx5 and tun (TUNSETIFF) do: tn_is_own()
 * compares dev->netdev_ops with its two ops structs (with and without
 * ndo_select_queue). Its xmit drops a packet of a device that fails (tx.c),
 * its wire drops a packet to a peer that fails (wire.c), its notifier
 * leaves such a device's renames alone (main.c); each failure is counted
 * in the device's debugfs ops_mismatch. debugfs ops_copy puts a device on
 * a copy of its ops (the same functions, another pointer: what xps_flow
 * did until 2026-12-06) and back, so that tests can see the check fail.
 *
 * ndo_init sets up the TX queues (tx.c), the RX queues that the peer's
 * wire fills (wire.c), the flow table and the debugfs directory (debugfs.c).
 * ndo_stop disables the NAPIs,
 * cancels the timers, frees what the rings still hold (counted as
 * "purged") and resets BQL; ndo_uninit removes the debugfs directory and
 * the NAPIs.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "internal.h"

#define TN_FEATURES		(NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA)

static atomic_t tn_ids = ATOMIC_INIT(0);

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
unsigned int tn_tx_purge(struct tn_priv *priv, struct sk_buff_head *list)
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
	priv->ops_own = dev->netdev_ops;
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
	struct tn_priv *priv = netdev_priv(dev);

	if (priv->ops_copy) {	/* nobody calls the ops any more */
		dev->netdev_ops = priv->ops_own;
		kfree(priv->ops_copy);
		priv->ops_copy = NULL;
	}
	tn_free_priv(priv);
}

/*
 * KUnit only (UML has no ftrace): what runs after the device's own
 * choice, as xps_flow's hook runs after netdev_core_pick_tx()'s. NULL in
 * the module.
 */
u16 (*tn_select_then)(struct net_device *dev, struct sk_buff *skb,
		      struct net_device *sb_dev, u16 queue);

/* select_queue=1 only: the queue the test set, else the core's choice. */
static u16 tn_select(struct net_device *dev, struct sk_buff *skb,
		     struct net_device *sb_dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	int q = READ_ONCE(priv->select_txq);
	u16 queue;

	if (q >= 0 && q < dev->real_num_tx_queues)
		queue = q;
	else
		queue = netdev_pick_tx(dev, skb, sb_dev);
	if (tn_select_then)
		queue = tn_select_then(dev, skb, sb_dev, queue);
	return queue;
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
const struct net_device_ops tn_netdev_ops = {
	TN_NETDEV_OPS,
};

const struct net_device_ops tn_netdev_ops_select = {
	TN_NETDEV_OPS,
	.ndo_select_queue	= tn_select,
};

/* ops_check=1: is @dev one of ours, told by its ops pointer? */
bool tn_is_own(const struct net_device *dev)
{
	const struct net_device_ops *ops = READ_ONCE(dev->netdev_ops);

	return ops == &tn_netdev_ops || ops == &tn_netdev_ops_select;
}

/*
 * debugfs ops_copy (ops_check=1 only), RTNL held. @on: the device runs on
 * a copy of its ops, so that tn_is_own() fails for it; off: on its own
 * ops again, the copy freed a grace period later (synchronize_net(), as
 * an ops interposer restores them; the datapath's callers are RCU
 * readers). A device deleted on the copy gets its own back in
 * tn_dev_free().
 */
int tn_ops_copy(struct tn_priv *priv, bool on)
{
	struct net_device *dev = priv->dev;
	const struct net_device_ops *copy = priv->ops_copy;

	if (on == !!copy)
		return 0;
	if (on) {
		copy = kmemdup(priv->ops_own, sizeof(*copy), GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		priv->ops_copy = copy;
		WRITE_ONCE(dev->netdev_ops, copy);
		return 0;
	}
	WRITE_ONCE(dev->netdev_ops, priv->ops_own);
	synchronize_net();
	priv->ops_copy = NULL;
	kfree(copy);
	return 0;
}

static void tn_get_drvinfo(struct net_device *dev,
			   struct ethtool_drvinfo *info)
{
	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
}

static const struct ethtool_ops tn_ethtool_ops = {
	.get_drvinfo	= tn_get_drvinfo,
	.get_link	= ethtool_op_get_link,
};

void tn_setup(struct net_device *dev)
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
