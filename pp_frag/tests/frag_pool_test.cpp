// SPDX-License-Identifier: GPL-2.0
// The page-frag pool (pp_frag/frag_pool.hpp) over fake pages whose
// reference count is an atomic, and its C ABI (frag_pool.cpp) over
// C-style pages, as the pp_frag glue calls it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <deque>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include <pp_frag/frag_pool.h>
#include <pp_frag/frag_pool.hpp>

using namespace xnet;
using namespace xnet::frag;

namespace {

// A fake page: its reference count, plus what the test knows about who
// holds references besides the pool (`users`: the page_frag and the fake
// skbs) and how often it was handed out (`gen`).
struct Page {
	std::atomic<u32> refs{1};	// alloc_pages() gives one reference
	std::atomic<u32> users{0};
	std::atomic<u32> gen{0};
};

Page *pg(void *p)
{
	return static_cast<Page *>(p);
}

struct FakeTraits {
	static inline std::atomic<u64> refs_calls{0};
	static inline std::atomic<u64> add_calls{0};

	static u32 refs(void *p)
	{
		refs_calls++;
		return pg(p)->refs.load();
	}

	static void ref_add(void *p, u32 n)
	{
		add_calls++;
		pg(p)->refs.fetch_add(n);
	}
};

using FPool = Pool<FakeTraits>;

// The stack's get_page()/put_page() on a pool page.
void get(Page *p)
{
	p->users++;
	p->refs++;
}

void put(Page *p)
{
	ASSERT_GT(p->users.load(), 0u);
	ASSERT_GT(p->refs.load(), 1u);	// never the pool's last reference
	p->users--;
	p->refs--;
}

// One pool with `cap` slots, its pages and one CPU cache.
struct Fix {
	PoolState s{};
	std::vector<Slot> slots;
	std::deque<Page> store;	// stable addresses
	Cache c{};
	FPool pool{ s };

	explicit Fix(u32 cap) : slots(cap)
	{
		EXPECT_EQ(FPool::init(s, slots.data(), cap), Err::Ok);
	}

	Page *fresh()
	{
		store.emplace_back();
		return &store.back();
	}

	Page *page(u32 i) const { return pg(s.slots[i].page); }
	u32 bias(u32 i) const { return s.slots[i].bias; }

	// A new page into @cache; NONE when the pool or the cache is full.
	u32 add(Cache &cache)
	{
		return pool.add(cache, fresh(), 3);
	}

	// Hand a page out: the caller's page_frag now holds one reference.
	u32 take(Cache &cache)
	{
		u32 i = pool.take(cache);

		if (i != kNone) {
			page(i)->users++;
			page(i)->gen++;
		}
		return i;
	}

	bool is_idle(u32 i) const { return page(i)->refs.load() == bias(i); }
};

std::vector<u32> ring(const PoolState &s)
{
	std::vector<u32> r;

	for (u32 i = s.ring_head; i != kNone; i = s.slots[i].next) {
		r.push_back(i);
		if (r.size() > s.cap)
			break;	// a loop: the size check below fails
	}
	EXPECT_EQ(r.size(), s.ring_len);
	EXPECT_EQ(r.empty() ? kNone : r.back(), s.ring_tail);
	return r;
}

u32 unused_count(const PoolState &s)
{
	u32 n = 0;

	for (u32 i = s.unused; i != kNone && n <= s.cap; i = s.slots[i].next)
		n++;
	return n;
}

} // namespace

