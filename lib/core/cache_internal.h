/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * DOC: cache_internal.h - the DAX window cache's objects, shared by the
 * core's cache files, and the layers those files make.
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
 *     dc_victim_ops), reached through the cache's table only
 *   6 cache_maptab.c: the mapping table (which range maps an index of an
 *     inode) and each inode's ring of mappings
 *
 * The drawing: calls run down the left, never up or across; on the right,
 * the state each file owns in struct dc_cache.  Only the owner names it;
 * the other files use its accessors (dc_pool_*(), dc_reclaim_*(),
 * dc_itab_*(), dc_maptab_*(), below)
 * or its functions (tests/tree/layering-check holds both rules):
 *
 *       cache.c  cache_map.c      cfg, ops, victim, the range objects
 *          |          |           (set up), destroying, stats; the hit
 *          v          v           and miss paths keep no state of their own
 *       cache_reclaim.c           reclaim: kicks answered, ranges in
 *          |                      flight, evict deadline, batch arrays,
 *          v                      deferred and orphan inodes
 *       cache_admit.c             adm: the sketch and the ghost
 *          |
 *          v
 *       cache_pool.c              pool: free stack, busy ring and hand,
 *          |                      counts, waiters and events, the
 *          |                      reclaimer's worker and kicks, backend
 *          |                      failure counts
 *       cache_inode.c             itab: the inode table, its mutex
 *          |                      and count
 *       cache_victim_*.c          none: reached through c->victim; per
 *          |                      range, the hit count and the ring
 *          v                      place (under the pool lock)
 *       cache_maptab.c            maps: the table's buckets and locks;
 *                                 per range, its chain and ring links
 *
 * A range object (struct dc_range) is shared, field by field: see its
 * comment for who writes what, and when.
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
#ifndef DC_CACHE_INTERNAL_H
#define DC_CACHE_INTERNAL_H

#include "platform.h"

#include <daxcache/cache.h>

/*
 * One window range.  Type-stable for the life of the cache: a reader that
 * raced with reclaim may hold a stale pointer, but it always points at a
 * range object.  @ref: 0 = free or being reclaimed; 1 = mapped and idle;
 * 1 + n = mapped with n pins.  @owner, @index and @gen change only while
 * @ref is 0, by the thread that claimed the range, and are published by the
 * release that sets @ref again; @gen also moves under the owner's mutex while
 * pinned, when an upgrade makes the mapping writable.  Every setup moves @gen
 * (dc_range_gen_next()), and its low bit says whether the mapping is
 * writable: one word, so that a pin reads both with one load and a hit that
 * saw the bit set fills its pin with the generation that set it.
 *
 * 55 bytes of fields, one cache line each in an array (see docs/design.md,
 * "Memory per range"): a hit pinned in a slot of its thread (userspace,
 * see "Pins" in cache_map.c) writes no range's line once the hit count is
 * at its cap; a counted pin writes its own range's line and no other's, so
 * threads that hit different ranges never share a written line.  What the hit path reads first, the pool's
 * links last.  Its cache is found
 * from the range itself (dci_range_cache()).  @owner and @index are also
 * the range's key in the mapping table (cache_maptab.c): a miss writes its
 * own under the new owner's mutex before the insert, while the count is 0
 * and the setup still to come (map_new()); what the backend maps until the
 * setup succeeds is the claimer's to remember (struct dc_range_backend).
 */
struct dc_range {
	dc_refcount_t ref;
	/*
	 * Hits since the victim scan last passed: each hit adds one (a plain
	 * increment: concurrent hits may lose one), except that a hit pinned
	 * in a slot adds nothing once the count is at DC_RANGE_HITS_MAX, so
	 * that the hits of a hot range stop writing its line (dc_range_hit());
	 * a counted pin writes the line anyway, and adds.  Each setup sets 0,
	 * and the scan takes them into the admission sketch
	 * (dc_range_hits_take()), whose counters stop at 255.  Wraps only
	 * after 2^32 counted hits between two passes.
	 */
	uint32_t hits;
	/*
	 * The backend maps @index of @owner here, for the remove that tears
	 * it down; kept by whoever owns the range at count 0.
	 */
	bool backend_mapped;
	uint8_t range_shift;		/* constant: the cache's (dci_range_cache()) */
	/*
	 * A setup of this range is in flight, with no lock held: a miss's
	 * (count 0, in the mapping table as a pending entry) or an upgrade's
	 * (pinned).  Set under the inode mutex by the thread that starts it,
	 * cleared with release by that thread when done; whoever finds it set
	 * waits for it to clear (dci_pool_setup_wait()).
	 */
	bool setting_up;
	/*
	 * Non-zero: mapped for a miss that continued a sequential stream of
	 * this stride (in 1/65536 of a range: admission control's
	 * stream_stride()), and the stream may still be reading it: the
	 * victim walks count its hits as one reference a pass until a pass
	 * finds none (cache_reclaim.c's seen_refs()).  Written by the miss
	 * that claimed the range before it is published, cleared by a walk
	 * (pool lock or owner's mutex; a racing walk writes the same).
	 */
	uint16_t stream_stride;
	uint64_t gen;			/* moved by each setup; low bit: writable */
	struct dc_inode *owner;
	uint64_t index;			/* file range index */
	uint64_t win_off;		/* constant */
	/* Free stack or busy ring, by range number (dc_rlist_*()); pool lock. */
	uint32_t next, prev;
	/*
	 * The mapping table's (cache_maptab.c): the next range of the hash
	 * chain, by number (written under the chain's lock, read lock-free).
	 * Its other links, which no hit reads, are in the table's own array
	 * (struct dci_maplink).
	 */
	uint32_t hnext;
} __dc_cacheline_aligned;

