// SPDX-License-Identifier: GPL-2.0
/*
 * pp_frag pools: a device's pages for socket page frags, recycled with a
 * reference bias (frag_pool.hpp has the logic; this file owns the pages,
 * locks, per-CPU caches and DMA mappings).
 *
 * Releasing a pool page = dropping the pool's references: bias - 1 with
 * page_ref_sub() (at least one stays ours), then put_page(). An idle page
 * is freed right there; a page the stack still refers to is freed by
 * whoever drops the last reference, like any other frag page. When a
 * pool goes, its busy pages become orphans, released by a worker once idle
 * (a driver's DMA mapping must outlive the device's reads); at rmmod those
 * still busy after a grace time are handed to the stack (freed by their
 * last put).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "pp_frag.h"
#include "trace.h"

#define PPF_BATCH	32
#define PPF_REAP_MS	100

atomic_long_t ppf_pages_owned = ATOMIC_LONG_INIT(0);
atomic_long_t ppf_handed_over = ATOMIC_LONG_INIT(0);

/* The reference counts the core reads and raises (frag_pool.h). */
unsigned int xnet_frag_page_refs(void *page)
{
	return page_ref_count(page);
}

void xnet_frag_page_ref_add(void *page, unsigned int n)
{
	page_ref_add(page, n);
}

/*
 * A page its pool let go while busy. A mapped one keeps the mapping until
 * idle, or until the opt-in that made it (@owner) ends: another device of
 * the same DMA device (a port of a multi-port NIC, a representor) ending
 * its own opt-in leaves it alone.
 */
struct ppf_orphan {
	struct list_head node;
	struct page *page;
	struct device *dma_dev;
	u64 owner;
	dma_addr_t dma;
	unsigned int bias;
	unsigned int order;
};

static LIST_HEAD(ppf_orphans);
static DEFINE_SPINLOCK(ppf_orphans_lock);
/*
 * One walker of the orphans at a time (the reaper, a debugfs read): it
 * takes the whole list out under the spinlock, walks it with bottom halves
 * on and puts back what stays, so the spinlock is held O(1), however many
 * orphans there are. Meanwhile new orphans join the empty global list.
 */
static DEFINE_MUTEX(ppf_orphans_walk);
static unsigned long ppf_norphans;
static unsigned long ppf_norphans_mapped;	/* ... with a DMA mapping */
static void ppf_reap_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(ppf_reap, ppf_reap_work);

