/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hitratio.h - the hit-ratio study: one trace of range indices replayed
 * through the library's victim policies and through offline simulators of
 * exact LRU, Belady's OPT, a textbook CLOCK and FIFO, at one capacity.
 */
#ifndef BENCH_HITRATIO_H
#define BENCH_HITRATIO_H

#include <stdint.h>

/**
 * struct hr_trace - the accesses of one thread, as range indices.
 * @idx: the range index of each access (page / pages per range).
 * @n: number of accesses.
 * @nr_keys: every index is below this (the file size in ranges).
 */
struct hr_trace {
	uint32_t *idx;
	uint64_t n;
	uint32_t nr_keys;
};

/**
 * hr_sim_lru() - hits of exact LRU with @cap slots.
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_lru(const struct hr_trace *t, uint32_t cap);

/**
 * hr_sim_opt() - hits of Belady's OPT (evict the key used furthest in the
 * future) with @cap slots.
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_opt(const struct hr_trace *t, uint32_t cap);

/**
 * hr_sim_clock() - hits of textbook CLOCK (second chance over a circular
 * array of frames in load order; a loaded or hit frame has its bit set).
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_clock(const struct hr_trace *t, uint32_t cap);

/**
 * hr_sim_clock_cold() - hits of CLOCK that loads frames with the bit clear
 * (a frame earns its second chance only by a hit after its load).
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_clock_cold(const struct hr_trace *t, uint32_t cap);

/**
 * hr_sim_fifo() - hits of FIFO (round-robin in load order) with @cap slots.
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_fifo(const struct hr_trace *t, uint32_t cap);

/**
 * struct hr_lib_result - a replay through struct dc_cache.
 * @hits: dc_cache_stats() hits.
 * @maps: dc_map() calls that returned a pin.
 * @bypasses: dc_map() calls that returned DC_MAP_BYPASS.
 * @inline_reclaims: ranges reclaimed by dc_map() itself.
 * @bg_reclaims: ranges reclaimed by the background reclaimer.
 * @occupancy: mean fraction of the window's ranges mapped, sampled over
 *	the second half of the trace (the effective capacity).
 */
struct hr_lib_result {
	uint64_t hits;
	uint64_t maps;
	uint64_t bypasses;
	uint64_t inline_reclaims;
	uint64_t bg_reclaims;
	double occupancy;
};

/**
 * struct hr_lib_config - how to build the cache for a replay.
 * @victim: enum dc_victim_policy.
 * @threshold_pct: reclaim_threshold_pct.
 * @reclaim_batch: reclaim_batch.
 * @may_bypass: pass DC_MAP_MAY_BYPASS to dc_map().
 */
struct hr_lib_config {
	int victim;
	unsigned int threshold_pct;
	unsigned int reclaim_batch;
	int may_bypass;
};

/**
 * hr_lib_replay() - replay @t single-threaded through a cache of @cap
 * ranges over the null simulation backend: dc_map() then dc_unpin() per
 * access, all on one inode.
 * @t: the trace.
 * @cap: ranges in the window.
 * @cfg: the cache configuration.
 * @out: receives the counters.
 *
 * Context: a thread registered with dc_thread_register().
 * Return: 0, or the first error of the library (printed).
 */
int hr_lib_replay(const struct hr_trace *t, uint32_t cap,
		  const struct hr_lib_config *cfg, struct hr_lib_result *out);

#endif /* BENCH_HITRATIO_H */
