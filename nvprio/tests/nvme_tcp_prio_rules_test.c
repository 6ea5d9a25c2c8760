// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_tcp_prio_rules: the NVMe/TCP socket priority rules
 * (nvprio/rules.hpp) built with the kernel's flags, through their C ABI
 * (nvprio/rules.h) exactly as nvme_tcp_prio and nvmet_tcp_prio call it:
 * one case per ABI function, to show the kernel build of the core agrees,
 * and what needs the kernel: the allocations a parse asks kmalloc for
 * (the allocation log of xnet_core_rt_test.c) and a failing allocation.
 * The grammar, canonical text, limits and matcher, branch by branch, are
 * pure logic and tested in userspace only (nvprio/tests/rules_test.cpp,
 * rules_abi_test.cpp, inet_test.cpp; Documentation/testing.md).
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include <xnet/abi.h>
#include "../rules.h"
#include "xnet_core_test_alloc.h"

#define LOG (&xnet_test_alloc_log)
#define UNTOUCHED 0xdeadbeefu
/* What *out holds before a parse that must not write it. */
#define SENTINEL ((struct xnet_prio_rules *)0x5a5a5a5aUL)
#define PRIO_MAX_INPUT 4096

/*
 * Addresses as 8 16-bit words, IPv4 as ::ffff:a.b.c.d, turned into the 16
 * bytes (network byte order) that the ABI carries by endpoint().
 */
#define V4(a, b, c, d)	{ 0, 0, 0, 0, 0, 0xffff, (a) << 8 | (b), (c) << 8 | (d) }
#define V6(a, b, c, d, e, f, g, h)	{ a, b, c, d, e, f, g, h }

struct ep_words {
	unsigned short laddr[8], raddr[8];
	unsigned short lport, rport;
	unsigned int flags;
};

static void to_bytes(unsigned char *out, const unsigned short *w)
{
	unsigned int i;

	for (i = 0; i < 8; i++) {
		out[2 * i] = w[i] >> 8;
		out[2 * i + 1] = w[i] & 0xff;
	}
}

static struct xnet_prio_endpoint endpoint(const struct ep_words *e)
{
	struct xnet_prio_endpoint ep;

	memset(&ep, 0, sizeof(ep));
	to_bytes(ep.laddr, e->laddr);
	to_bytes(ep.raddr, e->raddr);
	ep.lport = e->lport;
	ep.rport = e->rport;
	ep.flags = e->flags;
	return ep;
}

/* 10.1.1.1:50000 -> 10.2.2.2:4420 */
static const struct ep_words ep_default = {
	V4(10, 1, 1, 1), V4(10, 2, 2, 2), 50000, 4420, 0,
};

/* Rule sets are freed when the test ends, also after a failed assertion. */
static int rules_res_init(struct kunit_resource *res, void *rules)
{
	res->data = rules;
	return 0;
}

static void rules_res_free(struct kunit_resource *res)
{
	xnet_prio_rules_free(res->data);
}

static void track(struct kunit *test, struct xnet_prio_rules *rules)
{
	void *res;

	if (!rules)
		return;
	res = kunit_alloc_resource(test, rules_res_init, rules_res_free,
				   GFP_KERNEL, rules);
	if (!res)
		xnet_prio_rules_free(rules);
	KUNIT_ASSERT_PTR_EQ(test, res, (void *)rules);
}

/* Parse @s[0..n), which must succeed; the result is tracked. */
static struct xnet_prio_rules *parse_n(struct kunit *test, const char *s,
				       size_t n)
{
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	struct xnet_prio_rules *rules = SENTINEL;
	int err = xnet_prio_rules_parse(s, n, &rules, &res);

	track(test, err == XNET_OK ? rules : NULL);
	KUNIT_ASSERT_EQ_MSG(test, err, XNET_OK, "%s at %u+%u", xnet_err_str(err),
			    res.pos, res.len);
	KUNIT_EXPECT_EQ(test, res.err, XNET_OK);
	KUNIT_EXPECT_EQ(test, res.pos, 0U);
	KUNIT_EXPECT_EQ(test, res.len, 0U);
	KUNIT_EXPECT_PTR_NE(test, rules, SENTINEL);
	return rules;
}

static struct xnet_prio_rules *parse(struct kunit *test, const char *s)
{
	return parse_n(test, s, strlen(s));
}

