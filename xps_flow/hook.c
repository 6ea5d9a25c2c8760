// SPDX-License-Identifier: GPL-2.0
/*
 * Where the kernel calls xps_flow, registered only while at least one
 * device has a table (zero cost otherwise), and the hash of the devices
 * that have one.
 *
 * Queue choice: an ftrace handler with IPMODIFY on netdev_core_pick_tx(),
 * where __dev_queue_xmit(), netpoll, xfrm offload and generic XDP choose
 * a TX queue (the driver's ndo_select_queue, else XPS via
 * netdev_pick_tx()). For a device in xfl_steered the handler resumes the
 * call at xfl_core_pick_tx() (datapath.c): the same body, then the flow
 * table's verdict on the queue it chose. Any other device runs the
 * kernel's own function. Nothing the driver owns is written: its
 * netdev_ops, its select and its transmit stay what they are, whatever
 * the driver compares.
 *
 * Head: the net_dev_start_xmit and net_dev_xmit tracepoints, which fire in
 * xmit_one() around the driver's ndo_start_xmit, under the TX queue lock:
 * after the driver took the packet, dql.num_queued is exact.
 *
 * Lifetime: xfl_hooks_get()/put() count the devices with a table, under
 * RTNL. The first registers, in this order, the net_dev_xmit probe, the
 * net_dev_start_xmit probe and the ftrace handler; the last unregisters
 * them in the reverse order, each removal waiting for its callers in
 * flight (tracepoint_synchronize_unregister(), and ftrace's own wait for
 * tasks in its trampoline). A packet then in xfl_core_pick_tx() is in its
 * caller's RCU read-side section (rcu_read_lock_bh() in
 * __dev_queue_xmit(), rcu_read_lock() in xfrm_dev_resume(), interrupts
 * off in netpoll, a softirq for generic XDP): the caller's
 * synchronize_net() waits for it. So rmmod needs no pin: module exit
 * turns every table off, which removes the hooks and waits.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "../compat/ftrace.h"
#include "xps_flow.h"

struct xnet_devhash xfl_hash;		/* every attached device */
struct xnet_devhash xfl_steered;	/* the devices with a table */
unsigned int xfl_nr_steered;		/* RTNL */

/* Caller holds rcu_read_lock() (or rcu_read_lock_bh()). */
struct xfl_dev *xfl_lookup(const struct net_device *dev)
{
	struct xnet_devnode *n = xnet_devhash_find(&xfl_hash, dev);

	return n ? container_of(n, struct xfl_dev, hn) : NULL;
}

void xfl_hash_add(struct xfl_dev *xd)
{
	xnet_devhash_add(&xfl_hash, &xd->hn, xd->nd.dev);
}

void xfl_hash_del(struct xfl_dev *xd)
{
	xnet_devhash_del(&xd->hn);
}

/* ---- the tracepoints ---------------------------------------------------- */

struct xfl_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct xfl_tp xfl_tp_xmit = {
	.name = "net_dev_xmit", .probe = xfl_probe_xmit,
};

static struct xfl_tp xfl_tp_start = {
	.name = "net_dev_start_xmit", .probe = xfl_probe_start_xmit,
};

/* Not exported: found by name (as nvprio finds sock:inet_sock_set_state). */
static void xfl_find_tp(struct tracepoint *tp, void *priv)
{
	struct xfl_tp *x = priv;

	if (!strcmp(tp->name, x->name))
		x->tp = tp;
}

static int xfl_tp_on(struct xfl_tp *x)
{
	int err;

	if (!x->tp)
		for_each_kernel_tracepoint(xfl_find_tp, x);
	if (!x->tp) {
		pr_err_ratelimited("tracepoint net:%s not found\n", x->name);
		return -ENOENT;
	}
	err = tracepoint_probe_register(x->tp, x->probe, NULL);
	if (err)
		pr_err_ratelimited("cannot attach to net:%s: %d\n", x->name, err);
	return err;
}

static void xfl_tp_off(struct xfl_tp *x)
{
	tracepoint_probe_unregister(x->tp, x->probe, NULL);
	tracepoint_synchronize_unregister();
}

/* ---- the queue choice: netdev_core_pick_tx() ---------------------------- */

#ifdef XNET_HAVE_FTRACE_IPMODIFY
/*
 * Every netdev_core_pick_tx() of every device, in the caller's RCU
 * read-side section: steer only the devices with a table. Calls nothing
 * traceable.
 */
static void notrace xfl_pick_handler(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *ops,
				     struct ftrace_regs *fregs)
{
	const struct net_device *dev =
		(const struct net_device *)xnet_fregs_arg(fregs, 0);
	struct xfl_dev *xd = xfl_steered_find(dev);

