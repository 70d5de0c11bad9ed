/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/daxcache.h - libdaxcache umbrella header.
 *
 * libdaxcache manages a DAX window: a fixed window of equal-sized ranges into
 * which file ranges are mapped on demand, as virtio-fs does for a guest.
 * Include this header to get every public part of the library.
 *
 * Structures that can grow.  Every structure a caller fills for the
 * library (a config, an ops table) or has the library fill (the stats)
 * travels with its size: the parameter after the pointer is a size_t, and
 * the caller passes sizeof of its own structure, as
 * dc_cache_create(&cfg, sizeof(cfg), &ops, sizeof(ops), priv, &cache).
 * New members are only ever appended, so a binary compiled against an
 * older, smaller structure keeps working:
 *
 * - The library reads only the caller's size.  Members past it take the
 *   value 0, and 0 is the default of every member added after the first
 *   layout (it keeps the behaviour from before the member existed).
 * - A size below the first layout (DC_*_SIZE_VER0) is refused with
 *   -EINVAL.  A size larger than the library's own is accepted only if the
 *   bytes it does not know are zero, else -E2BIG (the caller asked for
 *   something this library cannot do); so zero such a structure first
 *   (its config_init function, memset() or static storage).
 * - A structure the library fills (stats) is written for exactly the
 *   caller's size: never past it, and with zeroes for members this library
 *   does not know.
 * - An ops table is copied at create time, like a config.
 *
 * A NULL pointer ignores its size.  Structures a caller embeds (struct
 * dc_reqq_req, dc_slot, dc_iocomp), arrays the library hands out (struct
 * dc_remove_entry) and the small records of the hot and per-call paths
 * (struct dc_pin, dc_itree_entry, dc_attr_values) have a fixed layout
 * instead: changing one would take new functions and a new soname.
 */
#ifndef DAXCACHE_DAXCACHE_H
#define DAXCACHE_DAXCACHE_H

#include <daxcache/version.h>
#include <daxcache/thread.h>
#include <daxcache/log.h>
#include <daxcache/itree.h>
#include <daxcache/iocomp.h>
#include <daxcache/cache.h>
#include <daxcache/slots.h>
#include <daxcache/attr.h>
#include <daxcache/reqq.h>

#endif /* DAXCACHE_DAXCACHE_H */
