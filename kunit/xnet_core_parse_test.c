// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite xnet_core_parse: the strict, bounded parser of module
 * parameters and sysfs input (include/xnet/parse.hpp) through abi.h
 * (xnet_parse_u32, xnet_parse_u32_list, xnet_err_str) and the test ABI.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>

#include <xnet/abi.h>
#include "xnet_core_test_abi.h"
#include "xnet_kunit_desc.h"

#define UNTOUCHED 0xdeadbeefu
#define NO_POS UINT_MAX		/* res.pos/len not checked (success) */

/* Escape @s[0..n) into @desc for a parameter description. */
static void desc_escape(char *desc, const char *prefix, const char *s,
			size_t n)
{
	xnet_kunit_desc_escape(desc, prefix, s, n, 8);
}

/* One value. */

struct u32_case {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	unsigned int min, max;
	int err;
	unsigned int value;	/* on success */
	unsigned int pos, tok;	/* offending token on error */
};

#define OK(s, v)		{ s, 0, 0, UINT_MAX, XNET_OK, v, NO_POS, NO_POS }
#define OK_IN(s, lo, hi, v)	{ s, 0, lo, hi, XNET_OK, v, NO_POS, NO_POS }
#define BAD(s, e, p, l)		{ s, 0, 0, UINT_MAX, e, 0, p, l }
#define BAD_IN(s, lo, hi, e, p, l) { s, 0, lo, hi, e, 0, p, l }

static const struct u32_case u32_cases[] = {
	OK("0", 0),
	OK("7", 7),
	OK("42", 42),
	OK("4294967295", 4294967295u),
	OK("007", 7),
	OK("0000000000000000000000000000000042", 42),
	OK("00000000000000000000004294967295", 4294967295u),
	OK("5\n", 5),
	OK("4294967295\n", 4294967295u),
	/* The length bounds the input, not a NUL. */
	{ "123", 2, 0, UINT_MAX, XNET_OK, 12, NO_POS, NO_POS },
	{ "1\0002", 3, 0, UINT_MAX, XNET_E_TRAILING, 0, 0, 3 },
	BAD("", XNET_E_EMPTY, 0, 0),
	BAD("\n", XNET_E_EMPTY, 0, 0),
	BAD("5\n\n", XNET_E_TRAILING, 0, 2),
	BAD("\n5", XNET_E_INVALID, 0, 2),
	BAD("+1", XNET_E_SIGN, 0, 2),
	BAD("-1", XNET_E_SIGN, 0, 2),
	BAD("-0", XNET_E_SIGN, 0, 2),
	BAD(" 1", XNET_E_INVALID, 0, 2),
	BAD("1 ", XNET_E_TRAILING, 0, 2),
	BAD("1\t", XNET_E_TRAILING, 0, 2),
	BAD("0x10", XNET_E_TRAILING, 0, 4),
	BAD("x10", XNET_E_INVALID, 0, 3),
	BAD("12abc", XNET_E_TRAILING, 0, 5),
	BAD("abc", XNET_E_INVALID, 0, 3),
	BAD("1e3", XNET_E_TRAILING, 0, 3),
	BAD("1.5", XNET_E_TRAILING, 0, 3),
	BAD("4294967296", XNET_E_OVERFLOW, 0, 10),
	BAD("4294967296\n", XNET_E_OVERFLOW, 0, 10),
	BAD("4294967300", XNET_E_OVERFLOW, 0, 10),
	BAD("9999999999", XNET_E_OVERFLOW, 0, 10),
	BAD("18446744073709551616", XNET_E_OVERFLOW, 0, 20),
	BAD("123456789012345678901234567890123456789012345678901234567890",
	    XNET_E_OVERFLOW, 0, 60),
	/* Overflow is found before the junk after it. */
	BAD("99999999999x", XNET_E_OVERFLOW, 0, 12),
	OK_IN("5", 5, 10, 5),
	OK_IN("10", 5, 10, 10),
	OK_IN("10\n", 10, 10, 10),
	BAD_IN("4", 5, 10, XNET_E_RANGE, 0, 1),
	BAD_IN("11", 5, 10, XNET_E_RANGE, 0, 2),
	BAD_IN("0", 1, UINT_MAX, XNET_E_RANGE, 0, 1),
	BAD_IN("4294967295", 0, 4294967294u, XNET_E_RANGE, 0, 10),
	BAD_IN("0000000011\n", 5, 10, XNET_E_RANGE, 0, 10),
};