	if (!xd)
		return;
#ifdef XNET_HAVE_FREGS_ARG3
	/* The device found, handed on: one lookup per packet, not two. */
	xnet_fregs_set_arg3(fregs, (unsigned long)xd);
#endif
	xnet_fregs_set_ip(fregs, (unsigned long)xfl_core_pick_tx);
}

static struct ftrace_ops xfl_pick_ops = {
	.func = xfl_pick_handler,
	.flags = XNET_FTRACE_IPMODIFY_FLAGS,
};

/*
 * The function's address: not exported, and ftrace_set_filter() by name
 * cannot be trusted with it (6.1's match_records() drops an allocation
 * failure and leaves an empty filter, which means "every function": the
 * registration then fails with EINVAL, not ENOMEM). A kprobe resolves
 * the name; ftrace_set_filter_ip() reports every failure. Once, under
 * RTNL.
 */
static unsigned long xfl_pick_ip;

static int xfl_pick_resolve(void)
{
	struct kprobe kp = { .symbol_name = "netdev_core_pick_tx" };
	int err;

	if (xfl_pick_ip)
		return 0;
	err = register_kprobe(&kp);
	if (err) {
		pr_err_ratelimited("cannot find netdev_core_pick_tx(): %d\n", err);
		return err;
	}
	xfl_pick_ip = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

static int xfl_pick_on(void)
{
	int err;

	err = xfl_pick_resolve();
	if (err)
		return err;
	err = ftrace_set_filter_ip(&xfl_pick_ops, xfl_pick_ip, 0, 1);
	if (err) {
		pr_err_ratelimited("cannot trace netdev_core_pick_tx(): %d\n", err);
		return err;
	}
	err = register_ftrace_function(&xfl_pick_ops);
	if (err) {
		pr_err_ratelimited("cannot hook netdev_core_pick_tx(): %d%s\n", err,
				   err == -EBUSY ?
				   " (a livepatch or another IPMODIFY hook owns it)" : "");
		ftrace_set_filter_ip(&xfl_pick_ops, xfl_pick_ip, 1, 0);
	}
	return err;
}

static void xfl_pick_off(void)
{
	/* Waits until no task is in the trampoline or on its way to us. */
	unregister_ftrace_function(&xfl_pick_ops);
	ftrace_set_filter_ip(&xfl_pick_ops, xfl_pick_ip, 1, 0);
}
#elif defined(MODULE)
#error "xps_flow needs DYNAMIC_FTRACE_WITH_ARGS or _WITH_REGS to hook the queue choice"
#else
/*
 * No ftrace (KUnit on UML): the suite calls xfl_steer() from the test
 * NIC's ndo_select_queue instead; the tracepoints are the real ones.
 */
static int xfl_pick_on(void)
{
	return 0;
}

static void xfl_pick_off(void)
{
}
#endif

/* ---- lifetime ----------------------------------------------------------- */

static int xfl_hooks_on(void)
{
	int err;

	xfl_xmit_reset();
	/* The end probe first: never a start without its end. */
	err = xfl_tp_on(&xfl_tp_xmit);
	if (err)
		return err;
	err = xfl_tp_on(&xfl_tp_start);
	if (err)
		goto err_xmit;
	err = xfl_pick_on();
	if (err)
		goto err_start;
	return 0;

err_start:
	xfl_tp_off(&xfl_tp_start);
err_xmit:
	xfl_tp_off(&xfl_tp_xmit);
	return err;
}

static void xfl_hooks_off(void)
{
	xfl_pick_off();
	/* Every start seen has its end seen before the end probe goes. */
	xfl_tp_off(&xfl_tp_start);
	xfl_tp_off(&xfl_tp_xmit);
}

/*
 * RTNL held, @xd's table published: the hooks find @xd from now on. The
 * first table registers them; if that fails, nothing changed.
 */
int xfl_hooks_get(struct xfl_dev *xd)
{
	ASSERT_RTNL();
	if (!xfl_nr_steered) {
		int err = xfl_hooks_on();

		if (err)
			return err;
	}
	xfl_nr_steered++;
	xnet_devhash_add(&xfl_steered, &xd->sn, xd->nd.dev);
	return 0;
}

/*
 * RTNL held: the hooks no longer find @xd once a grace period has passed
 * (the caller waits for it before freeing what they use); the last table
 * unregisters them.
 */
void xfl_hooks_put(struct xfl_dev *xd)
{
	ASSERT_RTNL();
	xnet_devhash_del(&xd->sn);
	if (!--xfl_nr_steered)
		xfl_hooks_off();
}
