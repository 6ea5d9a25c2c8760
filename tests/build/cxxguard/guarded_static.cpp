// SPDX-License-Identifier: GPL-2.0
// CXXFLAGS: -fthreadsafe-statics -fuse-cxa-atexit
// Must be rejected: a function-local static with a constructor and a
// destructor needs __cxa_guard_* and __cxa_atexit.
extern "C" int guard_value(void);
extern "C" int guard_local(void);

struct Res {
	int v;
	Res() : v(guard_value()) {}
	~Res() { v = 0; }
};

extern "C" int guard_local(void)
{
	static Res r;

	return r.v;
}
