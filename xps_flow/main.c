// SPDX-License-Identifier: GPL-2.0
/*
 * xps_flow: XPS transmit flow steering with BQL in-flight tracking.
 *
 * Every multi-queue net device (present at load and hot-added) gets
 * /sys/class/net/<dev>/xps_dev_flow_table_cnt: writing N > 0 (rounded up
 * to a power of two, at most XNET_XPS_MAX_ENTRIES) turns steering on with
 * a table of that many entries, 0 turns it off; the parameter devices=
 * does that write for the devices it names when they appear. The hooks
 * (hook.c) are registered while any table is on;
 * Documentation/xps-flow.md explains the design. rmmod turns every table
 * off and unloads. module.c loads and unloads (xfl_start(), xfl_stop());
 * KUnit compiles the other files into its suite without it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <xnet/abi.h>
#include "../common/named_param.h"
#include "decide.h"
#include "key.h"
#include "xps_flow.h"

/*
 * hold_max_ms: how long a flow may be held on its old queue against the
 * queue XPS proposes, at most. A queue that never drains (a bulk flow keeps
 * its qdisc full, or it stalls) would otherwise keep the flow forever, on
 * another CPU's queue; past the bound the flow moves, and may be reordered
 * once. hold_drains shortens it: a hold lasts at most that many drain
 * times of the old queue (the bytes on it at its measured completion rate,
 * datapath.c). Off by default: a flow that keeps sending to the queue it
 * is held on is reordered when the bound cuts its hold short, and what
 * default wins goodput without costing order is for the TCP bench to say
 * (Documentation/xps-flow.md). The hold's start is stamped in the entry
 * with 10 bits of a clock of 2^xfl_hold_shift ns, the shift the smallest
 * that puts hold_max_ms within XNET_XPS_HOLD_LIMIT_MAX ticks (half the
 * stamp's range): a hold ends within one tick of its bound (2.1 ms at the
 * default 1000 ms, 0.26 ms at 100 ms).
 */
static unsigned int xfl_hold_max_ms = XFL_HOLD_MAX_MS_DEFAULT;
unsigned int xfl_hold_limit __read_mostly;
unsigned int xfl_hold_shift __read_mostly;
unsigned int xfl_hold_drains __read_mostly = XFL_HOLD_DRAINS_DEFAULT;

void xfl_hold_set(unsigned int ms)
{
	u64 ns = (u64)ms * NSEC_PER_MSEC;
	unsigned int shift = 0;

	while (DIV_ROUND_UP_ULL(ns, 1ULL << shift) > XNET_XPS_HOLD_LIMIT_MAX)
		shift++;
	WRITE_ONCE(xfl_hold_max_ms, ms);
	/* A hold decided between the two writes is off by a factor 2 once. */
	WRITE_ONCE(xfl_hold_shift, shift);
	WRITE_ONCE(xfl_hold_limit, DIV_ROUND_UP_ULL(ns, 1ULL << shift));
}

/* A parameter's value: 0..@max, or -EINVAL and one line saying why. */
static int xfl_param_u32(const char *name, const char *val, u32 max, u32 *out)
{
	struct xnet_parse_res res;

	if (xnet_parse_u32(val, strlen(val), 0, max, out, &res) == XNET_OK)
		return 0;
	pr_err_ratelimited("%s: '%.*s' refused: %s (want 0..%u)\n", name,
			   (int)min_t(size_t, strcspn(val, "\n"), 64), val,
			   xnet_err_str(res.err), max);
	return -EINVAL;
}

static int xfl_set_hold_max_ms(const char *val, const struct kernel_param *kp)
{
	u32 ms;
	int err = xfl_param_u32("hold_max_ms", val, XFL_HOLD_MAX_MS_MAX, &ms);

	if (!err)
		xfl_hold_set(ms);
	return err;
}

/* Read back as written (sysfs serialises the parameter's set and get). */
module_param_call(hold_max_ms, xfl_set_hold_max_ms, param_get_uint,
		  &xfl_hold_max_ms, 0644);
MODULE_PARM_DESC(hold_max_ms,
		 "Longest time in ms a flow is held on its old TX queue while that queue is busy (0..8000, default 1000; 0 = until the queue drains, however long). Past it the flow moves to the queue XPS proposes and may be reordered once. Writable.");

static int xfl_set_hold_drains(const char *val, const struct kernel_param *kp)
{
	u32 n;
	int err = xfl_param_u32("hold_drains", val, XFL_HOLD_DRAINS_MAX, &n);

	if (!err)
		WRITE_ONCE(xfl_hold_drains, n);
	return err;
}

module_param_call(hold_drains, xfl_set_hold_drains, param_get_uint,
		  &xfl_hold_drains, 0644);
MODULE_PARM_DESC(hold_drains,
		 "A flow is held on its old TX queue at most this many drain times of that queue (its bytes queued at its measured completion rate), hold_max_ms at most (0..64, default 0 = hold_max_ms alone). Writable.");

