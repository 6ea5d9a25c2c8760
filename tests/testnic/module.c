// SPDX-License-Identifier: GPL-2.0
/*
 * xnet_testnic: what only the loaded module has (the KUnit suite
 * xps_flow_steer compiles the other files into its kernel, not this one):
 * the check of the module parameters, the DMA device every test NIC maps
 * its frags for, and module init/exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <net/rtnetlink.h>

#include "internal.h"

#define TN_QUEUES_MAX		256U
#define TN_FLOWS_MIN		TN_WAYS
#define TN_FLOWS_MAX		65536U

static unsigned int tn_pairs = 1;
module_param_named(pairs, tn_pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "peer pairs created at load (tn0<->tn1, ...)");
static unsigned int tn_singles;
module_param_named(singles, tn_singles, uint, 0444);
MODULE_PARM_DESC(singles, "devices without a peer created at load");

static char *tn_dma_pci;
module_param_named(dma_pci, tn_dma_pci, charp, 0444);
MODULE_PARM_DESC(dma_pci, "DMA device: this driverless PCI device (DDDD:BB:DD.F), e.g. QEMU's edu behind a virtual IOMMU; default: a platform device of the module's own");

static bool tn_dma_untrusted;
module_param_named(dma_untrusted, tn_dma_untrusted, bool, 0444);
MODULE_PARM_DESC(dma_untrusted, "with dma_pci=: mark that device untrusted while loaded, as the PCI core marks one behind an external-facing port (tests pp_frag's refusal)");

static struct platform_device *tn_dma_pdev;
static struct pci_dev *tn_dma_pcidev;
static u64 tn_dma_pci_mask, tn_dma_pci_cmask;	/* restored at unload */
static bool tn_dma_pci_untrusted;		/* restored at unload */

/* ---- the DMA device ---------------------------------------------------- */

/*
 * Which path dma_map_page() takes for the DMA device: an IOMMU DMA domain
 * (iommu-dma: an IOVA the IOMMU translates), else dma-direct (no
 * dma_map_ops: the DMA address is the physical one) or other dma_map_ops.
 * Read once: the domain of a device nobody else drives only changes if
 * root rewrites its iommu_group's type, which no test does.
 */
static void tn_dma_path(struct device *dev)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);

	tn_dma_iommu = dom && iommu_is_dma_domain(dom) ? dom : NULL;
	tn_dma_direct = !tn_dma_iommu && !get_dma_ops(dev);
}

/*
 * dma_pci=DDDD:BB:DD.F: a PCI device with no driver (it is ours to map
 * for; a bound driver owns its DMA), so an IOMMU that translates by PCI
 * requester ID covers the mappings: with intel_iommu=on they go through
 * iommu-dma, the per-map cost pp_frag's opt-in saves. A reference is held
 * until unload, and the DMA masks are put back then.
 */
static int __init tn_dma_pci_init(void)
{
#ifdef CONFIG_PCI
	unsigned int dom, bus, slot, fn;
	struct pci_dev *pdev;
	char end;
	int err;

	/* Hex digits and separators only: sscanf() alone takes "0x", signs. */
	if (tn_dma_pci[strspn(tn_dma_pci, "0123456789abcdefABCDEF:.")] ||
	    sscanf(tn_dma_pci, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn,
		   &end) != 4 || dom > 0xffff || bus > 0xff || slot > 0x1f ||
	    fn > 7) {
		pr_err("dma_pci=%s: want DDDD:BB:DD.F\n", tn_dma_pci);
		return -EINVAL;
	}
	pdev = pci_get_domain_bus_and_slot(dom, bus, PCI_DEVFN(slot, fn));
	if (!pdev) {
		pr_err("dma_pci=%s: no such PCI device\n", tn_dma_pci);
		return -ENODEV;
	}
	device_lock(&pdev->dev);
	err = pdev->dev.driver ? -EBUSY : 0;
	device_unlock(&pdev->dev);
	if (err) {
		pr_err("dma_pci=%s: bound to driver %s\n", tn_dma_pci,
		       dev_driver_string(&pdev->dev));
		pci_dev_put(pdev);
		return err;
	}
	tn_dma_pci_mask = dma_get_mask(&pdev->dev);
	tn_dma_pci_cmask = pdev->dev.coherent_dma_mask;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		pr_err("dma_pci=%s: 64-bit DMA masks: %d\n", tn_dma_pci, err);
		pci_dev_put(pdev);
		return err;
	}
	tn_dma_pcidev = pdev;
	tn_dma_pci_untrusted = pdev->untrusted;
	if (tn_dma_untrusted)
		pdev->untrusted = 1;
	tn_dma_dev = &pdev->dev;
	tn_dma_path(tn_dma_dev);
	pr_info("DMA device %s, %s\n", pci_name(pdev), tn_dma_iommu ?
		"IOMMU DMA domain" : tn_dma_direct ? "dma-direct" : "dma_map_ops");
	return 0;
