/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_pool_ring.h - the pool's busy ring and free stack as lists of
 * ranges, and the victim hand on the ring: the part of the pool (cache_pool.c)
 * that the victim policies work on, under the pool lock.
 */
#ifndef DCI_CACHE_POOL_RING_H
#define DCI_CACHE_POOL_RING_H

#include "cache_types.h"

/*
 * The pool's lists link ranges by number, circular, each through a head: a
 * range object past the window's, that maps nothing (see dci_pool_init()).
 * Pool lock.
 */
static inline void dci_rlist_init(const struct dc_cache *c, struct dci_range *h)
{
	h->next = h->prev = dci_range_nr(c, h);
}

static inline bool dci_rlist_empty(const struct dc_cache *c, const struct dci_range *h)
{
	return h->next == dci_range_nr(c, h);
}

/* Insert @r before @at (at the tail when @at is the head). */
static inline void dci_rlist_add_before(const struct dc_cache *c, struct dci_range *r,
				       struct dci_range *at)
{
	uint32_t n = dci_range_nr(c, r);

	r->prev = at->prev;
	r->next = dci_range_nr(c, at);
	c->ranges[at->prev].next = n;
	at->prev = n;
}

static inline void dci_rlist_del(const struct dc_cache *c, struct dci_range *r)
{
	c->ranges[r->prev].next = r->next;
	c->ranges[r->next].prev = r->prev;
	r->next = r->prev = dci_range_nr(c, r);
}

/* The busy ring's head, which maps nothing (pool lock, or constant). */
static inline struct dci_range *dci_pool_busy_head(const struct dc_cache *c)
{
	return c->pool.busy;
}

/* Where the hand is: the next victim candidate.  Pool lock. */
static inline struct dci_range *dci_pool_hand(const struct dc_cache *c)
{
	return c->pool.hand;
}

/* Move the hand one on; returns where it was (maybe the head).  Pool lock. */
static inline struct dci_range *dci_pool_hand_advance(struct dc_cache *c)
{
	struct dci_range *pos = c->pool.hand;

	c->pool.hand = &c->ranges[pos->next];
	return pos;
}

#endif /* DCI_CACHE_POOL_RING_H */
