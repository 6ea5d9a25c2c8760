/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only C ABI of the C++ core: the kernel C++ runtime (common/cxxrt.cpp),
 * which include/xnet/abi.h does not expose, wrapped for the KUnit suite
 * xnet_core_rt. Defined by xnet_core_test_glue.cpp. Plain C data only,
 * like abi.h.
 */
#ifndef XNET_CORE_TEST_ABI_H
#define XNET_CORE_TEST_ABI_H

#include <xnet/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The kernel C++ runtime (common/cxxrt.cpp). Objects are opaque to C; counters
 * are kept by the C++ side in static storage (no global constructor).
 */
#define XNET_TEST_RT_LOG 16

struct xnet_test_rt_stats {
	long ctors;		/* Counted constructors run */
	long dtors;		/* Counted destructors run */
	long huge_ctors;	/* constructors of objects too big to allocate */
	long derived_dtors;	/* destructors of derived classes run */
	long base_dtors;	/* destructors of their base classes run */
	/* Counted::seq of the destroyed objects, in destruction order. */
	unsigned int dtor_log[XNET_TEST_RT_LOG];
	unsigned int dtor_log_len;
	/* Size passed to the last class-specific sized operator delete. */
	unsigned long sized_delete_size;
};

void xnet_test_rt_reset(void);
void xnet_test_rt_get_stats(struct xnet_test_rt_stats *out);

/* Counted: a constructor/destructor that count; seq = ctors before it. */
unsigned long xnet_test_rt_counted_size(void);
void *xnet_test_rt_counted_new(unsigned int tag);	/* new Counted(tag) */
void *xnet_test_rt_counted_new_atomic(unsigned int tag); /* new (atomic) */
unsigned int xnet_test_rt_counted_tag(const void *obj);
unsigned int xnet_test_rt_counted_seq(const void *obj);
void xnet_test_rt_counted_delete(void *obj);		/* delete */

void *xnet_test_rt_counted_new_array(unsigned long n);	/* new Counted[n] */
void *xnet_test_rt_counted_new_array_atomic(unsigned long n);
unsigned int xnet_test_rt_counted_array_seq(const void *arr, unsigned long i);
void xnet_test_rt_counted_delete_array(void *arr);	/* delete[] */

/* new char[n] / delete[]: no constructor, no array cookie. */
void *xnet_test_rt_chars_new(unsigned long n);
void xnet_test_rt_chars_delete(void *p);

/* new of an object of 2^40 bytes whose constructor counts huge_ctors. */
void *xnet_test_rt_huge_new(void);

/* Virtual dispatch: an abstract Shape, deleted through the base pointer. */
enum xnet_test_shape { XNET_TEST_SQUARE, XNET_TEST_RECT };
void *xnet_test_rt_shape_new(int kind, unsigned int a, unsigned int b);
unsigned int xnet_test_rt_shape_area(const void *shape);
const char *xnet_test_rt_shape_name(const void *shape);
void xnet_test_rt_shape_delete(void *shape);

/*
 * Multiple inheritance: an object whose second base is not at its start.
 * new returns the second base's address; delete through it must free the
 * allocation, not that address.
 */
void *xnet_test_rt_mi_new(unsigned int tag);
unsigned int xnet_test_rt_mi_tag(const void *second_base);
void xnet_test_rt_mi_delete(void *second_base);

/* Sized deallocation. */
long xnet_test_rt_sized_dealloc_macro(void);	/* __cpp_sized_deallocation or 0 */
unsigned long xnet_test_rt_sized_derived_size(void);
/* new Derived, delete through a Base with a class-specific sized delete. */
int xnet_test_rt_sized_delete_derived(void);
/* ::operator new(n) then ::operator delete(p, n); returns p. */
void *xnet_test_rt_global_sized_delete(unsigned long n);
/* ::operator new[](n) then ::operator delete[](p, n); returns p. */
void *xnet_test_rt_global_sized_delete_array(unsigned long n);

#ifdef __cplusplus
}
#endif

#endif /* XNET_CORE_TEST_ABI_H */
