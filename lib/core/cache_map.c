// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache_map.c - dc_map() and dc_unpin(): the lock-free hit path, the miss
 * path with its double-checked publish, read-only to writable upgrades, and
 * waiting for a free range.
 *
 * The top layer (see cache_types.h): it calls inline reclaim, admission
 * control and the pool; no cache file calls it.
 *
 * Locks: a hit takes none (a hint or a lookup in the mapping table, a pin in
 * a slot of the thread or by refcount, an identity check: see "Pins"
 * below); a miss takes the inode's mutex to look,
 * claim a range and put it in the table as a pending entry, and again only
 * if the setup fails; the
 * backend's setup runs with no lock held, so misses of different ranges of
 * one file run their setups in parallel, and a miss of the same range
 * waits for the range (@setting_up), not for the inode.  An upgrade holds
 * the mutex only to decide who sets up.  Inside the pool functions of
 * cache_pool.c, the pool spinlock.  Waiting for a free range, or for a
 * setup in flight, sleeps on one of the cache's wait queues with no lock
 * held.
 *
 * Callers: the API (<daxcache/cache.h>: dc_map(), dc_map_timeout(),
 * dc_unpin(), dc_wait_free()).
 */
#include "cache_admit.h"
#include "cache_inode.h"
#include "cache_maptab.h"
#include "cache_pool.h"
#include "cache_reclaim.h"
#include "cache_trace.h"

#define DCI_MAP_KNOWN	(DC_MAP_READ | DC_MAP_WRITE | DC_MAP_NOWAIT | DC_MAP_NORECLAIM | \
			 DC_MAP_MAY_BYPASS)

/*
 * Someone waits for a range, in some cache (dci_waiters_any): wake this
 * range's cache if the waiter is its.  A waiter counts itself in its
 * cache's @waiters before dci_waiters_any, both before it looks again.
 */
static dci_noinline void range_unpin_waiters(struct dci_range *r)
{
	struct dc_cache *c = dci_range_cache(r);

	/*
	 * In a child forked unprepared the waiters' lock may be held by a
	 * thread that is gone: the pin is dropped, nobody is woken.  Here,
	 * not in dc_unpin(), so that the hit path pays nothing for it.
	 */
	if (dci_fork_check("dc_unpin"))
		return;
	if (dci_pool_has_waiters(c))
		dci_pool_wake(c);
}

/* An unpin took the count to zero or below: report it, then go on. */
static dci_noinline dci_cold void range_unpin_misused(struct dci_range *r)
{
	dci_refcount_dec_report(&r->ref);
	dci_smp_mb__after_atomic();
	if (dci_atomic_nonzero(&dci_waiters_any))
		range_unpin_waiters(r);
}

/*
 * Drop one pin.  The mapping's own reference keeps the count above zero.
 * When a range may have become idle and someone waits for one, wake them:
 * an idle range can be reclaimed.  The waiter registers before it looks, and
 * the barrier orders our decrement before our look at the waiter counts.
 * The look is at the count of every cache's waiters, which needs no cache:
 * the range's own is found only when someone waits (after the decrement is
 * fine: @r is type-stable, and which cache it belongs to never changes).
 */
static inline void range_unpin(struct dci_range *r)
{
	if (dci_unlikely(!dci_refcount_dec_fast(&r->ref))) {
		range_unpin_misused(r);
		return;
	}
	dci_smp_mb__after_atomic();
	if (dci_unlikely(dci_atomic_nonzero(&dci_waiters_any)))
		range_unpin_waiters(r);
}

/*
 * Pins.  A pin is held one of two ways, and dc_unpin() tells them apart by
 * the alignment of the pin's private pointer, the range or the slot (range
 * objects start cache lines, slots never do: PIN_SLOT_MASK):
 *
 * - in a slot of the pinning thread (userspace: DCI_PLAT_PIN_SLOTS of them
 *   per thread and cache, in the thread's block of the cache's per-thread
 *   counters, which the hit path reaches anyway): a hazard pointer.  The
 *   hit publishes the range in a free slot of its own line
 *   (dci_pin_slot_publish(): a full barrier), then checks that the count
 *   is not 0 (no claim has taken the range since, and it is no pending
 *   entry) and that @gen has not moved (no setup has reused it).  It writes
 *   no line of the range once the range's hit count is at its cap
 *   (dci_range_hit()): threads hitting one range share its line.  A claim
 *   takes the count 1 -> 0, a full barrier, then looks at every thread's
 *   slots and gives the range back if one names it (cache_reclaim.c,
 *   claim_idle()): either the pin sees the 0 or the claim sees the pin.
 *   The victim walks pass a range a slot names as they pass a counted one.
 *   Only the hit path takes slot pins, and only in a thread whose counters
 *   are ready for the cache; the unpin empties the slot, from any thread,
 *   so a pin outlives the thread that took it, and a thread that exits
 *   holding none leaves no slot behind.  A slot is held as long as its pin,
 *   however long: a thread that holds DCI_PLAT_PIN_SLOTS pins of a cache
 *   counts its next ones, so long holds exhaust nothing.
 * - counted in the range's @ref: try_pin() (the general path: a miss, a
 *   hit from a thread whose counters are not ready, an upgrade), the hit
 *   path once its thread's slots are all taken, and every pin in the
 *   kernel, where DCI_PLAT_PIN_SLOTS is 0: a pin there may be held across
 *   a fault's I/O, asleep and migrated, which a per-CPU slot does not
 *   survive (see lib/platform/kernel/platform.h).
 */
