// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache_maptab.c - the mapping table: which range maps an index of an
 * inode, found in one hash table for the whole window whose chains run
 * through the range objects, so that a miss allocates nothing.
 *
 * A bucket holds the number of the first range of its chain; a range's
 * @hnext the next one's.  A chain ends in a "nulls" word: DCI_MAP_NULLS
 * with the bucket's own number.  The key of a range in the table is its
 * identity (@owner, @index), written by the claimer before the insert.
 * The buckets are sized from the window (a power of two at least its range
 * count), so a chain holds about one range.
 *
 * Lookups take no lock and no RCU read section: the buckets and the range
 * objects live as long as the cache, and the caller holds a reference to
 * the inode it looks for.  A range may leave one chain and join another
 * (or the same one, at its head) while a lookup stands on it: removal
 * leaves the removed range's @hnext as it was, so a lookup on it goes on
 * down its old chain; an insert changes it, so a lookup on it goes down
 * the new chain and ends at that chain's nulls word, which names another
 * bucket: the lookup then starts again.  A lookup that ends at its own
 * bucket's nulls word has passed every range that stayed in the chain
 * while it walked; in particular, under the inode's mutex (the keys of an
 * inode's ranges change only under it) it is exact for that inode.  A
 * lock-free lookup may return a range whose identity changes under it: the
 * caller validates what it found (the hit path's pin and generation check,
 * cache_map.c).
 *
 * Each inode also keeps a ring of the ranges it has in the table
 * (@maps_head, and the table's struct dci_maplink of each range, an array
 * of its own beside the range objects, since no hit reads them; the
 * inode's mutex): its count, the victim walk over its own mappings and
 * punch walk it.
 *
 * Locks: inserts and removes take one of the table's spinlocks (the
 * bucket's, hashed: chains hold the ranges of many inodes) inside the
 * owner's inode mutex; nothing is taken inside it.
 *
 * Owns struct dci_maptab in the cache (the buckets, the ring links, the
 * chain locks), which other files reach through dci_maptab_*().
 *
 * Callers: cache_map.c (lookups, inserts, the undo of a failed setup),
 * cache_reclaim.c (lookups, removes, the rings), cache_admit.c (lookups),
 * cache.c (init and fini), cache_inode.c (a new inode's ring).
 */
#include "cache_maptab.h"

/* Locks for the buckets at most: enough that misses of other chains rarely meet. */
#define MAPTAB_LOCKS_MAX	256u

static dci_spinlock_t *maptab_lock(struct dc_cache *c, uint32_t b)
{
	return &c->maps.locks[b & c->maps.lock_mask];
}

/* Free the table's arrays (NULL: not allocated, or freed). */
static void maptab_free(struct dci_maptab *t)
{
	dci_free(t->bucket);
	dci_free(t->links);
	dci_free(t->locks);
	t->bucket = NULL;
	t->links = NULL;
	t->locks = NULL;
}

/*
 * The table of a new cache, whose range objects exist: empty, every range
 * in no ring.  -ENOMEM.
 */
int dci_maptab_init(struct dc_cache *c)
{
	struct dci_maptab *t = &c->maps;
	unsigned int bits = 1, i, nr_locks;

	while ((1u << bits) < c->nr_ranges)
		bits++;
	t->bits = bits;
	t->bucket = dci_alloc(((size_t)1 << bits) * sizeof(*t->bucket));
	t->links = dci_alloc((size_t)c->nr_ranges * sizeof(*t->links));
	nr_locks = (1u << bits) < MAPTAB_LOCKS_MAX ? 1u << bits : MAPTAB_LOCKS_MAX;
	t->locks = dci_alloc(nr_locks * sizeof(*t->locks));
	if (!t->bucket || !t->links || !t->locks) {
		maptab_free(t);
		return -ENOMEM;
	}
	t->lock_mask = nr_locks - 1;
	for (i = 0; i < nr_locks; i++)
		dci_spin_lock_init(&t->locks[i]);
	for (i = 0; i < 1u << bits; i++)
		t->bucket[i] = DCI_MAP_NULLS | i;
	for (i = 0; i < c->nr_ranges; i++) {
		t->links[i].inext = t->links[i].iprev = DCI_MAP_NONE;
		t->links[i].drop_seq = 0;
	}
	return 0;
}

void dci_maptab_fini(struct dc_cache *c)
{
	struct dci_maptab *t = &c->maps;
	unsigned int i;

	if (!t->locks)
		return;
	for (i = 0; i <= t->lock_mask; i++)
		dci_spin_lock_destroy(&t->locks[i]);
	maptab_free(t);
}

/* Into @owner's ring, at its head (a punch walks from the head: cache_reclaim.c). */
static void ring_add(struct dc_cache *c, struct dc_inode *owner, struct dci_range *r)
{
	struct dci_maplink *l = c->maps.links;
	uint32_t n = dci_range_nr(c, r);

	l[n].drop_seq = 0;
	if (owner->maps_head == DCI_MAP_NONE) {
		l[n].inext = l[n].iprev = n;
	} else {
		struct dci_maplink *h = &l[owner->maps_head];

		l[n].inext = owner->maps_head;
		l[n].iprev = h->iprev;
		l[h->iprev].inext = n;
		h->iprev = n;
	}
	owner->maps_head = n;
	/* Read without the mutex too: dci_maptab_count(). */
	dci_write_once(owner->nr_maps, owner->nr_maps + 1);
}

static void ring_del(struct dc_cache *c, struct dc_inode *owner, struct dci_range *r)
{
	struct dci_maplink *l = c->maps.links;
	uint32_t n = dci_range_nr(c, r);

	if (l[n].inext == n) {
		owner->maps_head = DCI_MAP_NONE;
	} else {
		l[l[n].iprev].inext = l[n].inext;
		l[l[n].inext].iprev = l[n].iprev;
		if (owner->maps_head == n)
			owner->maps_head = l[n].inext;
	}
	if (owner->reclaim_cursor == n)
		owner->reclaim_cursor = DCI_MAP_NONE;
	l[n].inext = l[n].iprev = DCI_MAP_NONE;
	dci_write_once(owner->nr_maps, owner->nr_maps - 1);
}

/**
 * dci_maptab_insert() - put @r into the table and its owner's ring
 * @c: the cache
 * @r: a claimed range (count 0) whose @owner and @index name the key; the
 *     owner maps nothing at that index
 *
 * Context: @r's owner's mutex held.
 * Return: nothing; it cannot fail (nothing is allocated).
 */
void dci_maptab_insert(struct dc_cache *c, struct dci_range *r)
{
	struct dc_inode *owner = r->owner;
	uint32_t b = dci_maptab_bucket(owner, r->index);
	dci_spinlock_t *l = maptab_lock(c, b);

	dci_spin_lock(l);
	dci_write_once(r->hnext, c->maps.bucket[b]);
	/* The key and the link before the range is reachable: see dci_maptab_lookup(). */
	dci_store_release(&c->maps.bucket[b], dci_range_nr(c, r));
	dci_spin_unlock(l);
	ring_add(c, owner, r);
}

/**
 * dci_maptab_remove() - take @r out of the table and its owner's ring
 * @c: the cache
 * @r: a range in the table (its key unchanged since the insert)
 *
 * @r's @hnext stays as it was, for a lookup that stands on it.
 *
 * Context: @r's owner's mutex held.
 * Return: nothing.
 */
void dci_maptab_remove(struct dc_cache *c, struct dci_range *r)
{
	struct dc_inode *owner = r->owner;
	uint32_t b = dci_maptab_bucket(owner, r->index);
	uint32_t n = dci_range_nr(c, r);
	dci_spinlock_t *l = maptab_lock(c, b);
	uint32_t *p = &c->maps.bucket[b];

	dci_spin_lock(l);
	/* Every range of the chain is written under this lock: plain reads. */
	while (*p != n) {
		if (dci_unlikely(*p & DCI_MAP_NULLS)) {
			dci_spin_unlock(l);
			dci_warn_once(true, "range %u is not in the mapping table", n);
			return;
		}
		p = &c->ranges[*p].hnext;
	}
	dci_write_once(*p, r->hnext);
	dci_spin_unlock(l);
	ring_del(c, owner, r);
}