static void u32_case_desc(const struct u32_case *c, char *desc)
{
	desc_escape(desc, "", c->in, c->len ? c->len : strlen(c->in));
	if (c->min != 0 || c->max != UINT_MAX) {
		size_t o = strlen(desc);

		scnprintf(desc + o, KUNIT_PARAM_DESC_SIZE - o, " in [%u, %u]",
			  c->min, c->max);
	}
}

KUNIT_ARRAY_PARAM(parse_u32, u32_cases, u32_case_desc);

static void xnet_core_parse_u32(struct kunit *test)
{
	const struct u32_case *c = test->param_value;
	size_t n = c->len ? c->len : strlen(c->in);
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	unsigned int out = UNTOUCHED;
	int err = xnet_parse_u32(c->in, n, c->min, c->max, &out, &res);

	KUNIT_EXPECT_EQ(test, err, c->err);
	KUNIT_EXPECT_EQ(test, res.err, c->err);
	if (c->err == XNET_OK) {
		KUNIT_EXPECT_EQ(test, out, c->value);
		KUNIT_EXPECT_EQ(test, res.len, 0U);
	} else {
		/* Nothing is written on error. */
		KUNIT_EXPECT_EQ(test, out, UNTOUCHED);
		KUNIT_EXPECT_EQ(test, res.pos, c->pos);
		KUNIT_EXPECT_EQ(test, res.len, c->tok);
		KUNIT_EXPECT_LE(test, res.pos + res.len, (unsigned int)n);
	}
}

static void xnet_core_parse_no_res(struct kunit *test)
{
	unsigned int out = UNTOUCHED;

	/* The result struct is optional. */
	KUNIT_EXPECT_EQ(test, xnet_parse_u32("17", 2, 0, 100, &out, NULL), XNET_OK);
	KUNIT_EXPECT_EQ(test, out, 17U);
	KUNIT_EXPECT_EQ(test, xnet_parse_u32("170", 3, 0, 100, &out, NULL),
			XNET_E_RANGE);
	KUNIT_EXPECT_EQ(test, out, 17U);
}

