// SPDX-License-Identifier: GPL-2.0
// Control: the runtime and core ABI build and pass the object checks.
#include <xnet/kernel/cxxrt.hpp>
#include <xnet/abi_impl.hpp>

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
