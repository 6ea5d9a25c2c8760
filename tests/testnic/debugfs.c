// SPDX-License-Identifier: GPL-2.0
/*
 * xnet_testnic debugfs: /sys/kernel/debug/xnet_testnic/<dev>/ (the
 * device's name; on a name clash with another netns, <dev>.<id>; follows
 * renames)
 *   info     r   name, ifindex, peer, queue counts, flow table size
 *   wire     r   "key value" lines: packets bytes test tcp untracked flows
 *                flows_active evictions inorder reordered gaps max_dist
 *                delivered peer_drops consumed
 *   flows    r   one line per flow: kind key pkts reordered gaps hi_seq
 *                max_dist (kind test: key = flow id; tcp4/tcp6: the tuple)
 *   queues   r   header line, then one line per TX queue: txq delay_us depth
 *                len max_len sent_pkts sent_bytes done_pkts done_bytes
 *                stopped busy purged xoff dql_queued dql_completed dql_limit
 *                dql_inflight (xoff: 1 driver-stopped | 2 BQL-stopped;
 *                dql_*: read from the queue's struct dql)
 *   rx       r   header line, then one line per RX queue: rxq len max_len
 *                pkts bytes drops purged enabled
 *   reset    w   "1": zero the wire counters, the flow table and the queue
 *                counters (BQL's own state is not touched)
 *   tx-N/delay_us  rw  completion delay of TX queue N in us, 0..10000000
 *                (applies to packets queued from then on; FIFO order stays)
 *   tx-N/depth     rw  ring depth of TX queue N in packets, 1..16384
 *   select_txq     rw  (select_queue=1 only) the queue ndo_select_queue
 *                proposes, 0..txqs-1, or -1 (default): netdev_pick_tx
 *   dma      r   path (dma-direct | iommu | dma_map_ops), optin, then counters
 *                since load: maps saved unmaps errors bad_addr (dma.c)
 *   dma_optin rw 1: opt in to pp_frag's DMA API, 0: opt out
 *   ops_mismatch r  (ops_check=1 only) checks of the ops pointer this
 *                device failed since load (netdev.c: tn_is_own())
 *   ops_copy     rw (ops_check=1 only) 1: the device runs on a copy of
 *                its ops (the check fails), 0: on its own ops
 * A bad write fails with -EINVAL, logs a warning and changes nothing.
 * The read-only files cannot seek: each open/read pass is one snapshot.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "internal.h"

struct dentry *tn_dbg_root;

/*
 * Read-only seq_file files that cannot seek: every reader gets one snapshot
 * (a seek would re-generate the text, and a line-by-line reader that seeks
 * back, like bash's read builtin on a seekable file, would land mid-line of
 * a newer snapshot; on a non-seekable file it reads sequentially).
 */
#define TN_SHOW_FOPS(__name)						\
static int __name##_open(struct inode *inode, struct file *file)	\
{									\
	int err = single_open(file, __name##_show, inode->i_private);	\
									\
	return err ?: nonseekable_open(inode, file);			\
}									\
static const struct file_operations __name##_fops = {			\
	.owner		= THIS_MODULE,					\
	.open		= __name##_open,				\
	.read		= seq_read,					\
	.release	= single_release,				\
}

static int tn_info_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	struct net_device *dev = priv->dev, *peer;

	seq_printf(m, "name %s\nifindex %d\n", dev->name, dev->ifindex);
	rcu_read_lock();
	peer = rcu_dereference(priv->peer);
	if (peer)
		seq_printf(m, "peer %s\npeer_ifindex %d\npeer_netns %s\n",
			   peer->name, peer->ifindex,
			   net_eq(dev_net(dev), dev_net(peer)) ? "same" :
								 "other");
	else
		seq_puts(m, "peer -\n");
	rcu_read_unlock();
	seq_printf(m, "txqs %u\nrxqs %u\nflow_entries %u\nflow_ways %u\n",
		   dev->real_num_tx_queues, dev->real_num_rx_queues,
		   priv->nflows, TN_WAYS);
	return 0;
}

TN_SHOW_FOPS(tn_info);

