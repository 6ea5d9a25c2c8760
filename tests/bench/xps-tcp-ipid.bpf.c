// SPDX-License-Identifier: GPL-2.0
/*
 * Reordering of forwarded TCP, told apart from retransmissions and located:
 * two tc classifiers (cls_bpf, not direct-action) used by
 * tests/bench/xps-tcp-guest.sh around the BQL test NIC.
 *
 * The test NIC's own wire counter (tests/testnic/wire.c) orders a TCP flow
 * by sequence number, so every retransmitted segment counts as reordered
 * too. The IP ID orders segments by when they were sent: Linux gives a
 * connected socket's segments consecutive IDs (inet_id += segs; GSO numbers
 * the segments id, id + 1, ...), a retransmission a new, higher one, and
 * forwarding leaves the ID alone. A TCP data segment (payload > 0, not a
 * fragment) whose ID is not after the highest ID seen for its flow was
 * overtaken by a segment sent after it.
 *
 * "egress", on tn0's egress hook (clsact: before the queue choice): counts
 * the segments that arrive at tn0 already overtaken (on the way from the
 * sender: the veth hands packets to the sending CPU's backlog, and when
 * the sender moves, the old CPU may still forward its backlog while the
 * new one starts), then renumbers the flow's IP IDs in the order the
 * segments reached tn0 (a per-flow counter, advanced by the skb's GSO
 * segment count: segmentation after the qdisc numbers the segments on;
 * the IP header checksum is updated, TCP's does not cover the ID).
 * "wire", on tn1's ingress: counts the segments overtaken between tn0's
 * egress hook and the far end of the wire, i.e. in tn0's queue choice,
 * qdiscs and rings: the reordering XPS (and xps_flow) are answerable for.
 *
 * A segment that "matches" returns -1 (the filter's default class) and the
 * filter's action counts it (tc -s filter show); every packet passes.
 * IDs are 16 bits, compared modulo 2^16 as a signed difference: right as
 * long as a segment is overtaken by fewer than 32768 others.
 * Built by scripts/bench-xps-tcp.sh (clang -target bpf), no libbpf headers.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <stddef.h>

#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define INLINE static inline __attribute__((always_inline))

struct flow {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
};

struct state {
	__u32 hi;	/* highest ID seen */
	__u32 next;	/* egress: the next ID it gives */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct flow);
	__type(value, struct state);
} ipid_state SEC(".maps");

static void *(*bpf_map_lookup_elem)(void *map, const void *key) =
	(void *)BPF_FUNC_map_lookup_elem;
static long (*bpf_map_update_elem)(void *map, const void *key,
				   const void *value, __u64 flags) =
	(void *)BPF_FUNC_map_update_elem;
static long (*bpf_skb_store_bytes)(struct __sk_buff *skb, __u32 offset,
				   const void *from, __u32 len, __u64 flags) =
	(void *)BPF_FUNC_skb_store_bytes;
static long (*bpf_l3_csum_replace)(struct __sk_buff *skb, __u32 offset,
				   __u64 from, __u64 to, __u64 size) =
	(void *)BPF_FUNC_l3_csum_replace;

/*
 * A TCP data segment over IPv4 in @skb: its flow in @k, its IP ID (host
 * order) in @id; else 0.
 */
INLINE int tcp_data(struct __sk_buff *skb, struct flow *k, __u32 *id)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct tcphdr *th;
	__u32 ihl;

	if ((void *)(eth + 1) > end || eth->h_proto != __builtin_bswap16(ETH_P_IP))
		return 0;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_TCP ||
	    (ip->frag_off & __builtin_bswap16(0x3fff)))
		return 0;
	ihl = ip->ihl * 4;
	if (ihl < sizeof(*ip))
		return 0;
	th = (void *)ip + ihl;
	if ((void *)(th + 1) > end)
		return 0;
	if (__builtin_bswap16(ip->tot_len) <= ihl + th->doff * 4)
		return 0;	/* no payload: a pure ACK, SYN or FIN */
	k->saddr = ip->saddr;
	k->daddr = ip->daddr;
	k->sport = th->source;
	k->dport = th->dest;
	*id = __builtin_bswap16(ip->id);
	return 1;
}

/* The flow's state, made with @id as its highest ID if it has none. */
INLINE struct state *state(struct flow *k, __u32 id, int *fresh)
{
	struct state *st = bpf_map_lookup_elem(&ipid_state, k);
	struct state n = { .hi = id, .next = 0 };

	*fresh = 0;
	if (st)
		return st;
	*fresh = 1;
	bpf_map_update_elem(&ipid_state, k, &n, BPF_ANY);
	return bpf_map_lookup_elem(&ipid_state, k);
}

/* -1 if @id was overtaken (not after st->hi), else 0 and st->hi = @id. */
INLINE int overtaken(struct state *st, __u32 id, int fresh)
{
	if (fresh)
		return 0;
	if ((__s16)(__u16)(id - st->hi) > 0) {
		st->hi = id;
		return 0;
	}
	return -1;
}

SEC("wire")
int ipid_wire(struct __sk_buff *skb)
{
	struct flow k = {};
	struct state *st;
	__u32 id;
	int fresh;

	if (!tcp_data(skb, &k, &id))
		return 0;
	st = state(&k, id, &fresh);
	if (!st)
		return 0;
	return overtaken(st, id, fresh);
}

SEC("egress")
int ipid_egress(struct __sk_buff *skb)
{
	struct flow k = {};
	struct state *st;
	__u32 id, segs;
	__u16 from, to;
	int fresh, ret;

	if (!tcp_data(skb, &k, &id))
		return 0;
	st = state(&k, id, &fresh);
	if (!st)
		return 0;
	ret = overtaken(st, id, fresh);
	segs = skb->gso_segs ? skb->gso_segs : 1;
	from = __builtin_bswap16(id);
	to = __builtin_bswap16(st->next);
	st->next += segs;
	bpf_l3_csum_replace(skb, ETH_HLEN + offsetof(struct iphdr, check), from, to, 2);
	bpf_skb_store_bytes(skb, ETH_HLEN + offsetof(struct iphdr, id), &to, 2, 0);
	return ret;
}

char _license[] SEC("license") = "GPL";
