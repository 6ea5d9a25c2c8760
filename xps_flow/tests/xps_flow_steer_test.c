// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xps_flow_steer: xps_flow's datapath on a real test NIC
 * (tests/testnic/: a peer pair with two TX queues, real BQL and a per-queue
 * completion delay), with real skbs through dev_queue_xmit().
 *
 * One flow (test-header frames, xnet_testnic.h) is sent on tx-0, which
 * completes late; then its proposed queue changes to tx-1. With the table
 * on, the flow must stay on tx-0 (the NIC's per-queue counters and qdisc
 * lengths show where each packet went) until tx-0's qdisc is empty and its
 * BQL completion counter has reached the flow's head, and move with the
 * first packet after that; the wire sees every packet, in order. With the
 * table off the same sequence reorders. Also: resize, disable and module
 * unload with packets in flight, device unregister while enabled.
 *
 * Where the proposal comes from:
 * - UML is uniprocessor (no SMP, hence no CONFIG_XPS, no sender_cpu) and
 *   has no ftrace, so xps_flow's handler on netdev_core_pick_tx() cannot
 *   run: the test NIC is created with its optional ndo_select_queue
 *   (select_queue), which proposes the queue the test writes to
 *   select_txq and then calls tn_select_then(), which this suite points
 *   at xfl_steer(): what xfl_core_pick_tx() does after the device's own
 *   choice. The transmit probes are the real tracepoints. The handler
 *   itself is tested in the guests (tests/vm/4*-xps-flow-*.sh).
 * - With CONFIG_XPS and ftrace (scripts/kunit.sh --arch x86_64: QEMU with
 *   2 CPUs) the *_xps cases use a NIC without a select, an XPS map CPU0 ->
 *   tx-0, CPU1 -> tx-1, and send from a kthread bound to CPU 0, then CPU
 *   1: the sending CPU really changes, netdev_pick_tx() proposes and the
 *   real handler steers. These cases are compiled only there.
 *
 * Completions are driven by the test: tx-0's delay is 10 s, and release()
 * makes chosen packets at the head of its ring due now, so "before" and
 * "after" tx-0's completions pass the flow's head are exact states, not
 * timing.
 *
 * The NIC's files and xps_flow's are objects of their own in the KUnit
 * kernel (kunit/Kbuild: every .c of tests/testnic/ and xps_flow/ but the
 * two module.c); the cases reach them through their headers (internal.h,
 * xps_flow.h), reading the NIC's rings and counters and xps_flow's table
 * and stats, and call tn_start()/tn_create() and xfl_start()/xfl_stop(),
 * the bodies of the module inits and exits. One seam, injected claim
 * losses, is force-included into datapath.c there only
 * (xps_flow_steer_seams.h).
 */
#include "../../tests/testnic/internal.h"
#include "../../tests/testnic/xnet_testnic.h"
#include "../decide.h"
#include "../key.h"
#include "../xps_flow.h"
#include "xps_flow_steer_seams.h"

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <net/sch_generic.h>

/* The seam's state (xps_flow_steer_seams.h). */
int xfl_test_race_left;
u64 xfl_test_race_entry;

#define SLOW_US		TN_DELAY_MAX_US	/* tx-0: nothing completes by itself */
#define BURST		8
#define FLOW_ID		7
#define FLOW_HASH	0x5bd1e995u
#define SETTLE_MS	5000

enum propose {
	PROPOSE_SELECT,		/* the test NIC's ndo_select_queue */
	PROPOSE_XPS,		/* XPS map, sender bound to a CPU */
};

/* What the flow's packets are. */
enum pkt_kind {
	PKT_SEQ,	/* test-header frames with an L4 hash (as from RSS) */
	PKT_UDP4,	/* IPv4 UDP, no hash: the tuple key */
	PKT_UDP6,	/* IPv6 UDP, no hash: the tuple key */
};

struct steer_test {
	struct net_device *dev, *peer;	/* NULL once deleted */
	struct tn_priv *priv;
	enum propose how;
	enum pkt_kind kind;
	bool xfl;			/* xfl_start() done, no xfl_stop() yet */
	u32 seq;			/* next sequence number of the flow */
	u32 key;			/* the flow's key (its entry's index) */
	unsigned int len;		/* bytes per packet (BQL counts them) */
};

/* ---- the NIC ------------------------------------------------------------ */

struct txq_snap {
	unsigned int ring;		/* packets on the driver's ring */
	unsigned int qdisc;		/* packets in the queue's qdisc */
	u64 sent, done;			/* handed to / completed by the driver */
	u32 queued, completed;		/* BQL: dql.num_queued, num_completed */
};

static unsigned int qdisc_len(struct net_device *dev, unsigned int qi)
{
	struct netdev_queue *txq = netdev_get_tx_queue(dev, qi);
	struct Qdisc *q;
	unsigned int n;

	rcu_read_lock_bh();
	q = rcu_dereference_bh(txq->qdisc);
	n = q ? qdisc_qlen_sum(q) : 0;
	rcu_read_unlock_bh();
	return n;
}

static struct txq_snap txq_snap(struct steer_test *t, unsigned int qi)
{
	struct netdev_queue *txq = netdev_get_tx_queue(t->dev, qi);
	struct tn_txq *q = &t->priv->txq[qi];
	struct txq_snap s;

	spin_lock_bh(&q->lock);
	s.ring = skb_queue_len(&q->ring);
	s.sent = q->st.sent_pkts;
	s.done = q->st.done_pkts;
	spin_unlock_bh(&q->lock);
	s.qdisc = qdisc_len(t->dev, qi);
	s.queued = READ_ONCE(txq->dql.num_queued);
	s.completed = READ_ONCE(txq->dql.num_completed);
	return s;
}

static struct tn_wire wire_snap(struct steer_test *t)
{
	struct tn_wire w;

	spin_lock_bh(&t->priv->wire_lock);
	w = t->priv->w;
	spin_unlock_bh(&t->priv->wire_lock);
	return w;
}

static u64 peer_rx_pkts(struct steer_test *t)
{
	struct tn_rxq *rq = &((struct tn_priv *)netdev_priv(t->peer))->rxq[0];
	u64 n;

	spin_lock_bh(&rq->lock);
	n = rq->st.pkts;
	spin_unlock_bh(&rq->lock);
	return n;
}

/* Make the first @n packets on tx-@qi's ring due now; how many there were. */
static unsigned int release(struct steer_test *t, unsigned int qi,
			    unsigned int n)
{
	struct tn_txq *q = &t->priv->txq[qi];
	struct sk_buff *skb;
	unsigned int i = 0;

	spin_lock_bh(&q->lock);
	skb_queue_walk(&q->ring, skb) {
		if (i == n)
			break;
		TN_CB(skb)->due = 0;
		i++;
	}
	spin_unlock_bh(&q->lock);
	/* As the completion interrupt would (its hrtimer is 10 s away). */
	local_bh_disable();
	napi_schedule(&q->napi);
	local_bh_enable();
	return i;
}

/*
 * Nothing left to happen on tx-@qi by itself: no due packet on the ring, no
 * completion scheduled, and a qdisc that is empty or cannot send (BQL or
 * the driver stopped the queue) and is not being run.
 */
static bool txq_settled(struct steer_test *t, unsigned int qi)
{
	struct netdev_queue *txq = netdev_get_tx_queue(t->dev, qi);
	struct tn_txq *q = &t->priv->txq[qi];
	bool due, busy;
	struct sk_buff *skb;
	struct Qdisc *qd;

	if (test_bit(NAPI_STATE_SCHED, &q->napi.state))
		return false;
	spin_lock_bh(&q->lock);
	skb = skb_peek(&q->ring);
	due = skb && TN_CB(skb)->due <= ktime_get_ns();
	spin_unlock_bh(&q->lock);
	rcu_read_lock_bh();
	qd = rcu_dereference_bh(txq->qdisc);
	busy = qd && (qdisc_is_running(qd) ||
		      (qdisc_qlen_sum(qd) && !netif_xmit_frozen_or_stopped(txq)));
	rcu_read_unlock_bh();
	return !due && !busy;
}

static bool rx_settled(struct steer_test *t)
{
	struct tn_rxq *rq = &((struct tn_priv *)netdev_priv(t->peer))->rxq[0];
	bool empty;

	spin_lock_bh(&rq->lock);
	empty = skb_queue_empty(&rq->list);
	spin_unlock_bh(&rq->lock);
	return empty && !test_bit(NAPI_STATE_SCHED, &rq->napi.state);
}

/* Wait (bounded) until both TX queues and the peer's RX are settled. */
static void settle(struct kunit *test)
{
	struct steer_test *t = test->priv;
	unsigned long end = jiffies + msecs_to_jiffies(SETTLE_MS);
	int stable = 0;

	/* Twice in a row: a completion may wake a qdisc in between. */
	while (stable < 2) {
		if (txq_settled(t, 0) && txq_settled(t, 1) && rx_settled(t))
			stable++;
		else
			stable = 0;
		KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, end),
				      "the NIC is still busy after %d ms",
				      SETTLE_MS);
		usleep_range(500, 1000);
	}
}

/* Complete everything tx-@qi holds, ring and qdisc. */
static void drain(struct kunit *test, unsigned int qi)
{
	struct steer_test *t = test->priv;
	struct txq_snap s;
	int i;

	for (i = 0; i < 256; i++) {
		settle(test);
		s = txq_snap(t, qi);
		if (!s.ring && !s.qdisc)
			return;
		release(t, qi, UINT_MAX);
	}
	KUNIT_FAIL(test, "tx-%u still holds packets", qi);
}

/* ---- the sender --------------------------------------------------------- */

/*
 * A packet of a flow: Ethernet, then for IPv4/IPv6 a UDP or TCP header from
 * @sport to @dport (or no L4 header for other protocols), then a test
 * header (flow @flow, sequence @seq), padded to ETH_ZLEN. Network header
 * set, no hash. @frag: IPv4 fragment offset field (IP_MF, offset), or for
 * IPv6 a fragment header in front of the L4 header when non-zero.
 */
