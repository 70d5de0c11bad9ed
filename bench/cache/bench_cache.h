/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_cache.h - the sections of the cache bench and what they share.
 */
#ifndef BENCH_CACHE_H
#define BENCH_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include <daxcache/cache.h>

#include "../common/json.h"

#define BENCH_RANGE_SHIFT	21	/* 2 MiB ranges, the library default */

/**
 * struct bench_opts - what the command line chose.
 * @seconds: measuring time per cell.
 * @latency_ns: busy-wait per setup and per remove call of the churn backend.
 * @json: where the results go.
 */
struct bench_opts {
	double seconds;
	uint64_t latency_ns;
	const char *json;
	const char *section;		/* run only this one (NULL: all) */
};

/**
 * bench_mem() - section 0: bytes of library metadata per window range,
 * mapped range and inode, from the heap in use.
 * @o: options.
 * @j: results.
 */
void bench_mem(const struct bench_opts *o, struct bench_json *j);

/**
 * bench_hit() - section 1: dc_map + dc_unpin of mapped ranges next to the
 * kernel's rwlock + rbtree + refcount, 1 and 2 threads.
 * @o: options.
 * @j: results.
 */
void bench_hit(const struct bench_opts *o, struct bench_json *j);

/**
 * bench_share() - section 1b: the hit's 2-thread scaling on one inode of
 * 4096 mapped ranges, by what the threads share (random ranges, adjacent
 * ones, the same one), beside the baseline and a hazard-pointer pin.
 * @o: options.
 * @j: results.
 */
void bench_share(const struct bench_opts *o, struct bench_json *j);

/**
 * bench_miss() - section 2: misses with a null backend, with and without
 * inline reclaim.
 * @o: options.
 * @j: results.
 */
void bench_miss(const struct bench_opts *o, struct bench_json *j);

/**
 * bench_parmiss() - section 2b: misses of T threads in one inode against
 * T threads with an inode each, with a setup that sleeps.
 * @o: options.
 * @j: results.
 */
void bench_parmiss(const struct bench_opts *o, struct bench_json *j);

/**
 * bench_churn() - section 3: reclaim under churn with a slow backend, for
 * the four inline/background x remove/no-remove policies.
 * @o: options.
 * @j: results.
 */
void bench_churn(const struct bench_opts *o, struct bench_json *j);

/**
 * bench_stats() - dc_cache_stats() that counts a failure instead of failing.
 * @c: the cache.
 * @st: receives the counters (zeroed on failure).
 */
void bench_stats(const struct dc_cache *c, struct dc_cache_stats *st);

/**
 * bench_stats_settled() - bench_stats() once the counters stop moving (the
 * background reclaimer went idle), or after a second.
 * @c: the cache.
 * @st: receives the counters.
 */
void bench_stats_settled(const struct dc_cache *c, struct dc_cache_stats *st);

/**
 * bench_stats_delta() - add the counters' growth from @a to @b to @d
 * (counters only; gauges are left alone).
 * @d: the sum.
 * @a: the earlier snapshot.
 * @b: the later snapshot.
 */
void bench_stats_delta(struct dc_cache_stats *d, const struct dc_cache_stats *a,
		       const struct dc_cache_stats *b);

/**
 * bench_cache_new() - dc_cache_create() over @nr_ranges 2 MiB ranges;
 * exits the program on failure.
 * @nr_ranges: ranges in the window.
 * @flags: DC_CACHE_* flags.
 * @ops: the backend.
 * @priv: the backend's data.
 *
 * Return: the cache.
 */
struct dc_cache *bench_cache_new(unsigned int nr_ranges, unsigned int flags,
				 const struct dc_backend_ops *ops, void *priv);

/**
 * bench_cache_done() - check that every range came back to the free pool
 * once the caller put its inodes, then destroy the cache.
 * @c: the cache.
 * @what: names the cache in failure messages.
 */
void bench_cache_done(struct dc_cache *c, const char *what);

/**
 * bench_inode_get() - dc_inode_get(); exits the program on failure.
 * @c: the cache.
 * @ino: the id.
 *
 * Return: the inode.
 */
struct dc_inode *bench_inode_get(struct dc_cache *c, uint64_t ino);

#endif /* BENCH_CACHE_H */
