/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU counters that are a struct of u64 fields and nothing else (the
 * fields listed once, in a list file such as xps_flow/stats.h), summed
 * over CPUs. Kernel C, static inline: see common/netdev_table.h for what
 * common/ is.
 */
#ifndef XNET_COMMON_PCPU_STATS_H
#define XNET_COMMON_PCPU_STATS_H

#include <linux/build_bug.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/types.h>

/*
 * The @n u64 counters at @pcpu summed over every possible CPU into @sum:
 * a snapshot taken without a lock (each CPU writes only its own copy).
 */
static inline void xnet_pcpu_u64_sum(u64 *sum, const u64 __percpu *pcpu,
				     unsigned int n)
{
	unsigned int i;
	int cpu;

	memset(sum, 0, n * sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const u64 *v = per_cpu_ptr(pcpu, cpu);

		for (i = 0; i < n; i++)
			sum[i] += v[i];
	}
}

/* How many u64 counters a struct of them holds (and that it holds nothing else). */
#define XNET_U64_COUNT(type)	(sizeof(type) / sizeof(u64) +		\
				 BUILD_BUG_ON_ZERO(sizeof(type) % sizeof(u64)))

#endif /* XNET_COMMON_PCPU_STATS_H */
