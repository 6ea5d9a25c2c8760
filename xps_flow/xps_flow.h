/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xps_flow's kernel side, one job a file:
 *   main.c      parameters, the per-device skeleton and its sysfs files
 *   table.c     a device's flow table: on, off, resize, forget
 *   hook.c      where the kernel calls us: an ftrace handler on
 *               netdev_core_pick_tx() and the net_dev_start_xmit /
 *               net_dev_xmit tracepoints, registered only while a table is on
 *   datapath.c  what runs per packet: the queue choice and the head
 *   key.c/.h    the flow key
 *   queues.c    xps_flow/tx-N/{head,tail}
 * The decision itself is the C++ core (decide.hpp, C ABI decide.h).
 * Nothing here writes a pointer the driver owns: dev->netdev_ops stays
 * the driver's (Documentation/xps-flow.md, "Hooks").
 */
#ifndef XPS_FLOW_H
#define XPS_FLOW_H

#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "../common/netdev_table.h"
#include "../common/pcpu_stats.h"

struct xfl_table {
	u32 mask;
	/*
	 * Set while a resize carries the old table's entries over: a flow
	 * moves only off a queue that has nothing in flight at all (its head
	 * may be one the old table got after the first copy).
	 */
	u8 settling;
	/*
	 * xnet_xps_pack() words, 0 = empty: an allocation of its own, exactly
	 * 8 bytes an entry (xfl_table_alloc()).
	 */
	u64 *entries;
	/* Each TX queue's drain (dev->num_tx_queues of them), decide.h. */
	struct xnet_xps_drain *drain;
	unsigned int nr_drain;
};

/* Per CPU and device; the list is stats.h. */
struct xfl_stats {
#define XFL_STAT(name)	u64 name
#include "stats.h"
#undef XFL_STAT
};

/*
 * One per multi-queue device (its sysfs files). Steering state proper is
 * @table, and @sn: the device is in xfl_steered, the hash the hooks look
 * devices up in, only while its table is on.
 */
struct xfl_dev {
	struct xnet_ndev nd;		/* xfl_devs (main.c): list, device */
	struct xnet_devnode hn;		/* xfl_hash (all devices, stats), RCU */
	struct xnet_devnode sn;		/* xfl_steered while @table, RCU */
	struct xfl_table __rcu *table;
	struct xfl_stats __percpu *stats;
	atomic_t no_bql;		/* transmits that saw dql.num_queued 0 */
	bool warned_no_bql;
	struct kobject *queues_kobj;	/* xps_flow/ under the device */
	struct kobject **queue_dirs;	/* its tx-N, N < nr_queue_dirs */
	unsigned int nr_queue_dirs;
	struct rcu_head rcu;		/* freed a grace period after detach */
};

/* hold_max_ms and hold_drains (main.c): defaults and bounds. */
#define XFL_HOLD_MAX_MS_DEFAULT	1000
#define XFL_HOLD_MAX_MS_MAX	8000
#define XFL_HOLD_DRAINS_DEFAULT	0
#define XFL_HOLD_DRAINS_MAX	64

/*
 * A lost compare-and-swap decides again with what won, this many times;
 * then the packet follows the entry as it is (a hold). datapath.c.
 */
#define XFL_CLAIM_TRIES		4

/*
 * Holds (parameters hold_max_ms and hold_drains): the longest hold in
 * ticks of a clock of 2^xfl_hold_shift ns (0: unbounded), and how many
 * drain times of its queue a hold may last (0: hold_max_ms alone).
 */
extern unsigned int xfl_hold_limit;
extern unsigned int xfl_hold_shift;
extern unsigned int xfl_hold_drains;

/* main.c */
int xfl_start(void);				/* the load */
void xfl_stop(void);				/* ... and the unload */
void xfl_hold_set(unsigned int ms);		/* hold_max_ms */
extern struct xnet_ndev_table xfl_devs;		/* every attached device */

/* table.c, RTNL held */
int xfl_enable(struct xfl_dev *xd, u32 entries);
void xfl_disable(struct xfl_dev *xd);
void xfl_forget(struct xfl_dev *xd);
u32 xfl_entries_in_use(struct xfl_dev *xd);	/* RCU, no RTNL */

/* hook.c */
struct xfl_dev *xfl_lookup(const struct net_device *dev);	/* RCU */
void xfl_hash_add(struct xfl_dev *xd);			/* RTNL */
void xfl_hash_del(struct xfl_dev *xd);			/* RTNL, then a GP */
int xfl_hooks_get(struct xfl_dev *xd);			/* RTNL: steer @xd */
void xfl_hooks_put(struct xfl_dev *xd);			/* RTNL, then a GP */
extern struct xnet_devhash xfl_steered;
extern struct xnet_devhash xfl_hash;		/* every attached device, RCU */
extern unsigned int xfl_nr_steered;		/* devices with a table, RTNL */

/* The steered device @dev, or NULL. RCU (every caller of the hooks is). */
static __always_inline struct xfl_dev *xfl_steered_find(const struct net_device *dev)
{
	struct xnet_devnode *n = xnet_devhash_find(&xfl_steered, dev);

	return n ? container_of(n, struct xfl_dev, sn) : NULL;
}

/* datapath.c: what the hooks call, and what they are given. */
u16 xfl_steer(struct xfl_dev *xd, struct net_device *dev, struct sk_buff *skb,
	      struct net_device *sb_dev, u16 proposed);
struct netdev_queue *xfl_core_pick_tx(struct net_device *dev,
				      struct sk_buff *skb,
				      struct net_device *sb_dev,
				      struct xfl_dev *xd);
void xfl_probe_start_xmit(void *data, const struct sk_buff *skb,
			  const struct net_device *dev);
void xfl_probe_xmit(void *data, struct sk_buff *skb, int rc,
		    struct net_device *dev, unsigned int skb_len);
void xfl_xmit_reset(void);		/* no probe registered: empty stacks */

/* queues.c, RTNL held */
int xfl_queues_add(struct xfl_dev *xd);
void xfl_queues_del(struct xfl_dev *xd);

/* @xd's counters summed over CPUs (a snapshot). RCU or RTNL. */
static inline void xfl_stats_sum(const struct xfl_dev *xd, struct xfl_stats *sum)
{
	xnet_pcpu_u64_sum((u64 *)sum, (const u64 __percpu *)xd->stats,
			  XNET_U64_COUNT(*sum));
}

#endif /* XPS_FLOW_H */
