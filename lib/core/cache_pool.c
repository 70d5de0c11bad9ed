// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache_pool.c - the range pool: the free stack, the busy ring and
 * its hand, the wake-ups of waiters and of the background reclaimer, and
 * the count of backend failures: struct dci_pool, which no other file names
 * (the others use the dci_pool_*() accessors of cache_pool.h).
 *
 * A bottom layer of the cache (see cache_types.h): it calls no other
 * cache file; where on the busy ring a new mapping goes is the victim
 * policy's (struct dci_victim_ops, through c->victim).  The background
 * reclaimer it kicks runs on its own worker, which dc_cache_create()
 * started with cache_reclaim.c's function.
 *
 * Locks: the pool spinlock (free stack, busy ring, counts, failure counts),
 * never held across a backend call or a sleep.
 *
 * Callers: cache_map.c (a miss takes a free range and puts its new mapping
 * on the busy ring; an unpin wakes waiters), cache_reclaim.c (the hand's
 * walk; claimed ranges leave the busy ring, reclaimed ones go back to the
 * free stack), cache.c (setup and teardown, the reclaimer's start and
 * stop); each caller of a backend op counts its failures here.
 */
#include "cache_pool.h"
#include "cache_victim.h"

dci_atomic_t dci_waiters_any;

/*
 * The window's range objects, zeroed, behind a struct dci_pool_head and with
 * the heads of the free stack and of the busy ring past them (range objects
 * that map nothing).  Freed with dci_pool_free().
 */
struct dci_range *dci_pool_alloc(unsigned int nr_ranges)
{
	struct dci_pool_head *h = dci_zalloc(sizeof(*h) + ((size_t)nr_ranges + 2) *
					   sizeof(struct dci_range));

	return h ? (struct dci_range *)(void *)(h + 1) : NULL;
}

void dci_pool_free(struct dci_range *ranges)
{
	if (ranges)
		dci_free((struct dci_pool_head *)(void *)ranges - 1);
}

/*
 * Every range free, lowest window offsets on top of the free stack; the
 * lock and the wait queue ready.  Undone by dci_pool_fini().
 */
void dci_pool_init(struct dc_cache *c)
{
	unsigned int i;

	dci_spin_lock_init(&c->pool.lock);
	dci_waitq_init(&c->pool.waitq);
	dci_waitq_init(&c->pool.setup_waitq);

	((struct dci_pool_head *)(void *)c->ranges)[-1].cache = c;
	/* The heads too find their cache (dci_range_cache()), though none asks. */
	for (i = 0; i < c->nr_ranges + 2; i++) {
		c->ranges[i].win_off = (uint64_t)i << c->cfg.range_shift;
		c->ranges[i].range_shift = (uint8_t)c->cfg.range_shift;
	}
	c->pool.free_list = &c->ranges[c->nr_ranges];
	c->pool.busy = &c->ranges[c->nr_ranges + 1];
	dci_rlist_init(c, c->pool.free_list);
	dci_rlist_init(c, c->pool.busy);
	c->pool.hand = c->pool.busy;
	for (i = c->nr_ranges; i-- > 0;) {
		struct dci_range *r = &c->ranges[i];

		dci_refcount_set(&r->ref, 0);
		dci_rlist_add_before(c, r, dci_range_next(c, c->pool.free_list));
	}
	c->pool.nr_free = c->nr_ranges;
}

void dci_pool_fini(struct dc_cache *c)
{
	dci_waitq_destroy(&c->pool.setup_waitq);
	dci_waitq_destroy(&c->pool.waitq);
	dci_spin_lock_destroy(&c->pool.lock);
}

/* Start the reclaimer's worker, which runs @fn (cache_reclaim.c's). */
int dci_pool_reclaimer_start(struct dc_cache *c, void (*fn)(struct dci_worker *w))
{
	return dci_worker_start(&c->pool.reclaimer, fn, "dc-reclaim");
}

/*
 * Stop the reclaimer for good: no kick queues it any more, a run in
 * progress sees it stopping (woken from any wait for a range), and its
 * worker is gone when this returns.
 */
void dci_pool_reclaimer_stop(struct dc_cache *c)
{
	dci_atomic_set(&c->pool.reclaimer_stopping, 1);
	dci_pool_wake(c);
	dci_worker_stop(&c->pool.reclaimer);
}

