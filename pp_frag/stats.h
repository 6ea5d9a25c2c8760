/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pp_frag's per-CPU pool counters, one PPF_STAT(name) a line, in the order
 * pp_frag_stats prints them (after pages and in_flight). Included with
 * PPF_STAT defined, once for each use: the fields of struct ppf_stats
 * (pp_frag.h) and their lines in pp_frag_stats (ppf_pool_stats_show(),
 * pool.c); common/pcpu_stats.h sums them over CPUs. No include guard,
 * on purpose. A new counter is a line here plus its increment (and its
 * line in Documentation/ABI/testing/sysfs-class-net-pp_frag).
 */
PPF_STAT(served);	/* pages handed to a socket's page_frag */
PPF_STAT(recycled);	/* ... of which were reused pool pages */
PPF_STAT(fresh);	/* ... of which were new pool pages */
PPF_STAT(fallback);	/* refills left to the kernel: pool empty/full */
PPF_STAT(shrunk);	/* idle pages given back by the shrinker */
PPF_STAT(dma_refused);	/* pages left unmapped: the mapping needs syncs */
