/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernel_rwlock.h - the hit path of Linux's fs/fuse/dax.c, as a baseline:
 * one augmented interval rbtree per inode behind a per-inode rwlock taken
 * shared for the lookup (the kernel's i_dmap_sem / inode lock), then
 * refcount_inc() on the mapping found; unpin is refcount_dec().
 *
 * Only the hit path: mappings are added up front and never reclaimed.
 */
#ifndef BENCH_CACHE_KERNEL_RWLOCK_H
#define BENCH_CACHE_KERNEL_RWLOCK_H

#include <stdint.h>

struct kr_inode;

/**
 * struct kr_pin - a held mapping.
 * @win_off: window offset of the mapping.
 * @map: private.
 */
struct kr_pin {
	uint64_t win_off;
	void *map;
};

/**
 * kr_inode_create() - an inode without mappings.
 * @range_shift: log2 of the range size.
 *
 * Return: the inode, or NULL if out of memory.
 */
struct kr_inode *kr_inode_create(unsigned int range_shift);

/**
 * kr_inode_destroy() - free an inode and its mappings; no pins may be held.
 * @inode: the inode, or NULL.
 */
void kr_inode_destroy(struct kr_inode *inode);

/**
 * kr_inode_add() - map file range @index at window offset @win_off.
 * @inode: the inode.
 * @index: file range index, not mapped yet.
 * @win_off: window offset.
 *
 * Return: 0, or -ENOMEM.
 */
int kr_inode_add(struct kr_inode *inode, uint64_t index, uint64_t win_off);

/**
 * kr_map() - pin the mapping of @file_off.
 * @inode: the inode.
 * @file_off: file offset.
 * @pin: receives the pin.
 *
 * Return: 0, or -ENOENT when nothing maps it (this baseline has no miss
 * path).
 */
int kr_map(struct kr_inode *inode, uint64_t file_off, struct kr_pin *pin);

/**
 * kr_unpin() - release a pin.
 * @pin: the pin.
 */
void kr_unpin(struct kr_pin *pin);

#endif /* BENCH_CACHE_KERNEL_RWLOCK_H */
