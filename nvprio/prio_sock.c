// SPDX-License-Identifier: GPL-2.0
/*
 * Socket-priority engine shared by nvme_tcp_prio and nvmet_tcp_prio: each
 * module compiles this file into its own prio_sock.o (nvprio/engine.mk).
 *
 * Mechanism (see Documentation/nvme-tcp-prio.md):
 * - The sock:inet_sock_set_state tracepoint sees every TCP state change.
 *   The module's classify() recognises the birth of an NVMe/TCP socket
 *   (host: CLOSE->SYN_SENT, before the SYN leaves; target: CLOSE->LISTEN
 *   and the accepted child's LISTEN->SYN_RECV). Such a socket is tracked
 *   (with a reference) until its ->CLOSE transition.
 * - At load, sockets that already exist are found by walking the TCP hash
 *   tables (global and per-netns) and recognised by their callbacks
 *   belonging to the driver module.
 * - The wanted priority of a socket is the first matching rule's, else
 *   so_priority; 0 means "leave untouched". It is applied at birth, on
 *   ESTABLISHED (when both ends are known) and to every tracked socket on
 *   a parameter write. sk_priority is written with WRITE_ONCE without the
 *   socket lock: it is one word read locklessly on transmit (later kernels
 *   made sock_set_priority() itself lockless for the same reason).
 * - The priority a socket had before we first set it is kept; unload (or
 *   a config that no longer wants a priority) restores it. A socket whose
 *   priority someone else changed after we set it is theirs from then on:
 *   never re-applied, never restored (no fighting over a value).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>
#include <net/inet_hashtables.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

#include "rules.h"

#ifdef XNET_HAVE_LHASH2_PORTADDR
#error "lhash2 links listeners by icsk_listen_portaddr_node (< 5.19): Documentation/kernels.md"
#endif

#include "prio_sock.h"
#include "trace.h"

/* Rules text longer than this is refused (the parser's own bound). */
#define NVPRIO_RULES_MAX	4096

/* The rules, immutable once published; replaced under RCU. */
struct nvprio_rules {
	struct xnet_prio_rules *set;	/* NULL: no rules */
	struct rcu_head rcu;
};

struct nvprio_sock {
	struct hlist_node node;
	struct hlist_node dead;		/* unload: sockets to put */
	struct rcu_head rcu;
	struct sock *sk;		/* holds a reference */
	enum nvprio_role role;
	bool ours;			/* sk_priority is the value we set */
	bool foreign;			/* someone else set it after us */
	u32 orig;			/* priority before we set it */
	u32 applied;			/* the value we set */
	int rule;			/* matching rule, -1: so_priority */
	u64 walked;			/* the last walk that handled it */
};

static const struct nvprio_ops *nvprio_ops;
static struct tracepoint *nvprio_tp;
static bool nvprio_live;		/* init done: writes re-apply */

/* Config: written under nvprio_cfg_mutex, read locklessly / under RCU. */
static DEFINE_MUTEX(nvprio_cfg_mutex);
static u32 nvprio_so_priority;
static struct nvprio_rules __rcu *nvprio_rules;

/*
 * Managed sockets: written under nvprio_lock, looked up under RCU. The
 * tracepoint probe runs with preemption off, where PREEMPT_RT allows no
 * spinlock_t and no allocation: the lock is a raw spinlock, and the probe
 * takes its entries from spares that a work item refills. The work also
 * rescans the socket tables when the probe found no spare (nvprio_missed),
 * and then keeps twice as many spares, up to NVPRIO_SPARES_MAX: a burst of
 * connects that outran the work costs a few walks of the tables, not one
 * per refill. 4096 buckets keep a lookup short at 10,000 sockets (32 KiB).
 */
static DEFINE_RAW_SPINLOCK(nvprio_lock);
static DEFINE_HASHTABLE(nvprio_socks, 12);
static unsigned int nvprio_count;

#define NVPRIO_SPARES		32
#define NVPRIO_SPARES_MAX	1024
static HLIST_HEAD(nvprio_spares);
static unsigned int nvprio_nspares;
static unsigned int nvprio_spares_want = NVPRIO_SPARES;
static bool nvprio_missed;
static void nvprio_refill_work(struct work_struct *work);
static DECLARE_WORK(nvprio_refill, nvprio_refill_work);

static atomic_long_t nvprio_tagged, nvprio_reapplied, nvprio_restored,
	nvprio_untracked, nvprio_foreign, nvprio_nomem, nvprio_rescans;

