/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_target.h - what each index compared by the itree bench provides.
 *
 * Every index is built holding the resident intervals
 * [k * BENCH_STRIDE, k * BENCH_STRIDE + BENCH_LEN - 1] for k < n, each with
 * the item bench_item(start).  Readers look up random resident starts; the
 * single writer inserts and removes gap intervals starting at
 * k * BENCH_STRIDE + BENCH_GAP, which never overlap a resident one, so every
 * reader lookup must return exactly bench_item(start).
 */
#ifndef BENCH_ITREE_TARGET_H
#define BENCH_ITREE_TARGET_H

#include <stdint.h>

#define BENCH_STRIDE	4	/* distance between resident starts */
#define BENCH_LEN	2	/* points covered by each interval */
#define BENCH_GAP	2	/* offset of a gap interval from its resident */

/**
 * bench_item() - the item stored with the interval that starts at @start.
 * @start: the interval's first index.
 *
 * Items are tokens that are compared, never dereferenced.
 *
 * Return: a non-NULL pointer-sized token unique to @start.
 */
static inline void *bench_item(uint64_t start)
{
	return (void *)(uintptr_t)(start + 1);
}

/**
 * struct bench_target - one index under test.
 * @name: the column and JSON name.
 * @create: build an index holding the n resident intervals; NULL on
 *	failure.  Called from a registered thread, nothing else running.
 * @destroy: free an index; no reader or writer is running.
 * @lookup: the item of the interval containing @point, or NULL.  Called
 *	from registered reader threads, concurrently with each other and
 *	with @update; takes whatever read-side protection the index needs.
 * @update: insert the gap interval after resident @k, then remove it.
 *	Called from one registered writer thread.  Returns 0 or -errno.
 */
struct bench_target {
	const char *name;
	void *(*create)(uint64_t n);
	void (*destroy)(void *index);
	void *(*lookup)(void *index, uint64_t point);
	int (*update)(void *index, uint64_t k);
};

enum bench_target_id {
	BENCH_DCITREE,
	BENCH_RBTREE_RWLOCK,
	BENCH_LFHT,
	BENCH_FLAT,
	BENCH_NTARGETS
};

/* The indexes under test, in table column order. */
extern const struct bench_target *const bench_targets[BENCH_NTARGETS];

#endif /* BENCH_ITREE_TARGET_H */
