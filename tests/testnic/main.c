// SPDX-License-Identifier: GPL-2.0
/*
 * xnet_testnic: a test-only multi-queue software Ethernet NIC with BQL.
 *
 * No QEMU NIC gives a 6.1 guest multi-queue TX with BQL; this device does,
 * in the spirit of netdevsim. It is built and loaded by tests only.
 *
 * This file: the device parameters, the link kind (creation and deletion
 * of devices and pairs) and the netdevice notifier. The others:
 *   module.c   what only the loaded module has: init/exit, the DMA device
 *   netdev.c   net_device_ops, ethtool_ops, device setup
 *   tx.c       TX rings, BQL, completion (NAPI and its timer), TX quiesce
 *   wire.c     the wire: flow tracking, delivery to the peer's RX queues
 *   dma.c      the DMA device, frag mappings, pp_frag's DMA opt-in
 *   debugfs.c  /sys/kernel/debug/xnet_testnic/<dev>/
 *   internal.h what they share; xnet_testnic.h: the test header
 *
 * Devices
 *   Module parameters create devices at load, all in init_net:
 *     pairs=N        N peer pairs tn<2k> <-> tn<2k+1> (default 1)
 *     singles=N      N devices without a peer (packets end on the wire)
 *     txqs=N rxqs=N  TX / RX queues of each device (default 4 / 1)
 *     delay_us=N     initial completion delay of every TX queue (0)
 *     depth=N        initial ring depth of every TX queue (1024)
 *     flow_entries=N wire flow table size, rounded up to a power of two
 *     select_queue=1 devices get an ndo_select_queue (netdev.c)
 *     ops_check=1    the NIC tells its devices by their ops pointer, as
 *                    ixgbe and mlx5 do (netdev.c: tn_is_own())
 *   At runtime, like veth: "ip link add [NAME] [numtxqueues N] [numrxqueues
 *   N] type xnet_tnic" creates NAME (default tn%d) and its peer NAME+"p"
 *   (tn%d when NAME has a '%' or no room for the suffix). "ip link del"
 *   of either end, or deleting the netns of either end, removes both; so
 *   does rmmod for every device. Either end can move to another netns.
 *   ip -d link shows the peer as the link (tn1@tn0).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <net/rtnetlink.h>

#include "internal.h"

unsigned int tn_txqs = 4;
module_param_named(txqs, tn_txqs, uint, 0444);
MODULE_PARM_DESC(txqs, "TX queues per device (1..256)");
unsigned int tn_rxqs = 1;
module_param_named(rxqs, tn_rxqs, uint, 0444);
MODULE_PARM_DESC(rxqs, "RX queues per device (1..256)");
unsigned int tn_delay_us;
module_param_named(delay_us, tn_delay_us, uint, 0444);
MODULE_PARM_DESC(delay_us, "initial TX completion delay of every queue, us");
unsigned int tn_depth = 1024;
module_param_named(depth, tn_depth, uint, 0444);
MODULE_PARM_DESC(depth, "initial TX ring depth of every queue, packets");
unsigned int tn_flow_entries = 1024;
module_param_named(flow_entries, tn_flow_entries, uint, 0444);
MODULE_PARM_DESC(flow_entries, "wire flow table entries per device");
bool tn_select_queue;
module_param_named(select_queue, tn_select_queue, bool, 0444);
MODULE_PARM_DESC(select_queue, "devices get an ndo_select_queue (debugfs select_txq)");
bool tn_ops_check;
module_param_named(ops_check, tn_ops_check, bool, 0444);
MODULE_PARM_DESC(ops_check,
		 "recognise own devices by their netdev_ops pointer, as ixgbe and mlx5 do: a device that fails is counted (debugfs ops_mismatch), its packets are dropped and its renames not followed");
static bool tn_optout_first = true;
module_param_named(optout_first, tn_optout_first, bool, 0444);
MODULE_PARM_DESC(optout_first,
		 "opt out of pp_frag DMA in a NETDEV_UNREGISTER notifier of priority 1, before pp_frag's (N: priority 0, after it if pp_frag loaded first, as a driver that does not order its notifier)");

static struct rtnl_link_ops tn_link_ops;

/* ---- creation and deletion --------------------------------------------- */

/*
 * RTNL held. Registers @dev (allocated, not registered) and, if @peer_name,
 * its peer. On error nothing is registered any more; the caller frees @dev
 * with free_netdev() (which defers to the unregister if needed).
 */
static int tn_register(struct net_device *dev, const char *peer_name)
{
	struct tn_priv *priv, *ppriv;
	struct net_device *peer;
	int err;

	err = register_netdevice(dev);
	if (err)
		return err;
	netif_carrier_off(dev);
	if (!peer_name)
		return 0;

	peer = alloc_netdev_mqs(sizeof(struct tn_priv), peer_name,
				strchr(peer_name, '%') ? NET_NAME_ENUM :
							 NET_NAME_PREDICTABLE,
				tn_setup, dev->num_tx_queues,
				dev->num_rx_queues);
	if (!peer) {
		err = -ENOMEM;
		goto err_dev;
	}
	dev_net_set(peer, dev_net(dev));
	peer->rtnl_link_ops = &tn_link_ops;
	peer->mtu = dev->mtu;
	eth_hw_addr_random(peer);
	err = register_netdevice(peer);
	if (err) {
		free_netdev(peer);
		goto err_dev;
	}
	netif_carrier_off(peer);

	priv = netdev_priv(dev);
	ppriv = netdev_priv(peer);
	rcu_assign_pointer(priv->peer, peer);
	rcu_assign_pointer(ppriv->peer, dev);
	return 0;

err_dev:
	unregister_netdevice(dev);
	return err;
}