#define PIN_SLOT_MASK	((uintptr_t)DCI_CACHELINE - 1)

/* A slot pin's unpin found its slot empty: a pin dropped twice. */
static dci_noinline dci_cold void slot_unpin_misused(void)
{
	dci_warn_once(true, "dc_unpin: the pin was dropped already");
}

/*
 * Drop the pin held in @slot: empty it (a full barrier, as the count's
 * locked decrement is), then, if someone waits for a range, wake the
 * range's cache as range_unpin() does.
 */
static inline void slot_unpin(dci_pin_slot_t *slot)
{
	struct dci_range *r = (struct dci_range *)dci_pin_slot_drop(slot);

	if (dci_unlikely(dci_atomic_nonzero(&dci_waiters_any))) {
		if (r)
			range_unpin_waiters(r);
		else
			slot_unpin_misused();
	}
}

/*
 * Pin @r if it maps @index of @inode now, and say in *@genp which setup's
 * mapping it is.  It may have been reclaimed and reused since it was found:
 * look first (a stale hint or a range reused since the lookup must not be
 * pinned even for a moment, or a punch or an eviction of its new owner
 * would see a pin nobody holds), pin, then check that no setup happened
 * in between.
 *
 * Every setup moves @gen, written with release after @owner and @index
 * while the count is 0 (map_new()), so the acquire load of @gen makes the
 * identity read after it at least as new as that generation.  Once pinned,
 * nobody can claim the range; if @gen is still what we read first, no
 * setup has happened since, and the identity we checked is the one we
 * pinned.  (An upgrade moves @gen under a pin too: such a race just drops
 * the pin and takes the slow path.)
 */
static inline bool try_pin(struct dci_range *r, struct dc_inode *inode,
			   uint64_t index, uint64_t *genp)
{
	uint64_t gen = dci_load_acquire(&r->gen);

	if (dci_read_once(r->owner) != inode || dci_read_once(r->index) != index)
		return false;
	if (!dci_refcount_inc_not_zero(&r->ref))
		return false;
	if (dci_likely(dci_read_once(r->gen) == gen)) {
		/* Pinned: the line is ours already, a store costs nothing more. */
		dci_inc_racy(r->hits);
		*genp = gen;
		return true;
	}
	range_unpin(r);
	return false;
}

/*
 * The table half of the hit path: find the range mapping @index and pin
 * it, taking no lock; a pinned range becomes the index's hint if it has
 * one and it is not already (dci_hint_refresh(): no store when it is).
 */
static struct dci_range *map_table(struct dc_inode *inode, uint64_t index,
				  uint64_t *genp)
{
	struct dci_range *r = dci_maptab_lookup(inode, index);

	if (!r || !try_pin(r, inode, index, genp))
		return NULL;
	dci_hint_refresh(inode, index, r);
	return r;
}

static inline uint64_t range_file_off(const struct dc_cache *c, uint64_t index)
{
	return index << c->cfg.range_shift;
}

/* A setup of @index of @inode failed with @ret: count and log it. */
static dci_noinline dci_cold int setup_failed(struct dc_inode *inode,
					    uint64_t index, bool writable,
					    int ret)
{
	unsigned int nth;

	ret = dci_pool_backend_failed(inode->cache, DCI_BE_SETUP, ret, &nth);
	if (nth)
		dci_pr_warn("setup of inode %llu range %llu%s failed: %d"
			   DCI_BE_FAIL_NOTE,
			   (unsigned long long)inode->id,
			   (unsigned long long)index,
			   writable ? " for writing" : "", ret, nth);
	return ret;
}

/*
 * range_setup() while the miss event is enabled: the same call, timed, and
 * the event.  Out of line, so that a miss without a tracer pays one test.
 */
static dci_noinline dci_cold int range_setup_traced(struct dc_inode *inode,
						  struct dci_range *r,
						  uint64_t index,
						  unsigned int flags)
{
	struct dc_cache *c = inode->cache;
	uint64_t t0 = dci_now_ns();
	int ret;

	ret = c->ops->setup(c->priv, inode->id, range_file_off(c, index),
			    r->win_off, c->range_size, flags);
	dci_trace_miss(inode->id, index, r->win_off, c->range_size, flags,
		       dci_now_ns() - t0, ret);
	return ret;
}

/*
 * Ask the backend to map @index of @inode in @r, writable or not; a failure
 * is counted and logged (dci_pool_backend_failed()).  Returns 0 or the error.
 */
static inline int range_setup(struct dc_inode *inode, struct dci_range *r,
			      uint64_t index, bool writable)
{
	struct dc_cache *c = inode->cache;
	unsigned int flags = DC_MAP_READ | (writable ? DC_MAP_WRITE : 0);
	int ret;

	if (dci_unlikely(dci_trace_on(miss)))
		ret = range_setup_traced(inode, r, index, flags);
	else
		ret = c->ops->setup(c->priv, inode->id, range_file_off(c, index),
				    r->win_off, c->range_size, flags);
	return dci_likely(!ret) ? 0 : setup_failed(inode, index, writable, ret);
}

