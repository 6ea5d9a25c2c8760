// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite pp_frag_pool: the page-frag pool of pp_frag (C++ core through
 * pp_frag/frag_pool.h) on real pages: order-3 compound pages as
 * SKB_FRAG_PAGE_ORDER and order-0 ones. The "stack" takes and drops page
 * references with get_page()/put_page() as skb frags do. Covers reuse only
 * once every reference but the pool's is gone, the per-CPU caches, the
 * bound (the caller falls back to a page of its own), the bias top-up,
 * shrink releasing idle pages to the allocator, and teardown while
 * "in-flight skbs" still hold pages. KASAN is not in UML: the tests assert
 * reference counts instead (a page is freed by exactly the put_page() that
 * finds its count at 1, and never before its last user is done). The
 * pool's bookkeeping without pages (bounds, ring order, scan limits) is
 * pure logic, tested in userspace only (pp_frag/tests/frag_pool_test.cpp).
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/page_ref.h>
#include <linux/string.h>

#include "../frag_pool.h"

/* The C side of the ABI, as pp_frag's glue provides it. */
unsigned int xnet_frag_page_refs(void *page)
{
	return page_ref_count(page);
}

void xnet_frag_page_ref_add(void *page, unsigned int n)
{
	page_ref_add(page, n);
}

#define NONE XNET_FRAG_NONE
#define BIAS XNET_FRAG_BIAS

struct pool_fix {
	struct xnet_frag_pool p;
	struct xnet_frag_slot *slots;
	struct xnet_frag_cache c[2];	/* two "CPUs" */
};

static void fix_init(struct kunit *test, struct pool_fix *f, unsigned int cap)
{
	memset(f, 0, sizeof(*f));
	f->slots = kunit_kcalloc(test, cap, sizeof(*f->slots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->slots);
	KUNIT_ASSERT_EQ(test, xnet_frag_pool_init(&f->p, f->slots, cap), 0);
}

static struct page *new_page(struct kunit *test, unsigned int order)
{
	struct page *page = alloc_pages(GFP_KERNEL | (order ? __GFP_COMP : 0),
					order);

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, page_ref_count(page), 1);
	return page;
}

static struct page *slot_page(struct pool_fix *f, unsigned int i)
{
	return f->slots[i].page;
}

/* A new page into cache @c; NONE (and the page freed) when it has no room. */
static unsigned int add_page(struct kunit *test, struct pool_fix *f, int c,
			     unsigned int order)
{
	struct page *page = new_page(test, order);
	unsigned int i = xnet_frag_add(&f->p, &f->c[c], page, order);

	if (i == NONE)
		__free_pages(page, order);	/* the caller's fallback */
	return i;
}

/*
 * Drop the pool's references on slot @i's page the way pp_frag releases a
 * page. Returns the count the last put_page() found: 1 means that put
 * freed the page; more means others still hold it.
 */
static int release(struct pool_fix *f, unsigned int i)
{
	struct page *page = slot_page(f, i);
	int before;

	page_ref_sub(page, f->slots[i].bias - 1);
	before = page_ref_count(page);
	put_page(page);
	return before;
}

/* Fill the page's memory as a sender would, and read it back. */
static bool touch(struct page *page, unsigned int order, u8 pattern)
{
	u8 *va = page_address(page);
	size_t len = PAGE_SIZE << order, k;

	memset(va, pattern, len);
	for (k = 0; k < len; k += 512)
		if (va[k] != pattern)
			return false;
	return va[len - 1] == pattern;
}

