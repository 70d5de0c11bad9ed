// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache_map.c - dc_map() and dc_unpin(): the lock-free hit path, the miss
 * path with its double-checked publish, read-only to writable upgrades, and
 * waiting for a free range.
 *
 * Locks: a hit takes none (an RCU lookup, a pin by refcount, an identity
 * check); a miss takes the inode's mutex and, inside the pool functions of
 * cache_reclaim.c, the pool spinlock.  Waiting for a free range sleeps on
 * the cache's wait queue with no lock held.
 *
 * Callers: the API (<daxcache/cache.h>: dc_map(), dc_map_timeout(),
 * dc_unpin(), dc_wait_free()); cache.c and cache_reclaim.c wake the waiters
 * through dc_cache_wake().
 */
#include "cache_internal.h"

#define DC_MAP_KNOWN	(DC_MAP_READ | DC_MAP_WRITE | DC_MAP_NOWAIT | DC_MAP_NORECLAIM | \
			 DC_MAP_MAY_BYPASS)

/* Bump the event count and wake everyone waiting for a range. */
void dc_cache_wake(struct dc_cache *c)
{
	dc_atomic64_inc(&c->events);
	dc_waitq_wake_all(&c->waitq);
}

/*
 * Drop one pin.  The mapping's own reference keeps the count above zero.
 * When a range may have become idle and someone waits for one, wake them:
 * an idle range can be reclaimed.  The waiter registers before it looks, and
 * the barrier orders our decrement before our look at the waiter count.
 */
static inline void range_unpin(struct dc_range *r)
{
	struct dc_cache *c = r->cache;

	dc_refcount_dec(&r->ref);
	dc_smp_mb__after_atomic();
	if (dc_unlikely(dc_atomic_read(&c->waiters)))
		dc_cache_wake(c);
}

/*
 * Pin @r if it maps @index of @inode now.  It may have been reclaimed and
 * reused since it was found: once pinned (no claim can happen any more), its
 * identity is checked again, and a pin on something else is dropped.
 */
static inline bool try_pin(struct dc_range *r, struct dc_inode *inode,
			   uint64_t index)
{
	/*
	 * Look before touching the count: a stale hint or a range reused
	 * since the lookup must not be pinned even for a moment, or a punch
	 * or an eviction of its new owner would see a pin nobody holds.
	 */
	if (dc_read_once(r->owner) != inode || dc_read_once(r->index) != index)
		return false;
	if (!dc_refcount_inc_not_zero(&r->ref))
		return false;
	if (dc_likely(dc_read_once(r->owner) == inode &&
		      dc_read_once(r->index) == index)) {
		if (!dc_read_once(r->accessed))
			dc_write_once(r->accessed, true);
		return true;
	}
	range_unpin(r);
	return false;
}

static inline struct dc_range **hint_slot(struct dc_inode *inode, uint64_t index)
{
	return &inode->hint[index & (DC_INODE_HINTS - 1)];
}

/*
 * The hit path: find the range mapping @index and pin it, taking no lock.
 * First the hint (one load; range objects outlive every inode, so no RCU
 * section is needed to look at one), then the tree under RCU.
 */
static inline struct dc_range *map_fast(struct dc_inode *inode, uint64_t index)
{
	struct dc_range **slot = hint_slot(inode, index);
	struct dc_range *r = dc_read_once(*slot);

	if (dc_likely(r && try_pin(r, inode, index)))
		return r;
	dc_rcu_read_lock();
	r = dc_itree_lookup(inode->tree, index);
	if (r && !try_pin(r, inode, index))
		r = NULL;
	dc_rcu_read_unlock();
	if (r)
		dc_write_once(*slot, r);
	return r;
}

static inline uint64_t range_file_off(const struct dc_cache *c, uint64_t index)
{
	return index << c->cfg.range_shift;
}

/*
 * Make the pinned mapping @r writable: one setup with DC_MAP_WRITE, done
 * once however many writers race for it.  Takes the inode mutex.
 */