static void xnet_core_parse_too_long(struct kunit *test)
{
	unsigned long max_input = xnet_test_parse_max_input();
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	unsigned int out = UNTOUCHED;
	char *buf;

	KUNIT_ASSERT_EQ(test, max_input, 4096UL);
	buf = kunit_kmalloc(test, max_input + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* Exactly kMaxInput bytes: leading zeros, then the value. */
	memset(buf, '0', max_input + 2);
	buf[max_input - 1] = '7';
	KUNIT_EXPECT_EQ(test, xnet_parse_u32(buf, max_input, 0, UINT_MAX, &out,
					     &res), XNET_OK);
	KUNIT_EXPECT_EQ(test, out, 7U);

	/* One byte more is refused; the excess is the offending token. */
	out = UNTOUCHED;
	buf[max_input] = '7';
	KUNIT_EXPECT_EQ(test, xnet_parse_u32(buf, max_input + 1, 0, UINT_MAX,
					     &out, &res), XNET_E_TOO_LONG);
	KUNIT_EXPECT_EQ(test, res.err, XNET_E_TOO_LONG);
	KUNIT_EXPECT_EQ(test, res.pos, 4096U);
	KUNIT_EXPECT_EQ(test, res.len, 1U);
	KUNIT_EXPECT_EQ(test, out, UNTOUCHED);

	/* The trailing newline counts toward the limit. */
	buf[max_input] = '\n';
	KUNIT_EXPECT_EQ(test, xnet_parse_u32(buf, max_input + 1, 0, UINT_MAX,
					     &out, &res), XNET_E_TOO_LONG);
	KUNIT_EXPECT_EQ(test, out, UNTOUCHED);

	/* Far too long: still refused up front, whatever the content. */
	KUNIT_EXPECT_EQ(test, xnet_parse_u32(buf, 1UL << 20, 0, UINT_MAX, &out,
					     &res), XNET_E_TOO_LONG);
	KUNIT_EXPECT_EQ(test, res.pos, 4096U);
	KUNIT_EXPECT_EQ(test, res.len, (1U << 20) - 4096U);

	/* A page of non-zero digits overflows, reported as one token. */
	memset(buf, '9', max_input);
	KUNIT_EXPECT_EQ(test, xnet_parse_u32(buf, max_input, 0, UINT_MAX, &out,
					     &res), XNET_E_OVERFLOW);
	KUNIT_EXPECT_EQ(test, res.pos, 0U);
	KUNIT_EXPECT_EQ(test, res.len, 4096U);
	KUNIT_EXPECT_EQ(test, out, UNTOUCHED);
}

static void xnet_core_parse_u64(struct kunit *test)
{
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	unsigned long long out = 1;

	/* The same template at 64 bits: the bound moves with the type. */
	KUNIT_EXPECT_EQ(test, xnet_test_parse_u64("4294967296", 10, 0, ULLONG_MAX,
						  &out, &res), XNET_OK);
	KUNIT_EXPECT_EQ(test, out, 4294967296ULL);
	KUNIT_EXPECT_EQ(test, xnet_test_parse_u64("18446744073709551615\n", 21, 0,
						  ULLONG_MAX, &out, &res), XNET_OK);
	KUNIT_EXPECT_EQ(test, out, ULLONG_MAX);
	out = 1;
	KUNIT_EXPECT_EQ(test, xnet_test_parse_u64("18446744073709551616", 20, 0,
						  ULLONG_MAX, &out, &res),
			XNET_E_OVERFLOW);
	KUNIT_EXPECT_EQ(test, res.len, 20U);
	KUNIT_EXPECT_EQ(test, out, 1ULL);
}

static void xnet_core_parse_err_str(struct kunit *test)
{
	int e, known = 0;

	KUNIT_EXPECT_STREQ(test, xnet_err_str(XNET_OK), "ok");
	KUNIT_EXPECT_STREQ(test, xnet_err_str(XNET_E_RANGE), "out of range");
	KUNIT_EXPECT_STREQ(test, xnet_err_str(XNET_E_TOO_LONG), "input too long");
	KUNIT_EXPECT_STREQ(test, xnet_err_str(XNET_E_NOMEM), "out of memory");
	KUNIT_EXPECT_STREQ(test, xnet_err_str(-1), "unknown error");
	KUNIT_EXPECT_STREQ(test, xnet_err_str(1000), "unknown error");
	/*
	 * The errors are numbered densely from XNET_E_EMPTY (the list grows
	 * at its end), each with its own text.
	 */
	for (e = XNET_E_EMPTY; e < 1000; e++) {
		if (!strcmp(xnet_err_str(e), "unknown error"))
			break;
		KUNIT_EXPECT_STRNEQ(test, xnet_err_str(e), xnet_err_str(e - 1));
		known++;
	}
	KUNIT_EXPECT_GE(test, known, (int)XNET_E_NOMEM);
	for (; e < 1000; e++)
		KUNIT_EXPECT_STREQ_MSG(test, xnet_err_str(e), "unknown error",
				       "err %d", e);
}

/* Lists. */

#define LIST_MAX 4

struct list_case {
	const char *in;
	char sep;
	unsigned int cap;
	unsigned int max;
	int err;
	unsigned int count;		/* on success */
	unsigned int vals[LIST_MAX];	/* on success */
	unsigned int pos, tok;		/* on error */
};

#define LOK(s, n, ...) { s, ',', LIST_MAX, 1000, XNET_OK, n, { __VA_ARGS__ }, 0, 0 }
#define LBAD(s, e, p, l) { s, ',', LIST_MAX, 1000, e, 0, { 0 }, p, l }

static const struct list_case list_cases[] = {
	LOK("1,2,3", 3, 1, 2, 3),
	LOK("1,2,3\n", 3, 1, 2, 3),
	LOK("7", 1, 7),
	LOK("0,1000", 2, 0, 1000),
	LOK("007,08", 2, 7, 8),
	LOK("4,3,2,1", 4, 4, 3, 2, 1),
	LOK("", 0),
	LOK("\n", 0),
	LBAD("1,,2", XNET_E_EMPTY, 2, 0),
	LBAD(",1", XNET_E_EMPTY, 0, 0),
	LBAD("1,", XNET_E_EMPTY, 2, 0),
	LBAD("1,\n", XNET_E_EMPTY, 2, 0),
	LBAD(",", XNET_E_EMPTY, 0, 0),
	LBAD("1,2\n\n", XNET_E_TRAILING, 2, 2),
	LBAD("1,x,3", XNET_E_INVALID, 2, 1),
	LBAD("1,22x,3", XNET_E_TRAILING, 2, 3),
	LBAD("1,2000,3", XNET_E_RANGE, 2, 4),
	LBAD("1,+2", XNET_E_SIGN, 2, 2),
	LBAD("1,-2", XNET_E_SIGN, 2, 2),
	LBAD("1, 2", XNET_E_INVALID, 2, 2),
	LBAD("1 ,2", XNET_E_TRAILING, 0, 2),
	LBAD("1,99999999999", XNET_E_OVERFLOW, 2, 11),
	LBAD("10,20,30,4294967296", XNET_E_OVERFLOW, 9, 10),
	LBAD("1;2", XNET_E_TRAILING, 0, 3),
	/* Too many items: the first item that does not fit is named. */
	LBAD("1,2,3,4,5", XNET_E_TOO_MANY, 8, 1),
	LBAD("1,2,3,4,55,6", XNET_E_TOO_MANY, 8, 2),
	{ "1,2,3", ',', 3, 1000, XNET_OK, 3, { 1, 2, 3 }, 0, 0 },
	{ "1,2,3", ',', 2, 1000, XNET_E_TOO_MANY, 0, { 0 }, 4, 1 },
	{ "1", ',', 0, 1000, XNET_E_TOO_MANY, 0, { 0 }, 0, 1 },
	{ "", ',', 0, 1000, XNET_OK, 0, { 0 }, 0, 0 },
	/* The separator is the caller's. */
	{ "1:2:3", ':', LIST_MAX, 1000, XNET_OK, 3, { 1, 2, 3 }, 0, 0 },
	{ "1 2", ' ', LIST_MAX, 1000, XNET_OK, 2, { 1, 2 }, 0, 0 },
	{ "1,2", ':', LIST_MAX, 1000, XNET_E_TRAILING, 0, { 0 }, 0, 3 },
};

static void list_case_desc(const struct list_case *c, char *desc)
{
	size_t o;

	desc_escape(desc, "", c->in, strlen(c->in));
	o = strlen(desc);
	scnprintf(desc + o, KUNIT_PARAM_DESC_SIZE - o, " sep '%c' cap %u",
		  c->sep, c->cap);
}

KUNIT_ARRAY_PARAM(parse_list, list_cases, list_case_desc);

static void xnet_core_parse_list(struct kunit *test)
{
	const struct list_case *c = test->param_value;
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	unsigned int out[LIST_MAX + 1];
	unsigned int count = UNTOUCHED;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(out); i++)
		out[i] = UNTOUCHED;
	err = xnet_parse_u32_list(c->in, strlen(c->in), c->sep, 0, c->max,
				  out, c->cap, &count, &res);

	KUNIT_EXPECT_EQ(test, err, c->err);
	KUNIT_EXPECT_EQ(test, res.err, c->err);
	if (c->err == XNET_OK) {
		KUNIT_EXPECT_EQ(test, count, c->count);
		for (i = 0; i < c->count && i < LIST_MAX; i++)
			KUNIT_EXPECT_EQ_MSG(test, out[i], c->vals[i], "item %u", i);
		/* Nothing past the items (nor past cap) is written. */
		for (; i < ARRAY_SIZE(out); i++)
			KUNIT_EXPECT_EQ_MSG(test, out[i], UNTOUCHED, "slot %u", i);
	} else {
		KUNIT_EXPECT_EQ(test, res.pos, c->pos);
		KUNIT_EXPECT_EQ(test, res.len, c->tok);
		KUNIT_EXPECT_LE(test, res.pos + res.len,
				(unsigned int)strlen(c->in));
		/* Output untouched on error, even the items before the bad one. */
		KUNIT_EXPECT_EQ(test, count, UNTOUCHED);
		for (i = 0; i < ARRAY_SIZE(out); i++)
			KUNIT_EXPECT_EQ_MSG(test, out[i], UNTOUCHED, "slot %u", i);
	}
}

