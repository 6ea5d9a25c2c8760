// SPDX-License-Identifier: GPL-2.0
/*
 * Per-queue BQL counters: /sys/class/net/<dev>/xps_flow/tx-N/{head,tail},
 * the queue's enqueue (dql.num_queued) and completion (dql.num_completed)
 * byte counters that steering compares.
 *
 * The directories are kobjects of our own (ktype xfl_queue_ktype, the
 * kernel's exported kobj_sysfs_ops) under the device's kobject: nothing
 * here depends on net-sysfs.c's private attribute layout of the queues/tx-N
 * directories. One directory per real TX queue at attach time; a queue
 * removed since (ethtool -L) keeps its directory and reads -ENODEV.
 */
#include <linux/kobject.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "xps_flow.h"

struct xfl_queue_dir {
	struct kobject kobj;		/* tx-N */
	struct net_device *dev;		/* alive: the dir goes first */
	unsigned int index;
};

static struct dql *xfl_queue_dql(struct kobject *kobj)
{
	struct xfl_queue_dir *q = container_of(kobj, struct xfl_queue_dir, kobj);

	if (q->index >= READ_ONCE(q->dev->real_num_tx_queues))
		return NULL;
	return &netdev_get_tx_queue(q->dev, q->index)->dql;
}

static ssize_t head_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct dql *dql = xfl_queue_dql(kobj);

	if (!dql)
		return -ENODEV;
	return sysfs_emit(buf, "%u\n", READ_ONCE(dql->num_queued));
}

static ssize_t tail_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct dql *dql = xfl_queue_dql(kobj);

	if (!dql)
		return -ENODEV;
	return sysfs_emit(buf, "%u\n", READ_ONCE(dql->num_completed));
}

static struct kobj_attribute xfl_head_attr = __ATTR_RO(head);
static struct kobj_attribute xfl_tail_attr = __ATTR_RO(tail);

static struct attribute *xfl_queue_attrs[] = {
	&xfl_head_attr.attr,
	&xfl_tail_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(xfl_queue);

static void xfl_queue_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct xfl_queue_dir, kobj));
}

static const struct kobj_type xfl_queue_ktype = {
	.release = xfl_queue_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = xfl_queue_groups,
};

static void xfl_queue_dir_put(struct kobject *kobj)
{
	/* No show() runs once kobject_del() returns (kernfs drains them). */
	kobject_del(kobj);
	kobject_put(kobj);
}

/* The xps_flow directory and one tx-N per real TX queue. RTNL held. */
int xfl_queues_add(struct xfl_dev *xd)
{
	struct net_device *dev = xd->nd.dev;
	unsigned int i, n = dev->real_num_tx_queues;
	int err;

	xd->queue_dirs = kcalloc(n, sizeof(*xd->queue_dirs), GFP_KERNEL_ACCOUNT);
	if (!xd->queue_dirs)
		return -ENOMEM;
	xd->queues_kobj = kobject_create_and_add("xps_flow", &dev->dev.kobj);
	if (!xd->queues_kobj) {
		err = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < n; i++) {
		struct xfl_queue_dir *q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);

		if (!q) {
			err = -ENOMEM;
			goto err_dirs;
		}
		q->dev = dev;
		q->index = i;
		err = kobject_init_and_add(&q->kobj, &xfl_queue_ktype,
					   xd->queues_kobj, "tx-%u", i);
		if (err) {
			kobject_put(&q->kobj);
			goto err_dirs;
		}
		xd->queue_dirs[i] = &q->kobj;
		xd->nr_queue_dirs = i + 1;
	}
	return 0;

err_dirs:
	xfl_queues_del(xd);
	return err;
err_free:
	kfree(xd->queue_dirs);
	xd->queue_dirs = NULL;
	return err;
}

/* Remove what xfl_queues_add() made (any part of it). RTNL held. */
void xfl_queues_del(struct xfl_dev *xd)
{
	unsigned int i;

	for (i = 0; i < xd->nr_queue_dirs; i++)
		xfl_queue_dir_put(xd->queue_dirs[i]);
	xd->nr_queue_dirs = 0;
	kfree(xd->queue_dirs);
	xd->queue_dirs = NULL;
	if (xd->queues_kobj)
		xfl_queue_dir_put(xd->queues_kobj);
	xd->queues_kobj = NULL;
}