static int tn_wire_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	unsigned int i, active = 0;
	struct tn_wire w;

	spin_lock_bh(&priv->wire_lock);
	w = priv->w;
	for (i = 0; i < priv->nflows; i++)
		if (priv->flows[i].key.kind)
			active++;
	spin_unlock_bh(&priv->wire_lock);

	seq_printf(m, "packets %llu\nbytes %llu\n", w.packets, w.bytes);
	seq_printf(m, "test %llu\ntcp %llu\nuntracked %llu\n", w.test, w.tcp,
		   w.untracked);
	seq_printf(m, "flows %llu\nflows_active %u\nevictions %llu\n", w.flows,
		   active, w.evictions);
	seq_printf(m, "inorder %llu\nreordered %llu\ngaps %llu\nmax_dist %u\n",
		   w.inorder, w.reordered, w.gaps, w.max_dist);
	seq_printf(m, "delivered %llu\npeer_drops %llu\nconsumed %llu\n",
		   w.delivered, w.peer_drops, w.consumed);
	return 0;
}

TN_SHOW_FOPS(tn_wire);

static void tn_flow_print(struct seq_file *m, const struct tn_flow *f)
{
	const struct tn_flow_key *k = &f->key;

	switch (k->kind) {
	case TN_KIND_TEST:
		seq_printf(m, "test %u", k->id);
		break;
	case TN_KIND_TCP4:
		seq_printf(m, "tcp4 %pI4:%u>%pI4:%u", &k->saddr[0],
			   ntohs(k->sport), &k->daddr[0], ntohs(k->dport));
		break;
	default:
		seq_printf(m, "tcp6 [%pI6c]:%u>[%pI6c]:%u", k->saddr,
			   ntohs(k->sport), k->daddr, ntohs(k->dport));
		break;
	}
	seq_printf(m, " %llu %llu %llu %u %u\n", f->pkts, f->reordered, f->gaps,
		   f->hi, f->max_dist);
}

static int tn_flows_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	unsigned int i, n = 0;
	struct tn_flow *copy;

	copy = kvmalloc_array(priv->nflows, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	spin_lock_bh(&priv->wire_lock);
	for (i = 0; i < priv->nflows; i++)
		if (priv->flows[i].key.kind)
			copy[n++] = priv->flows[i];
	spin_unlock_bh(&priv->wire_lock);

	seq_puts(m, "kind key pkts reordered gaps hi_seq max_dist\n");
	for (i = 0; i < n; i++)
		tn_flow_print(m, &copy[i]);
	kvfree(copy);
	return 0;
}

TN_SHOW_FOPS(tn_flows);

static int tn_queues_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	unsigned int i;

	seq_puts(m, "txq delay_us depth len max_len sent_pkts sent_bytes done_pkts done_bytes stopped busy purged xoff dql_queued dql_completed dql_limit dql_inflight\n");
	for (i = 0; i < priv->ntxq; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(priv->dev, i);
		struct tn_txq *q = &priv->txq[i];
		struct tn_txq_stats s;
		unsigned int len, xoff = 0;
		unsigned int dq = 0, dc = 0, dl = 0;

		spin_lock_bh(&q->lock);
		s = q->st;
		len = skb_queue_len(&q->ring);
		spin_unlock_bh(&q->lock);
		if (netif_tx_queue_stopped(txq))
			xoff |= 1;
#ifdef CONFIG_BQL
		if (test_bit(__QUEUE_STATE_STACK_XOFF, &txq->state))
			xoff |= 2;
		dq = READ_ONCE(txq->dql.num_queued);
		dc = READ_ONCE(txq->dql.num_completed);
		dl = READ_ONCE(txq->dql.limit);
#endif
		seq_printf(m, "%u %u %u %u %u %llu %llu %llu %llu %llu %llu %llu %u %u %u %u %u\n",
			   i, READ_ONCE(q->delay_us), READ_ONCE(q->depth),
			   len, s.max_len, s.sent_pkts, s.sent_bytes,
			   s.done_pkts, s.done_bytes, s.stopped, s.busy,
			   s.purged, xoff, dq, dc, dl, dq - dc);
	}
	return 0;
}

TN_SHOW_FOPS(tn_queues);

