// SPDX-License-Identifier: GPL-2.0
/*
 * A device's flow table: turned on (the hooks with it, hook.c), resized
 * with every hold carried over, turned off, forgotten when the device goes
 * down. All under RTNL; the datapath reads the table under RCU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/sch_generic.h>

#include "decide.h"
#include "xps_flow.h"

/* Is the queue of entry @e busy (xnet_xps_busy())? RTNL held. */
static int xfl_entry_busy(struct net_device *dev, u64 e)
{
	int q = xnet_xps_queue_of(e);
	struct netdev_queue *txq;
	unsigned int completed;
	struct Qdisc *qd;
	int backlog;

	if (q < 0 || q >= dev->real_num_tx_queues)
		return 0;
	txq = netdev_get_tx_queue(dev, q);
	qd = rtnl_dereference(txq->qdisc);
	backlog = qd && (!qdisc_is_empty(qd) || qdisc_is_running(qd));
	completed = READ_ONCE(txq->dql.num_completed);
	smp_rmb();	/* the enqueue count no older than the completions */
	return xnet_xps_busy(e, completed, READ_ONCE(txq->dql.num_queued), backlog);
}

/*
 * Carry @old's entries into @t (xnet_xps_carry(): growing, every new slot
 * gets the entry its flows had; shrinking, the entries landing in one slot
 * are merged). @t may be live: entries are replaced by compare-and-swap,
 * so that a head the datapath records meanwhile is merged, not lost.
 * Returns the number of entries that could not be kept (two busy queues
 * in one slot). RTNL held.
 */
static unsigned int xfl_carry(struct net_device *dev, struct xfl_table *t,
			      const struct xfl_table *old)
{
	u32 i, n = max(t->mask, old->mask) + 1;
	unsigned int lost = 0;

	for (i = 0; i < n; i++) {
		u64 from = READ_ONCE(old->entries[i & old->mask]);
		u64 *slot = &t->entries[i & t->mask];
		int from_busy, conflict;
		u64 cur, want;

		if (!(i & 4095))
			cond_resched();
		if (xnet_xps_queue_of(from) < 0)
			continue;
		from_busy = xfl_entry_busy(dev, from);
		cur = READ_ONCE(*slot);
		do {
			want = xnet_xps_carry(cur, xfl_entry_busy(dev, cur), from,
					      from_busy, &conflict);
		} while (want != cur && !try_cmpxchg64(slot, &cur, want));
		lost += conflict;
	}
	return lost;
}

/*
 * A zeroed table of @entries (a power of two, at most 2^20) on @node, with
 * the drain estimates of @nqueues TX queues.
 */
static struct xfl_table *xfl_table_alloc(u32 entries, unsigned int nqueues,
					 int node)
{
	struct xfl_table *t = kzalloc_node(sizeof(*t), GFP_KERNEL_ACCOUNT, node);

	if (!t)
		return NULL;
	/*
	 * 2^n x 8 bytes exactly. kvmalloc serves up to 4 MiB from the page
	 * allocator (no waste for a power of two) and vmallocs 8 MiB with
	 * huge pages allowed: 8 MiB plus a header was rounded up to 10.
	 */
	t->entries = kvzalloc_node(array_size(entries, sizeof(u64)),
				   GFP_KERNEL_ACCOUNT, node);
	t->drain = kvzalloc_node(array_size(nqueues, sizeof(*t->drain)),
				 GFP_KERNEL_ACCOUNT, node);
	if (!t->entries || !t->drain) {
		kvfree(t->drain);
		kvfree(t->entries);
		kfree(t);
		return NULL;
	}
	t->nr_drain = nqueues;
	t->mask = entries - 1;
	return t;
}

static void xfl_table_free(struct xfl_table *t)
{
	if (t) {
		kvfree(t->drain);
		kvfree(t->entries);
		kfree(t);
	}
}

/*
 * Turn steering on with a table of @entries (a power of two), or replace
 * the table. RTNL held. The first table of the device puts it in the
 * hooks' hash (registering the hooks if it is the first of all).
 */
int xfl_enable(struct xfl_dev *xd, u32 entries)
{
	struct net_device *dev = xd->nd.dev;
	struct xfl_table *t, *old;
	int err;

	old = rtnl_dereference(xd->table);
	/* Charged to the writer's memory cgroup: up to 8 MiB per device. */
	t = xfl_table_alloc(entries, dev->num_tx_queues, dev_to_node(&dev->dev));
	if (!t)
		return -ENOMEM;
	if (!old) {
		/* The table first: the hooks find the device with it. */
		rcu_assign_pointer(xd->table, t);
		err = xfl_hooks_get(xd);
		if (err) {
			RCU_INIT_POINTER(xd->table, NULL);
			synchronize_net();
			xfl_table_free(t);
		}
		return err;
	}
	/*
	 * A resize keeps every hold: the entries are carried over before the
	 * new table is published, and again once no transmit writes the old
	 * one any more (heads it recorded in between); until then, flows
	 * move only off idle queues.
	 */
	xfl_carry(dev, t, old);
	t->settling = 1;
	rcu_assign_pointer(xd->table, t);
	synchronize_net();
	err = xfl_carry(dev, t, old);
	WRITE_ONCE(t->settling, 0);
	xfl_table_free(old);	/* no reader since synchronize_net() */
	if (err)
		net_info_ratelimited("%s: resize to %u entries merged %d busy flows on other queues into one entry each\n",
				     netdev_name(dev), entries, err);
	return 0;
}

/*
 * Turn steering off: out of the hooks' hash (the hooks go with the last
 * table), the table freed once no packet can be using it. RTNL held.
 */
void xfl_disable(struct xfl_dev *xd)
{
	struct xfl_table *t = rtnl_dereference(xd->table);

	if (!t)
		return;
	xfl_hooks_put(xd);
	RCU_INIT_POINTER(xd->table, NULL);
	/* No hook runs with @t after this. */
	synchronize_net();
	xfl_table_free(t);
}

/*
 * Forget every flow (RTNL held, device down: no transmit runs, so the
 * entries can simply be cleared).
 */
void xfl_forget(struct xfl_dev *xd)
{
	struct xfl_table *t = rtnl_dereference(xd->table);
	u32 i;

	for (i = 0; t && i <= t->mask; i++)
		WRITE_ONCE(t->entries[i], 0);
}

u32 xfl_entries_in_use(struct xfl_dev *xd)
{
	struct xfl_table *t;
	u32 i, n = 0;

	rcu_read_lock();
	t = rcu_dereference(xd->table);
	for (i = 0; t && i <= t->mask; i++)
		n += xnet_xps_queue_of(READ_ONCE(t->entries[i])) >= 0;
	rcu_read_unlock();
	return n;
}