/*
 * The longest time a walk of the table held nvprio_lock (interrupts off),
 * and the most sockets it handled in one hold. Written under nvprio_lock.
 */
static u64 nvprio_walk_max_ns;
static unsigned int nvprio_walk_max_socks;

/* Caller holds nvprio_lock, taken at local_clock() @t0, for @n sockets. */
static void nvprio_walk_note(u64 t0, unsigned int n)
{
	u64 ns = local_clock() - t0;

	if (ns > nvprio_walk_max_ns)
		WRITE_ONCE(nvprio_walk_max_ns, ns);
	if (n > nvprio_walk_max_socks)
		WRITE_ONCE(nvprio_walk_max_socks, n);
}

static struct dentry *nvprio_debugfs;

/* ---- configuration (module parameters) -------------------------------- */

static void nvprio_rules_free_rcu(struct rcu_head *head)
{
	struct nvprio_rules *r = container_of(head, struct nvprio_rules, rcu);

	xnet_prio_rules_free(r->set);
	kfree(r);
}

static void nvprio_reapply_all(void);

/* Length of a parameter value for a message: no newline, at most 64. */
static int nvprio_msg_len(const char *val)
{
	return min_t(size_t, strcspn(val, "\n"), 64);
}

static int nvprio_set_so_priority(const char *val, const struct kernel_param *kp)
{
	struct xnet_parse_res res;
	unsigned int prio;

	if (xnet_parse_u32(val, strlen(val), 0, U32_MAX, &prio, &res) != XNET_OK) {
		pr_err("so_priority: '%.*s' refused: %s (want 0..4294967295)\n",
		       nvprio_msg_len(val), val, xnet_err_str(res.err));
		return -EINVAL;
	}
	mutex_lock(&nvprio_cfg_mutex);
	WRITE_ONCE(nvprio_so_priority, prio);
	if (nvprio_live)
		nvprio_reapply_all();
	mutex_unlock(&nvprio_cfg_mutex);
	return 0;
}

static int nvprio_get_so_priority(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(nvprio_so_priority));
}

static int nvprio_set_rules(const char *val, const struct kernel_param *kp)
{
	struct xnet_prio_rules *set = NULL;
	struct xnet_parse_res res = {};
	struct nvprio_rules *r, *old;
	size_t n = strlen(val);
	int err;

	err = xnet_prio_rules_parse(val, n, &set, &res);
	if (err == XNET_E_NOMEM)
		return -ENOMEM;
	if (err != XNET_OK) {
		/* res names the offending field (or rule) of the input */
		pr_err("rules: '%.*s' at offset %u refused: %s\n",
		       res.pos < n ? (int)min_t(unsigned int, res.len, 64) : 0,
		       res.pos < n ? val + res.pos : "", res.pos,
		       xnet_err_str(err));
		return -EINVAL;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		xnet_prio_rules_free(set);
		return -ENOMEM;
	}
	r->set = set;
	mutex_lock(&nvprio_cfg_mutex);
	old = rcu_replace_pointer(nvprio_rules, r,
				  lockdep_is_held(&nvprio_cfg_mutex));
	if (nvprio_live)
		nvprio_reapply_all();
	mutex_unlock(&nvprio_cfg_mutex);
	if (old)
		call_rcu(&old->rcu, nvprio_rules_free_rcu);
	return 0;
}

static int nvprio_get_rules(char *buf, const struct kernel_param *kp)
{
	struct nvprio_rules *r;
	unsigned long n;

	/* Formatting does not sleep: read under RCU. Leave room for "\n". */
	rcu_read_lock();
	r = rcu_dereference(nvprio_rules);
	n = xnet_prio_rules_format(r ? r->set : NULL, buf, PAGE_SIZE - 1);
	rcu_read_unlock();
	n = min_t(unsigned long, n, PAGE_SIZE - 2);
	buf[n++] = '\n';
	buf[n] = '\0';
	return n;
}

static const struct kernel_param_ops nvprio_so_priority_ops = {
	.set = nvprio_set_so_priority,
	.get = nvprio_get_so_priority,
};

/*
 * The rules parameter's .free: the module loader calls it when loading fails
 * after parameters were parsed, and when the module is freed after exit.
 */
