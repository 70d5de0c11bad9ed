/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_inode.h - the inode table's accessors and functions (cache_inode.c), and an
 * inode's hints.
 */
#ifndef DCI_CACHE_INODE_H
#define DCI_CACHE_INODE_H

#include "cache_maptab.h"

/* The inode table's accessor: inodes hashed now (a racy look). */
static inline unsigned long dci_itab_nr_inodes(const struct dc_cache *c)
{
	return dci_read_once(c->itab.nr);
}

/*
 * The hit path's part of a new inode of @c: copies of the cache's, no hint,
 * no mapping.
 */
static inline void dci_inode_hit_init(struct dc_inode *inode, struct dc_cache *c)
{
	inode->stats = dci_pcounter_ref(&c->stats);
	inode->range_size = c->range_size;
	inode->range_shift = c->cfg.range_shift;
	inode->hint_near = dci_hint_leaf_none;
	dci_maptab_inode_init(inode, c);
}

/*
 * The hint of @index in @inode: a range to try_pin(), which fails its
 * identity check when it is none (dci_range_none), as it is past the
 * inode's own hints (the mapping table answers for those).  Lock-free; the
 * caller holds a reference to @inode.
 */
static inline struct dci_range *dci_hint_get(struct dc_inode *inode, uint64_t index)
{
	if (dci_likely(index < DCI_HINT_LEAF_SLOTS))
		return dci_read_once(inode->hint_near.slot[index]);
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
static inline void dci_hint_refresh(struct dc_inode *inode, uint64_t index,
				   struct dci_range *r)
{
	if (index < DCI_HINT_LEAF_SLOTS &&
	    dci_read_once(inode->hint_near.slot[index]) != r)
		dci_write_once(inode->hint_near.slot[index], r);
}

/* cache_inode.c */
int dci_inode_table_init(struct dc_cache *c);
struct dc_inode *dci_inode_table_unhash_next(struct dc_cache *c,
					     unsigned long *bucket);
void dci_inode_table_fini(struct dc_cache *c);
bool dci_inode_tryhold(struct dc_inode *inode);

bool dci_inode_put_unhash(struct dc_inode *inode);
void dci_inode_free(struct dc_inode *inode);

#endif /* DCI_CACHE_INODE_H */
