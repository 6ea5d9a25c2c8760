/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels the modules build for, in one place.
 * Force-included (compat/Kbuild.include) into every C file of the project,
 * never into the C++ core (which sees no kernel header). The XNET_HAVE_*
 * macros come from the header probes in compat/Kbuild.include.
 *
 * Tested kernels: Debian's 6.1 and 6.12 (plain and PREEMPT_RT). What older
 * kernels would need: Documentation/kernels.md.
 */
#ifndef XNET_COMPAT_H
#define XNET_COMPAT_H

/*
 * Before any header can define the default: the project's own prefix (the
 * files' identical definitions are then no redefinition).
 */
#ifndef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#endif

#include <linux/slab.h>
#include <linux/shrinker.h>	/* after slab.h: 6.1's is not self-contained */

/*
 * Shrinkers. xnet_shrinker_create() returns a registered shrinker (or
 * NULL: out of memory) with @count and @scan; xnet_shrinker_destroy()
 * unregisters and frees it.
 */
typedef unsigned long (*xnet_shrink_fn)(struct shrinker *, struct shrink_control *);

static inline void xnet_shrinker_set(struct shrinker *s, xnet_shrink_fn count,
				     xnet_shrink_fn scan, int seeks, long batch)
{
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = seeks;
	s->batch = batch;
}

#ifdef XNET_HAVE_SHRINKER_ALLOC		/* 6.7 */
static inline struct shrinker *xnet_shrinker_create(const char *name,
						    xnet_shrink_fn count,
						    xnet_shrink_fn scan,
						    int seeks, long batch)
{
	struct shrinker *s = shrinker_alloc(0, "%s", name);

	if (!s)
		return NULL;
	xnet_shrinker_set(s, count, scan, seeks, batch);
	shrinker_register(s);
	return s;
}

static inline void xnet_shrinker_destroy(struct shrinker *s)
{
	shrinker_free(s);
}
#else
static inline struct shrinker *xnet_shrinker_create(const char *name,
						    xnet_shrink_fn count,
						    xnet_shrink_fn scan,
						    int seeks, long batch)
{
	struct shrinker *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int err;

	if (!s)
		return NULL;
	xnet_shrinker_set(s, count, scan, seeks, batch);
#ifdef XNET_HAVE_SHRINKER_NAME		/* 6.0 */
	err = register_shrinker(s, "%s", name);
#else
	err = register_shrinker(s);
#endif
	if (err) {
		kfree(s);
		return NULL;
	}
	return s;
}

static inline void xnet_shrinker_destroy(struct shrinker *s)
{
	unregister_shrinker(s);
	kfree(s);
}
#endif

/*
 * The ephemeral port range of @net (sysctl net.ipv4.ip_local_port_range):
 * xnet_set_local_port_range() sets it the way the sysctl does; read it with
 * inet_get_local_port_range() (<net/ip.h>). Since 6.8 it is one u32,
 * high << 16 | low; before, two ints under a seqlock. A macro: the callers
 * include <net/net_namespace.h>, this file does not.
 */
#ifdef XNET_HAVE_LOCAL_PORTS_U32	/* 6.8 */
#define xnet_set_local_port_range(net, low, high)			\
	WRITE_ONCE((net)->ipv4.ip_local_ports.range,			\
		   (u32)(high) << 16 | (u16)(low))
#else
#define xnet_set_local_port_range(net, low, high)			\
	do {								\
		struct local_ports *__lp = &(net)->ipv4.ip_local_ports;	\
									\
		write_seqlock_bh(&__lp->lock);				\
		__lp->range[0] = (low);					\
		__lp->range[1] = (high);				\
		write_sequnlock_bh(&__lp->lock);			\
	} while (0)
#endif

/*
 * KUnit (the suites in kunit/): the spelling of 6.11, KUNIT_FAIL_AND_ABORT(),
 * for KUNIT_ASSERT_FAILURE() before. Expands only where used, after
 * <kunit/test.h>.
 */
#ifndef XNET_HAVE_KUNIT_FAIL_AND_ABORT	/* 6.11 */
#define KUNIT_FAIL_AND_ABORT(test, fmt, ...)				\
	KUNIT_ASSERT_FAILURE(test, fmt, ##__VA_ARGS__)
#endif

#endif /* XNET_COMPAT_H */