static void nvprio_free_rules(void *arg)
{
	struct nvprio_rules *r;

	mutex_lock(&nvprio_cfg_mutex);
	r = rcu_replace_pointer(nvprio_rules, NULL,
				lockdep_is_held(&nvprio_cfg_mutex));
	mutex_unlock(&nvprio_cfg_mutex);
	if (r)
		call_rcu(&r->rcu, nvprio_rules_free_rcu);
	/* kfree_rcu() and call_rcu() callbacks must run before the text goes. */
	rcu_barrier();
}

static const struct kernel_param_ops nvprio_rules_ops = {
	.set = nvprio_set_rules,
	.get = nvprio_get_rules,
	.free = nvprio_free_rules,
};

module_param_cb(so_priority, &nvprio_so_priority_ops, NULL, 0644);
module_param_cb(rules, &nvprio_rules_ops, NULL, 0644);

/* ---- matching and applying ------------------------------------------- */

static void nvprio_addr(unsigned char out[16], const struct sock *sk, bool local)
{
	if (sk->sk_family == AF_INET6) {
		const struct in6_addr *a = local ? &sk->sk_v6_rcv_saddr : &sk->sk_v6_daddr;

		memcpy(out, a, 16);
	} else {
		__be32 a = local ? sk->sk_rcv_saddr : sk->sk_daddr;

		memset(out, 0, 10);
		out[10] = 0xff;
		out[11] = 0xff;
		memcpy(out + 12, &a, 4);
	}
}

/*
 * The priority the config wants for @e in *prio (0: leave untouched);
 * returns the matching rule or -1. Caller holds rcu_read_lock().
 */
static int nvprio_want(const struct nvprio_sock *e, u32 *prio)
{
	struct nvprio_rules *r = rcu_dereference(nvprio_rules);
	struct xnet_prio_endpoint ep = {};
	const struct sock *sk = e->sk;
	unsigned int p;
	int rule;

	*prio = READ_ONCE(nvprio_so_priority);
	if (!r || !r->set)
		return -1;
	nvprio_addr(ep.laddr, sk, true);
	nvprio_addr(ep.raddr, sk, false);
	ep.lport = sk->sk_num;
	ep.rport = ntohs(sk->sk_dport);
	if (e->role == NVPRIO_LISTEN)
		ep.flags = XNET_PRIO_EP_NO_REMOTE;
	rule = xnet_prio_rules_match(r->set, &ep, &p);
	if (rule >= 0)
		*prio = p;
	return rule;
}

/*
 * Has someone else set @e's priority (now @cur) after we did? Then it is
 * theirs, for good. Caller holds nvprio_lock.
 */
static bool nvprio_note_foreign(struct nvprio_sock *e, u32 cur)
{
	if (e->ours && cur != e->applied) {
		WRITE_ONCE(e->ours, false);
		e->foreign = true;
		atomic_long_inc(&nvprio_foreign);
	}
	return e->foreign;
}

/* Bring @e's socket to what the config wants. Caller holds nvprio_lock. */
static void nvprio_apply(struct nvprio_sock *e, bool reapply)
{
	struct sock *sk = e->sk;
	u32 cur = READ_ONCE(sk->sk_priority);
	u32 want;

	if (nvprio_note_foreign(e, cur))
		return;
	rcu_read_lock();
	WRITE_ONCE(e->rule, nvprio_want(e, &want));
	rcu_read_unlock();
	if (trace_nvprio_rule_match_enabled() && e->rule >= 0)
		trace_nvprio_rule_match(sk, e->role, e->rule, cur, want);
	if (!want) {
		if (e->ours) {
			WRITE_ONCE(sk->sk_priority, e->orig);
			atomic_long_inc(&nvprio_restored);
			trace_nvprio_restore(sk, e->role, e->rule, cur, e->orig);
			WRITE_ONCE(e->ours, false);
		}
		return;
	}
	if (!e->ours) {
		WRITE_ONCE(e->orig, cur);
		atomic_long_inc(&nvprio_tagged);
		trace_nvprio_tag(sk, e->role, e->rule, cur, want);
	} else if (reapply && cur != want) {
		atomic_long_inc(&nvprio_reapplied);
		trace_nvprio_reapply(sk, e->role, e->rule, cur, want);
	}
	if (cur != want)
		WRITE_ONCE(sk->sk_priority, want);
	e->applied = want;
	WRITE_ONCE(e->ours, true);
}

/* Caller holds rcu_read_lock() or nvprio_lock. */
static struct nvprio_sock *nvprio_find(const struct sock *sk)
{
	struct nvprio_sock *e;

