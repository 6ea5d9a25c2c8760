// SPDX-License-Identifier: GPL-2.0
/*
 * pp_frag's devices: an entry per net device (common/netdev_table.h: the
 * notifier, the two sysfs files), its pool made, replaced and removed
 * under RTNL and published by device in an RCU hash for the refill hook.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <net/net_namespace.h>

#include "pp_frag.h"

static struct xnet_ndev_table ppf_devs;
static struct xnet_devhash ppf_hash;	/* dev -> pool, RCU; RTNL to write */
LIST_HEAD(ppf_pools);		/* for the shrinker, ppf_mutex */
DEFINE_MUTEX(ppf_mutex);	/* pools: list, shrinking, DMA (un)mapping */

/* --- pools ------------------------------------------------------------ */

struct ppf_pool *ppf_pool_of(const struct net_device *dev)
{
	struct xnet_devnode *n = xnet_devhash_find(&ppf_hash, dev);

	return n ? container_of(n, struct ppf_pool, hn) : NULL;
}

static struct ppf_dev *ppf_dev_of(struct xnet_ndev *nd)
{
	return container_of(nd, struct ppf_dev, nd);
}

/* RTNL. */
struct ppf_dev *ppf_find(struct net_device *dev)
{
	struct xnet_ndev *nd = xnet_ndev_find(&ppf_devs, dev);

	return nd ? ppf_dev_of(nd) : NULL;
}

/* RTNL. Sockets stop drawing from the pool; its pages are let go. */
static void ppf_disable(struct ppf_dev *pd)
{
	struct ppf_pool *pool = pd->pool;

	if (!pool)
		return;
	xnet_devhash_del(&pool->hn);
	pd->pool = NULL;
	mutex_lock(&ppf_mutex);
	list_del(&pool->node);
	mutex_unlock(&ppf_mutex);
	synchronize_rcu();	/* refill hooks that found the pool are done */
	ppf_pool_destroy(pool);
}

/* RTNL. A pool of at most @pages pages (replacing the current one). */
static int ppf_enable(struct ppf_dev *pd, unsigned int pages)
{
	struct ppf_pool *pool;

	if (pd->pool && pd->pool->state.cap == pages)
		return 0;
	pool = ppf_pool_create(pd->nd.dev, pages);
	if (!pool)
		return -ENOMEM;
	if (pd->dma_dev)
		ppf_pool_dma_map(pool, pd);
	ppf_disable(pd);
	pd->pool = pool;
	mutex_lock(&ppf_mutex);
	list_add(&pool->node, &ppf_pools);
	mutex_unlock(&ppf_mutex);
	xnet_devhash_add(&ppf_hash, &pool->hn, pd->nd.dev);
	return 0;
}

/* --- sysfs ------------------------------------------------------------ */

static u32 ppf_pool_pages_get(struct xnet_ndev *nd)
{
	struct ppf_dev *pd = ppf_dev_of(nd);

	return pd->pool ? pd->pool->state.cap : 0;
}

static int ppf_pool_pages_set(struct xnet_ndev *nd, u32 pages)
{
	struct ppf_dev *pd = ppf_dev_of(nd);

	if (pages)
		return ppf_enable(pd, pages);
	ppf_disable(pd);
	return 0;
}

/*
 * The initial namespace's CAP_NET_ADMIN, not the device's netns owner's:
 * pool pages serve every socket sending through the device and outlive
 * the writer, so no memory cgroup can be charged for them.
 */
static struct xnet_ndev_knob ppf_pool_pages = {
	.attr = __ATTR(pp_frag_pool_pages, 0644, xnet_ndev_knob_show,
		       xnet_ndev_knob_store),
	.table = &ppf_devs,
	.max = XNET_FRAG_MAX_PAGES,
	.flags = XNET_KNOB_INIT_NS_ADMIN | XNET_KNOB_REFUSAL_ERR,
	.get = ppf_pool_pages_get,
	.set = ppf_pool_pages_set,
};

static ssize_t pp_frag_stats_show(struct device *d,
				  struct device_attribute *attr, char *buf)
{
	int len;

	/*
	 * World-readable: no RTNL, no pool lock. The pool is found as the
	 * datapath finds it, under RCU, and summed lockless.
	 */
	rcu_read_lock();
	len = ppf_pool_stats_show(ppf_pool_of(to_net_dev(d)), buf);
	rcu_read_unlock();
	return len;
}
static DEVICE_ATTR_RO(pp_frag_stats);

/* --- devices ---------------------------------------------------------- */

/*
 * RTNL. A device of the initial namespace named in devices= gets its pool
 * (when it appears, moves into init_net, or is renamed to that name); a
 * container's device of the same name does not. A pool it has stays.
 */
static int ppf_named_pool(struct ppf_dev *pd)
{
	struct net_device *dev = pd->nd.dev;
	unsigned int pages;
	int err;

	if (pd->pool || !net_eq(dev_net(dev), &init_net))
		return 0;
	pages = ppf_named_pages(netdev_name(dev));
	if (!pages)
		return 0;
	err = ppf_enable(pd, pages);
	if (err && net_ratelimit())
		netdev_warn(dev, "pp_frag: no pool: %d\n", err);
	return err;
}

static struct xnet_ndev *ppf_alloc(struct net_device *dev)
{
	struct ppf_dev *pd = kzalloc(sizeof(*pd), GFP_KERNEL_ACCOUNT);

	return pd ? &pd->nd : ERR_PTR(-ENOMEM);
}

/*
 * RTNL: listed, its sysfs files made. Its devices= pool not made: the
 * load fails (nothing of the device kept); a device registered later is
 * only left without its pool.
 */
static int ppf_attached(struct xnet_ndev *nd)
{
	int err = ppf_named_pool(ppf_dev_of(nd));

	return xnet_ndev_loading(&ppf_devs) ? err : 0;
}

/* A device renamed to a name in devices=, or moved into init_net, gets its pool. */
static void ppf_renamed(struct xnet_ndev *nd)
{
	ppf_named_pool(ppf_dev_of(nd));
}

/* RTNL, its files gone. */
static void ppf_release(struct xnet_ndev *nd)
{
	struct ppf_dev *pd = ppf_dev_of(nd);

	/*
	 * The device is closed (its TX rings drained): its driver's mappings
	 * go now, orphans' included, whether or not the driver opted out in
	 * a notifier of its own before ours. Orphans must not keep a device
	 * pointer: the driver (and its struct device) may go before they idle.
	 */
	ppf_dma_off(pd);
	ppf_disable(pd);
	kfree(pd);
}

/* Every device attached (existing ones now: an error fails the load). */
int ppf_devices_start(void)
{
	return xnet_ndev_table_start(&ppf_devs, &ppf_pool_pages,
				     &dev_attr_pp_frag_stats);
}

/* Every device detached: its pool gone, its DMA mappings dropped. */
void ppf_devices_stop(void)
{
	xnet_ndev_table_stop(&ppf_devs);
}

/* The device table: what pp_frag does with each device. */
static struct xnet_ndev_table ppf_devs = {
	.alloc = ppf_alloc,
	.attached = ppf_attached,
	.release = ppf_release,
	.on_rename = ppf_renamed,
	.on_moved = ppf_renamed,
};