static int map_upgrade(struct dc_inode *inode, struct dc_range *r,
		       unsigned int flags)
{
	struct dc_cache *c = inode->cache;
	unsigned int nth;
	int ret = 0;

	if (flags & DC_MAP_NOWAIT) {
		if (!dc_mutex_trylock(&inode->mutex))
			return -EAGAIN;
	} else {
		dc_mutex_lock(&inode->mutex);
	}
	if (!dc_range_writable(r)) {
		ret = c->ops->setup(c->priv, inode->id, range_file_off(c, r->index),
				    r->win_off, c->range_size,
				    DC_MAP_READ | DC_MAP_WRITE);
		if (ret) {
			dc_stat_inc(c, DC_STAT_SETUP_FAILURES);
			ret = dc_backend_failed(c, DC_BE_SETUP, ret, &nth);
			if (nth)
				dc_pr_warn("setup of inode %llu range %llu for writing failed: %d"
					   DC_BE_FAIL_NOTE,
					   (unsigned long long)inode->id,
					   (unsigned long long)r->index, ret, nth);
		} else {
			/* A setup: a new generation, and a writable one. */
			dc_write_once(r->gen, dc_range_gen_next(r->gen, true));
			dc_stat_inc(c, DC_STAT_UPGRADES);
		}
	}
	dc_mutex_unlock(&inode->mutex);
	return ret;
}

/*
 * Under admission control, a write to the pinned read-only mapping @r of
 * @inode is served directly while the window is full, unless the range is
 * hot (dc_admit_write_hit()): the upgrade would cost a setup now and a
 * writeback before the range can be reclaimed, and reclaim is what a full
 * window does, but not to the ranges it keeps using.
 */
static inline bool upgrade_bypassed(struct dc_cache *c, struct dc_inode *inode,
				    struct dc_range *r, unsigned int flags)
{
	return dc_admit_applies(c, flags) && !dc_read_once(c->nr_free) &&
	       !dc_admit_write_hit(c, inode->id, dc_read_once(r->index));
}

/*
 * Get a range for a new mapping: free pool, then inline reclaim.  With
 * @cand (admission control) the free pool does not start the background
 * reclaimer, and inline reclaim contests its victim: NULL with *@refused
 * means bypass.  *@contested tells a range won over a victim.
 */
static struct dc_range *alloc_range(struct dc_inode *inode, unsigned int flags,
				    const struct dc_admit_cand *cand,
				    bool *refused, bool *contested)
{
	struct dc_cache *c = inode->cache;
	struct dc_range *r;

	*refused = false;
	*contested = false;
	r = dc_pool_take_free(c, !cand);
	if (r || (flags & DC_MAP_NORECLAIM))
		return r;
	if (c->cfg.flags & DC_CACHE_KICK_BG_FIRST)
		dc_reclaimer_kick(c);
	r = dc_reclaim_inline(c, inode, cand, refused);
	*contested = r && cand;
	return r;
}

/*
 * Set up and publish a mapping of @index in the claimed range @r (count 0,
 * in no list and no tree).  The range goes into the tree first, still at
 * count 0, so that a failed insert needs no undo at the backend; lock-free
 * readers that find it fail to pin it and wait on the inode mutex we hold.
 * Returns 0 with the mapping published and pinned once for the caller.
 */
static int map_new(struct dc_inode *inode, struct dc_range *r, uint64_t index,
		   unsigned int flags)
{
	struct dc_cache *c = inode->cache;
	bool writable = flags & DC_MAP_WRITE;
	unsigned int nth;
	int ret;

	dc_write_once(r->owner, inode);
	dc_write_once(r->index, index);
	dc_write_once(r->gen, dc_range_gen_next(r->gen, writable));
	dc_write_once(r->accessed, false);
	ret = dc_itree_insert(inode->tree, index, index, r);
	if (!ret) {
		ret = c->ops->setup(c->priv, inode->id, range_file_off(c, index),
				    r->win_off, c->range_size,
				    DC_MAP_READ | (writable ? DC_MAP_WRITE : 0));
		if (ret) {
			dc_stat_inc(c, DC_STAT_SETUP_FAILURES);
			ret = dc_backend_failed(c, DC_BE_SETUP, ret, &nth);
			if (nth)
				dc_pr_warn("setup of inode %llu range %llu failed: %d"
					   DC_BE_FAIL_NOTE,
					   (unsigned long long)inode->id,
					   (unsigned long long)index, ret, nth);
			dc_itree_remove(inode->tree, index, NULL);
		}
	}
	if (ret) {
		dc_range_release(c, r);
		return ret;
	}
	r->mapped_ino = inode->id;
	r->mapped_index = index;
	r->backend_mapped = true;
	/* One reference for the mapping, one for the caller's pin. */
	dc_refcount_set_release(&r->ref, 2);
	dc_pool_add_busy(c, r);
	dc_write_once(*hint_slot(inode, index), r);
	dc_stat_inc(c, DC_STAT_MISSES);
	return 0;
}

