/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbtree_rwlock.h - the kernel-style baseline: an augmented red-black
 * interval tree behind a pthread rwlock.
 *
 * Each node keeps the largest last index in its subtree, so a stabbing
 * query skips every subtree that ends before the point.  Lookups take the
 * read lock; insert and erase take the write lock.  As in the kernel's
 * interval trees, intervals may overlap and nothing checks for it.
 */
#ifndef BENCH_ITREE_RBTREE_RWLOCK_H
#define BENCH_ITREE_RBTREE_RWLOCK_H

#include <stdint.h>

struct rbtree_rwlock;

/**
 * rbtree_rwlock_create() - allocate an empty tree.
 *
 * Return: the tree, or NULL if out of memory.
 */
struct rbtree_rwlock *rbtree_rwlock_create(void);

/**
 * rbtree_rwlock_destroy() - free a tree and all its nodes.
 * @t: the tree; nobody else may be using it.
 */
void rbtree_rwlock_destroy(struct rbtree_rwlock *t);

/**
 * rbtree_rwlock_insert() - add the interval [@start, @last] with @item.
 * @t: the tree.
 * @start: first index.
 * @last: last index, inclusive, not below @start.
 * @item: returned by lookups that hit the interval.
 *
 * Return: 0, or -ENOMEM.
 */
int rbtree_rwlock_insert(struct rbtree_rwlock *t, uint64_t start,
			 uint64_t last, void *item);

/**
 * rbtree_rwlock_erase() - remove an interval that starts at @start.
 * @t: the tree.
 * @start: the start of the interval to remove.
 *
 * Return: 0, or -ENOENT if no interval starts at @start.
 */
int rbtree_rwlock_erase(struct rbtree_rwlock *t, uint64_t start);

/**
 * rbtree_rwlock_lookup() - stabbing query.
 * @t: the tree.
 * @point: the index to look up.
 *
 * Return: the item of an interval containing @point, or NULL if none does.
 */
void *rbtree_rwlock_lookup(struct rbtree_rwlock *t, uint64_t point);

#endif /* BENCH_ITREE_RBTREE_RWLOCK_H */
