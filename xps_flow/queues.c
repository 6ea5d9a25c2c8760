// SPDX-License-Identifier: GPL-2.0
/*
 * Per-queue BQL counters: /sys/class/net/<dev>/queues/tx-N/xps_flow/{head,tail},
 * the queue's enqueue (dql.num_queued) and completion (dql.num_completed)
 * byte counters that steering compares.
 *
 * The files live in the TX queue's own kobject, whose sysfs_ops cast every
 * attribute to net-sysfs.c's private struct netdev_queue_attribute and call
 * its show(queue, buf). struct xfl_queue_attribute mirrors that layout of
 * Linux 6.1 (it has not changed since 4.x); compat code for another kernel
 * must check it.
 */
#include <linux/kernfs.h>
#include <linux/netdevice.h>
#include <linux/sysfs.h>

#include "xps_flow.h"

struct xfl_queue_attribute {
	struct attribute attr;
	ssize_t (*show)(struct netdev_queue *queue, char *buf);
	ssize_t (*store)(struct netdev_queue *queue, const char *buf, size_t len);
};

static ssize_t xfl_head_show(struct netdev_queue *queue, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(queue->dql.num_queued));
}

static ssize_t xfl_tail_show(struct netdev_queue *queue, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(queue->dql.num_completed));
}

static struct xfl_queue_attribute xfl_head_attr = __ATTR(head, 0444, xfl_head_show, NULL);
static struct xfl_queue_attribute xfl_tail_attr = __ATTR(tail, 0444, xfl_tail_show, NULL);

static struct attribute *xfl_queue_attrs[] = {
	&xfl_head_attr.attr,
	&xfl_tail_attr.attr,
	NULL,
};

static const struct attribute_group xfl_queue_group = {
	.name = "xps_flow",
	.attrs = xfl_queue_attrs,
};

/* Add the files to every real TX queue. RTNL held. */
int xfl_queues_add(struct xfl_dev *xd)
{
	struct net_device *dev = xd->dev;
	unsigned int i;
	int err = 0;

	for (i = 0; i < dev->real_num_tx_queues; i++) {
		err = sysfs_create_group(&netdev_get_tx_queue(dev, i)->kobj,
					 &xfl_queue_group);
		if (err)
			break;
	}
	xd->nr_queue_files = i;
	return err;
}

/*
 * Remove them from the queues that still have them: a queue removed since
 * (ethtool -L) took its directory, files included, and one created again
 * since has none. RTNL held.
 */
void xfl_queues_del(struct xfl_dev *xd)
{
	struct net_device *dev = xd->dev;
	unsigned int i, n = min(xd->nr_queue_files, dev->real_num_tx_queues);

	for (i = 0; i < n; i++) {
		struct kobject *kobj = &netdev_get_tx_queue(dev, i)->kobj;
		struct kernfs_node *kn;

		if (!kobj->sd)
			continue;
		kn = kernfs_find_and_get(kobj->sd, xfl_queue_group.name);
		if (!kn)
			continue;
		kernfs_put(kn);
		sysfs_remove_group(kobj, &xfl_queue_group);
	}
	xd->nr_queue_files = 0;
}
