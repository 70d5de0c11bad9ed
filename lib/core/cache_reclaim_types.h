/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_reclaim_types.h - the reclaimer's state (cache_reclaim.c's): struct dci_reclaim.
 */
#ifndef DCI_CACHE_RECLAIM_TYPES_H
#define DCI_CACHE_RECLAIM_TYPES_H

#include "cache_range.h"

/*
 * The reclaimer's state (cache_reclaim.c's: no other file names a member;
 * they use the dci_reclaim_*() accessors below and its functions).
 */
struct dci_reclaim {
	/*
	 * Ranges the reclaimer is taking to the free pool (counted from
	 * before it looks for a victim until the range is free): a miss
	 * under admission control that finds nothing idle waits for them
	 * rather than bypass.  Each decrement wakes the waiters, but moves
	 * no event: only such a miss waits for this count to fall.
	 */
	dci_atomic_t reclaiming;
	/*
	 * Evictions wait for pins until this time: DC_WAIT_FOREVER while the
	 * cache lives, the end of dc_cache_destroy()'s grace once it runs.
	 */
	dci_atomic64_t evict_deadline;
	/* The reclaimer's batch, sized remove_batch_max; its thread only. */
	struct dci_range **bg_ranges;
	struct dc_remove_entry *bg_entries;
	/* Unhashed inodes the reclaimer is to evict (pool lock). */
	struct dc_inode *evict_list;
	/*
	 * Evicted inodes that kept pinned mappings when dc_cache_destroy()
	 * gave up waiting (pool lock), for its next call.
	 */
	struct dc_inode *orphans;
};

#endif /* DCI_CACHE_RECLAIM_TYPES_H */