/* The free and the mapped ranges, both at one moment (for the statistics). */
void dci_pool_counts(struct dc_cache *c, unsigned int *nr_free,
		     unsigned int *nr_mapped)
{
	dci_spin_lock(&c->pool.lock);
	*nr_free = c->pool.nr_free;
	*nr_mapped = c->pool.nr_mapped;
	dci_spin_unlock(&c->pool.lock);
}

/* Bump the event count and wake everyone waiting for a range. */
void dci_pool_wake(struct dc_cache *c)
{
	dci_atomic64_inc(&c->pool.events);
	dci_waitq_wake_all(&c->pool.waitq);
}

/*
 * Wait, with no lock held, until the setup in flight on @r is over (its
 * @setting_up clear): it may be set again by then for another setup of
 * the same range, which only makes the wait longer.  Counted in
 * @setup_waiters before the look, against dci_pool_setup_end(), and in the
 * gauge of sleepers (dc_cache_stats' @nr_waiting) while it waits.
 */
void dci_pool_setup_wait(struct dc_cache *c, struct dci_range *r)
{
	dci_atomic_inc(&c->pool.setup_waiters);
	dci_smp_mb__after_atomic();
	dci_pool_sleep_begin(c);
	dci_waitq_wait_uninterruptible(&c->pool.setup_waitq,
				      !dci_load_acquire(&r->setting_up));
	dci_pool_sleep_end(c);
	dci_atomic_dec(&c->pool.setup_waiters);
}

/* Wake the threads waiting for a setup to end (dci_pool_setup_end()). */
void dci_pool_setup_wake(struct dc_cache *c)
{
	dci_waitq_wake_all(&c->pool.setup_waitq);
}

/* Run the background reclaimer (cache_reclaim.c), unless destroy stops it. */
void dci_pool_kick_reclaimer(struct dc_cache *c)
{
	if (dci_atomic_read(&c->pool.reclaimer_stopping))
		return;
	dci_atomic64_inc(&c->pool.reclaimer_kicks);
	dci_worker_queue(&c->pool.reclaimer);
}

/*
 * Take a free range for a new mapping, and put it on the busy ring in the
 * same hold of the pool lock, where the victim policy says: at count 0, no
 * walk takes it (nor pins it) until the mapping is published, and a failed
 * setup takes it off again (dci_range_release()).  It counts as mapped from
 * here on.  Falling below the threshold sets *@kickp: the caller starts
 * the background reclaimer (dci_pool_kick_reclaimer()) once it has dropped the
 * inode mutex it holds, which the reclaimer would otherwise find taken
 * (its trylock fails, and a pass over that inode's ranges frees nothing);
 * never when !@may_kick: a miss that can reclaim inline maps into free
 * ranges without having mappings evicted (and removed) ahead of it, and
 * once the pool is empty reuses idle ones (seed 000).  An empty pool
 * is seen without the lock (a full window's every miss asks): a range
 * freed meanwhile is one the caller might have had a moment later anyway,
 * and it reclaims or waits instead, as it does when it loses that range to
 * another miss.  That wait stays safe: dci_pool_put_free() bumps the event
 * count after its full barrier, and the read barrier here orders this look
 * after the waiter's read of that count (map_slow()), so a waiter that saw
 * the bump sees the free range, and one that did not will wake for it.
 */
struct dci_range *dci_pool_take_free(struct dc_cache *c, bool may_kick,
				    bool *kickp)
{
	struct dci_range *r = NULL;
	bool kick = false;

	*kickp = false;
	dci_smp_rmb();
	if (!dci_read_once(c->pool.nr_free))
		return NULL;
	dci_spin_lock(&c->pool.lock);
	if (!dci_rlist_empty(c, c->pool.free_list)) {
		r = dci_range_next(c, c->pool.free_list);
		dci_rlist_del(c, r);
		dci_write_once(c->pool.nr_free, c->pool.nr_free - 1);
		c->victim->mapped(c, r);
		dci_write_once(c->pool.nr_mapped, c->pool.nr_mapped + 1);
		kick = may_kick && c->pool.nr_free < c->threshold;
	}
	dci_spin_unlock(&c->pool.lock);
	*kickp = kick;
	return r;
}

