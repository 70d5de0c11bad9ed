// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernel_rwlock.c - fs/fuse/dax.c's hit path over bench/itree's rwlock
 * rbtree.
 *
 * The rwlock is the tree's own (one tree per inode, so one lock per inode),
 * taken shared by rbtree_rwlock_lookup().  The kernel takes its refcount
 * while it still holds the lock; here the tree keeps its lock private, so
 * the increment follows the unlock.  The atomic operations are the same
 * (read lock, read unlock, increment; decrement on unpin), and the shorter
 * critical section can only favour the baseline.  Safe here because these
 * mappings are never reclaimed.
 *
 * Refcounts follow the kernel's refcount_t: relaxed increment, release
 * decrement, saturation on misuse.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "../itree/rbtree_rwlock.h"
#include "bench_util.h"
#include "kernel_rwlock.h"

#define KR_SATURATED	(INT_MIN / 2)

/* One mapping on its own cache line, like the cache's range objects. */
struct kr_map {
	_Atomic int refcnt;
	uint64_t win_off;
	uint64_t index;
} __attribute__((aligned(64)));

struct kr_inode {
	struct rbtree_rwlock *tree;
	unsigned int shift;
	struct kr_map **maps;		/* for destroy */
	size_t nr_maps, cap;
};

static void refcount_warn(struct kr_map *m, const char *what)
{
	atomic_store_explicit(&m->refcnt, KR_SATURATED, memory_order_relaxed);
	bench_fail("kernel_rwlock: refcount %s at index %llu", what,
		   (unsigned long long)m->index);
}

static void refcount_inc(struct kr_map *m)
{
	int old = atomic_fetch_add_explicit(&m->refcnt, 1, memory_order_relaxed);

	if (__builtin_expect(old <= 0 || old == INT_MAX, 0))
		refcount_warn(m, old ? "saturated" : "increment on 0");
}

static void refcount_dec(struct kr_map *m)
{
	int old = atomic_fetch_sub_explicit(&m->refcnt, 1, memory_order_release);

	if (__builtin_expect(old <= 1, 0))
		refcount_warn(m, old == 1 ? "decrement hit 0" : "underflow");
}

struct kr_inode *kr_inode_create(unsigned int range_shift)
{
	struct kr_inode *inode = calloc(1, sizeof(*inode));

	if (!inode)
		return NULL;
	inode->tree = rbtree_rwlock_create();
	if (!inode->tree) {
		free(inode);
		return NULL;
	}
	inode->shift = range_shift;
	return inode;
}

void kr_inode_destroy(struct kr_inode *inode)
{
	size_t i;

	if (!inode)
		return;
	rbtree_rwlock_destroy(inode->tree);
	for (i = 0; i < inode->nr_maps; i++)
		free(inode->maps[i]);
	free(inode->maps);
	free(inode);
}

int kr_inode_add(struct kr_inode *inode, uint64_t index, uint64_t win_off)
{
	struct kr_map *m, **maps;
	int ret;

	if (inode->nr_maps == inode->cap) {
		size_t cap = inode->cap ? 2 * inode->cap : 16;

		maps = realloc(inode->maps, cap * sizeof(*maps));
		if (!maps)
			return -ENOMEM;
		inode->maps = maps;
		inode->cap = cap;
	}
	m = aligned_alloc(64, sizeof(*m));
	if (!m)
		return -ENOMEM;
	atomic_init(&m->refcnt, 1);
	m->win_off = win_off;
	m->index = index;
	ret = rbtree_rwlock_insert(inode->tree, index, index, m);
	if (ret) {
		free(m);
		return ret;
	}
	inode->maps[inode->nr_maps++] = m;
	return 0;
}

int kr_map(struct kr_inode *inode, uint64_t file_off, struct kr_pin *pin)
{
	struct kr_map *m = rbtree_rwlock_lookup(inode->tree,
						file_off >> inode->shift);

	if (!m)
		return -ENOENT;
	refcount_inc(m);
	pin->win_off = m->win_off + (file_off & ((1ull << inode->shift) - 1));
	pin->map = m;
	return 0;
}

void kr_unpin(struct kr_pin *pin)
{
	refcount_dec(pin->map);
	pin->map = NULL;
}