/* A page comes back only once the stack has put every reference. */
static void pp_frag_pool_reuse_after_last_put(struct kunit *test)
{
	static const unsigned int orders[] = { 3, 0 };
	struct pool_fix f;
	unsigned int k, n, i, out[1];

	for (k = 0; k < ARRAY_SIZE(orders); k++) {
		unsigned int order = orders[k];
		struct page *page;

		fix_init(test, &f, 1);
		i = add_page(test, &f, 0, order);
		KUNIT_ASSERT_NE(test, i, NONE);
		page = slot_page(&f, i);
		KUNIT_EXPECT_EQ(test, page_ref_count(page), (int)BIAS);
		KUNIT_EXPECT_EQ(test, (unsigned int)f.slots[i].order, order);

		/* Handed out: the page_frag's reference is one of the pool's. */
		KUNIT_ASSERT_EQ(test, xnet_frag_take(&f.p, &f.c[0]), i);
		KUNIT_EXPECT_EQ(test, f.slots[i].bias, BIAS - 1);
		KUNIT_EXPECT_EQ(test, page_ref_count(page), (int)BIAS);
		KUNIT_EXPECT_TRUE(test, touch(page, order, 0x5a));

		/* Three frags in skbs; then the page_frag moves on. */
		for (n = 0; n < 3; n++)
			get_page(page);
		put_page(page);
		for (n = 0; n < 3; n++) {
			KUNIT_EXPECT_EQ(test, xnet_frag_refill(&f.p, &f.c[0]), 0U);
			KUNIT_EXPECT_EQ(test, xnet_frag_take(&f.p, &f.c[0]), NONE);
			KUNIT_EXPECT_EQ(test, xnet_frag_in_flight(&f.p), 1U);
			/* Full: a new page is refused, the caller falls back. */
			KUNIT_EXPECT_EQ(test, add_page(test, &f, 0, order), NONE);
			put_page(page);	/* one skb freed */
		}
		KUNIT_EXPECT_EQ(test, page_ref_count(page), (int)f.slots[i].bias);
		KUNIT_EXPECT_EQ(test, xnet_frag_refill(&f.p, &f.c[0]), 1U);
		KUNIT_EXPECT_EQ(test, xnet_frag_in_flight(&f.p), 0U);
		KUNIT_ASSERT_EQ(test, xnet_frag_take(&f.p, &f.c[0]), i);
		KUNIT_EXPECT_PTR_EQ(test, slot_page(&f, i), page);
		KUNIT_EXPECT_EQ(test, page_ref_count(page),
				(int)f.slots[i].bias + 1);
		KUNIT_EXPECT_TRUE(test, touch(page, order, 0xa5));
		put_page(page);

		/* Give it back to the allocator: the pool's were the last. */
		xnet_frag_flush(&f.p, &f.c[0]);
		KUNIT_ASSERT_EQ(test, xnet_frag_shrink(&f.p, out, 1), 1U);
		KUNIT_EXPECT_EQ(test, out[0], i);
		KUNIT_EXPECT_EQ(test, release(&f, i), 1);
		xnet_frag_forget(&f.p, i);
		KUNIT_EXPECT_EQ(test, f.p.pages, 0U);
	}
}

/* Each CPU hands out from its own cache; pages move between CPUs via the ring. */
static void pp_frag_pool_per_cpu_cache(struct kunit *test)
{
	struct pool_fix f;
	unsigned int a, b, i, n, out[4];

	fix_init(test, &f, 4);
	a = add_page(test, &f, 0, 3);
	b = add_page(test, &f, 0, 3);
	KUNIT_ASSERT_NE(test, a, NONE);
	KUNIT_ASSERT_NE(test, b, NONE);
	KUNIT_EXPECT_EQ(test, f.c[0].nready, 2U);

	/* CPU 1 cannot see CPU 0's ready pages. */
	KUNIT_EXPECT_EQ(test, xnet_frag_take(&f.p, &f.c[1]), NONE);
	KUNIT_EXPECT_EQ(test, xnet_frag_refill(&f.p, &f.c[1]), 0U);

	/* Cache LIFO: the page added last is the first handed out. */
	KUNIT_ASSERT_EQ(test, xnet_frag_take(&f.p, &f.c[0]), b);
	put_page(slot_page(&f, b));	/* done with it, already idle */
	KUNIT_EXPECT_EQ(test, f.c[0].nretired, 1U);
	/* Still in CPU 0's retired list: not on the ring yet. */
	KUNIT_EXPECT_EQ(test, xnet_frag_in_flight(&f.p), 0U);
	KUNIT_EXPECT_EQ(test, xnet_frag_refill(&f.p, &f.c[1]), 0U);
	xnet_frag_flush(&f.p, &f.c[0]);
	KUNIT_EXPECT_EQ(test, xnet_frag_in_flight(&f.p), 1U);
	KUNIT_EXPECT_EQ(test, xnet_frag_refill(&f.p, &f.c[1]), 1U);
	KUNIT_ASSERT_EQ(test, xnet_frag_take(&f.p, &f.c[1]), b);
	KUNIT_EXPECT_EQ(test, page_ref_count(slot_page(&f, b)),
			(int)f.slots[b].bias + 1);
	/* Done: a (ready in CPU 0) and b (idle once put) back to the allocator. */
	put_page(slot_page(&f, b));
	KUNIT_EXPECT_EQ(test, release(&f, a), 1);
	KUNIT_EXPECT_EQ(test, release(&f, b), 1);

	/* A full retired list stops hand-outs until a flush (pool lock). */
	fix_init(test, &f, XNET_FRAG_CACHE + 1);
	for (n = 0; n < XNET_FRAG_CACHE; n++) {
		KUNIT_ASSERT_NE(test, add_page(test, &f, 0, 0), NONE);
		KUNIT_ASSERT_NE(test, xnet_frag_take(&f.p, &f.c[0]), NONE);
	}
	a = add_page(test, &f, 0, 0);
	KUNIT_ASSERT_NE(test, a, NONE);
	KUNIT_EXPECT_EQ(test, xnet_frag_take(&f.p, &f.c[0]), NONE);
	xnet_frag_flush(&f.p, &f.c[0]);
	KUNIT_EXPECT_EQ(test, xnet_frag_in_flight(&f.p), XNET_FRAG_CACHE);
	KUNIT_EXPECT_EQ(test, xnet_frag_take(&f.p, &f.c[0]), a);

	/* Tear down: every page_frag puts its page, then the pool lets go. */
	xnet_frag_flush(&f.p, &f.c[0]);
	for (i = 0; i < f.p.cap; i++)
		put_page(slot_page(&f, i));
	n = 0;
	while (f.p.pages) {
		unsigned int got = xnet_frag_shrink(&f.p, out, ARRAY_SIZE(out));

		KUNIT_ASSERT_GT(test, got, 0U);
		for (i = 0; i < got; i++) {
			KUNIT_EXPECT_EQ(test, release(&f, out[i]), 1);
			xnet_frag_forget(&f.p, out[i]);
			n++;
		}
	}
	KUNIT_EXPECT_EQ(test, n, XNET_FRAG_CACHE + 1);
}

