// SPDX-License-Identifier: GPL-2.0
/* C side of the C++ guard test modules. */
#include <linux/module.h>

int guard_value(void);
int guard_value(void)
{
	return 1;
}

MODULE_DESCRIPTION("C++ object guard test");
MODULE_LICENSE("GPL");
