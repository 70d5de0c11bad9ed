// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache_reclaim.c - every way a mapping ends: inline reclaim by the
 * mapping thread (reused at once, no remove), the background reclaimer
 * (batched removes back to the free pool), punch, and the eviction of an
 * inode whose last reference is put.
 *
 * Claiming: a range is taken from its mapping only under its owner's inode
 * mutex, after checking that it still maps what the mapping table says, and
 * only by refcount_dec_if_one (1 -> 0): nobody pins it, and nobody can pin
 * it any more.  So each range has one claimer at a time, and a pinned range
 * is never taken.
 *
 * Locks: the pool spinlock (free stack, busy ring, counts), never held
 * across a backend call or a sleep; the owner's inode mutex for every claim;
 * a walk that already holds one inode's mutex takes another only with a
 * trylock.
 *
 * Owns struct dci_reclaim in the cache (the kicks answered, the ranges in
 * flight to the free pool, the evict deadline, the batch arrays, the
 * deferred and orphan inodes), which no other file names.
 *
 * The layer below the API (see cache_types.h): it calls admission
 * control, the pool and the inode table; which idle mapping a walk takes
 * is the victim policy's (struct dci_victim_ops, through c->victim).
 *
 * Callers: cache_map.c (inline reclaim, and the release of a range whose
 * setup failed), cache.c (the reclaimer's function, and destroy's
 * evictions), and the API's dc_inode_put() and dc_inode_punch().
 */
#include "cache_admit.h"
#include "cache_inode.h"
#include "cache_maptab.h"
#include "cache_pool.h"
#include "cache_reclaim.h"
#include "cache_victim.h"

/* --- remove batches -------------------------------------------------------- */

/*
 * Claimed ranges, and the removes of what they map.  @on_busy: the ranges
 * are still on the busy ring (an eviction's, see claim_dead()), to leave it
 * under the same hold of the pool lock that frees them.
 */
struct remove_batch {
	struct dci_range **ranges;
	struct dc_remove_entry *entries;
	unsigned int n, max;
	bool on_busy;
};

static void send_remove(struct dc_cache *c, const struct dc_remove_entry *e,
			unsigned int n)
{
	unsigned int nth;
	int ret;

	if (!c->ops->remove || !n)
		return;
	ret = c->ops->remove(c->priv, e, n);
	dci_stat_inc(c, DCI_STAT_REMOVE_BATCHES);
	dci_stat_add(c, DCI_STAT_REMOVES_SENT, n);
	if (ret) {
		ret = dci_pool_backend_failed(c, DCI_BE_REMOVE, ret, &nth);
		if (nth)
			dci_pr_warn("remove of %u mappings failed: %d" DCI_BE_FAIL_NOTE,
				   n, ret, nth);
	}
}

/* What the claimed @r maps, while its owner lives (see struct dci_range). */
static void range_was(const struct dci_range *r, struct dci_range_backend *was)
{
	was->ino = r->owner->id;
	was->index = r->index;
}

static void entry_of(struct dc_cache *c, const struct dci_range *r,
		     const struct dci_range_backend *m, struct dc_remove_entry *e)
{
	e->ino = m->ino;
	e->file_off = m->index << c->cfg.range_shift;
	e->win_off = r->win_off;
	e->len = c->range_size;
}

/* Remove what the batch's ranges map, then give them back to the pool. */
static void batch_flush(struct dc_cache *c, struct remove_batch *b)
{
	unsigned int i;

	send_remove(c, b->entries, b->n);
	/* Even after a failed remove: a later setup replaces it. */
	for (i = 0; i < b->n; i++)
		b->ranges[i]->backend_mapped = false;
	dci_pool_put_free_many(c, b->ranges, b->n, b->on_busy);
	b->n = 0;
}

/*
 * Queue @r, which maps @was (or NULL: what its living owner maps), for
 * removal; the caller flushes a full batch.
 */
static void batch_add(struct dc_cache *c, struct remove_batch *b,
		      struct dci_range *r, const struct dci_range_backend *was)
{
	struct dci_range_backend m;

	if (!r->backend_mapped) {
		dci_pool_put_free_many(c, &r, 1, b->on_busy);
		return;
	}
	if (!was) {
		range_was(r, &m);
		was = &m;
	}
	entry_of(c, r, was, &b->entries[b->n]);
	b->ranges[b->n++] = r;
}