#else
	pr_err("dma_pci=%s: no PCI in this kernel\n", tn_dma_pci);
	return -ENODEV;
#endif
}

/*
 * Else one DMA-capable device for the module: a platform device with
 * 64-bit streaming and coherent masks. No driver binds it and no IOMMU is
 * set up for it (an IOMMU translates PCI requester IDs, not a platform
 * device a module made): dma_map_page() goes through dma-direct (x86
 * without IOMMU or GART: no dma_map_ops), with no swiotlb bounce (every
 * address fits the mask; bouncing is only forced for swiotlb=force or
 * memory encryption). Which path it is shows in each device's debugfs
 * "dma" file.
 */
static int __init tn_dma_init(void)
{
	const struct platform_device_info info = {
		.name		= KBUILD_MODNAME "_dma",
		.id		= PLATFORM_DEVID_NONE,
		.dma_mask	= DMA_BIT_MASK(64),
	};
	struct platform_device *pdev;
	int err;

	if (tn_dma_pci && *tn_dma_pci)
		return tn_dma_pci_init();
	pdev = platform_device_register_full(&info);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		platform_device_unregister(pdev);
		return err;
	}
	tn_dma_pdev = pdev;
	tn_dma_dev = &pdev->dev;
	tn_dma_path(tn_dma_dev);
	return 0;
}

static void tn_dma_exit(void)
{
	tn_dma_dev = NULL;
	tn_dma_iommu = NULL;
	if (tn_dma_pcidev) {
		dma_set_mask(&tn_dma_pcidev->dev, tn_dma_pci_mask);
		dma_set_coherent_mask(&tn_dma_pcidev->dev, tn_dma_pci_cmask);
		tn_dma_pcidev->untrusted = tn_dma_pci_untrusted;
		pci_dev_put(tn_dma_pcidev);
		tn_dma_pcidev = NULL;
	}
	if (tn_dma_pdev)
		platform_device_unregister(tn_dma_pdev);
	tn_dma_pdev = NULL;
}

static int __init tn_check_param(const char *name, unsigned int val,
				 unsigned int min, unsigned int max)
{
	if (val >= min && val <= max)
		return 0;
	pr_err("%s=%u out of range %u..%u\n", name, val, min, max);
	return -EINVAL;
}

static int __init tn_init(void)
{
	unsigned int i;
	int err;

	BUILD_BUG_ON(sizeof(struct tn_skb_cb) >
		     sizeof_field(struct sk_buff, cb));
	BUILD_BUG_ON(sizeof(struct tn_flow_key) % sizeof(u32));
	BUILD_BUG_ON(MAX_SKB_FRAGS > 32);	/* tn_skb_cb.dma_own */
	err = tn_check_param("pairs", tn_pairs, 0, 64) ?:
	      tn_check_param("singles", tn_singles, 0, 64) ?:
	      tn_check_param("txqs", tn_txqs, 1, TN_QUEUES_MAX) ?:
	      tn_check_param("rxqs", tn_rxqs, 1, TN_QUEUES_MAX) ?:
	      tn_check_param("delay_us", tn_delay_us, 0, TN_DELAY_MAX_US) ?:
	      tn_check_param("depth", tn_depth, 1, TN_DEPTH_MAX) ?:
	      tn_check_param("flow_entries", tn_flow_entries, 1, TN_FLOWS_MAX);
	if (err)
		return err;
	if (tn_dma_untrusted && (!tn_dma_pci || !*tn_dma_pci)) {
		pr_err("dma_untrusted=1 needs dma_pci=\n");
		return -EINVAL;
	}
	tn_flow_entries = roundup_pow_of_two(max(tn_flow_entries,
						 TN_FLOWS_MIN));

	err = tn_dma_init();
	if (err) {
		if (!tn_dma_pci || !*tn_dma_pci)
			pr_err("no DMA device: %d\n", err);
		return err;
	}
	err = tn_start();
	if (err) {
		tn_dma_exit();
		return err;
	}
	rtnl_lock();
	for (i = 0; i < tn_pairs + tn_singles && !err; i++)
		err = PTR_ERR_OR_ZERO(tn_create(i < tn_pairs));
	rtnl_unlock();
	if (err) {
		pr_err("creating the devices failed: %d\n", err);
		tn_shutdown();
		tn_dma_exit();
	}
	return err;
}

/* Deleting the devices opted them out (NETDEV_UNREGISTER): pp_frag holds
 * no mapping for the DMA device any more.
 */
static void __exit tn_exit(void)
{
	tn_shutdown();
	tn_dma_exit();
}

module_init(tn_init);
module_exit(tn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xnet test NIC: multi-queue software Ethernet with BQL, XPS and a reorder-counting wire");
MODULE_ALIAS_RTNL_LINK(TN_KIND);