dc_static_assert(sizeof(struct dc_range) == DC_CACHELINE,
		 "struct dc_range is one cache line: see docs/design.md, \"Memory per range\"");

/*
 * What the backend maps in a range (its inode number and range index), for
 * a remove: taken while the owner is known to live, since the remove may be
 * sent after the owner is gone (dci_reclaim_inline(), dci_range_release()).
 */
struct dc_range_backend {
	uint64_t ino;
	uint64_t index;
};

/* The generation after @gen of a setup that maps writable or not (never 0). */
static inline uint64_t dc_range_gen_next(uint64_t gen, bool writable)
{
	return ((gen + 2) & ~1ull) | (writable ? 1 : 0);
}

static inline bool dc_range_writable(const struct dc_range *r)
{
	return dc_read_once(r->gen) & 1;
}

/*
 * Hit hints: for each range index below DC_HINT_LEAF_SLOTS of an inode, the
 * range that mapped it last, in the inode itself (@hint_near): a file of up
 * to 64 ranges, the common case, pays one compare and one load for its
 * hint.  Other indexes go to the mapping table, whose lookup costs a hash
 * and a chain of about one range (dc_maptab_lookup()).  A hint is never
 * trusted: range objects are type-stable, so the hit path pins whatever a
 * hint points at and keeps the pin only if the identity check passes; a
 * stale hint just sends it on to the table.  An empty slot points at
 * dci_range_none, so that the hit path follows it without a test for NULL.
 * Misses store hints under the inode mutex, hits refresh them without it;
 * nothing is allocated.
 */
#define DC_HINT_LEAF_SHIFT	6
#define DC_HINT_LEAF_SLOTS	(1u << DC_HINT_LEAF_SHIFT)

struct dc_hint_leaf {
	struct dc_range *slot[DC_HINT_LEAF_SLOTS];
};


/*
 * What an empty hint points at (cache_inode.c): a range object that maps
 * nothing (no owner), so that the hit path follows every hint without a
 * test for NULL and fails the identity check.  Never pinned, never written.
 */
extern struct dc_range dci_range_none;
/* An empty leaf: every slot at dci_range_none. */
extern struct dc_hint_leaf dci_hint_leaf_none;

struct dc_inode {
	/* The hints of indexes below DC_HINT_LEAF_SLOTS: first, no offset to add. */
	struct dc_hint_leaf hint_near;
	/* The cache's, copied for the hit path (dc_inode_hit_init()). */
	dc_pcounter_ref_t stats;	/* c->stats: dc_pcounter_ref_ready() */
	uint64_t range_size;
	unsigned int range_shift;
	/* The mapping table's, and this inode's place in it: dc_maptab_bucket(). */
	uint32_t map_mask, map_salt;
	uint32_t *map_bucket;
	struct dc_range *ranges;
	struct dc_cache *cache;
	uint64_t id;
	dc_refcount_t ref;
	dc_mutex_t mutex;		/* serializes table writers and claims */
	/*
	 * The ring of this inode's ranges in the mapping table (by range
	 * number, DCI_MAP_NONE when empty), how many, where the own-inode
	 * victim walk goes on, and the last punch walk's number
	 * (cache_maptab.c, cache_reclaim.c); the mutex.
	 */
	uint32_t maps_head;
	uint32_t nr_maps;
	uint32_t reclaim_cursor;
	uint32_t drop_seq;
	/* Inode table chains, one per table generation (cache_inode.c). */
	struct dc_inode __rcu *hash_next[2];
	struct dc_inode *evict_next;	/* evict_list or orphans; pool lock */
	dc_rcu_head_t rcu;
};

/* Counters, per thread (per CPU in the kernel): a hit adds without a locked instruction. */
enum dc_stat {
	DC_STAT_HITS,
	DC_STAT_MISSES,
	DC_STAT_UPGRADES,
	DC_STAT_INLINE_RECLAIMS,
	DC_STAT_BG_RECLAIMS,
	DC_STAT_REMOVES_SENT,
	DC_STAT_REMOVES_SKIPPED,
	DC_STAT_REMOVE_BATCHES,
	DC_STAT_REMOVE_FAILURES,
	DC_STAT_WAITS,
	DC_STAT_WAIT_NS,
	DC_STAT_SETUP_FAILURES,
	DC_STAT_WRITEBACKS,
	DC_STAT_WRITEBACK_FAILURES,
	DC_STAT_BYPASS_FULL,
	DC_STAT_BYPASS_BUSY,
	DC_STAT_BYPASS_WRITE,
	DC_STAT_ADMITS_CONTESTED,
	DC_STAT_BG_PASSES,
	DC_STAT_BYPASS_BUDGET,		/* of DC_STAT_BYPASS_FULL */
	DC_STAT_NR
};