/* Canonical text of @rules into a test-managed buffer. */
static char *format(struct kunit *test, const struct xnet_prio_rules *rules)
{
	char *buf = kunit_kzalloc(test, 2 * PRIO_MAX_INPUT, GFP_KERNEL);
	unsigned long n;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	n = xnet_prio_rules_format(rules, buf, 2 * PRIO_MAX_INPUT);
	KUNIT_EXPECT_EQ(test, n, (unsigned long)strlen(buf));
	return buf;
}

/* xnet_prio_rules_parse(): a rule set and its canonical text; an error. */
static void nvme_tcp_prio_rules_parse(struct kunit *test)
{
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	struct xnet_prio_rules *rules = parse(test, "prio=3,raddr=10.0.0.0/8\n");

	KUNIT_EXPECT_STREQ(test, format(test, rules), "raddr=10.0.0.0/8,prio=3");

	/* The offending token is named, the output left as it was. */
	rules = SENTINEL;
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse("prio=1;raddr=10.0.0.0/33,prio=2",
						    31, &rules, &res), XNET_E_RANGE);
	KUNIT_EXPECT_EQ(test, res.err, XNET_E_RANGE);
	KUNIT_EXPECT_EQ(test, res.pos, 7U);
	KUNIT_EXPECT_EQ(test, res.len, 17U);
	KUNIT_EXPECT_PTR_EQ(test, rules, SENTINEL);
}

/* xnet_prio_rules_count(): the rules of a set; none in NULL (no rules). */
static void nvme_tcp_prio_rules_count(struct kunit *test)
{
	static const char text[] =
		"laddr=10.0.0.1,lport=4420,prio=5;raddr=fd00::/16,prio=2;prio=1";

	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(parse(test, text)), 3U);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(NULL), 0U);
}

/* xnet_prio_rules_match(): the first matching rule and its priority. */
static void nvme_tcp_prio_rules_match(struct kunit *test)
{
	struct xnet_prio_rules *rules =
		parse(test, "raddr=10.0.0.0/8,rport=4420,prio=3;raddr=fd00::/16,prio=6");
	struct xnet_prio_endpoint ep = endpoint(&ep_default);
	static const struct ep_words v6 = {
		V6(0xfd01, 0, 0, 0, 0, 0, 0, 9), V6(0xfd00, 0, 0, 0, 0, 0, 0, 5),
		40000, 4420, 0,
	};
	unsigned int prio = UNTOUCHED;

	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(rules, &ep, &prio), 0);
	KUNIT_EXPECT_EQ(test, prio, 3U);
	ep = endpoint(&v6);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(rules, &ep, &prio), 1);
	KUNIT_EXPECT_EQ(test, prio, 6U);
	/* No match: the priority untouched. */
	prio = UNTOUCHED;
	ep.rport = 4421;
	ep.raddr[0] = 0xfe;
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(rules, &ep, &prio), -1);
	KUNIT_EXPECT_EQ(test, prio, UNTOUCHED);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(NULL, &ep, &prio), -1);
}

/* xnet_prio_rules_format(): the full length, truncated and terminated. */
static void nvme_tcp_prio_rules_format(struct kunit *test)
{
	static const char text[] = "raddr=10.0.0.0/8,prio=5;prio=1";
	struct xnet_prio_rules *rules = parse(test, text);
	char small[10];

	KUNIT_EXPECT_STREQ(test, format(test, rules), text);
	memset(small, 'X', sizeof(small));
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_format(rules, small, sizeof(small)),
			(unsigned long)strlen(text));
	KUNIT_EXPECT_STREQ(test, small, "raddr=10.");
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_format(rules, NULL, 0),
			(unsigned long)strlen(text));
}

/*
 * Allocation: two GFP_KERNEL objects per parse; matching allocates none;
 * xnet_prio_rules_free() gives back what the parse returned.
 */
