/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_pool_types.h - the range pool's state (cache_pool.c's): struct dci_pool, and the
 * head that precedes the window's range objects.
 */
#ifndef DCI_CACHE_POOL_TYPES_H
#define DCI_CACHE_POOL_TYPES_H

#include "cache_range.h"

/* The backend ops, for counting and logging their failures. */
enum dci_backend_op {
	DCI_BE_SETUP,
	DCI_BE_REMOVE,
	DCI_BE_WRITEBACK,
	DCI_BE_NR
};

/* Appended to each failure line: see dci_pool_backend_failed(). */
#define DCI_BE_FAIL_NOTE	" (failure %u of this op; only the 1st, 2nd, 4th, 8th... are logged)"


/*
 * The range pool's state (cache_pool.c's: no other file names a member;
 * they use the dci_pool_*() accessors below and cache_pool.c's functions).
 */
struct dci_pool {
	/* Free stack, busy ring with the victim hand.  @lock. */
	dci_spinlock_t lock;
	struct dci_range *free_list;	/* head: &ranges[nr_ranges] */
	struct dci_range *busy;		/* head: &ranges[nr_ranges + 1] */
	struct dci_range *hand;		/* next victim candidate in @busy */
	unsigned int nr_free;
	unsigned int nr_mapped;

	/*
	 * Waiting for a range.  @events counts frees and unpins-to-idle seen
	 * while someone waits; waiters sleep until it moves.
	 */
	struct dci_waitq waitq;
	dci_atomic_t waiters;
	dci_atomic64_t events;
	/* Of the waiters, those asleep for a free range now (a gauge). */
	dci_atomic_t sleeping;

	/*
	 * The reclaimer's worker and its wake-ups: the kicks so far, and of
	 * them those answered (the count of kicks a run read when it began,
	 * stored when that run ended: equal to @reclaimer_kicks when every
	 * kick was answered; their difference is dc_cache_stats'
	 * @bg_pending).  The reclaimer's own state is struct dci_reclaim.
	 */
	struct dci_worker reclaimer;
	dci_atomic_t reclaimer_stopping;
	dci_atomic64_t reclaimer_kicks;
	dci_atomic64_t reclaimer_answered;

	/* Failed calls of each backend op, for the log (@lock). */
	unsigned int be_failures[DCI_BE_NR];

	/*
	 * Threads waiting for a range's setup in flight to end (struct
	 * dci_range's @setting_up), and the queue they sleep on: a setup that
	 * ends wakes it only when the count says someone waits.
	 */
	struct dci_waitq setup_waitq;
	dci_atomic_t setup_waiters;
};

/*
 * The window's range objects (c->ranges) follow one of these, so that a
 * range finds its cache from its own fields: its number is its window
 * offset over the range size.
 */
struct dci_pool_head {
	struct dc_cache *cache;
} __dc_cacheline_aligned;

#endif /* DCI_CACHE_POOL_TYPES_H */