/* The backend ops, for counting and logging their failures. */
enum dc_backend_op {
	DC_BE_SETUP,
	DC_BE_REMOVE,
	DC_BE_WRITEBACK,
	DC_BE_NR
};

/* Appended to each failure line: see dci_backend_failed(). */
#define DC_BE_FAIL_NOTE	" (failure %u of this op; only the 1st, 2nd, 4th, 8th... are logged)"


/*
 * Admission control (cache_admit.c), allocated under DC_ADMIT_FREQ only.
 * A count-min sketch of one-byte counters (saturating at 255) with two
 * hashes of (inode id, range index), halved every @sample increments, and a
 * direct-mapped table of recent misses (the ghost): in each slot a miss's
 * fingerprint, its position in its range and the forward steps that led
 * there (stream recognition), one 64-bit word.  Every update is on a miss
 * or a victim scan, never on a hit, and takes no lock: counters and ghost
 * slots are read and written with relaxed single-copy atomic accesses, and
 * a racing update may be lost (see cache_admit.c, "Races").  @lock is
 * taken only with a trylock, by the one thread that halves the sketch; it
 * is innermost (the hand counts hits under the pool lock).  @incs, which
 * every miss writes, has a line of its own, away from the read-mostly
 * fields before it and what follows in struct dc_cache; the eviction
 * budget's two words share it (@aged is written by the halving, @evict_at
 * by an eviction the budget pays for, and both are read only by a miss
 * that could win its contest), so the budget adds no line to a miss's.
 */
struct dc_admit {
	dc_spinlock_t lock;
	uint8_t *sketch;
	uint64_t *ghost;
	uint32_t sketch_mask;
	uint32_t ghost_mask;
	uint32_t sample;		/* halve after this many */
	uint32_t interval;		/* cfg.admit_evict_interval; 0: no budget */
	/* Increments since the last halving (dc_inc_racy()). */
	uint32_t incs __dc_cacheline_aligned;
	/* The increments of the halvings before: @aged + @incs is the clock. */
	uint64_t aged;
	/* The budget: no eviction on a count before the clock reaches this. */
	uint64_t evict_at;
} __dc_cacheline_aligned;

/* A miss under admission control, as dci_admit_note_miss() saw it. */
struct dc_admit_cand {
	uint64_t ino;
	uint64_t index;
	unsigned int est;		/* its estimate, this miss included */
	bool recent;			/* it was in the ghost: missed recently */
	uint16_t stride;		/* of the stream it continues; 0: none */
	bool write;			/* a write: never worth a victim */
	bool weak;			/* @est loses even to a victim of 0 */
};

/*
 * Whether @cand loses a contest against any victim (dci_admit_contest()):
 * a write, or a read that is not a stream's next read and is either not
 * recent or too rarely referenced to pay for a setup over any victim.
 */
static inline bool dc_admit_cand_hopeless(const struct dc_admit_cand *cand)
{
	return cand->write || (!cand->stride && (!cand->recent || cand->weak));
}

/*
 * A victim policy: which idle mapping reclaim takes.  Each is one file,
 * cache_victim_NAME.c, that defines its table as dci_victim_NAME (declared
 * with the layer's functions below), and one line of cache.c's
 * victim_policies[] that registers it under its value of enum
 * dc_victim_policy (cfg.victim chooses it; dc_cache_create() copies the
 * table's address into c->victim).  What a policy decides:
 *
 * - on a hit: nothing is called.  Every hit adds one to the range's
 *   @hits, inline, whatever the policy (a hit pinned in a slot only up to
 *   DC_RANGE_HITS_MAX: dc_range_hit()); a test of the policy or an
 *   indirect call would cost more.
 * - on a miss that maps: @mapped links the new mapping, its @hits 0, into
 *   the busy ring (pool lock held): where it goes decides when the hand
 *   reaches it.
 * - when reclaim looks for a victim: the hand walks the busy ring in its
 *   order (next: from older setups to newer, as linked), the own-inode
 *   walk of inline reclaim the inode's mappings in file order.  Of each
 *   idle mapping they pass, the walk takes the hits since the last pass
 *   (dc_range_hits_take(): counted by admission control, whatever the
 *   policy, so that a mapped range is measured as a missed one is), and
 *   @spare (NULL: none) says from that count whether it gets another turn.
 * - the state it keeps per range: @hits and the place in the busy ring,
 *   nothing more (struct dc_range keeps no policy fields); per cache,
 *   none of its own: the ring and the hand are the pool's, reached through
 *   dc_pool_hand() and dc_pool_busy_head().
 *
 * @mapped runs under the pool lock; @spare under the pool lock (the hand)
 * or the owner's inode mutex (the own walk).  Neither calls a function of
 * another cache file.
 */
struct dc_victim_ops {
	void (*mapped)(struct dc_cache *c, struct dc_range *r);
	bool (*spare)(struct dc_range *r, uint32_t hits);
};

/* Where a range's hit count stops between two passes of the victim scan. */
#define DC_RANGE_HITS_MAX	255