static int tn_rx_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	unsigned int i;

	seq_puts(m, "rxq len max_len pkts bytes drops purged enabled\n");
	for (i = 0; i < priv->nrxq; i++) {
		struct tn_rxq *rq = &priv->rxq[i];
		struct tn_rxq_stats s;
		unsigned int len;
		bool en;

		spin_lock_bh(&rq->lock);
		s = rq->st;
		len = skb_queue_len(&rq->list);
		en = rq->enabled;
		spin_unlock_bh(&rq->lock);
		seq_printf(m, "%u %u %u %llu %llu %llu %llu %d\n", i, len,
			   s.max_len, s.pkts, s.bytes, s.drops, s.purged, en);
	}
	return 0;
}

TN_SHOW_FOPS(tn_rx);

/* A decimal u32 (digits only), optionally followed by one newline. */
static int tn_parse_u32(const char __user *ubuf, size_t count, u32 *val)
{
	char buf[24];

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (!isdigit(buf[0]))	/* kstrtou32 takes a '+' */
		return -EINVAL;
	return kstrtou32(buf, 10, val);
}

static ssize_t tn_u32_read(char __user *ubuf, size_t count, loff_t *ppos,
			   u32 val)
{
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%u\n", val);

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t tn_delay_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct tn_txq *q = file->private_data;

	return tn_u32_read(ubuf, count, ppos, READ_ONCE(q->delay_us));
}

static ssize_t tn_delay_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct tn_txq *q = file->private_data;
	int err;
	u32 val;

	err = tn_parse_u32(ubuf, count, &val);
	if (err == -EFAULT)
		return err;
	if (err || val > TN_DELAY_MAX_US) {
		pr_warn("%s: tx-%u/delay_us: invalid value (want 0..%u)\n",
			q->priv->dev->name, q->index, TN_DELAY_MAX_US);
		return -EINVAL;
	}
	WRITE_ONCE(q->delay_us, val);
	return count;
}

static const struct file_operations tn_delay_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tn_delay_read,
	.write	= tn_delay_write,
	.llseek	= default_llseek,
};

static ssize_t tn_depth_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct tn_txq *q = file->private_data;

	return tn_u32_read(ubuf, count, ppos, READ_ONCE(q->depth));
}

static ssize_t tn_depth_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct tn_txq *q = file->private_data;
	struct net_device *dev = q->priv->dev;
	struct netdev_queue *txq = netdev_get_tx_queue(dev, q->index);
	int err;
	u32 val;

	err = tn_parse_u32(ubuf, count, &val);
	if (err == -EFAULT)
		return err;
	if (err || val < 1 || val > TN_DEPTH_MAX) {
		pr_warn("%s: tx-%u/depth: invalid value (want 1..%u)\n",
			dev->name, q->index, TN_DEPTH_MAX);
		return -EINVAL;
	}
	spin_lock_bh(&q->lock);
	WRITE_ONCE(q->depth, val);
	if (netif_running(dev) && netif_tx_queue_stopped(txq) &&
	    !q->priv->tx_quiesced &&
	    skb_queue_len(&q->ring) < val)
		netif_tx_wake_queue(txq);
	spin_unlock_bh(&q->lock);
	return count;
}

static const struct file_operations tn_depth_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tn_depth_read,
	.write	= tn_depth_write,
	.llseek	= default_llseek,
};

static ssize_t tn_select_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct tn_priv *priv = file->private_data;
	char buf[16];
	int len;

	len = scnprintf(buf, sizeof(buf), "%d\n", READ_ONCE(priv->select_txq));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* A queue number, or -1: netdev_pick_tx decides. */
static ssize_t tn_select_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct tn_priv *priv = file->private_data;
	char buf[4];
	int err;
	u32 val;

	if (count == 2 || count == 3) {
		if (copy_from_user(buf, ubuf, count))
			return -EFAULT;
		buf[count] = '\0';
		if (!strcmp(buf, "-1") || !strcmp(buf, "-1\n")) {
			WRITE_ONCE(priv->select_txq, -1);
			return count;
		}
	}
	err = tn_parse_u32(ubuf, count, &val);
	if (err == -EFAULT)
		return err;
	if (err || val >= priv->ntxq) {
		pr_warn("%s: select_txq: invalid value (want -1 or 0..%u)\n",
			priv->dev->name, priv->ntxq - 1);
		return -EINVAL;
	}
	WRITE_ONCE(priv->select_txq, val);
	return count;
}

