/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pp_frag's trace events (events/pp_frag/), fired where the pool counts
 * (stats.h, pool.c): a refill that found no idle page to reuse, a refill
 * left to the kernel, idle pages given back by the shrinker. They fire in
 * the caller's context of sk_page_frag_refill() (ppf_refill(), after the
 * ftrace handler has returned) and in the shrinker, never in the handler.
 * Defined once, in trace.c (CREATE_TRACE_POINTS). Fields and examples:
 * Documentation/pp-frag.md, "Tracing".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pp_frag

#if !defined(_PP_FRAG_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _PP_FRAG_TRACE_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>

/*
 * Why a refill was left to the kernel (ppf_pool_refill()). full: every
 * page of the pool is in flight and it is at its bound; nomem: growing it,
 * the page allocation failed; race: the page allocated could not be added
 * (the pool filled meanwhile).
 */
#ifndef PPF_FALLBACK_ENUM
#define PPF_FALLBACK_ENUM
enum ppf_fallback {
	PPF_FALLBACK_FULL,
	PPF_FALLBACK_NOMEM,
	PPF_FALLBACK_RACE,
};
#endif

TRACE_DEFINE_ENUM(PPF_FALLBACK_FULL);
TRACE_DEFINE_ENUM(PPF_FALLBACK_NOMEM);
TRACE_DEFINE_ENUM(PPF_FALLBACK_RACE);

/*
 * A refill for a socket sending through @dev found no idle pool page to
 * reuse (the CPU cache and the oldest pages of the ring were all in
 * flight): @pages the pool has, @cap its bound; it grows if @pages < @cap.
 */
TRACE_EVENT(pp_frag_recycle_miss,
	    TP_PROTO(const struct net_device *dev, unsigned int pages,
		     unsigned int cap),
	    TP_ARGS(dev, pages, cap),
	    TP_STRUCT__entry(__array(char, dev, IFNAMSIZ)
			     __field(int, ifindex)
			     __field(unsigned int, pages)
			     __field(unsigned int, cap)),
	    TP_fast_assign(memcpy(__entry->dev, dev->name, IFNAMSIZ);
			   __entry->ifindex = dev->ifindex;
			   __entry->pages = pages;
			   __entry->cap = cap;),
	    TP_printk("dev=%s ifindex=%d pages=%u cap=%u",
		      __entry->dev, __entry->ifindex, __entry->pages,
		      __entry->cap)
);

/* The refill was left to the kernel's own allocation, for @reason. */
TRACE_EVENT(pp_frag_fallback,
	    TP_PROTO(const struct net_device *dev, int reason,
		     unsigned int pages, unsigned int cap),
	    TP_ARGS(dev, reason, pages, cap),
	    TP_STRUCT__entry(__array(char, dev, IFNAMSIZ)
			     __field(int, ifindex)
			     __field(int, reason)
			     __field(unsigned int, pages)
			     __field(unsigned int, cap)),
	    TP_fast_assign(memcpy(__entry->dev, dev->name, IFNAMSIZ);
			   __entry->ifindex = dev->ifindex;
			   __entry->reason = reason;
			   __entry->pages = pages;
			   __entry->cap = cap;),
	    TP_printk("dev=%s ifindex=%d reason=%s pages=%u cap=%u",
		      __entry->dev, __entry->ifindex,
		      __print_symbolic(__entry->reason,
				       { PPF_FALLBACK_FULL, "full" },
				       { PPF_FALLBACK_NOMEM, "nomem" },
				       { PPF_FALLBACK_RACE, "race" }),
		      __entry->pages, __entry->cap)
);

/*
 * The shrinker gave @freed idle pages of @dev's pool back (one batch of
 * a scan that still wanted @want), @pages are left in the pool.
 */
TRACE_EVENT(pp_frag_shrink,
	    TP_PROTO(const struct net_device *dev, unsigned int freed,
		     unsigned long want, unsigned int pages),
	    TP_ARGS(dev, freed, want, pages),
	    TP_STRUCT__entry(__array(char, dev, IFNAMSIZ)
			     __field(int, ifindex)
			     __field(unsigned int, freed)
			     __field(unsigned long, want)
			     __field(unsigned int, pages)),
	    TP_fast_assign(memcpy(__entry->dev, dev->name, IFNAMSIZ);
			   __entry->ifindex = dev->ifindex;
			   __entry->freed = freed;
			   __entry->want = want;
			   __entry->pages = pages;),
	    TP_printk("dev=%s ifindex=%d freed=%u want=%lu pages=%u",
		      __entry->dev, __entry->ifindex, __entry->freed,
		      __entry->want, __entry->pages)
);

#endif /* _PP_FRAG_TRACE_H */

/* This part must be outside the guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
