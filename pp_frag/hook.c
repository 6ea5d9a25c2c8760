// SPDX-License-Identifier: GPL-2.0
/*
 * The refill hook: an ftrace handler with IPMODIFY on sk_page_frag_refill().
 *
 * 6.1 has no hook in the socket send path, and sk_page_frag_refill() is
 * where TCP sendmsg and ip_append_data() get their page frags. At its
 * entry the handler looks at the request: when the frag still has room
 * (or its page can be reused in place) the kernel's own code runs as
 * always. When a new page is needed and the socket's route leads to a
 * device with a pool, the handler resumes the call at ppf_refill()
 * instead: the original body is skipped. ppf_refill() fills the frag from
 * the pool exactly as skb_page_frag_refill() would have (old page put,
 * offset 0, size); pool empty or full, it does what the skipped body does
 * (sk_page_frag_refill() of 6.1 and 6.12, line for line).
 *
 * The handler runs with preemption off (ftrace's recursion lock), where
 * PREEMPT_RT allows no spinlock_t and no allocation: it only decides.
 * ppf_refill() runs in the caller's context, like the body it replaces.
 * It may sleep on PREEMPT_RT (a contended spinlock_t), which RCU Tasks
 * counts as a quiescent state: ppf_hook_exit() therefore also waits until
 * no task is inside it (ppf_inside), then for RCU Tasks once more (a task
 * preempted between its last decrement and its return).
 *
 * Why ftrace rather than a livepatch: the module can unhook itself, so a
 * plain rmmod works (a livepatch must be disabled through sysfs first and
 * its taint K stays); no transition, and a no-op for every call that does
 * not need a page. Limits: one IPMODIFY owner per function — a livepatch
 * or another IPMODIFY hook of sk_page_frag_refill() makes the load fail
 * with -EBUSY (and vice versa).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/preempt.h>
#include <net/dst.h>
#include <net/sock.h>

#include "pp_frag.h"

#ifndef XNET_HAVE_RECURSION_NOPREEMPT
#error "the ftrace recursion lock leaves preemption on (< 5.16): Documentation/kernels.md"
#endif

static unsigned long ppf_target;
static atomic_t ppf_inside = ATOMIC_INIT(0);

/* The pool of @sk's egress device, if any. Caller holds rcu_read_lock(). */
static struct ppf_pool *ppf_sk_pool(struct sock *sk)
{
	struct dst_entry *dst = __sk_dst_get(sk);

	return dst && dst->dev ? ppf_pool_of(dst->dev) : NULL;
}

/*
 * Where a redirected sk_page_frag_refill() resumes, in its caller's
 * context: serve @pfrag from the pool, else do what the kernel would have.
 */
static noinline bool ppf_refill(struct sock *sk, struct page_frag *pfrag)
{
	struct ppf_pool *pool;
	bool served = false;

	atomic_inc(&ppf_inside);	/* before anything that may sleep */
	rcu_read_lock();
	pool = ppf_sk_pool(sk);
	if (pool)
		served = ppf_pool_refill(pool, pfrag);
	rcu_read_unlock();
	if (!served)
		served = skb_page_frag_refill(32U, pfrag, sk->sk_allocation);
	if (!served) {
		/* sk_enter_memory_pressure() is static in net/core/sock.c. */
		if (sk->sk_prot->enter_memory_pressure)
			sk->sk_prot->enter_memory_pressure(sk);
		sk_stream_moderate_sndbuf(sk);
	}
	atomic_dec(&ppf_inside);
	return served;
}

/* Should this call go to ppf_refill()? Preemption is off. */
static bool ppf_wants(struct sock *sk, struct page_frag *pfrag)
{
	struct page *old = pfrag->page;
	bool want;

	/* skb_page_frag_refill()'s fast paths stay the kernel's. */
	if (old && (page_ref_count(old) == 1 || pfrag->offset + 32U <= pfrag->size))
		return false;
	if (in_hardirq() || in_nmi() || irqs_disabled())
		return false;
	rcu_read_lock();
	want = ppf_sk_pool(sk);
	rcu_read_unlock();
	return want;
}

static void notrace ppf_handler(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	if (regs && ppf_wants((struct sock *)regs_get_kernel_argument(regs, 0),
			      (struct page_frag *)regs_get_kernel_argument(regs, 1)))
		instruction_pointer_set(regs, (unsigned long)ppf_refill);
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
	/*
	 * Waits (RCU Tasks) until no task is in the handler or on its way
	 * from it to ppf_refill(): no new entries after this.
	 */
	unregister_ftrace_function(&ppf_ops);
	ftrace_set_filter_ip(&ppf_ops, ppf_target, 1, 0);
	while (atomic_read(&ppf_inside))
		usleep_range(1000, 2000);
	synchronize_rcu_tasks();
}
