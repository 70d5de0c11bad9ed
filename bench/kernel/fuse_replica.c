// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse_replica.c - the baseline of daxcache_bench.ko: fs/fuse/dax.c's way of
 * finding a DAX window mapping, written here with the same kernel
 * primitives.
 *
 * Per inode, an rw_semaphore around the kernel's interval tree
 * (linux/interval_tree.h) of the inode's mappings, keyed by range index.
 * A hit takes the semaphore shared, looks the index up and takes a
 * reference (refcount_inc) before it lets the semaphore go; the unpin is a
 * refcount_dec.  Every hit tests whether a write needs the mapping made
 * writable, as fs/fuse/dax.c's does: a write hit of a writable mapping is
 * a read hit plus that test; a write to a read-only one upgrades it (the
 * semaphore taken exclusive, a setup).  A miss drops the shared semaphore,
 * takes a range from the window's free pool (a list under a spinlock),
 * takes the semaphore exclusive, looks again (another thread may have set
 * it up meanwhile), "sets up" the mapping (the benchmark's backend does
 * nothing, as the library's null backend in the same run) and inserts it
 * with a reference for the tree and one for the caller.  Reclaim is left
 * out: the benchmark measures misses served from free ranges only.
 */
#include <linux/interval_tree.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "fuse_replica.h"

struct fr_map {
	struct interval_tree_node itn;	/* start == last == the range index */
	refcount_t refcnt;		/* 1 for the tree, 1 per pin */
	bool writable;			/* set up for writing; under the sem */
	u64 win_off;
	struct list_head link;		/* in the free pool or the inode's list */
} ____cacheline_aligned;

struct fr_window {
	spinlock_t lock;		/* guards @free and @nr_free */
	struct list_head free;
	unsigned int nr_free;
	unsigned int nr_ranges;
	struct fr_map *maps;
	void (*setup)(void);		/* the device's setup, or NULL */
};

struct fr_inode {
	struct fr_window *w;
	struct rw_semaphore sem;	/* guards @tree and @busy */
	struct rb_root_cached tree;
	struct list_head busy;
};

/**
 * fr_window_create() - a window of @nr_ranges free ranges.
 * @nr_ranges: its size in ranges.
 *
 * Context: process context; may sleep.
 * Return: the window, or NULL without memory.
 */
struct fr_window *fr_window_create(unsigned int nr_ranges)
{
	struct fr_window *w = kzalloc(sizeof(*w), GFP_KERNEL);
	unsigned int i;

	if (!w)
		return NULL;
	w->maps = kvcalloc(nr_ranges, sizeof(*w->maps), GFP_KERNEL);
	if (!w->maps) {
		kfree(w);
		return NULL;
	}
	spin_lock_init(&w->lock);
	INIT_LIST_HEAD(&w->free);
	for (i = 0; i < nr_ranges; i++) {
		w->maps[i].win_off = i;
		list_add_tail(&w->maps[i].link, &w->free);
	}
	w->nr_free = nr_ranges;
	w->nr_ranges = nr_ranges;
	return w;
}

/**
 * fr_window_set_setup() - what a miss calls where the setup request would go
 * to the device: under the inode's semaphore, held for writing, as in
 * fs/fuse/dax.c.
 * @w: the window.
 * @setup: the function (it may sleep), or NULL for none.
 *
 * Context: before the window is used.
 * Return: nothing.
 */
void fr_window_set_setup(struct fr_window *w, void (*setup)(void))
{
	w->setup = setup;
}

/**
 * fr_window_destroy() - free a window whose inodes are all destroyed.
 * @w: the window, or NULL.
 *
 * Context: process context.
 * Return: nothing.
 */
void fr_window_destroy(struct fr_window *w)
{
	if (!w)
		return;
	WARN_ON(w->nr_free != w->nr_ranges);
	kvfree(w->maps);
	kfree(w);
}

/**
 * fr_inode_create() - an inode with no mapping.
 * @w: the window it maps into.
 *
 * Context: process context; may sleep.
 * Return: the inode, or NULL without memory.
 */
struct fr_inode *fr_inode_create(struct fr_window *w)
{
	struct fr_inode *fi = kzalloc(sizeof(*fi), GFP_KERNEL);

	if (!fi)
		return NULL;
	fi->w = w;
	init_rwsem(&fi->sem);
	fi->tree = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&fi->busy);
	return fi;
}

/**
 * fr_inode_evict() - drop every mapping of @fi back to the free pool.
 * @fi: the inode; none of its mappings may be pinned.
 *
 * Context: process context; sleeps on the inode's semaphore.
 * Return: the number of mappings dropped.
 */
