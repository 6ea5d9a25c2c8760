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
 * IOMMU DMA domain translates @dma to @page itself, no sync is needed.
 * Atomic context is fine (ppf_map_new()).
 */
bool ppf_dma_need_sync(struct device *dma_dev, struct page *page,
		       dma_addr_t dma)
{
	struct iommu_domain *dom;

	if (!dma_need_sync(dma_dev, dma))
		return false;
	if (!dev_is_dma_coherent(dma_dev))
		return true;
	dom = iommu_get_domain_for_dev(dma_dev);
	return !dom || !iommu_is_dma_domain(dom) ||
	       iommu_iova_to_phys(dom, dma) != page_to_phys(page);
}

/*
 * Does @dma_dev need syncs around a mapping (bounce buffering, a device
 * that is not DMA-coherent)? pp_frag maps a page once and hands its frags
 * out with no sync: wrong for such a device. Tried on a page of our own.
 */
static int ppf_dma_probe(struct device *dma_dev)
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
		if (ppf_dma_need_sync(dma_dev, page, dma))
			err = -EOPNOTSUPP;
		dma_unmap_page_attrs(dma_dev, dma, PAGE_SIZE, DMA_TO_DEVICE,
				     DMA_ATTR_SKIP_CPU_SYNC);
	}
	__free_page(page);
	return err;
}

int pp_frag_dma_register(struct net_device *dev, struct device *dma_dev)
{
	struct ppf_dev *pd;
	int err;

	ASSERT_RTNL();
	pd = ppf_find(dev);
	if (!pd || !dma_dev)
		return -ENODEV;
	if (pd->dma_dev)
		return pd->dma_dev == dma_dev ? 0 : -EBUSY;
	err = ppf_dma_probe(dma_dev);
	if (err == -EOPNOTSUPP)
		pr_info_ratelimited("%s: %s needs DMA syncs (bounce buffering or not coherent): no premapped pool pages, the driver maps frags as usual\n",
				    netdev_name(dev), dev_name(dma_dev));
	if (err)
		return err;
	/* ppf_mutex: not while the shrinker releases (and unmaps) pages. */
	mutex_lock(&ppf_mutex);
	pd->dma_dev = dma_dev;
	pd->dma_owner = atomic64_inc_return(&ppf_dma_owners);
	if (pd->pool)
		ppf_pool_dma_map(pd->pool, dma_dev, pd->dma_owner);
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
