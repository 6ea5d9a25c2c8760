/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C ABI of the page-frag pool (frag_pool.hpp).
 *
 * The state is plain C structs so the C glue can allocate them (the pool
 * and its slot array per device, the caches per CPU) and read a slot's
 * page; every operation on them goes through the functions below. Locking
 * is the caller's: functions marked "pool lock" need the pool's lock,
 * "cache" ones need the cache's CPU to stay put (BH or preemption off).
 */
#ifndef PP_FRAG_FRAG_POOL_H
#define PP_FRAG_FRAG_POOL_H

#ifdef __cplusplus
extern "C" {
#endif

#define XNET_FRAG_MAX_PAGES	65536u	/* bound on one pool (pages) */
#define XNET_FRAG_CACHE		8u	/* ready/retired pages per CPU cache */
#define XNET_FRAG_SCAN		16u	/* in-flight pages examined per refill */
#define XNET_FRAG_BIAS		0xffffu	/* references a pool holds per page */
#define XNET_FRAG_NONE		0xffffffffu

/* Where a slot is. */
enum xnet_frag_state {
	XNET_FRAG_UNUSED = 0,	/* no page */
	XNET_FRAG_READY,	/* idle, in a CPU cache: the next to hand out */
	XNET_FRAG_RETIRED,	/* handed out, in a CPU cache's retired list */
	XNET_FRAG_FLIGHT,	/* handed out, on the pool's ring */
};

/* One pool page. */
struct xnet_frag_slot {
	void *page;		/* opaque: the glue's page (compound head) */
	unsigned long long dma;	/* a driver's mapping of it, 0 if none */
	unsigned int bias;	/* references the pool itself holds */
	unsigned int next;	/* ring or unused-list link */
	unsigned char order;
	unsigned char state;	/* enum xnet_frag_state */
};

/* A CPU's cache: idle pages ready to hand out, and pages it handed out. */
struct xnet_frag_cache {
	unsigned int nready;
	unsigned int nretired;
	unsigned int ready[XNET_FRAG_CACHE];
	unsigned int retired[XNET_FRAG_CACHE];
};

struct xnet_frag_pool {
	struct xnet_frag_slot *slots;
	unsigned int cap;	/* slots: the pool's bound in pages */
	unsigned int pages;	/* slots holding a page */
	unsigned int ring_head;	/* oldest page handed out, or NONE */
	unsigned int ring_tail;
	unsigned int ring_len;
	unsigned int unused;	/* list of unused slots */
};

/*
 * Provided by the C side: the page's reference count, and taking @n more
 * references on it.
 */
unsigned int xnet_frag_page_refs(void *page);
void xnet_frag_page_ref_add(void *page, unsigned int n);

/* @slots: @cap zeroed slots, 1 <= @cap <= XNET_FRAG_MAX_PAGES. 0 or -EINVAL. */
int xnet_frag_pool_init(struct xnet_frag_pool *p, struct xnet_frag_slot *slots,
			unsigned int cap);

/*
 * Pool lock. Register a new page the caller holds one reference on (that
 * reference becomes the pool's, topped up to the bias). The page goes to
 * @c as ready. Returns its slot, or NONE when the pool is full or @c has no
 * room.
 */
unsigned int xnet_frag_add(struct xnet_frag_pool *p, struct xnet_frag_cache *c,
			   void *page, unsigned int order);

/*
 * Pool lock. Move @c's retired pages to the ring's tail, then examine up to
 * XNET_FRAG_SCAN of the oldest pages on the ring: idle ones (no reference
 * but the pool's) become ready in @c, busy ones go to the tail. Returns the
 * number of pages that became ready.
 */
unsigned int xnet_frag_refill(struct xnet_frag_pool *p, struct xnet_frag_cache *c);

/* Pool lock. Move @c's retired pages to the ring. */
void xnet_frag_flush(struct xnet_frag_pool *p, struct xnet_frag_cache *c);

/*
 * Pool lock, with @c's CPU kept out (the caller holds the cache's own
 * lock). Move all of @c's pages, ready and retired, to the ring.
 */
void xnet_frag_drain(struct xnet_frag_pool *p, struct xnet_frag_cache *c);

/*
 * Cache. Hand out a ready page: one of the pool's references becomes the
 * caller's (topping the bias up first when it runs low). Returns the slot,
 * or NONE when nothing is ready or the retired list is full (flush first).
 */
unsigned int xnet_frag_take(struct xnet_frag_pool *p, struct xnet_frag_cache *c);

/*
 * Pool lock. Detach up to @max idle pages on the ring (oldest first,
 * examining the whole ring) into @out (slot numbers). The caller drops the
 * pool's references on each (slot->bias of them), then xnet_frag_forget().
 */
unsigned int xnet_frag_shrink(struct xnet_frag_pool *p, unsigned int *out,
			      unsigned int max);

/* Pool lock. @slot's page is gone: the slot is unused again. */
void xnet_frag_forget(struct xnet_frag_pool *p, unsigned int slot);

/*
 * Pages on the ring: handed out and not seen idle since (the caches'
 * retired pages are handed out too; the caller adds them).
 */
unsigned int xnet_frag_in_flight(const struct xnet_frag_pool *p);

#ifdef __cplusplus
}
#endif

#endif /* PP_FRAG_FRAG_POOL_H */