TEST(FragPool, InitBounds)
{
	std::vector<Slot> slots(kMaxPages + 1);
	PoolState s{};

	EXPECT_EQ(FPool::init(s, slots.data(), 0), Err::Range);
	EXPECT_EQ(FPool::init(s, slots.data(), kMaxPages + 1), Err::Range);
	EXPECT_EQ(FPool::init(s, nullptr, 4), Err::Range);
	EXPECT_EQ(s.slots, nullptr);	// untouched on error

	// Dirty slots are reset; every slot is on the unused list.
	slots[0].page = &slots;
	slots[0].state = Flight;
	ASSERT_EQ(FPool::init(s, slots.data(), kMaxPages), Err::Ok);
	EXPECT_EQ(s.cap, kMaxPages);
	EXPECT_EQ(s.pages, 0u);
	EXPECT_EQ(s.ring_len, 0u);
	EXPECT_EQ(s.ring_head, kNone);
	EXPECT_EQ(s.ring_tail, kNone);
	EXPECT_EQ(slots[0].page, nullptr);
	EXPECT_EQ(slots[0].state, Unused);
	EXPECT_EQ(unused_count(s), kMaxPages);
	ASSERT_EQ(FPool::init(s, slots.data(), 1), Err::Ok);
	EXPECT_EQ(unused_count(s), 1u);
}

TEST(FragPool, AddUpToTheBound)
{
	Fix f(3);
	std::set<u32> got;

	EXPECT_EQ(f.pool.add(f.c, nullptr, 0), kNone);
	EXPECT_EQ(f.s.pages, 0u);
	EXPECT_EQ(f.c.nready, 0u);
	for (int k = 0; k < 3; k++) {
		u32 i = f.add(f.c);

		ASSERT_NE(i, kNone);
		got.insert(i);
		EXPECT_EQ(f.page(i)->refs.load(), kBias);	// 1 + bias - 1
		EXPECT_EQ(f.bias(i), kBias);
		EXPECT_EQ(f.s.slots[i].state, Ready);
		EXPECT_EQ(f.s.slots[i].order, 3u);
	}
	EXPECT_EQ(got.size(), 3u);
	EXPECT_EQ(f.s.pages, 3u);
	EXPECT_EQ(f.c.nready, 3u);

	Page *extra = f.fresh();

	EXPECT_EQ(f.pool.add(f.c, extra, 0), kNone);
	EXPECT_EQ(extra->refs.load(), 1u);	// the caller keeps its page
	EXPECT_EQ(f.s.pages, 3u);
	EXPECT_EQ(f.c.nready, 3u);
}

TEST(FragPool, AddWithAFullCache)
{
	Fix f(20);

	for (u32 k = 0; k < kCache; k++)
		ASSERT_NE(f.add(f.c), kNone);

	Page *extra = f.fresh();

	EXPECT_EQ(f.pool.add(f.c, extra, 3), kNone);
	EXPECT_EQ(extra->refs.load(), 1u);
	EXPECT_EQ(f.s.pages, kCache);
	EXPECT_EQ(unused_count(f.s), 20u - kCache);	// no slot leaked

	// Another CPU's cache has room; so has this one after a hand-out.
	Cache other{};

	EXPECT_NE(f.pool.add(other, extra, 3), kNone);
	EXPECT_EQ(extra->refs.load(), kBias);
	ASSERT_NE(f.take(f.c), kNone);
	EXPECT_NE(f.add(f.c), kNone);
	EXPECT_EQ(f.s.pages, kCache + 2);
}

TEST(FragPool, TakeGivesOneReferenceAndRefsBalance)
{
	Fix f(4);
	u32 i = f.add(f.c);

	ASSERT_NE(i, kNone);
	ASSERT_EQ(f.take(f.c), i);
	Page *p = f.page(i);

	// One of the pool's references became the page_frag's: no new one.
	EXPECT_EQ(f.bias(i), kBias - 1);
	EXPECT_EQ(p->refs.load(), kBias);
	EXPECT_EQ(f.s.slots[i].state, Retired);
	EXPECT_EQ(f.c.nready, 0u);
	EXPECT_EQ(f.c.nretired, 1u);
	EXPECT_FALSE(f.is_idle(i));

	// Five frags of it in skbs, then the page_frag moves on.
	for (int k = 0; k < 5; k++)
		get(p);
	EXPECT_EQ(p->refs.load(), f.bias(i) + 6);
	put(p);
	for (int k = 0; k < 4; k++) {
		put(p);
		EXPECT_FALSE(f.is_idle(i));
	}
	put(p);
	// Everybody dropped theirs: the count is exactly the pool's.
	EXPECT_EQ(p->refs.load(), f.bias(i));
	EXPECT_TRUE(f.is_idle(i));

	// Handed out again: one more pool reference consumed, no more.
	EXPECT_EQ(f.pool.refill(f.c), 1u);
	ASSERT_EQ(f.take(f.c), i);
	EXPECT_EQ(f.bias(i), kBias - 2);
	EXPECT_EQ(p->refs.load(), kBias - 1);
	put(p);
	EXPECT_EQ(p->refs.load(), f.bias(i));
	EXPECT_EQ(f.pool.take(f.c), kNone);	// nothing ready
}