/*
 * Count a hit of @r pinned in a slot, unless its count is at
 * DC_RANGE_HITS_MAX: then write nothing, so that a hot range's line stays
 * shared among the threads that hit it.  A plain read, folded into the
 * compare.  (A counted pin has written the line: it adds, dc_inc_racy().)
 */
static dc_always_inline void dc_range_hit(struct dc_range *r)
{
	if (dc_read_racy(r->hits) < DC_RANGE_HITS_MAX)
		dc_inc_racy(r->hits);
}

/*
 * Take @r's hits since the last look (each hit adds one, up to
 * DC_RANGE_HITS_MAX): read them and set 0.  A hit that races with this
 * may count once more or once less.
 */
static inline uint32_t dc_range_hits_take(struct dc_range *r)
{
	uint32_t n = dc_read_once(r->hits);

	if (n)
		dc_write_once(r->hits, 0);
	return n;
}

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
	 * Wake-ups of the reclaimer: its worker, and the kicks it answers
	 * (struct dc_reclaim's @answered: dc_cache_stats' @bg_pending).
	 */
	struct dc_worker reclaimer;
	dc_atomic_t reclaimer_stopping;
	dc_atomic64_t reclaimer_kicks;

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
 * The reclaimer's state (cache_reclaim.c's: no other file names a member;
 * they use the dc_reclaim_*() accessors below and its functions).
 */
struct dc_reclaim {
	/*
	 * The count of kicks a run read when it began, stored when that run
	 * ended: equal to the pool's kicks when every kick was answered.
	 */
	dc_atomic64_t answered;
	/*
	 * Ranges the reclaimer is taking to the free pool (counted from
	 * before it looks for a victim until the range is free): a miss
	 * under admission control that finds nothing idle waits for them
	 * rather than bypass.  Each decrement wakes the waiters, but moves
	 * no event: only such a miss waits for this count to fall.
	 */
	dc_atomic_t reclaiming;
	/*
	 * Evictions wait for pins until this time: DC_WAIT_FOREVER while the
	 * cache lives, the end of dc_cache_destroy()'s grace once it runs.
	 */
	dc_atomic64_t evict_deadline;
	/* The reclaimer's batch, sized remove_batch_max; its thread only. */
	struct dc_range **bg_ranges;
	struct dc_remove_entry *bg_entries;
	/* Unhashed inodes the reclaimer is to evict (pool lock). */
	struct dc_inode *evict_list;
	/*
	 * Evicted inodes that kept pinned mappings when dc_cache_destroy()
	 * gave up waiting (pool lock), for its next call.
	 */
	struct dc_inode *orphans;
};

/*
 * The inode table's state (cache_inode.c's: no other file names a member;
 * they use dc_itab_*() below and its functions).  Changed under @lock.
 */
struct dc_itab {
	dc_mutex_t lock;
	unsigned long nr;		/* inodes hashed */
	struct dc_inode_table __rcu *table;
	int links_busy;			/* a retired table is still read */
};

/*
 * The mapping table (cache_maptab.c's; other files use dc_maptab_*()):
 * 2^@bits buckets, each the number of its chain's first range or
 * DCI_MAP_NULLS with its own number; @locks, @lock_mask + 1 of them, guard
 * the chains' writers, a bucket's lock being @locks[bucket & @lock_mask].
 */
#define DCI_MAP_NULLS	0x80000000u
#define DCI_MAP_NONE	UINT32_MAX	/* no range: an empty ring, an unlinked range */

/*
 * A range's place in its owner's ring of mappings, by range number
 * (DCI_MAP_NONE: in no ring), and the number of the last punch walk that
 * passed it (cache_reclaim.c); the owner's mutex.  Off the range's own
 * line: no hit reads them.
 */
struct dci_maplink {
	uint32_t inext, iprev;
	uint32_t drop_seq;
};

struct dc_maptab {
	uint32_t *bucket;
	struct dci_maplink *links;	/* one per range, by number */
	dc_spinlock_t *locks;
	unsigned int bits;
	unsigned int lock_mask;
};

struct dc_cache {
	struct dc_cache_config cfg;
	const struct dc_victim_ops *victim;	/* cfg.victim's */
	const struct dc_backend_ops *ops;	/* &ops_copy */
	struct dc_backend_ops ops_copy;		/* the caller's, as this library knows it */
	void *priv;
	uint64_t range_size;
	unsigned int nr_ranges;
	unsigned int threshold;		/* background reclaim below this many free */
	/*
	 * nr_ranges + 2: the pool's two list heads follow the window's, and
	 * a struct dc_pool_head precedes them (dci_pool_alloc()).
	 */
	struct dc_range *ranges;

	struct dc_pool pool;		/* cache_pool.c's */
	struct dc_reclaim reclaim;	/* cache_reclaim.c's */
	struct dc_admit adm;		/* cache_admit.c's */

	struct dc_itab itab;		/* cache_inode.c's */
	struct dc_maptab maps;		/* cache_maptab.c's */

	/* The first dc_cache_destroy() has stopped the reclaimer and emptied the table. */
	bool destroying;

	struct dc_pcounters stats;	/* enum dc_stat */
};