/*
 * devices: name[:entries],... names devices of the initial namespace
 * that get a table when they appear (registered, renamed to the name,
 * moved into init_net), as if its size had been written to
 * xps_dev_flow_table_cnt; "*" stands for every multi-queue device there.
 * Set at load only (0444): the list is what the devices registered since
 * were judged by.
 */
#define XFL_NAMED_MAX			16
#define XFL_NAMED_ENTRIES_DEFAULT	4096	/* 32 KiB */
#define XFL_ALL				"*"

static struct xnet_named xfl_named[XFL_NAMED_MAX];
static char xfl_devices_str[XFL_NAMED_MAX * (IFNAMSIZ + 8)];

/* name[:entries],... or "*", each name once (common/named_param.h). */
static struct xnet_named_param xfl_devices = {
	.unit = "entries",
	.spec = {
		.def = XFL_NAMED_ENTRIES_DEFAULT,
		.min = 1,
		.max = XNET_XPS_MAX_ENTRIES,
		.flags = XNET_NAMED_STAR,
	},
	.named = xfl_named,
	.cap = XFL_NAMED_MAX,
	.str = xfl_devices_str,
	.str_size = sizeof(xfl_devices_str),
};

static const struct kernel_param_ops xfl_devices_ops = {
	.set = xnet_named_param_set,
	.get = xnet_named_param_get,
};
module_param_cb(devices, &xfl_devices_ops, &xfl_devices, 0444);
MODULE_PARM_DESC(devices,
		 "Devices of the initial netns given a flow table when they appear or are renamed so: name[:entries],... (name or * for every multi-queue device, each once, at most 16; entries 1..1048576, rounded up to a power of 2, default 4096). Load time only.");

/*
 * The entries devices= gives a device named @name (its own item, else
 * "*"), 0 when it names none; @named: by its name.
 */
static u32 xfl_named_entries(const char *name, bool *named)
{
	const struct xnet_named *d = xnet_named_find(&xfl_devices, name);

	*named = !!d;
	if (!d)
		d = xnet_named_find(&xfl_devices, XFL_ALL);
	return d ? d->value : 0;
}

static u32 xfl_table_cnt_get(struct xnet_ndev *nd)
{
	struct xfl_table *t = rtnl_dereference(container_of(nd, struct xfl_dev, nd)->table);

	return t ? t->mask + 1 : 0;
}

static int xfl_table_cnt_set(struct xnet_ndev *nd, u32 req)
{
	struct xfl_dev *xd = container_of(nd, struct xfl_dev, nd);
	unsigned int size;

	/* Refused above the bound, not clamped: the user sees the bound. */
	if (req > XNET_XPS_MAX_ENTRIES)
		return -EINVAL;
	size = req ? roundup_pow_of_two(req) : 0;
	if (size && nd->dev->real_num_tx_queues < 2)
		return -EOPNOTSUPP;
	if (size && nd->dev->num_tx_queues > XNET_XPS_MAX_QUEUES) {
		net_warn_ratelimited("%s: %u TX queues: a flow entry names at most %u\n",
				     netdev_name(nd->dev), nd->dev->num_tx_queues,
				     XNET_XPS_MAX_QUEUES);
		return -EOPNOTSUPP;
	}
	if (!size) {
		xfl_disable(xd);
		return 0;
	}
	return xfl_enable(xd, size);
}

/* Can @dev take a table (xfl_table_cnt_set()'s checks)? */
static bool xfl_dev_steerable(const struct net_device *dev)
{
	return dev->real_num_tx_queues >= 2 &&
	       dev->num_tx_queues <= XNET_XPS_MAX_QUEUES;
}

/*
 * A device of the initial namespace that devices= names cannot take a
 * table: one line (ratelimited). "*" passes over such devices silently.
 */
static void xfl_named_refused(struct net_device *dev)
{
	bool named;

	if (!xfl_devices.count || !net_eq(dev_net(dev), &init_net))
		return;
	xfl_named_entries(netdev_name(dev), &named);
	if (named && net_ratelimit())
		netdev_warn(dev, "xps_flow: devices= names it, but a table needs 2..%u TX queues (%u real of %u): none\n",
			    XNET_XPS_MAX_QUEUES, dev->real_num_tx_queues,
			    dev->num_tx_queues);
}

/*
 * RTNL. A device of the initial namespace that devices= names gets its
 * table when it appears, moves into init_net or is renamed to the name,
 * through the knob's own path; a container's device of that name does
 * not. A table it has (the user's, or devices=' own) stays as it is.
 */
static int xfl_named_table(struct xfl_dev *xd)
{
	struct net_device *dev = xd->nd.dev;
	bool named;
	u32 entries;
	int err;

	if (!xfl_devices.count || rtnl_dereference(xd->table) ||
	    !net_eq(dev_net(dev), &init_net))
		return 0;
	entries = xfl_named_entries(netdev_name(dev), &named);
	if (!entries)
		return 0;
	if (!xfl_dev_steerable(dev)) {
		xfl_named_refused(dev);
		return 0;
	}
	err = xfl_table_cnt_set(&xd->nd, entries);
	if (err && net_ratelimit())
		netdev_warn(dev, "xps_flow: no table of %u entries from devices=: %d\n",
			    entries, err);
	return err;
}