TEST(FragPool, BusyPageNeverReused)
{
	Fix f(1);
	u32 i = f.add(f.c);

	ASSERT_EQ(f.take(f.c), i);
	Page *p = f.page(i);

	get(p);		// an skb still holds a frag
	put(p);		// the page_frag moved on
	for (int k = 0; k < 1000; k++) {
		EXPECT_EQ(f.pool.refill(f.c), 0u);
		EXPECT_EQ(f.pool.take(f.c), kNone);
		EXPECT_EQ(f.add(f.c), kNone);	// bound: the caller falls back
	}
	EXPECT_EQ(f.s.slots[i].state, Flight);
	EXPECT_EQ(f.pool.in_flight(), 1u);
	EXPECT_EQ(p->gen.load(), 1u);
	put(p);		// acked and freed
	EXPECT_EQ(f.pool.refill(f.c), 1u);
	EXPECT_EQ(f.s.slots[i].state, Ready);
	EXPECT_EQ(f.pool.in_flight(), 0u);
	EXPECT_EQ(f.take(f.c), i);
	EXPECT_EQ(p->gen.load(), 2u);
}

TEST(FragPool, OldestIdlePagesComeBackFirst)
{
	Fix f(2 * kCache);
	std::vector<u32> order;	// hand-out order

	for (int batch = 0; batch < 2; batch++) {
		for (u32 k = 0; k < kCache; k++)
			ASSERT_NE(f.add(f.c), kNone);
		for (u32 k = 0; k < kCache; k++) {
			u32 i = f.take(f.c);

			ASSERT_NE(i, kNone);
			order.push_back(i);
		}
		f.pool.flush(f.c);
	}
	EXPECT_EQ(ring(f.s), order);	// the ring is FIFO of hand-outs
	for (u32 i : order)
		put(f.page(i));

	// More idle pages than the cache holds: the oldest half wins.
	EXPECT_EQ(f.pool.refill(f.c), kCache);
	std::set<u32> ready(f.c.ready, f.c.ready + f.c.nready);

	EXPECT_EQ(ready, std::set<u32>(order.begin(), order.begin() + kCache));
	EXPECT_EQ(ring(f.s), std::vector<u32>(order.begin() + kCache, order.end()));

	// Hand them out and retire them: they queue behind the younger half.
	for (u32 k = 0; k < kCache; k++)
		put(f.page(f.take(f.c)));
	EXPECT_EQ(f.pool.refill(f.c), kCache);
	ready = std::set<u32>(f.c.ready, f.c.ready + f.c.nready);
	EXPECT_EQ(ready, std::set<u32>(order.begin() + kCache, order.end()));
}

TEST(FragPool, BusyPagesRotateToTheTail)
{
	Fix f(8);
	u32 id[4];

	for (u32 &i : id)
		i = f.add(f.c);
	// Hand-out order is the ring order: a (oldest), b, c, d.
	u32 a = f.take(f.c), b = f.take(f.c), c = f.take(f.c), d = f.take(f.c);

	f.pool.flush(f.c);
	ASSERT_EQ(ring(f.s), (std::vector<u32>{ a, b, c, d }));
	put(f.page(b));
	put(f.page(d));	// a and c still held by their page_frags

	EXPECT_EQ(f.pool.refill(f.c), 2u);
	std::set<u32> ready(f.c.ready, f.c.ready + f.c.nready);

	EXPECT_EQ(ready, (std::set<u32>{ b, d }));
	EXPECT_EQ(ring(f.s), (std::vector<u32>{ a, c }));
	EXPECT_EQ(f.s.slots[a].state, Flight);
	EXPECT_EQ(f.s.slots[c].state, Flight);

	// A long-held page behind younger idle ones does not block them.
	u32 e = f.take(f.c), g = f.take(f.c);

	f.pool.flush(f.c);
	ASSERT_EQ(ring(f.s), (std::vector<u32>{ a, c, e, g }));
	put(f.page(c));
	put(f.page(g));
	EXPECT_EQ(f.pool.refill(f.c), 2u);
	ready = std::set<u32>(f.c.ready, f.c.ready + f.c.nready);
	EXPECT_EQ(ready, (std::set<u32>{ c, g }));
	EXPECT_EQ(ring(f.s), (std::vector<u32>{ a, e }));
	(void)id;
}

