// SPDX-License-Identifier: GPL-2.0
/*
 * The refill hook: an ftrace handler with IPMODIFY on sk_page_frag_refill().
 *
 * 6.1 has no hook in the socket send path, and sk_page_frag_refill() is
 * where TCP sendmsg and ip_append_data() get their page frags. At its
 * entry the handler looks at the request: when the frag still has room
 * (or its page can be reused in place) the kernel's own code runs as
 * always. When a new page is needed and the socket's route leads to a
 * device with a pool, the handler fills the frag from the pool exactly as
 * skb_page_frag_refill() would have (old page put, offset 0, size) and
 * resumes at ppf_refilled(), which returns true: the original body is
 * skipped. Pool empty or full: the kernel's path runs untouched.
 *
 * Why ftrace rather than a livepatch: the module can unhook itself, so a
 * plain rmmod works (a livepatch must be disabled through sysfs first and
 * its taint K stays); no transition, and a no-op for every call that does
 * not need a page. Limits: one IPMODIFY owner per function — a livepatch
 * or another IPMODIFY hook of sk_page_frag_refill() makes the load fail
 * with -EBUSY (and vice versa). unregister_ftrace_function() of a dynamic
 * ops waits (synchronize_rcu_tasks) until no task is in the handler or in
 * ppf_refilled(), neither of which sleeps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/preempt.h>
#include <net/dst.h>
#include <net/sock.h>

#include "pp_frag.h"

static unsigned long ppf_target;

/* Where a served refill resumes: sk_page_frag_refill() returns true. */
static noinline bool ppf_refilled(struct sock *sk, struct page_frag *pfrag)
{
	return true;
}

/* Serve @pfrag from the pool of @sk's egress device, if any. */
static bool ppf_try(struct sock *sk, struct page_frag *pfrag)
{
	struct page *old = pfrag->page;
	struct dst_entry *dst;
	struct ppf_pool *pool;
	bool served = false;

	/* skb_page_frag_refill()'s fast paths stay the kernel's. */
	if (old && (page_ref_count(old) == 1 || pfrag->offset + 32U <= pfrag->size))
		return false;
	if (in_hardirq() || in_nmi() || irqs_disabled())
		return false;
	rcu_read_lock();
	dst = __sk_dst_get(sk);
	if (dst && dst->dev) {
		pool = ppf_pool_of(dst->dev);
		if (pool)
			served = ppf_pool_refill(pool, pfrag);
	}
	rcu_read_unlock();
	return served;
}

static void notrace ppf_handler(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	if (regs && ppf_try((struct sock *)regs_get_kernel_argument(regs, 0),
			    (struct page_frag *)regs_get_kernel_argument(regs, 1)))
		instruction_pointer_set(regs, (unsigned long)ppf_refilled);
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops ppf_ops = {
	.func = ppf_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
		 FTRACE_OPS_FL_RECURSION,
};

int ppf_hook_init(void)
{
	int err;

	/* ftrace maps the function's address to its fentry call site. */
	ppf_target = (unsigned long)sk_page_frag_refill;
	err = ftrace_set_filter_ip(&ppf_ops, ppf_target, 0, 0);
	if (err) {
		pr_err("cannot filter sk_page_frag_refill(): %d\n", err);
		return err;
	}
	err = register_ftrace_function(&ppf_ops);
	if (err) {
		pr_err("cannot hook sk_page_frag_refill(): %d%s\n", err,
		       err == -EBUSY ? " (a livepatch or another IPMODIFY hook owns it)" : "");
		ftrace_set_filter_ip(&ppf_ops, ppf_target, 1, 0);
		return err;
	}
	return 0;
}

void ppf_hook_exit(void)
{
	unregister_ftrace_function(&ppf_ops);
	ftrace_set_filter_ip(&ppf_ops, ppf_target, 1, 0);
}