void dci_range_release(struct dc_cache *c, struct dci_range *r,
		       const struct dci_range_backend *was, bool on_busy)
{
	struct dc_remove_entry e;
	struct remove_batch b = {
		.ranges = &r, .entries = &e, .max = 1, .on_busy = on_busy,
	};

	batch_add(c, &b, r, was);
	batch_flush(c, &b);
}

/* --- claiming -------------------------------------------------------------- */

/*
 * Take the idle mapping @r (1 -> 0), unless it is pinned: counted (the
 * count is above 1) or in a thread's pin slot.  A slot pin publishes the
 * range, issues a full barrier, then checks that the count is not 0
 * (cache_map.c, "Pins"); here the 1 -> 0, a full barrier, then the look
 * at the slots.  Either the pin sees the 0 (it lets go, and takes the
 * slow path) or the look sees the pin (the claim gives the mapping back):
 * never neither.  Returns whether @r is claimed.
 */
static bool claim_idle(struct dc_cache *c, struct dci_range *r)
{
	if (!dci_refcount_dec_if_one(&r->ref))
		return false;
	if (!DCI_PLAT_PIN_SLOTS)
		return true;
	dci_smp_mb__after_atomic();
	if (dci_unlikely(dci_range_slot_pinned(c, r))) {
		dci_refcount_set_release(&r->ref, 1);
		return false;
	}
	return true;
}

/*
 * Claim the idle mapping @r of @owner (claim_idle()) and write it back if
 * it was writable; a failed writeback gives it back unless @force.
 * Returns 0, or -EBUSY when it is pinned, or the writeback error.
 */
static int claim_written(struct dc_cache *c, struct dc_inode *owner,
			 struct dci_range *r, bool force)
{
	unsigned int nth;
	int ret;

	if (!claim_idle(c, r))
		return -EBUSY;
	if ((dci_range_writable(r) || (c->cfg.flags & DC_CACHE_WRITEBACK_ALL)) &&
	    c->ops->writeback) {
		dci_stat_inc(c, DCI_STAT_WRITEBACKS);
		ret = c->ops->writeback(c->priv, owner->id,
					r->index << c->cfg.range_shift,
					c->range_size, r->win_off);
		if (ret) {
			ret = dci_pool_backend_failed(c, DCI_BE_WRITEBACK, ret, &nth);
			if (nth)
				dci_pr_warn("writeback of inode %llu range %llu failed: %d%s"
					   DCI_BE_FAIL_NOTE,
					   (unsigned long long)owner->id,
					   (unsigned long long)r->index, ret,
					   force ? "; dropping it anyway" : "", nth);
			if (!force) {
				dci_refcount_set_release(&r->ref, 1);
				return ret;
			}
		}
	}
	return 0;
}

/*
 * claim_locked() of a mapping the caller has just found in @owner's ring
 * under @owner's mutex, held since: it is the owner's (the ring and the
 * table change only under that mutex, and every range in them at a count
 * above 0 is a set-up mapping of the inode; one at 0 is a pending entry,
 * whose setup is in flight (map_new()), and the claim refuses it as it
 * refuses a pinned one), so only the pin count is left to check.  Saves
 * the lookup of claim_locked() on every inline reclaim from the allocating
 * inode and every range a punch drops.
 */
static int claim_found(struct dc_cache *c, struct dc_inode *owner,
		       struct dci_range *r, bool force)
{
	int ret = claim_written(c, owner, r, force);

	if (ret)
		return ret;
	dci_maptab_remove(c, r);
	dci_pool_del_busy(c, r);
	return 0;
}

/*
 * Claim @r, found in the ring of @owner, an inode being evicted (no
 * reference left, unhashed: the caller is the only thread that claims its
 * mappings; it holds the mutex, for the ring).  The range leaves the table
 * and the ring, and stays on the busy ring until its batch is flushed
 * (remove_batch.on_busy).  Returns 0 with it claimed, -EBUSY when pinned,
 * or the writeback error (claim_written(), forced).
 */
static int claim_dead(struct dc_cache *c, struct dc_inode *owner,
		      struct dci_range *r)
{
	int ret = claim_written(c, owner, r, true);

	if (!ret)
		dci_maptab_remove(c, r);
	return ret;
}

/*
 * Take @r from @owner, whose mutex the caller holds: check it is still the
 * owner's mapping, claim it (1 -> 0), write it back if it was writable, and
 * unpublish it.  A failed writeback gives the mapping back unless @force.
 * Returns 0 with the range claimed (count 0, in no list, not in the table),
 * -EBUSY when it is pinned or no longer the owner's, or the writeback error.
 */
