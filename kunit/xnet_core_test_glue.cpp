// SPDX-License-Identifier: GPL-2.0
/*
 * The C++ side of the xnet_core_rt suite: the test-only C ABI
 * (xnet_core_test_abi.h) over the kernel C++ runtime (common/cxxrt.cpp,
 * its own object). No kernel header: the kernel side is glue.h, defined in
 * C by xnet_core_rt_test.c.
 */
#include <xnet/kernel/new.hpp>

#include "xnet_core_test_abi.h"

/* The C ABI's plain types are the core's types. */
static_assert(sizeof(unsigned int) == sizeof(xnet::u32), "u32");
static_assert(sizeof(unsigned long) == sizeof(xnet::usize), "usize");
static_assert(sizeof(unsigned long long) == sizeof(xnet::u64), "u64");

/* C++ runtime */

namespace {

/* Trivial type in static storage: zero-initialised, no constructor. */
xnet_test_rt_stats g_stats;

struct Counted {
	unsigned int tag;
	unsigned int seq;

	Counted() : tag(0), seq(static_cast<unsigned int>(g_stats.ctors++)) {}
	explicit Counted(unsigned int t)
		: tag(t), seq(static_cast<unsigned int>(g_stats.ctors++)) {}
	~Counted()
	{
		if (g_stats.dtor_log_len < XNET_TEST_RT_LOG)
			g_stats.dtor_log[g_stats.dtor_log_len++] = seq;
		g_stats.dtors++;
	}
};

/* Too big for any allocator: new must return nullptr, not construct. */
struct Huge {
	char bytes[1UL << 40];

	Huge() { g_stats.huge_ctors++; }
};

struct Shape {
	virtual ~Shape() { g_stats.base_dtors++; }
	virtual unsigned int area() const = 0;
	virtual const char *name() const { return "shape"; }
};

struct Square final : Shape {
	unsigned int side;

	explicit Square(unsigned int s) : side(s) {}
	~Square() override { g_stats.derived_dtors++; }
	unsigned int area() const override { return side * side; }
	const char *name() const override { return "square"; }
};

struct Rect final : Shape {
	unsigned int w, h;

	Rect(unsigned int a, unsigned int b) : w(a), h(b) {}
	~Rect() override { g_stats.derived_dtors++; }
	unsigned int area() const override { return w * h; }
	/* name() deliberately inherited from Shape. */
};

struct First {
	unsigned long long pad[3] = {};

	virtual ~First() {}
};

struct Second {
	unsigned int tag;

	explicit Second(unsigned int t) : tag(t) {}
	virtual ~Second() { g_stats.base_dtors++; }
};

struct Both final : First, Second {
	explicit Both(unsigned int t) : Second(t) {}
	~Both() override { g_stats.derived_dtors++; }
};

struct SizedBase {
	unsigned int a = 1;

	virtual ~SizedBase() {}
	static void operator delete(void *p, xnet::usize n)
	{
		g_stats.sized_delete_size = n;
		::operator delete(p, n);
	}
};

struct SizedDerived final : SizedBase {
	unsigned long long extra[5] = {};
};

} /* namespace */

extern "C" void xnet_test_rt_reset(void)
{
	g_stats = xnet_test_rt_stats{};
}

extern "C" void xnet_test_rt_get_stats(struct xnet_test_rt_stats *out)
{
	*out = g_stats;
}

extern "C" unsigned long xnet_test_rt_counted_size(void)
{
	return sizeof(Counted);
}

extern "C" void *xnet_test_rt_counted_new(unsigned int tag)
{
	return new Counted(tag);
}

extern "C" void *xnet_test_rt_counted_new_atomic(unsigned int tag)
{
	return new (xnet::kernel::atomic) Counted(tag);
}

extern "C" unsigned int xnet_test_rt_counted_tag(const void *obj)
{
	return static_cast<const Counted *>(obj)->tag;
}

extern "C" unsigned int xnet_test_rt_counted_seq(const void *obj)
{
	return static_cast<const Counted *>(obj)->seq;
}

extern "C" void xnet_test_rt_counted_delete(void *obj)
{
	delete static_cast<Counted *>(obj);
}

extern "C" void *xnet_test_rt_counted_new_array(unsigned long n)
{
	return new Counted[n];
}

extern "C" void *xnet_test_rt_counted_new_array_atomic(unsigned long n)
{
	return new (xnet::kernel::atomic) Counted[n];
}

extern "C" unsigned int xnet_test_rt_counted_array_seq(const void *arr,
						       unsigned long i)
{
	return static_cast<const Counted *>(arr)[i].seq;
}

extern "C" void xnet_test_rt_counted_delete_array(void *arr)
{
	delete[] static_cast<Counted *>(arr);
}

extern "C" void *xnet_test_rt_chars_new(unsigned long n)
{
	return new char[n];
}

extern "C" void xnet_test_rt_chars_delete(void *p)
{
	delete[] static_cast<char *>(p);
}

extern "C" void *xnet_test_rt_huge_new(void)
{
	return new Huge;
}

extern "C" void *xnet_test_rt_shape_new(int kind, unsigned int a,
					unsigned int b)
{
	Shape *s = nullptr;

	if (kind == XNET_TEST_SQUARE)
		s = new Square(a);
	else if (kind == XNET_TEST_RECT)
		s = new Rect(a, b);
	return s;
}

extern "C" unsigned int xnet_test_rt_shape_area(const void *shape)
{
	return static_cast<const Shape *>(shape)->area();
}

extern "C" const char *xnet_test_rt_shape_name(const void *shape)
{
	return static_cast<const Shape *>(shape)->name();
}

extern "C" void xnet_test_rt_shape_delete(void *shape)
{
	delete static_cast<Shape *>(shape);
}

extern "C" void *xnet_test_rt_mi_new(unsigned int tag)
{
	Second *s = new Both(tag);	/* nullptr stays nullptr */

	return s;
}

extern "C" unsigned int xnet_test_rt_mi_tag(const void *second_base)
{
	return static_cast<const Second *>(second_base)->tag;
}

extern "C" void xnet_test_rt_mi_delete(void *second_base)
{
	delete static_cast<Second *>(second_base);
}

extern "C" long xnet_test_rt_sized_dealloc_macro(void)
{
#ifdef __cpp_sized_deallocation
	return __cpp_sized_deallocation;
#else
	return 0;
#endif
}

extern "C" unsigned long xnet_test_rt_sized_derived_size(void)
{
	return sizeof(SizedDerived);
}

extern "C" int xnet_test_rt_sized_delete_derived(void)
{
	SizedBase *b = new SizedDerived;

	if (!b)
		return 0;
	delete b;
	return 1;
}

extern "C" void *xnet_test_rt_global_sized_delete(unsigned long n)
{
	void *p = ::operator new(n);

	if (p)
		::operator delete(p, n);
	return p;
}

extern "C" void *xnet_test_rt_global_sized_delete_array(unsigned long n)
{
	void *p = ::operator new[](n);

	if (p)
		::operator delete[](p, n);
	return p;
}