/*
 * The slow path: under the inode mutex, look again (another thread may have
 * mapped the range of @file_off meanwhile: then pin theirs), else allocate
 * and set up.  When no range can be had, drop the mutex and wait for a free
 * range or an unpin, then start over.  Under admission control the miss is
 * counted, and instead of waiting (or when it loses to its victim) it
 * returns DC_MAP_BYPASS.
 */
static int map_slow(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
		    uint64_t timeout_ns, struct dc_range **out)
{
	struct dc_cache *c = inode->cache;
	uint64_t index = file_off >> c->cfg.range_shift;
	uint64_t start = 0, ev = 0, deadline = DC_WAIT_FOREVER, now;
	bool admit = dc_admit_applies(c, flags);
	bool registered = false, noted = false, refused, contested;
	struct dc_admit_cand cand;
	struct dc_range *r;
	int ret;

	for (;;) {
		if (flags & DC_MAP_NOWAIT) {
			if (!dc_mutex_trylock(&inode->mutex)) {
				ret = -EAGAIN;
				break;
			}
		} else {
			dc_mutex_lock(&inode->mutex);
		}
		r = dc_itree_lookup(inode->tree, index);
		if (r) {
			/* Mapped by a racing thread; ours to pin (we hold the mutex). */
			dc_refcount_inc(&r->ref);
			dc_mutex_unlock(&inode->mutex);
			if ((flags & DC_MAP_WRITE) && !dc_range_writable(r) &&
			    upgrade_bypassed(c, inode, r, flags)) {
				range_unpin(r);
				dc_stat_inc(c, DC_STAT_BYPASS_WRITE);
				ret = DC_MAP_BYPASS;
				break;
			}
			dc_stat_inc(c, DC_STAT_HITS);
			ret = 0;
			if ((flags & DC_MAP_WRITE) && !dc_range_writable(r)) {
				ret = map_upgrade(inode, r, flags);
				if (ret)
					range_unpin(r);
			}
			break;
		}
		if (admit && !noted) {
			dc_admit_note_miss(c, inode, file_off, &cand);
			cand.write = flags & DC_MAP_WRITE;
			noted = true;
		}
		r = alloc_range(inode, flags, admit ? &cand : NULL, &refused,
				&contested);
		if (r) {
			ret = map_new(inode, r, index, flags);
			dc_mutex_unlock(&inode->mutex);
			if (!ret && contested)
				dc_stat_inc(c, DC_STAT_ADMITS_CONTESTED);
			break;
		}
		dc_mutex_unlock(&inode->mutex);
		if (refused) {
			dc_stat_inc(c, flags & DC_MAP_WRITE ? DC_STAT_BYPASS_WRITE :
					      DC_STAT_BYPASS_FULL);
			ret = DC_MAP_BYPASS;
			break;
		}
		dc_reclaimer_kick(c);
		if (admit && !(flags & DC_MAP_NORECLAIM) &&
		    ((flags & DC_MAP_NOWAIT) || !dc_atomic_read(&c->reclaiming))) {
			/*
			 * Nothing idle to reclaim and nothing on its way to
			 * the free pool: serve it directly, no wait.  Ranges
			 * the background reclaimer holds are not "every range
			 * busy": they are free in a moment, so wait for them.
			 */
			dc_stat_inc(c, DC_STAT_BYPASS_BUSY);
			ret = DC_MAP_BYPASS;
			break;
		}
		if (flags & (DC_MAP_NOWAIT | DC_MAP_NORECLAIM)) {
			ret = -EAGAIN;
			break;
		}
		if (!registered) {
			/* Register, then look once more before sleeping. */
			dc_atomic_inc(&c->waiters);
			dc_smp_mb__after_atomic();
			registered = true;
			start = dc_now_ns();
			/* Saturating: a huge timeout means forever. */
			if (timeout_ns < DC_WAIT_FOREVER - start)
				deadline = start + timeout_ns;
			ev = dc_atomic64_read(&c->events);
			continue;
		}
		/* One clock read: two could make deadline - now wrap. */
		now = dc_now_ns();
		ret = dc_waitq_wait_timeout(&c->waitq,
				dc_atomic64_read(&c->events) != ev,
				deadline == DC_WAIT_FOREVER ? DC_WAIT_FOREVER :
				deadline > now ? deadline - now : 0);
		if (ret) {
			/* A miss that may bypass is never failed for want of a range. */
			if (admit && ret == -ETIMEDOUT) {
				dc_stat_inc(c, DC_STAT_BYPASS_BUSY);
				ret = DC_MAP_BYPASS;
			}
			break;
		}
		ev = dc_atomic64_read(&c->events);
	}
	if (registered) {
		dc_atomic_dec(&c->waiters);
		dc_stat_inc(c, DC_STAT_WAITS);
		dc_stat_add(c, DC_STAT_WAIT_NS, dc_now_ns() - start);
	}
	if (!ret)
		*out = r;
	return ret;
}

