// SPDX-License-Identifier: GPL-2.0
/*
 * pp_frag: socket-to-netdev page-frag recycling for socket transmit.
 *
 * Every net device gets /sys/class/net/<dev>/pp_frag_pool_pages: writing
 * N > 0 gives the device a pool of at most N pages (order 3, 32 KiB, with
 * order-0 fallback) on its NUMA node; 0 removes it. Sockets whose route
 * leads to a device with a pool take the pages of their page_frag
 * (sk_page_frag_refill(): TCP sendmsg, ip_append_data) from it, and a
 * page is reused once the stack dropped every reference (pool.c). The
 * `devices` parameter names devices to give a pool as they appear.
 * Documentation/pp-frag.md explains the design.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <xnet/abi.h>
#include <xnet/kernel/glue_impl.h>

#include "pp_frag.h"
#include "pp_frag_api.h"

#define PPF_DEFAULT_PAGES	256	/* 8 MiB of order-3 pages */
#define PPF_MAX_NAMED		16
#define PPF_EXIT_WAIT_MS	2000

/* One per net device, for its sysfs files; under RTNL. */
struct ppf_dev {
	struct xnet_ndev nd;		/* ppf_devs: list, device */
	struct ppf_pool *pool;		/* published in ppf_hash too */
	struct device *dma_dev;		/* a driver's DMA opt-in */
};

static struct xnet_ndev_table ppf_devs;
static struct xnet_devhash ppf_hash;	/* dev -> pool, RCU; RTNL to write */
static LIST_HEAD(ppf_pools);		/* for the shrinker, ppf_mutex */
static DEFINE_MUTEX(ppf_mutex);
static struct dentry *ppf_debugfs;

/* --- the `devices` parameter: name[:pages],... ------------------------ */

struct ppf_named {
	char name[IFNAMSIZ];
	unsigned int pages;
};

static struct ppf_named ppf_named[PPF_MAX_NAMED];
static unsigned int ppf_nnamed;
static char ppf_devices_str[PPF_MAX_NAMED * (IFNAMSIZ + 8)];

static int ppf_parse_devices(const char *val, struct ppf_named *out,
			     unsigned int *n)
{
	char buf[sizeof(ppf_devices_str)];
	char *s = buf, *item;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	strim(buf);
	*n = 0;
	while ((item = strsep(&s, ",")) != NULL) {
		char *colon = strchr(item, ':');
		unsigned int pages = PPF_DEFAULT_PAGES;

		if (!*item && !s && !*n)
			break;		/* empty list */
		if (colon) {
			*colon = '\0';
			if (kstrtouint(colon + 1, 10, &pages) || !pages ||
			    pages > XNET_FRAG_MAX_PAGES)
				return -EINVAL;
		}
		if (*n == PPF_MAX_NAMED || !dev_valid_name(item))
			return -EINVAL;
		strscpy(out[*n].name, item, IFNAMSIZ);
		out[*n].pages = pages;
		(*n)++;
	}
	return 0;
}

static int ppf_devices_set(const char *val, const struct kernel_param *kp)
{
	struct ppf_named named[PPF_MAX_NAMED];
	unsigned int n;

	if (ppf_parse_devices(val, named, &n)) {
		pr_err("devices: '%s' refused: expected name[:pages],... (at most %u devices, 1..%u pages)\n",
		       val, PPF_MAX_NAMED, XNET_FRAG_MAX_PAGES);
		return -EINVAL;
	}
	memcpy(ppf_named, named, sizeof(named));
	ppf_nnamed = n;
	strscpy(ppf_devices_str, val, sizeof(ppf_devices_str));
	strim(ppf_devices_str);
	return 0;
}

static int ppf_devices_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", ppf_devices_str);
}

static const struct kernel_param_ops ppf_devices_ops = {
	.set = ppf_devices_set,
	.get = ppf_devices_get,
};
module_param_cb(devices, &ppf_devices_ops, NULL, 0444);
MODULE_PARM_DESC(devices,
		 "Devices of the initial netns given a pool when they appear or are renamed so: name[:pages],... (pages: bound of the pool, default 256 = 8 MiB)");

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
static struct ppf_dev *ppf_find(struct net_device *dev)
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
		ppf_pool_dma_map(pool, pd->dma_dev);
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
	unsigned int i;
	int err;

	if (pd->pool || !net_eq(dev_net(dev), &init_net))
		return 0;
	for (i = 0; i < ppf_nnamed; i++) {
		if (strcmp(ppf_named[i].name, netdev_name(dev)))
			continue;
		err = ppf_enable(pd, ppf_named[i].pages);
		if (err && net_ratelimit())
			netdev_warn(dev, "pp_frag: no pool: %d\n", err);
		return err;
	}
	return 0;
}

