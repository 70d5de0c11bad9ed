// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache_victim_clock.c - the CLOCK victim policy (DC_VICTIM_CLOCK, the
 * default): a mapping hit since the hand last passed it gets a second
 * chance.
 *
 * A new mapping goes just behind the hand, so that the hand reaches it
 * last: a full turn before it can be taken.  The hand (and the own-inode
 * walk of inline reclaim) passes each idle mapping hit since its last pass
 * (taking its hits); the first idle mapping not hit is the victim.
 * See struct dci_victim_ops for what a policy decides and when.
 */
#include "cache_pool_ring.h"
#include "cache_victim.h"

/* Pool lock. */
static void clock_mapped(struct dc_cache *c, struct dci_range *r)
{
	dci_rlist_add_before(c, r, dci_pool_hand(c));
}

/* A mapping hit since the last pass is spared. */
static bool clock_spare(struct dci_range *r, uint32_t hits)
{
	return hits != 0;
}

const struct dci_victim_ops dci_victim_clock = {
	.mapped = clock_mapped,
	.spare = clock_spare,
};