static int tn_validate(struct nlattr *tb[], struct nlattr *data[],
		       struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		if (nla_len(tb[IFLA_ADDRESS]) != ETH_ALEN)
			return -EINVAL;
		if (!is_valid_ether_addr(nla_data(tb[IFLA_ADDRESS])))
			return -EADDRNOTAVAIL;
	}
	return 0;
}

static int tn_newlink(struct net *src_net, struct net_device *dev,
		      struct nlattr *tb[], struct nlattr *data[],
		      struct netlink_ext_ack *extack)
{
	char peer_name[IFNAMSIZ];

	if (!tb[IFLA_ADDRESS])
		eth_hw_addr_random(dev);
	if (!tb[IFLA_IFNAME])
		strscpy(dev->name, "tn%d", IFNAMSIZ);
	if (strchr(dev->name, '%') || strlen(dev->name) + 2 > IFNAMSIZ)
		strscpy(peer_name, "tn%d", IFNAMSIZ);
	else
		snprintf(peer_name, IFNAMSIZ, "%sp", dev->name);
	return tn_register(dev, peer_name);
}

/* Both ends go (like veth); a second call for the peer is harmless. */
void tn_dellink(struct net_device *dev, struct list_head *head)
{
	struct tn_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);

	RCU_INIT_POINTER(priv->peer, NULL);
	unregister_netdevice_queue(dev, head);
	if (peer) {
		priv = netdev_priv(peer);
		RCU_INIT_POINTER(priv->peer, NULL);
		unregister_netdevice_queue(peer, head);
	}
}

static struct net *tn_get_link_net(const struct net_device *dev)
{
	struct tn_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);

	return peer ? dev_net(peer) : dev_net(dev);
}

static unsigned int tn_get_num_tx_queues(void)
{
	return tn_txqs;
}

static unsigned int tn_get_num_rx_queues(void)
{
	return tn_rxqs;
}

static struct rtnl_link_ops tn_link_ops = {
	.kind			= TN_KIND,
	.priv_size		= sizeof(struct tn_priv),
	.setup			= tn_setup,
	.validate		= tn_validate,
	.newlink		= tn_newlink,
	.dellink		= tn_dellink,
	.get_link_net		= tn_get_link_net,
	.get_num_tx_queues	= tn_get_num_tx_queues,
	.get_num_rx_queues	= tn_get_num_rx_queues,
};

/*
 * RTNL held: a device in init_net named tn%d, with a peer or without
 * (its peer is the next tn%d). Returns the device or an ERR_PTR.
 */
struct net_device *tn_create(bool with_peer)
{
	struct net_device *dev;
	int err;

	dev = alloc_netdev_mqs(sizeof(struct tn_priv), "tn%d", NET_NAME_ENUM,
			       tn_setup, tn_txqs, tn_rxqs);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->rtnl_link_ops = &tn_link_ops;
	eth_hw_addr_random(dev);
	err = tn_register(dev, with_peer ? "tn%d" : NULL);
	if (err) {
		free_netdev(dev);
		return ERR_PTR(err);
	}
	return dev;
}

/* ---- netdevice notifier ------------------------------------------------ */

static int tn_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct tn_priv *priv;

	/* By the link kind, which nobody else sets: so that ops_check can
	 * count a device of ours whose ops pointer is not ours.
	 */
	if (dev->rtnl_link_ops != &tn_link_ops)
		return NOTIFY_DONE;
	priv = netdev_priv(dev);
	/* ops_check: the directory follows the name only while the ops
	 * pointer is ours, as ixgbe's and mlx5's notifiers act only on
	 * devices whose ops are theirs (a failure is counted).
	 */
	if ((event == NETDEV_CHANGENAME || event == NETDEV_REGISTER) &&
	    tn_ops_ok(priv))
		tn_debugfs_sync(priv);
	/* Closed by now (delete, netns move): opt out before pp_frag's own
	 * NETDEV_UNREGISTER forgets the device and its mappings. Whatever
	 * the ops pointer: skipping it would leave pp_frag's references.
	 */
	if (event == NETDEV_UNREGISTER)
		tn_dma_optout(priv);
	return NOTIFY_DONE;
}

/* Before the notifiers of priority 0 (pp_frag's among them), or not. */
static struct notifier_block tn_notifier = {
	.notifier_call = tn_netdev_event,
	.priority = 1,
};

/* ---- module ------------------------------------------------------------ */

/*
 * The link kind, the notifier and the debugfs root: what the module sets up
 * before creating its devices, and KUnit (xps_flow/tests/xps_flow_steer_test.c,
 * which includes these files and creates devices with tn_create()) per suite.
 */
int tn_start(void)
{
	int err;

	tn_dbg_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	tn_notifier.priority = tn_optout_first ? 1 : 0;
	err = register_netdevice_notifier(&tn_notifier);
	if (err)
		goto err_dbg;
	err = rtnl_link_register(&tn_link_ops);
	if (err)
		goto err_notifier;
	return 0;

err_notifier:
	unregister_netdevice_notifier(&tn_notifier);
err_dbg:
	debugfs_remove_recursive(tn_dbg_root);
	tn_dbg_root = NULL;
	return err;
}

/* Deletes every device of this kind in every netns, then undoes tn_start. */
void tn_shutdown(void)
{
	rtnl_link_unregister(&tn_link_ops);
	unregister_netdevice_notifier(&tn_notifier);
	debugfs_remove_recursive(tn_dbg_root);
	tn_dbg_root = NULL;
}