static void ppf_dma_off(struct ppf_dev *pd);

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

/* A device renamed to a name in devices= gets its pool. */
static void ppf_renamed(struct xnet_ndev *nd)
{
	ppf_named_pool(ppf_dev_of(nd));
}

static struct xnet_ndev_table ppf_devs = {
	.alloc = ppf_alloc,
	.attached = ppf_attached,
	.release = ppf_release,
	.on_rename = ppf_renamed,
};

/* --- memory pressure -------------------------------------------------- */

static unsigned long ppf_shrink_count(struct shrinker *s,
				      struct shrink_control *sc)
{
	unsigned long n = 0;
	struct ppf_pool *pool;

	if (!mutex_trylock(&ppf_mutex))
		return 0;
	list_for_each_entry(pool, &ppf_pools, node)
		n += ppf_pool_idle_estimate(pool);
	mutex_unlock(&ppf_mutex);
	return n;
}

static unsigned long ppf_shrink_scan(struct shrinker *s,
				     struct shrink_control *sc)
{
	unsigned long freed = 0;
	struct ppf_pool *pool;

	if (!mutex_trylock(&ppf_mutex))
		return SHRINK_STOP;
	list_for_each_entry(pool, &ppf_pools, node) {
		if (freed >= sc->nr_to_scan)
			break;
		freed += ppf_pool_shrink(pool, sc->nr_to_scan - freed);
	}
	mutex_unlock(&ppf_mutex);
	return freed ? freed : SHRINK_STOP;
}

/*
 * Idle pool pages are a cache that costs nothing to rebuild: seeks 0 makes
 * every reclaim pass ask for half of them (DEFAULT_SEEKS would leave a pool
 * of a few hundred pages alone until reclaim gets desperate), in batches
 * small enough for a pool of a few dozen pages.
 */
static struct shrinker *ppf_shrinker;
#define PPF_SHRINK_SEEKS	0
#define PPF_SHRINK_BATCH	16

/* --- driver DMA opt-in (pp_frag_api.h) -------------------------------- */

/*
 * Does @dma_dev need syncs around a mapping (bounce buffering, a device
 * that is not DMA-coherent)? pp_frag maps a page once and hands its frags
 * out with no sync: wrong for such a device. Tried on a page of our own.
 */
static int ppf_dma_probe(struct device *dma_dev)
{
	struct page *page = alloc_page(GFP_KERNEL);
	dma_addr_t dma;
	int err = 0;

	if (!page)
		return -ENOMEM;
	dma = dma_map_page_attrs(dma_dev, page, 0, PAGE_SIZE, DMA_TO_DEVICE,
				 DMA_ATTR_SKIP_CPU_SYNC);
	if (dma_mapping_error(dma_dev, dma)) {
		err = -EIO;
	} else {
		if (dma_need_sync(dma_dev, dma))
			err = -EOPNOTSUPP;
		dma_unmap_page_attrs(dma_dev, dma, PAGE_SIZE, DMA_TO_DEVICE,
				     DMA_ATTR_SKIP_CPU_SYNC);
	}
	__free_page(page);
	return err;
}

