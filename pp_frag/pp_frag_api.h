/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pp_frag's API for drivers: skip the per-frag DMA map for pool pages.
 *
 * A driver that opts in for its net device (under RTNL, e.g. in ndo_open)
 * has every page of the device's pool mapped once for @dma_dev
 * (DMA_TO_DEVICE) and used for every frag of the page with no sync. So
 * only a device that never needs a sync qualifies: pp_frag_dma_register()
 * fails with -EOPNOTSUPP when a mapping for @dma_dev needs one (swiotlb
 * bounce buffers: swiotlb=force, SEV/TDX guests; a device that is not
 * DMA-coherent), and a page whose own mapping would need one (above a
 * 32-bit mask, say) is left unmapped. Behind an IOMMU (iommu-dma) a
 * coherent device whose IOVA translates to the page itself qualifies,
 * although 6.1's dma_need_sync() says yes for every iommu-dma mapping.
 * An untrusted PCI device (behind an external-facing port) is refused
 * with -EPERM: iommu-dma limits each of its mappings to its own bytes,
 * which a whole pool page mapped once would undo. Call it from the
 * driver's process context (it may sleep: the IOMMU domain is looked up
 * there, once). Other errors: -ENODEV (@dev unknown to pp_frag, or no
 * @dma_dev), -EBUSY (@dev opted in for another DMA device).
 * At transmit, pp_frag_dma_addr() gives the DMA address of the frag's
 * page itself (a tail page of a compound pool page included: add the
 * frag's offset), or DMA_MAPPING_ERROR for any other page (map it as
 * usual, with the syncs of the DMA API). The mapping belongs to pp_frag:
 * never unmap it. Opt out (under RTNL) only once the device no longer
 * transmits (ndo_stop after the TX rings drained): mappings of pages
 * still in flight are dropped then: this device's only, whatever other
 * devices (ports of the same NIC) share @dma_dev.
 * The driver keeps pp_frag loaded while opted in (symbol_get() or a
 * module dependency).
 */
#ifndef PP_FRAG_API_H
#define PP_FRAG_API_H

#include <linux/dma-mapping.h>
#include <linux/netdevice.h>

int pp_frag_dma_register(struct net_device *dev, struct device *dma_dev);
void pp_frag_dma_unregister(struct net_device *dev);
/* Any context (RCU inside). @page: the frag's page (head or tail). */
dma_addr_t pp_frag_dma_addr(struct net_device *dev, struct page *page);

#endif /* PP_FRAG_API_H */
