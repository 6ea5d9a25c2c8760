/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common/: kernel C shared by several modules, as static inline functions
 * in headers (a module includes them by relative path, "../common/x.h").
 * Not an object file: an object linked into two modules would get both
 * KBUILD_MODNAMEs. Not include/xnet/, the C++ core that never sees a
 * kernel header; not compat/, which holds only differences between kernels.
 *
 * This file: the per-device skeleton of xps_flow and pp_frag. A table of
 * entries, one per net device the module handles, each embedding a struct
 * xnet_ndev: kept on a list under RTNL, made and removed by a netdevice
 * notifier, with two sysfs files on the device: the module's knob (a u32,
 * struct xnet_ndev_knob) and its stats file. At load the notifier's
 * replay of NETDEV_REGISTER attaches every existing device, and a failure
 * there fails the load (the replay of NETDEV_UNREGISTER then detaches
 * those done); a device registered later that cannot be handled is only
 * left alone (warned). The module's part is a few callbacks in its struct
 * xnet_ndev_table. Also: an RCU hash of objects by device (struct
 * xnet_devhash) for lookups outside RTNL.
 */
#ifndef XNET_COMMON_NETDEV_TABLE_H
#define XNET_COMMON_NETDEV_TABLE_H

#include <linux/capability.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <linux/printk.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <net/net_namespace.h>

#include <xnet/abi.h>

/* Embedded in the module's per-device entry. */
struct xnet_ndev {
	struct hlist_node node;		/* the table's list, RTNL */
	struct net_device *dev;
};

/*
 * The table's first file on each device: a u32 (0..@max), .attr =
 * __ATTR(<name>, 0644, xnet_ndev_knob_show, xnet_ndev_knob_store).
 * Reading gives @get() of the device's entry (0 without one); a write is
 * parsed (refused with one rate-limited line, -EINVAL) and passed to
 * @set(); both under RTNL.
 */
#define XNET_KNOB_INIT_NS_ADMIN	0x1	/* CAP_NET_ADMIN in init_user_ns, not the netns' */
#define XNET_KNOB_REFUSAL_ERR	0x2	/* the refusal at KERN_ERR, not KERN_WARNING */

/*
 * Writes by a namespace's admin (a knob without XNET_KNOB_INIT_NS_ADMIN,
 * written without CAP_NET_ADMIN in the initial user namespace: a
 * container's root) share one budget per knob, all devices and namespaces
 * together: XNET_KNOB_NS_BURST at once, then XNET_KNOB_NS_RATE per second;
 * past it the write is refused with -EBUSY and nothing changes. A change
 * may cost the host an expedited grace period under RTNL and kernel text
 * patching (xps_flow's hooks): a container looping writes must not turn
 * that into a host-wide stall. The initial namespace's admin is never
 * limited.
 */
#define XNET_KNOB_NS_BURST	32
#define XNET_KNOB_NS_RATE	10

struct xnet_ndev_table;

struct xnet_ndev_knob {
	struct device_attribute attr;
	struct xnet_ndev_table *table;
	u32 max;
	unsigned int flags;		/* XNET_KNOB_* */
	u32 (*get)(struct xnet_ndev *nd);
	int (*set)(struct xnet_ndev *nd, u32 val);
	/* The namespaces' budget (RTNL): jiffies of credit, and when. */
	unsigned long ns_credit;
	unsigned long ns_stamp;
	bool ns_stamped;
};

/*
 * The module fills in the callbacks (all called under RTNL); the rest is
 * set by xnet_ndev_table_start() (the list is empty when zeroed).
 */
