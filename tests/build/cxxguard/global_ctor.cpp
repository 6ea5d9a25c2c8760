// SPDX-License-Identifier: GPL-2.0
// Must be rejected: a global constructor (.init_array never runs in modules).
extern "C" int guard_value(void);

struct Counter {
	int v;
	Counter() : v(guard_value()) {}
};

Counter counter;