/* CAP_NET_ADMIN in the device's netns: a container's root may steer. */
static struct xnet_ndev_knob xfl_table_cnt = {
	.attr = __ATTR(xps_dev_flow_table_cnt, 0644, xnet_ndev_knob_show,
		       xnet_ndev_knob_store),
	.table = &xfl_devs,
	.max = XNET_XPS_MAX_ENTRIES,
	.get = xfl_table_cnt_get,
	.set = xfl_table_cnt_set,
};

static ssize_t xps_flow_stats_show(struct device *d,
				   struct device_attribute *attr, char *buf)
{
	struct xfl_stats sum = {};
	struct xfl_dev *xd;
	u32 in_use = 0;
	int len;

	/*
	 * World-readable: no RTNL over the table scan (up to 2^20 entries).
	 * @xd, its counters and its table are freed a grace period after
	 * they are unpublished: found and read under RCU, as the datapath.
	 */
	rcu_read_lock();
	xd = xfl_lookup(to_net_dev(d));
	if (xd) {
		xfl_stats_sum(xd, &sum);
		in_use = xfl_entries_in_use(xd);
	}
	rcu_read_unlock();
	len = sysfs_emit(buf, "in_use %u\n", in_use);
#define XFL_STAT(name)	(len += sysfs_emit_at(buf, len, #name " %llu\n", sum.name))
#include "stats.h"
#undef XFL_STAT
	return len;
}
static DEVICE_ATTR_RO(xps_flow_stats);

/*
 * The device's entry: only a multi-queue device gets one. Charged to the
 * creator of the device (a container's root can).
 */
static struct xnet_ndev *xfl_alloc(struct net_device *dev)
{
	struct xfl_dev *xd;

	if (dev->num_tx_queues < 2) {
		xfl_named_refused(dev);
		return NULL;
	}
	xd = kzalloc(sizeof(*xd), GFP_KERNEL_ACCOUNT);
	if (!xd)
		return ERR_PTR(-ENOMEM);
	xd->stats = alloc_percpu_gfp(struct xfl_stats, GFP_KERNEL_ACCOUNT);
	if (!xd->stats) {
		kfree(xd);
		return ERR_PTR(-ENOMEM);
	}
	return &xd->nd;
}

/*
 * RTNL held: listed, its sysfs files made. Its devices= table not made:
 * the load fails (nothing of the device kept); a device registered later
 * is only left without its table (warned).
 */
static int xfl_attached(struct xnet_ndev *nd)
{
	struct xfl_dev *xd = container_of(nd, struct xfl_dev, nd);
	int err;

	xfl_hash_add(xd);
	err = xfl_queues_add(xd);
	if (err) {
		if (net_ratelimit())
			netdev_warn(nd->dev, "xps_flow: no per-queue files: %d\n", err);
		return err;
	}
	err = xfl_named_table(xd);
	return xnet_ndev_loading(&xfl_devs) ? err : 0;
}

/* Renamed to a name in devices=, or moved into init_net: its table. */
static void xfl_named_again(struct xnet_ndev *nd)
{
	xfl_named_table(container_of(nd, struct xfl_dev, nd));
}

static void xfl_free_rcu(struct rcu_head *head)
{
	struct xfl_dev *xd = container_of(head, struct xfl_dev, rcu);

	free_percpu(xd->stats);
	kfree(xd);
}

/*
 * RTNL held, its files gone: steering off (a device without a table costs
 * nothing more), freed once the stats readers that may have found it are
 * done (no wait here: unregistering a device does not wait for us).
 */
static void xfl_release_dev(struct xnet_ndev *nd)
{
	struct xfl_dev *xd = container_of(nd, struct xfl_dev, nd);

	xfl_disable(xd);
	xfl_queues_del(xd);
	if (!hlist_unhashed(&xd->hn.hnode))
		xfl_hash_del(xd);
	call_rcu(&xd->rcu, xfl_free_rcu);
}

/* Closing a device resets its BQL counters: old heads mean nothing. */
static void xfl_down(struct xnet_ndev *nd)
{
	xfl_forget(container_of(nd, struct xfl_dev, nd));
}

struct xnet_ndev_table xfl_devs = {
	.alloc = xfl_alloc,
	.attached = xfl_attached,
	.release = xfl_release_dev,
	.on_down = xfl_down,
	.on_rename = xfl_named_again,
	.on_moved = xfl_named_again,
};

/* The module's load (module.c); KUnit calls it around each case. */
int xfl_start(void)
{
	int err;

	xfl_key_init();
	xfl_hold_set(READ_ONCE(xfl_hold_max_ms));
	err = xnet_ndev_table_start(&xfl_devs, &xfl_table_cnt, &dev_attr_xps_flow_stats);
	if (err)
		rcu_barrier();	/* the devices detached: xfl_free_rcu() done */
	return err;
}

/* The module's unload: every table off (and with the last, the hooks). */
void xfl_stop(void)
{
	xnet_ndev_table_stop(&xfl_devs);
	rcu_barrier();	/* xfl_free_rcu() done */
}