struct xnet_ndev_table {
	/*
	 * The entry for @dev (zeroed, charged to the device's creator),
	 * NULL when the module leaves @dev alone, or ERR_PTR(-ENOMEM).
	 */
	struct xnet_ndev *(*alloc)(struct net_device *dev);
	/* Listed, files made: the module's part. An error detaches it. */
	int (*attached)(struct xnet_ndev *nd);
	/*
	 * Off the list, files gone: undo what attached() did, or any part
	 * of it (or nothing: it never ran), and free the entry.
	 */
	void (*release)(struct xnet_ndev *nd);
	void (*on_down)(struct xnet_ndev *nd);		/* NETDEV_DOWN, or NULL */
	void (*on_rename)(struct xnet_ndev *nd);	/* NETDEV_CHANGENAME, or NULL */
	/*
	 * The device moved to another network namespace (its files already
	 * the new owner's; it may have a new name), or NULL.
	 */
	void (*on_moved)(struct xnet_ndev *nd);

	/* On every entry's device: the knob, the stats file. */
	struct attribute *attrs[3];
	struct attribute_group group;
	struct hlist_head list;		/* of xnet_ndev, RTNL */
	struct notifier_block nb;
	bool loading;		/* register_netdevice_notifier() replays */
	bool stopping;		/* unregister_netdevice_notifier() replays */
};

/* RTNL. */
static inline struct xnet_ndev *xnet_ndev_find(struct xnet_ndev_table *t,
					       const struct net_device *dev)
{
	struct xnet_ndev *nd;

	ASSERT_RTNL();
	hlist_for_each_entry(nd, &t->list, node)
		if (nd->dev == dev)
			return nd;
	return NULL;
}

/* True while the module loads: the notifier replays existing devices. */
static inline bool xnet_ndev_loading(const struct xnet_ndev_table *t)
{
	return READ_ONCE(t->loading);
}

/* RTNL: files removed, off the list, released. */
static inline void xnet_ndev_detach(struct xnet_ndev_table *t,
				    struct xnet_ndev *nd)
{
	sysfs_remove_group(&nd->dev->dev.kobj, &t->group);
	hlist_del(&nd->node);
	t->release(nd);
}

/*
 * RTNL. 0, or an error when the device could not be handled (warned,
 * nothing of it left).
 */
static inline int xnet_ndev_attach(struct xnet_ndev_table *t,
				   struct net_device *dev)
{
	struct xnet_ndev *nd;
	int err;

	if (xnet_ndev_find(t, dev))
		return 0;
	nd = t->alloc(dev);
	if (IS_ERR_OR_NULL(nd)) {
		if (nd && net_ratelimit())
			netdev_warn(dev, KBUILD_MODNAME ": out of memory, device not handled\n");
		return PTR_ERR_OR_ZERO(nd);
	}
	nd->dev = dev;
	err = sysfs_create_group(&dev->dev.kobj, &t->group);
	if (err) {
		if (net_ratelimit())
			netdev_warn(dev, KBUILD_MODNAME ": no sysfs files: %d\n", err);
		t->release(nd);
		return err;
	}
	hlist_add_head(&nd->node, &t->list);
	err = t->attached(nd);
	if (err)
		xnet_ndev_detach(t, nd);
	return err;
}

/*
 * RTNL. @nd's device moved to another network namespace
 * (dev_change_net_namespace(): NETDEV_UNREGISTER, then NETDEV_REGISTER,
 * its reg_state NETREG_REGISTERED throughout). Its state stays as it was;
 * its files go to the new namespace's owner, as the kernel's own do
 * (netdev_change_owner()), so that a container's root can write the
 * files of a device moved into its namespace.
 */
static inline void xnet_ndev_moved(struct xnet_ndev_table *t,
				   struct xnet_ndev *nd)
{
	kuid_t uid;
	kgid_t gid;
	int err;

	net_ns_get_ownership(dev_net(nd->dev), &uid, &gid);
	err = sysfs_group_change_owner(&nd->dev->dev.kobj, &t->group, uid, gid);
	if (err && net_ratelimit())
		netdev_warn(nd->dev, KBUILD_MODNAME ": files not handed to the new namespace's owner: %d\n",
			    err);
}