static void nvme_tcp_prio_rules_alloc(struct kunit *test)
{
	const struct xnet_prio_endpoint ep = endpoint(&ep_default);
	struct xnet_prio_rules *rules = SENTINEL;
	unsigned int prio = UNTOUCHED;
	char buf[32];

	/* Success: the scratch copy is freed, the result kept. */
	KUNIT_ASSERT_EQ(test, xnet_prio_rules_parse("rport=4420,prio=5", 17,
						    &rules, NULL), XNET_OK);
	track(test, rules);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->last_gfp, GFP_KERNEL | __GFP_NOWARN);
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);
	KUNIT_EXPECT_PTR_NE(test, LOG->last_freed, (const void *)rules);

	/* Matching, counting and formatting do not allocate (any context). */
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_match(rules, &ep, &prio), 0);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(rules), 1U);
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_format(rules, buf, sizeof(buf)),
			(unsigned long)strlen("rport=4420,prio=5"));
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 1UL);

	/* Empty and invalid input: both objects freed. */
	xnet_test_alloc_reset();
	rules = SENTINEL;
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse("\n", 1, &rules, NULL), XNET_OK);
	KUNIT_EXPECT_NULL(test, rules);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 2UL);
	KUNIT_EXPECT_NOT_NULL(test, LOG->last_freed);

	xnet_test_alloc_reset();
	rules = SENTINEL;
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_parse("prio=1;prio", 11, &rules, NULL),
			XNET_E_UNKNOWN_KEY);
	KUNIT_EXPECT_PTR_EQ(test, rules, SENTINEL);
	KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
	KUNIT_EXPECT_EQ(test, LOG->frees, 2UL);
	KUNIT_EXPECT_NOT_NULL(test, LOG->last_freed);

	/* free() gives back what parse() returned. */
	xnet_test_alloc_reset();
	rules = NULL;
	KUNIT_ASSERT_EQ(test, xnet_prio_rules_parse("prio=1", 6, &rules, NULL),
			XNET_OK);
	KUNIT_ASSERT_NOT_NULL(test, rules);
	xnet_prio_rules_free(rules);
	KUNIT_EXPECT_EQ(test, LOG->frees, 2UL);
	KUNIT_EXPECT_PTR_EQ(test, LOG->last_freed, (const void *)rules);
}

static void nvme_tcp_prio_rules_nomem(struct kunit *test)
{
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	struct xnet_prio_rules *rules = SENTINEL;
	unsigned int fail;

	for (fail = 1; fail <= 2; fail++) {
		xnet_test_alloc_reset();
		LOG->fail = fail;
		KUNIT_EXPECT_EQ_MSG(test, xnet_prio_rules_parse("prio=1", 6, &rules,
								&res),
				    XNET_E_NOMEM, "fail %u", fail);
		KUNIT_EXPECT_EQ(test, res.err, XNET_E_NOMEM);
		KUNIT_EXPECT_EQ(test, res.pos, 0U);
		KUNIT_EXPECT_EQ(test, res.len, 0U);
		KUNIT_EXPECT_PTR_EQ(test, rules, SENTINEL);
		KUNIT_EXPECT_EQ(test, LOG->allocs, 2UL);
		KUNIT_EXPECT_EQ(test, LOG->fail, 0U);
		if (fail == 1) {
			/*
			 * The one object that was allocated is freed (whether
			 * delete of the failed one reaches kfree(NULL) is the
			 * compiler's choice).
			 */
			KUNIT_EXPECT_NOT_NULL(test, LOG->last_ptr);
			KUNIT_EXPECT_TRUE(test, LOG->frees == 2 ||
					  (LOG->frees == 1 &&
					   LOG->last_freed == LOG->last_ptr));
		} else {
			KUNIT_EXPECT_NULL(test, LOG->last_freed);
		}
	}
	/* The allocator is back: parsing works again. */
	xnet_test_alloc_reset();
	KUNIT_EXPECT_EQ(test, xnet_prio_rules_count(parse(test, "prio=1")), 1U);
}

static int nvme_tcp_prio_rules_init(struct kunit *test)
{
	xnet_test_alloc_reset();
	return 0;
}

static void nvme_tcp_prio_rules_exit(struct kunit *test)
{
	xnet_test_alloc_reset();
}

static struct kunit_case nvme_tcp_prio_rules_cases[] = {
	KUNIT_CASE(nvme_tcp_prio_rules_parse),
	KUNIT_CASE(nvme_tcp_prio_rules_count),
	KUNIT_CASE(nvme_tcp_prio_rules_match),
	KUNIT_CASE(nvme_tcp_prio_rules_format),
	KUNIT_CASE(nvme_tcp_prio_rules_alloc),
	KUNIT_CASE(nvme_tcp_prio_rules_nomem),
	{}
};

static struct kunit_suite nvme_tcp_prio_rules_suite = {
	.name = "nvme_tcp_prio_rules",
	.init = nvme_tcp_prio_rules_init,
	.exit = nvme_tcp_prio_rules_exit,
	.test_cases = nvme_tcp_prio_rules_cases,
};

kunit_test_suite(nvme_tcp_prio_rules_suite);