/*
 * The bound: with every page busy nothing is handed out and a new page is
 * refused; the caller's own page is untouched and works as usual.
 */
static void pp_frag_pool_exhaustion(struct kunit *test)
{
	struct pool_fix f;
	struct page *own;
	unsigned int a, b, out[2];

	fix_init(test, &f, 2);
	a = add_page(test, &f, 0, 3);
	b = add_page(test, &f, 0, 3);
	KUNIT_ASSERT_NE(test, a, NONE);
	KUNIT_ASSERT_NE(test, b, NONE);
	KUNIT_EXPECT_EQ(test, f.p.pages, 2U);
	KUNIT_ASSERT_NE(test, xnet_frag_take(&f.p, &f.c[0]), NONE);
	KUNIT_ASSERT_NE(test, xnet_frag_take(&f.p, &f.c[0]), NONE);
	xnet_frag_flush(&f.p, &f.c[0]);

	KUNIT_EXPECT_EQ(test, xnet_frag_refill(&f.p, &f.c[0]), 0U);
	KUNIT_EXPECT_EQ(test, xnet_frag_take(&f.p, &f.c[0]), NONE);
	KUNIT_EXPECT_EQ(test, xnet_frag_take(&f.p, &f.c[1]), NONE);
	own = new_page(test, 3);
	KUNIT_EXPECT_EQ(test, xnet_frag_add(&f.p, &f.c[1], own, 3), NONE);
	KUNIT_EXPECT_EQ(test, page_ref_count(own), 1);
	KUNIT_EXPECT_EQ(test, f.p.pages, 2U);
	KUNIT_EXPECT_TRUE(test, touch(own, 3, 0x11));
	put_page(own);	/* the fallback page is freed as always */

	/* One page_frag lets go: exactly that page is available again. */
	put_page(slot_page(&f, a));
	KUNIT_EXPECT_EQ(test, xnet_frag_refill(&f.p, &f.c[1]), 1U);
	KUNIT_EXPECT_EQ(test, xnet_frag_take(&f.p, &f.c[1]), a);
	KUNIT_EXPECT_EQ(test, xnet_frag_take(&f.p, &f.c[1]), NONE);

	put_page(slot_page(&f, a));
	put_page(slot_page(&f, b));
	xnet_frag_flush(&f.p, &f.c[1]);
	KUNIT_ASSERT_EQ(test, xnet_frag_shrink(&f.p, out, 2), 2U);
	KUNIT_EXPECT_EQ(test, release(&f, out[0]), 1);
	KUNIT_EXPECT_EQ(test, release(&f, out[1]), 1);
}