/* A netns move's NETDEV_UNREGISTER, not a replay of our own notifier's. */
static inline bool xnet_ndev_moving(const struct xnet_ndev_table *t,
				    const struct net_device *dev)
{
	return dev->reg_state == NETREG_REGISTERED &&
	       !xnet_ndev_loading(t) && !t->stopping;
}

static inline int xnet_ndev_notify(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	struct xnet_ndev_table *t = container_of(nb, struct xnet_ndev_table, nb);
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	void (*hook)(struct xnet_ndev *nd) = NULL;
	struct xnet_ndev *nd;
	int err;

	switch (event) {
	case NETDEV_REGISTER:
		/* Ours already: the end of a netns move. */
		nd = xnet_ndev_find(t, dev);
		if (nd) {
			xnet_ndev_moved(t, nd);
			if (t->on_moved)
				t->on_moved(nd);
			return NOTIFY_DONE;
		}
		/*
		 * At load (the notifier's replay) a failure fails the load,
		 * with its own errno (register_netdevice_notifier() returns it).
		 */
		err = xnet_ndev_attach(t, dev);
		if (err && xnet_ndev_loading(t))
			return notifier_from_errno(err);
		return NOTIFY_DONE;
	case NETDEV_UNREGISTER:
		/* A netns move keeps the device, and its state, ours. */
		nd = xnet_ndev_find(t, dev);
		if (nd && !xnet_ndev_moving(t, dev))
			xnet_ndev_detach(t, nd);
		return NOTIFY_DONE;
	case NETDEV_DOWN:
		hook = t->on_down;
		break;
	case NETDEV_CHANGENAME:
		hook = t->on_rename;
		break;
	}
	nd = hook ? xnet_ndev_find(t, dev) : NULL;
	if (nd)
		hook(nd);
	return NOTIFY_DONE;
}

/*
 * Every existing device (in every netns) and every later one attached,
 * with two sysfs files: @knob and @stats. An error: nothing attached (the
 * replay of NETDEV_UNREGISTER detached those done).
 */
static inline int xnet_ndev_table_start(struct xnet_ndev_table *t,
					struct xnet_ndev_knob *knob,
					struct device_attribute *stats)
{
	int err;

	t->attrs[0] = &knob->attr.attr;
	t->attrs[1] = &stats->attr;
	t->attrs[2] = NULL;
	t->group.attrs = t->attrs;
	t->nb.notifier_call = xnet_ndev_notify;
	WRITE_ONCE(t->loading, true);
	err = register_netdevice_notifier(&t->nb);
	WRITE_ONCE(t->loading, false);
	return err;
}

/* Every device detached, no more attached. */
static inline void xnet_ndev_table_stop(struct xnet_ndev_table *t)
{
	struct hlist_node *tmp;
	struct xnet_ndev *nd;

	/* Replays NETDEV_UNREGISTER for every device: all detached. */
	t->stopping = true;
	unregister_netdevice_notifier(&t->nb);
	rtnl_lock();
	hlist_for_each_entry_safe(nd, tmp, &t->list, node)
		xnet_ndev_detach(t, nd);
	rtnl_unlock();
	t->stopping = false;
}

/* The knob's show and store. */
static inline ssize_t xnet_ndev_knob_show(struct device *d,
					  struct device_attribute *attr,
					  char *buf)
{
	const struct xnet_ndev_knob *k = container_of(attr, struct xnet_ndev_knob, attr);
	struct xnet_ndev *nd;
	u32 n = 0;

	if (!rtnl_trylock())
		return restart_syscall();
	nd = xnet_ndev_find(k->table, to_net_dev(d));
	if (nd)
		n = k->get(nd);
	rtnl_unlock();
	return sysfs_emit(buf, "%u\n", n);
}

/*
 * RTNL held. May a namespace's admin change @k now? Takes one write's
 * worth of the budget (HZ / XNET_KNOB_NS_RATE jiffies of credit, which
 * accrues with time up to XNET_KNOB_NS_BURST writes' worth).
 */