static int claim_locked(struct dc_cache *c, struct dc_inode *owner,
			struct dci_range *r, bool force)
{
	/*
	 * Not @r's own links: a range no longer the owner's may be joining
	 * another inode's ring under that inode's mutex.  The table, under
	 * @owner's mutex, is exact for @owner's keys.
	 */
	if (dci_read_once(r->owner) != owner ||
	    dci_maptab_lookup(owner, dci_read_once(r->index)) != r)
		return -EBUSY;
	return claim_found(c, owner, r, force);
}

/*
 * The references that @hits, taken from @r by a victim walk, stand for.
 * A stream reads a range it mapped through once, a hit a page: that pass
 * is one reference, not hundreds, or a range scanned once would outscore
 * for several halvings of the sketch the ranges read again and again, and
 * once idle, as the victim of their contests, refuse them all.  A walk
 * that finds no hits since the last means the stream has left: hits after
 * it are reuse, each a reference.
 */
static uint32_t seen_refs(struct dci_range *r, uint32_t hits)
{
	if (!dci_read_once(r->stream_stride))
		return hits;
	if (!hits) {
		dci_write_once(r->stream_stride, 0);
		return 0;
	}
	return 1;
}

/*
 * Whether the victim policy gives the idle mapping @r of @owner, passed by
 * a victim walk, another turn.  Whatever the policy, the hits since the
 * last pass are references (seen_refs()), which admission control counts
 * as it counts misses: the victim it contests is measured on the
 * candidate's scale.  The policy sees every hit.
 */
static bool victim_spared(struct dc_cache *c, struct dc_inode *owner,
			  struct dci_range *r)
{
	uint32_t hits = dci_range_hits_take(r), refs = seen_refs(r, hits);

	if (refs)
		dci_admit_seen(c, owner->id, r->index, refs);
	return c->victim->spare && c->victim->spare(r, hits);
}

/*
 * Advance the hand to the next idle mapping the victim policy does not
 * spare (CLOCK: one not hit since the hand last passed; taking hit counts
 * as it goes) and hold its owner.  Returns NULL after two sweeps without
 * one.
 */
static struct dci_range *pick_victim(struct dc_cache *c, struct dc_inode **owner)
{
	struct dci_range *r = NULL;
	unsigned int budget;

	dci_pool_lock(c);
	/* Two sweeps of the ring, its head included. */
	budget = 2 * (dci_pool_nr_mapped(c) + 1);
	while (dci_pool_nr_mapped(c) && budget--) {
		struct dci_range *pos = dci_pool_hand_advance(c);

		if (pos == dci_pool_busy_head(c))
			continue;
		r = pos;
		/*
		 * Acquire: a range joins the ring before its setup, still
		 * naming its old owner (dci_pool_take_free()); a count of 1
		 * comes after map_new() published the new one.
		 */
		if (dci_refcount_read_acquire(&r->ref) != 1 || dci_range_slot_pinned(c, r))
			goto next;
		if (victim_spared(c, r->owner, r))
			goto next;
		/* On the busy ring, the owner is alive; it may be dying. */
		if (dci_inode_tryhold(r->owner)) {
			*owner = r->owner;
			break;
		}
next:
		r = NULL;
	}
	dci_pool_unlock(c);
	return r;
}

/*
 * Inline reclaim from the allocating inode itself: walk its own mappings
 * around its ring, oldest first, from where the last walk stopped (another
 * turn for those the victim policy spares).  The walk moves a cursor,
 * never the ring (a punch's walk relies on the ring's order:
 * drop_by_ring()).  The caller holds @self's mutex.  With @cand (admission
 * control), the first victim found is contested: if the miss loses,
 * nothing is claimed, the walk stops there and *@refused is set.
 */
static struct dci_range *reclaim_own(struct dc_cache *c, struct dc_inode *self,
				    const struct dci_admit_cand *cand, bool *refused)
{
	size_t budget = 2 * (size_t)self->nr_maps;
	struct dci_range *r = self->reclaim_cursor != DCI_MAP_NONE ?
			     &c->ranges[self->reclaim_cursor] : dci_maptab_oldest(c, self);

	for (; r && budget--; r = dci_maptab_newer(c, r)) {
		/*
		 * Acquire: a count of 1 comes after map_new() published the
		 * mapping, whose setup ran without our mutex.  A range pinned
		 * in a slot is passed as a counted one is (the claim would
		 * refuse it anyway): its hits stay for a later pass.
		 */
		if (dci_refcount_read_acquire(&r->ref) != 1 ||
		    dci_range_slot_pinned(c, r) || victim_spared(c, self, r))
			continue;
		if (cand && !dci_admit_contest(c, cand, self->id, r->index)) {
			/* The next contest starts from this victim. */
			self->reclaim_cursor = dci_range_nr(c, r);
			*refused = true;
			return NULL;
		}
		self->reclaim_cursor = dci_range_nr(c, dci_maptab_newer(c, r));
		if (!claim_found(c, self, r, false))
			return r;
	}
	return NULL;
}

