// SPDX-License-Identifier: GPL-2.0
/* pp_frag's DMA opt-in for drivers (pp_frag_api.h): pool pages mapped once. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>

#include "pp_frag.h"
#include "pp_frag_api.h"

/* Opt-ins numbered from 1: an orphan's mapping names the one that made it. */
static atomic64_t ppf_dma_owners = ATOMIC64_INIT(0);

/*
 * Would a sync of @dma, @dma_dev's mapping of @page, do anything? pp_frag
 * hands a mapped page's frags out with no sync: wrong if it would.
 * dma_need_sync() is exact for dma-direct (a swiotlb bounce slot, a device
 * that is not coherent). Through an IOMMU (iommu-dma) 6.1 answers yes for
 * every mapping, because iommu_dma_ops has sync callbacks, and 6.12 asks
 * only the device's coherence; the callbacks act only on a swiotlb bounce
 * buffer (untrusted devices, unaligned maps) or a device that is not
 * coherent (drivers/iommu/dma-iommu.c). So with a coherent device whose
 * IOMMU DMA domain @dom translates @dma to @page itself, no sync is needed.
 * @dom: the device's domain, looked up once at opt-in (process context:
 * iommu_get_domain_for_dev() is for the device's own probed driver, not
 * for atomic context), NULL without one. Atomic context is fine
 * (ppf_map_new()).
 */
bool ppf_dma_need_sync(struct device *dma_dev, struct iommu_domain *dom,
		       struct page *page, dma_addr_t dma)
{
	if (!dma_need_sync(dma_dev, dma))
		return false;
	if (!dev_is_dma_coherent(dma_dev))
		return true;
	return !dom || !iommu_is_dma_domain(dom) ||
	       iommu_iova_to_phys(dom, dma) != page_to_phys(page);
}

/*
 * Does @dma_dev need syncs around a mapping (bounce buffering, a device
 * that is not DMA-coherent)? pp_frag maps a page once and hands its frags
 * out with no sync: wrong for such a device. Tried on a page of our own.
 */
static int ppf_dma_probe(struct device *dma_dev, struct iommu_domain *dom)
{
	struct page *page = alloc_page(GFP_KERNEL);
	dma_addr_t dma;
	int err = 0;

	if (!page)
		return -ENOMEM;
	dma = dma_map_page_attrs(dma_dev, page, 0, PAGE_SIZE, DMA_TO_DEVICE,
				 DMA_ATTR_SKIP_CPU_SYNC);
	if (dma_mapping_error(dma_dev, dma)) {
		err = -EIO;
	} else {
		if (ppf_dma_need_sync(dma_dev, dom, page, dma))
			err = -EOPNOTSUPP;
		dma_unmap_page_attrs(dma_dev, dma, PAGE_SIZE, DMA_TO_DEVICE,
				     DMA_ATTR_SKIP_CPU_SYNC);
	}
	__free_page(page);
	return err;
}

/*
 * An untrusted device (behind an external-facing port: Thunderbolt, USB4)
 * gets sub-page isolation from iommu-dma: each mapping exposes only its
 * own bytes, bounced where it does not fill whole pages. A pool page
 * mapped once, whole, for every frag it will ever carry would show it
 * whatever else is on that page, from any socket: refused.
 */
static bool ppf_dma_untrusted(struct device *dma_dev)
{
#ifdef CONFIG_PCI
	return dev_is_pci(dma_dev) && to_pci_dev(dma_dev)->untrusted;
#else
	return false;
#endif
}

int pp_frag_dma_register(struct net_device *dev, struct device *dma_dev)
{
	struct iommu_domain *dom;
	struct ppf_dev *pd;
	int err;

	ASSERT_RTNL();
	might_sleep();
	pd = ppf_find(dev);
	if (!pd || !dma_dev)
		return -ENODEV;
	if (pd->dma_dev)
		return pd->dma_dev == dma_dev ? 0 : -EBUSY;
	if (ppf_dma_untrusted(dma_dev)) {
		pr_warn_ratelimited("%s: %s is untrusted (an external-facing port): no premapped pool pages, the driver maps frags as usual\n",
				    netdev_name(dev), dev_name(dma_dev));
		return -EPERM;
	}
	/* Once, here: the driver's own process context. */
	dom = iommu_get_domain_for_dev(dma_dev);
	err = ppf_dma_probe(dma_dev, dom);
	if (err == -EOPNOTSUPP)
		pr_info_ratelimited("%s: %s needs DMA syncs (bounce buffering or not coherent): no premapped pool pages, the driver maps frags as usual\n",
				    netdev_name(dev), dev_name(dma_dev));
	if (err)
		return err;
	/* ppf_mutex: not while the shrinker releases (and unmaps) pages. */
	mutex_lock(&ppf_mutex);
	pd->dma_dev = dma_dev;
	pd->dma_dom = dom;
	pd->dma_owner = atomic64_inc_return(&ppf_dma_owners);
	if (pd->pool)
		ppf_pool_dma_map(pd->pool, pd);
	mutex_unlock(&ppf_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(pp_frag_dma_register);

/*
 * RTNL. Drop every mapping @pd's opt-in made: its pool's pages and its
 * orphans, not those of another device that shares the DMA device.
 */
void ppf_dma_off(struct ppf_dev *pd)
{
	if (!pd->dma_dev)
		return;
	mutex_lock(&ppf_mutex);
	if (pd->pool)
		ppf_pool_dma_unmap(pd->pool);
	mutex_unlock(&ppf_mutex);
	ppf_orphans_reap(true, pd->dma_owner);
	pd->dma_dev = NULL;
	pd->dma_dom = NULL;
	pd->dma_owner = 0;
}

void pp_frag_dma_unregister(struct net_device *dev)
{
	struct ppf_dev *pd;

	ASSERT_RTNL();
	pd = ppf_find(dev);
	if (pd)
		ppf_dma_off(pd);
}
EXPORT_SYMBOL_GPL(pp_frag_dma_unregister);

dma_addr_t pp_frag_dma_addr(struct net_device *dev, struct page *page)
{
	struct page *head = compound_head(page);
	struct ppf_pool *pool;
	dma_addr_t dma = DMA_MAPPING_ERROR;

	rcu_read_lock();
	pool = ppf_pool_of(dev);
	if (pool)
		dma = ppf_pool_dma_addr(pool, head);
	rcu_read_unlock();
	/* The mapping covers the compound page: @page's own address. */
	if (dma != DMA_MAPPING_ERROR)
		dma += (dma_addr_t)(page_to_pfn(page) - page_to_pfn(head)) << PAGE_SHIFT;
	return dma;
}
EXPORT_SYMBOL_GPL(pp_frag_dma_addr);