	hash_for_each_possible_rcu(nvprio_socks, e, node, (unsigned long)sk,
				   lockdep_is_held(&nvprio_lock))
		if (e->sk == sk)
			return e;
	return NULL;
}

/* A spare entry, or NULL. Caller holds nvprio_lock. */
static struct nvprio_sock *nvprio_spare_get(void)
{
	struct nvprio_sock *e;

	if (hlist_empty(&nvprio_spares))
		return NULL;
	e = hlist_entry(nvprio_spares.first, struct nvprio_sock, node);
	hlist_del(&e->node);
	WRITE_ONCE(nvprio_nspares, nvprio_nspares - 1);
	return e;
}

/* Caller holds nvprio_lock. */
static void nvprio_spare_put(struct nvprio_sock *e)
{
	hlist_add_head(&e->node, &nvprio_spares);
	WRITE_ONCE(nvprio_nspares, nvprio_nspares + 1);
}

/*
 * Start managing @sk (takes a reference) with entry @fresh, or a spare if
 * @fresh is NULL; returns @fresh if it was not used. Caller holds
 * nvprio_lock. The tracepoint's caller holds a reference of its own; a
 * socket found in a hash table may be on its way out (the last reference
 * dropped, the socket not yet unhashed): @adopt takes the reference only
 * if one is left. No entry: counted, and the refill work rescans.
 */
static struct nvprio_sock *nvprio_track(struct sock *sk, enum nvprio_role role,
					bool adopt, struct nvprio_sock *fresh)
{
	struct nvprio_sock *e;

	if (nvprio_find(sk))
		return fresh;
	e = fresh ? fresh : nvprio_spare_get();
	if (!e) {
		atomic_long_inc(&nvprio_nomem);
		WRITE_ONCE(nvprio_missed, true);
		return NULL;
	}
	if (adopt && !refcount_inc_not_zero(&sk->sk_refcnt)) {
		if (e == fresh)
			return fresh;
		nvprio_spare_put(e);
		return NULL;
	}
	if (!adopt)
		sock_hold(sk);
	memset(e, 0, sizeof(*e));
	e->sk = sk;
	e->role = role;
	e->rule = -1;
	hash_add_rcu(nvprio_socks, &e->node, (unsigned long)sk);
	nvprio_count++;
	nvprio_apply(e, false);
	return NULL;
}

/* Low on spares, or a socket went untracked: let the work catch up. */
static void nvprio_kick(void)
{
	if (READ_ONCE(nvprio_nspares) < READ_ONCE(nvprio_spares_want) / 2 ||
	    READ_ONCE(nvprio_missed))
		queue_work(system_wq, &nvprio_refill);
}

/*
 * Stop managing @e; @restore puts the original priority back. Caller holds
 * nvprio_lock, then (unlocked) drops the socket reference and frees @e
 * with kfree_rcu().
 */
static void nvprio_untrack(struct nvprio_sock *e, bool restore)
{
	struct sock *sk = e->sk;

	if (restore && e->ours && READ_ONCE(sk->sk_priority) == e->applied) {
		WRITE_ONCE(sk->sk_priority, e->orig);
		atomic_long_inc(&nvprio_restored);
		trace_nvprio_restore(sk, e->role, e->rule, e->applied, e->orig);
	}
	hash_del_rcu(&e->node);
	nvprio_count--;
	atomic_long_inc(&nvprio_untracked);
}

/*
 * Call @fn on every managed socket, in batches: nvprio_lock is a raw
 * spinlock (the probe takes it with preemption off), so whatever runs
 * under it runs with interrupts off, on PREEMPT_RT too. A walk takes it
 * per bucket and for NVPRIO_WALK_BATCH sockets at most, and lets go in
 * between; each socket is handled once (its walk number), also when a
 * bucket takes several holds. A socket tracked meanwhile got the config
 * of the moment; one untracked meanwhile needs nothing. Process context:
 * walks run one at a time (nvprio_walk_mutex).
 */
#define NVPRIO_WALK_BATCH	32

static DEFINE_MUTEX(nvprio_walk_mutex);
static u64 nvprio_walk_gen;		/* under nvprio_walk_mutex */