/*
 * Contest @r (when @cand), then claim it; -EBUSY with *@refused if @r won.
 * A victim that won keeps its place; the hand has passed it (one more turn).
 */
static int contest_claim(struct dc_cache *c, struct dc_inode *owner,
			 struct dci_range *r, const struct dci_admit_cand *cand,
			 bool *refused)
{
	if (cand && dci_read_once(r->owner) == owner &&
	    !dci_admit_contest(c, cand, owner->id, dci_read_once(r->index))) {
		*refused = true;
		return -EBUSY;
	}
	return claim_locked(c, owner, r, false);
}

/*
 * Drop a passing reference that a reclaim walk took while its thread holds
 * another inode's mutex.  If it was the last one, the eviction (writebacks,
 * removes, a wait for pins) must not run under that mutex: the inode, no
 * longer findable, goes to the background reclaimer, which evicts it.
 */
static void inode_put_deferred(struct dc_inode *inode)
{
	struct dc_cache *c = inode->cache;

	if (!dci_inode_put_unhash(inode))
		return;
	dci_pool_lock(c);
	inode->evict_next = c->reclaim.evict_list;
	c->reclaim.evict_list = inode;
	dci_pool_unlock(c);
	dci_pool_kick_reclaimer(c);
}

/*
 * Claim a victim found by the hand, taking its owner's mutex by trylock.
 * With @cand, contest the victim first (its identity is stable under its
 * owner's mutex); a lost contest claims nothing and sets *@refused.
 */
static struct dci_range *reclaim_other(struct dc_cache *c, struct dc_inode *self,
				      const struct dci_admit_cand *cand, bool *refused,
				      struct dci_range_backend *was)
{
	unsigned int tries = c->nr_ranges;
	struct dc_inode *owner;
	struct dci_range *r;

	while (tries-- && (r = pick_victim(c, &owner))) {
		int ret = -EBUSY;

		if (owner == self) {
			ret = contest_claim(c, owner, r, cand, refused);
		} else if (dci_mutex_trylock(&owner->mutex)) {
			ret = contest_claim(c, owner, r, cand, refused);
			dci_mutex_unlock(&owner->mutex);
		}
		/* What it maps, while @owner is held. */
		if (!ret)
			range_was(r, was);
		/* We hold @self's mutex: a last put must not evict here. */
		inode_put_deferred(owner);
		if (!ret)
			return r;
		if (*refused)
			return NULL;
	}
	return NULL;
}

/*
 * Inline reclaim for a miss of @self (whose mutex the caller holds).  With
 * @cand (admission control), the victim is contested before it is claimed;
 * NULL with *@refused set means the miss lost and should be bypassed, NULL
 * without it that no idle range could be claimed.
 *
 * The victim order: the own walk (@self's own mappings) runs first only
 * while @self holds more than half of the window's mappings, and always
 * under DC_CACHE_INLINE_OWN_ONLY (upstream Linux's order, with nothing
 * after it); otherwise the victim comes from the global hand (a
 * window-wide CLOCK, @self's ranges included), which also follows an own
 * walk that found nothing.  An own walk first makes a file pay for its
 * misses with its own warm ranges while colder ranges of other files stay,
 * so each file's share of a full window stays what it was when the window
 * filled: a file read after another one filled the window would hold one
 * range and remap it on every other access, as long as nothing kicked the
 * background reclaimer.  An inode that holds most of the window loses
 * little to it, and its walk in file order gives a new mapping a place
 * anywhere in the order where the hand gives it a full turn (about a point
 * of hit ratio better on one inode, bench-hitratio).
 */
struct dci_range *dci_reclaim_inline(struct dc_cache *c, struct dc_inode *self,
				    const struct dci_admit_cand *cand, bool *refused,
				    struct dci_range_backend *was)
{
	bool own_only = c->cfg.flags & DC_CACHE_INLINE_OWN_ONLY;
	struct dci_range *r = NULL;

