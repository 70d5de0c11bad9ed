/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * null_backend.h - a backend that maps nothing: setup and remove succeed at
 * once, so a bench of the cache measures the cache alone.
 */
#ifndef BENCH_CACHE_NULL_BACKEND_H
#define BENCH_CACHE_NULL_BACKEND_H

#include <daxcache/cache.h>

/* setup and remove return 0; no writeback; priv is unused. */
extern const struct dc_backend_ops null_backend_ops;

#endif /* BENCH_CACHE_NULL_BACKEND_H */
