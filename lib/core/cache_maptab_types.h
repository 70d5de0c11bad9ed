/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_maptab_types.h - the mapping table's state (cache_maptab.c's): struct dci_maptab and
 * each range's ring links.
 */
#ifndef DCI_CACHE_MAPTAB_TYPES_H
#define DCI_CACHE_MAPTAB_TYPES_H

#include "platform.h"

/*
 * The mapping table (cache_maptab.c's; other files use dci_maptab_*()):
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

struct dci_maptab {
	uint32_t *bucket;
	struct dci_maplink *links;	/* one per range, by number */
	dci_spinlock_t *locks;
	unsigned int bits;
	unsigned int lock_mask;
};

#endif /* DCI_CACHE_MAPTAB_TYPES_H */