static const struct file_operations tn_select_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tn_select_read,
	.write	= tn_select_write,
	.llseek	= default_llseek,
};

static ssize_t tn_reset_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct tn_priv *priv = file->private_data;
	unsigned int i;
	int err;
	u32 val;

	err = tn_parse_u32(ubuf, count, &val);
	if (err == -EFAULT)
		return err;
	if (err || val != 1) {
		pr_warn("%s: reset: invalid value (want 1)\n",
			priv->dev->name);
		return -EINVAL;
	}
	spin_lock_bh(&priv->wire_lock);
	memset(&priv->w, 0, sizeof(priv->w));
	memset(priv->flows, 0, priv->nflows * sizeof(*priv->flows));
	priv->clock = 0;
	spin_unlock_bh(&priv->wire_lock);
	for (i = 0; i < priv->ntxq; i++) {
		struct tn_txq *q = &priv->txq[i];

		spin_lock_bh(&q->lock);
		memset(&q->st, 0, sizeof(q->st));
		q->st.max_len = skb_queue_len(&q->ring);
		spin_unlock_bh(&q->lock);
	}
	for (i = 0; i < priv->nrxq; i++) {
		struct tn_rxq *rq = &priv->rxq[i];

		spin_lock_bh(&rq->lock);
		memset(&rq->st, 0, sizeof(rq->st));
		rq->st.max_len = skb_queue_len(&rq->list);
		spin_unlock_bh(&rq->lock);
	}
	return count;
}

static const struct file_operations tn_reset_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= tn_reset_write,
	.llseek	= noop_llseek,
};

/* ---- pp_frag DMA ------------------------------------------------------- */

static int tn_dma_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;
	struct tn_dma_stats *d = &priv->dma;

	seq_printf(m, "path %s\noptin %d\n",
		   tn_dma_iommu ? "iommu" :
		   tn_dma_direct ? "dma-direct" : "dma_map_ops",
		   !!READ_ONCE(priv->ppf.addr));
	seq_printf(m, "maps %lld\nsaved %lld\nunmaps %lld\nerrors %lld\nbad_addr %lld\n",
		   (s64)atomic64_read(&d->maps), (s64)atomic64_read(&d->saved),
		   (s64)atomic64_read(&d->unmaps),
		   (s64)atomic64_read(&d->errors),
		   (s64)atomic64_read(&d->bad_addr));
	return 0;
}

TN_SHOW_FOPS(tn_dma);

static ssize_t tn_optin_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct tn_priv *priv = file->private_data;

	return tn_u32_read(ubuf, count, ppos, !!READ_ONCE(priv->ppf.addr));
}

/*
 * A 0/1 file whose write runs @set under RTNL: anything else is refused
 * with -EINVAL and one line naming the file @name.
 */
static ssize_t tn_rtnl_bool_write(struct file *file, const char __user *ubuf,
				  size_t count, const char *name,
				  int (*set)(struct tn_priv *priv, bool on))
{
	struct tn_priv *priv = file->private_data;
	int err;
	u32 val;

	err = tn_parse_u32(ubuf, count, &val);
	if (err == -EFAULT)
		return err;
	if (err || val > 1) {
		pr_warn("%s: %s: invalid value (want 0 or 1)\n",
			priv->dev->name, name);
		return -EINVAL;
	}
	/* Not rtnl_lock(): ndo_uninit (RTNL) waits for this handler. */
	if (!rtnl_trylock())
		return restart_syscall();
	err = set(priv, val);
	rtnl_unlock();
	return err ?: count;
}

static int tn_optin_set(struct tn_priv *priv, bool on)
{
	return on ? tn_dma_optin(priv) : tn_dma_optout(priv);
}

static ssize_t tn_optin_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	return tn_rtnl_bool_write(file, ubuf, count, "dma_optin", tn_optin_set);
}

