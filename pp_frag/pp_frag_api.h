/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pp_frag's API for drivers: skip the per-frag DMA map for pool pages.
 *
 * A driver that opts in for its net device (under RTNL, e.g. in ndo_open)
 * has every page of the device's pool mapped once for @dma_dev
 * (DMA_TO_DEVICE, no CPU sync: on non-coherent platforms the driver syncs
 * the frag range itself). At transmit, pp_frag_dma_addr() gives the
 * mapping of a frag's page, or DMA_MAPPING_ERROR for any other page (map it
 * as usual). The mapping belongs to pp_frag: never unmap it. Opt out (under
 * RTNL) only once the device no longer transmits (ndo_stop after the TX
 * rings drained): mappings of pages still in flight are dropped then.
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