/* The mapping table's part of a new inode of @c: copies for the lookups. */
static inline void dc_maptab_inode_init(struct dc_inode *inode, struct dc_cache *c)
{
	inode->map_mask = (1u << c->maps.bits) - 1;
	/* Where its index 0 goes: a hash of the object's address. */
	inode->map_salt = (uint32_t)(((uintptr_t)inode * 0x9e3779b97f4a7c15ull) >> 32);
	inode->map_bucket = c->maps.bucket;
	inode->ranges = c->ranges;
	inode->maps_head = DCI_MAP_NONE;
	inode->reclaim_cursor = DCI_MAP_NONE;
}

/*
 * The bucket of (@inode, @index) in its cache's mapping table: the inode's
 * indexes in consecutive buckets from a place of its own (so that a file
 * of any size spreads over the table without collisions of its own, and
 * a sequential read walks the buckets in order); other inodes' places are
 * elsewhere, by the hash of their addresses.  Two lines of the hit path.
 */
static inline uint32_t dc_maptab_bucket(const struct dc_inode *inode,
					uint64_t index)
{
	return ((uint32_t)index + inode->map_salt) & inode->map_mask;
}

/*
 * A walk of bucket @b's chain, step by step (for the hit path, which walks
 * it inline: dc_maptab_walk() is the same walk): the first link, whether
 * a link is the chain's end (a nulls word), the range a link names, and
 * the link after a range.  Lock-free: loads with acquire.
 */
static dc_always_inline uint32_t dc_maptab_chain_first(const struct dc_inode *inode,
						       uint32_t b)
{
	return dc_load_acquire(&inode->map_bucket[b]);
}

static dc_always_inline bool dc_maptab_chain_end(uint32_t v)
{
	return v & DCI_MAP_NULLS;
}

static dc_always_inline struct dc_range *dc_maptab_chain_range(const struct dc_inode *inode,
							       uint32_t v)
{
	return &inode->ranges[v];
}

static dc_always_inline uint32_t dc_maptab_chain_next(const struct dc_range *r)
{
	return dc_load_acquire(&r->hnext);
}

/*
 * One walk of bucket @b's chain for the range whose key is (@inode,
 * @index): the range, or NULL at the chain's end, whose word then is in
 * *@end (another bucket's nulls word when a range moved under the walk).
 * With @genp, each range's generation is loaded before its identity is
 * compared, as try_pin() does (the hit path's walk); without, the compiler
 * drops the loads.
 */
static dc_always_inline struct dc_range *
dc_maptab_walk(const struct dc_inode *inode, uint32_t b, uint64_t index,
	       uint32_t *end, uint64_t *genp)
{
	uint32_t v = dc_maptab_chain_first(inode, b);
	struct dc_range *r;

	for (; !dc_maptab_chain_end(v); v = dc_maptab_chain_next(r)) {
		r = dc_maptab_chain_range(inode, v);
		if (genp)
			*genp = dc_load_acquire(&r->gen);
		if (dc_read_once(r->owner) == inode && dc_read_once(r->index) == index)
			return r;
	}
	*end = v;
	return NULL;
}

/*
 * The range whose key is (@inode, @index) in the mapping table, or NULL.
 * No lock, no RCU section: the caller holds a reference to @inode.  Without
 * @inode's mutex the answer may be stale by the time it is used, and a
 * range found may be changing hands (the caller validates it: try_pin());
 * under the mutex it is exact (see cache_maptab.c).
 */
static inline struct dc_range *dc_maptab_lookup(const struct dc_inode *inode,
						uint64_t index)
{
	/* (@end is read only after a walk that found nothing set it.) */
	uint32_t b = dc_maptab_bucket(inode, index), end = 0;
	struct dc_range *r;

	do {
		r = dc_maptab_walk(inode, b, index, &end, NULL);
		/* Off the end of another chain: a range moved under us. */
	} while (!r && dc_unlikely(end != (DCI_MAP_NULLS | b)));
	return r;
}

/* @inode's mappings now: exact under its mutex, else a racy look. */
static inline unsigned int dc_maptab_count(const struct dc_inode *inode)
{
	return dc_read_once(inode->nr_maps);
}

/* The first range of @inode's ring, the newest, or NULL.  The inode mutex. */
static inline struct dc_range *dc_maptab_first(const struct dc_cache *c,
					       const struct dc_inode *inode)
{
	return inode->maps_head == DCI_MAP_NONE ? NULL : &c->ranges[inode->maps_head];
}

/* The ring links of @r. */
static inline struct dci_maplink *dc_maptab_link(const struct dc_cache *c,
						 const struct dc_range *r)
{
	return &c->maps.links[r - c->ranges];
}

/* The oldest range of @inode's ring (the head's predecessor), or NULL.  The mutex. */
static inline struct dc_range *dc_maptab_oldest(const struct dc_cache *c,
						const struct dc_inode *inode)
{
	return inode->maps_head == DCI_MAP_NONE ? NULL :
	       &c->ranges[c->maps.links[inode->maps_head].iprev];
}

/*
 * The range that joined @r's owner's ring after @r, or the oldest after the
 * newest (@r itself when alone).  The inode mutex.
 */
static inline struct dc_range *dc_maptab_newer(const struct dc_cache *c,
					       const struct dc_range *r)
{
	return &c->ranges[dc_maptab_link(c, r)->iprev];
}