static inline bool xnet_ndev_knob_ns_budget(struct xnet_ndev_knob *k)
{
	const unsigned long cost = DIV_ROUND_UP(HZ, XNET_KNOB_NS_RATE);
	const unsigned long full = XNET_KNOB_NS_BURST * cost;
	unsigned long now = jiffies;

	ASSERT_RTNL();
	if (!k->ns_stamped) {
		k->ns_credit = full;
		k->ns_stamped = true;
	} else {
		k->ns_credit = min(full, k->ns_credit + (now - k->ns_stamp));
	}
	k->ns_stamp = now;
	if (k->ns_credit < cost)
		return false;
	k->ns_credit -= cost;
	return true;
}

static inline ssize_t xnet_ndev_knob_store(struct device *d,
					   struct device_attribute *attr,
					   const char *buf, size_t len)
{
	struct xnet_ndev_knob *k = container_of(attr, struct xnet_ndev_knob, attr);
	struct net_device *dev = to_net_dev(d);
	const char *name = attr->attr.name;
	struct xnet_parse_res res;
	struct xnet_ndev *nd;
	unsigned int val;
	int err;

	if (k->flags & XNET_KNOB_INIT_NS_ADMIN ? !capable(CAP_NET_ADMIN) :
	    !ns_capable(dev_net(dev)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (xnet_parse_u32(buf, len, 0, k->max, &val, &res) != XNET_OK) {
		int n = min_t(size_t, strcspn(buf, "\n"), 32);

		if (k->flags & XNET_KNOB_REFUSAL_ERR)
			pr_err_ratelimited("%s: %s: '%.*s' refused: %s (0..%u)\n",
					   netdev_name(dev), name, n, buf,
					   xnet_err_str(res.err), k->max);
		else
			pr_warn_ratelimited("%s: %s: '%.*s' refused: %s (0..%u)\n",
					    netdev_name(dev), name, n, buf,
					    xnet_err_str(res.err), k->max);
		return -EINVAL;
	}
	if (!rtnl_trylock())
		return restart_syscall();
	nd = xnet_ndev_find(k->table, dev);
	if (nd && !(k->flags & XNET_KNOB_INIT_NS_ADMIN) &&
	    !capable(CAP_NET_ADMIN) && !xnet_ndev_knob_ns_budget(k)) {
		rtnl_unlock();
		pr_warn_ratelimited("%s: %s: refused: writes from user namespaces are limited to %d a second (%d at once)\n",
				    netdev_name(dev), name, XNET_KNOB_NS_RATE,
				    XNET_KNOB_NS_BURST);
		return -EBUSY;
	}
	err = nd ? k->set(nd, val) : -ENODEV;
	rtnl_unlock();
	return err ? err : len;
}

/* An RCU hash of objects by net device (readers: rcu_read_lock()). */
#define XNET_DEVHASH_BITS	6

struct xnet_devhash {
	DECLARE_HASHTABLE(heads, XNET_DEVHASH_BITS);
};

/* Embedded in the objects of an xnet_devhash. */
struct xnet_devnode {
	struct hlist_node hnode;
	struct net_device *dev;
};

/* Writers serialised by the caller (RTNL). */
static inline void xnet_devhash_add(struct xnet_devhash *h,
				    struct xnet_devnode *n,
				    struct net_device *dev)
{
	n->dev = dev;
	hash_add_rcu(h->heads, &n->hnode, (unsigned long)dev);
}

/* The caller waits for a grace period before freeing @n. */
static inline void xnet_devhash_del(struct xnet_devnode *n)
{
	hash_del_rcu(&n->hnode);
}

/* RCU (or rcu_read_lock_bh(), as dev_queue_xmit). */
static __always_inline struct xnet_devnode *
xnet_devhash_find(struct xnet_devhash *h, const struct net_device *dev)
{
	struct xnet_devnode *n;

	hash_for_each_possible_rcu(h->heads, n, hnode, (unsigned long)dev)
		if (n->dev == dev)
			return n;
	return NULL;
}

#endif /* XNET_COMMON_NETDEV_TABLE_H */