	*refused = false;
	if (own_only || 2 * self->nr_maps > dci_pool_nr_mapped(c)) {
		r = reclaim_own(c, self, cand, refused);
		if (r)
			range_was(r, was);
	}
	if (!r && !*refused && !own_only)
		r = reclaim_other(c, self, cand, refused, was);
	if (!r)
		return NULL;
	dci_stat_inc(c, DCI_STAT_INLINE_RECLAIMS);
	dci_trace_reclaim(0, was->ino, was->index, r->win_off,
			  dci_range_writable(r) && c->ops->writeback);
	if (c->cfg.flags & DC_CACHE_REMOVE_ON_INLINE) {
		struct dc_remove_entry e;

		entry_of(c, r, was, &e);
		send_remove(c, &e, 1);
		r->backend_mapped = false;
	} else {
		/* The coming setup replaces the old mapping: no remove. */
		dci_stat_inc(c, DCI_STAT_REMOVES_SKIPPED);
	}
	return r;
}

/*
 * Evict the inodes of *@list, taken whole under the pool lock: c->reclaim.evict_list
 * (what inode_put_deferred() left: the reclaimer, and destroy) or
 * c->reclaim.orphans (what an eviction left to destroy's next pass).
 */
static void inode_evict_list(struct dc_cache *c, struct dc_inode **list)
{
	struct dc_inode *head, *inode;

	dci_pool_lock(c);
	head = *list;
	*list = NULL;
	dci_pool_unlock(c);
	while ((inode = head)) {
		head = inode->evict_next;
		dci_inode_evict(inode);
	}
}

/* --- the background reclaimer ---------------------------------------------- */

static unsigned int nr_free(struct dc_cache *c)
{
	unsigned int n;

	dci_pool_lock(c);
	n = dci_pool_nr_free(c);
	dci_pool_unlock(c);
	return n;
}

/*
 * @n ranges the reclaimer counted in c->reclaim.reclaiming are free, or not taken.
 * A range it freed moved an event already (dci_pool_put_free()); the wake
 * here moves none, so that only a miss that waits for the count to fall
 * looks again.  Waiters that wait for an event sleep on: a range they can
 * take is freed or unpinned later, and that wakes them.  (Moving an event
 * here made a waiter and the reclaimer it kicks wake each other for as
 * long as every range stayed pinned.)
 */
static void reclaiming_done(struct dc_cache *c, unsigned int n)
{
	if (!n)
		return;
	while (n--)
		dci_atomic_dec(&c->reclaim.reclaiming);
	dci_smp_mb__after_atomic();
	if (dci_pool_has_waiters(c))
		dci_waitq_wake_all(dci_pool_waitq(c));
}

/*
 * One pass frees up to reclaim_batch idle ranges, with batched removes;
 * passes repeat while the pool stays below the threshold and they make
 * progress.  A pass that finds nothing stops: whoever waits for a range
 * kicks the reclaimer again when an unpin wakes it.  Each range is counted
 * in c->reclaim.reclaiming from before the victim is looked for until it is free.
 */
void dci_reclaimer_fn(struct dci_worker *w)
{
	struct dc_cache *c = dci_pool_worker_cache(w);
	struct remove_batch b = {
		.ranges = c->reclaim.bg_ranges,
		.entries = c->reclaim.bg_entries,
		.max = c->cfg.remove_batch_max,
	};
	uint64_t kicks;

	/* Every kick read here is answered once this run ends. */
	dci_smp_mb();
	kicks = dci_pool_kicks(c);
	inode_evict_list(c, &c->reclaim.evict_list);
	while (!dci_pool_reclaimer_stopping(c) && nr_free(c) < c->threshold) {
		unsigned int got = 0, held = 0, tries = c->nr_ranges;
		struct dc_inode *owner;
		struct dci_range *r;

		dci_stat_inc(c, DCI_STAT_BG_PASSES);
		while (got < c->cfg.reclaim_batch && tries--) {
			int ret = -EBUSY;

			dci_atomic_inc(&c->reclaim.reclaiming);
			dci_smp_mb__after_atomic();
			r = pick_victim(c, &owner);
			if (!r) {
				reclaiming_done(c, 1);
				break;
			}
			/* Never wait for a lock while holding one. */
			if (dci_mutex_trylock(&owner->mutex)) {
				ret = claim_locked(c, owner, r, false);
				dci_mutex_unlock(&owner->mutex);
			}
			if (ret) {
				dc_inode_put(owner);
				reclaiming_done(c, 1);
				continue;
			}
			/* Counted before it can be free: whoever sees it free sees it counted. */
			dci_stat_inc(c, DCI_STAT_BG_RECLAIMS);
			dci_trace_reclaim(1, owner->id, r->index, r->win_off,
					  dci_range_writable(r) && c->ops->writeback);
			/* While @owner is held: the remove names its inode. */
			batch_add(c, &b, r, NULL);
			dc_inode_put(owner);
			held++;
			if (b.n == b.max) {
				batch_flush(c, &b);
				reclaiming_done(c, held);
				held = 0;
			}
			got++;
		}
		batch_flush(c, &b);
		reclaiming_done(c, held);
		if (!got)
			break;
	}
	dci_smp_mb();
	dci_pool_kicks_answer(c, kicks);
}

