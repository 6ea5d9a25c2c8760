/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xps_flow's trace events (events/xps_flow/): the verdicts the steering
 * counters count (stats.h), fired where they are counted (datapath.c).
 * Each is a static key: off, the datapath pays a patched-out jump.
 * Defined once, in trace.c (CREATE_TRACE_POINTS). Fields and examples:
 * Documentation/xps-flow.md, "Tracing".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xps_flow

#if !defined(_XPS_FLOW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _XPS_FLOW_TRACE_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>

#include "decide.h"
#include "xps_flow.h"

#ifndef XFL_TRACE_HELPERS
#define XFL_TRACE_HELPERS
/* @ticks of the hold clock in ns. */
static inline u64 xfl_trace_ns(u16 ticks)
{
	return (u64)ticks << READ_ONCE(xfl_hold_shift);
}

/* How long the hold stamped in @ent has lasted at @clock (0: none). */
static inline u64 xfl_trace_held_ns(u64 ent, u16 clock)
{
	u16 stamp = ent >> XNET_XPS_STAMP_SHIFT;

	if (!(ent & XNET_XPS_HOLDING))
		return 0;
	return xfl_trace_ns((clock - stamp) & XNET_XPS_STAMP_MASK);
}
#endif

/*
 * A flow that wanted to leave its queue: @ent is its slot as the decision
 * read it (the old queue, the flow's head there, a hold's stamp),
 * @proposed the queue XPS or the driver chose, @queue where the packet
 * goes, @completed and @queued the old queue's BQL counters (0 when the
 * slot names no queue of the device). @clock and @limit are the hold
 * clock's (ticks of 2^xfl_hold_shift ns): now, and the longest hold
 * allowed (0: unbounded).
 */
DECLARE_EVENT_CLASS(xps_flow_verdict,
		    TP_PROTO(const struct net_device *dev, u32 key, u64 ent,
			     u16 proposed, u16 queue, u32 completed,
			     u32 queued, u16 clock, u16 limit),
		    TP_ARGS(dev, key, ent, proposed, queue, completed, queued,
			    clock, limit),
		    TP_STRUCT__entry(__array(char, dev, IFNAMSIZ)
				     __field(int, ifindex)
				     __field(u32, key)
				     __field(int, old)
				     __field(u16, proposed)
				     __field(u16, queue)
				     __field(u32, head)
				     __field(u32, completed)
				     __field(u32, queued)
				     __field(u64, held_ns)
				     __field(u64, limit_ns)),
		    TP_fast_assign(memcpy(__entry->dev, dev->name, IFNAMSIZ);
				   __entry->ifindex = dev->ifindex;
				   __entry->key = key;
				   __entry->old = xnet_xps_queue_of(ent);
				   __entry->proposed = proposed;
				   __entry->queue = queue;
				   __entry->head = (u32)ent;
				   __entry->completed = completed;
				   __entry->queued = queued;
				   __entry->held_ns = xfl_trace_held_ns(ent, clock);
				   __entry->limit_ns = xfl_trace_ns(limit);),
		    TP_printk("dev=%s ifindex=%d key=0x%08x old=%d proposed=%u queue=%u head=%u completed=%u queued=%u held_ns=%llu limit_ns=%llu",
			      __entry->dev, __entry->ifindex, __entry->key,
			      __entry->old, __entry->proposed, __entry->queue,
			      __entry->head, __entry->completed,
			      __entry->queued, __entry->held_ns,
			      __entry->limit_ns)
);

/* Held on its old queue: the flow's head there is still in flight. */
DEFINE_EVENT(xps_flow_verdict, xps_flow_hold,
	     TP_PROTO(const struct net_device *dev, u32 key, u64 ent,
		      u16 proposed, u16 queue, u32 completed, u32 queued,
		      u16 clock, u16 limit),
	     TP_ARGS(dev, key, ent, proposed, queue, completed, queued, clock,
		     limit)
);

/* Moved to the proposed queue: its old queue completed its head. */
DEFINE_EVENT(xps_flow_verdict, xps_flow_move,
	     TP_PROTO(const struct net_device *dev, u32 key, u64 ent,
		      u16 proposed, u16 queue, u32 completed, u32 queued,
		      u16 clock, u16 limit),
	     TP_ARGS(dev, key, ent, proposed, queue, completed, queued, clock,
		     limit)
);

/* Held as long as its bound allows (hold_max_ms, hold_drains): moved anyway. */
DEFINE_EVENT(xps_flow_verdict, xps_flow_expire,
	     TP_PROTO(const struct net_device *dev, u32 key, u64 ent,
		      u16 proposed, u16 queue, u32 completed, u32 queued,
		      u16 clock, u16 limit),
	     TP_ARGS(dev, key, ent, proposed, queue, completed, queued, clock,
		     limit)
);

/*
 * The flow with @key found another flow's entry @ent in its slot (the
 * tags differ): the two move as one from then on.
 */
TRACE_EVENT(xps_flow_collision,
	    TP_PROTO(const struct net_device *dev, u32 key, u64 ent,
		     u16 proposed),
	    TP_ARGS(dev, key, ent, proposed),
	    TP_STRUCT__entry(__array(char, dev, IFNAMSIZ)
			     __field(int, ifindex)
			     __field(u32, key)
			     __field(u8, tag)
			     __field(u8, other_tag)
			     __field(int, queue)
			     __field(u16, proposed)),
	    TP_fast_assign(memcpy(__entry->dev, dev->name, IFNAMSIZ);
			   __entry->ifindex = dev->ifindex;
			   __entry->key = key;
			   __entry->tag = xnet_xps_tag(key);
			   __entry->other_tag = xnet_xps_tag_of(ent);
			   __entry->queue = xnet_xps_queue_of(ent);
			   __entry->proposed = proposed;),
	    TP_printk("dev=%s ifindex=%d key=0x%08x tag=0x%02x other_tag=0x%02x queue=%d proposed=%u",
		      __entry->dev, __entry->ifindex, __entry->key,
		      __entry->tag, __entry->other_tag, __entry->queue,
		      __entry->proposed)
);

#endif /* _XPS_FLOW_TRACE_H */

/* This part must be outside the guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