struct pkt_spec {
	__be16 proto;		/* ETH_P_IP, ETH_P_IPV6 or another EtherType */
	u8 l4;			/* IPPROTO_* */
	u16 sport, dport;
	u16 frag;
	u8 saddr_last;		/* last byte of the source address */
	u8 ttl;			/* hop limit (not part of the flow) */
	u32 flow, seq;
};

static struct sk_buff *build_pkt(struct net_device *dev, const u8 *dst,
				 const struct pkt_spec *p)
{
	unsigned int l4len = p->l4 == IPPROTO_TCP ? sizeof(struct tcphdr) :
			     p->l4 == IPPROTO_UDP ? sizeof(struct udphdr) : 0;
	struct xnet_tn_seqhdr *h;
	struct sk_buff *skb;
	struct ethhdr *eth;
	unsigned int nh, l4off;

	skb = alloc_skb(LL_RESERVED_SPACE(dev) + 256, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	skb_reset_mac_header(skb);
	eth = skb_put(skb, ETH_HLEN);
	ether_addr_copy(eth->h_dest, dst);
	ether_addr_copy(eth->h_source, dev->dev_addr);
	eth->h_proto = p->proto;
	skb_set_network_header(skb, ETH_HLEN);
	nh = skb->len;
	if (p->proto == htons(ETH_P_IP)) {
		struct iphdr *iph = skb_put_zero(skb, sizeof(*iph));

		iph->version = 4;
		iph->ihl = 5;
		iph->ttl = p->ttl;
		iph->id = htons(p->seq);
		iph->frag_off = htons(p->frag);
		iph->protocol = p->l4;
		iph->saddr = htonl(0x0a630000 | p->saddr_last);
		iph->daddr = htonl(0x0a630002);
	} else if (p->proto == htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = skb_put_zero(skb, sizeof(*ip6));

		ip6->version = 6;
		ip6->hop_limit = p->ttl;
		ip6->nexthdr = p->l4;
		ip6->saddr.s6_addr[0] = 0xfd;
		ip6->saddr.s6_addr[15] = p->saddr_last;
		ip6->daddr.s6_addr[0] = 0xfd;
		ip6->daddr.s6_addr[15] = 2;
		if (p->frag) {
			struct frag_hdr *fh = skb_put_zero(skb, sizeof(*fh));

			ip6->nexthdr = NEXTHDR_FRAGMENT;
			fh->nexthdr = p->l4;
			fh->frag_off = htons(p->frag);
			fh->identification = htonl(p->seq);
		}
	}
	l4off = skb->len;
	if (p->proto == htons(ETH_P_IP) || p->proto == htons(ETH_P_IPV6)) {
		__be16 *ports = skb_put_zero(skb, l4len);

		if (l4len) {
			ports[0] = htons(p->sport);
			ports[1] = htons(p->dport);
		}
		if (p->l4 == IPPROTO_TCP)
			((struct tcphdr *)ports)->doff = sizeof(struct tcphdr) / 4;
	}
	h = skb_put(skb, sizeof(*h));
	memcpy(h->magic, XNET_TN_SEQ_MAGIC, XNET_TN_SEQ_MAGIC_LEN);
	h->flow = cpu_to_be32(p->flow);
	h->seq = cpu_to_be32(p->seq);
	if (skb->len < ETH_ZLEN)
		skb_put_zero(skb, ETH_ZLEN - skb->len);
	if (p->l4 == IPPROTO_UDP && l4len && l4off > nh)
		((struct udphdr *)(skb->data + l4off))->len =
			htons(skb->len - l4off);
	if (p->proto == htons(ETH_P_IP))
		((struct iphdr *)(skb->data + nh))->tot_len = htons(skb->len - nh);
	else if (p->proto == htons(ETH_P_IPV6))
		((struct ipv6hdr *)(skb->data + nh))->payload_len =
			htons(skb->len - nh - sizeof(struct ipv6hdr));
	skb->dev = dev;
	skb->protocol = p->proto;
	return skb;
}

/* One packet of the flow, the next seq, to the peer. */
static int xmit_one(struct steer_test *t)
{
	struct pkt_spec p = {
		.l4 = IPPROTO_UDP, .sport = 4000, .dport = 9999,
		.saddr_last = 1, .ttl = 64, .flow = FLOW_ID, .seq = t->seq,
	};
	struct sk_buff *skb;

	switch (t->kind) {
	case PKT_SEQ:
		p.proto = htons(XNET_TN_ETH_P_SEQ);
		break;
	case PKT_UDP4:
		p.proto = htons(ETH_P_IP);
		break;
	case PKT_UDP6:
		p.proto = htons(ETH_P_IPV6);
		break;
	}
	skb = build_pkt(t->dev, t->peer->dev_addr, &p);
	if (!skb)
		return -ENOMEM;
	t->seq++;
	t->len = skb->len;
	if (t->kind == PKT_SEQ) {
		/* What the flow table is indexed by (as a NIC's RSS hash would be). */
		skb_set_hash(skb, FLOW_HASH, PKT_HASH_TYPE_L4);
		t->key = FLOW_HASH;
	} else {
		t->key = xfl_select_key(skb);	/* the tuple: the skb keeps no hash */
		if (skb->sw_hash || skb->l4_hash) {
			kfree_skb(skb);
			return -EINVAL;
		}
	}
	return dev_queue_xmit(skb);
}

static int xmit_n(struct steer_test *t, unsigned int n)
{
	int ret = 0;

	while (n-- && !ret)
		ret = xmit_one(t);
	return ret;
}

struct sender {
	struct steer_test *t;
	unsigned int n, cpu;
	int ret;
	bool wrong_cpu;
	struct completion done;
};

static int sender_fn(void *arg)
{
	struct sender *s = arg;

	s->wrong_cpu = raw_smp_processor_id() != s->cpu;
	s->ret = xmit_n(s->t, s->n);
	complete(&s->done);
	return 0;
}

/*
 * Send @n packets with tx-@queue proposed: through the NIC's select, or
 * from a kthread bound to CPU @queue (XPS maps CPU N to tx-N).
 */
static void send(struct kunit *test, unsigned int queue, unsigned int n)
{
	struct steer_test *t = test->priv;
	struct task_struct *task;
	struct sender s = {
		.t = t, .n = n, .cpu = queue,
	};

	if (t->how == PROPOSE_SELECT) {
		WRITE_ONCE(t->priv->select_txq, queue);
		KUNIT_ASSERT_EQ(test, xmit_n(t, n), NET_XMIT_SUCCESS);
		return;
	}
	init_completion(&s.done);
	task = kthread_create(sender_fn, &s, "xfl_send/%u", queue);
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, queue);
	wake_up_process(task);
	/* The kthread exits by itself right after complete(). */
	wait_for_completion(&s.done);
	KUNIT_ASSERT_FALSE(test, s.wrong_cpu);
	KUNIT_ASSERT_EQ(test, s.ret, NET_XMIT_SUCCESS);
}

/* ---- xps_flow ----------------------------------------------------------- */

/* RTNL held. */
static struct xfl_dev *xfl_find(struct net_device *dev)
{
	struct xnet_ndev *nd = xnet_ndev_find(&xfl_devs, dev);

	return nd ? container_of(nd, struct xfl_dev, nd) : NULL;
}

static struct xfl_dev *xd_of(struct net_device *dev)
{
	struct xfl_dev *xd;

	rtnl_lock();
	xd = xfl_find(dev);
	rtnl_unlock();
	return xd;
}

static unsigned int nr_attached(void)
{
	struct xnet_ndev *nd;
	unsigned int n = 0;

	rtnl_lock();
	hlist_for_each_entry(nd, &xfl_devs.list, node)
		n++;
	rtnl_unlock();
	return n;
}

/* What a write of @entries to xps_dev_flow_table_cnt does (0: off). */
static int table(struct steer_test *t, u32 entries)
{
	struct xfl_dev *xd;
	int err = 0;

	rtnl_lock();
	xd = xfl_find(t->dev);
	if (!xd)
		err = -ENODEV;
	else if (entries)
		err = xfl_enable(xd, entries);
	else
		xfl_disable(xd);
	rtnl_unlock();
	return err;
}

static u32 table_size(struct steer_test *t)
{
	struct xfl_dev *xd = xd_of(t->dev);
	struct xfl_table *tb;
	u32 n = 0;

	rcu_read_lock();
	tb = xd ? rcu_dereference(xd->table) : NULL;
	if (tb)
		n = tb->mask + 1;
	rcu_read_unlock();
	return n;
}

/* The flow's entry (0 when the table is off). */
static u64 flow_entry(struct steer_test *t)
{
	struct xfl_dev *xd = xd_of(t->dev);
	struct xfl_table *tb;
	u64 e = 0;

	rcu_read_lock();
	tb = xd ? rcu_dereference(xd->table) : NULL;
	if (tb)
		e = READ_ONCE(tb->entries[t->key & tb->mask]);
	rcu_read_unlock();
	return e;
}

/* The flow's entry without a timed hold's stamp (queue and head). */
static u64 flow_base(struct steer_test *t)
{
	return flow_entry(t) & ~XNET_XPS_HOLD_BITS;
}

/* The entry the flow's own packets write (its tag). */
static u64 flow_pack(struct steer_test *t, u16 queue, u32 head)
{
	return xnet_xps_pack(queue, xnet_xps_tag(t->key), head);
}

static struct xfl_stats stats(struct steer_test *t)
{
	struct xfl_dev *xd = xd_of(t->dev);
	struct xfl_stats sum = {};

	if (xd)
		xfl_stats_sum(xd, &sum);
	return sum;
}

/* Devices with a table: the hooks are registered while it is not 0. */
static unsigned int nr_steered(void)
{
	unsigned int n;

	rtnl_lock();
	n = xfl_nr_steered;
	rtnl_unlock();
	return n;
}

/* UML: xfl_core_pick_tx()'s part after the device's choice (see above). */
static u16 steer_after_select(struct net_device *dev, struct sk_buff *skb,
			      struct net_device *sb_dev, u16 queue)
{
	struct xfl_dev *xd = xfl_steered_find(dev);