/* Take @inode's mutex; -EAGAIN rather than wait for it under DC_MAP_NOWAIT. */
static int map_lock(struct dc_inode *inode, unsigned int flags)
{
	if (flags & DC_MAP_NOWAIT)
		return dci_mutex_trylock(&inode->mutex) ? 0 : -EAGAIN;
	dci_mutex_lock(&inode->mutex);
	return 0;
}

/*
 * A setup of @r is in flight in another thread (a pending entry found in
 * the table, or an upgrade): wait for it to end, with no lock held, then the
 * caller looks again.  Counted as a wait for a range.  Returns 0, or
 * -EAGAIN under DC_MAP_NOWAIT.
 */
static dci_noinline int map_setup_wait(struct dc_inode *inode, struct dci_range *r,
				      unsigned int flags)
{
	struct dc_cache *c = inode->cache;
	uint64_t start, ns;

	if (flags & DC_MAP_NOWAIT)
		return -EAGAIN;
	start = dci_now_ns();
	dci_pool_setup_wait(c, r);
	ns = dci_now_ns() - start;
	dci_stat_inc(c, DCI_STAT_WAITS);
	dci_stat_add(c, DCI_STAT_WAIT_NS, ns);
	dci_trace_wait(inode->id, ns, 0);
	return 0;
}

/*
 * Make the pinned mapping @r writable: one setup with DC_MAP_WRITE, done
 * once however many writers race for it.  The inode mutex decides who sets
 * up (@setting_up); the setup runs with no lock held, and the other writers
 * wait for it to end, then look again.
 */
static int map_upgrade(struct dc_inode *inode, struct dci_range *r,
		       unsigned int flags)
{
	struct dc_cache *c = inode->cache;
	bool busy;
	int ret;

	for (;;) {
		ret = map_lock(inode, flags);
		if (ret)
			return ret;
		if (dci_range_writable(r)) {
			dci_mutex_unlock(&inode->mutex);
			return 0;
		}
		busy = dci_read_once(r->setting_up);
		if (!busy)
			dci_range_setup_begin(r);
		dci_mutex_unlock(&inode->mutex);
		if (!busy)
			break;
		ret = map_setup_wait(inode, r, flags);
		if (ret)
			return ret;
	}
	/* Pinned: nobody claims @r, and only we move its generation now. */
	ret = range_setup(inode, r, r->index, true);
	if (!ret) {
		/* A setup: a new generation, and a writable one. */
		dci_store_release(&r->gen, dci_range_gen_next(r->gen, true));
		dci_stat_inc(c, DCI_STAT_UPGRADES);
	}
	dci_pool_setup_end(c, r);
	return ret;
}

/*
 * Under admission control, a write to the pinned read-only mapping @r of
 * @inode is served directly while the window is full, unless the range is
 * hot (dci_admit_write_hit()): the upgrade would cost a setup now and a
 * writeback before the range can be reclaimed, and reclaim is what a full
 * window does, but not to the ranges it keeps using.
 */
static inline bool upgrade_bypassed(struct dc_cache *c, struct dc_inode *inode,
				    struct dci_range *r, unsigned int flags)
{
	return dci_admit_applies(c, flags) && !dci_pool_nr_free(c) &&
	       !dci_admit_write_hit(c, inode->id, dci_read_once(r->index));
}

/* The deadline @timeout_ns after @now; saturating: a huge timeout is forever. */
static uint64_t deadline_after(uint64_t now, uint64_t timeout_ns)
{
	return timeout_ns >= DC_WAIT_FOREVER - now ? DC_WAIT_FOREVER :
	       now + timeout_ns;
}

/* What is left at @now of a wait until @deadline (0 once it has passed). */
static uint64_t time_left(uint64_t deadline, uint64_t now)
{
	return deadline == DC_WAIT_FOREVER ? DC_WAIT_FOREVER :
	       deadline > now ? deadline - now : 0;
}

/*
 * Get a range for a new mapping: free pool, then inline reclaim.  With
 * @cand (admission control) neither the free pool nor
 * DC_CACHE_KICK_BG_FIRST starts the background reclaimer, and inline
 * reclaim contests its victim: NULL with *@refused
 * means bypass.  *@contested tells a range won over a victim.  *@was: what
 * the backend still maps in a range reclaimed inline (its backend_mapped
 * says whether anything).  *@on_busy: the range is on the busy ring
 * already (one from the free pool: dci_pool_take_free(), which says in
 * *@kick whether to start the background reclaimer once the mutex is
 * dropped).
 */
static struct dci_range *alloc_range(struct dc_inode *inode, unsigned int flags,
				    const struct dci_admit_cand *cand,
				    bool *refused, bool *contested,
				    struct dci_range_backend *was, bool *on_busy,
				    bool *kick)
{
	struct dc_cache *c = inode->cache;
	struct dci_range *r;

	*refused = false;
	*contested = false;
	/*
	 * Only a miss that cannot reclaim inline, or a cache that kicks the
	 * background reclaimer first, keeps the free pool at its threshold:
	 * the others reuse idle ranges inline once it is empty.
	 */
	r = dci_pool_take_free(c, !cand && ((flags & DC_MAP_NORECLAIM) ||
					    (c->cfg.flags & DC_CACHE_KICK_BG_FIRST)),
			       kick);
	*on_busy = r;
	if (r || (flags & DC_MAP_NORECLAIM))
		return r;
	/*
	 * Not for a contested miss: the reclaimer would free ranges that
	 * later misses then map without a contest.
	 */
	if ((c->cfg.flags & DC_CACHE_KICK_BG_FIRST) && !cand)
		dci_pool_kick_reclaimer(c);
	r = dci_reclaim_inline(c, inode, cand, refused, was);
	*contested = r && cand;
	return r;
}

