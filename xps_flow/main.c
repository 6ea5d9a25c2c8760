// SPDX-License-Identifier: GPL-2.0
/*
 * xps_flow: XPS transmit flow steering with BQL in-flight tracking.
 *
 * Every multi-queue net device (present at load and hot-added) gets
 * /sys/class/net/<dev>/xps_dev_flow_table_cnt: writing N > 0 (rounded up
 * to a power of two, at most XNET_XPS_MAX_ENTRIES) turns steering on with
 * a table of that many entries, 0 turns it off. The mechanism (wrapped
 * net_device_ops) is in steer.c; Documentation/xps-flow.md explains it.
 * While steering is on for any device the module is in use: rmmod is
 * refused (EBUSY) until every table is 0 again or its device is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <xnet/abi.h>
#include <xnet/xps_abi.h>
/*
 * KUnit (kunit/xps_flow_steer_test.c) includes this file with
 * XPS_FLOW_KUNIT defined: the test object defines the C glue itself and
 * calls xfl_start()/xfl_stop() around each case instead of module_init.
 */
#ifndef XPS_FLOW_KUNIT
#include <xnet/kernel/glue_impl.h>
#endif

#include "xps_flow.h"

static LIST_HEAD(xfl_devs);	/* under RTNL */

/*
 * hold_max_ms: how long a flow may be held on its old queue against the
 * queue XPS proposes. A queue that never drains (a bulk flow keeps its
 * qdisc full) would otherwise keep the flow forever, on another CPU's
 * queue; past the bound the flow moves, and may be reordered once. The
 * hold's start is stamped in the entry with 14 bits of jiffies: the bound
 * stays below half of that range (8 s at HZ=1000).
 */
#define XFL_HOLD_MAX_MS_DEFAULT	1000
#define XFL_HOLD_MAX_MS_MAX	8000
static unsigned int xfl_hold_max_ms = XFL_HOLD_MAX_MS_DEFAULT;
unsigned int xfl_hold_limit __read_mostly;

static void xfl_hold_set(unsigned int ms)
{
	WRITE_ONCE(xfl_hold_max_ms, ms);
	/* A bound below one jiffy is one jiffy: 0 alone means unbounded. */
	WRITE_ONCE(xfl_hold_limit, ms ? max(msecs_to_jiffies(ms), 1UL) : 0);
}

static int xfl_set_hold_max_ms(const char *val, const struct kernel_param *kp)
{
	struct xnet_parse_res res;
	unsigned int ms;

	if (xnet_parse_u32(val, strlen(val), 0, XFL_HOLD_MAX_MS_MAX, &ms, &res) != XNET_OK) {
		pr_err_ratelimited("hold_max_ms: '%.*s' refused: %s (want 0..%u)\n",
				   (int)min_t(size_t, strcspn(val, "\n"), 64), val,
				   xnet_err_str(res.err), XFL_HOLD_MAX_MS_MAX);
		return -EINVAL;
	}
	xfl_hold_set(ms);
	return 0;
}

static int xfl_get_hold_max_ms(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(xfl_hold_max_ms));
}

static const struct kernel_param_ops xfl_hold_max_ms_ops = {
	.set = xfl_set_hold_max_ms,
	.get = xfl_get_hold_max_ms,
};
module_param_cb(hold_max_ms, &xfl_hold_max_ms_ops, NULL, 0644);
MODULE_PARM_DESC(hold_max_ms,
		 "Longest time in ms a flow is held on its old TX queue while that queue is busy (0..8000, default 1000; 0 = until the queue drains, however long). Past it the flow moves to the queue XPS proposes and may be reordered once. Writable.");

static struct xfl_dev *xfl_find(struct net_device *dev)
{
	struct xfl_dev *xd;

	ASSERT_RTNL();
	list_for_each_entry(xd, &xfl_devs, node)
		if (xd->dev == dev)
			return xd;
	return NULL;
}

static ssize_t xps_dev_flow_table_cnt_show(struct device *d,
					   struct device_attribute *attr,
					   char *buf)
{
	struct xfl_dev *xd;
	u32 n = 0;

	if (!rtnl_trylock())
		return restart_syscall();
	xd = xfl_find(to_net_dev(d));
	if (xd && rtnl_dereference(xd->table))
		n = rtnl_dereference(xd->table)->mask + 1;
	rtnl_unlock();
	return sysfs_emit(buf, "%u\n", n);
}

