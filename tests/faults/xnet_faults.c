// SPDX-License-Identifier: GPL-2.0
/*
 * xnet_faults: one deliberate bug of each class the debug kernel's checkers
 * must report, for `scripts/vmtest.sh --selftest --debug` (never loaded
 * otherwise). Writing a name to /sys/kernel/debug/xnet_faults/trigger runs
 * that bug once:
 *   kasan         a read of freed slab memory (KASAN: use-after-free)
 *   lockdep       two mutexes taken in both orders (circular dependency)
 *   atomic_sleep  might_sleep() under a spinlock (DEBUG_ATOMIC_SLEEP)
 *   rcu           rcu_dereference() outside a read-side section (PROVE_RCU)
 *   ubsan         a shift by more than the type's width (UBSAN)
 *   leak          a kmalloc() whose pointer is dropped (kmemleak)
 *   odebug        a timer freed while armed (DEBUG_OBJECTS_TIMERS)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

static struct dentry *xf_dir;
static DEFINE_MUTEX(xf_a);
static DEFINE_MUTEX(xf_b);
static DEFINE_SPINLOCK(xf_lock);
static int __rcu *xf_rcu_ptr;
static int xf_rcu_val;
static int xf_shift = 40;
static void *xf_sink;

static noinline void xf_kasan(void)
{
	char *p = kmalloc(32, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	xf_sink = (void *)(long)READ_ONCE(p[8]);	/* after the free */
}

static noinline void xf_lockdep(void)
{
	mutex_lock(&xf_a);
	mutex_lock(&xf_b);
	mutex_unlock(&xf_b);
	mutex_unlock(&xf_a);
	mutex_lock(&xf_b);
	mutex_lock(&xf_a);	/* b -> a after a -> b */
	mutex_unlock(&xf_a);
	mutex_unlock(&xf_b);
}

static noinline void xf_atomic_sleep(void)
{
	spin_lock(&xf_lock);
	might_sleep();
	spin_unlock(&xf_lock);
}

static noinline void xf_rcu(void)
{
	RCU_INIT_POINTER(xf_rcu_ptr, &xf_rcu_val);
	xf_sink = rcu_dereference(xf_rcu_ptr);	/* no rcu_read_lock() */
}

static noinline void xf_ubsan(void)
{
	int one = 1;

	xf_sink = (void *)(long)(one << READ_ONCE(xf_shift));
}

static noinline void xf_leak_alloc(void)
{
	void *p = kmalloc(96, GFP_KERNEL);

	if (p)
		memset(p, 0x5a, 96);	/* and forgotten */
}

/*
 * kmemleak scans task stacks: a copy of the pointer that the allocation
 * left below the stack pointer would keep the object "referenced" while
 * this task lives. A callee with a large zeroed frame overwrites that area.
 */
static noinline void xf_wipe_stack(void)
{
	char wipe[1024];

	memzero_explicit(wipe, sizeof(wipe));
}

static noinline void xf_leak(void)
{
	xf_leak_alloc();
	xf_wipe_stack();
}

static void xf_timer_fn(struct timer_list *t)
{
}

static noinline void xf_odebug(void)
{
	struct timer_list *t = kmalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return;
	timer_setup(t, xf_timer_fn, 0);
	mod_timer(t, jiffies + 3600 * HZ);
	kfree(t);	/* armed: debugobjects catches the free, fixes it up */
}

static const struct {
	const char *name;
	void (*fn)(void);
} xf_bugs[] = {
	{ "kasan", xf_kasan },
	{ "lockdep", xf_lockdep },
	{ "atomic_sleep", xf_atomic_sleep },
	{ "rcu", xf_rcu },
	{ "ubsan", xf_ubsan },
	{ "leak", xf_leak },
	{ "odebug", xf_odebug },
};

static ssize_t xf_trigger_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[32];
	size_t n = min(len, sizeof(buf) - 1);
	unsigned int i;

	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = '\0';
	strim(buf);
	for (i = 0; i < ARRAY_SIZE(xf_bugs); i++) {
		if (!strcmp(buf, xf_bugs[i].name)) {
			pr_info("triggering %s\n", buf);
			xf_bugs[i].fn();
			return len;
		}
	}
	pr_warn("unknown fault '%s'\n", buf);
	return -EINVAL;
}

static const struct file_operations xf_trigger_fops = {
	.owner = THIS_MODULE,
	.write = xf_trigger_write,
	.llseek = noop_llseek,
};

static int __init xf_init(void)
{
	xf_dir = debugfs_create_dir("xnet_faults", NULL);
	debugfs_create_file("trigger", 0200, xf_dir, NULL, &xf_trigger_fops);
	return 0;
}

static void __exit xf_exit(void)
{
	debugfs_remove_recursive(xf_dir);
}

module_init(xf_init);
module_exit(xf_exit);
MODULE_DESCRIPTION("Deliberate bugs for the vmtest debug-kernel selftest");
MODULE_LICENSE("GPL");