/*
 * The setup of @inode's index in @r, a pending entry of the table (see
 * map_new()), failed with @ret: take the entry out under the mutex, end
 * the setup (its waiters look again, and find nothing), then give the
 * range back, removing what the backend maps there (@was).  The mark is
 * cleared before the range can be anyone else's.  Returns @ret.
 */
static dci_noinline dci_cold int map_new_failed(struct dc_inode *inode,
					      struct dci_range *r,
					      const struct dci_range_backend *was,
					      bool on_busy, int ret)
{
	struct dc_cache *c = inode->cache;

	dci_mutex_lock(&inode->mutex);
	dci_maptab_remove(c, r);
	dci_mutex_unlock(&inode->mutex);
	dci_pool_setup_end(c, r);
	dci_range_release(c, r, was, on_busy);
	return ret;
}

/*
 * Set up and publish a mapping of @index in the claimed range @r (count 0,
 * in no table, and on the busy ring if @on_busy, else in no list), in which
 * the backend maps @was if r->backend_mapped.  Called with the inode mutex
 * held; it drops it for the setup.  The range goes into the mapping table
 * first, as a pending entry (still at count 0, @setting_up set, its
 * identity already @inode's @index: the table's key), with its hint:
 * lock-free readers that find it fail to pin it, and a miss that finds it
 * under the mutex waits for the setup to end (map_slow()) rather than set
 * the index up again.  Misses of other indexes take the mutex meanwhile.
 * What the backend maps there until the setup succeeds is @was, which a
 * failed setup removes.  Nothing is allocated.  Returns 0 with the mapping
 * published and pinned once for the caller; the mutex is dropped either
 * way.
 */
static int map_new(struct dc_inode *inode, struct dci_range *r, uint64_t index,
		   unsigned int flags, const struct dci_range_backend *was,
		   bool on_busy, bool kick)
{
	struct dc_cache *c = inode->cache;
	bool writable = flags & DC_MAP_WRITE;
	int ret;

	/*
	 * map_slow() looked under the mutex we hold: nothing maps @index.
	 * The mark first: whoever finds the entry finds it set.  At count 0
	 * the new identity fails every pin (try_pin()).
	 */
	dci_range_setup_begin(r);
	dci_write_once(r->owner, inode);
	dci_write_once(r->index, index);
	dci_maptab_insert(c, r);
	dci_hint_refresh(inode, index, r);
	dci_mutex_unlock(&inode->mutex);
	/* The pool fell below its threshold: the mutex is free for it now. */
	if (kick)
		dci_pool_kick_reclaimer(c);
	ret = range_setup(inode, r, index, writable);
	if (dci_unlikely(ret))
		return map_new_failed(inode, r, was, on_busy, ret);
	r->backend_mapped = true;
	dci_write_once(r->hits, 0);
	/* After the identity: see try_pin(). */
	dci_store_release(&r->gen, dci_range_gen_next(r->gen, writable));
	/* One reference for the mapping, one for the caller's pin. */
	dci_refcount_set_release(&r->ref, 2);
	if (!on_busy)
		dci_pool_add_busy(c, r);
	/* Published first: a waiter that sees the setup end can pin it. */
	dci_pool_setup_end(c, r);
	dci_stat_inc(c, DCI_STAT_MISSES);
	return 0;
}

/*
 * A flagged miss with no range free and none on its way, that would lose
 * to any victim (see dci_admit_cand_hopeless()) or that the eviction budget
 * refuses (dci_admit_over_budget(), which counts it), is bypassed whatever
 * happens under the mutex: note it in *@cand and say whether to bypass it
 * without the mutex, so that it does not wait behind another thread's
 * setup of this inode (a round trip).  The caller's looks are racy: a
 * range freed meanwhile only means one bypass that could have been a
 * mapping.
 */
static bool miss_hopeless(struct dc_cache *c, struct dc_inode *inode,
			  uint64_t file_off, unsigned int flags,
			  struct dci_admit_cand *cand)
{
	dci_admit_note_miss(c, inode, file_off, flags & DC_MAP_WRITE, cand);
	if (!dci_admit_cand_hopeless(cand) && !dci_admit_over_budget(c, cand))
		return false;
	dci_stat_inc(c, cand->write ? DCI_STAT_BYPASS_WRITE : DCI_STAT_BYPASS_FULL);
	dci_trace_bypass(inode->id, cand->index, cand->write ?
			 DCI_TRACE_BYPASS_WRITE : DCI_TRACE_BYPASS_FULL);
	return true;
}

/*
 * A miss of @cand mapped over a victim it contested (and beat).  Out of
 * line: inline, it cost every miss 4 instructions (bench/cache/instr).
 */
static dci_noinline void map_contested(struct dc_cache *c,
				      const struct dci_admit_cand *cand)
{
	dci_stat_inc(c, DCI_STAT_ADMITS_CONTESTED);
	if (cand->stride)
		dci_stat_inc(c, DCI_STAT_ADMITS_STREAM);
}

