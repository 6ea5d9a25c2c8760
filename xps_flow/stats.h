/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xps_flow's steering counters, one XFL_STAT(name) a line, in the order
 * xps_flow_stats prints them (after in_use). Included with XFL_STAT
 * defined, once for each use: the fields of struct xfl_stats
 * (xps_flow.h), their sum over CPUs (xfl_stats_sum()) and their lines in
 * xps_flow_stats (main.c). No include guard, on purpose. A new counter is
 * a line here plus its this_cpu_inc() (and its line in
 * Documentation/ABI/testing/sysfs-class-net-xps_flow).
 */
XFL_STAT(lookups);	/* packets steered */
XFL_STAT(moves);	/* flows moved after their old queue drained */
XFL_STAT(held);		/* moves held back: old queue still busy */
XFL_STAT(stale);	/* entries naming a queue gone or of another class */
XFL_STAT(recorded);	/* entries written at transmit */
XFL_STAT(expired);	/* holds that lasted hold_max_ms: moved anyway */
XFL_STAT(collisions);	/* decisions on an entry another flow wrote */
XFL_STAT(claims_lost);	/* claims lost XFL_CLAIM_TRIES times: followed */
XFL_STAT(unrecorded);	/* heads not written: the slot names another queue */