	return xd ? xfl_steer(xd, dev, skb, sb_dev, queue) : queue;
}

/* ---- setup -------------------------------------------------------------- */

/*
 * RTNL held, @dev down: no IPv6 on it (no router solicitations, MLD or DAD
 * packets on the wire: every packet there is the test's).
 */
static void no_ipv6(struct net_device *dev)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct inet6_dev *idev = __in6_dev_get(dev);

	if (idev)
		idev->cnf.disable_ipv6 = 1;
#endif
}

/* A pair tn<a> -> tn<b>, both up, xps_flow attached; tx-0 slow. */
static void setup(struct kunit *test, enum propose how)
{
	struct steer_test *t = test->priv;
	struct net_device *dev;
	unsigned long end;
	struct Qdisc *q;
	int err;

	t->how = how;
	tn_txqs = 2;
	tn_rxqs = 1;
	tn_delay_us = 0;
	tn_depth = 1024;
	tn_select_queue = how == PROPOSE_SELECT;
	rtnl_lock();
	dev = tn_create(true);
	if (IS_ERR(dev)) {
		rtnl_unlock();
		KUNIT_FAIL_AND_ABORT(test, "tn_create: %ld", PTR_ERR(dev));
	}
	t->dev = dev;
	t->priv = netdev_priv(dev);
	t->peer = rtnl_dereference(t->priv->peer);
	no_ipv6(dev);
	no_ipv6(t->peer);
	err = dev_open(dev, NULL) ?: dev_open(t->peer, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, dev->real_num_tx_queues, 2U);
	/* Hot-added: xps_flow attached it from its notifier. */
	KUNIT_ASSERT_NOT_NULL(test, xd_of(dev));
	KUNIT_ASSERT_PTR_EQ(test, dev->netdev_ops,
			    how == PROPOSE_SELECT ? &tn_netdev_ops_select :
						    &tn_netdev_ops);
	/*
	 * The qdiscs go live with the carrier, from linkwatch (up to a
	 * second later): wait for them.
	 */
	end = jiffies + 5 * HZ;
	while (qdisc_tx_changing(dev) || qdisc_tx_changing(t->peer)) {
		KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, end),
				      "qdiscs not active after 5 s");
		msleep(20);
	}
	/* A FIFO per queue that drops nothing. */
	rcu_read_lock_bh();
	q = rcu_dereference_bh(netdev_get_tx_queue(dev, 0)->qdisc);
	KUNIT_EXPECT_STREQ(test, q->ops->id, "pfifo_fast");
	rcu_read_unlock_bh();
	WRITE_ONCE(t->priv->txq[0].delay_us, SLOW_US);
}

static void delete_pair(struct steer_test *t)
{
	LIST_HEAD(list);

	if (!t->dev)
		return;
	rtnl_lock();
	tn_dellink(t->dev, &list);
	unregister_netdevice_many(&list);
	rtnl_unlock();
	t->dev = NULL;
	t->peer = NULL;
	t->priv = NULL;
}

/* ---- scenarios ---------------------------------------------------------- */

/* The flow is on tx-0 (A), then tx-1 is proposed (B): checked after B. */
static void start_flow(struct kunit *test, bool table_on)
{
	struct steer_test *t = test->priv;
	struct txq_snap s0, s1;
	struct xfl_stats st;

	if (table_on)
		KUNIT_ASSERT_EQ(test, table(t, 8), 0);
	send(test, 0, BURST);				/* A */
	settle(test);
	s0 = txq_snap(t, 0);
	s1 = txq_snap(t, 1);
	KUNIT_ASSERT_EQ(test, s0.ring + s0.qdisc, BURST);
	/* BQL lets little onto the ring; the rest waits in the qdisc. */
	KUNIT_EXPECT_GE(test, s0.ring, 1U);
	KUNIT_EXPECT_GE(test, s0.qdisc, 1U);
	KUNIT_ASSERT_EQ(test, s1.sent + s1.qdisc, 0ULL);
	if (table_on) {
		st = stats(t);
		KUNIT_EXPECT_EQ(test, st.lookups, (u64)BURST);
		KUNIT_EXPECT_EQ(test, st.held, 0ULL);
		KUNIT_EXPECT_EQ(test, st.moves, 0ULL);
		/* head: tx-0's enqueue counter after the flow's last xmit. */
		KUNIT_EXPECT_EQ(test, flow_base(t), flow_pack(t, 0, s0.queued));
	}

	send(test, 1, BURST);				/* B: tx-1 proposed */
	settle(test);
}

/*
 * Freeze tx-@qi (@on) as netif_tx_lock() does while a driver reconfigures:
 * the qdisc keeps its packets (a dequeued one is requeued) until thawed.
 */
static void freeze(struct steer_test *t, unsigned int qi, bool on)
{
	struct netdev_queue *txq = netdev_get_tx_queue(t->dev, qi);

	local_bh_disable();
	__netif_tx_lock(txq, smp_processor_id());
	if (on)
		set_bit(__QUEUE_STATE_FROZEN, &txq->state);
	else
		clear_bit(__QUEUE_STATE_FROZEN, &txq->state);
	__netif_tx_unlock(txq);
	if (!on)
		netif_schedule_queue(txq);
	local_bh_enable();
}

/* One packet with tx-1 proposed must stay on tx-0. */
static void expect_held(struct kunit *test, u64 held)
{
	struct steer_test *t = test->priv;
	struct txq_snap s1;
	struct xfl_stats st;

	send(test, 1, 1);
	settle(test);
	st = stats(t);
	KUNIT_EXPECT_EQ(test, st.held, held);
	KUNIT_EXPECT_EQ(test, st.moves, 0ULL);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent + s1.qdisc, 0ULL);
}

/* Table on: held on tx-0 until its completions pass the head, then moves. */
static void hold_then_move(struct kunit *test)
{
	struct steer_test *t = test->priv;
	unsigned int i, total;
	struct txq_snap s0, s1;
	struct xfl_stats st;
	struct tn_wire w;
	u64 held = BURST;

	start_flow(test, true);
	s0 = txq_snap(t, 0);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s0.ring + s0.qdisc, 2U * BURST);
	KUNIT_EXPECT_EQ(test, s1.sent + s1.qdisc, 0ULL);
	KUNIT_EXPECT_EQ(test, stats(t).held, held);
	KUNIT_EXPECT_EQ(test, stats(t).moves, 0ULL);
	KUNIT_EXPECT_EQ(test, wire_snap(t).packets, 0ULL);

	/*
	 * BQL has completed the flow's head, but the qdisc still holds its
	 * packets (the qdisc objection): the flow stays.
	 */
	freeze(t, 0, true);
	release(t, 0, UINT_MAX);
	settle(test);
	s0 = txq_snap(t, 0);
	KUNIT_EXPECT_EQ(test, s0.ring, 0U);
	KUNIT_EXPECT_GE(test, s0.qdisc, 1U);
	KUNIT_EXPECT_EQ(test, s0.completed, s0.queued);
	KUNIT_EXPECT_EQ(test, flow_base(t), flow_pack(t, 0, s0.queued));
	expect_held(test, ++held);
	freeze(t, 0, false);

	/* Drain the qdisc onto the ring, one BQL window at a time. */
	for (i = 0; txq_snap(t, 0).qdisc && i < 64; i++) {
		release(t, 0, UINT_MAX);
		settle(test);
	}
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, s0.qdisc, 0U);
	KUNIT_ASSERT_GE(test, s0.ring, 1U);

	/* Qdisc empty, all but the ring's last packet completed: held. */
	release(t, 0, s0.ring - 1);
	settle(test);
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, s0.ring, 1U);
	KUNIT_EXPECT_EQ(test, flow_base(t), flow_pack(t, 0, s0.queued));
	KUNIT_EXPECT_EQ(test, s0.queued - s0.completed, t->len);
	expect_held(test, ++held);
	s0 = txq_snap(t, 0);
	KUNIT_EXPECT_EQ(test, s0.ring + s0.qdisc, 2U);

	/* Everything completed: the next packet moves, and the flow stays. */
	drain(test, 0);
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, s0.completed, s0.queued);
	KUNIT_EXPECT_EQ(test, flow_base(t), flow_pack(t, 0, s0.queued));
	send(test, 1, 1);
	settle(test);
	st = stats(t);
	KUNIT_EXPECT_EQ(test, st.moves, 1ULL);
	KUNIT_EXPECT_EQ(test, st.held, held);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent, 1ULL);
	KUNIT_EXPECT_EQ(test, flow_base(t), flow_pack(t, 1, s1.queued));
	send(test, 1, BURST);
	settle(test);
	st = stats(t);
	KUNIT_EXPECT_EQ(test, st.moves, 1ULL);
	KUNIT_EXPECT_EQ(test, st.held, held);
	KUNIT_EXPECT_EQ(test, txq_snap(t, 1).sent, (u64)BURST + 1);

	/* The wire and the peer saw every packet, in order. */
	total = 3 * BURST + 3;
	KUNIT_EXPECT_EQ(test, t->seq, total);
	KUNIT_EXPECT_EQ(test, txq_snap(t, 0).done + txq_snap(t, 1).done,
			(u64)total);
	w = wire_snap(t);
	KUNIT_EXPECT_EQ(test, w.packets, (u64)total);
	KUNIT_EXPECT_EQ(test, w.test, (u64)total);
	KUNIT_EXPECT_EQ(test, w.inorder, (u64)total);
	KUNIT_EXPECT_EQ(test, w.reordered, 0ULL);
	KUNIT_EXPECT_EQ(test, w.gaps, 0ULL);
	KUNIT_EXPECT_EQ(test, w.delivered, (u64)total);
	KUNIT_EXPECT_EQ(test, peer_rx_pkts(t), (u64)total);
}