/*
 * A miss found @r, mapped by a racing thread, under the inode mutex, and
 * pinned it: a hit after all (a write may upgrade it, or be bypassed).
 * Returns 0 with @r pinned, else DC_MAP_BYPASS or an error, unpinned.
 */
static int map_found(struct dc_inode *inode, struct dci_range *r,
		     unsigned int flags)
{
	struct dc_cache *c = inode->cache;
	int ret;

	if (!(flags & DC_MAP_WRITE) || dci_range_writable(r)) {
		dci_stat_inc(c, DCI_STAT_HITS);
		return 0;
	}
	if (upgrade_bypassed(c, inode, r, flags)) {
		range_unpin(r);
		dci_stat_inc(c, DCI_STAT_BYPASS_WRITE);
		return DC_MAP_BYPASS;
	}
	dci_stat_inc(c, DCI_STAT_HITS);
	ret = map_upgrade(inode, r, flags);
	if (ret)
		range_unpin(r);
	return ret;
}

/*
 * No range could be had for a miss (the mutex dropped): DC_MAP_BYPASS when
 * the miss may bypass and should (its victim won: @refused; or nothing is
 * idle and nothing on its way to the free pool), -EAGAIN when it may not
 * wait, else 0: wait for a range.
 */
static int map_no_range(struct dc_cache *c, unsigned int flags, bool admit,
			bool refused)
{
	if (refused) {
		dci_stat_inc(c, flags & DC_MAP_WRITE ? DCI_STAT_BYPASS_WRITE :
				      DCI_STAT_BYPASS_FULL);
		return DC_MAP_BYPASS;
	}
	dci_pool_kick_reclaimer(c);
	if (admit && !(flags & DC_MAP_NORECLAIM) &&
	    ((flags & DC_MAP_NOWAIT) || !dci_reclaim_in_flight(c))) {
		/*
		 * Nothing idle to reclaim and nothing on its way to the free
		 * pool: serve it directly, no wait.  Ranges the background
		 * reclaimer holds are not "every range busy": they are free
		 * in a moment, so wait for them.
		 */
		dci_stat_inc(c, DCI_STAT_BYPASS_BUSY);
		return DC_MAP_BYPASS;
	}
	if (flags & (DC_MAP_NOWAIT | DC_MAP_NORECLAIM))
		return -EAGAIN;
	return 0;
}

/* A miss's wait for a range, across its tries. */
struct map_wait {
	uint64_t start, deadline;
	uint64_t ev;			/* the events count of the last look */
	bool registered;
};

/*
 * Wait for a range before a miss looks again: the first time, register
 * and look once more at once.  After that, sleep until an event (a range
 * freed or unpinned), or, for a miss that waits only because the
 * reclaimer was at work (@admit), until the reclaimer is done (see
 * reclaiming_done()).  Returns 0 to look again, else DC_MAP_BYPASS (@admit:
 * a miss that may bypass is never failed for want of a range) or the
 * wait's error.
 */
static int map_wait(struct dc_cache *c, struct map_wait *w, bool admit,
		    uint64_t timeout_ns)
{
	uint64_t now;
	int ret;

	if (!w->registered) {
		dci_waiters_enter(c);
		w->registered = true;
		w->start = dci_now_ns();
		w->deadline = deadline_after(w->start, timeout_ns);
		w->ev = dci_pool_events(c);
		return 0;
	}
	/* One clock read: two could make deadline - now wrap. */
	now = dci_now_ns();
	dci_pool_sleep_begin(c);
	ret = dci_waitq_wait_timeout(dci_pool_waitq(c),
			dci_pool_events(c) != w->ev ||
			(admit && !dci_reclaim_in_flight(c)),
			time_left(w->deadline, now));
	dci_pool_sleep_end(c);
	if (ret) {
		if (admit && ret == -ETIMEDOUT) {
			dci_stat_inc(c, DCI_STAT_BYPASS_BUSY);
			ret = DC_MAP_BYPASS;
		}
		return ret;
	}
	w->ev = dci_pool_events(c);
	return 0;
}

/* A miss is done waiting: leave the waiters, and count the wait. */
static void map_wait_end(struct dc_cache *c, const struct map_wait *w,
			 uint64_t ino, int ret)
{
	uint64_t ns;

	if (!w->registered)
		return;
	dci_waiters_leave(c);
	ns = dci_now_ns() - w->start;
	dci_stat_inc(c, DCI_STAT_WAITS);
	dci_stat_add(c, DCI_STAT_WAIT_NS, ns);
	dci_trace_wait(ino, ns, ret);
}

/*
 * The slow path: under the inode mutex, look again (another thread may have
 * mapped the range of @file_off meanwhile: then pin theirs; or be setting
 * it up: then wait for that setup to end, and start over), else allocate
 * and set up (map_new(), which drops the mutex for the setup).  When no
 * range can be had, drop the mutex and wait for a free range or an unpin,
 * then start over.  Under admission control the miss is counted, and
 * instead of waiting (or when it loses to its victim) it returns
 * DC_MAP_BYPASS.
 */
