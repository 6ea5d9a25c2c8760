/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The socket-priority engine's trace events, fired where its counters
 * (tagged, reapplied, restored) count and where a rule matches
 * (prio_sock.c). Both NVMe modules compile the engine: each has its own
 * trace system, its module name (events/nvme_tcp_prio/,
 * events/nvmet_tcp_prio/), given by its Kbuild as
 * -DNVPRIO_TRACE_SYSTEM=<module>, and defines the events once, in its
 * trace.o (nvprio/trace.c). Fields and examples:
 * Documentation/nvme-tcp-prio.md, "Tracing".
 */
#ifndef NVPRIO_TRACE_SYSTEM
#error "NVPRIO_TRACE_SYSTEM (the module's name) is set by the module's Kbuild"
#endif

#undef TRACE_SYSTEM
#define TRACE_SYSTEM NVPRIO_TRACE_SYSTEM

#if !defined(_NVPRIO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NVPRIO_TRACE_H

#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/tracepoint.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "prio_sock.h"

#ifndef NVPRIO_TRACE_HELPERS
#define NVPRIO_TRACE_HELPERS
/*
 * @sk's local and remote addresses, as the sock and tcp events store
 * them: IPv4 ones in @s4/@d4 and v4-mapped in @s6/@d6, IPv6 ones in
 * @s6/@d6 only.
 */
static inline void nvprio_trace_addrs(const struct sock *sk, u8 *s4, u8 *d4,
				      u8 *s6, u8 *d6)
{
	memcpy(s4, &sk->sk_rcv_saddr, 4);
	memcpy(d4, &sk->sk_daddr, 4);
	if (sk->sk_family == AF_INET6) {
		memcpy(s6, &sk->sk_v6_rcv_saddr, 16);
		memcpy(d6, &sk->sk_v6_daddr, 16);
	} else {
		ipv6_addr_set_v4mapped(sk->sk_rcv_saddr, (struct in6_addr *)s6);
		ipv6_addr_set_v4mapped(sk->sk_daddr, (struct in6_addr *)d6);
	}
}
#endif

TRACE_DEFINE_ENUM(NVPRIO_HOST);
TRACE_DEFINE_ENUM(NVPRIO_LISTEN);
TRACE_DEFINE_ENUM(NVPRIO_ACCEPT);

/*
 * @sk: the socket (its address and the 4-tuple, stored as the sock and
 * tcp events store them: an IPv4 socket's addresses also as v4-mapped
 * IPv6 ones), @role: enum nvprio_role, @rule: the matching rule's index
 * (0-based, in the order written), -1 for so_priority, @old and @new: the
 * socket's priority before and after.
 */
DECLARE_EVENT_CLASS(nvprio_sock_prio,
		    TP_PROTO(const struct sock *sk, int role, int rule, u32 old,
			     u32 new),
		    TP_ARGS(sk, role, rule, old, new),
		    TP_STRUCT__entry(__field(const void *, skaddr)
				     __field(u16, family)
				     __field(u16, sport)
				     __field(u16, dport)
				     __field(u8, role)
				     __field(int, rule)
				     __field(u32, old)
				     __field(u32, new)
				     __array(u8, saddr, 4)
				     __array(u8, daddr, 4)
				     __array(u8, saddr_v6, 16)
				     __array(u8, daddr_v6, 16)),
		    TP_fast_assign(__entry->skaddr = sk;
				   __entry->family = sk->sk_family;
				   __entry->sport = sk->sk_num;
				   __entry->dport = ntohs(sk->sk_dport);
				   __entry->role = role;
				   __entry->rule = rule;
				   __entry->old = old;
				   __entry->new = new;
				   nvprio_trace_addrs(sk, __entry->saddr,
						      __entry->daddr,
						      __entry->saddr_v6,
						      __entry->daddr_v6);),
		    TP_printk("family=%s role=%s sport=%u dport=%u saddr=%pI4 daddr=%pI4 saddrv6=%pI6c daddrv6=%pI6c rule=%d old=%u new=%u skaddr=%p",
			      __print_symbolic(__entry->family,
					       { AF_INET, "AF_INET" },
					       { AF_INET6, "AF_INET6" }),
			      __print_symbolic(__entry->role,
					       { NVPRIO_HOST, "host" },
					       { NVPRIO_LISTEN, "listen" },
					       { NVPRIO_ACCEPT, "accept" }),
			      __entry->sport, __entry->dport, __entry->saddr,
			      __entry->daddr, __entry->saddr_v6,
			      __entry->daddr_v6, __entry->rule, __entry->old,
			      __entry->new, __entry->skaddr)
);

/* First set: @old is the priority kept to restore later. */
DEFINE_EVENT(nvprio_sock_prio, nvprio_tag,
	     TP_PROTO(const struct sock *sk, int role, int rule, u32 old,
		      u32 new),
	     TP_ARGS(sk, role, rule, old, new)
);

/* A parameter write changed what the socket gets. */
DEFINE_EVENT(nvprio_sock_prio, nvprio_reapply,
	     TP_PROTO(const struct sock *sk, int role, int rule, u32 old,
		      u32 new),
	     TP_ARGS(sk, role, rule, old, new)
);

/* Given back: the config wants none any more, or the module goes. */
DEFINE_EVENT(nvprio_sock_prio, nvprio_restore,
	     TP_PROTO(const struct sock *sk, int role, int rule, u32 old,
		      u32 new),
	     TP_ARGS(sk, role, rule, old, new)
);

/* Rule @rule matched the socket and wants @new (@old: its priority now). */
DEFINE_EVENT(nvprio_sock_prio, nvprio_rule_match,
	     TP_PROTO(const struct sock *sk, int role, int rule, u32 old,
		      u32 new),
	     TP_ARGS(sk, role, rule, old, new)
);

#endif /* _NVPRIO_TRACE_H */

/* This part must be outside the guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