static void nvprio_walk(void (*fn)(struct nvprio_sock *e, void *arg),
			void *arg)
{
	struct nvprio_sock *e;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int bkt, n;
	bool more;
	u64 gen, t0;

	might_sleep();
	mutex_lock(&nvprio_walk_mutex);
	gen = ++nvprio_walk_gen;
	for (bkt = 0; bkt < HASH_SIZE(nvprio_socks); bkt++) {
		if ((bkt & 63) == 63)
			cond_resched();
		/* A socket added meanwhile needs no walk (see above). */
		if (hlist_empty(&nvprio_socks[bkt]))
			continue;
		do {
			n = 0;
			more = false;
			raw_spin_lock_irqsave(&nvprio_lock, flags);
			t0 = local_clock();
			hlist_for_each_entry_safe(e, tmp, &nvprio_socks[bkt], node) {
				if (e->walked == gen)
					continue;
				if (n == NVPRIO_WALK_BATCH) {
					more = true;
					break;
				}
				e->walked = gen;
				fn(e, arg);
				n++;
			}
			if (n)
				nvprio_walk_note(t0, n);
			raw_spin_unlock_irqrestore(&nvprio_lock, flags);
		} while (more);
	}
	mutex_unlock(&nvprio_walk_mutex);
}

static void nvprio_reapply_one(struct nvprio_sock *e, void *arg)
{
	nvprio_apply(e, true);
}

static void nvprio_reapply_all(void)
{
	nvprio_walk(nvprio_reapply_one, NULL);
}

/* ---- the tracepoint ------------------------------------------------------ */

static void nvprio_probe(void *data, const struct sock *csk, const int oldstate,
			 const int newstate)
{
	struct sock *sk = (struct sock *)csk;	/* the tracepoint is const */
	struct nvprio_sock *dead = NULL;
	enum nvprio_role role;
	struct nvprio_sock *e;
	unsigned long flags;

	if (sk->sk_protocol != IPPROTO_TCP ||
	    (sk->sk_family != AF_INET && sk->sk_family != AF_INET6))
		return;

	rcu_read_lock();
	e = nvprio_find(sk);
	rcu_read_unlock();
	if (e || newstate == TCP_CLOSE) {
		if (!e)
			return;
		raw_spin_lock_irqsave(&nvprio_lock, flags);
		e = nvprio_find(sk);
		if (e && newstate == TCP_CLOSE) {
			/* Dying: nothing to restore, the socket goes away. */
			nvprio_untrack(e, false);
			dead = e;
		} else if (e && newstate == TCP_ESTABLISHED) {
			/* Both ends are known now: match again. */
			nvprio_apply(e, false);
		}
		raw_spin_unlock_irqrestore(&nvprio_lock, flags);
		if (dead) {
			sock_put(sk);	/* the caller holds its own reference */
			kfree_rcu(dead, rcu);
		}
		return;
	}

	role = nvprio_ops->classify(sk, oldstate, newstate);
	if (role == NVPRIO_NONE)
		return;
	raw_spin_lock_irqsave(&nvprio_lock, flags);
	nvprio_track(sk, role, false, NULL);
	raw_spin_unlock_irqrestore(&nvprio_lock, flags);
	nvprio_kick();
}

static void nvprio_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "inet_sock_set_state"))
		*(struct tracepoint **)priv = tp;
}

/* ---- sockets that exist before we load -------------------------------- */

bool nvprio_fn_owned_by(const void *fn, const char *owner)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n, o = strlen(owner);

	if (!fn)
		return false;
	/* "function [module]" for a module's text. */
	sprint_symbol_no_offset(sym, (unsigned long)fn);
	n = strlen(sym);
	return n > o + 3 && sym[n - 1] == ']' && sym[n - o - 2] == '[' &&
	       sym[n - o - 3] == ' ' && !strncmp(sym + n - o - 1, owner, o);
}

/*
 * What nvprio_fn_owned_by() said of the socket callbacks seen in one scan:
 * a scan meets few distinct callbacks (the stack's defaults, the driver's)
 * across every socket of the machine, and the kallsyms lookup behind each
 * answer costs far more than the rest of a socket's check.
 */
struct nvprio_fn_cache {
	const void *fn[8];
	bool owned[8];
	unsigned int n;
};

static bool nvprio_fn_cached(struct nvprio_fn_cache *c, const void *fn)
{
	unsigned int i;
	bool owned;

	for (i = 0; i < c->n; i++)
		if (c->fn[i] == fn)
			return c->owned[i];
	owned = nvprio_fn_owned_by(fn, nvprio_ops->owner);
	if (c->n < ARRAY_SIZE(c->fn)) {
		c->fn[c->n] = fn;
		c->owned[c->n++] = owned;
	}
	return owned;
}