/* --- punch and evict ------------------------------------------------------- */

/*
 * A walk that drops an inode's mappings of [@from, @last], in batches of
 * @b (its own one-entry arrays when no larger ones could be had).  @busy:
 * a mapping was left pinned; @wb_err: the first failed writeback.  @seq:
 * the walk's number, with which it marks the ranges it passed (0 while it
 * goes index by index: see drop_batch()).
 */
struct drop_walk {
	struct remove_batch b;
	struct dci_range *one_range;
	struct dc_remove_entry one_entry;
	uint64_t from, last;
	/* A punch met a pending entry (a setup in flight): wait for it. */
	struct dci_range *setting_up;
	uint32_t seq;
	bool evict, busy;
	int wb_err;
};

/* Arrays for @w's batches, as many as @inode's mappings up to remove_batch_max. */
static void drop_batch_alloc(struct dc_inode *inode, struct drop_walk *w)
{
	struct dc_cache *c = inode->cache;
	size_t count = dci_maptab_count(inode);
	unsigned int want;

	want = (unsigned int)(count < c->cfg.remove_batch_max ?
			      count : c->cfg.remove_batch_max);
	w->b.ranges = &w->one_range;
	w->b.entries = &w->one_entry;
	w->b.max = 1;
	if (want <= 1)
		return;
	w->b.ranges = dci_alloc(want * sizeof(*w->b.ranges));
	w->b.entries = dci_alloc(want * sizeof(*w->b.entries));
	if (w->b.ranges && w->b.entries) {
		w->b.max = want;
		return;
	}
	/* One at a time then: slower, but it never fails. */
	dci_free(w->b.ranges);
	dci_free(w->b.entries);
	w->b.ranges = &w->one_range;
	w->b.entries = &w->one_entry;
}

static void drop_batch_free(struct drop_walk *w)
{
	if (w->b.ranges != &w->one_range) {
		dci_free(w->b.ranges);
		dci_free(w->b.entries);
	}
}

/*
 * What a drop walk does with @r, a mapping of its inode in [w->from,
 * w->last] met under the inode mutex: claim it into the batch, or note why
 * not.  Returns false when the walk must stop here first: the batch is
 * full, or @r is a pending entry (a count of 0 under the mutex: a miss's
 * setup in flight, see cache_map.c's map_new()), which w->setting_up then
 * names; the caller waits for that setup to end and the walk comes back to
 * @r, so that a mapping set up from before the punch is dropped as if the
 * miss had finished first.  (An eviction meets none: a miss holds a
 * reference.)
 */
static bool drop_one(struct dc_cache *c, struct dc_inode *inode,
		     struct drop_walk *w, struct dci_range *r)
{
	bool pending = !w->evict && !dci_refcount_read(&r->ref);
	int ret;

	if (w->b.n == w->b.max || pending) {
		w->setting_up = pending ? r : NULL;
		return false;
	}
	ret = w->evict ? claim_dead(c, inode, r) : claim_found(c, inode, r, false);
	if (!ret)
		batch_add(c, &w->b, r, NULL);
	else if (ret == -EBUSY)
		w->busy = true;
	else if (!w->wb_err)
		w->wb_err = ret;
	return true;
}

/*
 * One batch of a walk index by index, for a span no wider than the inode's
 * mappings: a lookup in the table for each index from w->from.  Returns
 * true when it stopped before w->last (w->from then says where to go on).
 */
static bool drop_by_index(struct dc_cache *c, struct dc_inode *inode,
			  struct drop_walk *w)
{
	for (;;) {
		struct dci_range *r = dci_maptab_lookup(inode, w->from);

		if (r && !drop_one(c, inode, w, r))
			return true;
		if (w->from == w->last)
			return false;
		w->from++;
	}
}

