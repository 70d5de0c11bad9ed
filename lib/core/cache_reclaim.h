/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_reclaim.h - the reclaimer's accessors and functions (cache_reclaim.c).
 */
#ifndef DCI_CACHE_RECLAIM_H
#define DCI_CACHE_RECLAIM_H

#include "cache_types.h"

/*
 * The reclaimer's accessors, for the files other than cache_reclaim.c:
 * ranges it is taking to the free pool now (see struct dci_reclaim).
 */
static inline bool dci_reclaim_in_flight(struct dc_cache *c)
{
	return dci_atomic_read(&c->reclaim.reclaiming);
}

/* cache_reclaim.c */
struct dci_range *dci_reclaim_inline(struct dc_cache *c, struct dc_inode *self,
				    const struct dci_admit_cand *cand,
				    bool *refused, struct dci_range_backend *was);
void dci_range_release(struct dc_cache *c, struct dci_range *r,
		       const struct dci_range_backend *was, bool on_busy);
void dci_reclaimer_fn(struct dci_worker *w);
void dci_inode_evict(struct dc_inode *inode);
int dci_reclaim_init(struct dc_cache *c);
void dci_reclaim_fini(struct dc_cache *c);
void dci_reclaim_set_deadline(struct dc_cache *c, uint64_t deadline);
void dci_reclaim_evict_deferred(struct dc_cache *c);
bool dci_reclaim_evict_orphans(struct dc_cache *c);

#endif /* DCI_CACHE_RECLAIM_H */
