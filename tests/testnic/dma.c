// SPDX-License-Identifier: GPL-2.0
/*
 * xnet_testnic DMA (the saving pp_frag's driver API, pp_frag_api.h, is
 * about).
 *
 * The module maps for one DMA device (its own platform device with 64-bit
 * DMA masks, or the driverless PCI device dma_pci names); the xmit gives
 * every frag a DMA address for it (the skb head is not mapped):
 * pp_frag's mapping of the frag's pool page when the device opted in and
 * pp_frag_dma_addr() has one ("saved", never unmapped here), else
 * skb_frag_dma_map() ("maps"), undone at TX completion or purge ("unmaps").
 * A failed map drops the packet before BQL hears of it. At completion the
 * device "reads" each frag through its DMA address (dma-direct: the memory
 * at that physical address, e.g. a swiotlb bounce slot; an IOMMU: where
 * its page table translates the address to at that moment): a frag whose
 * bytes there differ (or whose address is not mapped) is counted as
 * bad_addr and the wire carries the bytes read, as a real NIC would send
 * them. Opt-in takes references on pp_frag with
 * symbol_get() (no module dependency); opt-out quiesces a running device's
 * TX first (no xmit, rings drained), and happens by itself on
 * NETDEV_UNREGISTER (before pp_frag's).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#ifdef CONFIG_HAS_DMA
#include <linux/dma-direct.h>
#endif
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"
#include "../../pp_frag/pp_frag_api.h"	/* declarations only: symbol_get */

/* The module's DMA device (module.c; every test NIC maps its frags for it): NULL
 * under KUnit, which has no module init: no DMA work then.
 */
struct device *tn_dma_dev;
bool tn_dma_direct;	/* no dma_map_ops: dma-direct, no IOMMU */
struct iommu_domain *tn_dma_iommu;	/* iommu-dma: the domain that translates */

/*
 * The physical address the device reads at @addr: with dma-direct the DMA
 * address is one, through an IOMMU the domain's page table says (0: @addr
 * is not mapped, the device would fault). 0 as well on another
 * dma_map_ops path, which the device does not look behind.
 */
static phys_addr_t tn_dma_phys(dma_addr_t addr)
{
#ifdef CONFIG_HAS_DMA
	if (tn_dma_direct)
		return dma_to_phys(tn_dma_dev, addr);
#endif
	if (tn_dma_iommu)
		return iommu_iova_to_phys(tn_dma_iommu, addr);
	return 0;
}

static phys_addr_t tn_frag_phys(const skb_frag_t *f)
{
	return page_to_phys(skb_frag_page(f)) + skb_frag_off(f);
}

/*
 * Must the device read at completion (tn_dma_read()) look at this frag's
 * DMA address? With dma-direct when it is somewhere else than the frag's
 * bytes (a swiotlb bounce slot, or a wrong address); through an IOMMU
 * always: the translation is read when the device reads, so an IOVA
 * unmapped or remapped while the frag was in flight is seen.
 */
static bool tn_dma_elsewhere(const skb_frag_t *f, dma_addr_t addr)
{
	if (tn_dma_iommu)
		return true;
	return tn_dma_direct && tn_dma_phys(addr) != tn_frag_phys(f);
}

/*
 * The device reads the frags at their DMA addresses, as a NIC does when it
 * fetches a descriptor's buffer: the wire carries what it read. A frag
 * whose DMA address holds other bytes than the frag (a bounce buffer
 * nobody synced, a wrong offset into a pool page) is counted as bad_addr
 * and goes on the wire as read: returns a copy of @skb carrying those
 * bytes, or NULL to send @skb as it is. Before the frags are unmapped.
 */
struct sk_buff *tn_dma_read(struct tn_priv *priv, struct sk_buff *skb)
{
	const struct skb_shared_info *si = skb_shinfo(skb);
	struct tn_dma_frag *d = TN_CB(skb)->dma;
	unsigned int i, off = skb_headlen(skb);
	struct sk_buff *nskb = NULL;

	if (!d)
		return NULL;
	for (i = 0; i < si->nr_frags; off += skb_frag_size(&si->frags[i]), i++) {
		const skb_frag_t *f = &si->frags[i];
		const void *seen;
		phys_addr_t phys;

		if (!d[i].elsewhere)
			continue;
		phys = tn_dma_phys(d[i].addr);
		if (phys == tn_frag_phys(f))
			continue;
		if (!phys) {	/* not mapped: an IOMMU fault, nothing read */
			atomic64_inc(&priv->dma.bad_addr);
			continue;
		}
		seen = phys_to_virt(phys);
		if (!memcmp(seen, skb_frag_address(f), skb_frag_size(f)))
			continue;
		atomic64_inc(&priv->dma.bad_addr);
		if (!nskb) {
			nskb = skb_copy(skb, GFP_ATOMIC);
			if (!nskb) {
				atomic64_inc(&priv->dma.errors);
				return NULL;
			}
			TN_CB(nskb)->dma = NULL;
			TN_CB(nskb)->dma_own = 0;
		}
		memcpy(nskb->data + off, seen, skb_frag_size(f));
	}
	return nskb;
}