TEST(FragPool, RefillExaminesAtMostScanPages)
{
	constexpr u32 kBusy = 2 * kScan, kIdle = 4;
	Fix f(kBusy + kIdle);
	std::vector<u32> order;

	while (order.size() < kBusy + kIdle) {
		while (f.c.nready < kCache && f.add(f.c) != kNone)
			;
		u32 i;

		while ((i = f.take(f.c)) != kNone)
			order.push_back(i);
		f.pool.flush(f.c);
	}
	ASSERT_EQ(ring(f.s), order);
	// The youngest kIdle pages are idle, 2 * kScan busy ones before them.
	for (u32 k = kBusy; k < kBusy + kIdle; k++)
		put(f.page(order[k]));

	FakeTraits::refs_calls = 0;
	EXPECT_EQ(f.pool.refill(f.c), 0u);
	EXPECT_EQ(FakeTraits::refs_calls.load(), kScan);
	EXPECT_EQ(f.s.ring_len, kBusy + kIdle);
	FakeTraits::refs_calls = 0;
	EXPECT_EQ(f.pool.refill(f.c), 0u);	// the second half of the busy ones
	EXPECT_EQ(FakeTraits::refs_calls.load(), kScan);
	FakeTraits::refs_calls = 0;
	EXPECT_EQ(f.pool.refill(f.c), kIdle);
	EXPECT_LE(FakeTraits::refs_calls.load(), u64{ kScan });

	// A short ring: each page is examined once, not kScan times.
	Fix one(1);

	one.add(one.c);
	one.take(one.c);
	FakeTraits::refs_calls = 0;
	EXPECT_EQ(one.pool.refill(one.c), 0u);
	EXPECT_EQ(FakeTraits::refs_calls.load(), 1u);

	// A full cache stops the scan.
	Fix full(kCache + 4);

	for (u32 k = 0; k < 4; k++)
		full.add(full.c);
	while (full.take(full.c) != kNone)
		;
	full.pool.flush(full.c);
	for (u32 k = 0; k < kCache; k++)
		full.add(full.c);
	FakeTraits::refs_calls = 0;
	EXPECT_EQ(full.pool.refill(full.c), 0u);
	EXPECT_EQ(FakeTraits::refs_calls.load(), 0u);
	EXPECT_EQ(full.s.ring_len, 4u);
}

TEST(FragPool, TakeRefusesWhenRetiredIsFullFlushFixesIt)
{
	Fix f(kCache + 1);

	for (u32 k = 0; k < kCache; k++)
		f.add(f.c);
	for (u32 k = 0; k < kCache; k++)
		ASSERT_NE(f.take(f.c), kNone);
	ASSERT_NE(f.add(f.c), kNone);
	EXPECT_EQ(f.c.nretired, kCache);
	EXPECT_EQ(f.pool.take(f.c), kNone);
	EXPECT_EQ(f.c.nready, 1u);	// still there
	EXPECT_EQ(f.pool.in_flight(), 0u);	// retired are not on the ring

	f.pool.flush(f.c);
	EXPECT_EQ(f.c.nretired, 0u);
	EXPECT_EQ(f.pool.in_flight(), kCache);
	for (u32 k = 0; k < kCache; k++)
		EXPECT_EQ(f.s.slots[f.c.retired[k]].state, Flight);
	EXPECT_NE(f.take(f.c), kNone);
	EXPECT_EQ(f.c.nretired, 1u);
}

