/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/sized.h - the first layout of a structure that travels with its
 * size (see "Structures that can grow" in daxcache/daxcache.h).
 *
 * Each such structure has a DC_*_SIZE_VER0: the bytes up to the end of the
 * last member of its first layout, the least size the library accepts.
 * The public headers write it with DC_OFFSETOFEND() on that member, so that
 * the size follows the member's own type.
 */
#ifndef DAXCACHE_SIZED_H
#define DAXCACHE_SIZED_H

#include <stddef.h>

/**
 * DC_OFFSETOFEND - the offset of the byte after @member in @type.
 * @type: the structure type, as struct dc_cache_config.
 * @member: one of its members.
 *
 * The kernel's offsetofend(): offsetof() plus the member's size.
 */
#define DC_OFFSETOFEND(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

#endif /* DAXCACHE_SIZED_H */
