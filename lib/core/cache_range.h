/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_range.h - a window range (struct dci_range), its hit count and the hints that
 * find it; the objects every cache file handles.
 */
#ifndef DCI_CACHE_RANGE_H
#define DCI_CACHE_RANGE_H

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
 * (dci_range_gen_next()), and its low bit says whether the mapping is
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
 * setup succeeds is the claimer's to remember (struct dci_range_backend).
 */
struct dci_range {
	dci_refcount_t ref;
	/*
	 * Hits since the victim scan last passed: each hit adds one (a plain
	 * increment: concurrent hits may lose one), except that a hit pinned
	 * in a slot adds nothing once the count is at DCI_RANGE_HITS_MAX, so
	 * that the hits of a hot range stop writing its line (dci_range_hit());
	 * a counted pin writes the line anyway, and adds.  Each setup sets 0,
	 * and the scan takes them into the admission sketch
	 * (dci_range_hits_take()), whose counters stop at 255.  Wraps only
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
	/* Free stack or busy ring, by range number (dci_rlist_*()); pool lock. */
	uint32_t next, prev;
	/*
	 * The mapping table's (cache_maptab.c): the next range of the hash
	 * chain, by number (written under the chain's lock, read lock-free).
	 * Its other links, which no hit reads, are in the table's own array
	 * (struct dci_maplink).
	 */
	uint32_t hnext;
} __dc_cacheline_aligned;

dci_static_assert(sizeof(struct dci_range) == DCI_CACHELINE,
		 "struct dci_range is one cache line: see docs/design.md, \"Memory per range\"");

/*
 * What the backend maps in a range (its inode number and range index), for
 * a remove: taken while the owner is known to live, since the remove may be
 * sent after the owner is gone (dci_reclaim_inline(), dci_range_release()).
 */
struct dci_range_backend {
	uint64_t ino;
	uint64_t index;
};

/* The generation after @gen of a setup that maps writable or not (never 0). */
static inline uint64_t dci_range_gen_next(uint64_t gen, bool writable)
{
	return ((gen + 2) & ~1ull) | (writable ? 1 : 0);
}

static inline bool dci_range_writable(const struct dci_range *r)
{
	return dci_read_once(r->gen) & 1;
}

/* Where a range's hit count stops between two passes of the victim scan. */
#define DCI_RANGE_HITS_MAX	255

/*
 * Count a hit of @r pinned in a slot, unless its count is at
 * DCI_RANGE_HITS_MAX: then write nothing, so that a hot range's line stays
 * shared among the threads that hit it.  A plain read, folded into the
 * compare.  (A counted pin has written the line: it adds, dci_inc_racy().)
 */
static dci_always_inline void dci_range_hit(struct dci_range *r)
{
	if (dci_read_racy(r->hits) < DCI_RANGE_HITS_MAX)
		dci_inc_racy(r->hits);
}

/*
 * Take @r's hits since the last look (each hit adds one, up to
 * DCI_RANGE_HITS_MAX): read them and set 0.  A hit that races with this
 * may count once more or once less.
 */
static inline uint32_t dci_range_hits_take(struct dci_range *r)
{
	uint32_t n = dci_read_once(r->hits);

	if (n)
		dci_write_once(r->hits, 0);
	return n;
}

/*
 * Hit hints: for each range index below DCI_HINT_LEAF_SLOTS of an inode, the
 * range that mapped it last, in the inode itself (@hint_near): a file of up
 * to 64 ranges, the common case, pays one compare and one load for its
 * hint.  Other indexes go to the mapping table, whose lookup costs a hash
 * and a chain of about one range (dci_maptab_lookup()).  A hint is never
 * trusted: range objects are type-stable, so the hit path pins whatever a
 * hint points at and keeps the pin only if the identity check passes; a
 * stale hint just sends it on to the table.  An empty slot points at
 * dci_range_none, so that the hit path follows it without a test for NULL.
 * Misses store hints under the inode mutex, hits refresh them without it;
 * nothing is allocated.
 */
#define DCI_HINT_LEAF_SHIFT	6
#define DCI_HINT_LEAF_SLOTS	(1u << DCI_HINT_LEAF_SHIFT)

struct dci_hint_leaf {
	struct dci_range *slot[DCI_HINT_LEAF_SLOTS];
};


/*
 * What an empty hint points at (cache_inode.c): a range object that maps
 * nothing (no owner), so that the hit path follows every hint without a
 * test for NULL and fails the identity check.  Never pinned, never written.
 */
extern struct dci_range dci_range_none;
/* An empty leaf: every slot at dci_range_none. */
extern struct dci_hint_leaf dci_hint_leaf_none;

/*
 * Start a setup of @r with no lock held: whoever finds @r (a pending entry
 * of the mapping table, or a mapping being upgraded) waits for
 * dci_pool_setup_end() rather than start its own.  The inode mutex held.
 */
static inline void dci_range_setup_begin(struct dci_range *r)
{
	dci_write_once(r->setting_up, true);
}

#endif /* DCI_CACHE_RANGE_H */
