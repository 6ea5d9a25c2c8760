/* SPDX-License-Identifier: GPL-2.0 */
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
};

/* Per CPU and device; the list is stats.h. */
struct xfl_stats {
#define XFL_STAT(name)	u64 name
#include "stats.h"
#undef XFL_STAT
};

/*
 * One per multi-queue device. While steering is on, dev->netdev_ops points
 * at @ops, a copy of @orig_ops with ndo_select_queue and ndo_start_xmit
 * wrapped (the device's own ops are never written): our hook (struct
 * xfl_hook, steer.c). The hook is made on the first enable and reused by
 * every later one (a new one only when the device's own ops changed in
 * between); it is never freed while the module is loaded (see
 * xfl_hook_retire()). While @installed, the module is pinned.
 */
struct xfl_dev {
	struct xnet_ndev nd;		/* xfl_devs (main.c): list, device */
	struct xnet_devnode hn;		/* xfl_hash, RCU; hn.dev == nd.dev */
	const struct net_device_ops *orig_ops;	/* the device's, under @ops */
	const struct net_device_ops *ops;	/* our hook's ops, or NULL */
	struct xfl_table __rcu *table;
	struct xfl_stats __percpu *stats;
	atomic_t no_bql;		/* transmits that saw dql.num_queued 0 */
	bool warned_no_bql;
	bool installed;		/* we set dev->netdev_ops = @ops and did not restore */
	bool warned_foreign;	/* someone else replaced dev->netdev_ops: said once */
	struct kobject *queues_kobj;	/* xps_flow/ under the device */
	struct kobject **queue_dirs;	/* its tx-N, N < nr_queue_dirs */
	unsigned int nr_queue_dirs;
};

/* The longest hold, in jiffies (0: unbounded); parameter hold_max_ms. */
extern unsigned int xfl_hold_limit;

struct xfl_dev *xfl_lookup(const struct net_device *dev);	/* RCU */
void xfl_hash_add(struct xfl_dev *xd);
void xfl_hash_del(struct xfl_dev *xd);
int xfl_enable(struct xfl_dev *xd, u32 entries);	/* RTNL held */
void xfl_disable(struct xfl_dev *xd);			/* RTNL held */
void xfl_forget(struct xfl_dev *xd);			/* RTNL held */
void xfl_release(struct xfl_dev *xd);			/* RTNL held */
void xfl_hooks_free(void);			/* module exit, nothing hooked */
const char *xfl_ops_comparer(const struct net_device *dev,
			     const char *const *names, unsigned int n);
u32 xfl_entries_in_use(struct xfl_dev *xd);
int xfl_queues_add(struct xfl_dev *xd);		/* RTNL held */
void xfl_queues_del(struct xfl_dev *xd);		/* RTNL held */
void xfl_key_init(void);			/* before any device is hooked */
int xfl_start(void);				/* main.c: the load */
void xfl_stop(void);				/* ... and the unload */

/* @xd's counters summed over CPUs (a snapshot). RCU or RTNL. */
static inline void xfl_stats_sum(const struct xfl_dev *xd, struct xfl_stats *sum)
{
	xnet_pcpu_u64_sum((u64 *)sum, (const u64 __percpu *)xd->stats,
			  XNET_U64_COUNT(*sum));
}

#endif /* XPS_FLOW_H */
