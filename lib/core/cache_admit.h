/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_admit.h - admission control's functions (cache_admit.c).
 */
#ifndef DCI_CACHE_ADMIT_H
#define DCI_CACHE_ADMIT_H

#include "cache_types.h"

/* cache_admit.c */
int dci_admit_init(struct dc_cache *c);
void dci_admit_fini(struct dc_cache *c);
void dci_admit_note_miss(struct dc_cache *c, struct dc_inode *inode,
			 uint64_t file_off, bool write, struct dci_admit_cand *cand);
void dci_admit_seen(struct dc_cache *c, uint64_t ino, uint64_t index,
		    uint32_t hits);
bool dci_admit_write_hit(struct dc_cache *c, uint64_t ino, uint64_t index);
bool dci_admit_contest(struct dc_cache *c, const struct dci_admit_cand *cand,
		       uint64_t victim_ino, uint64_t victim_index);
bool dci_admit_over_budget(struct dc_cache *c, const struct dci_admit_cand *cand);

/* Whether a dc_map() call with @flags is under admission control. */
static inline bool dci_admit_applies(const struct dc_cache *c, unsigned int flags)
{
	return (flags & DC_MAP_MAY_BYPASS) && c->cfg.admit == DC_ADMIT_FREQ;
}

#endif /* DCI_CACHE_ADMIT_H */
