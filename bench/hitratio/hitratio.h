/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hitratio.h - the hit-ratio study: one trace of range indices replayed
 * through the library's victim policies and through offline simulators of
 * exact LRU, Belady's OPT, a textbook CLOCK, FIFO, ARC, 2Q, S3-FIFO and
 * SIEVE, at one capacity.
 */
#ifndef BENCH_HITRATIO_H
#define BENCH_HITRATIO_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct hr_trace - the accesses of one thread, as range indices.
 * @idx: the range index of each access (page / pages per range).
 * @n: number of accesses.
 * @nr_keys: every index is below this (the file size in ranges).
 * @nr_files: the library replay maps index i to file min(i / @file_ranges,
 *	@nr_files - 1), one inode each (0 or 1: one file, index = range).
 * @file_ranges: ranges per file (the last file takes the rest).
 */
struct hr_trace {
	uint32_t *idx;
	uint16_t *page;		/* the 4 KiB page in its range of each access */
	uint64_t n;
	uint32_t nr_keys;
	uint32_t nr_files;
	uint32_t file_ranges;
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
 * hr_sim_clock_own() - hits of CLOCK loading frames with the bit clear that,
 * once no frame is free, takes the victim from the missing key's own file
 * first (a walk of its cached keys in key order, from where the last one
 * stopped), and from the global hand only for a file with none cached: the
 * order of the library's inline reclaim.  Files as @t's nr_files and
 * file_ranges.
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_clock_own(const struct hr_trace *t, uint32_t cap);

/**
 * hr_sim_fifo() - hits of FIFO (round-robin in load order) with @cap slots.
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_fifo(const struct hr_trace *t, uint32_t cap);

/* An access that evicted nothing (struct hr_sim_log @victim). */
#define HR_NO_VICTIM	UINT32_MAX

/**
 * struct hr_sim_log - what an offline simulator did at each access, for the
 * worked examples of sim_test.c.
 * @hit: per access, 1 for a hit, 0 for a miss (every miss is inserted).
 * @victim: per access, the key that left the cache to make room, or
 *	HR_NO_VICTIM.
 */
struct hr_sim_log {
	uint8_t *hit;
	uint32_t *victim;
};

/**
 * hr_sim_note() - record access @i in @log, if there is one.
 * @log: the log, or NULL.
 * @i: the access.
 * @hit: whether it hit.
 * @victim: the key it evicted, or HR_NO_VICTIM.
 *
 * Context: the simulator's thread.
 */
static inline void hr_sim_note(struct hr_sim_log *log, uint64_t i, bool hit,
			       uint32_t victim)
{
	if (log) {
		log->hit[i] = hit;
		log->victim[i] = victim;
	}
}

/**
 * hr_sim_arc_log() - hits of ARC (Megiddo and Modha, FAST 2003): recency
 * list T1 and frequency list T2 in the cache, their ghosts B1 and B2, and
 * the target size p of T1, adapted on ghost hits.
 * @t: the trace.
 * @cap: slots (at least 1).
 * @log: receives each access's outcome, or NULL.
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_arc_log(const struct hr_trace *t, uint32_t cap, struct hr_sim_log *log);

/**
 * hr_sim_2q_log() - hits of full 2Q (Johnson and Shasha, VLDB 1994): a FIFO
 * A1in of first references (Kin = 25% of the slots), a ghost FIFO A1out of
 * keys paged out of it (Kout = 50%), and an LRU Am of keys referenced again
 * after leaving A1in.
 * @t: the trace.
 * @cap: slots (at least 1).
 * @log: receives each access's outcome, or NULL.
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_2q_log(const struct hr_trace *t, uint32_t cap, struct hr_sim_log *log);

/**
 * hr_sim_s3fifo_log() - hits of S3-FIFO (Yang et al., SOSP 2023): a small
 * FIFO S (10% of the slots) for new keys, a main FIFO M with reinsertion,
 * a ghost FIFO G of keys evicted from S, and a 2-bit frequency per key.
 * @t: the trace.
 * @cap: slots (at least 1).
 * @log: receives each access's outcome, or NULL.
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_s3fifo_log(const struct hr_trace *t, uint32_t cap, struct hr_sim_log *log);

/**
 * hr_sim_sieve_log() - hits of SIEVE (Zhang et al., NSDI 2024): one FIFO
 * queue, new keys at its head, a visited bit set by hits, and a hand that
 * moves from the tail towards the head clearing bits and evicts the first
 * unvisited key, staying where it evicted.
 * @t: the trace.
 * @cap: slots (at least 1).
 * @log: receives each access's outcome, or NULL.
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_sieve_log(const struct hr_trace *t, uint32_t cap, struct hr_sim_log *log);

/**
 * hr_sim_arc() - hr_sim_arc_log() without a log.
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_arc(const struct hr_trace *t, uint32_t cap);

/**
 * hr_sim_2q() - hr_sim_2q_log() without a log.
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_2q(const struct hr_trace *t, uint32_t cap);

/**
 * hr_sim_s3fifo() - hr_sim_s3fifo_log() without a log.
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_s3fifo(const struct hr_trace *t, uint32_t cap);

/**
 * hr_sim_sieve() - hr_sim_sieve_log() without a log.
 * @t: the trace.
 * @cap: slots (at least 1).
 *
 * Context: process context; allocates.
 * Return: the number of hits, or UINT64_MAX if out of memory.
 */
uint64_t hr_sim_sieve(const struct hr_trace *t, uint32_t cap);

/**
 * struct hr_lib_result - a replay through struct dc_cache.
 * @hits: dc_cache_stats() hits.
 * @maps: dc_map() calls that returned a pin.
 * @bypasses: dc_map() calls that returned DC_MAP_BYPASS.
 * @inline_reclaims: ranges reclaimed by dc_map() itself.
 * @bg_reclaims: ranges reclaimed by the background reclaimer.
 * @setups: backend setups (every mapped miss costs one round trip).
 * @occupancy: mean fraction of the window's ranges mapped, sampled over
 *	the second half of the trace (the effective capacity).
 */
struct hr_lib_result {
	uint64_t hits;
	uint64_t setups;
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
 * access, on one inode per file of the trace.
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
