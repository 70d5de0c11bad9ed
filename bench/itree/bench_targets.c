/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_targets.c - the four indexes of the itree bench behind one interface.
 *
 * Each lookup takes the read-side protection its index needs (RCU read
 * section, read lock, or none) around exactly one query, as a real caller
 * would.  The interval tree's read section is liburcu's inlined memb lock,
 * the same one libdaxcache uses internally.
 */
#include "platform.h"

#include <daxcache/itree.h>

#include "bench_target.h"
#include "flat_array.h"
#include "lfht_index.h"
#include "rbtree_rwlock.h"

static uint64_t resident_start(uint64_t k)
{
	return k * BENCH_STRIDE;
}

static uint64_t gap_start(uint64_t k)
{
	return k * BENCH_STRIDE + BENCH_GAP;
}

/* dcitree: libdaxcache's RCU interval tree; one writer needs no lock. */

static void *dcitree_create(uint64_t n)
{
	struct dc_itree *tree;
	uint64_t k, s;

	if (dc_itree_create(&tree))
		return NULL;
	for (k = 0; k < n; k++) {
		s = resident_start(k);
		if (dc_itree_insert(tree, s, s + BENCH_LEN - 1, bench_item(s))) {
			dc_itree_destroy(tree);
			return NULL;
		}
	}
	return tree;
}

static void dcitree_destroy(void *index)
{
	dc_itree_destroy(index);
}

static void *dcitree_lookup(void *index, uint64_t point)
{
	void *item;

	dci_rcu_read_lock();
	item = dc_itree_lookup(index, point);
	dci_rcu_read_unlock();
	return item;
}

static int dcitree_update(void *index, uint64_t k)
{
	uint64_t s = gap_start(k);
	int ret;

	ret = dc_itree_insert(index, s, s + BENCH_LEN - 1, bench_item(s));
	return ret ? ret : dc_itree_remove(index, s, NULL);
}

/* rbtree_rwlock: the kernel-style augmented rbtree under a rwlock. */

static void *rbtree_create(uint64_t n)
{
	struct rbtree_rwlock *t = rbtree_rwlock_create();
	uint64_t k, s;

	if (!t)
		return NULL;
	for (k = 0; k < n; k++) {
		s = resident_start(k);
		if (rbtree_rwlock_insert(t, s, s + BENCH_LEN - 1,
					 bench_item(s))) {
			rbtree_rwlock_destroy(t);
			return NULL;
		}
	}
	return t;
}

static void rbtree_destroy(void *index)
{
	rbtree_rwlock_destroy(index);
}

static void *rbtree_lookup(void *index, uint64_t point)
{
	return rbtree_rwlock_lookup(index, point);
}

static int rbtree_update(void *index, uint64_t k)
{
	uint64_t s = gap_start(k);
	int ret;

	ret = rbtree_rwlock_insert(index, s, s + BENCH_LEN - 1, bench_item(s));
	return ret ? ret : rbtree_rwlock_erase(index, s);
}

/* lfht: liburcu's lock-free hash table keyed by start (exact hits only). */

static void *lfht_create(uint64_t n)
{
	struct lfht_index *idx = lfht_index_create(n);
	uint64_t k, s;

	if (!idx)
		return NULL;
	for (k = 0; k < n; k++) {
		s = resident_start(k);
		if (lfht_index_add(idx, s, bench_item(s))) {
			lfht_index_destroy(idx);
			return NULL;
		}
	}
	return idx;
}

static void lfht_destroy(void *index)
{
	lfht_index_destroy(index);
}

static void *lfht_lookup(void *index, uint64_t point)
{
	return lfht_index_lookup(index, point);
}

static int lfht_update(void *index, uint64_t k)
{
	uint64_t s = gap_start(k);
	int ret;

	ret = lfht_index_add(index, s, bench_item(s));
	return ret ? ret : lfht_index_del(index, s);
}

/* flat: one pointer slot per granule, the physical limit. */

static void *flat_create(uint64_t n)
{
	struct flat_array *fa = flat_array_create(resident_start(n));
	uint64_t k, s;

	if (!fa)
		return NULL;
	for (k = 0; k < n; k++) {
		s = resident_start(k);
		flat_array_publish(fa, s, bench_item(s));
	}
	return fa;
}

static void flat_destroy(void *index)
{
	flat_array_destroy(index);
}

static void *flat_lookup(void *index, uint64_t point)
{
	return flat_array_lookup(index, point);
}

static int flat_update(void *index, uint64_t k)
{
	uint64_t s = gap_start(k);

	flat_array_publish(index, s, bench_item(s));
	flat_array_publish(index, s, NULL);
	return 0;
}

static const struct bench_target dcitree = {
	.name = "dcitree",
	.create = dcitree_create,
	.destroy = dcitree_destroy,
	.lookup = dcitree_lookup,
	.update = dcitree_update,
};

static const struct bench_target rbtree = {
	.name = "rbtree_rwlock",
	.create = rbtree_create,
	.destroy = rbtree_destroy,
	.lookup = rbtree_lookup,
	.update = rbtree_update,
};

static const struct bench_target lfht = {
	.name = "lfht",
	.create = lfht_create,
	.destroy = lfht_destroy,
	.lookup = lfht_lookup,
	.update = lfht_update,
};

static const struct bench_target flat = {
	.name = "flat",
	.create = flat_create,
	.destroy = flat_destroy,
	.lookup = flat_lookup,
	.update = flat_update,
};

const struct bench_target *const bench_targets[BENCH_NTARGETS] = {
	[BENCH_DCITREE] = &dcitree,
	[BENCH_RBTREE_RWLOCK] = &rbtree,
	[BENCH_LFHT] = &lfht,
	[BENCH_FLAT] = &flat,
};
