/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_pool_ring.h - the pool's busy ring and free stack as lists of
 * ranges, and the victim hand on the ring: the part of the pool (cache_pool.c)
 * that the victim policies work on, under the pool lock.
 */
#ifndef DC_CACHE_POOL_RING_H
#define DC_CACHE_POOL_RING_H

#include "cache_types.h"

/*
 * The pool's lists link ranges by number, circular, each through a head: a
 * range object past the window's, that maps nothing (see dci_pool_init()).
 * Pool lock.
 */
static inline void dc_rlist_init(const struct dc_cache *c, struct dc_range *h)
{
	h->next = h->prev = dc_range_nr(c, h);
}

static inline bool dc_rlist_empty(const struct dc_cache *c, const struct dc_range *h)
{
	return h->next == dc_range_nr(c, h);
}

/* Insert @r before @at (at the tail when @at is the head). */
static inline void dc_rlist_add_before(const struct dc_cache *c, struct dc_range *r,
				       struct dc_range *at)
{
	uint32_t n = dc_range_nr(c, r);

	r->prev = at->prev;
	r->next = dc_range_nr(c, at);
	c->ranges[at->prev].next = n;
	at->prev = n;
}

static inline void dc_rlist_del(const struct dc_cache *c, struct dc_range *r)
{
	c->ranges[r->prev].next = r->next;
	c->ranges[r->next].prev = r->prev;
	r->next = r->prev = dc_range_nr(c, r);
}

/* The busy ring's head, which maps nothing (pool lock, or constant). */
static inline struct dc_range *dc_pool_busy_head(const struct dc_cache *c)
{
	return c->pool.busy;
}

/* Where the hand is: the next victim candidate.  Pool lock. */
static inline struct dc_range *dc_pool_hand(const struct dc_cache *c)
{
	return c->pool.hand;
}

/* Move the hand one on; returns where it was (maybe the head).  Pool lock. */
static inline struct dc_range *dc_pool_hand_advance(struct dc_cache *c)
{
	struct dc_range *pos = c->pool.hand;

	c->pool.hand = &c->ranges[pos->next];
	return pos;
}

#endif /* DC_CACHE_POOL_RING_H */
