/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_maptab.h - the mapping table's accessors and functions (cache_maptab.c).
 */
#ifndef DCI_CACHE_MAPTAB_H
#define DCI_CACHE_MAPTAB_H

#include "cache_types.h"

/* The mapping table's part of a new inode of @c: copies for the lookups. */
static inline void dci_maptab_inode_init(struct dc_inode *inode, struct dc_cache *c)
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
static inline uint32_t dci_maptab_bucket(const struct dc_inode *inode,
					uint64_t index)
{
	return ((uint32_t)index + inode->map_salt) & inode->map_mask;
}

/*
 * A walk of bucket @b's chain, step by step (dci_maptab_walk() is the
 * walk): the first link, whether a link is the chain's end (a nulls word),
 * the range a link names, and the link after a range.  Lock-free: loads
 * with acquire.
 */
static dci_always_inline uint32_t dci_maptab_chain_first(const struct dc_inode *inode,
						       uint32_t b)
{
	return dci_load_acquire(&inode->map_bucket[b]);
}

static dci_always_inline bool dci_maptab_chain_end(uint32_t v)
{
	return v & DCI_MAP_NULLS;
}

static dci_always_inline struct dci_range *dci_maptab_chain_range(const struct dc_inode *inode,
							       uint32_t v)
{
	return &inode->ranges[v];
}

static dci_always_inline uint32_t dci_maptab_chain_next(const struct dci_range *r)
{
	return dci_load_acquire(&r->hnext);
}

/*
 * One walk of bucket @b's chain for the range whose key is (@inode,
 * @index): true with the range in *@rp; false at the chain's end, whose
 * word then is in *@end when @end is given (another bucket's nulls word
 * when a range moved under the walk).  With @genp, each range's generation
 * is loaded before its identity is compared, as try_pin() does (the hit
 * path's walk, map_hit()); without, the compiler drops the loads.  A range
 * found needs no test beyond the walk's own.
 */
static dci_always_inline bool
dci_maptab_walk(const struct dc_inode *inode, uint32_t b, uint64_t index,
		struct dci_range **rp, uint32_t *end, uint64_t *genp)
{
	uint32_t v = dci_maptab_chain_first(inode, b);

	for (;;) {
		if (dci_unlikely(dci_maptab_chain_end(v))) {
			if (end)
				*end = v;
			return false;
		}
		*rp = dci_maptab_chain_range(inode, v);
		if (genp)
			*genp = dci_load_acquire(&(*rp)->gen);
		if (!dci_read_once_ne((*rp)->owner, inode) &&
		    !dci_read_once_ne((*rp)->index, index))
			return true;
		v = dci_maptab_chain_next(*rp);
	}
}

/*
 * The range whose key is (@inode, @index) in the mapping table, or NULL.
 * No lock, no RCU section: the caller holds a reference to @inode.  Without
 * @inode's mutex the answer may be stale by the time it is used, and a
 * range found may be changing hands (the caller validates it: try_pin());
 * under the mutex it is exact (see cache_maptab.c).
 */
static inline struct dci_range *dci_maptab_lookup(const struct dc_inode *inode,
						uint64_t index)
{
	uint32_t b = dci_maptab_bucket(inode, index), end;
	struct dci_range *r;

	while (!dci_maptab_walk(inode, b, index, &r, &end, NULL)) {
		/* Off the end of another chain: a range moved under us. */
		if (dci_likely(end == (DCI_MAP_NULLS | b)))
			return NULL;
	}
	return r;
}

/* @inode's mappings now: exact under its mutex, else a racy look. */
static inline unsigned int dci_maptab_count(const struct dc_inode *inode)
{
	return dci_read_once(inode->nr_maps);
}

/* The first range of @inode's ring, the newest, or NULL.  The inode mutex. */
static inline struct dci_range *dci_maptab_first(const struct dc_cache *c,
					       const struct dc_inode *inode)
{
	return inode->maps_head == DCI_MAP_NONE ? NULL : &c->ranges[inode->maps_head];
}

/* The ring links of @r. */
static inline struct dci_maplink *dci_maptab_link(const struct dc_cache *c,
						 const struct dci_range *r)
{
	return &c->maps.links[r - c->ranges];
}

/* The oldest range of @inode's ring (the head's predecessor), or NULL.  The mutex. */
static inline struct dci_range *dci_maptab_oldest(const struct dc_cache *c,
						const struct dc_inode *inode)
{
	return inode->maps_head == DCI_MAP_NONE ? NULL :
	       &c->ranges[c->maps.links[inode->maps_head].iprev];
}

/*
 * The range that joined @r's owner's ring after @r, or the oldest after the
 * newest (@r itself when alone).  The inode mutex.
 */
static inline struct dci_range *dci_maptab_newer(const struct dc_cache *c,
					       const struct dci_range *r)
{
	return &c->ranges[dci_maptab_link(c, r)->iprev];
}

/* Make the second range of @inode's ring its head, the head its tail.  The mutex. */
static inline void dci_maptab_rotate(const struct dc_cache *c, struct dc_inode *inode)
{
	inode->maps_head = c->maps.links[inode->maps_head].inext;
}

/* The number of the last punch walk that passed @r.  Its owner's mutex. */
static inline uint32_t *dci_maptab_drop_seq(const struct dc_cache *c,
					   const struct dci_range *r)
{
	return &dci_maptab_link(c, r)->drop_seq;
}

/* cache_maptab.c */
int dci_maptab_init(struct dc_cache *c);
void dci_maptab_fini(struct dc_cache *c);
void dci_maptab_insert(struct dc_cache *c, struct dci_range *r);
void dci_maptab_remove(struct dc_cache *c, struct dci_range *r);

#endif /* DCI_CACHE_MAPTAB_H */