/* Unmap what tn_dma_map() mapped for @skb and free its addresses. */
void tn_dma_unmap(struct tn_priv *priv, struct sk_buff *skb)
{
	struct tn_dma_frag *d = TN_CB(skb)->dma;
	u32 own = TN_CB(skb)->dma_own;
	unsigned int i, n = 0;

	if (!d)
		return;
	for (i = 0; own; i++, own >>= 1) {
		if (!(own & 1))
			continue;
		dma_unmap_page(tn_dma_dev, d[i].addr, d[i].len, DMA_TO_DEVICE);
		n++;
	}
	kfree(d);
	TN_CB(skb)->dma = NULL;
	TN_CB(skb)->dma_own = 0;
	if (n)
		atomic64_add(n, &priv->dma.unmaps);
}

/*
 * Every frag of @skb gets a DMA address for the module's DMA device, as a
 * real NIC's descriptors would: pp_frag's mapping of the frag's pool page
 * when the device opted in and pp_frag has one (never unmapped by us),
 * else a dma_map_page() undone at TX completion. The skb head is not
 * mapped (it is never a pool page). Outside the ring lock, like a
 * driver's mapping; 0 or -ENOMEM (the packet must be dropped).
 */
int tn_dma_map(struct tn_priv *priv, struct sk_buff *skb)
{
	const struct skb_shared_info *si = skb_shinfo(skb);
	dma_addr_t (*ppf_addr)(struct net_device *dev, struct page *page);
	unsigned int i, n = si->nr_frags, maps = 0, saved = 0;
	struct tn_dma_frag *d;

	TN_CB(skb)->dma = NULL;
	TN_CB(skb)->dma_own = 0;
	if (!tn_dma_dev || !n)
		return 0;
	d = kmalloc_array(n, sizeof(*d), GFP_ATOMIC);
	if (!d)
		goto err;
	TN_CB(skb)->dma = d;
	ppf_addr = READ_ONCE(priv->ppf.addr);
	for (i = 0; i < n; i++) {
		const skb_frag_t *f = &si->frags[i];
		struct page *page = skb_frag_page(f);
		dma_addr_t addr = DMA_MAPPING_ERROR;

		if (ppf_addr)
			addr = ppf_addr(priv->dev, page);
		if (addr != DMA_MAPPING_ERROR) {
			/* pp_frag's address of the frag's page itself. */
			addr += skb_frag_off(f);
			saved++;
		} else {
			addr = skb_frag_dma_map(tn_dma_dev, f, 0,
						skb_frag_size(f), DMA_TO_DEVICE);
			if (dma_mapping_error(tn_dma_dev, addr))
				goto err;
			TN_CB(skb)->dma_own |= BIT(i);
			maps++;
		}
		d[i].addr = addr;
		d[i].len = skb_frag_size(f);
		d[i].elsewhere = tn_dma_elsewhere(f, addr);
	}
	if (maps)
		atomic64_add(maps, &priv->dma.maps);
	if (saved)
		atomic64_add(saved, &priv->dma.saved);
	return 0;

err:
	if (maps)
		atomic64_add(maps, &priv->dma.maps);
	tn_dma_unmap(priv, skb);
	atomic64_inc(&priv->dma.errors);
	return -ENOMEM;
}

/* ---- pp_frag DMA opt-in ------------------------------------------------ */

static void tn_ppf_put(const struct tn_ppf *p)
{
	if (p->reg)
		symbol_put(pp_frag_dma_register);
	if (p->unreg)
		symbol_put(pp_frag_dma_unregister);
	if (p->addr)
		symbol_put(pp_frag_dma_addr);
}

/* RTNL. Pool pages of the device come with pp_frag's mapping from now. */
int tn_dma_optin(struct tn_priv *priv)
{
	struct tn_ppf p;
	int err;

	ASSERT_RTNL();
	if (priv->ppf.addr)
		return 0;
	if (!tn_dma_dev)
		return -ENODEV;
	/* References on pp_frag: it cannot go while we are opted in. */
	p.reg = symbol_get(pp_frag_dma_register);
	p.unreg = symbol_get(pp_frag_dma_unregister);
	p.addr = symbol_get(pp_frag_dma_addr);
	if (!p.reg || !p.unreg || !p.addr) {
		pr_warn("%s: dma_optin: pp_frag is not loaded\n",
			priv->dev->name);
		err = -ENOENT;
		goto err_put;
	}
	err = p.reg(priv->dev, tn_dma_dev);
	if (err) {
		pr_warn("%s: dma_optin: pp_frag_dma_register: %d\n",
			priv->dev->name, err);
		goto err_put;
	}
	priv->ppf.reg = p.reg;
	priv->ppf.unreg = p.unreg;
	WRITE_ONCE(priv->ppf.addr, p.addr);
	return 0;

err_put:
	tn_ppf_put(&p);
	return err;
}

/*
 * RTNL. Opt out once the device no longer transmits (pp_frag_api.h): a
 * running device has its TX quiesced around pp_frag_dma_unregister(); a
 * down one has no packet on its rings (ndo_stop purged them).
 */
int tn_dma_optout(struct tn_priv *priv)
{
	struct net_device *dev = priv->dev;
	bool running = netif_running(dev);
	struct tn_ppf p = priv->ppf;
	int err;

	ASSERT_RTNL();
	if (!p.addr)
		return 0;
	if (running) {
		err = tn_tx_quiesce(priv);
		if (err) {
			pr_warn("%s: dma_optin: TX rings did not drain, still opted in\n",
				dev->name);
			return err;
		}
	}
	WRITE_ONCE(priv->ppf.addr, NULL);
	p.unreg(dev);
	memset(&priv->ppf, 0, sizeof(priv->ppf));
	if (running) {
		tn_tx_set_quiesced(priv, false);
		netif_tx_wake_all_queues(dev);
	}
	tn_ppf_put(&p);
	return 0;
}
