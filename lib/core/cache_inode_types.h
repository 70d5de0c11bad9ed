/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_inode_types.h - the inode object (struct dc_inode) and the inode table's state
 * (cache_inode.c's: struct dci_itab).
 */
#ifndef DCI_CACHE_INODE_TYPES_H
#define DCI_CACHE_INODE_TYPES_H

#include "cache_range.h"

struct dc_inode {
	/* The hints of indexes below DCI_HINT_LEAF_SLOTS: first, no offset to add. */
	struct dci_hint_leaf hint_near;
	/* The cache's, copied for the hit path (dci_inode_hit_init()). */
	dci_pcounter_ref_t stats;	/* c->stats: dci_pcounter_ref_ready() */
	uint64_t range_size;
	unsigned int range_shift;
	/* The mapping table's, and this inode's place in it: dci_maptab_bucket(). */
	uint32_t map_mask, map_salt;
	uint32_t *map_bucket;
	struct dci_range *ranges;
	struct dc_cache *cache;
	uint64_t id;
	dci_refcount_t ref;
	dci_mutex_t mutex;		/* serializes table writers and claims */
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
	dci_rcu_head_t rcu;
};

/*
 * The inode table's state (cache_inode.c's: no other file names a member;
 * they use dci_itab_*() below and its functions).  Changed under @lock.
 */
struct dci_itab {
	dci_mutex_t lock;
	unsigned long nr;		/* inodes hashed */
	struct dci_inode_table __rcu *table;
	int links_busy;			/* a retired table is still read */
};

#endif /* DCI_CACHE_INODE_TYPES_H */
