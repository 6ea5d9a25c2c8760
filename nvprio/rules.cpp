// SPDX-License-Identifier: GPL-2.0
/*
 * The priority rules behind their C ABI (rules.h): compiled into each NVMe
 * priority module as rules.o (engine.mk), and into the userspace tests.
 */
#include <xnet/abi_util.hpp>

#include "rules.h"
#include "rules.hpp"

struct xnet_prio_rules {
	xnet::prio::RuleSet set;
};

static_assert(sizeof(xnet_prio_endpoint::laddr) == sizeof(xnet::inet::Addr::b),
	      "endpoint address size");

extern "C" int xnet_prio_rules_parse(const char *s, unsigned long n,
				     struct xnet_prio_rules **out,
				     struct xnet_parse_res *res)
{
	auto *rules = new xnet_prio_rules;
	auto *scratch = new xnet_prio_rules;
	xnet::parse::Result r{ xnet::Err::NoMem, 0, 0 };

	if (rules && scratch)
		r = xnet::prio::parse_rules(s, n, &rules->set, &scratch->set);
	delete scratch;
	if (r.ok() && rules->set.count == 0) {
		delete rules;
		rules = nullptr;
	} else if (!r.ok()) {
		delete rules;
		return xnet::abi::report(r, res);
	}
	*out = rules;
	return xnet::abi::report(r, res);
}

extern "C" void xnet_prio_rules_free(struct xnet_prio_rules *rules)
{
	delete rules;
}

extern "C" unsigned int xnet_prio_rules_count(const struct xnet_prio_rules *rules)
{
	return rules ? rules->set.count : 0;
}

extern "C" int xnet_prio_rules_match(const struct xnet_prio_rules *rules,
				     const struct xnet_prio_endpoint *ep,
				     unsigned int *prio)
{
	if (!rules)
		return -1;

	int idx = rules->set.match(*ep);

	if (idx >= 0)
		*prio = rules->set.rules[idx].prio;
	return idx;
}

extern "C" unsigned long xnet_prio_rules_format(const struct xnet_prio_rules *rules,
						char *buf, unsigned long cap)
{
	if (!rules) {
		if (cap)
			buf[0] = '\0';
		return 0;
	}
	return xnet::prio::format_rules(rules->set, buf, cap);
}
