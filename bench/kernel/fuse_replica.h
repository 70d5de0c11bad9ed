/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse_replica.h - the baseline of daxcache_bench.ko: the way fs/fuse/dax.c
 * finds, pins and sets up a DAX window mapping, written here for the
 * benchmark (see fuse_replica.c).
 */
#ifndef DC_BENCH_FUSE_REPLICA_H
#define DC_BENCH_FUSE_REPLICA_H

#include <linux/types.h>

struct fr_window;
struct fr_inode;
struct fr_map;

struct fr_window *fr_window_create(unsigned int nr_ranges);
void fr_window_destroy(struct fr_window *w);
/* Call @setup (it may sleep) where each miss's setup goes to the device. */
void fr_window_set_setup(struct fr_window *w, void (*setup)(void));
struct fr_inode *fr_inode_create(struct fr_window *w);
void fr_inode_destroy(struct fr_inode *fi);

/*
 * Pin the mapping of range @idx, setting it up from the free pool if needed
 * (writable if @write), or upgrading it if @write and it is read-only.
 */
int fr_map(struct fr_inode *fi, unsigned long idx, bool write,
	   struct fr_map **out);
void fr_unpin(struct fr_map *m);
/* Drop every mapping of @fi back to the free pool (none may be pinned). */
unsigned int fr_inode_evict(struct fr_inode *fi);

#endif /* DC_BENCH_FUSE_REPLICA_H */