/*
 * One batch of a walk around the inode's ring, for a wider span: each
 * range it passes and leaves in the ring (out of the span, pinned, or not
 * written back) is marked with the walk's number and goes to the ring's
 * tail.  New mappings join at the head, unmarked, and a claim takes a
 * range out wherever it is, so the marked ones stay a run at the tail: the
 * walk has passed every range once it finds a marked one at the head.  A
 * walk that meets another walk's mark passes that range again (one more
 * claim that fails, or one more writeback).  Returns true when it stopped
 * before the end.
 */
static bool drop_by_ring(struct dc_cache *c, struct dc_inode *inode,
			 struct drop_walk *w)
{
	struct dci_range *r;

	while ((r = dci_maptab_first(c, inode)) && *dci_maptab_drop_seq(c, r) != w->seq) {
		if (r->index >= w->from && r->index <= w->last) {
			unsigned int n = w->b.n;

			if (!drop_one(c, inode, w, r))
				return true;
			/* Claimed: out of the ring. */
			if (w->b.n != n)
				continue;
		}
		*dci_maptab_drop_seq(c, r) = w->seq;
		dci_maptab_rotate(c, inode);
	}
	return false;
}

/*
 * Claim up to a batch of @inode's mappings of [w->from, w->last] under the
 * mutex; remove them outside it.  Returns true when the walk stopped before
 * the end (a full batch, or a pending entry to wait for): the next batch
 * goes on from where this one stopped, so what a batch left behind
 * (pinned, or not written back) is not visited again: one pass, one
 * writeback per dirty mapping.
 */
static bool drop_batch(struct dc_inode *inode, struct drop_walk *w)
{
	struct dc_cache *c = inode->cache;
	bool more;

	dci_mutex_lock(&inode->mutex);
	if (!w->seq && w->last - w->from >= inode->nr_maps) {
		/* Wider than the inode's mappings: around the ring, once. */
		w->seq = ++inode->drop_seq;
		if (!w->seq)
			w->seq = ++inode->drop_seq;
	}
	more = w->seq ? drop_by_ring(c, inode, w) : drop_by_index(c, inode, w);
	dci_mutex_unlock(&inode->mutex);
	batch_flush(c, &w->b);
	return more;
}

/* How long an eviction waits for pins before it calls them a misuse. */
#define DCI_EVICT_PIN_GRACE_NS	(100ull * 1000 * 1000)

/* An eviction's wait for the pins of its inode's mappings. */
struct pin_wait {
	uint64_t ev;			/* the events count the last pass began at */
	uint64_t since;			/* when the first pass found a pin */
	bool registered, warned;
};

/*
 * Before another pass of an eviction that found pins: the first time,
 * register as a waiter (so that unpins count events) and look again at
 * once; after that, sleep until an event since the last pass began.
 * Returns false once the cache's evict_deadline has passed (only
 * dc_cache_destroy() sets one): the eviction gives up on the pins.
 */
static bool evict_wait_pins(struct dc_inode *inode, struct pin_wait *pw)
{
	struct dc_cache *c = inode->cache;
	uint64_t now, deadline;

	if (!pw->registered) {
		dci_waiters_enter(c);
		pw->registered = true;
		pw->since = dci_now_ns();
		pw->ev = dci_pool_events(c);
		return true;
	}
	now = dci_now_ns();
	deadline = dci_atomic64_read(&c->reclaim.evict_deadline);
	if (now >= deadline)
		return false;
	/*
	 * A hit racing with a reuse may hold a range for an instant (see
	 * try_pin()); only a pin that lasts is the caller's.
	 */
	if (!pw->warned && now - pw->since > DCI_EVICT_PIN_GRACE_NS) {
		dci_warn_once(true, "inode %llu evicted with pinned mappings; waiting",
			     (unsigned long long)inode->id);
		pw->warned = true;
	}
	dci_waitq_wait_uninterruptible_timeout(dci_pool_waitq(c),
			dci_pool_events(c) != pw->ev,
			deadline - now < DCI_EVICT_PIN_GRACE_NS ?
			deadline - now : DCI_EVICT_PIN_GRACE_NS);
	pw->ev = dci_pool_events(c);
	return true;
}

/*
 * Drop @inode's mappings of indexes [@first, @last].  Pinned mappings stay
 * (-EBUSY) unless @evict, which waits for their pins (until the cache's
 * evict_deadline: only dc_cache_destroy() sets one, and -EBUSY then says
 * some stayed) and drops mappings even when their writeback fails.  A
 * failed writeback (the mapping stays) is what the caller hears, even when
 * some mappings were pinned too: a pin is no data loss.
 */