/* Make the second range of @inode's ring its head, the head its tail.  The mutex. */
static inline void dc_maptab_rotate(const struct dc_cache *c, struct dc_inode *inode)
{
	inode->maps_head = c->maps.links[inode->maps_head].inext;
}

/* The number of the last punch walk that passed @r.  Its owner's mutex. */
static inline uint32_t *dc_maptab_drop_seq(const struct dc_cache *c,
					   const struct dc_range *r)
{
	return &dc_maptab_link(c, r)->drop_seq;
}

/*
 * The pool's accessors, for the files other than cache_pool.c
 * (tests/tree/layering-check: only functions named dc_pool_*() or
 * dc_waiters_*() here, and cache_pool.c, name its members).
 */
static inline void dc_pool_lock(struct dc_cache *c)
{
	dc_spin_lock(&c->pool.lock);
}

static inline void dc_pool_unlock(struct dc_cache *c)
{
	dc_spin_unlock(&c->pool.lock);
}

/* Free ranges now: a racy look, or exact under the pool lock. */
static inline unsigned int dc_pool_nr_free(const struct dc_cache *c)
{
	return dc_read_once(c->pool.nr_free);
}

/* Mapped ranges (on the busy ring) now: a racy look, or exact under the pool lock. */
static inline unsigned int dc_pool_nr_mapped(const struct dc_cache *c)
{
	return dc_read_once(c->pool.nr_mapped);
}

/* The busy ring's head, which maps nothing (pool lock, or constant). */
static inline struct dc_range *dc_pool_busy_head(const struct dc_cache *c)
{
	return c->pool.busy;
}

/* Where the hand is: the next victim candidate.  Pool lock. */
static inline struct dc_range *dc_pool_hand(const struct dc_cache *c)
{
	return c->pool.hand;
}

/* Move the hand one on; returns where it was (maybe the head).  Pool lock. */
static inline struct dc_range *dc_pool_hand_advance(struct dc_cache *c)
{
	struct dc_range *pos = c->pool.hand;

	c->pool.hand = &c->ranges[pos->next];
	return pos;
}

/* The count of frees and unpins-to-idle seen while someone waits. */
static inline uint64_t dc_pool_events(struct dc_cache *c)
{
	return dc_atomic64_read(&c->pool.events);
}

/* The queue waiters for a range sleep on. */
static inline struct dc_waitq *dc_pool_waitq(struct dc_cache *c)
{
	return &c->pool.waitq;
}

/* Whether anyone waits for a range of @c (after a full barrier: see dc_waiters_enter()). */
static inline bool dc_pool_has_waiters(struct dc_cache *c)
{
	return dc_atomic_read(&c->pool.waiters);
}

/* A waiter goes to sleep for a range, or wakes: the @nr_waiting gauge. */
static inline void dc_pool_sleep_begin(struct dc_cache *c)
{
	dc_atomic_inc(&c->pool.sleeping);
}

static inline void dc_pool_sleep_end(struct dc_cache *c)
{
	dc_atomic_dec(&c->pool.sleeping);
}

static inline unsigned int dc_pool_nr_sleeping(struct dc_cache *c)
{
	return (unsigned int)dc_atomic_read(&c->pool.sleeping);
}

/* The reclaimer's kicks so far, and whether destroy stopped it. */
static inline uint64_t dc_pool_kicks(struct dc_cache *c)
{
	return dc_atomic64_read(&c->pool.reclaimer_kicks);
}

static inline bool dc_pool_reclaimer_stopping(struct dc_cache *c)
{
	return dc_atomic_read(&c->pool.reclaimer_stopping);
}

/* The cache whose reclaimer worker @w is. */
static inline struct dc_cache *dc_pool_worker_cache(struct dc_worker *w)
{
	return dc_container_of(w, struct dc_cache, pool.reclaimer);
}

/* The inode table's accessor: inodes hashed now (a racy look). */
static inline unsigned long dc_itab_nr_inodes(const struct dc_cache *c)
{
	return dc_read_once(c->itab.nr);
}

/*
 * The reclaimer's accessors, for the files other than cache_reclaim.c:
 * ranges it is taking to the free pool now (see struct dc_reclaim).
 */
static inline bool dc_reclaim_in_flight(struct dc_cache *c)
{
	return dc_atomic_read(&c->reclaim.reclaiming);
}

/*
 * Whether a pin slot of some thread names @r (userspace: see "Pins" in
 * cache_map.c; never in the kernel, DC_PLAT_PIN_SLOTS 0).  Exact only
 * for a claimer that took @r's count to 0 and then issued a full barrier
 * (claim_written()); a victim walk's look before its claim is a hint.
 */
static inline bool dc_range_slot_pinned(const struct dc_cache *c,
					const struct dc_range *r)
{
	return DC_PLAT_PIN_SLOTS && dci_pin_slots_hold(&c->stats, r);
}

/*
 * The hit path's part of a new inode of @c: copies of the cache's, no hint,
 * no mapping.
 */
static inline void dc_inode_hit_init(struct dc_inode *inode, struct dc_cache *c)
{
	inode->stats = dc_pcounter_ref(&c->stats);
	inode->range_size = c->range_size;
	inode->range_shift = c->cfg.range_shift;
	inode->hint_near = dci_hint_leaf_none;
	dc_maptab_inode_init(inode, c);
}