TEST(FragPool, BiasTopUpKeepsRefsExact)
{
	// Far more hand-outs of one page than the bias it started with.
	constexpr u32 kCycles = 3 * kBias + 100;
	Fix f(1);
	u32 i = f.add(f.c);
	Page *p = f.page(i);
	u64 adds0 = FakeTraits::add_calls.load();
	u32 max_refs = 0, min_bias = kBias, bad = 0;

	for (u32 n = 0; n < kCycles; n++) {
		if (f.take(f.c) != i) {
			ADD_FAILURE() << "cycle " << n;
			break;
		}
		// The pool's references and the page_frag's, nobody else's.
		bad += p->refs.load() != f.bias(i) + 1;
		min_bias = std::min(min_bias, f.bias(i));
		get(p);
		get(p);
		max_refs = std::max(max_refs, p->refs.load());
		put(p);
		put(p);
		put(p);
		bad += p->refs.load() != f.bias(i);
		if (f.pool.refill(f.c) != 1u) {
			ADD_FAILURE() << "cycle " << n;
			break;
		}
	}
	EXPECT_EQ(bad, 0u);
	EXPECT_EQ(p->gen.load(), kCycles);
	EXPECT_GE(min_bias, kBiasLow);
	EXPECT_LE(max_refs, kBias + 2);
	// Every top-up was one ref_add() call; one per ~kBias hand-outs.
	u64 topups = FakeTraits::add_calls.load() - adds0;

	EXPECT_GE(topups, u64{ kCycles / kBias });
	EXPECT_LE(topups, u64{ kCycles / (kBias - kBiasLow - 1) });
	EXPECT_EQ(p->refs.load(), f.bias(i));
}

TEST(FragPool, ShrinkReturnsOnlyIdlePages)
{
	Fix f(10);
	std::vector<u32> order;

	for (int k = 0; k < 6; k++)
		f.add(f.c);
	for (int k = 0; k < 6; k++)
		order.push_back(f.take(f.c));
	f.pool.flush(f.c);
	// Idle: order[0], [2], [4]; busy: [1], [3] (an skb), [5] (page_frag).
	for (int k : { 0, 1, 2, 3, 4 })
		get(f.page(order[k]));
	for (int k : { 0, 1, 2, 3, 4 })
		put(f.page(order[k]));
	for (int k : { 0, 2, 4 })
		put(f.page(order[k]));
	// One more idle page in the cache: not on the ring, not shrunk.
	u32 ready = f.add(f.c);

	u32 out[10];

	EXPECT_EQ(f.pool.shrink(out, 2), 2u);
	EXPECT_EQ(out[0], order[0]);
	EXPECT_EQ(out[1], order[2]);
	EXPECT_EQ(f.pool.in_flight(), 4u);
	for (u32 k = 0; k < 2; k++) {
		Page *p = f.page(out[k]);

		EXPECT_EQ(f.s.slots[out[k]].state, Unused);
		// Release: the pool's references are the last ones.
		EXPECT_EQ(p->refs.load(), f.bias(out[k]));
		p->refs -= f.bias(out[k]);
		f.pool.forget(out[k]);
		EXPECT_EQ(f.s.slots[out[k]].page, nullptr);
	}
	EXPECT_EQ(f.s.pages, 5u);
	EXPECT_EQ(f.pool.shrink(out, 10), 1u);
	EXPECT_EQ(out[0], order[4]);
	f.page(out[0])->refs -= f.bias(out[0]);
	f.pool.forget(out[0]);
	EXPECT_EQ(f.s.pages, 4u);
	EXPECT_EQ(f.pool.shrink(out, 10), 0u);	// all busy now
	// Busy pages went back to the tail (order[1] in the first pass).
	EXPECT_EQ(ring(f.s), (std::vector<u32>{ order[3], order[5], order[1] }));
	EXPECT_EQ(f.s.slots[ready].state, Ready);
	EXPECT_EQ(f.pool.shrink(out, 0), 0u);

	// The forgotten slots are reusable, and the bound still holds.
	std::set<u32> reused;
	u32 i;
	Cache c2{};

	while ((i = f.add(c2)) != kNone)
		reused.insert(i);
	EXPECT_EQ(reused.size(), 6u);
	EXPECT_EQ(f.s.pages, 10u);
	for (u32 k : { 0, 2, 4 })
		EXPECT_EQ(reused.count(order[k]), 1u);
}

