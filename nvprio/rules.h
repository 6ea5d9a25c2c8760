/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C ABI of the NVMe/TCP priority rules (rules.hpp), for
 * nvme_tcp_prio and nvmet_tcp_prio. Defined in rules.cpp.
 */
#ifndef NVPRIO_RULES_H
#define NVPRIO_RULES_H

#include <xnet/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

struct xnet_prio_rules;		/* opaque, immutable once parsed */

/*
 * A socket seen by the matcher: addresses as 16 bytes (IPv4 as
 * ::ffff:a.b.c.d, network byte order), ports in host byte order.
 * XNET_PRIO_EP_NO_REMOTE: a listener; rules with raddr/rport skip it.
 * The one definition: the C++ matcher takes it as xnet::prio::Endpoint.
 */
struct xnet_prio_endpoint {
	unsigned char laddr[16];
	unsigned char raddr[16];
	unsigned short lport;
	unsigned short rport;
	unsigned int flags;
};

#define XNET_PRIO_EP_NO_REMOTE	0x1

/*
 * Parse @s[0..n) (one trailing newline allowed). On success *out is a new
 * rule set (NULL for an empty one) and XNET_OK is returned; on error *out
 * is untouched and @res names the offending field. May sleep (GFP_KERNEL).
 */
int xnet_prio_rules_parse(const char *s, unsigned long n,
			  struct xnet_prio_rules **out,
			  struct xnet_parse_res *res);
void xnet_prio_rules_free(struct xnet_prio_rules *rules);
unsigned int xnet_prio_rules_count(const struct xnet_prio_rules *rules);

/*
 * Index of the first rule matching @ep and its priority in *prio, or -1
 * (*prio untouched). @rules may be NULL (no rules). Any context.
 */
int xnet_prio_rules_match(const struct xnet_prio_rules *rules,
			  const struct xnet_prio_endpoint *ep,
			  unsigned int *prio);

/* Canonical text into @buf (NUL-terminated); returns the full length. */
unsigned long xnet_prio_rules_format(const struct xnet_prio_rules *rules,
				     char *buf, unsigned long cap);

#ifdef __cplusplus
}
#endif

#endif /* NVPRIO_RULES_H */
