// SPDX-License-Identifier: GPL-2.0
/* pp_frag under memory pressure: the shrinker gives idle pool pages back. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/shrinker.h>

#include "pp_frag.h"

static unsigned long ppf_shrink_count(struct shrinker *s,
				      struct shrink_control *sc)
{
	unsigned long n = 0;
	struct ppf_pool *pool;

	if (!mutex_trylock(&ppf_mutex))
		return 0;
	list_for_each_entry(pool, &ppf_pools, node)
		n += ppf_pool_idle_estimate(pool);
	mutex_unlock(&ppf_mutex);
	return n;
}

static unsigned long ppf_shrink_scan(struct shrinker *s,
				     struct shrink_control *sc)
{
	unsigned long freed = 0;
	struct ppf_pool *pool;

	if (!mutex_trylock(&ppf_mutex))
		return SHRINK_STOP;
	list_for_each_entry(pool, &ppf_pools, node) {
		if (freed >= sc->nr_to_scan)
			break;
		freed += ppf_pool_shrink(pool, sc->nr_to_scan - freed);
	}
	mutex_unlock(&ppf_mutex);
	return freed ? freed : SHRINK_STOP;
}

/*
 * Idle pool pages are a cache that costs nothing to rebuild: seeks 0 makes
 * every reclaim pass ask for half of them (DEFAULT_SEEKS would leave a pool
 * of a few hundred pages alone until reclaim gets desperate), in batches
 * small enough for a pool of a few dozen pages.
 */
static struct shrinker *ppf_shrinker;
#define PPF_SHRINK_SEEKS	0
#define PPF_SHRINK_BATCH	16

int ppf_shrinker_init(void)
{
	ppf_shrinker = xnet_shrinker_create("pp_frag", ppf_shrink_count,
					    ppf_shrink_scan, PPF_SHRINK_SEEKS,
					    PPF_SHRINK_BATCH);
	return ppf_shrinker ? 0 : -ENOMEM;
}

void ppf_shrinker_exit(void)
{
	xnet_shrinker_destroy(ppf_shrinker);
}
