/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only C ABI of the C++ core: what include/xnet/abi.h does not expose
 * (the templates and constants behind it, the C++ runtime),
 * wrapped for the KUnit suites. Defined by xnet_core_test_glue.cpp.
 * Plain C data only, like abi.h.
 */
#ifndef XNET_CORE_TEST_ABI_H
#define XNET_CORE_TEST_ABI_H

#include <xnet/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* xnet::seq (reached/diff are in abi.h). */
int xnet_test_seq_before(unsigned int a, unsigned int b);
int xnet_test_seq_after(unsigned int a, unsigned int b);

/* xnet::pow2. */
unsigned int xnet_test_pow2_max(void);		/* pow2::kMax */
int xnet_test_pow2_is_pow2(unsigned int n);
unsigned int xnet_test_pow2_roundup(unsigned int n);

/* xnet::parse. */
unsigned long xnet_test_parse_max_input(void);	/* parse::kMaxInput */
unsigned long xnet_test_parse_max_items(void);	/* parse::kMaxItems */
/* parse_uint<u64>: the same template for a 64-bit type. */
int xnet_test_parse_u64(const char *s, unsigned long n,
			unsigned long long min, unsigned long long max,
			unsigned long long *out, struct xnet_parse_res *res);

/*
 * The kernel C++ runtime (cxxrt.hpp). Objects are opaque to C; counters
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

/*
 * xnet::inet: what the rules' C ABI (include/xnet/prio_abi.h) does not
 * show: the parsed bytes of a prefix, formatting of any address, prefix
 * matching of any address, the bounded Writer.
 */
struct xnet_test_prefix {
	unsigned char addr[16];	/* IPv4 as ::ffff:a.b.c.d */
	unsigned char len;	/* in the address's family: 0..32 or 0..128 */
};

/* inet::parse_prefix(); *out is written only on success. */
int xnet_test_inet_parse_prefix(const char *s, unsigned long n,
				struct xnet_test_prefix *out);
/* inet::format_prefix() into a Writer on @buf[0..cap); the full length. */
unsigned long xnet_test_inet_format_prefix(const struct xnet_test_prefix *p,
					   char *buf, unsigned long cap);
/* inet::Prefix::contains() of a 16-byte address. */
int xnet_test_inet_contains(const struct xnet_test_prefix *p,
			    const unsigned char *addr);
/* inet::Writer::put_uint() into @buf[0..cap); the full length. */
unsigned long xnet_test_inet_put_uint(unsigned long long v, char *buf,
				      unsigned long cap);

#ifdef __cplusplus
}
#endif

#endif /* XNET_CORE_TEST_ABI_H */