DC_EXPORT int dc_map_timeout(struct dc_inode *inode, uint64_t file_off,
			     unsigned int flags, uint64_t timeout_ns,
			     struct dc_pin *pin)
{
	struct dc_cache *c;
	struct dc_range *r;
	uint64_t index, in, gen;
	int ret;

	if (dc_unlikely(!inode || !pin || (flags & ~DC_MAP_KNOWN))) {
		ret = -EINVAL;
		goto no_pin;
	}
	ret = dc_caller_check(__func__);
	if (dc_unlikely(ret))
		goto no_pin;
	c = inode->cache;
	index = file_off >> c->cfg.range_shift;
	r = map_fast(inode, index);
	if (dc_likely(r)) {
		if ((flags & DC_MAP_WRITE) && !dc_range_writable(r) &&
		    upgrade_bypassed(c, inode, r, flags)) {
			range_unpin(r);
			dc_stat_inc(c, DC_STAT_BYPASS_WRITE);
			ret = DC_MAP_BYPASS;
			goto no_pin;
		}
		dc_stat_inc(c, DC_STAT_HITS);
		if ((flags & DC_MAP_WRITE) && !dc_range_writable(r)) {
			ret = map_upgrade(inode, r, flags);
			if (ret) {
				range_unpin(r);
				goto no_pin;
			}
		}
	} else {
		ret = map_slow(inode, file_off, flags, timeout_ns, &r);
		if (ret)
			goto no_pin;
	}
	in = file_off & (c->range_size - 1);
	pin->win_off = r->win_off + in;
	pin->len = c->range_size - in;
	/* One load: the generation and whether its setup made it writable. */
	gen = dc_read_once(r->gen);
	pin->writable = gen & 1;
	pin->gen = gen;
	pin->range = r;
	return 0;

no_pin:
	/*
	 * Every answer without a pin leaves an empty one, which dc_unpin()
	 * ignores: a caller that unpins after an error must not find garbage.
	 * Only the paths that fail pay for it.
	 */
	if (pin)
		memset(pin, 0, sizeof(*pin));
	return ret;
}

DC_EXPORT int dc_map(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
		     struct dc_pin *pin)
{
	/* dc_map_timeout() refuses a NULL inode (and empties the pin). */
	return dc_map_timeout(inode, file_off, flags,
			      dc_likely(inode) ? inode->cache->cfg.wait_timeout_ns : 0,
			      pin);
}

DC_EXPORT void dc_unpin(struct dc_pin *pin)
{
	struct dc_range *r;

	if (!pin || !pin->range)
		return;
	r = pin->range;
	pin->range = NULL;
	range_unpin(r);
}

DC_EXPORT int dc_wait_free(struct dc_cache *c, uint64_t timeout_ns)
{
	uint64_t deadline, ev, now;
	int ret = 0;

	if (!c)
		return -EINVAL;
	now = dc_now_ns();
	/* Saturating: a huge timeout means forever. */
	deadline = timeout_ns >= DC_WAIT_FOREVER - now ? DC_WAIT_FOREVER :
		   now + timeout_ns;
	dc_atomic_inc(&c->waiters);
	dc_smp_mb__after_atomic();
	for (;;) {
		ev = dc_atomic64_read(&c->events);
		if (dc_read_once(c->nr_free))
			break;
		dc_reclaimer_kick(c);
		now = dc_now_ns();
		if (deadline != DC_WAIT_FOREVER && now >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		ret = dc_waitq_wait_timeout(&c->waitq,
				dc_atomic64_read(&c->events) != ev ||
				dc_read_once(c->nr_free),
				deadline == DC_WAIT_FOREVER ? DC_WAIT_FOREVER :
				deadline - now);
		if (ret)
			break;
	}
	dc_atomic_dec(&c->waiters);
	return ret;
}