static int map_slow(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
		    uint64_t timeout_ns, struct dci_range **out)
{
	struct dc_cache *c = inode->cache;
	uint64_t index = file_off >> c->cfg.range_shift;
	bool admit = dci_admit_applies(c, flags);
	bool noted = false, refused, contested, on_busy, kick;
	struct map_wait w = { .deadline = DC_WAIT_FOREVER };
	struct dci_admit_cand cand;
	struct dci_range_backend was;
	struct dci_range *r;
	int ret;

	if (admit && !dci_pool_nr_free(c) && !dci_reclaim_in_flight(c)) {
		noted = true;
		if (miss_hopeless(c, inode, file_off, flags, &cand))
			return DC_MAP_BYPASS;
	}
	for (;;) {
		ret = map_lock(inode, flags);
		if (ret)
			break;
		/* Under the mutex, the table's answer is exact for this inode. */
		r = dci_maptab_lookup(inode, index);
		if (r) {
			/*
			 * Mapped by a racing thread (under the mutex, a count
			 * of 0 is a pending entry: see map_new()).
			 */
			if (dci_likely(dci_refcount_inc_not_zero(&r->ref))) {
				dci_mutex_unlock(&inode->mutex);
				ret = map_found(inode, r, flags);
				break;
			}
			dci_mutex_unlock(&inode->mutex);
			ret = map_setup_wait(inode, r, flags);
			if (ret)
				break;
			continue;
		}
		if (admit && !noted) {
			dci_admit_note_miss(c, inode, file_off, flags & DC_MAP_WRITE, &cand);
			noted = true;
		}
		r = alloc_range(inode, flags, admit ? &cand : NULL, &refused,
				&contested, &was, &on_busy, &kick);
		if (r) {
			/* Claimed: ours alone until map_new() publishes it. */
			dci_write_once(r->stream_stride, admit ? cand.stride : 0);
			ret = map_new(inode, r, index, flags, &was, on_busy, kick);
			if (!ret && contested)
				map_contested(c, &cand);
			break;
		}
		dci_mutex_unlock(&inode->mutex);
		ret = map_no_range(c, flags, admit, refused);
		if (!ret)
			ret = map_wait(c, &w, admit, timeout_ns);
		if (ret)
			break;
	}
	map_wait_end(c, &w, inode->id, ret);
	if (!ret)
		*out = r;
	/* map_no_range() or map_wait(), after alloc_range() set @refused. */
	else if (ret == DC_MAP_BYPASS)
		dci_trace_bypass(inode->id, index, !refused ? DCI_TRACE_BYPASS_BUSY :
				 flags & DC_MAP_WRITE ? DCI_TRACE_BYPASS_WRITE :
				 DCI_TRACE_BYPASS_FULL);
	return ret;
}

/* Fill @pin for @file_off, in @r pinned at generation @gen. */
static inline void pin_fill(uint64_t range_size, struct dci_range *r,
			    uint64_t file_off, uint64_t gen, struct dc_pin *pin)
{
	uint64_t in = file_off & (range_size - 1);

	pin->range = r;
	pin->len = range_size - in;
	/* A range's window offset is a multiple of the range size. */
	pin->win_off = in | r->win_off;
	/* One load: the generation and whether its setup made it writable. */
	pin->writable = gen & 1;
	pin->gen = gen;
}

/*
 * Every answer without a pin leaves an empty one, which dc_unpin() ignores:
 * a caller that unpins after an error must not find garbage.  Only the
 * paths that fail pay for it.
 */
static int map_no_pin(struct dc_pin *pin, int ret)
{
	if (pin)
		memset(pin, 0, sizeof(*pin));
	return ret;
}

/*
 * A hit: @r maps the range of @file_off in @inode, pinned at generation
 * @gen.  A write to a read-only mapping upgrades it, or under admission
 * control may be refused (DC_MAP_BYPASS); then fill @pin.
 */
static inline int map_pinned(struct dc_cache *c, struct dc_inode *inode,
			     struct dci_range *r, uint64_t gen, uint64_t file_off,
			     unsigned int flags, struct dc_pin *pin)
{
	int ret;

	if ((flags & DC_MAP_WRITE) && !(gen & 1) &&
	    upgrade_bypassed(c, inode, r, flags)) {
		range_unpin(r);
		dci_stat_inc(c, DCI_STAT_BYPASS_WRITE);
		return map_no_pin(pin, DC_MAP_BYPASS);
	}
	dci_stat_inc(c, DCI_STAT_HITS);
	if ((flags & DC_MAP_WRITE) && !(gen & 1)) {
		ret = map_upgrade(inode, r, flags);
		if (ret) {
			range_unpin(r);
			return map_no_pin(pin, ret);
		}
	}
	pin_fill(c->range_size, r, file_off, dci_read_once(r->gen), pin);
	return 0;
}

/*
 * A miss, once neither the hint nor the table pinned (the hit path's walk
 * of the table found nothing: it does not look again; a look under the
 * mutex will).  The arguments are checked and the caller may call in
 * (map_general(), or the hit path, whose readiness test says so).
 * @use_cfg: wait for the cache's wait_timeout_ns rather than @timeout_ns
 * (dc_map()).
 */
static dci_noinline int
map_missed(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
	   uint64_t timeout_ns, bool use_cfg, struct dc_pin *pin)
{
	struct dc_cache *c = inode->cache;
	struct dci_range *r;
	int ret;

	if (use_cfg)
		timeout_ns = c->cfg.wait_timeout_ns;
	ret = map_slow(inode, file_off, flags, timeout_ns, &r);
	if (ret)
		return map_no_pin(pin, ret);
	pin_fill(c->range_size, r, file_off, dci_read_once(r->gen), pin);
	return 0;
}