/* Far more hand-outs of one page than its bias: counts stay exact. */
static void pp_frag_pool_bias_top_up(struct kunit *test)
{
	const unsigned int cycles = 2 * BIAS + 100;
	struct pool_fix f;
	struct page *page;
	unsigned int i, n, bad = 0, min_bias = BIAS, out[1];

	fix_init(test, &f, 1);
	i = add_page(test, &f, 0, 0);
	KUNIT_ASSERT_NE(test, i, NONE);
	page = slot_page(&f, i);
	for (n = 0; n < cycles; n++) {
		if (xnet_frag_take(&f.p, &f.c[0]) != i)
			break;
		bad += page_ref_count(page) != f.slots[i].bias + 1;
		min_bias = min(min_bias, f.slots[i].bias);
		get_page(page);		/* an skb frag */
		put_page(page);		/* the page_frag */
		put_page(page);		/* the skb */
		bad += page_ref_count(page) != f.slots[i].bias;
		if (xnet_frag_refill(&f.p, &f.c[0]) != 1)
			break;
		if (!(n & 0xfff))
			cond_resched();
	}
	KUNIT_EXPECT_EQ(test, n, cycles);
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_GE(test, min_bias, 2U);
	KUNIT_EXPECT_LE(test, page_ref_count(page), (int)BIAS);

	/* Ready in the cache: hand out, put, and release through shrink. */
	KUNIT_ASSERT_EQ(test, xnet_frag_take(&f.p, &f.c[0]), i);
	put_page(page);
	xnet_frag_flush(&f.p, &f.c[0]);
	KUNIT_ASSERT_EQ(test, xnet_frag_shrink(&f.p, out, 1), 1U);
	KUNIT_EXPECT_EQ(test, release(&f, i), 1);
}

/*
 * Shrink gives idle pages back to the allocator, at most @max, never a
 * busy one; a busy page released the same way outlives the release until
 * its last user puts it.
 */
static void pp_frag_pool_shrink(struct kunit *test)
{
	struct pool_fix f;
	unsigned int s[4], out[4], i, n;
	struct page *skb_page, *frag_page;

	fix_init(test, &f, 4);
	for (n = 0; n < 4; n++)
		KUNIT_ASSERT_NE(test, add_page(test, &f, 0, 3), NONE);
	for (n = 0; n < 4; n++) {
		s[n] = xnet_frag_take(&f.p, &f.c[0]);
		KUNIT_ASSERT_NE(test, s[n], NONE);
	}
	xnet_frag_flush(&f.p, &f.c[0]);
	/* s[0], s[2] idle; s[1] held by an skb; s[3] by its page_frag. */
	skb_page = slot_page(&f, s[1]);
	frag_page = slot_page(&f, s[3]);
	get_page(skb_page);
	put_page(slot_page(&f, s[0]));
	put_page(skb_page);
	put_page(slot_page(&f, s[2]));

	KUNIT_ASSERT_EQ(test, xnet_frag_shrink(&f.p, out, 1), 1U);
	KUNIT_EXPECT_EQ(test, out[0], s[0]);	/* oldest first */
	KUNIT_EXPECT_EQ(test, page_ref_count(slot_page(&f, s[0])),
			(int)f.slots[s[0]].bias);
	KUNIT_EXPECT_EQ(test, release(&f, s[0]), 1);	/* that put freed it */
	xnet_frag_forget(&f.p, s[0]);
	KUNIT_EXPECT_EQ(test, f.p.pages, 3U);

	KUNIT_ASSERT_EQ(test, xnet_frag_shrink(&f.p, out, 4), 1U);
	KUNIT_EXPECT_EQ(test, out[0], s[2]);
	KUNIT_EXPECT_EQ(test, release(&f, s[2]), 1);
	xnet_frag_forget(&f.p, s[2]);
	KUNIT_EXPECT_EQ(test, xnet_frag_shrink(&f.p, out, 4), 0U);
	KUNIT_EXPECT_EQ(test, f.p.pages, 2U);
	KUNIT_EXPECT_EQ(test, xnet_frag_in_flight(&f.p), 2U);

	/* A forgotten slot takes a new page. */
	i = add_page(test, &f, 1, 0);
	KUNIT_EXPECT_TRUE(test, i == s[0] || i == s[2]);
	KUNIT_EXPECT_EQ(test, f.p.pages, 3U);

	/* Busy pages released like idle ones: they live on with their users. */
	for (n = 1; n < 4; n += 2) {
		i = s[n];
		KUNIT_EXPECT_EQ(test, release(&f, i), 2);
		KUNIT_EXPECT_EQ(test, page_ref_count(slot_page(&f, i)), 1);
	}
	KUNIT_EXPECT_TRUE(test, touch(skb_page, 3, 0x33));
	KUNIT_EXPECT_TRUE(test, touch(frag_page, 3, 0x44));
	put_page(skb_page);	/* the skb is freed: the page with it */
	put_page(frag_page);
	/* And the idle one in CPU 1's cache. */
	i = f.c[1].ready[0];
	KUNIT_EXPECT_EQ(test, release(&f, i), 1);
}

