/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A module parameter naming net devices, each with a value: pp_frag's and
 * xps_flow's devices=name[:N],... Parsed by the core
 * (xnet_parse_named_list(), the grammar in include/xnet/parse.hpp): the
 * whitespace around the value ignored, names as dev_valid_name() wants
 * them (or "*" with XNET_NAMED_STAR), each once, N in the spec's range.
 * A value that does not parse is refused with -EINVAL and one error line
 * naming the whole value, the offending item and why, and the expected
 * form; nothing changes then. Read back as written, without the
 * whitespace around it. The module's part:
 *
 *	static struct xnet_named_param foo_devices = { ... };
 *	static const struct kernel_param_ops foo_devices_ops = {
 *		.set = xnet_named_param_set,
 *		.get = xnet_named_param_get,
 *	};
 *	module_param_cb(devices, &foo_devices_ops, &foo_devices, 0444);
 *
 * The kernel's parameter lock serialises set and get; a 0444 parameter is
 * set while the module loads only, before it looks at a device.
 */
#ifndef XNET_COMMON_NAMED_PARAM_H
#define XNET_COMMON_NAMED_PARAM_H

#include <linux/build_bug.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <xnet/abi.h>

struct xnet_named_param {
	const char *unit;		/* what N is, for the error line: "pages" */
	struct xnet_named_spec spec;	/* N's default and range; "*" or not */
	struct xnet_named *named;	/* [cap]: the list */
	unsigned int cap;
	unsigned int count;		/* items in @named */
	char *str;			/* the value read back, @str_size bytes */
	size_t str_size;
};

/* How much of the value and of its bad item an error line quotes. */
#define XNET_NAMED_QUOTE	64

static inline int xnet_named_param_set(const char *val,
				       const struct kernel_param *kp)
{
	struct xnet_named_param *p = kp->arg;
	size_t n = strlen(val);
	struct xnet_parse_res res;
	unsigned int count;
	int qv = min_t(size_t, n, XNET_NAMED_QUOTE);

	BUILD_BUG_ON(XNET_IFNAMSIZ != IFNAMSIZ);
	/* As long as the read-back buffer holds, not the core's page. */
	if (n >= p->str_size) {
		pr_err("%s: '%*pE...' refused: %s (%zu bytes, at most %zu)\n",
		       kp->name, qv, val, xnet_err_str(XNET_E_TOO_LONG), n,
		       p->str_size - 1);
		return -EINVAL;
	}
	if (xnet_parse_named_list(val, n, &p->spec, p->named, p->cap, &count,
				  &res) != XNET_OK) {
		int qi = min_t(size_t, res.len, XNET_NAMED_QUOTE);

		pr_err("%s: '%*pE%s' refused: '%*pE%s' %s; expected name[:%s],... (%sat most %u names, each once, a name 1..%u bytes without '/', ':' or whitespace; %s %u..%u, default %u)\n",
		       kp->name, qv, val, n > XNET_NAMED_QUOTE ? "..." : "", qi,
		       val + res.pos, res.len > XNET_NAMED_QUOTE ? "..." : "",
		       xnet_err_str(res.err), p->unit,
		       p->spec.flags & XNET_NAMED_STAR ? "name or *, " : "",
		       p->cap, IFNAMSIZ - 1, p->unit, p->spec.min,
		       p->spec.max, p->spec.def);
		return -EINVAL;
	}
	p->count = count;
	strscpy(p->str, skip_spaces(val), p->str_size);
	strim(p->str);
	return 0;
}

static inline int xnet_named_param_get(char *buf,
				       const struct kernel_param *kp)
{
	const struct xnet_named_param *p = kp->arg;

	return sysfs_emit(buf, "%s\n", p->str);
}

/* The item of @p that names @name, or NULL. */
static inline const struct xnet_named *
xnet_named_find(const struct xnet_named_param *p, const char *name)
{
	unsigned int i;

	for (i = 0; i < p->count; i++)
		if (!strcmp(p->named[i].name, name))
			return &p->named[i];
	return NULL;
}

#endif /* XNET_COMMON_NAMED_PARAM_H */