TEST(FragPool, InFlightCountsTheRing)
{
	Fix f(16);

	EXPECT_EQ(f.pool.in_flight(), 0u);
	for (int k = 0; k < 5; k++)
		f.add(f.c);
	for (int k = 0; k < 5; k++)
		f.take(f.c);
	EXPECT_EQ(f.pool.in_flight(), 0u);	// retired in the cache
	f.pool.flush(f.c);
	EXPECT_EQ(f.pool.in_flight(), 5u);
	EXPECT_EQ(xnet_frag_in_flight(&f.s), 5u);
	put(f.page(f.s.ring_head));
	EXPECT_EQ(f.pool.refill(f.c), 1u);
	EXPECT_EQ(f.pool.in_flight(), 4u);
}

// Several "CPUs" hand pages out (each with its own cache, the pool under
// a mutex) while "skb" threads hold and drop frag references at random. A
// page must never be handed out while anyone but the pool refers to it.
TEST(FragPool, ConcurrentCpusAndSkbs)
{
	constexpr u32 kCpus = 4, kDroppers = 2, kCap = 48, kIters = 20000;
	struct Skb {
		Page *page;
		u32 gen;
	};
	PoolState s{};
	std::vector<Slot> slots(kCap);
	std::deque<Page> store;
	std::vector<Cache> caches(kCpus);
	std::mutex lock, qlock;
	std::vector<Skb> queue;
	std::atomic<u32> cpus_done{ 0 };
	std::atomic<u64> handed{ 0 }, fresh{ 0 }, fallback{ 0 }, frags{ 0 };
	std::atomic<u64> reused_busy{ 0 }, stale_skb{ 0 };

	ASSERT_EQ(FPool::init(s, slots.data(), kCap), Err::Ok);

	auto cpu = [&](u32 id) {
		FPool pool(s);
		Cache &c = caches[id];
		std::mt19937 rng(id + 1);
		Page *cur = nullptr;
		u32 gen = 0, left = 0;

		// kIters frags each, however long the droppers take to free
		// pages (a loaded machine): fallbacks do not count.
		for (u32 it = 0; it < kIters;) {
			if (!cur) {
				u32 i = pool.take(c);

				if (i == kNone) {
					std::lock_guard<std::mutex> g(lock);

					if (!pool.refill(c) && s.pages < kCap) {
						Page *p = &store.emplace_back();

						if (pool.add(c, p, 3) != kNone)
							fresh++;
						else
							p->refs--;	// freed
					}
				}
				if (i == kNone)
					i = pool.take(c);
				if (i == kNone) {
					fallback++;	// a normal allocation
					std::this_thread::yield();
					continue;
				}
				Page *p = pg(s.slots[i].page);

				if (p->users.load() != 0 ||
				    p->refs.load() != s.slots[i].bias + 1)
					reused_busy++;
				p->users++;
				gen = ++p->gen;
				cur = p;
				left = 1 + rng() % 4;
				handed++;
			}
			get(cur);	// an skb frag
			frags++;
			it++;
			{
				std::lock_guard<std::mutex> g(qlock);

				queue.push_back({ cur, gen });
			}
			if (--left == 0) {
				put(cur);	// page_frag moves on
				cur = nullptr;
			}
		}
		if (cur)
			put(cur);
		cpus_done++;
	};

	auto dropper = [&](u32 id) {
		std::mt19937 rng(100 + id);
		std::vector<Skb> held;

		for (;;) {
			bool done = cpus_done.load() == kCpus;
			{
				std::lock_guard<std::mutex> g(qlock);

				for (u32 k = 0; k < 4 && !queue.empty(); k++) {
					held.push_back(queue.back());
					queue.pop_back();
				}
				done = done && queue.empty();
			}
			if (done && held.empty())
				break;
			// Hold up to 64 skbs; free random ones (acked out of order).
			while (!held.empty() && (done || held.size() > 64 || rng() % 3 == 0)) {
				u32 k = rng() % held.size();
				Skb skb = held[k];

				held[k] = held.back();
				held.pop_back();
				if (skb.page->gen.load() != skb.gen)
					stale_skb++;	// handed out again under us
				put(skb.page);
			}
		}
	};

	std::vector<std::thread> threads;

	for (u32 k = 0; k < kCpus; k++)
		threads.emplace_back(cpu, k);
	for (u32 k = 0; k < kDroppers; k++)
		threads.emplace_back(dropper, k);
	for (auto &t : threads)
		t.join();

	EXPECT_EQ(reused_busy.load(), 0u);
	EXPECT_EQ(stale_skb.load(), 0u);
	EXPECT_GT(handed.load(), u64{ kCpus * kIters / 8 });
	EXPECT_GT(handed.load(), fresh.load() * 10);	// mostly recycled
	EXPECT_LE(fresh.load(), u64{ kCap });
	EXPECT_EQ(s.pages, fresh.load());

	// Quiet: every page is idle, in a cache or on the ring, exactly once.
	FPool pool(s);
	u32 ready = 0;

	for (auto &c : caches) {
		pool.flush(c);
		for (u32 k = 0; k < c.nready; k++) {
			Slot &sl = s.slots[c.ready[k]];

			EXPECT_EQ(sl.state, Ready);
			EXPECT_EQ(pg(sl.page)->refs.load(), sl.bias);
			pg(sl.page)->refs -= sl.bias;
			ready++;
		}
	}
	u32 out[kCap];
	u32 n = pool.shrink(out, kCap);

	EXPECT_EQ(n + ready, s.pages);
	EXPECT_EQ(pool.in_flight(), 0u);
	for (u32 k = 0; k < n; k++) {
		Page *p = pg(s.slots[out[k]].page);

		EXPECT_EQ(p->users.load(), 0u);
		p->refs -= s.slots[out[k]].bias;
		pool.forget(out[k]);
	}
	for (auto &p : store) {
		EXPECT_EQ(p.refs.load(), 0u);	// all references balanced
		EXPECT_EQ(p.users.load(), 0u);
	}
	std::printf("frag pool: %llu hand-outs, %llu fresh pages, %llu fallbacks, %llu frags\n",
		    static_cast<unsigned long long>(handed.load()),
		    static_cast<unsigned long long>(fresh.load()),
		    static_cast<unsigned long long>(fallback.load()),
		    static_cast<unsigned long long>(frags.load()));
}

