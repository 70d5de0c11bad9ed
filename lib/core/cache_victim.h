/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_victim.h - the victim policies' table (struct dci_victim_ops) and the policies.
 */
#ifndef DCI_CACHE_VICTIM_H
#define DCI_CACHE_VICTIM_H

#include "cache_types.h"

/*
 * A victim policy: which idle mapping reclaim takes.  Each is one file,
 * cache_victim_NAME.c, that defines its table as dci_victim_NAME (declared
 * with the layer's functions below), and one line of cache.c's
 * victim_policies[] that registers it under its value of enum
 * dc_victim_policy (cfg.victim chooses it; dc_cache_create() copies the
 * table's address into c->victim).  What a policy decides:
 *
 * - on a hit: nothing is called.  Every hit adds one to the range's
 *   @hits, inline, whatever the policy (a hit pinned in a slot only up to
 *   DCI_RANGE_HITS_MAX: dci_range_hit()); a test of the policy or an
 *   indirect call would cost more.
 * - on a miss that maps: @mapped links the new mapping, its @hits 0, into
 *   the busy ring (pool lock held): where it goes decides when the hand
 *   reaches it.
 * - when reclaim looks for a victim: the hand walks the busy ring in its
 *   order (next: from older setups to newer, as linked), the own-inode
 *   walk of inline reclaim the inode's mappings in file order.  Of each
 *   idle mapping they pass, the walk takes the hits since the last pass
 *   (dci_range_hits_take(): counted by admission control, whatever the
 *   policy, so that a mapped range is measured as a missed one is), and
 *   @spare (NULL: none) says from that count whether it gets another turn.
 * - the state it keeps per range: @hits and the place in the busy ring,
 *   nothing more (struct dci_range keeps no policy fields); per cache,
 *   none of its own: the ring and the hand are the pool's, reached through
 *   dci_pool_hand() and dci_pool_busy_head().
 *
 * @mapped runs under the pool lock; @spare under the pool lock (the hand)
 * or the owner's inode mutex (the own walk).  Neither calls a function of
 * another cache file.
 */
struct dci_victim_ops {
	void (*mapped)(struct dc_cache *c, struct dci_range *r);
	bool (*spare)(struct dci_range *r, uint32_t hits);
};

/* cache_victim_*.c, one policy each */
extern const struct dci_victim_ops dci_victim_clock DCI_HIDDEN;
extern const struct dci_victim_ops dci_victim_round_robin DCI_HIDDEN;
extern const struct dci_victim_ops dci_victim_sieve DCI_HIDDEN;

#endif /* DCI_CACHE_VICTIM_H */