static int inode_drop_range(struct dc_inode *inode, uint64_t first,
			    uint64_t last, bool evict)
{
	struct drop_walk w = {
		.b.on_busy = evict, .from = first, .last = last, .evict = evict,
	};
	struct pin_wait pw = { 0 };

	drop_batch_alloc(inode, &w);
	for (;;) {
		if (drop_batch(inode, &w)) {
			if (w.setting_up)
				dci_pool_setup_wait(inode->cache, w.setting_up);
			continue;
		}
		if (!w.busy || !evict)
			break;
		/* Eviction: wait for the pins, then a new pass from the start. */
		if (!evict_wait_pins(inode, &pw))
			break;
		w.busy = false;
		w.from = first;
		w.seq = 0;
	}
	if (pw.registered)
		dci_waiters_leave(inode->cache);
	drop_batch_free(&w);
	return w.wb_err ? w.wb_err : w.busy ? -EBUSY : 0;
}

int dc_inode_punch(struct dc_inode *inode, uint64_t off, uint64_t len)
{
	uint64_t shift, last;
	int ret;

	ret = dci_entry_check(inode && len, __func__);
	if (ret)
		return ret;
	shift = inode->cache->cfg.range_shift;
	last = len - 1 > UINT64_MAX - off ? UINT64_MAX : off + len - 1;
	return inode_drop_range(inode, off >> shift, last >> shift, false);
}
DCI_EXPORT(dc_inode_punch);

/*
 * The last reference is gone and the inode is unhashed: drop everything.
 * If dc_cache_destroy() gave up on pins meanwhile, the inode keeps what is
 * pinned and waits on the cache's orphan list for destroy's next call.
 */
void dci_inode_evict(struct dc_inode *inode)
{
	struct dc_cache *c = inode->cache;
	/* What it maps as it goes (no other thread adds to a dead inode). */
	unsigned int nr = dci_maptab_count(inode);
	int ret = inode_drop_range(inode, 0, UINT64_MAX, true);

	dci_trace_evict(inode->id, nr, ret);
	if (ret) {
		dci_pool_lock(c);
		inode->evict_next = c->reclaim.orphans;
		c->reclaim.orphans = inode;
		dci_pool_unlock(c);
		return;
	}
	dci_inode_free(inode);
}

void dc_inode_put(struct dc_inode *inode)
{
	/* In a child forked unprepared the reference is left to the exit. */
	if (!inode || dci_fork_check(__func__))
		return;
	if (dci_inode_put_unhash(inode))
		dci_inode_evict(inode);
}
DCI_EXPORT(dc_inode_put);

/* The reclaimer's state of a new cache: its batch arrays.  -ENOMEM. */
int dci_reclaim_init(struct dc_cache *c)
{
	struct dci_reclaim *rc = &c->reclaim;

	dci_atomic64_set(&rc->evict_deadline, DC_WAIT_FOREVER);
	rc->bg_ranges = dci_alloc(c->cfg.remove_batch_max * sizeof(*rc->bg_ranges));
	rc->bg_entries = dci_alloc(c->cfg.remove_batch_max * sizeof(*rc->bg_entries));
	return rc->bg_ranges && rc->bg_entries ? 0 : -ENOMEM;
}

/* Free what dci_reclaim_init() allocated, all of it or not. */
void dci_reclaim_fini(struct dc_cache *c)
{
	dci_free(c->reclaim.bg_entries);
	dci_free(c->reclaim.bg_ranges);
}

/*
 * Evictions wait for pins until @deadline from now on (dc_cache_destroy()'s
 * grace), those in progress included: they are woken to see it.
 */
void dci_reclaim_set_deadline(struct dc_cache *c, uint64_t deadline)
{
	dci_atomic64_set(&c->reclaim.evict_deadline, deadline);
}

/* Evict what inode_put_deferred() left, the reclaimer stopped (destroy). */
void dci_reclaim_evict_deferred(struct dc_cache *c)
{
	inode_evict_list(c, &c->reclaim.evict_list);
}

/*
 * Evict once more the inodes whose eviction gave up on pins; true when
 * some still keep pinned mappings (dc_cache_destroy()'s next call).
 */
bool dci_reclaim_evict_orphans(struct dc_cache *c)
{
	bool left;

	inode_evict_list(c, &c->reclaim.orphans);
	dci_pool_lock(c);
	left = c->reclaim.orphans;
	dci_pool_unlock(c);
	return left;
}