/*
 * The hint of @index in @inode: a range to try_pin(), which fails its
 * identity check when it is none (dci_range_none), as it is past the
 * inode's own hints (the mapping table answers for those).  Lock-free; the
 * caller holds a reference to @inode.
 */
static inline struct dc_range *dc_hint_get(struct dc_inode *inode, uint64_t index)
{
	if (dc_likely(index < DC_HINT_LEAF_SLOTS))
		return dc_read_once(inode->hint_near.slot[index]);
	return &dci_range_none;
}

/*
 * Make @r the hint of @index in @inode, if the index has one, storing only
 * when the hint differs: a hit writes no shared line but the pin's.  @r
 * maps @index: pinned by a hit that found it, or about to be set up by a
 * miss under the inode mutex (a pending entry, whose identity fails every
 * hit's check until the setup publishes it).  Lock-free.  A racing store
 * of another validated hint may win: hints are never trusted.
 */
static inline void dc_hint_refresh(struct dc_inode *inode, uint64_t index,
				   struct dc_range *r)
{
	if (index < DC_HINT_LEAF_SLOTS &&
	    dc_read_once(inode->hint_near.slot[index]) != r)
		dc_write_once(inode->hint_near.slot[index], r);
}

/*
 * The first checks of a public entry point that needs a registered caller:
 * -EINVAL unless @args_ok (its pointer and flag arguments are valid), else
 * dc_caller_check(@fn).
 */
static inline int dci_entry_check(bool args_ok, const char *fn)
{
	if (dc_unlikely(!args_ok))
		return -EINVAL;
	return dc_caller_check(fn);
}

static inline void dc_stat_add(struct dc_cache *c, enum dc_stat s, uint64_t n)
{
	dc_pcounter_add(&c->stats, s, n);
}

static inline void dc_stat_inc(struct dc_cache *c, enum dc_stat s)
{
	dc_stat_add(c, s, 1);
}

/*
 * Waiters of every cache (cache_pool.c), as each cache's @waiters counts
 * its own: an unpin, which does not know its cache before it looks, looks
 * here first (see dci_range_cache()).
 */
extern dc_atomic_t dci_waiters_any DC_HIDDEN;

/*
 * The window's range objects (c->ranges) follow one of these, so that a
 * range finds its cache from its own fields: its number is its window
 * offset over the range size.
 */
struct dc_pool_head {
	struct dc_cache *cache;
} __dc_cacheline_aligned;

/* The cache of @r, a range of the window (type-stable: any time, any state). */
static inline struct dc_cache *dci_range_cache(const struct dc_range *r)
{
	const struct dc_range *first = r - (r->win_off >> r->range_shift);

	return ((const struct dc_pool_head *)(const void *)first)[-1].cache;
}

/*
 * Wait for a range: register before looking again, and leave when done.
 * The barrier orders the registration before that look, against the look
 * at @waiters that follows each free and unpin (dci_pool_put_free(),
 * dc_unpin()): either the look finds what they freed, or they wake us.
 */
static inline void dc_waiters_enter(struct dc_cache *c)
{
	dc_atomic_inc(&c->pool.waiters);
	dc_atomic_inc(&dci_waiters_any);
	dc_smp_mb__after_atomic();
}

static inline void dc_waiters_leave(struct dc_cache *c)
{
	dc_atomic_dec(&dci_waiters_any);
	dc_atomic_dec(&c->pool.waiters);
}

/*
 * The pool's lists link ranges by number, circular, each through a head: a
 * range object past the window's, that maps nothing (see dci_pool_init()).
 * Pool lock.
 */
static inline uint32_t dc_range_nr(const struct dc_cache *c, const struct dc_range *r)
{
	return (uint32_t)(r - c->ranges);
}

static inline struct dc_range *dc_range_next(const struct dc_cache *c,
					     const struct dc_range *r)
{
	return &c->ranges[r->next];
}

static inline void dc_rlist_init(const struct dc_cache *c, struct dc_range *h)
{
	h->next = h->prev = dc_range_nr(c, h);
}

static inline bool dc_rlist_empty(const struct dc_cache *c, const struct dc_range *h)
{
	return h->next == dc_range_nr(c, h);
}

/* Insert @r before @at (at the tail when @at is the head). */
static inline void dc_rlist_add_before(const struct dc_cache *c, struct dc_range *r,
				       struct dc_range *at)
{
	uint32_t n = dc_range_nr(c, r);

	r->prev = at->prev;
	r->next = dc_range_nr(c, at);
	c->ranges[at->prev].next = n;
	at->prev = n;
}

static inline void dc_rlist_del(const struct dc_cache *c, struct dc_range *r)
{
	c->ranges[r->prev].next = r->next;
	c->ranges[r->next].prev = r->prev;
	r->next = r->prev = dc_range_nr(c, r);
}

/*
 * The functions each file gives the layers above it, by layer (see the
 * DOC block above), top first.
 */

/* 2: cache_reclaim.c */
struct dc_range *dci_reclaim_inline(struct dc_cache *c, struct dc_inode *self,
				    const struct dc_admit_cand *cand,
				    bool *refused, struct dc_range_backend *was);
