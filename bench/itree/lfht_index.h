/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lfht_index.h - an exact-start index on liburcu's lock-free hash table.
 *
 * Maps an interval's start to its item.  A hash finds exact keys only, so a
 * lookup hits only when given the start itself, never another point inside
 * the interval.  Uses liburcu's memb flavour: every caller must be a
 * registered thread.  Lookups run concurrently with one updater; deleted
 * entries are freed by call_rcu after a grace period.
 */
#ifndef BENCH_ITREE_LFHT_INDEX_H
#define BENCH_ITREE_LFHT_INDEX_H

#include <stdint.h>

struct lfht_index;

/**
 * lfht_index_create() - allocate an empty index.
 * @expected: the number of entries to size the initial bucket array for.
 *
 * Return: the index, or NULL if out of memory.
 */
struct lfht_index *lfht_index_create(uint64_t expected);

/**
 * lfht_index_destroy() - delete every entry and free the index.
 * @idx: the index; nobody else may be using it.
 *
 * Returns once every entry, including those deleted earlier, is freed.
 * Must be called outside any RCU read-side section.
 */
void lfht_index_destroy(struct lfht_index *idx);

/**
 * lfht_index_add() - map @start to @item.
 * @idx: the index.
 * @start: the key.
 * @item: the value returned by lookups.
 *
 * Return: 0, -EEXIST if @start is already mapped, or -ENOMEM.
 */
int lfht_index_add(struct lfht_index *idx, uint64_t start, void *item);

/**
 * lfht_index_del() - remove the mapping of @start.
 * @idx: the index.
 * @start: the key.
 *
 * Return: 0, or -ENOENT if @start is not mapped.
 */
int lfht_index_del(struct lfht_index *idx, uint64_t start);

/**
 * lfht_index_lookup() - find the item mapped to @start.
 * @idx: the index.
 * @start: the key.
 *
 * Takes its own RCU read-side section.
 *
 * Return: the item, or NULL if @start is not mapped.
 */
void *lfht_index_lookup(struct lfht_index *idx, uint64_t start);

#endif /* BENCH_ITREE_LFHT_INDEX_H */