int pp_frag_dma_register(struct net_device *dev, struct device *dma_dev)
{
	struct ppf_dev *pd;
	int err;

	ASSERT_RTNL();
	pd = ppf_find(dev);
	if (!pd || !dma_dev)
		return -ENODEV;
	if (pd->dma_dev)
		return pd->dma_dev == dma_dev ? 0 : -EBUSY;
	err = ppf_dma_probe(dma_dev);
	if (err == -EOPNOTSUPP)
		pr_info_ratelimited("%s: %s needs DMA syncs (bounce buffering or not coherent): no premapped pool pages, the driver maps frags as usual\n",
				    netdev_name(dev), dev_name(dma_dev));
	if (err)
		return err;
	/* ppf_mutex: not while the shrinker releases (and unmaps) pages. */
	mutex_lock(&ppf_mutex);
	pd->dma_dev = dma_dev;
	if (pd->pool)
		ppf_pool_dma_map(pd->pool, dma_dev);
	mutex_unlock(&ppf_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(pp_frag_dma_register);

/* RTNL. Drop every mapping for @pd's DMA device: pool pages and orphans. */
static void ppf_dma_off(struct ppf_dev *pd)
{
	if (!pd->dma_dev)
		return;
	mutex_lock(&ppf_mutex);
	if (pd->pool)
		ppf_pool_dma_unmap(pd->pool);
	mutex_unlock(&ppf_mutex);
	ppf_orphans_reap(true, pd->dma_dev);
	pd->dma_dev = NULL;
}

void pp_frag_dma_unregister(struct net_device *dev)
{
	struct ppf_dev *pd;

	ASSERT_RTNL();
	pd = ppf_find(dev);
	if (pd)
		ppf_dma_off(pd);
}
EXPORT_SYMBOL_GPL(pp_frag_dma_unregister);

dma_addr_t pp_frag_dma_addr(struct net_device *dev, struct page *page)
{
	struct page *head = compound_head(page);
	struct ppf_pool *pool;
	dma_addr_t dma = DMA_MAPPING_ERROR;

	rcu_read_lock();
	pool = ppf_pool_of(dev);
	if (pool)
		dma = ppf_pool_dma_addr(pool, head);
	rcu_read_unlock();
	/* The mapping covers the compound page: @page's own address. */
	if (dma != DMA_MAPPING_ERROR)
		dma += (dma_addr_t)(page_to_pfn(page) - page_to_pfn(head)) << PAGE_SHIFT;
	return dma;
}
EXPORT_SYMBOL_GPL(pp_frag_dma_addr);

/* --- module ----------------------------------------------------------- */

static int ppf_global_show(struct seq_file *m, void *v)
{
	seq_printf(m, "pages_owned %ld\norphans %lu\norphans_mapped %lu\nhanded_over %ld\n",
		   atomic_long_read(&ppf_pages_owned), ppf_orphans_count(),
		   ppf_orphans_mapped(), atomic_long_read(&ppf_handed_over));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ppf_global);

static int ppf_pages_show(struct seq_file *m, void *v)
{
	struct ppf_pool *pool;

	/* ppf_mutex: no pool is destroyed (nor shrunk) meanwhile. */
	mutex_lock(&ppf_mutex);
	list_for_each_entry(pool, &ppf_pools, node)
		ppf_pool_show_pages(pool, m);
	ppf_pool_show_pages(NULL, m);
	mutex_unlock(&ppf_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ppf_pages);

static int __init pp_frag_init(void)
{
	int err;

	ppf_shrinker = xnet_shrinker_create("pp_frag", ppf_shrink_count,
					    ppf_shrink_scan, PPF_SHRINK_SEEKS,
					    PPF_SHRINK_BATCH);
	if (!ppf_shrinker)
		return -ENOMEM;
	err = ppf_hook_init();
	if (err)
		goto err_shrinker;
	err = xnet_ndev_table_start(&ppf_devs, &ppf_pool_pages, &dev_attr_pp_frag_stats);
	if (err)
		goto err_hook;
	ppf_debugfs = debugfs_create_dir("pp_frag", NULL);
	debugfs_create_file("global", 0444, ppf_debugfs, NULL, &ppf_global_fops);
	debugfs_create_file("pages", 0400, ppf_debugfs, NULL, &ppf_pages_fops);
	return 0;

err_hook:
	ppf_hook_exit();
err_shrinker:
	xnet_shrinker_destroy(ppf_shrinker);
	return err;
}

static void __exit pp_frag_exit(void)
{
	unsigned int waited = 0;

	debugfs_remove_recursive(ppf_debugfs);
	/* No refill reaches a pool after this (and none is still running). */
	ppf_hook_exit();
	xnet_ndev_table_stop(&ppf_devs);
	xnet_shrinker_destroy(ppf_shrinker);
	/* Mapped pages still in flight: give them a moment, then let go. */
	while (ppf_orphans_count() && waited < PPF_EXIT_WAIT_MS) {
		msleep(100);
		waited += 100;
	}
	ppf_orphans_stop();
	ppf_orphans_reap(true, NULL);
}

module_init(pp_frag_init);
module_exit(pp_frag_exit);

MODULE_DESCRIPTION("Socket-to-netdev page-frag recycling for socket transmit");
MODULE_LICENSE("GPL");
