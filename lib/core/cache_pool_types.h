/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_pool_types.h - the range pool's state (cache_pool.c's): struct dc_pool, and the
 * head that precedes the window's range objects.
 */
#ifndef DC_CACHE_POOL_TYPES_H
#define DC_CACHE_POOL_TYPES_H

#include "cache_range.h"

/* The backend ops, for counting and logging their failures. */
enum dc_backend_op {
	DC_BE_SETUP,
	DC_BE_REMOVE,
	DC_BE_WRITEBACK,
	DC_BE_NR
};

/* Appended to each failure line: see dci_pool_backend_failed(). */
#define DC_BE_FAIL_NOTE	" (failure %u of this op; only the 1st, 2nd, 4th, 8th... are logged)"


/*
 * The range pool's state (cache_pool.c's: no other file names a member;
 * they use the dc_pool_*() accessors below and cache_pool.c's functions).
 */
struct dc_pool {
	/* Free stack, busy ring with the victim hand.  @lock. */
	dc_spinlock_t lock;
	struct dc_range *free_list;	/* head: &ranges[nr_ranges] */
	struct dc_range *busy;		/* head: &ranges[nr_ranges + 1] */
	struct dc_range *hand;		/* next victim candidate in @busy */
	unsigned int nr_free;
	unsigned int nr_mapped;

	/*
	 * Waiting for a range.  @events counts frees and unpins-to-idle seen
	 * while someone waits; waiters sleep until it moves.
	 */
	struct dc_waitq waitq;
	dc_atomic_t waiters;
	dc_atomic64_t events;
	/* Of the waiters, those asleep for a free range now (a gauge). */
	dc_atomic_t sleeping;

	/*
	 * The reclaimer's worker and its wake-ups: the kicks so far, and of
	 * them those answered (the count of kicks a run read when it began,
	 * stored when that run ended: equal to @reclaimer_kicks when every
	 * kick was answered; their difference is dc_cache_stats'
	 * @bg_pending).  The reclaimer's own state is struct dc_reclaim.
	 */
	struct dc_worker reclaimer;
	dc_atomic_t reclaimer_stopping;
	dc_atomic64_t reclaimer_kicks;
	dc_atomic64_t reclaimer_answered;

	/* Failed calls of each backend op, for the log (@lock). */
	unsigned int be_failures[DC_BE_NR];

	/*
	 * Threads waiting for a range's setup in flight to end (struct
	 * dc_range's @setting_up), and the queue they sleep on: a setup that
	 * ends wakes it only when the count says someone waits.
	 */
	struct dc_waitq setup_waitq;
	dc_atomic_t setup_waiters;
};

/*
 * The window's range objects (c->ranges) follow one of these, so that a
 * range finds its cache from its own fields: its number is its window
 * offset over the range size.
 */
struct dc_pool_head {
	struct dc_cache *cache;
} __dc_cacheline_aligned;

#endif /* DC_CACHE_POOL_TYPES_H */
