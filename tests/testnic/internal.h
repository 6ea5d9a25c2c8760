/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnet_testnic: what its files share (not the test header: xnet_testnic.h).
 *
 * Locking: a TX ring's lock (BH) covers the ring, its counters and the
 * queue's stop/wake; the wire lock covers the wire counters and the flow
 * table and is taken before a peer RX queue's lock (never the other way).
 * The peer pointer is RCU, cleared in dellink before the unregister grace
 * period; an RX queue's "enabled" (under its lock) tells the wire whether
 * it may still append.
 */
#ifndef XNET_TESTNIC_INTERNAL_H
#define XNET_TESTNIC_INTERNAL_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/if.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#define TN_DELAY_MAX_US		10000000U
#define TN_DEPTH_MAX		16384U
#define TN_WAYS			4U
#define TN_KIND			"xnet_tnic"	/* rtnl link kind */
#define TN_DNAME_LEN		(IFNAMSIZ + 12)

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

struct iommu_domain;
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
	/* ops_check (netdev.c): the ops the device was set up with, the copy
	 * debugfs ops_copy installed (RTNL), checks the device failed.
	 */
	const struct net_device_ops *ops_own;
	const struct net_device_ops *ops_copy;
	atomic64_t ops_mismatch;
};

/* main.c: device parameters, the link kind, creation */
extern unsigned int tn_txqs, tn_rxqs, tn_delay_us, tn_depth, tn_flow_entries;
extern bool tn_select_queue;
extern bool tn_ops_check;
extern u16 (*tn_select_then)(struct net_device *dev, struct sk_buff *skb,
			     struct net_device *sb_dev, u16 queue);
int tn_start(void);
void tn_shutdown(void);
struct net_device *tn_create(bool with_peer);	/* RTNL */
void tn_dellink(struct net_device *dev, struct list_head *head);	/* RTNL */

/* netdev.c */
extern const struct net_device_ops tn_netdev_ops, tn_netdev_ops_select;
/* A TX ring's skbs, with their DMA mappings; how many. */
unsigned int tn_tx_purge(struct tn_priv *priv, struct sk_buff_head *list);
void tn_setup(struct net_device *dev);
bool tn_is_own(const struct net_device *dev);
int tn_ops_copy(struct tn_priv *priv, bool on);	/* RTNL */

/*
 * ops_check=1: does @priv's device still carry one of our ops pointers, as
 * drivers that tell their devices by it (ixgbe, mlx5, tun) require? A
 * device of ours that fails is counted (debugfs ops_mismatch). Always true
 * without ops_check.
 */
static inline bool tn_ops_ok(struct tn_priv *priv)
{
	if (!tn_ops_check || tn_is_own(priv->dev))
		return true;
	atomic64_inc(&priv->ops_mismatch);
	return false;
}

/* tx.c */
enum hrtimer_restart tn_tx_timer(struct hrtimer *timer);
netdev_tx_t tn_xmit(struct sk_buff *skb, struct net_device *dev);
int tn_tx_poll(struct napi_struct *napi, int budget);
void tn_tx_set_quiesced(struct tn_priv *priv, bool on);
int tn_tx_quiesce(struct tn_priv *priv);

/* wire.c */
void tn_wire(struct tn_priv *priv, struct sk_buff_head *batch);
int tn_rx_poll(struct napi_struct *napi, int budget);

/* dma.c */
extern struct device *tn_dma_dev;
extern bool tn_dma_direct;
extern struct iommu_domain *tn_dma_iommu;
int tn_dma_map(struct tn_priv *priv, struct sk_buff *skb);
void tn_dma_unmap(struct tn_priv *priv, struct sk_buff *skb);
struct sk_buff *tn_dma_read(struct tn_priv *priv, struct sk_buff *skb);
int tn_dma_optin(struct tn_priv *priv);
int tn_dma_optout(struct tn_priv *priv);

/* debugfs.c */
extern struct dentry *tn_dbg_root;
void tn_debugfs_init(struct tn_priv *priv);
void tn_debugfs_sync(struct tn_priv *priv);

#endif /* XNET_TESTNIC_INTERNAL_H */
