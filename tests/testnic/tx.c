// SPDX-License-Identifier: GPL-2.0
/*
 * xnet_testnic TX: the rings, BQL and completion.
 *
 * ndo_start_xmit puts the skb on the queue's ring (FIFO, at most "depth"
 * packets; a full ring stops the queue, a packet offered to a full ring is
 * returned NETDEV_TX_BUSY and counted, nothing is dropped) and reports
 * skb->len to BQL (netdev_tx_sent_queue). With ops_check=1, a device whose
 * ops pointer is not ours has its packets dropped (tx_dropped) and counted
 * (ops_mismatch).
 *
 * Completion: each TX queue has a TX NAPI context, like a real NIC's TX
 * completion. It completes, in ring order, every packet whose delay has
 * passed, passes them over the wire (wire.c), and reports them to BQL in
 * one netdev_tx_completed_queue() per poll, waking the queue when the ring
 * has room again. With delay 0 the NAPI is scheduled from the xmit (it runs
 * when the sender re-enables BH); otherwise a per-queue hrtimer (hard irq,
 * it only schedules the NAPI: the "completion interrupt") fires when the
 * ring head is due. Why NAPI: dql_completed() must not run concurrently
 * for one queue and NAPI serialises each queue's completions; it runs in
 * softirq with the budget rules of real drivers; and napi_disable() gives
 * ndo_stop a point after which no completion runs, so the rings can be
 * purged and BQL reset. Completed skbs are orphaned (the socket's memory is
 * released as on TX completion of a real NIC).
 *
 * TX quiesce (for pp_frag's DMA opt-out, dma.c): no xmit, rings drained.
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "internal.h"

#define TN_QUIESCE_MS		(TN_DELAY_MAX_US / 1000 + 1000)

/* Ring lock held; @due is the ring head's due time. */
static void tn_tx_kick(struct tn_txq *q, u64 due)
{
	if (due <= ktime_get_ns())
		napi_schedule(&q->napi);
	else
		hrtimer_start(&q->timer, ns_to_ktime(due), HRTIMER_MODE_ABS);
}

enum hrtimer_restart tn_tx_timer(struct hrtimer *timer)
{
	struct tn_txq *q = container_of(timer, struct tn_txq, timer);

	napi_schedule(&q->napi);
	return HRTIMER_NORESTART;
}

netdev_tx_t tn_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	u16 qi = skb_get_queue_mapping(skb);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, qi);
	struct tn_txq *q = &priv->txq[qi];
	unsigned int len = skb->len, depth = READ_ONCE(q->depth);
	unsigned int qlen;
	bool was_empty;
	u64 due;

	if (unlikely(!tn_ops_ok(priv))) {
		/* ops_check: the device is not recognised as ours by its ops
		 * pointer (counted): dropped before BQL hears of it.
		 */
		dev_core_stats_tx_dropped_inc(dev);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
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

int tn_tx_poll(struct napi_struct *napi, int budget)
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

/* ---- quiesce (for the DMA opt-out) ------------------------------------- */

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

void tn_tx_set_quiesced(struct tn_priv *priv, bool on)
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
int tn_tx_quiesce(struct tn_priv *priv)
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