static void nvprio_adopt(struct sock *sk, struct nvprio_fn_cache *c)
{
	struct nvprio_sock *fresh;
	enum nvprio_role role;
	unsigned long flags;
	bool known;

	if (sk->sk_state == TCP_TIME_WAIT || sk->sk_state == TCP_NEW_SYN_RECV ||
	    sk->sk_state == TCP_CLOSE)
		return;
	rcu_read_lock();
	known = nvprio_find(sk);
	rcu_read_unlock();
	if (known)
		return;
	/*
	 * The driver's callbacks mark its sockets, but a host queue's socket
	 * gets them only after connect and the ICReq/ICResp exchange: until
	 * then the driver may recognise it by how it was set up.
	 */
	if (!(nvprio_ops->looks_ours && nvprio_ops->looks_ours(sk)) &&
	    !nvprio_fn_cached(c, READ_ONCE(sk->sk_data_ready)))
		return;
	role = nvprio_ops->classify_existing(sk);
	if (role == NVPRIO_NONE)
		return;
	/* Under a bucket's spinlock_t: atomic, but not raw (PREEMPT_RT). */
	fresh = kmalloc(sizeof(*fresh), GFP_ATOMIC | __GFP_NOWARN);
	raw_spin_lock_irqsave(&nvprio_lock, flags);
	fresh = nvprio_track(sk, role, true, fresh);
	raw_spin_unlock_irqrestore(&nvprio_lock, flags);
	kfree(fresh);
}

static void nvprio_scan_hashinfo(struct inet_hashinfo *h,
				 struct nvprio_fn_cache *c)
{
	struct hlist_nulls_node *node;
	struct sock *sk;
	unsigned int i;

	for (i = 0; i <= h->lhash2_mask; i++) {
		struct inet_listen_hashbucket *ilb = &h->lhash2[i];

		spin_lock_bh(&ilb->lock);
		sk_nulls_for_each(sk, node, &ilb->nulls_head)
			nvprio_adopt(sk, c);
		spin_unlock_bh(&ilb->lock);
	}
	for (i = 0; i <= h->ehash_mask; i++) {
		struct inet_ehash_bucket *head = &h->ehash[i];

		if (hlist_nulls_empty(&head->chain))
			continue;
		spin_lock_bh(inet_ehash_lockp(h, i));
		sk_nulls_for_each(sk, node, &head->chain)
			nvprio_adopt(sk, c);
		spin_unlock_bh(inet_ehash_lockp(h, i));
		cond_resched();
	}
}

static void nvprio_scan_existing(void)
{
	/* The global table (tcp_hashinfo, not exported since 6.2). */
	struct inet_hashinfo *global = init_net.ipv4.tcp_death_row.hashinfo;
	struct nvprio_fn_cache cache = {};
	struct net *net;

	WRITE_ONCE(nvprio_missed, false);
	nvprio_scan_hashinfo(global, &cache);
	/* Namespaces with their own established table (tcp_child_ehash_entries). */
	down_read(&net_rwsem);
	for_each_net(net) {
		struct inet_hashinfo *h = net->ipv4.tcp_death_row.hashinfo;

		if (h && h != global && h->pernet)
			nvprio_scan_hashinfo(h, &cache);
	}
	up_read(&net_rwsem);
}

/* Top the spares up: -ENOMEM if they are still short. */
static int nvprio_spares_fill(void)
{
	struct nvprio_sock *e;
	unsigned long flags;

	while (READ_ONCE(nvprio_nspares) < READ_ONCE(nvprio_spares_want)) {
		e = kmalloc(sizeof(*e), GFP_KERNEL);
		if (!e)
			return -ENOMEM;
		raw_spin_lock_irqsave(&nvprio_lock, flags);
		nvprio_spare_put(e);
		raw_spin_unlock_irqrestore(&nvprio_lock, flags);
	}
	return 0;
}

/* Refill; rescan if the probe had to let a socket go, and keep more. */
static void nvprio_refill_work(struct work_struct *work)
{
	if (READ_ONCE(nvprio_missed)) {
		WRITE_ONCE(nvprio_spares_want,
			   min_t(unsigned int, 2 * nvprio_spares_want,
				 NVPRIO_SPARES_MAX));
		nvprio_spares_fill();
		atomic_long_inc(&nvprio_rescans);
		nvprio_scan_existing();
	}
	nvprio_spares_fill();
}