/* Table off: B overtakes A on tx-1. */
static void table_off_reorders(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct txq_snap s0, s1;
	struct tn_wire w;

	start_flow(test, false);
	s0 = txq_snap(t, 0);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s0.ring + s0.qdisc, BURST);
	KUNIT_EXPECT_EQ(test, s1.sent, (u64)BURST);
	KUNIT_EXPECT_EQ(test, s1.done, (u64)BURST);
	w = wire_snap(t);
	KUNIT_EXPECT_EQ(test, w.packets, (u64)BURST);
	KUNIT_EXPECT_EQ(test, w.reordered, 0ULL);

	drain(test, 0);
	settle(test);
	w = wire_snap(t);
	KUNIT_EXPECT_EQ(test, w.packets, 2ULL * BURST);
	/* Every packet of A came after B's. */
	KUNIT_EXPECT_EQ(test, w.reordered, (u64)BURST);
	KUNIT_EXPECT_EQ(test, peer_rx_pkts(t), 2ULL * BURST);
}

/*
 * A TX timeout as drivers handle it, without NETDEV_DOWN: tx-@qi's ring is
 * dropped and its BQL counters reset (netdev_tx_reset_queue()).
 */
static void tx_timeout(struct steer_test *t, unsigned int qi)
{
	struct netdev_queue *txq = netdev_get_tx_queue(t->dev, qi);
	struct tn_txq *q = &t->priv->txq[qi];
	struct sk_buff_head tmp;
	unsigned int n;

	__skb_queue_head_init(&tmp);
	napi_disable(&q->napi);
	hrtimer_cancel(&q->timer);
	local_bh_disable();
	__netif_tx_lock(txq, smp_processor_id());
	spin_lock(&q->lock);
	skb_queue_splice_init(&q->ring, &tmp);
	spin_unlock(&q->lock);
	__netif_tx_unlock(txq);
	local_bh_enable();
	n = tn_tx_purge(t->priv, &tmp);
	spin_lock_bh(&q->lock);
	q->st.purged += n;
	spin_unlock_bh(&q->lock);
	netdev_tx_reset_queue(txq);
	napi_enable(&q->napi);
	local_bh_disable();
	netif_schedule_queue(txq);
	local_bh_enable();
}

/*
 * tx-@qi idle, its BQL counters moved on by @bytes as if other flows had
 * sent and completed them (every counter of struct dql together, so that
 * BQL's own arithmetic is unchanged).
 */
static void dql_advance(struct steer_test *t, unsigned int qi, u32 bytes)
{
	struct netdev_queue *txq = netdev_get_tx_queue(t->dev, qi);
	struct dql *dql = &txq->dql;

	local_bh_disable();
	__netif_tx_lock(txq, smp_processor_id());
	WARN_ON(dql->num_queued != dql->num_completed);
	dql->num_queued += bytes;
	dql->adj_limit += bytes;
	dql->num_completed += bytes;
	dql->prev_num_queued += bytes;
	__netif_tx_unlock(txq);
	local_bh_enable();
}

/* A pair with the table on, and a flow whose burst tx-0 has completed. */
static void flow_done_on_tx0(struct kunit *test)
{
	struct steer_test *t = test->priv;

	setup(test, PROPOSE_SELECT);
	KUNIT_ASSERT_EQ(test, table(t, 8), 0);
	send(test, 0, BURST);
	drain(test, 0);
}

/* One packet with tx-1 proposed moves there, the entry with it. */
static void expect_move(struct kunit *test, u64 moves)
{
	struct steer_test *t = test->priv;
	struct txq_snap s1;

	send(test, 1, 1);
	settle(test);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, stats(t).moves, moves);
	KUNIT_EXPECT_EQ(test, s1.sent + s1.qdisc, 1ULL);
	KUNIT_EXPECT_EQ(test, flow_base(t), flow_pack(t, 1, s1.queued));
}

/*
 * A BQL reset without NETDEV_DOWN (a TX timeout; virtio_net's ring resize
 * and an XSK bind do the same): tx-0's counters go back to 0 while the
 * flow's head is far above. Its packets are gone from the ring: the flow
 * moves at once. With the old test (completions reached head) it was held
 * until hold_max_ms, behind a queue with nothing of its own on it.
 */
static void xps_flow_steer_bql_reset(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct txq_snap s0;

	flow_done_on_tx0(test);
	send(test, 0, 1);
	settle(test);
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, s0.ring, 1U);
	KUNIT_ASSERT_EQ(test, s0.qdisc, 0U);
	KUNIT_ASSERT_EQ(test, flow_base(t), flow_pack(t, 0, s0.queued));
	expect_held(test, 1);	/* its head is in flight: held */
	/* The held packet waits in the qdisc (BQL stopped tx-0): drain it. */
	drain(test, 0);
	send(test, 0, 1);
	settle(test);
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, s0.ring, 1U);
	KUNIT_ASSERT_GT(test, s0.queued, 9U * t->len - 1);
	tx_timeout(t, 0);
	settle(test);
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, s0.queued, 0U);
	KUNIT_ASSERT_EQ(test, s0.completed, 0U);
	KUNIT_ASSERT_NE(test, (u32)flow_base(t), 0U);	/* the old head */
	expect_move(test, 1);
	KUNIT_EXPECT_EQ(test, stats(t).held, 1ULL);
	KUNIT_EXPECT_EQ(test, wire_snap(t).reordered, 0ULL);
}

/*
 * A packet the driver refuses (NETDEV_TX_BUSY) is requeued and sent again:
 * its head is recorded on the second try. The start probe looks only at
 * packets that carry the key handed over at selection, and the refusal
 * gives it back. Without that, the entry kept its claim's head (the count
 * before the packet) while the packet sat on the ring: the next packet of
 * the flow moved away from it.
 */
static void xps_flow_steer_busy_requeue(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct netdev_queue *txq;
	struct txq_snap s0;
	struct xfl_stats st;
	struct tn_txq *q;

	flow_done_on_tx0(test);
	txq = netdev_get_tx_queue(t->dev, 0);
	q = &t->priv->txq[0];
	WRITE_ONCE(q->depth, 0);	/* every packet offered is refused */
	send(test, 0, 1);
	settle(test);
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, s0.ring, 0U);
	KUNIT_ASSERT_EQ(test, s0.qdisc, 1U);	/* requeued */
	spin_lock_bh(&q->lock);
	KUNIT_ASSERT_GE(test, q->st.busy, 1ULL);
	spin_unlock_bh(&q->lock);
	st = stats(t);
	/* Room again: the driver wakes the queue, the qdisc sends it. */
	WRITE_ONCE(q->depth, 1024);
	local_bh_disable();
	netif_tx_wake_queue(txq);
	local_bh_enable();
	settle(test);
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, s0.ring, 1U);
	KUNIT_ASSERT_EQ(test, s0.qdisc, 0U);
	KUNIT_EXPECT_EQ(test, stats(t).recorded, st.recorded + 1);
	KUNIT_EXPECT_EQ(test, flow_base(t), flow_pack(t, 0, s0.queued));
	expect_held(test, 1);	/* its head is in flight: held */
	KUNIT_EXPECT_EQ(test, wire_snap(t).reordered, 0ULL);
}

/*
 * An idle flow whose head tx-0's counters have since left 2^31 bytes and
 * more behind (other flows' traffic: 2 GiB is 1.7 s at 10 Gbit/s): the
 * flow moves. With the old test its head looked like the future: held.
 */
static void xps_flow_steer_idle_head_wraps(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct txq_snap s0;

	flow_done_on_tx0(test);
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, flow_base(t), flow_pack(t, 0, s0.queued));
	dql_advance(t, 0, 0x80000000u + 0x100);
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, s0.queued, s0.completed);
	expect_move(test, 1);
	KUNIT_EXPECT_EQ(test, stats(t).held, 0ULL);
	drain(test, 1);
	KUNIT_EXPECT_EQ(test, wire_snap(t).reordered, 0ULL);
}

/*
 * Claims that lose (another CPU writes the slot between the read and the
 * compare-and-swap), injected: the decision is taken again on what won,
 * and after XFL_CLAIM_TRIES losses the packet follows the entry that is
 * there; it never goes to a queue the slot does not name.
 */
static void xps_flow_steer_claim_lost(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct txq_snap s0, s1;
	struct xfl_stats st;

	flow_done_on_tx0(test);
	s0 = txq_snap(t, 0);

	/* Every claim loses to a CPU that writes tx-0 (idle) again. */
	xfl_test_race_entry = flow_pack(t, 0, s0.queued - t->len);	/* done too */
	xfl_test_race_left = XFL_CLAIM_TRIES;
	send(test, 1, 1);
	settle(test);
	KUNIT_EXPECT_EQ(test, xfl_test_race_left, 0);
	st = stats(t);
	KUNIT_EXPECT_EQ(test, st.claims_lost, 1ULL);
	KUNIT_EXPECT_EQ(test, st.moves, 0ULL);
	s0 = txq_snap(t, 0);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent + s1.qdisc, 0ULL);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(flow_entry(t)), 0);
	KUNIT_EXPECT_EQ(test, flow_base(t), flow_pack(t, 0, s0.queued));
	drain(test, 0);

	/* One loss to a CPU that moved the flow to tx-1: it follows, Same. */
	xfl_test_race_entry = flow_pack(t, 1, txq_snap(t, 1).queued);
	xfl_test_race_left = 1;
	send(test, 1, 1);
	settle(test);
	st = stats(t);
	KUNIT_EXPECT_EQ(test, st.claims_lost, 1ULL);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent, 1ULL);
	KUNIT_EXPECT_EQ(test, flow_base(t), flow_pack(t, 1, s1.queued));
	KUNIT_EXPECT_EQ(test, wire_snap(t).reordered, 0ULL);
}

/*
 * A hold's stamp that loses to another CPU's move: the decision is taken
 * again on the entry that won (the flow is on tx-1 now, where it is
 * proposed: Same), and the packet goes there, not to the old queue the
 * entry no longer names.
 */
static void xps_flow_steer_stamp_lost(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct txq_snap s1;

	setup(test, PROPOSE_SELECT);
	KUNIT_ASSERT_EQ(test, table(t, 8), 0);
	send(test, 0, BURST);		/* tx-0 busy: the next is held */
	settle(test);
	KUNIT_ASSERT_FALSE(test, flow_entry(t) & XNET_XPS_HOLDING);
	xfl_test_race_entry = flow_pack(t, 1, txq_snap(t, 1).queued);
	xfl_test_race_left = 1;
	send(test, 1, 1);		/* the first hold: a stamp, lost */
	settle(test);
	KUNIT_EXPECT_EQ(test, xfl_test_race_left, 0);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent + s1.qdisc, 1ULL);
	KUNIT_EXPECT_EQ(test, stats(t).held, 0ULL);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(flow_entry(t)), 1);
	drain(test, 0);
	drain(test, 1);
}