static void ppf_page_release(struct page *page, unsigned int bias,
			     unsigned int order, struct device *dma_dev,
			     dma_addr_t dma)
{
	if (dma_dev && dma)
		dma_unmap_page_attrs(dma_dev, dma, PAGE_SIZE << order,
				     DMA_TO_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	if (bias > 1)
		page_ref_sub(page, bias - 1);
	put_page(page);
	atomic_long_dec(&ppf_pages_owned);
}

static struct page *ppf_alloc(struct ppf_pool *pool, unsigned int *order)
{
	const gfp_t gfp = GFP_NOWAIT | __GFP_NOWARN;
	struct page *page;

	/* Never sleep, never dip into reserves: the kernel's path stays. */
	if (pool->order) {
		page = alloc_pages_node(pool->nid, gfp | __GFP_COMP | __GFP_NORETRY,
					pool->order);
		if (page) {
			*order = pool->order;
			return page;
		}
	}
	*order = 0;
	return alloc_pages_node(pool->nid, gfp, 0);
}

/* Slot @i's orphan record (mapped pages have one), now the caller's. */
static struct ppf_orphan *ppf_rec_take(struct ppf_pool *pool, unsigned int i)
{
	struct ppf_orphan *o = pool->orphan_rec[i];

	pool->orphan_rec[i] = NULL;
	return o;
}

/*
 * A new page's DMA mapping, for a pool a driver opted in (BH off). The
 * mapping is made once and used for every frag of the page with no sync,
 * so only a mapping that never needs one is kept: under bounce buffering
 * (swiotlb=force, SEV/TDX, a DMA mask the page is above) the device would
 * read the bounce buffer, which nobody fills. Such a page stays unmapped:
 * the driver maps its frags itself, with the syncs the DMA API does. A
 * mapped page comes with its orphan record, so that retiring it later
 * (busy, its pool going) needs no allocation that could fail and leave
 * the mapping behind.
 */
static void ppf_map_new(struct ppf_pool *pool, struct xnet_frag_slot *slot,
			unsigned int i)
{
	struct device *dma_dev = READ_ONCE(pool->dma_dev);
	struct page *page = slot->page;
	struct ppf_orphan *rec;
	dma_addr_t dma;

	if (!dma_dev)
		return;
	rec = kmalloc(sizeof(*rec), GFP_ATOMIC | __GFP_NOWARN);
	if (!rec)
		return;
	dma = dma_map_page_attrs(dma_dev, page, 0, PAGE_SIZE << slot->order,
				 DMA_TO_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	if (dma_mapping_error(dma_dev, dma))
		goto err_free;
	if (ppf_dma_need_sync(dma_dev, pool->dma_dom, page, dma)) {
		this_cpu_inc(pool->stats->dma_refused);
		goto err_unmap;
	}
	if (xa_err(xa_store(&pool->dma_pages, page_to_pfn(page),
			    xa_mk_value(i), GFP_ATOMIC)))
		goto err_unmap;
	WRITE_ONCE(slot->dma, dma);	/* pp_frag_dma_addr() reads it locklessly */
	pool->orphan_rec[i] = rec;
	return;

err_unmap:
	dma_unmap_page_attrs(dma_dev, dma, PAGE_SIZE << slot->order,
			     DMA_TO_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
err_free:
	kfree(rec);
}

/*
 * Hand @pfrag a pool page, or return false for the kernel's own
 * allocation. Called by the refill hook under rcu_read_lock(), never in
 * hard interrupt context.
 */
bool ppf_pool_refill(struct ppf_pool *pool, struct page_frag *pfrag)
{
	struct xnet_frag_pool *st = &pool->state;
	struct xnet_frag_cache *c;
	struct xnet_frag_slot *slot;
	struct ppf_stats *stats;
	struct ppf_cache *pc;
	int why = PPF_FALLBACK_FULL;
	bool fresh = false;
	unsigned int i;

	local_bh_disable();
	pc = this_cpu_ptr(pool->cache);
	spin_lock(&pc->lock);
	c = &pc->c;
	stats = this_cpu_ptr(pool->stats);
	i = xnet_frag_take(st, c);
	if (i == XNET_FRAG_NONE) {
		spin_lock(&pool->lock);
		xnet_frag_refill(st, c);
		spin_unlock(&pool->lock);
		i = xnet_frag_take(st, c);
		if (i == XNET_FRAG_NONE)
			trace_pp_frag_recycle_miss(pool->hn.dev,
						   READ_ONCE(st->pages), st->cap);
	}
	if (i == XNET_FRAG_NONE && READ_ONCE(st->pages) < st->cap) {
		unsigned int order;
		struct page *page = ppf_alloc(pool, &order);

		if (page) {
			spin_lock(&pool->lock);
			i = xnet_frag_add(st, c, page, order);
			if (i != XNET_FRAG_NONE)
				ppf_map_new(pool, &st->slots[i], i);
			spin_unlock(&pool->lock);
			if (i == XNET_FRAG_NONE) {
				put_page(page);
				why = PPF_FALLBACK_RACE;
			} else {
				atomic_long_inc(&ppf_pages_owned);
				i = xnet_frag_take(st, c);
				fresh = true;
			}
		} else {
			why = PPF_FALLBACK_NOMEM;
		}
	}
	if (i == XNET_FRAG_NONE) {
		stats->fallback++;
		trace_pp_frag_fallback(pool->hn.dev, why, READ_ONCE(st->pages),
				       st->cap);
		spin_unlock(&pc->lock);
		local_bh_enable();
		return false;
	}
	/* The slot is in this CPU's cache (retired), whose lock we hold. */
	slot = &st->slots[i];
	stats->served++;
	if (fresh)
		stats->fresh++;
	else
		stats->recycled++;
	if (pfrag->page)
		put_page(pfrag->page);
	pfrag->page = slot->page;
	pfrag->offset = 0;
	pfrag->size = PAGE_SIZE << slot->order;
	spin_unlock(&pc->lock);
	local_bh_enable();
	return true;
}

/* Give back up to @max idle pages on the ring. Process context, ppf_mutex. */
unsigned long ppf_pool_shrink(struct ppf_pool *pool, unsigned long max)
{
	struct {
		struct page *page;
		struct ppf_orphan *rec;
		dma_addr_t dma;
		unsigned int bias, order;
	} out[PPF_BATCH];
	unsigned int idx[PPF_BATCH];
	struct device *dma_dev;
	unsigned long done = 0;
	unsigned int n, k;
	int cpu;

	/* Idle pages in CPU caches too: move every cache's pages to the ring. */
	for_each_possible_cpu(cpu) {
		struct ppf_cache *pc = per_cpu_ptr(pool->cache, cpu);

		spin_lock_bh(&pc->lock);
		spin_lock(&pool->lock);
		xnet_frag_drain(&pool->state, &pc->c);
		spin_unlock(&pool->lock);
		spin_unlock_bh(&pc->lock);
	}
	while (done < max) {
		spin_lock_bh(&pool->lock);
		/* The slots' mappings are for this device (ppf_mutex: no opt-out now). */
		dma_dev = pool->dma_dev;
		n = xnet_frag_shrink(&pool->state, idx,
				     min_t(unsigned long, max - done, PPF_BATCH));
		for (k = 0; k < n; k++) {
			struct xnet_frag_slot *slot = &pool->state.slots[idx[k]];

			out[k].page = slot->page;
			out[k].dma = slot->dma;
			out[k].bias = slot->bias;
			out[k].order = slot->order;
			out[k].rec = ppf_rec_take(pool, idx[k]);
			if (slot->dma)
				xa_erase(&pool->dma_pages, page_to_pfn((struct page *)slot->page));
			xnet_frag_forget(&pool->state, idx[k]);
		}
		spin_unlock_bh(&pool->lock);
		for (k = 0; k < n; k++) {
			ppf_page_release(out[k].page, out[k].bias, out[k].order,
					 dma_dev, out[k].dma);
			kfree(out[k].rec);
		}
		if (n) {
			this_cpu_add(pool->stats->shrunk, n);
			trace_pp_frag_shrink(pool->hn.dev, n, max - done,
					     READ_ONCE(pool->state.pages));
			done += n;
		}
		if (n < PPF_BATCH)
			break;
	}
	return done;
}

/* Pages the shrinker may find idle: all of them (racy, a hint). */
unsigned long ppf_pool_idle_estimate(struct ppf_pool *pool)
{
	return READ_ONCE(pool->state.pages);
}

/* Stats: the counters, the pool's pages and those not idle (a snapshot). */
static void ppf_pool_sum(struct ppf_pool *pool, struct ppf_stats *sum,
			 unsigned int *pages, unsigned int *in_flight)
{
	unsigned int i, busy = 0;

	xnet_pcpu_u64_sum((u64 *)sum, (const u64 __percpu *)pool->stats,
			  XNET_U64_COUNT(*sum));
	/*
	 * Lockless (a reader must not stall the pool): a snapshot, each slot
	 * read once. A struct page is never freed, so a page pointer that is
	 * stale by now still reads a valid (if changing) reference count.
	 */
	*pages = READ_ONCE(pool->state.pages);
	for (i = 0; i < pool->state.cap; i++) {
		const struct xnet_frag_slot *slot = &pool->slots[i];
		struct page *page = READ_ONCE(slot->page);

		if (READ_ONCE(slot->state) != XNET_FRAG_UNUSED && page &&
		    page_ref_count(page) != READ_ONCE(slot->bias))
			busy++;
	}
	*in_flight = busy;
}

/*
 * The lines of pp_frag_stats for @pool (NULL: no pool, every value 0).
 * Caller: an RCU reader (the pool is freed a grace period after it is
 * unpublished).
 */
int ppf_pool_stats_show(struct ppf_pool *pool, char *buf)
{
	unsigned int pages = 0, in_flight = 0;
	struct ppf_stats sum = {};
	int len;

	if (pool)
		ppf_pool_sum(pool, &sum, &pages, &in_flight);
	len = sysfs_emit(buf, "pages %u\nin_flight %u\n", pages, in_flight);
#define PPF_STAT(name)	(len += sysfs_emit_at(buf, len, #name " %llu\n", sum.name))
#include "stats.h"
#undef PPF_STAT
	return len;
}

struct ppf_pool *ppf_pool_create(struct net_device *dev, unsigned int pages)
{
	struct device *parent = dev->dev.parent;
	struct ppf_pool *pool;
	int cpu;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL_ACCOUNT);
	if (!pool)
		return NULL;
	pool->hn.dev = dev;
	pool->nid = parent ? dev_to_node(parent) : NUMA_NO_NODE;
	pool->order = SKB_FRAG_PAGE_ORDER;
	spin_lock_init(&pool->lock);
	xa_init(&pool->dma_pages);
	pool->slots = kvcalloc(pages, sizeof(*pool->slots), GFP_KERNEL_ACCOUNT);
	pool->orphan_rec = kvcalloc(pages, sizeof(*pool->orphan_rec), GFP_KERNEL_ACCOUNT);
	pool->cache = alloc_percpu_gfp(struct ppf_cache, GFP_KERNEL_ACCOUNT);
	pool->stats = alloc_percpu_gfp(struct ppf_stats, GFP_KERNEL_ACCOUNT);
	if (!pool->slots || !pool->orphan_rec || !pool->cache || !pool->stats ||
	    xnet_frag_pool_init(&pool->state, pool->slots, pages)) {
		free_percpu(pool->stats);
		free_percpu(pool->cache);
		kvfree(pool->orphan_rec);
		kvfree(pool->slots);
		kfree(pool);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		spin_lock_init(&per_cpu_ptr(pool->cache, cpu)->lock);
	return pool;
}

/*
 * An idle page goes now; a busy one (in flight, or in some socket's
 * page_frag) becomes an orphan, released by the worker once idle — so the
 * pages a pool ever took are all given back by pp_frag itself, and a
 * driver's DMA mapping is never dropped while the device may still read
 * the page.
 */
static void ppf_page_retire(struct ppf_pool *pool, unsigned int i,
			    struct device *dma_dev)
{
	struct xnet_frag_slot *slot = &pool->slots[i];
	struct ppf_orphan *o = ppf_rec_take(pool, i);
	struct page *page = slot->page;

	if (page_ref_count(page) == slot->bias) {
		ppf_page_release(page, slot->bias, slot->order, dma_dev, slot->dma);
		kfree(o);
		return;
	}
	/* A mapped page has its record; an unmapped one can do without. */
	if (!o)
		o = kmalloc(sizeof(*o), GFP_KERNEL);
	if (!o) {
		/* No mapping to wait for: the stack drops the last reference. */
		atomic_long_inc(&ppf_handed_over);
		ppf_page_release(page, slot->bias, slot->order, NULL, 0);
		return;
	}
	o->page = page;
	o->dma_dev = slot->dma ? dma_dev : NULL;
	o->owner = slot->dma ? pool->dma_owner : 0;
	o->dma = slot->dma;
	o->bias = slot->bias;
	o->order = slot->order;
	spin_lock_bh(&ppf_orphans_lock);
	list_add_tail(&o->node, &ppf_orphans);
	ppf_norphans++;
	if (o->dma_dev)
		ppf_norphans_mapped++;
	spin_unlock_bh(&ppf_orphans_lock);
	schedule_delayed_work(&ppf_reap, msecs_to_jiffies(PPF_REAP_MS));
}

/*
 * @pool is no longer reachable (unpublished, an RCU grace period passed):
 * nothing else touches it. Every page is released or orphaned. Process
 * context (RTNL): up to 65,536 pages, each maybe an unmap with an IOTLB
 * flush, so it yields every 64 slots.
 */
void ppf_pool_destroy(struct ppf_pool *pool)
{
	struct device *dma_dev = pool->dma_dev;
	unsigned int i;

	for (i = 0; i < pool->state.cap; i++) {
		struct xnet_frag_slot *slot = &pool->slots[i];

		if (slot->state != XNET_FRAG_UNUSED)
			ppf_page_retire(pool, i, dma_dev);
		if (!((i + 1) % 64))
			cond_resched();
	}
	xa_destroy(&pool->dma_pages);
	kvfree(pool->orphan_rec);
	free_percpu(pool->stats);
	free_percpu(pool->cache);
	kvfree(pool->slots);
	kfree(pool);
}

/*
 * Release idle orphans; with @force, every orphan (module exit, @owner 0),
 * or those mapped by opt-in @owner (its driver opts out or its device
 * goes: it no longer transmits). Other devices' orphans stay, whatever
 * DMA device they share.
 */
void ppf_orphans_reap(bool force, u64 owner)
{
	unsigned long n = 0, mapped = 0, walked = 0;
	struct ppf_orphan *o, *tmp;
	LIST_HEAD(mine);
	LIST_HEAD(done);

	mutex_lock(&ppf_orphans_walk);
	spin_lock_bh(&ppf_orphans_lock);
	list_splice_init(&ppf_orphans, &mine);
	spin_unlock_bh(&ppf_orphans_lock);
	list_for_each_entry_safe(o, tmp, &mine, node) {
		if ((force && (!owner || (o->dma_dev && o->owner == owner))) ||
		    page_ref_count(o->page) == o->bias) {
			list_move(&o->node, &done);
			n++;
			if (o->dma_dev)
				mapped++;
		}
		if (!(++walked % 64))
			cond_resched();
	}
	spin_lock_bh(&ppf_orphans_lock);
	list_splice(&mine, &ppf_orphans);
	ppf_norphans -= n;
	ppf_norphans_mapped -= mapped;
	spin_unlock_bh(&ppf_orphans_lock);
	mutex_unlock(&ppf_orphans_walk);
	list_for_each_entry_safe(o, tmp, &done, node) {
		if (page_ref_count(o->page) != o->bias)
			atomic_long_inc(&ppf_handed_over);
		ppf_page_release(o->page, o->bias, o->order, o->dma_dev, o->dma);
		kfree(o);
	}
}

/*
 * debugfs "pages": "pfn order" of every page @pool owns, then of every
 * orphan (@pool NULL). ppf_mutex held: no pool goes or shrinks meanwhile.
 */
static void ppf_hold_note(enum ppf_walk dir, u64 t0, unsigned int slots);

void ppf_pool_show_pages(struct ppf_pool *pool, struct seq_file *m)
{
	struct {
		unsigned long pfn;
		unsigned int order;
	} b[PPF_BATCH];
	struct ppf_orphan *o;
	unsigned int i, n, k, end;
	LIST_HEAD(mine);
	u64 t0;

	if (!pool) {
		/* Taken out and put back, as the reaper does. */
		mutex_lock(&ppf_orphans_walk);
		spin_lock_bh(&ppf_orphans_lock);
		list_splice_init(&ppf_orphans, &mine);
		spin_unlock_bh(&ppf_orphans_lock);
		list_for_each_entry(o, &mine, node)
			seq_printf(m, "%#lx %u orphan\n", page_to_pfn(o->page), o->order);
		spin_lock_bh(&ppf_orphans_lock);
		list_splice(&mine, &ppf_orphans);
		spin_unlock_bh(&ppf_orphans_lock);
		mutex_unlock(&ppf_orphans_walk);
		return;
	}
	/*
	 * PPF_BATCH slots a hold of the pool lock, printed after it (a pool
	 * has up to 65,536 pages): each batch is exact, the list as
	 * a whole a sum of batches (a reader that needs it exact compares
	 * pages_owned before and after, as 52 does).
	 */
	for (i = 0; i < pool->state.cap; i = end) {
		end = min(i + PPF_BATCH, pool->state.cap);
		n = 0;
		spin_lock_bh(&pool->lock);
		t0 = local_clock();
		for (k = i; i < end; i++) {
			const struct xnet_frag_slot *slot = &pool->slots[i];

			if (slot->state == XNET_FRAG_UNUSED)
				continue;
			b[n].pfn = page_to_pfn((struct page *)slot->page);
			b[n++].order = slot->order;
		}
		ppf_hold_note(PPF_WALK_LIST, t0, end - k);
		spin_unlock_bh(&pool->lock);
		for (k = 0; k < n; k++)
			seq_printf(m, "%#lx %u %s\n", b[k].pfn, b[k].order,
				   netdev_name(pool->hn.dev));
		cond_resched();
	}
}

unsigned long ppf_orphans_count(void)
{
	return READ_ONCE(ppf_norphans);
}

unsigned long ppf_orphans_mapped(void)
{
	return READ_ONCE(ppf_norphans_mapped);
}

static void ppf_reap_work(struct work_struct *work)
{
	ppf_orphans_reap(false, 0);
	if (ppf_orphans_count())
		schedule_delayed_work(&ppf_reap, msecs_to_jiffies(PPF_REAP_MS));
}

void ppf_orphans_stop(void)
{
	cancel_delayed_work_sync(&ppf_reap);
}

/*
 * The longest hold of a pool lock (BHs off) by a whole-pool walk since
 * load, per walk, and the slots that hold examined (debugfs "global").
 * The DMA walks run under RTNL, the listing under ppf_mutex: each walk's
 * updates are serialised.
 */
static u64 ppf_hold_ns[PPF_WALKS];
static unsigned int ppf_hold_slots[PPF_WALKS];

/* A walk of @dir held its pool's lock since @t0 for @slots slots. */
static void ppf_hold_note(enum ppf_walk dir, u64 t0, unsigned int slots)
{
	u64 ns = local_clock() - t0;

	if (ns <= ppf_hold_ns[dir])
		return;
	WRITE_ONCE(ppf_hold_ns[dir], ns);
	WRITE_ONCE(ppf_hold_slots[dir], slots);
}

/* A snapshot (the two values may come from different walks). */
void ppf_hold_max(enum ppf_walk dir, u64 *ns, unsigned int *slots)
{
	*ns = READ_ONCE(ppf_hold_ns[dir]);
	*slots = READ_ONCE(ppf_hold_slots[dir]);
}

/*
 * The whole-pool DMA walks below examine at most PPF_DMA_BATCH slots per
 * hold of the pool lock, then let BHs (and the refills that wait for the
 * lock) run and reschedule: a pool has up to XNET_FRAG_MAX_PAGES pages,
 * and behind a strict IOMMU every unmap invalidates the IOTLB. Between
 * two holds the slots may change state, and nothing is lost: a page that
 * joins the pool meanwhile is mapped by its refill (ppf_map_new(), as soon
 * as pool->dma_dev is set) or not at all (once it is NULL again), and each
 * hold decides on what it sees under the lock; pages leave a pool only by
 * the shrinker, which ppf_mutex keeps out (or, for a pool not published
 * yet, nothing reaches it), and by ppf_pool_destroy() under RTNL, which
 * the walks hold.
 */
#define PPF_DMA_BATCH	32

/*
 * A driver opted in (RTNL, and ppf_mutex for a published pool): map every
 * page for @pd's DMA device, on behalf of its opt-in. Pages mapped now and
 * later are unmapped when released (or by ppf_pool_dma_unmap()). Until the
 * walk reaches a page, pp_frag_dma_addr() says the page has no mapping:
 * the driver maps that frag itself.
 */
int ppf_pool_dma_map(struct ppf_pool *pool, const struct ppf_dev *pd)
{
	unsigned int i = 0, first, end;
	u64 t0;

	spin_lock_bh(&pool->lock);
	pool->dma_owner = pd->dma_owner;
	pool->dma_dom = pd->dma_dom;
	WRITE_ONCE(pool->dma_dev, pd->dma_dev);
	spin_unlock_bh(&pool->lock);
	while (i < pool->state.cap) {
		first = i;
		end = min(i + PPF_DMA_BATCH, pool->state.cap);
		spin_lock_bh(&pool->lock);
		t0 = local_clock();
		for (; i < end; i++) {
			struct xnet_frag_slot *slot = &pool->slots[i];

			/* A page, not mapped (by its refill) yet. */
			if (slot->state != XNET_FRAG_UNUSED && !slot->dma)
				ppf_map_new(pool, slot, i);
		}
		ppf_hold_note(PPF_WALK_MAP, t0, i - first);
		spin_unlock_bh(&pool->lock);
		cond_resched();
	}
	return 0;
}

/*
 * The driver opts out (RTNL, ppf_mutex); it no longer transmits pool
 * pages. Under the lock a mapping is only detached (no lookup finds it
 * any more, no refill maps a new page: pool->dma_dev is NULL); the
 * unmaps, each an IOTLB invalidation behind a strict IOMMU, come after
 * the lock is dropped, as the shrinker does.
 */
void ppf_pool_dma_unmap(struct ppf_pool *pool)
{
	struct {
		struct ppf_orphan *rec;
		dma_addr_t dma;
		unsigned int order;
	} out[PPF_DMA_BATCH];
	struct device *dma_dev = pool->dma_dev;
	unsigned int i = 0, first, end, n, k;
	u64 t0;

	if (!dma_dev)
		return;
	spin_lock_bh(&pool->lock);
	WRITE_ONCE(pool->dma_dev, NULL);
	pool->dma_owner = 0;
	pool->dma_dom = NULL;
	spin_unlock_bh(&pool->lock);
	while (i < pool->state.cap) {
		first = i;
		end = min(i + PPF_DMA_BATCH, pool->state.cap);
		n = 0;
		spin_lock_bh(&pool->lock);
		t0 = local_clock();
		for (; i < end; i++) {
			struct xnet_frag_slot *slot = &pool->slots[i];

			if (!slot->dma)
				continue;
			xa_erase(&pool->dma_pages, page_to_pfn((struct page *)slot->page));
			out[n].dma = slot->dma;
			out[n].order = slot->order;
			out[n].rec = ppf_rec_take(pool, i);
			WRITE_ONCE(slot->dma, 0);
			n++;
		}
		ppf_hold_note(PPF_WALK_UNMAP, t0, i - first);
		spin_unlock_bh(&pool->lock);
		for (k = 0; k < n; k++) {
			dma_unmap_page_attrs(dma_dev, out[k].dma, PAGE_SIZE << out[k].order,
					     DMA_TO_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
			kfree(out[k].rec);
		}
		cond_resched();
	}
}

/* RCU. The mapping of a pool page (compound head), or DMA_MAPPING_ERROR. */
dma_addr_t ppf_pool_dma_addr(struct ppf_pool *pool, struct page *page)
{
	void *v = xa_load(&pool->dma_pages, page_to_pfn(page));
	u64 dma;

	if (!xa_is_value(v) || xa_to_value(v) >= pool->state.cap)
		return DMA_MAPPING_ERROR;
	dma = READ_ONCE(pool->slots[xa_to_value(v)].dma);
	return dma ? dma : DMA_MAPPING_ERROR;
}
