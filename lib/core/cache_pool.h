/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_pool.h - the range pool's accessors and functions (cache_pool.c).
 */
#ifndef DCI_CACHE_POOL_H
#define DCI_CACHE_POOL_H

#include "cache_pool_ring.h"

/*
 * The pool's accessors, for the files other than cache_pool.c
 * (tests/tree/layering-check: only functions named dci_pool_*() or
 * dci_waiters_*() here, and cache_pool.c, name its members).
 */
static inline void dci_pool_lock(struct dc_cache *c)
{
	dci_spin_lock(&c->pool.lock);
}

static inline void dci_pool_unlock(struct dc_cache *c)
{
	dci_spin_unlock(&c->pool.lock);
}

/* Free ranges now: a racy look, or exact under the pool lock. */
static inline unsigned int dci_pool_nr_free(const struct dc_cache *c)
{
	return dci_read_once(c->pool.nr_free);
}

/* Mapped ranges (on the busy ring) now: a racy look, or exact under the pool lock. */
static inline unsigned int dci_pool_nr_mapped(const struct dc_cache *c)
{
	return dci_read_once(c->pool.nr_mapped);
}

/* The count of frees and unpins-to-idle seen while someone waits. */
static inline uint64_t dci_pool_events(struct dc_cache *c)
{
	return dci_atomic64_read(&c->pool.events);
}

/* The queue waiters for a range sleep on. */
static inline struct dci_waitq *dci_pool_waitq(struct dc_cache *c)
{
	return &c->pool.waitq;
}

/* Whether anyone waits for a range of @c (after a full barrier: see dci_waiters_enter()). */
static inline bool dci_pool_has_waiters(struct dc_cache *c)
{
	return dci_atomic_read(&c->pool.waiters);
}

/* A waiter goes to sleep for a range, or wakes: the @nr_waiting gauge. */
static inline void dci_pool_sleep_begin(struct dc_cache *c)
{
	dci_atomic_inc(&c->pool.sleeping);
}

static inline void dci_pool_sleep_end(struct dc_cache *c)
{
	dci_atomic_dec(&c->pool.sleeping);
}

static inline unsigned int dci_pool_nr_sleeping(struct dc_cache *c)
{
	return (unsigned int)dci_atomic_read(&c->pool.sleeping);
}

/* The reclaimer's kicks so far, and whether destroy stopped it. */
static inline uint64_t dci_pool_kicks(struct dc_cache *c)
{
	return dci_atomic64_read(&c->pool.reclaimer_kicks);
}

/* The kicks the last finished run of the reclaimer had read. */
static inline uint64_t dci_pool_kicks_answered(struct dc_cache *c)
{
	return dci_atomic64_read(&c->pool.reclaimer_answered);
}

/* A run of the reclaimer that read @kicks when it began has ended. */
static inline void dci_pool_kicks_answer(struct dc_cache *c, uint64_t kicks)
{
	dci_atomic64_set(&c->pool.reclaimer_answered, kicks);
}

static inline bool dci_pool_reclaimer_stopping(struct dc_cache *c)
{
	return dci_atomic_read(&c->pool.reclaimer_stopping);
}

/* The cache whose reclaimer worker @w is. */
static inline struct dc_cache *dci_pool_worker_cache(struct dci_worker *w)
{
	return dci_container_of(w, struct dc_cache, pool.reclaimer);
}

/*
 * Wait for a range: register before looking again, and leave when done.
 * The barrier orders the registration before that look, against the look
 * at @waiters that follows each free and unpin (dci_pool_put_free(),
 * dc_unpin()): either the look finds what they freed, or they wake us.
 */
static inline void dci_waiters_enter(struct dc_cache *c)
{
	dci_atomic_inc(&c->pool.waiters);
	dci_atomic_inc(&dci_waiters_any);
	dci_smp_mb__after_atomic();
}

static inline void dci_waiters_leave(struct dc_cache *c)
{
	dci_atomic_dec(&dci_waiters_any);
	dci_atomic_dec(&c->pool.waiters);
}

/* cache_pool.c */
struct dci_range *dci_pool_alloc(unsigned int nr_ranges);
void dci_pool_free(struct dci_range *ranges);
void dci_pool_init(struct dc_cache *c);
void dci_pool_fini(struct dc_cache *c);
int dci_pool_reclaimer_start(struct dc_cache *c, void (*fn)(struct dci_worker *w));
void dci_pool_reclaimer_stop(struct dc_cache *c);
void dci_pool_counts(struct dc_cache *c, unsigned int *nr_free,
		     unsigned int *nr_mapped);
void dci_pool_wake(struct dc_cache *c);
void dci_pool_kick_reclaimer(struct dc_cache *c);
void dci_pool_setup_wait(struct dc_cache *c, struct dci_range *r);
void dci_pool_setup_wake(struct dc_cache *c);
struct dci_range *dci_pool_take_free(struct dc_cache *c, bool may_kick,
				    bool *kickp);
void dci_pool_put_free(struct dc_cache *c, struct dci_range *r);
void dci_pool_put_free_many(struct dc_cache *c, struct dci_range **ranges,
			    unsigned int n, bool on_busy);
void dci_pool_add_busy(struct dc_cache *c, struct dci_range *r);
void dci_pool_del_busy(struct dc_cache *c, struct dci_range *r);
int dci_pool_backend_failed(struct dc_cache *c, enum dci_backend_op op, int ret,
		       unsigned int *nth);

/*
 * The setup in flight on @r is over: clear the mark, then wake whoever waits
 * for it.  The barrier orders the clear before the look at the waiters'
 * count, against a waiter's count before its look at the mark
 * (dci_pool_setup_wait()): either it sees the mark clear, or we see it.
 */
static inline void dci_pool_setup_end(struct dc_cache *c, struct dci_range *r)
{
	dci_store_release(&r->setting_up, false);
	dci_smp_mb();
	if (dci_unlikely(dci_atomic_read(&c->pool.setup_waiters)))
		dci_pool_setup_wake(c);
}

#endif /* DCI_CACHE_POOL_H */
