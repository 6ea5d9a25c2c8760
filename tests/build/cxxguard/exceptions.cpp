// SPDX-License-Identifier: GPL-2.0
// CXXFLAGS: -fexceptions
// Must be rejected: exceptions need __cxa_throw, a personality and .eh_frame.
extern "C" int guard_value(void);
extern "C" int guard_throw(void);

extern "C" int guard_throw(void)
{
	if (guard_value())
		throw 1;
	return 0;
}
