/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_stats.h - the cache's counters: one table, from which the counter
 * numbers (enum dci_stat) and dc_cache_stats()'s copy into struct
 * dc_cache_stats are both made.
 *
 * A counter is one line of DCI_CACHE_COUNTERS: X(NAME, member), where
 * member is its field in struct dc_cache_stats (daxcache/cache.h).  Adding
 * one: the member (appended, with its kernel-doc line) in cache.h, its line
 * here, the code that counts it, and the ABI baseline (bash tests/abi/update).
 *
 * Counters are per thread (per CPU in the kernel): a hit adds without a
 * locked instruction (dci_pcounters_sum() adds them up).  The other members
 * of struct dc_cache_stats are gauges and sums, which dc_cache_stats()
 * fills itself: DCI_CACHE_GAUGES of them, which the assertion below checks.
 */
#ifndef DCI_CACHE_STATS_H
#define DCI_CACHE_STATS_H

#include "platform.h"

#include <daxcache/cache.h>

#define DCI_CACHE_COUNTERS(X)					\
	X(HITS, hits)						\
	X(MISSES, misses)					\
	X(UPGRADES, upgrades)					\
	X(INLINE_RECLAIMS, inline_reclaims)			\
	X(BG_RECLAIMS, bg_reclaims)				\
	X(REMOVES_SENT, removes_sent)				\
	X(REMOVES_SKIPPED, removes_skipped)			\
	X(REMOVE_BATCHES, remove_batches)			\
	X(REMOVE_FAILURES, remove_failures)			\
	X(WAITS, waits)						\
	X(WAIT_NS, wait_ns)					\
	X(SETUP_FAILURES, setup_failures)			\
	X(WRITEBACKS, writebacks)				\
	X(WRITEBACK_FAILURES, writeback_failures)		\
	X(BYPASS_FULL, bypass_full)				\
	X(BYPASS_BUSY, bypass_busy)				\
	X(BYPASS_WRITE, bypass_write)				\
	X(ADMITS_CONTESTED, admits_contested)			\
	X(BG_PASSES, bg_passes)					\
	X(BYPASS_BUDGET, bypass_budget)			\
	X(ADMITS_STREAM, admits_stream)

enum dci_stat {
#define DCI_STAT_ENUM(name, member) DCI_STAT_##name,
	DCI_CACHE_COUNTERS(DCI_STAT_ENUM)
#undef DCI_STAT_ENUM
	DCI_STAT_NR
};

/*
 * The members dc_cache_stats() fills without a counter: nr_ranges, nr_free,
 * nr_mapped, nr_inodes, nr_waiting, bg_pending, and bypasses (the sum of
 * the three bypass counters).
 */
#define DCI_CACHE_GAUGES	7

dci_static_assert(sizeof(struct dc_cache_stats) ==
	      (DCI_STAT_NR + DCI_CACHE_GAUGES) * sizeof(uint64_t),
	      "a member of struct dc_cache_stats is in neither DCI_CACHE_COUNTERS nor the gauges");

#endif /* DCI_CACHE_STATS_H */
