// SPDX-License-Identifier: GPL-2.0
/* pp_frag's debugfs files: global, pages (Documentation/ABI/testing/debugfs-pp_frag). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

#include "pp_frag.h"

static struct dentry *ppf_debugfs;

static int ppf_global_show(struct seq_file *m, void *v)
{
	static const char *const walk[PPF_WALKS] = {
		"dma_map", "dma_unmap", "pages_list"
	};
	unsigned int slots;
	int dir;
	u64 ns;

	seq_printf(m, "pages_owned %ld\norphans %lu\norphans_mapped %lu\nhanded_over %ld\n",
		   atomic_long_read(&ppf_pages_owned), ppf_orphans_count(),
		   ppf_orphans_mapped(), atomic_long_read(&ppf_handed_over));
	for (dir = 0; dir < PPF_WALKS; dir++) {
		ppf_hold_max(dir, &ns, &slots);
		seq_printf(m, "%s_hold_max_ns %llu\n%s_hold_max_slots %u\n",
			   walk[dir], ns, walk[dir], slots);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ppf_global);

static int ppf_pages_show(struct seq_file *m, void *v)
{
	struct ppf_pool *pool;

	/* ppf_mutex: no pool is destroyed (nor shrunk) meanwhile. */
	mutex_lock(&ppf_mutex);
	list_for_each_entry(pool, &ppf_pools, node)
		ppf_pool_show_pages(pool, m);
	ppf_pool_show_pages(NULL, m);
	mutex_unlock(&ppf_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ppf_pages);

void ppf_debugfs_init(void)
{
	ppf_debugfs = debugfs_create_dir("pp_frag", NULL);
	debugfs_create_file("global", 0444, ppf_debugfs, NULL, &ppf_global_fops);
	debugfs_create_file("pages", 0400, ppf_debugfs, NULL, &ppf_pages_fops);
}

void ppf_debugfs_exit(void)
{
	debugfs_remove_recursive(ppf_debugfs);
}