/* The general way once the hint did not pin: the table, a hit there, else map_missed(). */
static dci_noinline int
map_unhinted(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
	     uint64_t timeout_ns, bool use_cfg, struct dc_pin *pin)
{
	struct dc_cache *c = inode->cache;
	uint64_t index, gen = 0;
	struct dci_range *r;

	index = file_off >> c->cfg.range_shift;
	r = map_table(inode, index, &gen);
	if (dci_likely(r))
		return map_pinned(c, inode, r, gen, file_off, flags, pin);
	return map_missed(inode, file_off, flags, timeout_ns, use_cfg, pin);
}

/*
 * Everything but a read hit through the hint: the arguments' checks, the
 * hint again (writes come here first), then map_unhinted().
 */
static dci_noinline int
map_general(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
	    uint64_t timeout_ns, bool use_cfg, struct dc_pin *pin)
{
	struct dci_range *r;
	uint64_t index, gen = 0;
	int ret;

	ret = dci_entry_check(inode && pin && !(flags & ~DCI_MAP_KNOWN),
			      use_cfg ? "dc_map" : "dc_map_timeout");
	if (dci_unlikely(ret))
		return map_no_pin(pin, ret);
	index = file_off >> inode->cache->cfg.range_shift;
	r = dci_hint_get(inode, index);
	if (try_pin(r, inode, index, &gen))
		return map_pinned(inode->cache, inode, r, gen, file_off, flags, pin);
	return map_unhinted(inode, file_off, flags, timeout_ns, use_cfg, pin);
}

/* The hit path's pin lost a race with a setup: drop it, go the general way. */
static dci_noinline dci_cold int
map_raced(struct dci_range *r, struct dc_inode *inode, uint64_t file_off,
	  unsigned int flags, uint64_t timeout_ns, bool use_cfg,
	  struct dc_pin *pin)
{
	range_unpin(r);
	return map_general(inode, file_off, flags, timeout_ns, use_cfg, pin);
}

/*
 * The hit path's slot pin lost a race with a claim (the count was 0) or a
 * setup: let go of it, go the general way.
 */
static dci_noinline dci_cold int
map_slot_raced(dci_pin_slot_t *slot, struct dc_inode *inode, uint64_t file_off,
	       unsigned int flags, uint64_t timeout_ns, bool use_cfg,
	       struct dc_pin *pin)
{
	slot_unpin(slot);
	return map_general(inode, file_off, flags, timeout_ns, use_cfg, pin);
}

static int map_hit_more(struct dc_inode *inode, uint64_t file_off,
			unsigned int flags, uint64_t timeout_ns, bool use_cfg,
			struct dc_pin *pin);

/*
 * The hit path: a read of a mapped range, or (@write) a write of a range
 * mapped writable.  The range comes from the inode's own hint of its index
 * (one load; an empty one points at dci_range_none, which fails the
 * identity check) or, past them, from the mapping table (its chain,
 * walked inline); then
 * the pin (see "Pins" above): in the thread's first slot when it is free,
 * else (@more: map_hit_more()) in another slot, or counted (an atomic
 * increment: try_pin() spelled out, so that a lost race is a tail call)
 * when every slot is taken; a per-thread count whose readiness also says
 * that the thread may call in; no lock, no RCU section (range objects
 * outlive every inode).  A write to a mapping not writable goes the
 * general way (an upgrade).  Everything else is a tail call, so that this
 * stays a leaf.  The arguments are checked.
 */
static dci_always_inline int
map_hit(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
	uint64_t timeout_ns, bool use_cfg, struct dc_pin *pin, bool write,
	bool more)
{
	dci_pin_slot_t *first, *slot;
	struct dci_range *r;
	uint64_t index, gen;

	/*
	 * Not ready: not a caller (map_general() says why) or counting
	 * into another cache.  The cache's constants are the inode's copies.
	 */
	if (dci_unlikely(!dci_pcounter_ref_ready(inode->stats)))
		goto general;
	index = file_off >> inode->range_shift;
	if (dci_likely(index < DCI_HINT_LEAF_SLOTS)) {
		r = dci_hint_get(inode, index);
		gen = dci_load_acquire(&r->gen);
		if (dci_unlikely(dci_read_once_ne(r->owner, inode) ||
				dci_read_once_ne(r->index, index)))
			goto unhinted;
	} else if (!dci_maptab_walk(inode, dci_maptab_bucket(inode, index),
				    index, &r, NULL, &gen)) {
		goto missed;	/* or moved under the walk: the general way */
	}
	/* An upgrade: the general way. */
	if (write && dci_unlikely(!(gen & 1)))
		goto unhinted;
	if (DCI_PLAT_PIN_SLOTS) {
		first = dci_pin_slot_first(inode->stats);
		if (!more) {
			/* The thread holds a pin already: out of line. */
			if (dci_unlikely(!dci_pin_slot_free(first)))
				return map_hit_more(inode, file_off, flags,
						    timeout_ns, use_cfg, pin);
			dci_pin_slot_publish(first, r);
			slot = first;
		} else {
			slot = dci_pin_slot_take_more(first, r);
			if (!slot)
				goto counted;
		}
		/*
		 * Published, then a full barrier: a claim from now on sees
		 * the slot.  A count of 0 is a claim before it (or a pending
		 * entry); acquire: a count set by a newer setup than @gen's
		 * comes with that setup's @gen, which the check then sees.
		 */
		if (dci_unlikely(dci_refcount_zero_acquire(&r->ref) ||
				dci_read_once_ne(r->gen, gen)))
			return map_slot_raced(slot, inode, file_off, flags,
					      timeout_ns, use_cfg, pin);
		dci_range_hit(r);
		pin_fill(inode->range_size, r, file_off, gen, pin);
		/* Never a range: no slot starts a cache line. */
		pin->range = slot;
		dci_pcounter_slot_add(inode->stats, first, DCI_STAT_HITS, 1);
		return 0;
	}
counted:
	if (dci_unlikely(!dci_refcount_inc_not_zero_fast(&r->ref)))
		goto unhinted;
	if (dci_unlikely(dci_read_once_ne(r->gen, gen)))
		return map_raced(r, inode, file_off, flags, timeout_ns, use_cfg, pin);
	/* Pinned: the line is ours already, a store costs nothing more. */
	dci_inc_racy(r->hits);
	pin_fill(inode->range_size, r, file_off, gen, pin);
	dci_pcounter_ref_add(inode->stats, DCI_STAT_HITS, 1);
	return 0;

general:
	return map_general(inode, file_off, flags, timeout_ns, use_cfg, pin);
missed:
	return map_missed(inode, file_off, flags, timeout_ns, use_cfg, pin);
unhinted:
	/* Valid arguments, from a caller that may call in. */
	return map_unhinted(inode, file_off, flags, timeout_ns, use_cfg, pin);
}