/*
 * Teardown with pages everywhere: ready and retired in the caches, idle
 * and busy on the ring. The pool drops its references on every page; pages
 * that skbs still hold survive until the skbs are freed, the rest are
 * freed at once.
 */
static void pp_frag_pool_teardown_in_flight(struct kunit *test)
{
	struct pool_fix f;
	unsigned int i, n, ready, retired, ring_idle, ring_busy, busy_frag;
	unsigned int freed = 0, survived = 0;
	struct page *held[3];

	fix_init(test, &f, 6);
	for (n = 0; n < 5; n++)
		KUNIT_ASSERT_NE(test, add_page(test, &f, 0, 3), NONE);
	ring_idle = xnet_frag_take(&f.p, &f.c[0]);
	ring_busy = xnet_frag_take(&f.p, &f.c[0]);
	busy_frag = xnet_frag_take(&f.p, &f.c[0]);
	xnet_frag_flush(&f.p, &f.c[0]);
	retired = xnet_frag_take(&f.p, &f.c[0]);
	ready = f.c[0].ready[0];
	KUNIT_ASSERT_EQ(test, f.c[0].nready, 1U);
	KUNIT_ASSERT_EQ(test, xnet_frag_in_flight(&f.p), 3U);

	put_page(slot_page(&f, ring_idle));		/* page_frag done */
	held[0] = slot_page(&f, ring_busy);		/* two skbs */
	get_page(held[0]);
	get_page(held[0]);
	put_page(held[0]);				/* page_frag done */
	held[1] = slot_page(&f, busy_frag);		/* page_frag + skb */
	get_page(held[1]);
	held[2] = slot_page(&f, retired);		/* page_frag + skb */
	get_page(held[2]);
	KUNIT_EXPECT_EQ(test, f.slots[ready].state, (u8)XNET_FRAG_READY);
	KUNIT_EXPECT_EQ(test, f.slots[retired].state, (u8)XNET_FRAG_RETIRED);
	KUNIT_EXPECT_EQ(test, f.slots[ring_busy].state, (u8)XNET_FRAG_FLIGHT);

	/* Teardown: the pool lets go of every page it has. */
	for (i = 0; i < f.p.cap; i++) {
		int before;

		if (!slot_page(&f, i))
			continue;
		before = release(&f, i);
		KUNIT_EXPECT_GE(test, before, 1);
		if (before == 1)
			freed++;
		else
			survived++;
	}
	KUNIT_EXPECT_EQ(test, freed, 2U);	/* ready, ring_idle */
	KUNIT_EXPECT_EQ(test, survived, 3U);
	KUNIT_EXPECT_EQ(test, page_ref_count(held[0]), 2);
	KUNIT_EXPECT_EQ(test, page_ref_count(held[1]), 2);
	KUNIT_EXPECT_EQ(test, page_ref_count(held[2]), 2);

	/* The in-flight skbs complete after the pool is gone. */
	for (n = 0; n < ARRAY_SIZE(held); n++) {
		KUNIT_EXPECT_TRUE(test, touch(held[n], 3, 0x77 + n));
		put_page(held[n]);
		KUNIT_EXPECT_EQ(test, page_ref_count(held[n]), 1);
		KUNIT_EXPECT_TRUE(test, touch(held[n], 3, 0x88 + n));
		put_page(held[n]);	/* the last reference: freed here */
	}
}

static struct kunit_case pp_frag_pool_cases[] = {
	KUNIT_CASE(pp_frag_pool_reuse_after_last_put),
	KUNIT_CASE(pp_frag_pool_per_cpu_cache),
	KUNIT_CASE(pp_frag_pool_exhaustion),
	KUNIT_CASE(pp_frag_pool_bias_top_up),
	KUNIT_CASE(pp_frag_pool_shrink),
	KUNIT_CASE(pp_frag_pool_teardown_in_flight),
	{}
};

static struct kunit_suite pp_frag_pool_suite = {
	.name = "pp_frag_pool",
	.test_cases = pp_frag_pool_cases,
};

kunit_test_suite(pp_frag_pool_suite);
