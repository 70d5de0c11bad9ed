/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * flat_array.h - a flat array of item pointers: the physical limit for a
 * point lookup (one shift, one bounds check, one load).
 *
 * One slot per granule of 1 << FLAT_GRANULE_SHIFT points.  Every interval
 * in the bench covers exactly one granule (resident [4k, 4k+1] in slot 2k,
 * the writer's gap [4k+2, 4k+3] in slot 2k+1), so the array answers the
 * same queries as the trees.  Readers load a slot with acquire; the writer
 * publishes with release, which is all lockless readers need.
 */
#ifndef BENCH_ITREE_FLAT_ARRAY_H
#define BENCH_ITREE_FLAT_ARRAY_H

#include <stdint.h>

#define FLAT_GRANULE_SHIFT	1

struct flat_array {
	uint64_t nslots;
	void **slots;
};

/**
 * flat_array_create() - allocate an array covering the points [0, @end).
 * @end: one past the last point; all slots start out NULL.
 *
 * Return: the array, or NULL if out of memory.
 */
struct flat_array *flat_array_create(uint64_t end);

/**
 * flat_array_destroy() - free the array; nobody else may be using it.
 * @fa: the array.
 */
void flat_array_destroy(struct flat_array *fa);

/**
 * flat_array_lookup() - the item of the granule containing @point.
 * @fa: the array.
 * @point: any index.
 *
 * Return: the item, or NULL if the granule is empty or out of range.
 */
static inline void *flat_array_lookup(const struct flat_array *fa,
				      uint64_t point)
{
	uint64_t slot = point >> FLAT_GRANULE_SHIFT;

	if (slot >= fa->nslots)
		return NULL;
	return __atomic_load_n(&fa->slots[slot], __ATOMIC_ACQUIRE);
}

/**
 * flat_array_publish() - store @item (or NULL) in the granule of @start.
 * @fa: the array.
 * @start: an index below the array's end.
 * @item: the new content.
 */
static inline void flat_array_publish(struct flat_array *fa, uint64_t start,
				      void *item)
{
	__atomic_store_n(&fa->slots[start >> FLAT_GRANULE_SHIFT], item,
			 __ATOMIC_RELEASE);
}

#endif /* BENCH_ITREE_FLAT_ARRAY_H */