/* A second flow, id @flow, hash @hash: @n packets with tx-@queue proposed. */
static void send_other(struct kunit *test, u32 flow, u32 hash, u32 *seq,
		       unsigned int queue, unsigned int n)
{
	struct steer_test *t = test->priv;
	struct pkt_spec p = {
		.proto = htons(XNET_TN_ETH_P_SEQ), .l4 = IPPROTO_UDP,
		.sport = 4001, .dport = 9999, .saddr_last = 2, .ttl = 64,
		.flow = flow,
	};

	WRITE_ONCE(t->priv->select_txq, queue);
	while (n--) {
		struct sk_buff *skb;

		p.seq = (*seq)++;
		skb = build_pkt(t->dev, t->peer->dev_addr, &p);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		skb_set_hash(skb, hash, PKT_HASH_TYPE_L4);
		KUNIT_ASSERT_EQ(test, dev_queue_xmit(skb), NET_XMIT_SUCCESS);
	}
}

/*
 * Two flows whose keys share a slot (same low bits, other tag): the
 * second finds the first's entry, is seen (collisions), and is decided on
 * that entry: held behind the first's queue while it is busy, never sent
 * where the slot does not say. Both arrive in order.
 */
static void xps_flow_steer_two_keys_one_slot(struct kunit *test)
{
	struct steer_test *t = test->priv;
	const u32 other = (FLOW_HASH & 0x807fffffu) | 0x12u << 23;
	struct txq_snap s1;
	struct xfl_stats st;
	u32 seq = 0;

	KUNIT_ASSERT_NE(test, xnet_xps_tag(other), xnet_xps_tag(FLOW_HASH));
	setup(test, PROPOSE_SELECT);
	KUNIT_ASSERT_EQ(test, table(t, 8), 0);
	send(test, 0, BURST);			/* flow A on tx-0, busy */
	settle(test);
	KUNIT_EXPECT_EQ(test, stats(t).collisions, 0ULL);
	send_other(test, FLOW_ID + 1, other, &seq, 1, BURST);	/* B: tx-1 */
	settle(test);
	st = stats(t);
	KUNIT_EXPECT_EQ(test, st.collisions, (u64)BURST);
	KUNIT_EXPECT_EQ(test, st.held, (u64)BURST);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent + s1.qdisc, 0ULL);
	/* B's last packet reaches the driver last: the entry has B's tag. */
	drain(test, 0);
	KUNIT_EXPECT_EQ(test, xnet_xps_tag_of(flow_entry(t)), xnet_xps_tag(other));
	/* A, proposed tx-0, finds B's tag on tx-0: Same, a collision. */
	send(test, 0, 1);
	settle(test);
	st = stats(t);
	KUNIT_EXPECT_EQ(test, st.collisions, (u64)BURST + 1);
	KUNIT_EXPECT_EQ(test, st.held, (u64)BURST);
	drain(test, 0);
	/* tx-0 idle: B moves to tx-1, a collision again (A wrote last). */
	send_other(test, FLOW_ID + 1, other, &seq, 1, 1);
	settle(test);
	st = stats(t);
	KUNIT_EXPECT_EQ(test, st.moves, 1ULL);
	KUNIT_EXPECT_EQ(test, st.collisions, (u64)BURST + 2);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent, 1ULL);
	KUNIT_EXPECT_EQ(test, flow_entry(t) & ~XNET_XPS_HOLD_BITS,
			xnet_xps_pack(1, xnet_xps_tag(other), s1.queued));
	drain(test, 1);
	KUNIT_EXPECT_EQ(test, wire_snap(t).reordered, 0ULL);
	KUNIT_EXPECT_EQ(test, wire_snap(t).gaps, 0ULL);
}

/*
 * tx-0 trickles (one packet completes every millisecond or so, its qdisc
 * never empties: the held flow's own packets keep it full) while the flow
 * is proposed tx-1 at every step. Returns the step at which its hold
 * expired, or 0 if it was still held after @steps.
 */
static unsigned int trickle(struct kunit *test, unsigned int steps)
{
	struct steer_test *t = test->priv;
	unsigned int i;

	for (i = 1; i <= steps; i++) {
		release(t, 0, 1);
		usleep_range(1000, 1200);
		send(test, 1, 1);
		settle(test);
		if (stats(t).expired)
			return i;
	}
	return 0;
}

/*
 * Never pinned to a slow queue: with hold_drains 1, a hold on tx-0 ends
 * after about one drain time of what tx-0 has in flight, measured from its
 * completions (a few steps), not at hold_max_ms (8 s); with hold_drains 0
 * (hold_max_ms alone) the same 20 steps stay held.
 */
static void xps_flow_steer_hold_follows_drain(struct kunit *test)
{
	struct steer_test *t = test->priv;
	unsigned int step;

	xfl_hold_set(XFL_HOLD_MAX_MS_MAX);	/* 8 s: far past the steps */
	setup(test, PROPOSE_SELECT);
	xfl_hold_drains = 0;
	start_flow(test, true);
	KUNIT_ASSERT_EQ(test, stats(t).held, (u64)BURST);
	KUNIT_EXPECT_EQ(test, trickle(test, 20), 0U);
	KUNIT_EXPECT_EQ(test, txq_snap(t, 1).sent + txq_snap(t, 1).qdisc, 0ULL);

	xfl_hold_drains = 1;
	step = trickle(test, 20);
	kunit_info(test, "hold_drains 1: expired at step %u", step);
	KUNIT_EXPECT_GT(test, step, 0U);
	KUNIT_EXPECT_EQ(test, stats(t).expired, 1ULL);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(flow_entry(t)), 1);
	drain(test, 0);
	drain(test, 1);
}

/* ---- cases -------------------------------------------------------------- */

static void xps_flow_steer_hold_then_move(struct kunit *test)
{
	setup(test, PROPOSE_SELECT);
	hold_then_move(test);
}

static void xps_flow_steer_table_off_reorders(struct kunit *test)
{
	setup(test, PROPOSE_SELECT);
	table_off_reorders(test);
}

/*
 * The same with hashless IPv4 / IPv6 UDP packets: the select and the
 * transmit wrapper must both index the flow's entry by its tuple key, or
 * the flow would never be held (its entry would stay empty).
 */
static void xps_flow_steer_hold_then_move_udp4(struct kunit *test)
{
	setup(test, PROPOSE_SELECT);
	((struct steer_test *)test->priv)->kind = PKT_UDP4;
	hold_then_move(test);
}

static void xps_flow_steer_hold_then_move_udp6(struct kunit *test)
{
	setup(test, PROPOSE_SELECT);
	((struct steer_test *)test->priv)->kind = PKT_UDP6;
	hold_then_move(test);
}

static void xps_flow_steer_table_off_reorders_udp4(struct kunit *test)
{
	setup(test, PROPOSE_SELECT);
	((struct steer_test *)test->priv)->kind = PKT_UDP4;
	table_off_reorders(test);
}

#if defined(CONFIG_XPS) && defined(XNET_HAVE_FTRACE_IPMODIFY)
/* XPS: CPU0 -> tx-0, CPU1 -> tx-1; the senders run on CPU 0, then 1. */
static void xps_setup(struct kunit *test)
{
	struct steer_test *t = test->priv;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2U);
	setup(test, PROPOSE_XPS);
	KUNIT_ASSERT_EQ(test, netif_set_xps_queue(t->dev, cpumask_of(0), 0), 0);
	KUNIT_ASSERT_EQ(test, netif_set_xps_queue(t->dev, cpumask_of(1), 1), 0);
}

static void xps_flow_steer_hold_then_move_xps(struct kunit *test)
{
	xps_setup(test);
	hold_then_move(test);
}

static void xps_flow_steer_table_off_reorders_xps(struct kunit *test)
{
	xps_setup(test);
	table_off_reorders(test);
}
#endif

/*
 * Resize with packets in flight: the wrapper stays, and the hold carries
 * over into the new table (growing and shrinking): the flow, proposed
 * tx-1, stays on tx-0 until tx-0 has drained; nothing is lost or reordered.
 */
static void xps_flow_steer_resize_in_flight(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct txq_snap s1;
	struct tn_wire w;

	setup(test, PROPOSE_SELECT);
	start_flow(test, true);
	KUNIT_ASSERT_EQ(test, stats(t).held, (u64)BURST);
	KUNIT_ASSERT_EQ(test, table(t, 64), 0);
	KUNIT_EXPECT_EQ(test, table_size(t), 64U);
	KUNIT_EXPECT_EQ(test, nr_steered(), 1U);	/* a resize: still one */
	KUNIT_EXPECT_EQ(test, flow_base(t),
			flow_pack(t, 0, txq_snap(t, 0).queued));
	send(test, 1, BURST);		/* held by the carried entry */
	settle(test);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent + s1.qdisc, 0ULL);
	KUNIT_EXPECT_EQ(test, stats(t).held, 2ULL * BURST);
	release(t, 0, 1);
	settle(test);
	KUNIT_ASSERT_EQ(test, table(t, 2), 0);
	KUNIT_EXPECT_EQ(test, table_size(t), 2U);
	KUNIT_EXPECT_EQ(test, nr_steered(), 1U);
	send(test, 1, BURST);		/* still held after shrinking */
	settle(test);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent + s1.qdisc, 0ULL);
	drain(test, 0);
	send(test, 1, 1);		/* drained: moves now */
	settle(test);
	KUNIT_EXPECT_EQ(test, txq_snap(t, 1).sent, 1ULL);
	drain(test, 1);
	w = wire_snap(t);
	KUNIT_EXPECT_EQ(test, w.packets, 4ULL * BURST + 1);
	KUNIT_EXPECT_EQ(test, w.reordered, 0ULL);
	KUNIT_EXPECT_EQ(test, w.gaps, 0ULL);
	KUNIT_EXPECT_EQ(test, peer_rx_pkts(t), 4ULL * BURST + 1);
	KUNIT_EXPECT_EQ(test, flow_base(t),
			flow_pack(t, 1, txq_snap(t, 1).queued));
}