// ---- The C ABI, with the C side's page functions as the glue has them ----

extern "C" {

struct c_page {
	unsigned int count;
};

unsigned int xnet_frag_page_refs(void *page)
{
	return static_cast<struct c_page *>(page)->count;
}

void xnet_frag_page_ref_add(void *page, unsigned int n)
{
	static_cast<struct c_page *>(page)->count += n;
}

} // extern "C"

TEST(FragAbi, InitRejectsBadBounds)
{
	struct xnet_frag_pool p = {};
	struct xnet_frag_slot slots[4] = {};

	EXPECT_EQ(xnet_frag_pool_init(&p, slots, 0), -22);
	EXPECT_EQ(xnet_frag_pool_init(&p, nullptr, 4), -22);
	EXPECT_EQ(xnet_frag_pool_init(&p, slots, XNET_FRAG_MAX_PAGES + 1), -22);
	EXPECT_EQ(xnet_frag_pool_init(&p, slots, 4), 0);
	EXPECT_EQ(p.cap, 4u);
	EXPECT_EQ(p.pages, 0u);
	EXPECT_EQ(xnet_frag_in_flight(&p), 0u);
}

TEST(FragAbi, Lifecycle)
{
	struct xnet_frag_pool p = {};
	struct xnet_frag_slot slots[2] = {};
	struct xnet_frag_cache c = {};
	struct c_page a = { 1 }, b = { 1 }, x = { 1 };
	unsigned int out[2];

	ASSERT_EQ(xnet_frag_pool_init(&p, slots, 2), 0);
	unsigned int sa = xnet_frag_add(&p, &c, &a, 3);
	unsigned int sb = xnet_frag_add(&p, &c, &b, 0);

	ASSERT_NE(sa, XNET_FRAG_NONE);
	ASSERT_NE(sb, XNET_FRAG_NONE);
	EXPECT_EQ(xnet_frag_add(&p, &c, &x, 0), XNET_FRAG_NONE);
	EXPECT_EQ(x.count, 1u);
	EXPECT_EQ(a.count, XNET_FRAG_BIAS);
	EXPECT_EQ(p.slots[sa].page, &a);
	EXPECT_EQ(p.slots[sb].order, 0u);

	unsigned int t1 = xnet_frag_take(&p, &c);
	unsigned int t2 = xnet_frag_take(&p, &c);

	EXPECT_EQ(std::set<unsigned int>({ t1, t2 }), std::set<unsigned int>({ sa, sb }));
	EXPECT_EQ(xnet_frag_take(&p, &c), XNET_FRAG_NONE);
	EXPECT_EQ(xnet_frag_in_flight(&p), 0u);
	xnet_frag_flush(&p, &c);
	EXPECT_EQ(xnet_frag_in_flight(&p), 2u);
	EXPECT_EQ(xnet_frag_refill(&p, &c), 0u);	// both page_frags hold theirs
	a.count--;	// a's page_frag put_page()
	EXPECT_EQ(a.count, p.slots[sa].bias);
	EXPECT_EQ(xnet_frag_refill(&p, &c), 1u);
	EXPECT_EQ(xnet_frag_take(&p, &c), sa);
	a.count--;
	xnet_frag_flush(&p, &c);
	EXPECT_EQ(xnet_frag_in_flight(&p), 2u);

	// Shrink gives back a, not b (still referenced); release and forget.
	EXPECT_EQ(xnet_frag_shrink(&p, out, 2), 1u);
	EXPECT_EQ(out[0], sa);
	a.count -= p.slots[sa].bias;
	EXPECT_EQ(a.count, 0u);
	xnet_frag_forget(&p, sa);
	EXPECT_EQ(p.pages, 1u);
	EXPECT_EQ(xnet_frag_add(&p, &c, &x, 0), sa);
	EXPECT_EQ(p.pages, 2u);
	EXPECT_EQ(xnet_frag_in_flight(&p), 1u);
}