static void nvprio_spares_free(void)
{
	struct nvprio_sock *e;
	struct hlist_node *tmp;

	hlist_for_each_entry_safe(e, tmp, &nvprio_spares, node)
		kfree(e);
	INIT_HLIST_HEAD(&nvprio_spares);
	nvprio_nspares = 0;
}

/* ---- debugfs ------------------------------------------------------------- */

static const char *const nvprio_role_name[] = {
	[NVPRIO_NONE] = "none",
	[NVPRIO_HOST] = "host",
	[NVPRIO_LISTEN] = "listen",
	[NVPRIO_ACCEPT] = "accept",
};

static void nvprio_show_addr(struct seq_file *m, const struct sock *sk, bool local)
{
	struct sockaddr_storage ss = {};

	if (sk->sk_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = local ? sk->sk_v6_rcv_saddr : sk->sk_v6_daddr;
		s6->sin6_port = local ? htons(sk->sk_num) : sk->sk_dport;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = local ? sk->sk_rcv_saddr : sk->sk_daddr;
		s4->sin_port = local ? htons(sk->sk_num) : sk->sk_dport;
	}
	seq_printf(m, " %pISpc", &ss);
}

static void nvprio_note_one(struct nvprio_sock *e, void *arg)
{
	nvprio_note_foreign(e, READ_ONCE(e->sk->sk_priority));
}

/* Foreign sockets are noticed lazily: look at all of them now. */
static void nvprio_note_all_foreign(void)
{
	nvprio_walk(nvprio_note_one, NULL);
}

/*
 * Printed under RCU, not nvprio_lock: the lock is raw, and printing
 * hundreds of sockets with interrupts off would cost a PREEMPT_RT system
 * its latency. A socket untracked meanwhile is still a socket
 * (SLAB_TYPESAFE_BY_RCU).
 */
static int nvprio_sockets_show(struct seq_file *m, void *v)
{
	struct nvprio_sock *e;
	int bkt, rule;
	u32 prio;

	nvprio_note_all_foreign();
	seq_puts(m, "# role local remote prio orig rule\n");
	rcu_read_lock();
	hash_for_each_rcu(nvprio_socks, bkt, e, node) {
		const struct sock *sk = e->sk;

		seq_puts(m, nvprio_role_name[e->role]);
		nvprio_show_addr(m, sk, true);
		if (e->role == NVPRIO_LISTEN)
			seq_puts(m, " *");
		else
			nvprio_show_addr(m, sk, false);
		prio = READ_ONCE(sk->sk_priority);
		seq_printf(m, " %u", prio);
		if (READ_ONCE(e->ours))
			seq_printf(m, " %u", READ_ONCE(e->orig));
		else
			seq_puts(m, " -");
		rule = READ_ONCE(e->rule);
		if (rule >= 0)
			seq_printf(m, " %d\n", rule);
		else
			seq_puts(m, " -\n");
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvprio_sockets);

/*
 * The counters, one "name value" line each, in debugfs (stats) and in
 * /sys/module/<module>/stats (for monitoring, which should not need
 * debugfs).
 */
struct nvprio_stat {
	const char *name;
	u64 val;
};

#define NVPRIO_NR_STATS	10

static void nvprio_stats_snap(struct nvprio_stat *st)
{
	nvprio_note_all_foreign();
	{
		const struct nvprio_stat now[] = {
			{ "tracked", READ_ONCE(nvprio_count) },
			{ "tagged", atomic_long_read(&nvprio_tagged) },
			{ "reapplied", atomic_long_read(&nvprio_reapplied) },
			{ "restored", atomic_long_read(&nvprio_restored) },
			{ "untracked", atomic_long_read(&nvprio_untracked) },
			{ "foreign", atomic_long_read(&nvprio_foreign) },
			{ "nomem", atomic_long_read(&nvprio_nomem) },
			{ "rescans", atomic_long_read(&nvprio_rescans) },
			{ "walk_max_ns", READ_ONCE(nvprio_walk_max_ns) },
			{ "walk_max_socks", READ_ONCE(nvprio_walk_max_socks) },
		};

		BUILD_BUG_ON(ARRAY_SIZE(now) != NVPRIO_NR_STATS);
		memcpy(st, now, sizeof(now));
	}
}

static int nvprio_stats_show(struct seq_file *m, void *v)
{
	struct nvprio_stat st[NVPRIO_NR_STATS];
	unsigned int i;

	nvprio_stats_snap(st);
	for (i = 0; i < NVPRIO_NR_STATS; i++)
		seq_printf(m, "%s %llu\n", st[i].name, st[i].val);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvprio_stats);

/*
 * /sys/module/<module>/stats: the same lines. Root only: reading walks
 * every managed socket for foreign priorities, as debugfs does, under the
 * walk mutex a rules write also takes.
 */
static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct nvprio_stat st[NVPRIO_NR_STATS];
	unsigned int i;
	int len = 0;

	nvprio_stats_snap(st);
	for (i = 0; i < NVPRIO_NR_STATS; i++)
		len += sysfs_emit_at(buf, len, "%s %llu\n", st[i].name, st[i].val);
	return len;
}

