// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache_victim_sieve.c - the SIEVE victim policy (DC_VICTIM_SIEVE;
 * Zhang et al., "SIEVE is Simpler than LRU", NSDI '24).
 *
 * The busy ring is SIEVE's queue, oldest setup first: a new mapping goes in
 * at the newest end, wherever the hand is, and the hand moves from older
 * mappings to newer ones, back to the oldest past the newest.  An idle
 * mapping hit since the hand last passed (SIEVE's visited bit: a non-zero
 * hit count, which the walk takes) keeps its place, unvisited from then
 * on; the first one not hit is the victim, and the hand goes on from
 * there.  Against CLOCK, which puts a new mapping just behind the hand (a full turn before it can go), a new
 * mapping that no hit follows goes as soon as the hand next reaches the
 * newest end, before older ones behind the hand.  See struct dci_victim_ops.
 */
#include "cache_pool_ring.h"
#include "cache_victim.h"

/* At the newest end: just before the ring's head.  Pool lock. */
static void sieve_mapped(struct dc_cache *c, struct dci_range *r)
{
	dci_rlist_add_before(c, r, dci_pool_busy_head(c));
}

/* A visited mapping survives the hand's pass, unvisited from then on. */
static bool sieve_spare(struct dci_range *r, uint32_t hits)
{
	return hits != 0;
}

const struct dci_victim_ops dci_victim_sieve = {
	.mapped = sieve_mapped,
	.spare = sieve_spare,
};
