/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_reclaim.h - the reclaimer's accessors and functions (cache_reclaim.c).
 */
#ifndef DC_CACHE_RECLAIM_H
#define DC_CACHE_RECLAIM_H

#include "cache_types.h"

/*
 * The reclaimer's accessors, for the files other than cache_reclaim.c:
 * ranges it is taking to the free pool now (see struct dc_reclaim).
 */
static inline bool dc_reclaim_in_flight(struct dc_cache *c)
{
	return dc_atomic_read(&c->reclaim.reclaiming);
}

/* cache_reclaim.c */
struct dc_range *dci_reclaim_inline(struct dc_cache *c, struct dc_inode *self,
				    const struct dc_admit_cand *cand,
				    bool *refused, struct dc_range_backend *was);
void dci_range_release(struct dc_cache *c, struct dc_range *r,
		       const struct dc_range_backend *was, bool on_busy);
void dci_reclaimer_fn(struct dc_worker *w);
void dci_inode_evict(struct dc_inode *inode);
int dci_reclaim_init(struct dc_cache *c);
void dci_reclaim_fini(struct dc_cache *c);
void dci_reclaim_set_deadline(struct dc_cache *c, uint64_t deadline);
void dci_reclaim_evict_deferred(struct dc_cache *c);
bool dci_reclaim_evict_orphans(struct dc_cache *c);

#endif /* DC_CACHE_RECLAIM_H */
