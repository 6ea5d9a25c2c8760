/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdicts of the flow-steering decision, one a line:
 * XNET_XPS_VERDICT(C name, xnet::xps::Verdict name). No include guard:
 * decide.h makes enum xnet_xps_verdict from it, decide.hpp Verdict.
 */
/* No entry: the proposed queue. */
XNET_XPS_VERDICT(XNET_XPS_NEW, New)
/* The proposed queue is the flow's queue. */
XNET_XPS_VERDICT(XNET_XPS_SAME, Same)
/* The old queue has drained: move to the proposed one. */
XNET_XPS_VERDICT(XNET_XPS_MOVE, Move)
/* The old queue still holds the flow's bytes: stay. */
XNET_XPS_VERDICT(XNET_XPS_HOLD, Hold)
/*
 * The old queue no longer exists, or is outside the proposed queue's
 * traffic class: the proposed one.
 */
XNET_XPS_VERDICT(XNET_XPS_STALE, Stale)
/* Held for HoldClock::limit (hold_max_ms) already: the proposed one. */
XNET_XPS_VERDICT(XNET_XPS_EXPIRED, Expired)
