// SPDX-License-Identifier: GPL-2.0
/*
 * pp_frag's `devices` parameter: name[:pages],... names devices of the
 * initial netns that get a pool when they appear (devices.c asks).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "pp_frag.h"

#define PPF_DEFAULT_PAGES	256	/* 8 MiB of order-3 pages */
#define PPF_MAX_NAMED		16

struct ppf_named {
	char name[IFNAMSIZ];
	unsigned int pages;
};

static struct ppf_named ppf_named[PPF_MAX_NAMED];
static unsigned int ppf_nnamed;
static char ppf_devices_str[PPF_MAX_NAMED * (IFNAMSIZ + 8)];

static int ppf_parse_devices(const char *val, struct ppf_named *out,
			     unsigned int *n)
{
	char buf[sizeof(ppf_devices_str)];
	char *s = buf, *item;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	strim(buf);
	*n = 0;
	while ((item = strsep(&s, ",")) != NULL) {
		char *colon = strchr(item, ':');
		unsigned int pages = PPF_DEFAULT_PAGES;

		if (!*item && !s && !*n)
			break;		/* empty list */
		if (colon) {
			*colon = '\0';
			if (kstrtouint(colon + 1, 10, &pages) || !pages ||
			    pages > XNET_FRAG_MAX_PAGES)
				return -EINVAL;
		}
		if (*n == PPF_MAX_NAMED || !dev_valid_name(item))
			return -EINVAL;
		strscpy(out[*n].name, item, IFNAMSIZ);
		out[*n].pages = pages;
		(*n)++;
	}
	return 0;
}

static int ppf_devices_set(const char *val, const struct kernel_param *kp)
{
	struct ppf_named named[PPF_MAX_NAMED];
	unsigned int n;

	if (ppf_parse_devices(val, named, &n)) {
		pr_err("devices: '%s' refused: expected name[:pages],... (at most %u devices, 1..%u pages)\n",
		       val, PPF_MAX_NAMED, XNET_FRAG_MAX_PAGES);
		return -EINVAL;
	}
	memcpy(ppf_named, named, sizeof(named));
	ppf_nnamed = n;
	strscpy(ppf_devices_str, val, sizeof(ppf_devices_str));
	strim(ppf_devices_str);
	return 0;
}

static int ppf_devices_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", ppf_devices_str);
}

static const struct kernel_param_ops ppf_devices_ops = {
	.set = ppf_devices_set,
	.get = ppf_devices_get,
};
module_param_cb(devices, &ppf_devices_ops, NULL, 0444);
MODULE_PARM_DESC(devices,
		 "Devices of the initial netns given a pool when they appear or are renamed so: name[:pages],... (pages: bound of the pool, default 256 = 8 MiB)");

/* The pages devices= gives a device named @name; 0 when it names none. */
unsigned int ppf_named_pages(const char *name)
{
	unsigned int i;

	for (i = 0; i < ppf_nnamed; i++)
		if (!strcmp(ppf_named[i].name, name))
			return ppf_named[i].pages;
	return 0;
}