static void put_free_locked(struct dc_cache *c, struct dci_range *r)
{
	dci_rlist_add_before(c, r, dci_range_next(c, c->pool.free_list));
	dci_write_once(c->pool.nr_free, c->pool.nr_free + 1);
}

static void del_busy_locked(struct dc_cache *c, struct dci_range *r)
{
	if (c->pool.hand == r)
		c->pool.hand = dci_range_next(c, r);
	dci_rlist_del(c, r);
	dci_write_once(c->pool.nr_mapped, c->pool.nr_mapped - 1);
}

/*
 * Give @n claimed ranges back to the free pool, under one hold of the pool
 * lock; @on_busy: they are still on the busy ring (an eviction's, see
 * cache_reclaim.c's claim_dead()), and leave it in the same hold.
 */
void dci_pool_put_free_many(struct dc_cache *c, struct dci_range **ranges,
			    unsigned int n, bool on_busy)
{
	unsigned int i;

	if (!n)
		return;
	dci_spin_lock(&c->pool.lock);
	for (i = 0; i < n; i++) {
		if (on_busy)
			del_busy_locked(c, ranges[i]);
		put_free_locked(c, ranges[i]);
	}
	dci_spin_unlock(&c->pool.lock);
	dci_smp_mb();
	if (dci_atomic_read(&c->pool.waiters))
		dci_pool_wake(c);
}

void dci_pool_put_free(struct dc_cache *c, struct dci_range *r)
{
	dci_pool_put_free_many(c, &r, 1, false);
}

/*
 * Put a new mapping in a range reclaimed inline (off the ring since its
 * claim) on the busy ring, where the victim policy says.
 */
void dci_pool_add_busy(struct dc_cache *c, struct dci_range *r)
{
	dci_spin_lock(&c->pool.lock);
	c->victim->mapped(c, r);
	dci_write_once(c->pool.nr_mapped, c->pool.nr_mapped + 1);
	dci_spin_unlock(&c->pool.lock);
}

/*
 * Take the claimed @r off the busy ring; the hand, if it was there, moves
 * on to the next.
 */
void dci_pool_del_busy(struct dc_cache *c, struct dci_range *r)
{
	dci_spin_lock(&c->pool.lock);
	del_busy_locked(c, r);
	dci_spin_unlock(&c->pool.lock);
}

static const char *const backend_op_name[DCI_BE_NR] = {
	[DCI_BE_SETUP] = "setup",
	[DCI_BE_REMOVE] = "remove",
	[DCI_BE_WRITEBACK] = "writeback",
};

/* The statistic that counts each op's failures. */
static const enum dci_stat backend_op_failures[DCI_BE_NR] = {
	[DCI_BE_SETUP] = DCI_STAT_SETUP_FAILURES,
	[DCI_BE_REMOVE] = DCI_STAT_REMOVE_FAILURES,
	[DCI_BE_WRITEBACK] = DCI_STAT_WRITEBACK_FAILURES,
};

/*
 * A backend op of @c answered @ret, not 0.  Count the failure (in the
 * statistics, and per op for the log) and say whether to log it: *@nth is its number among this op's failures when it
 * is the 1st, 2nd, 4th, 8th..., else 0, so that a backend that keeps failing
 * cannot flood the log while one that starts failing is always heard.  A
 * positive answer breaks the contract of struct dc_backend_ops (0 or
 * -errno); it is reported (under the same rule) and taken for -EIO, so that
 * it can never pass for another answer (a setup's 1 for DC_MAP_BYPASS).
 * Returns the error to act on.
 */
int dci_pool_backend_failed(struct dc_cache *c, enum dci_backend_op op, int ret,
		       unsigned int *nth)
{
	unsigned int n;

	dci_trace_backend_fail(op, ret);
	dci_stat_inc(c, backend_op_failures[op]);
	dci_spin_lock(&c->pool.lock);
	n = ++c->pool.be_failures[op];
	dci_spin_unlock(&c->pool.lock);
	*nth = n && !(n & (n - 1)) ? n : 0;
	if (ret > 0) {
		if (*nth)
			dci_pr_err("backend %s returned %d, a positive value where 0 or -errno is due; taken as -EIO",
				  backend_op_name[op], ret);
		ret = -EIO;
	}
	return ret;
}
