// SPDX-License-Identifier: GPL-2.0
/*
 * xnet_hookcost: the hooks xps_flow stands on, with nothing behind them,
 * for the cost bench (tests/bench/xps-guest.sh, icount boot): what the
 * kernel charges per packet for the hook itself, apart from what xps_flow
 * does in it. Never loaded otherwise.
 *   hooks=1  an ftrace handler on netdev_core_pick_tx() with xps_flow's
 *            flags (IPMODIFY), which returns at once
 *   hooks=2  probes on net:net_dev_start_xmit and net:net_dev_xmit, which
 *            return at once
 *   hooks=3  both
 * Set at load only; rmmod removes what was registered.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "compat/ftrace.h"

#define HC_FTRACE	1
#define HC_TRACEPOINTS	2

static unsigned int hooks;
module_param(hooks, uint, 0444);
MODULE_PARM_DESC(hooks, "1: empty ftrace handler on netdev_core_pick_tx(), 2: empty net_dev_start_xmit/net_dev_xmit probes, 3: both");

static unsigned int hc_on;

/* ---- the tracepoints: found by name, as xps_flow does ------------------ */

static void notrace hc_probe_start(void *data, const struct sk_buff *skb,
				   const struct net_device *dev)
{
}

static void notrace hc_probe_xmit(void *data, struct sk_buff *skb, int rc,
				  struct net_device *dev, unsigned int len)
{
}

static struct tracepoint *hc_tp_start, *hc_tp_xmit;

static void hc_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "net_dev_start_xmit"))
		hc_tp_start = tp;
	else if (!strcmp(tp->name, "net_dev_xmit"))
		hc_tp_xmit = tp;
}

static int hc_tracepoints_on(void)
{
	int err;

	for_each_kernel_tracepoint(hc_find_tp, NULL);
	if (!hc_tp_start || !hc_tp_xmit) {
		pr_err("net_dev_start_xmit or net_dev_xmit not found\n");
		return -ENOENT;
	}
	err = tracepoint_probe_register(hc_tp_xmit, hc_probe_xmit, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(hc_tp_start, hc_probe_start, NULL);
	if (err) {
		tracepoint_probe_unregister(hc_tp_xmit, hc_probe_xmit, NULL);
		tracepoint_synchronize_unregister();
	}
	return err;
}

static void hc_tracepoints_off(void)
{
	tracepoint_probe_unregister(hc_tp_start, hc_probe_start, NULL);
	tracepoint_probe_unregister(hc_tp_xmit, hc_probe_xmit, NULL);
	tracepoint_synchronize_unregister();
}

/* ---- the ftrace handler ------------------------------------------------- */

#ifdef XNET_HAVE_FTRACE_IPMODIFY
static void notrace hc_pick_handler(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *ops,
				    struct ftrace_regs *fregs)
{
}

static struct ftrace_ops hc_pick_ops = {
	.func = hc_pick_handler,
	.flags = XNET_FTRACE_IPMODIFY_FLAGS,
};

static unsigned long hc_pick_ip;

static int hc_ftrace_on(void)
{
	struct kprobe kp = { .symbol_name = "netdev_core_pick_tx" };
	unsigned long ip;
	int err;

	err = register_kprobe(&kp);
	if (err)
		return err;
	ip = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	err = ftrace_set_filter_ip(&hc_pick_ops, ip, 0, 1);
	if (err)
		return err;
	err = register_ftrace_function(&hc_pick_ops);
	if (err)
		ftrace_set_filter_ip(&hc_pick_ops, ip, 1, 0);
	else
		hc_pick_ip = ip;
	return err;
}

static void hc_ftrace_off(void)
{
	unregister_ftrace_function(&hc_pick_ops);
	ftrace_set_filter_ip(&hc_pick_ops, hc_pick_ip, 1, 0);
}
#else
static int hc_ftrace_on(void)
{
	return -EOPNOTSUPP;
}

static void hc_ftrace_off(void)
{
}
#endif

static int __init hc_init(void)
{
	int err;

	if (hooks > (HC_FTRACE | HC_TRACEPOINTS)) {
		pr_err("hooks=%u: want 0..3\n", hooks);
		return -EINVAL;
	}
	if (hooks & HC_TRACEPOINTS) {
		err = hc_tracepoints_on();
		if (err) {
			pr_err("cannot attach the tracepoint probes: %d\n", err);
			return err;
		}
		hc_on |= HC_TRACEPOINTS;
	}
	if (hooks & HC_FTRACE) {
		err = hc_ftrace_on();
		if (err) {
			pr_err("cannot hook netdev_core_pick_tx(): %d\n", err);
			if (hc_on & HC_TRACEPOINTS)
				hc_tracepoints_off();
			return err;
		}
		hc_on |= HC_FTRACE;
	}
	return 0;
}

static void __exit hc_exit(void)
{
	if (hc_on & HC_FTRACE)
		hc_ftrace_off();
	if (hc_on & HC_TRACEPOINTS)
		hc_tracepoints_off();
}

module_init(hc_init);
module_exit(hc_exit);
MODULE_DESCRIPTION("Empty hooks where xps_flow hooks, for the cost bench");
MODULE_LICENSE("GPL");
