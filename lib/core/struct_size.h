/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * struct_size.h - structures that travel with their size (see "Structures
 * that can grow" in docs/design.md).
 *
 * A caller passes a public structure with the size it was compiled with;
 * the library knows its own size, which may be larger (an older caller) or
 * smaller (a newer caller on an older library).  These helpers copy the
 * part both know and never touch a byte past the caller's size.
 */
#ifndef DCI_STRUCT_SIZE_H
#define DCI_STRUCT_SIZE_H

#include "platform.h"

/*
 * Copy a caller's structure in: @usrc of @usize bytes into @dst of the
 * library's @ksize bytes.  Bytes of @dst past @usize are zeroed (a member
 * the caller does not know reads 0, which is its default).  A larger
 * caller's structure is accepted only if the bytes the library does not
 * know are zero: the caller asked for nothing the library would ignore.
 * Returns 0, -EINVAL when @usrc is NULL or @usize is below @min (the first
 * published layout), or -E2BIG.
 */
static inline int sized_copy_in(void *dst, size_t ksize, const void *usrc,
				size_t usize, size_t min)
{
	const unsigned char *p = (const unsigned char *)usrc;
	size_t i;

	if (!usrc || usize < min)
		return -EINVAL;
	for (i = ksize; i < usize; i++)
		if (p[i])
			return -E2BIG;
	if (usize > ksize)
		usize = ksize;
	memcpy(dst, usrc, usize);
	memset((unsigned char *)dst + usize, 0, ksize - usize);
	return 0;
}

/*
 * Copy a structure out: the library's @src of @ksize bytes into the
 * caller's @udst of @usize bytes.  Writes exactly @usize bytes: the part
 * both know, then zeroes where the caller's structure is larger (members
 * the library does not know read 0).  Returns 0, or -EINVAL when @udst is
 * NULL or @usize is below @min.
 */
static inline int sized_copy_out(void *udst, size_t usize, const void *src,
				 size_t ksize, size_t min)
{
	if (!udst || usize < min)
		return -EINVAL;
	if (usize <= ksize) {
		memcpy(udst, src, usize);
	} else {
		memcpy(udst, src, ksize);
		memset((unsigned char *)udst + ksize, 0, usize - ksize);
	}
	return 0;
}

/*
 * sized_copy_out() of @src under @lock: a snapshot of counters that change
 * only under that lock, all of one instant.
 */
static inline int sized_copy_out_locked(void *udst, size_t usize,
					dci_spinlock_t *lock, const void *src,
					size_t ksize, size_t min)
{
	int ret;

	dci_spin_lock(lock);
	ret = sized_copy_out(udst, usize, src, ksize, min);
	dci_spin_unlock(lock);
	return ret;
}

/*
 * The start of a create that hands its object back in *@out: -EINVAL
 * without @out; else *@out is cleared (nothing made yet) and the caller's
 * @ucfg of @usize bytes is copied into the library's *@cfg as
 * sized_copy_in() does, which gives the answer.  A macro: @out and @cfg
 * are of each create's own types.
 */
#define sized_create_in(out, cfg, ucfg, usize, min)			\
	(!(out) ? -EINVAL :						\
	 (*(out) = NULL,						\
	  sized_copy_in((cfg), sizeof(*(cfg)), (ucfg), (usize), (min))))

#endif /* DCI_STRUCT_SIZE_H */