void dci_range_release(struct dc_cache *c, struct dc_range *r,
		       const struct dc_range_backend *was, bool on_busy);
void dci_reclaimer_fn(struct dc_worker *w);
void dci_inode_evict(struct dc_inode *inode);
int dci_reclaim_init(struct dc_cache *c);
void dci_reclaim_fini(struct dc_cache *c);
uint64_t dci_reclaim_answered(struct dc_cache *c);
void dci_reclaim_set_deadline(struct dc_cache *c, uint64_t deadline);
void dci_reclaim_evict_deferred(struct dc_cache *c);
bool dci_reclaim_evict_orphans(struct dc_cache *c);

/* 3: cache_admit.c */
int dci_admit_init(struct dc_cache *c);
void dci_admit_fini(struct dc_cache *c);
void dci_admit_note_miss(struct dc_cache *c, struct dc_inode *inode,
			 uint64_t file_off, bool write, struct dc_admit_cand *cand);
void dci_admit_seen(struct dc_cache *c, uint64_t ino, uint64_t index,
		    uint32_t hits);
bool dci_admit_write_hit(struct dc_cache *c, uint64_t ino, uint64_t index);
bool dci_admit_contest(struct dc_cache *c, const struct dc_admit_cand *cand,
		       uint64_t victim_ino, uint64_t victim_index);
bool dci_admit_over_budget(struct dc_cache *c, const struct dc_admit_cand *cand);

/* Whether a dc_map() call with @flags is under admission control. */
static inline bool dc_admit_applies(const struct dc_cache *c, unsigned int flags)
{
	return (flags & DC_MAP_MAY_BYPASS) && c->cfg.admit == DC_ADMIT_FREQ;
}

/* 4: cache_pool.c */
struct dc_range *dci_pool_alloc(unsigned int nr_ranges);
void dci_pool_free(struct dc_range *ranges);
void dci_pool_init(struct dc_cache *c);
void dci_pool_fini(struct dc_cache *c);
int dci_pool_reclaimer_start(struct dc_cache *c, void (*fn)(struct dc_worker *w));
void dci_pool_reclaimer_stop(struct dc_cache *c);
void dci_pool_counts(struct dc_cache *c, unsigned int *nr_free,
		     unsigned int *nr_mapped);
void dci_cache_wake(struct dc_cache *c);
void dci_reclaimer_kick(struct dc_cache *c);
void dci_pool_setup_wait(struct dc_cache *c, struct dc_range *r);
void dci_pool_setup_wake(struct dc_cache *c);
struct dc_range *dci_pool_take_free(struct dc_cache *c, bool may_kick,
				    bool *kickp);
void dci_pool_put_free(struct dc_cache *c, struct dc_range *r);
void dci_pool_put_free_many(struct dc_cache *c, struct dc_range **ranges,
			    unsigned int n, bool on_busy);
void dci_pool_add_busy(struct dc_cache *c, struct dc_range *r);
void dci_pool_del_busy(struct dc_cache *c, struct dc_range *r);
int dci_backend_failed(struct dc_cache *c, enum dc_backend_op op, int ret,
		       unsigned int *nth);

/*
 * Start a setup of @r with no lock held: whoever finds @r (a pending entry
 * of the mapping table, or a mapping being upgraded) waits for
 * dc_pool_setup_end() rather than start its own.  The inode mutex held.
 */
static inline void dc_range_setup_begin(struct dc_range *r)
{
	dc_write_once(r->setting_up, true);
}

/*
 * The setup in flight on @r is over: clear the mark, then wake whoever waits
 * for it.  The barrier orders the clear before the look at the waiters'
 * count, against a waiter's count before its look at the mark
 * (dci_pool_setup_wait()): either it sees the mark clear, or we see it.
 */
static inline void dc_pool_setup_end(struct dc_cache *c, struct dc_range *r)
{
	dc_store_release(&r->setting_up, false);
	dc_smp_mb();
	if (dc_unlikely(dc_atomic_read(&c->pool.setup_waiters)))
		dci_pool_setup_wake(c);
}

/* 4: cache_inode.c */
int dci_inode_table_init(struct dc_cache *c);
struct dc_inode *dci_inode_table_unhash_next(struct dc_cache *c,
					     unsigned long *bucket);
void dci_inode_table_fini(struct dc_cache *c);
bool dci_inode_tryhold(struct dc_inode *inode);

bool dci_inode_put_unhash(struct dc_inode *inode);
void dci_inode_free(struct dc_inode *inode);

/* 6: cache_maptab.c */
int dci_maptab_init(struct dc_cache *c);
void dci_maptab_fini(struct dc_cache *c);
void dci_maptab_insert(struct dc_cache *c, struct dc_range *r);
void dci_maptab_remove(struct dc_cache *c, struct dc_range *r);

/* 5: cache_victim_*.c, one victim policy each (struct dc_victim_ops) */
extern const struct dc_victim_ops dci_victim_clock DC_HIDDEN;
extern const struct dc_victim_ops dci_victim_round_robin DC_HIDDEN;
extern const struct dc_victim_ops dci_victim_sieve DC_HIDDEN;

#endif /* DC_CACHE_INTERNAL_H */