static const struct file_operations tn_optin_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tn_optin_read,
	.write	= tn_optin_write,
	.llseek	= default_llseek,
};

/* ---- ops_check --------------------------------------------------------- */

static int tn_mismatch_show(struct seq_file *m, void *v)
{
	struct tn_priv *priv = m->private;

	seq_printf(m, "%lld\n", (s64)atomic64_read(&priv->ops_mismatch));
	return 0;
}

TN_SHOW_FOPS(tn_mismatch);

static ssize_t tn_copy_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct tn_priv *priv = file->private_data;

	return tn_u32_read(ubuf, count, ppos, !!READ_ONCE(priv->ops_copy));
}

static ssize_t tn_copy_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	return tn_rtnl_bool_write(file, ubuf, count, "ops_copy", tn_ops_copy);
}

static const struct file_operations tn_copy_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tn_copy_read,
	.write	= tn_copy_write,
	.llseek	= default_llseek,
};

/* ---- the directory ----------------------------------------------------- */

/* RTNL held: the directory name this device should have now. */
static void tn_debugfs_want(struct tn_priv *priv, char *buf, size_t len)
{
	struct dentry *d;

	strscpy(buf, priv->dev->name, len);
	if (!strcmp(buf, priv->dname))
		return;
	d = debugfs_lookup(buf, tn_dbg_root);
	if (d) {
		dput(d);
		snprintf(buf, len, "%s.%u", priv->dev->name, priv->id);
	}
}

/* RTNL held (ndo_init). */
void tn_debugfs_init(struct tn_priv *priv)
{
	char name[16], want[TN_DNAME_LEN];
	struct dentry *d, *qd;
	unsigned int i;

	priv->dbg = NULL;
	priv->dname[0] = '\0';
	if (IS_ERR_OR_NULL(tn_dbg_root))
		return;
	tn_debugfs_want(priv, want, sizeof(want));
	d = debugfs_create_dir(want, tn_dbg_root);
	if (IS_ERR(d))
		return;
	priv->dbg = d;
	strscpy(priv->dname, want, sizeof(priv->dname));
	debugfs_create_file("info", 0444, d, priv, &tn_info_fops);
	debugfs_create_file("wire", 0444, d, priv, &tn_wire_fops);
	debugfs_create_file("flows", 0444, d, priv, &tn_flows_fops);
	debugfs_create_file("queues", 0444, d, priv, &tn_queues_fops);
	debugfs_create_file("rx", 0444, d, priv, &tn_rx_fops);
	debugfs_create_file("reset", 0200, d, priv, &tn_reset_fops);
	if (tn_dma_dev) {
		debugfs_create_file("dma", 0444, d, priv, &tn_dma_fops);
		debugfs_create_file("dma_optin", 0600, d, priv,
				    &tn_optin_fops);
	}
	if (priv->dev->netdev_ops == &tn_netdev_ops_select)
		debugfs_create_file("select_txq", 0600, d, priv,
				    &tn_select_fops);
	if (tn_ops_check) {
		debugfs_create_file("ops_mismatch", 0444, d, priv,
				    &tn_mismatch_fops);
		debugfs_create_file("ops_copy", 0600, d, priv, &tn_copy_fops);
	}
	for (i = 0; i < priv->ntxq; i++) {
		snprintf(name, sizeof(name), "tx-%u", i);
		qd = debugfs_create_dir(name, d);
		debugfs_create_file("delay_us", 0600, qd, &priv->txq[i],
				    &tn_delay_fops);
		debugfs_create_file("depth", 0600, qd, &priv->txq[i],
				    &tn_depth_fops);
	}
}

/* RTNL held: follow a rename or a move to another netns. */
void tn_debugfs_sync(struct tn_priv *priv)
{
	char want[TN_DNAME_LEN];
	struct dentry *d;

	if (!priv->dbg)
		return;
	tn_debugfs_want(priv, want, sizeof(want));
	if (!strcmp(want, priv->dname))
		return;
	d = debugfs_rename(tn_dbg_root, priv->dbg, tn_dbg_root, want);
	if (!IS_ERR(d))
		strscpy(priv->dname, want, sizeof(priv->dname));
}