/* Build "0,1,2,...,n-1" into @buf; returns its length. */
static size_t make_list(char *buf, size_t size, unsigned int n)
{
	size_t o = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		o += scnprintf(buf + o, size - o, i ? ",%u" : "%u", i);
	return o;
}

static void xnet_core_parse_list_limits(struct kunit *test)
{
	unsigned long max_items = xnet_test_parse_max_items();
	struct xnet_parse_res res = { -1, UNTOUCHED, UNTOUCHED };
	unsigned int *out;
	unsigned int count = UNTOUCHED, i;
	char *buf;
	size_t n;

	KUNIT_ASSERT_EQ(test, max_items, 64UL);
	out = kunit_kmalloc_array(test, 2 * max_items, sizeof(*out), GFP_KERNEL);
	buf = kunit_kzalloc(test, 8192, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* kMaxItems items fit, even with a bigger cap. */
	n = make_list(buf, 8192, max_items);
	KUNIT_EXPECT_EQ(test, xnet_parse_u32_list(buf, n, ',', 0, 1000, out,
						  2 * max_items, &count, &res),
			XNET_OK);
	KUNIT_EXPECT_EQ(test, count, (unsigned int)max_items);
	for (i = 0; i < max_items; i++)
		KUNIT_EXPECT_EQ(test, out[i], i);

	/* One more does not: the cap is clamped to kMaxItems. */
	for (i = 0; i < 2 * max_items; i++)
		out[i] = UNTOUCHED;
	count = UNTOUCHED;
	n = make_list(buf, 8192, max_items + 1);
	KUNIT_EXPECT_EQ(test, xnet_parse_u32_list(buf, n, ',', 0, 1000, out,
						  2 * max_items, &count, &res),
			XNET_E_TOO_MANY);
	/* The offending token is the 65th item, "64", at the end. */
	KUNIT_EXPECT_EQ(test, res.pos, (unsigned int)(n - 2));
	KUNIT_EXPECT_EQ(test, res.len, 2U);
	KUNIT_EXPECT_EQ(test, count, UNTOUCHED);
	for (i = 0; i < 2 * max_items; i++)
		KUNIT_EXPECT_EQ(test, out[i], UNTOUCHED);

	/* Too long input for a list, too. */
	memset(buf, '1', 8192);
	for (i = 1; i < 4097; i += 2)
		buf[i] = ',';
	KUNIT_EXPECT_EQ(test, xnet_parse_u32_list(buf, 4097, ',', 0, 1000, out,
						  max_items, &count, &res),
			XNET_E_TOO_LONG);
	KUNIT_EXPECT_EQ(test, res.pos, 4096U);
	KUNIT_EXPECT_EQ(test, res.len, 1U);
	KUNIT_EXPECT_EQ(test, count, UNTOUCHED);
}

static struct kunit_case xnet_core_parse_cases[] = {
	KUNIT_CASE_PARAM(xnet_core_parse_u32, parse_u32_gen_params),
	KUNIT_CASE(xnet_core_parse_no_res),
	KUNIT_CASE(xnet_core_parse_too_long),
	KUNIT_CASE(xnet_core_parse_u64),
	KUNIT_CASE(xnet_core_parse_err_str),
	KUNIT_CASE_PARAM(xnet_core_parse_list, parse_list_gen_params),
	KUNIT_CASE(xnet_core_parse_list_limits),
	{}
};

static struct kunit_suite xnet_core_parse_suite = {
	.name = "xnet_core_parse",
	.test_cases = xnet_core_parse_cases,
};

kunit_test_suite(xnet_core_parse_suite);
