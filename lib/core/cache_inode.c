// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache_inode.c - the cache's inode table
 *
 * Owns: the hash table that finds a struct dc_inode by its id (struct
 * dci_itab in the cache, which no other file names), each inode's
 * reference count, its allocation and its free after a grace period (the
 * eviction of its mappings in between is cache_reclaim.c's).
 *
 * A bottom layer of the cache (see cache_types.h): it calls no other
 * cache file.
 *
 * Locks: lookups of an existing inode take no lock: they walk a bucket
 * inside an RCU read-side section and keep what they find only if
 * dci_refcount_inc_not_zero() succeeds.  Everything that changes the table
 * (insert, unhash, growth) holds c->itab.lock, the outermost lock of the
 * cache; it is never held across a backend call.
 *
 * Growth: the table doubles when it holds more inodes than buckets.  Each
 * inode has two chain links, and a table uses one of them: the grown table
 * is linked through the other one, in full, before it is published, so a
 * reader still walking the old table follows links that nobody changes.
 * Those links become free for the next growth once the old table's grace
 * period has passed (its RCU callback says so).  A lookup that misses,
 * because it read the old table or lost the race with a last put, retries
 * under the lock.
 *
 * Callers: dc_inode_get() (the API), cache_reclaim.c (a reclaim walk's
 * passing reference: dci_inode_tryhold(); every put, dc_inode_put()
 * included: dci_inode_put_unhash(); the free after an eviction:
 * dci_inode_free()) and dc_cache_create() / dc_cache_destroy() (cache.c:
 * dci_inode_table_init(), _unhash_next() and _fini()).
 */
#include "cache_inode.h"

/* The first table's size, and the largest one the table grows to. */
#define DCI_INODE_HASH_BITS_MIN	10
#define DCI_INODE_HASH_BITS_MAX	24

struct dci_inode_table {
	struct dc_cache *cache;
	unsigned int bits;
	unsigned int link;		/* which dc_inode.hash_next[] chains us */
	dci_rcu_head_t rcu;
	struct dc_inode __rcu *bucket[];
};

#define table_held(c)	dci_lockdep_is_held(&(c)->itab.lock)

static unsigned int inode_hash(uint64_t id, unsigned int bits)
{
	return (unsigned int)((id * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

static struct dci_inode_table *table_alloc(struct dc_cache *c, unsigned int bits,
					  unsigned int link)
{
	struct dci_inode_table *t;

	t = dci_zalloc(sizeof(*t) + (sizeof(t->bucket[0]) << bits));
	if (!t)
		return NULL;
	t->cache = c;
	t->bits = bits;
	t->link = link;
	return t;
}

int dci_inode_table_init(struct dc_cache *c)
{
	struct dci_inode_table *t = table_alloc(c, DCI_INODE_HASH_BITS_MIN, 0);

	if (!t)
		return -ENOMEM;
	dci_mutex_init(&c->itab.lock);
	dci_write_once(c->itab.links_busy, 0);
	dci_rcu_init_pointer(c->itab.table, t);
	return 0;
}

/* The table's writer's view: c->itab.lock held. */
static struct dci_inode_table *table_locked(struct dc_cache *c)
{
	return dci_rcu_dereference_protected(c->itab.table, table_held(c));
}

/*
 * Find @id in @t: inside a read-side section, or under c->itab.lock (then
 * the answer is exact).  Hashed inodes are freed only after a grace period
 * that follows their unhash, so what is found can be looked at.
 */
static struct dc_inode *table_find(struct dc_cache *c, struct dci_inode_table *t,
				   uint64_t id)
{
	struct dc_inode *inode;

	inode = dci_rcu_dereference_check(t->bucket[inode_hash(id, t->bits)],
					 table_held(c));
	while (inode && inode->id != id)
		inode = dci_rcu_dereference_check(inode->hash_next[t->link],
						 table_held(c));
	return inode;
}

static void table_insert(struct dci_inode_table *t, struct dc_inode *inode)
{
	struct dc_inode __rcu **head = &t->bucket[inode_hash(inode->id, t->bits)];

	dci_rcu_init_pointer(inode->hash_next[t->link],
			    dci_rcu_dereference_protected(*head, true));
	dci_rcu_assign_pointer(*head, inode);
}

static void table_unlink(struct dc_cache *c, struct dc_inode *inode)
{
	struct dci_inode_table *t = table_locked(c);
	struct dc_inode __rcu **p = &t->bucket[inode_hash(inode->id, t->bits)];
	struct dc_inode *cur;

	while ((cur = dci_rcu_dereference_protected(*p, table_held(c))) != inode)
		p = &cur->hash_next[t->link];
	/* Readers past @inode keep a valid chain: its own link is left. */
	dci_rcu_assign_pointer(*p, dci_rcu_dereference_protected(inode->hash_next[t->link],
							    table_held(c)));
	dci_write_once(c->itab.nr, c->itab.nr - 1);
}

static void table_free_rcu(dci_rcu_head_t *head)
{
	struct dci_inode_table *t = dci_container_of(head, struct dci_inode_table, rcu);
	struct dc_cache *c = t->cache;

	dci_free(t);
	/*
	 * No reader follows the old table's links any more: free to reuse.
	 * Release, paired with table_maybe_grow()'s acquire: a fence and a
	 * relaxed store order the same on the machine, but ThreadSanitizer
	 * sees no fence, and reported the next growth's writes of those
	 * links as racing the last reader's loads (tests/flake-hunt, 1 tsan
	 * run of 4 under load).
	 */
	dci_store_release(&c->itab.links_busy, 0);
}

/*
 * More inodes than buckets: build the doubled table through the links the
 * current one does not use, publish it, and retire the old one.  Skipped
 * (the chains just get longer for a while) when the previous growth's
 * grace period has not passed yet, when the table is as big as it gets, or
 * when the allocation fails: growth is an optimisation, never an error.
 */
static void table_maybe_grow(struct dc_cache *c)
{
	struct dci_inode_table *t = table_locked(c), *nt;
	struct dc_inode *inode;
	unsigned long b;

	if (c->itab.nr <= (1ul << t->bits) || t->bits >= DCI_INODE_HASH_BITS_MAX ||
	    dci_load_acquire(&c->itab.links_busy))
		return;
	/* (Acquire: our writes of the spare links come after the all-clear.) */
	nt = table_alloc(c, t->bits + 1, !t->link);
	if (!nt)
		return;
	for (b = 0; b < (1ul << t->bits); b++)
		for (inode = dci_rcu_dereference_protected(t->bucket[b], table_held(c));
		     inode;
		     inode = dci_rcu_dereference_protected(inode->hash_next[t->link],
							  table_held(c)))
			table_insert(nt, inode);
	dci_write_once(c->itab.links_busy, 1);
	dci_rcu_assign_pointer(c->itab.table, nt);
	dci_call_rcu(&t->rcu, table_free_rcu);
}

struct dci_range dci_range_none;

struct dci_hint_leaf dci_hint_leaf_none = {
	.slot = { [0 ... DCI_HINT_LEAF_SLOTS - 1] = &dci_range_none },
};

static void inode_free_rcu(dci_rcu_head_t *head)
{
	struct dc_inode *inode = dci_container_of(head, struct dc_inode, rcu);

	dci_mutex_destroy(&inode->mutex);
	dci_free(inode);
}

/*
 * Free an unhashed inode whose mappings are gone (cache_reclaim.c evicted
 * them) after a grace period, since lookups and reclaim walks may still
 * look at it.
 */
void dci_inode_free(struct dc_inode *inode)
{
	dci_call_rcu(&inode->rcu, inode_free_rcu);
}

static struct dc_inode *inode_new(struct dc_cache *c, uint64_t id)
{
	struct dc_inode *inode = dci_zalloc(sizeof(*inode));

	if (!inode)
		return NULL;
	inode->cache = c;
	inode->id = id;
	dci_inode_hit_init(inode, c);
	dci_mutex_init(&inode->mutex);
	dci_refcount_set(&inode->ref, 1);
	return inode;
}

int dc_inode_get(struct dc_cache *c, uint64_t id, struct dc_inode **out)
{
	struct dc_inode *inode;
	int ret;

	ret = dci_entry_check(c && out, __func__);
	if (ret)
		return ret;
	/* An inode in use: no lock, one atomic. */
	dci_rcu_read_lock();
	inode = table_find(c, dci_rcu_dereference(c->itab.table), id);
	if (inode && dci_refcount_inc_not_zero(&inode->ref)) {
		dci_rcu_read_unlock();
		*out = inode;
		return 0;
	}
	dci_rcu_read_unlock();

	dci_mutex_lock(&c->itab.lock);
	inode = table_find(c, table_locked(c), id);
	if (inode) {
		/* Hashed inodes always hold a reference: see dci_inode_put_unhash(). */
		dci_refcount_inc(&inode->ref);
	} else {
		inode = inode_new(c, id);
		if (!inode) {
			dci_mutex_unlock(&c->itab.lock);
			return -ENOMEM;
		}
		table_insert(table_locked(c), inode);
		dci_write_once(c->itab.nr, c->itab.nr + 1);
		table_maybe_grow(c);
	}
	dci_mutex_unlock(&c->itab.lock);
	*out = inode;
	return 0;
}
DCI_EXPORT(dc_inode_get);

/*
 * Drop a reference; true if it was the last (the inode is unhashed then).
 * The last one is dropped under the table lock, so that a lookup under the
 * lock never finds an inode at zero.
 */
bool dci_inode_put_unhash(struct dc_inode *inode)
{
	struct dc_cache *c = inode->cache;
	bool last;

	/* Fast path: not the last reference, no table lock. */
	if (dci_refcount_dec_not_one(&inode->ref))
		return false;
	dci_mutex_lock(&c->itab.lock);
	last = dci_refcount_dec_and_test(&inode->ref);
	if (last)
		table_unlink(c, inode);
	dci_mutex_unlock(&c->itab.lock);
	return last;
}

bool dci_inode_tryhold(struct dc_inode *inode)
{
	return dci_refcount_inc_not_zero(&inode->ref);
}

uint64_t dc_inode_id(const struct dc_inode *inode)
{
	return inode->id;
}
DCI_EXPORT(dc_inode_id);

/*
 * dc_cache_destroy(), once the reclaimer is stopped: unhash the next inode
 * still in the table from bucket *@bucket on, which its caller should have
 * put (it is reported), for destroy to evict.  NULL when the table is empty.
 */
struct dc_inode *dci_inode_table_unhash_next(struct dc_cache *c,
					     unsigned long *bucket)
{
	struct dci_inode_table *t;
	struct dc_inode *inode = NULL;

	dci_mutex_lock(&c->itab.lock);
	t = table_locked(c);
	for (; *bucket < (1ul << t->bits); ++*bucket) {
		inode = dci_rcu_dereference_protected(t->bucket[*bucket], table_held(c));
		if (inode) {
			dci_pr_warn("dc_cache_destroy: inode %llu still referenced (%d)",
				   (unsigned long long)inode->id,
				   dci_refcount_read(&inode->ref));
			table_unlink(c, inode);
			break;
		}
	}
	dci_mutex_unlock(&c->itab.lock);
	return inode;
}

/* The end of dc_cache_destroy(), after its dci_rcu_barrier(). */
void dci_inode_table_fini(struct dc_cache *c)
{
	dci_free(dci_rcu_dereference_protected(c->itab.table, true));
	dci_mutex_destroy(&c->itab.lock);
}
