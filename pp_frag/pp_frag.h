/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PP_FRAG_H
#define PP_FRAG_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "frag_pool.h"

#include "../common/netdev_table.h"
#include "../common/pcpu_stats.h"

/* Per CPU and pool; summed for pp_frag_stats. The list is stats.h. */
struct ppf_stats {
#define PPF_STAT(name)	u64 name
#include "stats.h"
#undef PPF_STAT
};

struct ppf_orphan;
struct seq_file;

/*
 * A CPU's cache of a pool: used on its CPU with BHs off; @lock (never
 * contended on the hot path) lets the shrinker drain it from elsewhere.
 */
struct ppf_cache {
	spinlock_t lock;			/* @c; outside the pool lock */
	struct xnet_frag_cache c;
};

struct iommu_domain;

/*
 * A device's pool. Published in an RCU hash by device while enabled; the
 * refill hook reaches it under rcu_read_lock(). @lock protects @state's
 * ring and slots; lock order: a CPU cache's lock, then @lock.
 */
struct ppf_pool {
	struct xnet_devnode hn;			/* ppf_hash, RCU; the device */
	struct list_head node;			/* ppf_pools, ppf_mutex */
	spinlock_t lock;			/* @state: ring, slots, adds */
	struct xnet_frag_pool state;
	struct xnet_frag_slot *slots;
	struct ppf_orphan **orphan_rec;		/* per slot: a mapped page's */
	struct ppf_cache __percpu *cache;
	struct ppf_stats __percpu *stats;
	struct xarray dma_pages;		/* pfn -> slot (value entry), DMA */
	struct device *dma_dev;			/* the driver's, while opted in */
	struct iommu_domain *dma_dom;		/* its IOMMU domain, or NULL */
	u64 dma_owner;				/* that opt-in (ppf_dev.dma_owner) */
	int nid;				/* NUMA node of the device */
	unsigned int order;			/* pages to allocate */
};

/* pool.c */
struct ppf_pool *ppf_pool_create(struct net_device *dev, unsigned int pages);
void ppf_pool_destroy(struct ppf_pool *pool);	/* unpublished, after RCU GP */
bool ppf_pool_refill(struct ppf_pool *pool, struct page_frag *pfrag);
unsigned long ppf_pool_shrink(struct ppf_pool *pool, unsigned long max);
unsigned long ppf_pool_idle_estimate(struct ppf_pool *pool);
int ppf_pool_stats_show(struct ppf_pool *pool, char *buf);	/* RCU */
struct ppf_dev;
int ppf_pool_dma_map(struct ppf_pool *pool, const struct ppf_dev *pd);
void ppf_pool_dma_unmap(struct ppf_pool *pool);
dma_addr_t ppf_pool_dma_addr(struct ppf_pool *pool, struct page *page);
/* Walks over a whole pool, a hold of its lock per batch (debugfs "global"). */
enum ppf_walk { PPF_WALK_MAP, PPF_WALK_UNMAP, PPF_WALK_LIST, PPF_WALKS };
void ppf_hold_max(enum ppf_walk dir, u64 *ns, unsigned int *slots);
void ppf_pool_show_pages(struct ppf_pool *pool, struct seq_file *m);
void ppf_orphans_reap(bool force, u64 owner);
void ppf_orphans_stop(void);
unsigned long ppf_orphans_count(void);
unsigned long ppf_orphans_mapped(void);
extern atomic_long_t ppf_pages_owned;	/* pages in pools and orphaned */
extern atomic_long_t ppf_handed_over;	/* busy when let go: freed by their last put */

/* hook.c */
int ppf_hook_init(void);
void ppf_hook_exit(void);

/* devices.c: one per net device, for its sysfs files and pool; RTNL. */
struct ppf_dev {
	struct xnet_ndev nd;		/* the device table: list, device */
	struct ppf_pool *pool;		/* published in the RCU hash too */
	struct device *dma_dev;		/* a driver's DMA opt-in */
	struct iommu_domain *dma_dom;	/* its IOMMU domain (at opt-in), or NULL */
	u64 dma_owner;			/* that opt-in's number: its mappings' owner */
};

extern struct list_head ppf_pools;	/* every pool, under ppf_mutex */
extern struct mutex ppf_mutex;	/* pools: list, shrinking, DMA (un)mapping */
struct ppf_pool *ppf_pool_of(const struct net_device *dev);	/* RCU */
struct ppf_dev *ppf_find(struct net_device *dev);		/* RTNL */
int ppf_devices_start(void);
void ppf_devices_stop(void);

/* params.c */
unsigned int ppf_named_pages(const char *name);

/* shrink.c */
int ppf_shrinker_init(void);
void ppf_shrinker_exit(void);

/* dma.c */
void ppf_dma_off(struct ppf_dev *pd);				/* RTNL */
bool ppf_dma_need_sync(struct device *dma_dev, struct iommu_domain *dom,
		       struct page *page, dma_addr_t dma);

/* debugfs.c */
void ppf_debugfs_init(void);
void ppf_debugfs_exit(void);

#endif /* PP_FRAG_H */