/*
 * Traffic classes: a flow held on tx-0 whose packets now belong to a class
 * whose range is tx-1 only (an mqprio map, an nvme priority change) must
 * go to tx-1 at once, not wait on a queue its class does not allow.
 */
static void xps_flow_steer_other_class(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct txq_snap s1;

	setup(test, PROPOSE_SELECT);
	start_flow(test, true);
	KUNIT_ASSERT_EQ(test, stats(t).held, (u64)BURST);
	/* Same class for both queues: still held. */
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, netdev_set_num_tc(t->dev, 1), 0);
	KUNIT_ASSERT_EQ(test, netdev_set_tc_queue(t->dev, 0, 2, 0), 0);
	rtnl_unlock();
	expect_held(test, BURST + 1);
	/* Class 0 = tx-0, class 1 = tx-1: the proposal's class is 1. */
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, netdev_set_num_tc(t->dev, 2), 0);
	KUNIT_ASSERT_EQ(test, netdev_set_tc_queue(t->dev, 0, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, netdev_set_tc_queue(t->dev, 1, 1, 1), 0);
	rtnl_unlock();
	send(test, 1, 1);
	settle(test);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent, 1ULL);
	KUNIT_EXPECT_EQ(test, stats(t).stale, 1ULL);
	KUNIT_EXPECT_EQ(test, stats(t).held, (u64)BURST + 1);
	KUNIT_EXPECT_EQ(test, flow_base(t), flow_pack(t, 1, s1.queued));
	rtnl_lock();
	netdev_reset_tc(t->dev);
	rtnl_unlock();
	drain(test, 0);
}

/*
 * hold_max_ms: a flow held on a queue that does not drain moves once the
 * bound has passed since its hold began (expired), and a packet sent
 * where XPS wants it again (Same) ends the hold, so the next hold starts
 * its own clock.
 */
static void xps_flow_steer_hold_expires(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct txq_snap s0, s1;

	xfl_hold_set(40);
	setup(test, PROPOSE_SELECT);
	start_flow(test, true);			/* B held on tx-0: stamped */
	KUNIT_ASSERT_EQ(test, stats(t).held, (u64)BURST);
	KUNIT_EXPECT_TRUE(test, flow_entry(t) & XNET_XPS_HOLDING);
	/* Where XPS wants it again: the hold is over, the stamp gone. */
	send(test, 0, 1);
	settle(test);
	s0 = txq_snap(t, 0);
	KUNIT_EXPECT_EQ(test, flow_entry(t), flow_pack(t, 0, s0.queued));
	msleep(60);
	/* A new hold, with a clock of its own: not expired. */
	expect_held(test, BURST + 1);
	KUNIT_EXPECT_EQ(test, stats(t).expired, 0ULL);
	msleep(60);
	send(test, 1, 1);
	settle(test);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, stats(t).expired, 1ULL);
	KUNIT_EXPECT_EQ(test, s1.sent + s1.qdisc, 1ULL);
	KUNIT_EXPECT_EQ(test, flow_entry(t), flow_pack(t, 1, s1.queued));
	drain(test, 0);
}

/*
 * A new flow whose first packets wait in the qdisc (the queue frozen, as
 * BQL or a driver reconfiguring stops it) has no transmit-time head yet;
 * a packet selected for another queue meanwhile must still be held behind
 * them, not find an empty entry and overtake them.
 */
static void xps_flow_steer_new_flow_in_qdisc(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct txq_snap s0, s1;

	setup(test, PROPOSE_SELECT);
	KUNIT_ASSERT_EQ(test, table(t, 8), 0);
	freeze(t, 0, true);
	send(test, 0, BURST);
	settle(test);
	s0 = txq_snap(t, 0);
	KUNIT_ASSERT_EQ(test, s0.qdisc, (unsigned int)BURST);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(flow_entry(t)), 0);
	send(test, 1, 1);
	settle(test);
	s1 = txq_snap(t, 1);
	KUNIT_EXPECT_EQ(test, s1.sent + s1.qdisc, 0ULL);
	KUNIT_EXPECT_EQ(test, stats(t).held, 1ULL);
	freeze(t, 0, false);
	drain(test, 0);
	KUNIT_EXPECT_EQ(test, wire_snap(t).reordered, 0ULL);
}

/*
 * A move into a queue whose qdisc keeps the packets (frozen, as behind a
 * stopped ring): the entry says the new queue at once, so a packet
 * proposed back to the old, idle queue is held behind them, not sent
 * ahead of them (before the select wrapper wrote the entry at the move, it
 * said tx-0 until a packet reached tx-1's driver).
 */
static void xps_flow_steer_move_into_qdisc(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct txq_snap s0, s1;
	struct xfl_stats st;

	flow_done_on_tx0(test);
	freeze(t, 1, true);
	send(test, 1, BURST);
	settle(test);
	s1 = txq_snap(t, 1);
	KUNIT_ASSERT_EQ(test, s1.qdisc, (unsigned int)BURST);
	KUNIT_EXPECT_EQ(test, stats(t).moves, 1ULL);
	KUNIT_EXPECT_EQ(test, xnet_xps_queue_of(flow_entry(t)), 1);
	send(test, 0, 1);
	settle(test);
	st = stats(t);
	KUNIT_EXPECT_EQ(test, st.held, 1ULL);
	KUNIT_EXPECT_EQ(test, st.moves, 1ULL);
	s0 = txq_snap(t, 0);
	KUNIT_EXPECT_EQ(test, s0.sent + s0.qdisc, (u64)BURST);
	freeze(t, 1, false);
	drain(test, 1);
	KUNIT_EXPECT_EQ(test, txq_snap(t, 1).sent, (u64)BURST + 1);
	KUNIT_EXPECT_EQ(test, wire_snap(t).packets, 2ULL * BURST + 1);
	KUNIT_EXPECT_EQ(test, wire_snap(t).reordered, 0ULL);
}

