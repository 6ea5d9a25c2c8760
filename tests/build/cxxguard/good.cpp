// SPDX-License-Identifier: GPL-2.0
// Control: C++ with new, delete and virtual calls links with the runtime
// (common/, $(XNET_CORE_OBJS)) and passes the object checks.

struct Base {
	virtual int f() = 0;
	virtual ~Base() {}
};

struct Derived : Base {
	int f() override { return 7; }
};

extern "C" int guard_good(void);
extern "C" int guard_good(void)
{
	Base *b = new Derived;
	int v = b ? b->f() : -1;

	delete b;
	return v;
}