// drain(): a cache's ready (idle) and retired (handed out) pages go to the
// ring, so the shrinker finds the idle ones and only those.
TEST(FragPool, DrainGivesCachePagesToTheShrinker)
{
	Fix f(10);

	for (int k = 0; k < 4; k++)
		f.add(f.c);
	u32 busy = f.take(f.c);		// in a page_frag: retired, busy
	u32 freed = f.take(f.c);	// handed out, already dropped: idle

	put(f.page(freed));
	ASSERT_EQ(f.c.nready, 2u);
	ASSERT_EQ(f.c.nretired, 2u);
	u32 out[10];

	EXPECT_EQ(f.pool.shrink(out, 10), 0u);	// nothing on the ring yet
	f.pool.drain(f.c);
	EXPECT_EQ(f.c.nready, 0u);
	EXPECT_EQ(f.c.nretired, 0u);
	EXPECT_EQ(f.pool.in_flight(), 4u);
	u32 n = f.pool.shrink(out, 10);

	EXPECT_EQ(n, 3u);		// the two ready ones and the dropped one
	for (u32 k = 0; k < n; k++) {
		EXPECT_NE(out[k], busy);
		f.page(out[k])->refs -= f.bias(out[k]);
		f.pool.forget(out[k]);
	}
	EXPECT_EQ(f.s.pages, 1u);
	EXPECT_EQ(ring(f.s), (std::vector<u32>{ busy }));
	put(f.page(busy));
	EXPECT_EQ(f.page(busy)->refs.load(), f.bias(busy));
}