unsigned int fr_inode_evict(struct fr_inode *fi)
{
	struct fr_window *w = fi->w;
	struct fr_map *m, *next;
	unsigned int n = 0;

	down_write(&fi->sem);
	list_for_each_entry_safe(m, next, &fi->busy, link) {
		WARN_ON(!refcount_dec_and_test(&m->refcnt));
		interval_tree_remove(&m->itn, &fi->tree);
		spin_lock(&w->lock);
		list_move(&m->link, &w->free);
		w->nr_free++;
		spin_unlock(&w->lock);
		n++;
	}
	up_write(&fi->sem);
	return n;
}

/**
 * fr_inode_destroy() - evict and free an inode.
 * @fi: the inode, or NULL.
 *
 * Context: process context; sleeps.
 * Return: nothing.
 */
void fr_inode_destroy(struct fr_inode *fi)
{
	if (!fi)
		return;
	fr_inode_evict(fi);
	kfree(fi);
}

static struct fr_map *fr_lookup(struct fr_inode *fi, unsigned long idx)
{
	struct interval_tree_node *n = interval_tree_iter_first(&fi->tree, idx, idx);

	return n ? container_of(n, struct fr_map, itn) : NULL;
}

static struct fr_map *fr_take_free(struct fr_window *w)
{
	struct fr_map *m;

	spin_lock(&w->lock);
	m = list_first_entry_or_null(&w->free, struct fr_map, link);
	if (m) {
		list_del_init(&m->link);
		w->nr_free--;
	}
	spin_unlock(&w->lock);
	return m;
}

static void fr_put_free(struct fr_window *w, struct fr_map *m)
{
	spin_lock(&w->lock);
	list_add(&m->link, &w->free);
	w->nr_free++;
	spin_unlock(&w->lock);
}

/* Make @m writable, the inode's semaphore held for writing. */
static void fr_make_writable(struct fr_inode *fi, struct fr_map *m)
{
	/* Another thread may have upgraded it while the semaphore was free. */
	if (m->writable)
		return;
	/* The setup request (writable) goes to the device here. */
	if (fi->w->setup)
		fi->w->setup();
	m->writable = true;
}

/* A write hit on read-only @m, pinned: upgrade it, the semaphore exclusive. */
static noinline void fr_upgrade(struct fr_inode *fi, struct fr_map *m)
{
	down_write(&fi->sem);
	fr_make_writable(fi, m);
	up_write(&fi->sem);
}

/**
 * fr_map() - pin the mapping of range @idx of @fi, setting it up if needed.
 * @fi: the inode.
 * @idx: the range index in the file.
 * @write: the caller will write: a read-only mapping is upgraded.
 * @out: receives the mapping, pinned.
 *
 * Context: process context; sleeps on the inode's semaphore.
 * Return: 0, or -ENOSPC when the mapping is missing and no range is free
 * (the replica does not reclaim).
 */
int fr_map(struct fr_inode *fi, unsigned long idx, bool write,
	   struct fr_map **out)
{
	struct fr_map *m, *fresh;

	down_read(&fi->sem);
	m = fr_lookup(fi, idx);
	if (m) {
		/* Pinned before the semaphore goes: an upgrade needs it kept. */
		refcount_inc(&m->refcnt);
		/* Tested on every hit, as fs/fuse/dax.c does, read or write. */
		if (write && !m->writable) {
			up_read(&fi->sem);
			fr_upgrade(fi, m);
		} else {
			up_read(&fi->sem);
		}
		*out = m;
		return 0;
	}
	up_read(&fi->sem);

	fresh = fr_take_free(fi->w);
	if (!fresh)
		return -ENOSPC;
	down_write(&fi->sem);
	m = fr_lookup(fi, idx);
	if (m) {
		/* Set up by another thread while the semaphore was free. */
		refcount_inc(&m->refcnt);
		if (write)
			fr_make_writable(fi, m);
		up_write(&fi->sem);
		fr_put_free(fi->w, fresh);
		*out = m;
		return 0;
	}
	/* The setup request goes to the device here. */
	if (fi->w->setup)
		fi->w->setup();
	fresh->itn.start = idx;
	fresh->itn.last = idx;
	fresh->writable = write;
	refcount_set(&fresh->refcnt, 2);
	interval_tree_insert(&fresh->itn, &fi->tree);
	list_add_tail(&fresh->link, &fi->busy);
	up_write(&fi->sem);
	*out = fresh;
	return 0;
}

/**
 * fr_unpin() - drop a pin that fr_map() took.
 * @m: the mapping.
 *
 * Context: any.
 * Return: nothing.
 */
void fr_unpin(struct fr_map *m)
{
	refcount_dec(&m->refcnt);
}
