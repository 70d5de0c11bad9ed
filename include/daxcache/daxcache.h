/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/daxcache.h - libdaxcache umbrella header.
 *
 * libdaxcache manages a DAX window: a fixed window of equal-sized ranges into
 * which file ranges are mapped on demand, as virtio-fs does for a guest.
 * Include this header to get every public part of the library.
 */
#ifndef DAXCACHE_DAXCACHE_H
#define DAXCACHE_DAXCACHE_H

#include <daxcache/thread.h>
#include <daxcache/log.h>
#include <daxcache/itree.h>
#include <daxcache/iocomp.h>
#include <daxcache/cache.h>
#include <daxcache/slots.h>
#include <daxcache/attr.h>
#include <daxcache/reqq.h>

#endif /* DAXCACHE_DAXCACHE_H */
