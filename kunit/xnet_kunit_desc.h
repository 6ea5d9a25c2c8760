/* SPDX-License-Identifier: GPL-2.0 */
/* Parameter descriptions for the table-driven KUnit suites. */
#ifndef XNET_KUNIT_DESC_H
#define XNET_KUNIT_DESC_H

#include <kunit/test.h>
#include <linux/kernel.h>

/*
 * @prefix, then @s[0..n) in double quotes into @desc, with newline, CR and
 * NUL escaped and an ellipsis when it does not fit; @room is kept free for
 * what the caller appends.
 */
static inline void xnet_kunit_desc_escape(char *desc, const char *prefix,
					  const char *s, size_t n, size_t room)
{
	size_t o = 0, i;

	o += scnprintf(desc + o, KUNIT_PARAM_DESC_SIZE - o, "%s\"", prefix);
	for (i = 0; i < n && o < KUNIT_PARAM_DESC_SIZE - room; i++) {
		if (s[i] == '\n')
			o += scnprintf(desc + o, KUNIT_PARAM_DESC_SIZE - o, "\\n");
		else if (s[i] == '\r')
			o += scnprintf(desc + o, KUNIT_PARAM_DESC_SIZE - o, "\\r");
		else if (s[i] == '\0')
			o += scnprintf(desc + o, KUNIT_PARAM_DESC_SIZE - o, "\\0");
		else
			desc[o++] = s[i];
	}
	desc[o] = '\0';
	scnprintf(desc + o, KUNIT_PARAM_DESC_SIZE - o, "\"%s",
		  i < n ? "..." : "");
}

#endif /* XNET_KUNIT_DESC_H */
