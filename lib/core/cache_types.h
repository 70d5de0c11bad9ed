/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * DOC: cache_types.h - the DAX window cache's object (struct dc_cache),
 * made of the state each layer of the cache files owns, and those layers.
 *
 * Layers, top first.  A cache file calls only functions of files in a layer
 * below its own, never of its own layer or one above (tests/tree/layering-check
 * reads this list, a layer's files up to the colon, and holds the objects'
 * references to it):
 *
 *   1 cache.c, cache_map.c: the API: the cache's lifetime and statistics;
 *     dc_map() and dc_unpin() (hit, miss, upgrade, waiting for a range)
 *   2 cache_reclaim.c: every way a mapping ends: inline and background
 *     reclaim, punch, and the eviction of an inode at its last put
 *     (dc_inode_put())
 *   3 cache_admit.c: admission control (the sketch and the ghost)
 *   4 cache_pool.c, cache_inode.c: the range pool (free stack, busy ring,
 *     wake-ups of waiters and of the reclaimer, backend failure counts);
 *     the inode table (dc_inode_get(), references, free)
 *   5 cache_victim_clock.c, cache_victim_round_robin.c,
 *     cache_victim_sieve.c: the victim policies, one file each (struct
 *     dci_victim_ops), reached through the cache's table only
 *   6 cache_maptab.c: the mapping table (which range maps an index of an
 *     inode) and each inode's ring of mappings
 *
 * The drawing: calls run down the left, never up or across; on the right,
 * the state each file owns in struct dc_cache.  Only the owner names it;
 * the other files use its accessors (dci_pool_*(), dci_reclaim_*(),
 * dci_itab_*(), dci_maptab_*(), in the owner's header) or its functions
 * (tests/tree/layering-check holds both rules):
 *
 *       cache.c  cache_map.c      cfg, ops, victim, the range objects
 *          |          |           (set up), destroying, stats; the hit
 *          v          v           and miss paths keep no state of their own
 *       cache_reclaim.c           reclaim: ranges in flight, evict
 *          |                      deadline, batch arrays, deferred and
 *          v                      orphan inodes
 *       cache_admit.c             adm: the sketch and the ghost
 *          |
 *          v
 *       cache_pool.c              pool: free stack, busy ring and hand,
 *          |                      counts, waiters and events, the
 *          |                      reclaimer's worker and its kicks,
 *          |                      asked and answered; backend failure
 *          |                      counts
 *       cache_inode.c             itab: the inode table, its mutex
 *          |                      and count
 *       cache_victim_*.c          none: reached through c->victim; per
 *          |                      range, the hit count and the ring
 *          v                      place (under the pool lock)
 *       cache_maptab.c            maps: the table's buckets and locks;
 *                                 per range, its chain and ring links
 *
 * A range object (struct dci_range) is shared, field by field: see its
 * comment for who writes what, and when.
 *
 * Headers follow the layers too.  Each layer's owner declares its state in
 * cache_LAYER_types.h, which only this header (struct dc_cache) includes,
 * and its accessors and functions in cache_LAYER.h; a cache file includes
 * the headers of its own layer and of those below it, never one above
 * (tests/tree/layering-check reads the includes).  Under them all, for
 * every file: this header, cache_range.h (a range, its hits and hints),
 * cache_stats.h (the counters) and cache_pool_ring.h (the pool's lists
 * and hand, which the victim policies walk under the pool lock):
 *
 *       cache_reclaim.h           2: the reclaimer's accessors, functions
 *       cache_admit.h             3: admission control's functions
 *       cache_pool.h              4: the pool's accessors, functions
 *       cache_inode.h             4: the inode table's, an inode's hints
 *       cache_victim.h            5: struct dci_victim_ops, the policies
 *       cache_maptab.h            6: the mapping table's
 *
 * A public function sits in the layer of the work it does (dc_inode_get()
 * in the table, dc_inode_put() and dc_inode_punch() in reclaim).  What runs
 * upward does so only through the reclaimer's worker: the pool kicks it,
 * and it runs cache_reclaim.c's dci_reclaimer_fn(), which cache.c gave the
 * worker at dc_cache_create().
 *
 * Locks, outermost first: the inode table mutex (changes of the table only:
 * lookups of existing inodes take no lock); an inode's
 * mutex; the pool spinlock (free list, busy ring, counts; never held across a
 * backend call or a sleep); the admission lock (the sketch's halving,
 * taken only with a trylock).
 * A thread that holds an inode mutex takes another one only with a trylock.
 */
#ifndef DCI_CACHE_TYPES_H
#define DCI_CACHE_TYPES_H

#include "cache_admit_types.h"
#include "cache_inode_types.h"
#include "cache_maptab_types.h"
#include "cache_pool_types.h"
#include "cache_range.h"
#include "cache_reclaim_types.h"
#include "cache_stats.h"

struct dci_victim_ops;

struct dc_cache {
	struct dc_cache_config cfg;
	const struct dci_victim_ops *victim;	/* cfg.victim's */
	const struct dc_backend_ops *ops;	/* &ops_copy */
	struct dc_backend_ops ops_copy;		/* the caller's, as this library knows it */
	void *priv;
	uint64_t range_size;
	unsigned int nr_ranges;
	unsigned int threshold;		/* background reclaim below this many free */
	/*
	 * nr_ranges + 2: the pool's two list heads follow the window's, and
	 * a struct dci_pool_head precedes them (dci_pool_alloc()).
	 */
	struct dci_range *ranges;

	struct dci_pool pool;		/* cache_pool.c's */
	struct dci_reclaim reclaim;	/* cache_reclaim.c's */
	struct dci_admit adm;		/* cache_admit.c's */

	struct dci_itab itab;		/* cache_inode.c's */
	struct dci_maptab maps;		/* cache_maptab.c's */

	/* The first dc_cache_destroy() has stopped the reclaimer and emptied the table. */
	bool destroying;

	struct dci_pcounters stats;	/* enum dci_stat */
};


/*
 * The first checks of a public entry point that needs a registered caller:
 * -EINVAL unless @args_ok (its pointer and flag arguments are valid), else
 * dci_caller_check(@fn).
 */
static inline int dci_entry_check(bool args_ok, const char *fn)
{
	if (dci_unlikely(!args_ok))
		return -EINVAL;
	return dci_caller_check(fn);
}

static inline void dci_stat_add(struct dc_cache *c, enum dci_stat s, uint64_t n)
{
	dci_pcounter_add(&c->stats, s, n);
}

static inline void dci_stat_inc(struct dc_cache *c, enum dci_stat s)
{
	dci_stat_add(c, s, 1);
}

/*
 * Whether a pin slot of some thread names @r (userspace: see "Pins" in
 * cache_map.c; never in the kernel, DCI_PLAT_PIN_SLOTS 0).  Exact only
 * for a claimer that took @r's count to 0 and then issued a full barrier
 * (claim_written()); a victim walk's look before its claim is a hint.
 */
static inline bool dci_range_slot_pinned(const struct dc_cache *c,
					const struct dci_range *r)
{
	return DCI_PLAT_PIN_SLOTS && dci_pin_slots_hold(&c->stats, r);
}

/*
 * Waiters of every cache (cache_pool.c), as each cache's @waiters counts
 * its own: an unpin, which does not know its cache before it looks, looks
 * here first (see dci_range_cache()).
 */
extern dci_atomic_t dci_waiters_any DCI_HIDDEN;

/* The cache of @r, a range of the window (type-stable: any time, any state). */
static inline struct dc_cache *dci_range_cache(const struct dci_range *r)
{
	const struct dci_range *first = r - (r->win_off >> r->range_shift);

	return ((const struct dci_pool_head *)(const void *)first)[-1].cache;
}

/* A range's number: its place in the window, and in the pool's lists. */
static inline uint32_t dci_range_nr(const struct dc_cache *c, const struct dci_range *r)
{
	return (uint32_t)(r - c->ranges);
}

static inline struct dci_range *dci_range_next(const struct dc_cache *c,
					     const struct dci_range *r)
{
	return &c->ranges[r->next];
}

#endif /* DCI_CACHE_TYPES_H */