/*
 * The hit path of a thread whose first slot is taken (it holds a pin of
 * this cache already): map_hit() again, pinning in another slot, or
 * counted once every slot is taken.  A read or a write, the arguments
 * checked.
 */
static dci_noinline int map_hit_more(struct dc_inode *inode, uint64_t file_off,
				    unsigned int flags, uint64_t timeout_ns,
				    bool use_cfg, struct dc_pin *pin)
{
	return map_hit(inode, file_off, flags, timeout_ns, use_cfg, pin,
		       flags & DC_MAP_WRITE, true);
}

/* The hit path of a write (valid arguments): map_hit(), out of the read's way. */
static dci_noinline int
map_write(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
	  uint64_t timeout_ns, bool use_cfg, struct dc_pin *pin)
{
	return map_hit(inode, file_off, flags, timeout_ns, use_cfg, pin, true, false);
}

/*
 * dc_map() and dc_map_timeout(): a read with valid arguments takes the hit
 * path here; a write with valid arguments takes it in map_write(), so that
 * a read pays nothing for its test of the mapping's writable bit;
 * anything else goes the general way, which checks the arguments.
 */
static dci_always_inline int
map_common(struct dc_inode *inode, uint64_t file_off,
			     unsigned int flags, uint64_t timeout_ns,
			     bool use_cfg, struct dc_pin *pin)
{
	if (dci_unlikely(!inode || !pin || (flags & ~(DCI_MAP_KNOWN & ~DC_MAP_WRITE)))) {
		if (inode && pin && !(flags & ~DCI_MAP_KNOWN))
			return map_write(inode, file_off, flags, timeout_ns,
					 use_cfg, pin);
		return map_general(inode, file_off, flags, timeout_ns, use_cfg, pin);
	}
	return map_hit(inode, file_off, flags, timeout_ns, use_cfg, pin, false, false);
}

int dc_map_timeout(struct dc_inode *inode, uint64_t file_off,
		   unsigned int flags, uint64_t timeout_ns,
		   struct dc_pin *pin)
{
	return map_common(inode, file_off, flags, timeout_ns, false, pin);
}
DCI_EXPORT(dc_map_timeout);

int dc_map(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
	   struct dc_pin *pin)
{
	return map_common(inode, file_off, flags, 0, true, pin);
}
DCI_EXPORT(dc_map);

void dc_unpin(struct dc_pin *pin)
{
	uintptr_t p;

	if (!pin)
		return;
	p = (uintptr_t)pin->range;
	/* A slot first: the hit path's pin, the common one. */
	if (DCI_PLAT_PIN_SLOTS && dci_likely(p & PIN_SLOT_MASK)) {
		pin->range = NULL;
		slot_unpin((dci_pin_slot_t *)p);
		return;
	}
	if (!p)
		return;
	pin->range = NULL;
	range_unpin((struct dci_range *)p);
}
DCI_EXPORT(dc_unpin);

int dc_wait_free(struct dc_cache *c, uint64_t timeout_ns)
{
	uint64_t deadline, ev, now;
	int ret = 0;

	if (!c)
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	deadline = deadline_after(dci_now_ns(), timeout_ns);
	dci_waiters_enter(c);
	for (;;) {
		ev = dci_pool_events(c);
		if (dci_pool_nr_free(c))
			break;
		dci_pool_kick_reclaimer(c);
		now = dci_now_ns();
		if (deadline != DC_WAIT_FOREVER && now >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		dci_pool_sleep_begin(c);
		ret = dci_waitq_wait_timeout(dci_pool_waitq(c),
				dci_pool_events(c) != ev ||
				dci_pool_nr_free(c),
				time_left(deadline, now));
		dci_pool_sleep_end(c);
		if (ret)
			break;
	}
	dci_waiters_leave(c);
	return ret;
}
DCI_EXPORT(dc_wait_free);
