/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/itree.h - an interval tree with lockless readers.
 *
 * Holds closed, non-overlapping intervals [start, last] of uint64_t, each
 * with a non-NULL item pointer.  Writers (insert, remove, destroy) must be
 * serialized by the caller; readers (lookup, first, next) run concurrently
 * with the writer under dc_read_lock() and take no lock.  A reader sees each
 * interval either before or after a concurrent change, never a torn state;
 * an interval that is in the tree for the whole read-side section is always
 * found.
 *
 * The tree never touches the items: freeing an item after removing it is up
 * to the caller (after dc_synchronize() or through its own deferred free if
 * readers may still hold the pointer).
 */
#ifndef DAXCACHE_ITREE_H
#define DAXCACHE_ITREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dc_itree;

/**
 * struct dc_itree_entry - one interval, copied out of the tree.
 * @start: first index covered.
 * @last: last index covered (inclusive).
 * @item: the caller's pointer stored with the interval.
 */
struct dc_itree_entry {
	uint64_t start;
	uint64_t last;
	void *item;
};

/**
 * dc_itree_create() - allocate an empty tree.
 * @out: where to store the new tree.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if @out is NULL, or -ENOMEM.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_itree_create(struct dc_itree **out);

/**
 * dc_itree_destroy() - free a tree and all its internal nodes.
 * @tree: the tree, or NULL.
 *
 * Items are not touched.  Readers that may still be inside the tree must
 * have left their read-side section, or the nodes are freed after a grace
 * period (the tree's nodes are released through deferred RCU frees).
 *
 * Context: the writer; may sleep.
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): returns
 * at once, the object left to the exit.
 */
void dc_itree_destroy(struct dc_itree *tree);

/**
 * dc_itree_insert() - add the interval [@start, @last] with @item.
 * @tree: the tree.
 * @start: first index.
 * @last: last index, inclusive; the whole range [0, UINT64_MAX] is allowed.
 * @item: non-NULL pointer returned by lookups.
 *
 * On failure the tree is unchanged.
 *
 * Context: the writer (callers serialize writers); may sleep.
 * Return: 0; -EINVAL if @start > @last or @item is NULL; -EEXIST if the
 * interval overlaps one already in the tree; -ENOMEM.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_itree_insert(struct dc_itree *tree, uint64_t start, uint64_t last,
		    void *item);

/**
 * dc_itree_remove() - remove the interval that starts at @start.
 * @tree: the tree.
 * @start: the start of the interval to remove.
 * @out: if not NULL, receives the removed interval's item.
 *
 * Never fails for lack of memory: when an allocation fails it waits for a
 * grace period and reuses a retired node instead.
 *
 * Context: the writer; may sleep.
 * Return: 0, or -ENOENT if no interval starts at @start.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_itree_remove(struct dc_itree *tree, uint64_t start, void **out);

/**
 * dc_itree_lookup() - find the item whose interval contains @point.
 * @tree: the tree.
 * @point: the index to look up.
 *
 * Context: inside dc_read_lock(), or the writer.
 * Return: the item, or NULL if no interval contains @point.
 */
void *dc_itree_lookup(const struct dc_itree *tree, uint64_t point);

/**
 * dc_itree_lookup_entry() - like dc_itree_lookup(), with the bounds.
 * @tree: the tree.
 * @point: the index to look up.
 * @ent: receives the interval containing @point.
 *
 * Context: inside dc_read_lock(), or the writer.
 * Return: true if found (and @ent filled), false otherwise.
 */
bool dc_itree_lookup_entry(const struct dc_itree *tree, uint64_t point,
			   struct dc_itree_entry *ent);

/**
 * dc_itree_first() - the lowest interval overlapping [@a, @b].
 * @tree: the tree.
 * @a: first index of the query range.
 * @b: last index of the query range (inclusive).
 * @ent: receives the interval.
 *
 * Context: inside dc_read_lock(), or the writer.
 * Return: true if one was found, false if none overlaps (or @a > @b).
 */
bool dc_itree_first(const struct dc_itree *tree, uint64_t a, uint64_t b,
		    struct dc_itree_entry *ent);

/**
 * dc_itree_next() - the next interval overlapping [.., @b] after @ent.
 * @tree: the tree.
 * @ent: the interval returned last; replaced by the next one.
 * @b: last index of the query range (inclusive).
 *
 * Each call searches afresh from the root, so iteration may span several
 * read-side sections and survives concurrent changes: every interval that
 * stays in the tree for the whole iteration is returned exactly once, in
 * ascending order.
 *
 * Context: inside dc_read_lock(), or the writer.
 * Return: true if one was found (and @ent replaced), false at the end.
 */
bool dc_itree_next(const struct dc_itree *tree, struct dc_itree_entry *ent,
		   uint64_t b);

/**
 * dc_itree_count() - the number of intervals in the tree.
 * @tree: the tree.
 *
 * Context: any; the value may be stale by the time it is used.
 * Return: the count.
 */
size_t dc_itree_count(const struct dc_itree *tree);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_ITREE_H */
