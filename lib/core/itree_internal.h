/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * itree_internal.h - what the core's other files may tell an interval tree
 * beyond <daxcache/itree.h>.
 */
#ifndef DCI_ITREE_INTERNAL_H
#define DCI_ITREE_INTERNAL_H

#include "platform.h"

#include <daxcache/itree.h>

/**
 * dci_itree_set_writer_lock() - name the lock that serializes @t's writers.
 * @t: the tree.
 * @lock: the mutex every writer of @t holds, or NULL (the default: writers
 *	are serialized by means the tree cannot check).
 *
 * Lookups then count as legitimate either inside a read-side section or
 * under @lock, and writers must hold @lock: the kernel's PROVE_RCU checks
 * both.  Nothing changes in userspace, which has no such checker.
 *
 * Context: the writer, before the tree is shared.
 */
void dci_itree_set_writer_lock(struct dc_itree *t, dci_mutex_t *lock);

#define DCI_ITREE_MAX_DEPTH	24	/* 16^16 intervals would not fit in memory */
#define DCI_ITREE_PATH_NONE	(~0u)	/* depth of a path that says nothing */

struct itree_node;

/*
 * A walk from the root to the leaf where a key belongs: the node at each
 * level and the child taken, as @t was after change @changes (see
 * dci_itree_changes()).  Filled by dci_itree_lookup_path() or by an
 * insert's own walk; an empty tree's has depth 0.
 */
struct dci_itree_path {
	uint64_t changes;
	unsigned int depth;
	struct itree_node *node[DCI_ITREE_MAX_DEPTH];
	unsigned int slot[DCI_ITREE_MAX_DEPTH];
};

/**
 * dci_itree_lookup_path() - dc_itree_lookup(), noting where an insert goes.
 * @t: the tree.
 * @point: the index to look up.
 * @p: filled with the walk to @point's leaf when nothing maps @point.
 *
 * A writer that then takes the writer lock and finds @t unchanged (the
 * insert checks) inserts at @p without walking again.
 *
 * Context: inside a read-side section, or the writer.
 * Return: the item of the interval holding @point, or NULL.
 */
void *dci_itree_lookup_path(const struct dc_itree *t, uint64_t point,
			    struct dci_itree_path *p);

/**
 * dci_itree_insert_new() - dc_itree_insert() without its overlap check.
 * @t: the tree.
 * @start: first index of the interval.
 * @last: last index (>= @start).
 * @item: the value (not NULL).
 * @p: where @start belongs, from dci_itree_lookup_path(), or NULL.  Used
 *	only if @t has not changed since: else the insert walks again.
 *
 * For a writer that has just looked, under the writer lock it still
 * holds, and knows that nothing in @t overlaps [@start, @last].
 *
 * Context: the writer.
 * Return: 0, -EINVAL or -ENOMEM (the tree unchanged).
 */
int dci_itree_insert_new(struct dc_itree *t, uint64_t start, uint64_t last,
			 void *item, const struct dci_itree_path *p);

/**
 * dci_itree_changes() - how many inserts and removes @t has seen.
 * @t: the tree.
 *
 * Read with acquire ordering, after each change is published: a lookup
 * made after reading N sees the tree at least as it was after change N.
 * So a writer that finds N still there under the writer lock knows that
 * such a lookup saw the tree as it is.
 *
 * Context: any.
 * Return: the count.
 */
uint64_t dci_itree_changes(const struct dc_itree *t);

#endif /* DCI_ITREE_INTERNAL_H */