/* Off with packets in flight: the device's own ops back at once. */
static void xps_flow_steer_disable_in_flight(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct xfl_stats st;
	struct tn_wire w;

	setup(test, PROPOSE_SELECT);
	start_flow(test, true);
	KUNIT_ASSERT_EQ(test, table(t, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, t->dev->netdev_ops, &tn_netdev_ops_select);
	KUNIT_EXPECT_EQ(test, table_size(t), 0U);
	KUNIT_EXPECT_EQ(test, flow_entry(t), 0ULL);
	KUNIT_EXPECT_NOT_NULL(test, xd_of(t->dev));	/* still attached */
	st = stats(t);

	/* Not steered any more: the proposal goes through at once. */
	send(test, 1, BURST);
	settle(test);
	KUNIT_EXPECT_EQ(test, txq_snap(t, 1).sent, (u64)BURST);
	KUNIT_EXPECT_EQ(test, stats(t).lookups, st.lookups);
	drain(test, 0);
	w = wire_snap(t);
	KUNIT_EXPECT_EQ(test, w.packets, 3ULL * BURST);
	KUNIT_EXPECT_EQ(test, peer_rx_pkts(t), 3ULL * BURST);
	/* A and B were held on tx-0 and came after the last burst. */
	KUNIT_EXPECT_EQ(test, w.reordered, 2ULL * BURST);

	/* And on again. */
	KUNIT_ASSERT_EQ(test, table(t, 8), 0);
	KUNIT_EXPECT_PTR_EQ(test, t->dev->netdev_ops, &tn_netdev_ops_select);
	KUNIT_EXPECT_EQ(test, nr_steered(), 1U);
}

/*
 * The module's exit path (xfl_stop(), what rmmod runs, with no pin to
 * refuse it) with steering on and packets in flight: every table off,
 * the hooks gone. The device's own behaviour is back at once: a packet
 * proposed tx-1 goes there, ahead of the ones still held on tx-0.
 */
static void xps_flow_steer_unload_in_flight(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct tn_wire w;

	setup(test, PROPOSE_SELECT);
	start_flow(test, true);
	KUNIT_EXPECT_EQ(test, nr_steered(), 1U);
	xfl_stop();
	t->xfl = false;
	KUNIT_EXPECT_PTR_EQ(test, t->dev->netdev_ops, &tn_netdev_ops_select);
	KUNIT_EXPECT_EQ(test, nr_attached(), 0U);
	KUNIT_EXPECT_TRUE(test, hash_empty(xfl_hash.heads));
	KUNIT_EXPECT_TRUE(test, hash_empty(xfl_steered.heads));
	KUNIT_EXPECT_EQ(test, nr_steered(), 0U);
	send(test, 1, BURST);
	settle(test);
	KUNIT_EXPECT_EQ(test, txq_snap(t, 1).sent, (u64)BURST);
	drain(test, 0);
	w = wire_snap(t);
	KUNIT_EXPECT_EQ(test, w.packets, 3ULL * BURST);
	/* A and B were held on tx-0 and came after the last burst. */
	KUNIT_EXPECT_EQ(test, w.reordered, 2ULL * BURST);
	KUNIT_EXPECT_EQ(test, peer_rx_pkts(t), 3ULL * BURST);
}

struct unreg_watch {
	struct notifier_block nb;
	struct net_device *dev;
	bool seen;
	const struct net_device_ops *ops;	/* at NETDEV_UNREGISTER */
	bool attached;				/* xps_flow still had it */
};

/* Registered after xps_flow's notifier: runs after it. */
static int unreg_event(struct notifier_block *nb, unsigned long event,
		       void *ptr)
{
	struct unreg_watch *w = container_of(nb, struct unreg_watch, nb);
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (event != NETDEV_UNREGISTER || dev != w->dev || w->seen)
		return NOTIFY_DONE;
	w->seen = true;
	w->ops = dev->netdev_ops;
	w->attached = xfl_find(dev);
	return NOTIFY_DONE;
}

/* ip link del while steering, packets in the qdisc and on the ring. */
static void xps_flow_steer_unregister_enabled(struct kunit *test)
{
	struct steer_test *t = test->priv;
	struct unreg_watch w = {
		.nb.notifier_call = unreg_event,
	};
	unsigned int before;

	setup(test, PROPOSE_SELECT);
	start_flow(test, true);
	before = nr_attached();
	KUNIT_ASSERT_GE(test, before, 2U);	/* both ends */
	w.dev = t->dev;
	KUNIT_ASSERT_EQ(test, register_netdevice_notifier(&w.nb), 0);
	delete_pair(t);
	w.dev = NULL;
	unregister_netdevice_notifier(&w.nb);
	KUNIT_EXPECT_TRUE(test, w.seen);
	KUNIT_EXPECT_PTR_EQ(test, w.ops, &tn_netdev_ops_select);
	KUNIT_EXPECT_FALSE(test, w.attached);
	KUNIT_EXPECT_EQ(test, nr_attached(), before - 2);
	rcu_barrier();	/* the table's free, if any, ran */
}

/* ---- the hooks' life ---------------------------------------------------- */

/*
 * The hooks are there while any table is: counted per device, a resize is
 * no second count, off twice no underflow, a deleted device uncounted.
 * The driver's ops are never written.
 */
static void xps_flow_steer_hooks_counted(struct kunit *test)
{
	struct steer_test *t = test->priv;
	const struct net_device_ops *ops;

	setup(test, PROPOSE_SELECT);
	ops = t->dev->netdev_ops;
	KUNIT_EXPECT_EQ(test, nr_steered(), 0U);
	KUNIT_ASSERT_EQ(test, table(t, 8), 0);
	KUNIT_EXPECT_EQ(test, nr_steered(), 1U);
	KUNIT_EXPECT_PTR_EQ(test, t->dev->netdev_ops, ops);
	KUNIT_ASSERT_EQ(test, table(t, 32), 0);		/* resize */
	KUNIT_EXPECT_EQ(test, nr_steered(), 1U);
	KUNIT_ASSERT_EQ(test, table(t, 0), 0);
	KUNIT_EXPECT_EQ(test, nr_steered(), 0U);
	KUNIT_EXPECT_TRUE(test, hash_empty(xfl_steered.heads));
	KUNIT_ASSERT_EQ(test, table(t, 0), 0);		/* off twice */
	KUNIT_EXPECT_EQ(test, nr_steered(), 0U);
	KUNIT_ASSERT_EQ(test, table(t, 8), 0);
	KUNIT_EXPECT_EQ(test, nr_steered(), 1U);
	send(test, 0, BURST);
	settle(test);
	KUNIT_EXPECT_GE(test, txq_snap(t, 0).sent, 1ULL);
	KUNIT_EXPECT_EQ(test, stats(t).recorded, txq_snap(t, 0).sent);
	delete_pair(t);
	KUNIT_EXPECT_EQ(test, nr_steered(), 0U);
	KUNIT_EXPECT_PTR_EQ(test, ops, &tn_netdev_ops_select);
}

/*
 * Someone else (another module, or the driver) installs its own ops on a
 * steered device, wrapping the driver's as interposers do. Steering does
 * not care: it never looked at the ops. Off and on again, their ops stay.
 */
static struct foreign_ops {
	const struct net_device_ops ops;	/* written before it is installed */
	const struct net_device_ops *under;
	atomic_t calls;
} foreign;

static netdev_tx_t foreign_xmit(struct sk_buff *skb, struct net_device *dev)
{
	atomic_inc(&foreign.calls);
	return foreign.under->ndo_start_xmit(skb, dev);
}

static void foreign_set(struct steer_test *t, bool on)
{
	struct net_device_ops *const ops = (struct net_device_ops *)&foreign.ops;

	rtnl_lock();
	if (on) {
		foreign.under = t->dev->netdev_ops;
		*ops = *foreign.under;
		ops->ndo_start_xmit = foreign_xmit;
		atomic_set(&foreign.calls, 0);
		WRITE_ONCE(t->dev->netdev_ops, &foreign.ops);
	} else {
		WRITE_ONCE(t->dev->netdev_ops, foreign.under);
	}
	rtnl_unlock();
	synchronize_net();
}

static void xps_flow_steer_foreign_ops(struct kunit *test)
{
	struct steer_test *t = test->priv;

	setup(test, PROPOSE_SELECT);
	KUNIT_ASSERT_EQ(test, table(t, 8), 0);
	foreign_set(t, true);
	start_flow(test, false);	/* the table is on already */
	KUNIT_EXPECT_GE(test, atomic_read(&foreign.calls), 1);
	KUNIT_EXPECT_EQ(test, stats(t).held, (u64)BURST);
	KUNIT_EXPECT_EQ(test, txq_snap(t, 1).sent + txq_snap(t, 1).qdisc, 0ULL);
	KUNIT_ASSERT_EQ(test, table(t, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, t->dev->netdev_ops, &foreign.ops);
	KUNIT_ASSERT_EQ(test, table(t, 8), 0);
	KUNIT_EXPECT_PTR_EQ(test, t->dev->netdev_ops, &foreign.ops);
	KUNIT_ASSERT_EQ(test, table(t, 0), 0);
	drain(test, 0);
	foreign_set(t, false);
	KUNIT_EXPECT_EQ(test, peer_rx_pkts(t), 2ULL * BURST);
}

/* ---- suite -------------------------------------------------------------- */

static int xps_flow_steer_init(struct kunit *test)
{
	struct steer_test *t;
	int err;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	test->priv = t;
	if (nr_attached())
		return -EBUSY;
	/*
	 * Holds bound by hold_max_ms alone (the default): the cases drive
	 * completions in bursts, which the drain bound would take for a fast
	 * queue (xps_flow_steer_hold_follows_drain tests that bound).
	 */
	xfl_hold_drains = 0;
	err = xfl_start();	/* the module's load */
	if (err)
		return err;
	t->xfl = true;
	return 0;
}

static void xps_flow_steer_exit(struct kunit *test)
{
	struct steer_test *t = test->priv;

	if (!t)
		return;
	delete_pair(t);
	if (t->xfl)
		xfl_stop();
	xfl_hold_set(XFL_HOLD_MAX_MS_DEFAULT);
	xfl_hold_drains = XFL_HOLD_DRAINS_DEFAULT;
	xfl_test_race_left = 0;
	/* Nothing left attached, in the list or the lookup hash. */
	KUNIT_EXPECT_EQ(test, nr_attached(), 0U);
	KUNIT_EXPECT_TRUE(test, hash_empty(xfl_hash.heads));
}

static int xps_flow_steer_suite_init(struct kunit_suite *suite)
{
#ifndef XNET_HAVE_FTRACE_IPMODIFY
	tn_select_then = steer_after_select;
#endif
	return tn_start();
}

static void xps_flow_steer_suite_exit(struct kunit_suite *suite)
{
	tn_shutdown();
	tn_select_queue = false;
	tn_select_then = NULL;
}

static struct kunit_case xps_flow_steer_cases[] = {
	KUNIT_CASE(xps_flow_steer_hold_then_move),
	KUNIT_CASE(xps_flow_steer_busy_requeue),
	KUNIT_CASE(xps_flow_steer_table_off_reorders),
	KUNIT_CASE(xps_flow_steer_hold_then_move_udp4),
	KUNIT_CASE(xps_flow_steer_hold_then_move_udp6),
	KUNIT_CASE(xps_flow_steer_table_off_reorders_udp4),
#if defined(CONFIG_XPS) && defined(XNET_HAVE_FTRACE_IPMODIFY)
	KUNIT_CASE(xps_flow_steer_hold_then_move_xps),
	KUNIT_CASE(xps_flow_steer_table_off_reorders_xps),
#endif
	KUNIT_CASE(xps_flow_steer_resize_in_flight),
	KUNIT_CASE(xps_flow_steer_other_class),
	KUNIT_CASE(xps_flow_steer_hold_expires),
	KUNIT_CASE(xps_flow_steer_hold_follows_drain),
	KUNIT_CASE(xps_flow_steer_bql_reset),
	KUNIT_CASE(xps_flow_steer_idle_head_wraps),
	KUNIT_CASE(xps_flow_steer_claim_lost),
	KUNIT_CASE(xps_flow_steer_stamp_lost),
	KUNIT_CASE(xps_flow_steer_two_keys_one_slot),
	KUNIT_CASE(xps_flow_steer_new_flow_in_qdisc),
	KUNIT_CASE(xps_flow_steer_move_into_qdisc),
	KUNIT_CASE(xps_flow_steer_disable_in_flight),
	KUNIT_CASE(xps_flow_steer_unload_in_flight),
	KUNIT_CASE(xps_flow_steer_unregister_enabled),
	KUNIT_CASE(xps_flow_steer_hooks_counted),
	KUNIT_CASE(xps_flow_steer_foreign_ops),
	{}
};

static struct kunit_suite xps_flow_steer_suite = {
	.name = "xps_flow_steer",
	.suite_init = xps_flow_steer_suite_init,
	.suite_exit = xps_flow_steer_suite_exit,
	.init = xps_flow_steer_init,
	.exit = xps_flow_steer_exit,
	.test_cases = xps_flow_steer_cases,
};

/* ---- the flow key (suite xps_flow_key) ---------------------------------- */

/*
 * xfl_select_key() and xfl_xmit_key() on packets built by build_pkt(),
 * no device traffic. skb->dev is the loopback device (the kernel's flow
 * dissector wants a netns).
 */
static struct sk_buff *key_pkt(struct kunit *test, const struct pkt_spec *p)
{
	static const u8 dst[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 2 };
	struct sk_buff *skb = build_pkt(init_net.loopback_dev, dst, p);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	return skb;
}

/* xfl_xmit_key() as a bool, the key in *key. */
static bool xmit_key(const struct sk_buff *skb, u32 *key)
{
	s64 k = xfl_xmit_key(skb);

	*key = k;
	return k >= 0;
}

/* The select key of a fresh packet @p (tuple path: the skb gets no hash). */
static u32 tuple_key(struct kunit *test, const struct pkt_spec *p)
{
	struct sk_buff *skb = key_pkt(test, p);
	u32 key, xkey = 0;

	key = xfl_select_key(skb);
	KUNIT_EXPECT_FALSE(test, skb->sw_hash);
	KUNIT_EXPECT_FALSE(test, skb->l4_hash);
	KUNIT_EXPECT_EQ(test, skb->hash, 0U);
	/* The transmit wrapper finds the same key. */
	KUNIT_EXPECT_TRUE(test, xmit_key(skb, &xkey));
	KUNIT_EXPECT_EQ(test, xkey, key);
	/* A qdisc that hashes it in between (fq_codel) changes nothing. */
	skb_get_hash(skb);
	KUNIT_EXPECT_TRUE(test, skb->sw_hash);
	KUNIT_EXPECT_TRUE(test, xmit_key(skb, &xkey));
	KUNIT_EXPECT_EQ(test, xkey, key);
	KUNIT_EXPECT_EQ(test, xfl_select_key(skb), key);
	kfree_skb(skb);
	return key;
}

/*
 * The packet @p falls back to the kernel's flow hash: the select key is
 * skb_get_hash(), stored in the skb, and the transmit key reads it back.
 */
static void expect_fallback(struct kunit *test, const struct pkt_spec *p)
{
	struct sk_buff *skb = key_pkt(test, p), *copy = key_pkt(test, p);
	u32 key, xkey = 0;

	/* Without a hash, the transmit wrapper records nothing. */
	KUNIT_EXPECT_FALSE(test, xmit_key(skb, &xkey));
	key = xfl_select_key(skb);
	KUNIT_EXPECT_TRUE(test, skb->sw_hash);
	KUNIT_EXPECT_EQ(test, key, skb_get_hash(copy));
	KUNIT_EXPECT_TRUE(test, xmit_key(skb, &xkey));
	KUNIT_EXPECT_EQ(test, xkey, key);
	kfree_skb(skb);
	kfree_skb(copy);
}

static void xps_flow_key_tuple(struct kunit *test, __be16 proto)
{
	struct pkt_spec p = {
		.proto = proto, .l4 = IPPROTO_UDP, .sport = 4000,
		.dport = 9999, .saddr_last = 1, .ttl = 64, .flow = 1, .seq = 0,
	}, q;
	u32 key = tuple_key(test, &p);

	/* Same flow: other payload, IP ID, hop limit. */
	q = p;
	q.seq = 12345;
	q.flow = 99;
	q.ttl = 3;
	KUNIT_EXPECT_EQ(test, tuple_key(test, &q), key);
	/* Another flow: each field of the tuple counts. */
	q = p;
	q.sport++;
	KUNIT_EXPECT_NE(test, tuple_key(test, &q), key);
	q = p;
	q.dport++;
	KUNIT_EXPECT_NE(test, tuple_key(test, &q), key);
	q = p;
	q.saddr_last++;
	KUNIT_EXPECT_NE(test, tuple_key(test, &q), key);
	q = p;
	q.l4 = IPPROTO_TCP;
	KUNIT_EXPECT_NE(test, tuple_key(test, &q), key);
	KUNIT_EXPECT_EQ(test, tuple_key(test, &q), tuple_key(test, &q));
	/* The seed counts. */
	xfl_key_seed.add4 += 1ull << 33;
	xfl_key_seed.add6 += 1ull << 33;
	KUNIT_EXPECT_NE(test, tuple_key(test, &p), key);
	xfl_key_seed.add4 -= 1ull << 33;
	xfl_key_seed.add6 -= 1ull << 33;
	KUNIT_EXPECT_EQ(test, tuple_key(test, &p), key);
}

static void xps_flow_key_ipv4(struct kunit *test)
{
	xps_flow_key_tuple(test, htons(ETH_P_IP));
}

static void xps_flow_key_ipv6(struct kunit *test)
{
	struct pkt_spec v4 = {
		.proto = htons(ETH_P_IP), .l4 = IPPROTO_UDP, .sport = 4000,
		.dport = 9999, .saddr_last = 1, .ttl = 64,
	}, v6 = v4;

	xps_flow_key_tuple(test, htons(ETH_P_IPV6));
	v6.proto = htons(ETH_P_IPV6);
	KUNIT_EXPECT_NE(test, tuple_key(test, &v4), tuple_key(test, &v6));
}

/* Fragments, other protocols, no IP: the kernel's flow hash. */
static void xps_flow_key_fallback(struct kunit *test)
{
	struct pkt_spec p = {
		.proto = htons(ETH_P_IP), .l4 = IPPROTO_UDP, .sport = 4000,
		.dport = 9999, .saddr_last = 1, .ttl = 64,
	}, q;

	q = p;
	q.frag = IP_MF;				/* first fragment */
	expect_fallback(test, &q);
	q.frag = 185;				/* a later one */
	expect_fallback(test, &q);
	q = p;
	q.proto = htons(ETH_P_IPV6);
	q.frag = 1;				/* IPv6 fragment header */
	expect_fallback(test, &q);
	q = p;
	q.l4 = IPPROTO_GRE;			/* not a protocol with ports */
	expect_fallback(test, &q);
	q.proto = htons(ETH_P_IPV6);
	q.l4 = IPPROTO_ICMPV6;
	expect_fallback(test, &q);
	q = p;
	q.proto = htons(XNET_TN_ETH_P_SEQ);	/* no IP header */
	expect_fallback(test, &q);
	q.proto = htons(ETH_P_8021Q);		/* VLAN header in the payload */
	expect_fallback(test, &q);
}

/* A hash from the socket or the NIC (l4_hash, not sw_hash) is the key. */
static void xps_flow_key_given_hash(struct kunit *test)
{
	struct pkt_spec p = {
		.proto = htons(ETH_P_IP), .l4 = IPPROTO_UDP, .sport = 4000,
		.dport = 9999, .saddr_last = 1, .ttl = 64,
	};
	struct sk_buff *skb = key_pkt(test, &p);
	u32 xkey = 0;

	skb_set_hash(skb, FLOW_HASH, PKT_HASH_TYPE_L4);
	KUNIT_EXPECT_EQ(test, xfl_select_key(skb), FLOW_HASH);
	KUNIT_EXPECT_TRUE(test, xmit_key(skb, &xkey));
	KUNIT_EXPECT_EQ(test, xkey, FLOW_HASH);
	KUNIT_EXPECT_EQ(test, skb->hash, FLOW_HASH);
	kfree_skb(skb);
	/* On a packet without IP too. */
	p.proto = htons(XNET_TN_ETH_P_SEQ);
	skb = key_pkt(test, &p);
	skb_set_hash(skb, FLOW_HASH, PKT_HASH_TYPE_L4);
	KUNIT_EXPECT_EQ(test, xfl_select_key(skb), FLOW_HASH);
	KUNIT_EXPECT_TRUE(test, xmit_key(skb, &xkey));
	KUNIT_EXPECT_EQ(test, xkey, FLOW_HASH);
	kfree_skb(skb);
}

#ifdef XFL_HANDOFF
/*
 * The select wrapper hands its key to the transmit wrapper in
 * sender_cpu: the transmit key is the handed one even when the headers
 * changed in between (so it was not computed again), the field is cleared
 * for the driver, and a packet without a handed key (a CPU number there,
 * or taken already) gets its key computed.
 */
static void xps_flow_key_handoff(struct kunit *test)
{
	struct pkt_spec p = {
		.proto = htons(ETH_P_IP), .l4 = IPPROTO_UDP, .sport = 4000,
		.dport = 9999, .saddr_last = 1, .ttl = 64,
	};
	struct sk_buff *skb = key_pkt(test, &p);
	u32 mask = XNET_XPS_MAX_ENTRIES - 1;
	u32 key = xfl_select_key(skb);
	struct udphdr *uh;

	skb->sender_cpu = 2;		/* netdev_pick_tx(): CPU 1 */
	KUNIT_EXPECT_EQ(test, xfl_taken_key(skb), (s64)key);
	KUNIT_EXPECT_EQ(test, skb->sender_cpu, 2U);

	xfl_hand_key(skb, key);
	uh = (struct udphdr *)(skb_network_header(skb) + ip_hdr(skb)->ihl * 4);
	uh->source = htons(4001);	/* a computed key would change */
	KUNIT_EXPECT_NE(test, xfl_xmit_key(skb), (s64)key);
	KUNIT_EXPECT_EQ(test, xfl_taken_key(skb), (s64)(key & ~XFL_HANDOFF));
	KUNIT_EXPECT_EQ(test, skb->sender_cpu, 0U);
	/* Taken once: the next transmit computes it (the new port). */
	KUNIT_EXPECT_EQ(test, xfl_taken_key(skb), xfl_xmit_key(skb));
	KUNIT_EXPECT_NE(test, xfl_taken_key(skb), (s64)key);

	/* A given hash with bit 31 set: the same slot of the largest table. */
	skb_set_hash(skb, 0xfedcba98, PKT_HASH_TYPE_L4);
	key = xfl_select_key(skb);
	xfl_hand_key(skb, key);
	KUNIT_EXPECT_EQ(test, xfl_taken_key(skb) & mask, (s64)(key & mask));
	kfree_skb(skb);
}
#endif

static int xps_flow_key_init(struct kunit *test)
{
	xfl_key_init();
	return 0;
}

static struct kunit_case xps_flow_key_cases[] = {
	KUNIT_CASE(xps_flow_key_ipv4),
	KUNIT_CASE(xps_flow_key_ipv6),
	KUNIT_CASE(xps_flow_key_fallback),
	KUNIT_CASE(xps_flow_key_given_hash),
#ifdef XFL_HANDOFF
	KUNIT_CASE(xps_flow_key_handoff),
#endif
	{}
};

static struct kunit_suite xps_flow_key_suite = {
	.name = "xps_flow_key",
	.init = xps_flow_key_init,
	.test_cases = xps_flow_key_cases,
};

kunit_test_suites(&xps_flow_steer_suite, &xps_flow_key_suite);