static struct kobj_attribute nvprio_stats_attr = __ATTR_RO_MODE(stats, 0400);

/* The module's own directory; none when built in (KUnit). */
static struct kobject *nvprio_module_kobj(void)
{
#ifdef MODULE
	return &THIS_MODULE->mkobj.kobj;
#else
	return NULL;
#endif
}

/* ---- init / exit --------------------------------------------------------- */

int nvprio_init(const struct nvprio_ops *ops)
{
	int ret;

	nvprio_ops = ops;
	for_each_kernel_tracepoint(nvprio_find_tp, &nvprio_tp);
	if (!nvprio_tp) {
		pr_err("tracepoint sock:inet_sock_set_state not found\n");
		return -ENOENT;
	}
	nvprio_spares_want = NVPRIO_SPARES;
	nvprio_walk_max_ns = 0;
	nvprio_walk_max_socks = 0;
	if (nvprio_module_kobj()) {
		ret = sysfs_create_file(nvprio_module_kobj(), &nvprio_stats_attr.attr);
		if (ret) {
			pr_err("cannot create /sys/module/%s/stats: %d\n",
			       KBUILD_MODNAME, ret);
			return ret;
		}
	}
	ret = nvprio_spares_fill();
	if (ret)
		goto err_spares;
	ret = tracepoint_probe_register(nvprio_tp, nvprio_probe, NULL);
	if (ret) {
		pr_err("cannot attach to sock:inet_sock_set_state: %d\n", ret);
		goto err_spares;
	}
	/* From now on a parameter write re-applies to what is tracked. */
	mutex_lock(&nvprio_cfg_mutex);
	nvprio_live = true;
	mutex_unlock(&nvprio_cfg_mutex);
	/* After the probe: a socket born meanwhile is seen by one or both. */
	nvprio_scan_existing();

	nvprio_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("sockets", 0444, nvprio_debugfs, NULL,
			    &nvprio_sockets_fops);
	debugfs_create_file("stats", 0444, nvprio_debugfs, NULL,
			    &nvprio_stats_fops);
	return 0;

err_spares:
	nvprio_spares_free();
	if (nvprio_module_kobj())
		sysfs_remove_file(nvprio_module_kobj(), &nvprio_stats_attr.attr);
	return ret;
}

/* Unload: give @e's socket back its priority; @arg collects the entry. */
static void nvprio_release_one(struct nvprio_sock *e, void *arg)
{
	nvprio_untrack(e, true);
	hlist_add_head(&e->dead, arg);
}

void nvprio_exit(void)
{
	struct nvprio_sock *e;
	struct hlist_node *tmp;
	HLIST_HEAD(dead);

	debugfs_remove_recursive(nvprio_debugfs);
	if (nvprio_module_kobj())
		sysfs_remove_file(nvprio_module_kobj(), &nvprio_stats_attr.attr);

	mutex_lock(&nvprio_cfg_mutex);
	nvprio_live = false;
	mutex_unlock(&nvprio_cfg_mutex);

	tracepoint_probe_unregister(nvprio_tp, nvprio_probe, NULL);
	tracepoint_synchronize_unregister();
	/* Its rescan may still track sockets: they are restored below. */
	cancel_work_sync(&nvprio_refill);

	/* Restore every socket; drop the references unlocked. */
	nvprio_walk(nvprio_release_one, &dead);
	hlist_for_each_entry_safe(e, tmp, &dead, dead) {
		sock_put(e->sk);
		kfree_rcu(e, rcu);
	}
	nvprio_spares_free();
	/* No kfree_rcu() callback may run after the module text is gone. */
	rcu_barrier();
	/* The rules go with the parameter (nvprio_free_rules). */
}
