// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache_victim_round_robin.c - the round-robin victim policy
 * (DC_VICTIM_ROUND_ROBIN): the next idle mapping, hit or not, as upstream
 * Linux (fs/fuse/dax.c) takes them.
 *
 * A new mapping goes just behind the hand, so that mappings are taken in
 * the order they were set up; hits spare nothing (the walk takes their
 * count for admission control only).  See struct dci_victim_ops.
 */
#include "cache_pool_ring.h"
#include "cache_victim.h"

/* Pool lock. */
static void round_robin_mapped(struct dc_cache *c, struct dci_range *r)
{
	dci_rlist_add_before(c, r, dci_pool_hand(c));
}

const struct dci_victim_ops dci_victim_round_robin = {
	.mapped = round_robin_mapped,
};