static ssize_t xps_dev_flow_table_cnt_store(struct device *d,
					    struct device_attribute *attr,
					    const char *buf, size_t len)
{
	struct net_device *dev = to_net_dev(d);
	struct xnet_parse_res res;
	unsigned int req, size;
	struct xfl_dev *xd;
	int err;

	if (!ns_capable(dev_net(dev)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (xnet_parse_u32(buf, len, 0, XNET_XPS_MAX_ENTRIES, &req, &res) != XNET_OK) {
		pr_warn_ratelimited("%s: xps_dev_flow_table_cnt: '%.*s' refused: %s (0..%u)\n",
				    netdev_name(dev),
				    (int)min_t(size_t, strcspn(buf, "\n"), 32),
				    buf, xnet_err_str(res.err), XNET_XPS_MAX_ENTRIES);
		return -EINVAL;
	}
	if (xnet_table_size(req, XNET_XPS_MAX_ENTRIES, &size) != XNET_OK)
		return -EINVAL;
	if (!rtnl_trylock())
		return restart_syscall();
	xd = xfl_find(dev);
	if (!xd) {
		err = -ENODEV;
	} else if (size && dev->real_num_tx_queues < 2) {
		err = -EOPNOTSUPP;
	} else if (!size) {
		xfl_disable(xd);
		err = 0;
	} else {
		err = xfl_enable(xd, size);
	}
	rtnl_unlock();
	return err ? err : len;
}
static DEVICE_ATTR_RW(xps_dev_flow_table_cnt);

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

static struct attribute *xfl_attrs[] = {
	&dev_attr_xps_dev_flow_table_cnt.attr,
	&dev_attr_xps_flow_stats.attr,
	NULL,
};

static const struct attribute_group xfl_group = {
	.attrs = xfl_attrs,
};

static void xfl_detach(struct xfl_dev *xd);

/*
 * RTNL held. 0, or an error when the device could not be handled (warned,
 * nothing of it left): the load fails with it (xfl_loading), a device
 * registered later is only left without steering.
 */
static int xfl_attach(struct net_device *dev)
{
	struct xfl_dev *xd;
	int err;

	if (dev->num_tx_queues < 2 || xfl_find(dev))
		return 0;
	/* Charged to the creator of the device (a container's root can). */
	xd = kzalloc(sizeof(*xd), GFP_KERNEL_ACCOUNT);
	if (!xd)
		goto nomem;
	xd->stats = alloc_percpu_gfp(struct xfl_stats, GFP_KERNEL_ACCOUNT);
	if (!xd->stats)
		goto nomem;
	xd->dev = dev;
	err = sysfs_create_group(&dev->dev.kobj, &xfl_group);
	if (err) {
		if (net_ratelimit())
			netdev_warn(dev, "xps_flow: no sysfs files: %d\n", err);
		free_percpu(xd->stats);
		kfree(xd);
		return err;
	}
	list_add(&xd->node, &xfl_devs);
	xfl_hash_add(xd);
	err = xfl_queues_add(xd);
	if (err) {
		if (net_ratelimit())
			netdev_warn(dev, "xps_flow: no per-queue files: %d\n", err);
		xfl_detach(xd);
	}
	return err;
nomem:
	kfree(xd);
	if (net_ratelimit())
		netdev_warn(dev, "xps_flow: out of memory, device not handled\n");
	return -ENOMEM;
}

/*
 * RTNL held: the device's behaviour restored exactly (unless someone
 * else's ops are on top of ours: left in place), files removed.
 */
static void xfl_detach(struct xfl_dev *xd)
{
	xfl_release(xd);
	xfl_queues_del(xd);
	sysfs_remove_group(&xd->dev->dev.kobj, &xfl_group);
	list_del(&xd->node);
	xfl_hash_del(xd);
	synchronize_net();	/* lookups of other devices may walk past @xd */
	free_percpu(xd->stats);
	kfree(xd);
}

static bool xfl_loading;		/* register_netdevice_notifier() replays */

static int xfl_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct xfl_dev *xd;

	switch (event) {
	case NETDEV_REGISTER:
		/* At load (the notifier's replay) a failure fails the load. */
		if (xfl_attach(dev) && READ_ONCE(xfl_loading))
			return notifier_from_errno(-ENOMEM);
		break;
	case NETDEV_DOWN:
		/* Closing a device resets its BQL counters: old heads mean nothing. */
		xd = xfl_find(dev);
		if (xd)
			xfl_forget(xd);
		break;
	case NETDEV_UNREGISTER:
		xd = xfl_find(dev);
		if (xd)
			xfl_detach(xd);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block xfl_notifier = {
	.notifier_call = xfl_netdev_event,
};

static int xfl_start(void)
{
	int err;

	xfl_key_init();
	xfl_hold_set(READ_ONCE(xfl_hold_max_ms));
	/*
	 * Replays NETDEV_REGISTER for every existing device, in every netns;
	 * on an error it replays NETDEV_UNREGISTER for those done (detached).
	 */
	WRITE_ONCE(xfl_loading, true);
	err = register_netdevice_notifier(&xfl_notifier);
	WRITE_ONCE(xfl_loading, false);
	return err;
}

static void xfl_stop(void)
{
	struct xfl_dev *xd, *tmp;

	/* Replays NETDEV_UNREGISTER for every device: all detached. */
	unregister_netdevice_notifier(&xfl_notifier);
	rtnl_lock();
	list_for_each_entry_safe(xd, tmp, &xfl_devs, node)
		xfl_detach(xd);
	rtnl_unlock();
	synchronize_net();
	/*
	 * No device points at a hook (each installed one pins the module,
	 * and exit runs only unpinned) since at least the grace periods of
	 * the detaches above: the retired hooks can go.
	 */
	xfl_hooks_free();
}

#ifndef XPS_FLOW_KUNIT
static int __init xps_flow_init(void)
{
	return xfl_start();
}

static void __exit xps_flow_exit(void)
{
	xfl_stop();
}

module_init(xps_flow_init);
module_exit(xps_flow_exit);
#endif

MODULE_DESCRIPTION("XPS transmit flow steering with BQL in-flight tracking");
MODULE_LICENSE("GPL");
