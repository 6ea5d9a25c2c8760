/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A zero-initialised array of a power-of-two number of entries, bounded,
 * indexed with a mask. Memory comes from a Traits type, so the same code
 * runs on kmalloc in the kernel and on malloc (with failure injection) in
 * userspace tests:
 *
 *   struct Traits {
 *       static void *alloc_zeroed(usize bytes);   // nullptr on failure
 *       static void free(void *p);
 *   };
 *
 * Explicit init()/destroy(): no constructor does work, so a Pow2Table can
 * live in static storage of a module without a global constructor.
 */
#ifndef XNET_TABLE_HPP
#define XNET_TABLE_HPP

#include "types.hpp"
#include "pow2.hpp"

namespace xnet {

template <typename T, typename Traits>
class Pow2Table {
public:
	/*
	 * Allocate ceil_pow2(@req) entries, @req <= @max (a power of two).
	 * @req == 0 leaves the table empty. On error the table is unchanged.
	 */
	Err init(u32 req, u32 max)
	{
		u32 size = 0;
		Err e = pow2::table_size(req, max, &size);

		if (e != Err::Ok)
			return e;
		if (size == 0) {
			destroy();
			return Err::Ok;
		}
		if (size > static_cast<usize>(-1) / sizeof(T))
			return Err::Overflow;

		T *p = static_cast<T *>(Traits::alloc_zeroed(size * sizeof(T)));
		if (!p)
			return Err::NoMem;
		destroy();
		entries_ = p;
		size_ = size;
		return Err::Ok;
	}

	void destroy()
	{
		if (entries_)
			Traits::free(entries_);
		entries_ = nullptr;
		size_ = 0;
	}

	u32 size() const { return size_; }
	bool empty() const { return size_ == 0; }
	u32 mask() const { return size_ - 1; }
	T &at_hash(u32 hash) { return entries_[hash & mask()]; }
	const T &at_hash(u32 hash) const { return entries_[hash & mask()]; }
	T *data() { return entries_; }

private:
	T *entries_ = nullptr;
	u32 size_ = 0;
};

} /* namespace xnet */

#endif /* XNET_TABLE_HPP */
