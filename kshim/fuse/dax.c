// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DAX part of fuse (virtio-fs's cache window) on libdaxcache.
 *
 * Built by kshim/fuse/build in place of fs/fuse/dax.c, with the other fuse
 * sources of the kernel unmodified: it defines what they call under
 * CONFIG_FUSE_DAX (fuse_i.h).  The window's range pool, the per-inode
 * mappings, pins and reclaim (inline and in the background) are
 * daxcache.ko's (<daxcache/cache.h>); this file is the glue:
 *
 * - one dc_cache per connection over the device's window, ranges of 2 MiB;
 *   its backend ops are FUSE_SETUPMAPPING and FUSE_REMOVEMAPPING requests,
 *   and a writeback op, called before any mapping is reclaimed
 *   (DC_CACHE_WRITEBACK_ALL), that takes the range out of the owner's page
 *   tables and DAX entries, or refuses (the mapping then stays);
 * - one dc_inode per DAX inode, keyed by its node id;
 * - read, write and faults go through the kernel's DAX code (dax_iomap_rw,
 *   dax_iomap_fault) with an iomap_begin that pins the mapping (dc_map),
 *   keeping the pin in the iomap's private pointer (dc_pin_stow: nothing
 *   is allocated per step), and an iomap_end that drops it
 *   (dc_unpin_stowed).
 *
 * Locks: a writeback op runs under the library's mutex of the owner inode
 * and takes the owner's invalidate_lock for writing, waiting for it.  So
 * whoever holds an invalidate_lock must never wait for the library: a fault
 * pins its range first, before it takes its invalidate_lock (shared), where
 * a miss may reclaim inline and wait; under the lock it maps with
 * DC_MAP_NOWAIT | DC_MAP_NORECLAIM (a hit, then) and, on -EAGAIN, lets the
 * lock go, waits for a free range (dc_wait_free) and faults again.  The
 * read and write paths hold no invalidate_lock while they map.
 */
#include "fuse_i.h"

#include <linux/dax.h>
#include <linux/iomap.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pfn_t.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/wait_bit.h>
#include <linux/xarray.h>

#include <daxcache/cache.h>

MODULE_IMPORT_NS(DAXCACHE);

#define FDAX_RANGE_SHIFT	21
#define FDAX_RANGE_SIZE		BIT_ULL(FDAX_RANGE_SHIFT)
/*
 * What iomap_begin answers for a read that the library's admission control
 * sends past the window (DC_MAP_BYPASS): an error no other step returns.
 */
#define FDAX_BYPASS		(-ENOTBLK)
/* The negative test's module (kshim/fuse/build --broken): see fdax_writeback(). */
#ifdef FDAX_BROKEN_RECLAIM
#define FDAX_BROKEN		true
#else
#define FDAX_BROKEN		false
#endif
/*
 * dax_bypass=0 (a module parameter, read at each read()): every read maps
 * its range, as the stock code does, instead of letting the library's
 * admission control serve it with FUSE_READ.  The benchmark's way to
 * show what inline reclaim alone saves (bench/virtiofs/run --fuse).
 */
static bool dax_bypass = true;
module_param(dax_bypass, bool, 0644);
MODULE_PARM_DESC(dax_bypass, "Let admission control serve read() without the DAX window (default: true)");

/* A fault that found no free range waits this long for one, then retries. */
#define FDAX_FAULT_WAIT_NS	(100 * NSEC_PER_MSEC)

/* Per connection: fc->dax. */
struct fuse_conn_dax {
	struct dax_device *dev;
	struct dc_cache *cache;
	/* Requests go through the first mount that made a DAX inode. */
	struct fuse_mount *fm;
	/* Node id -> struct inode * of the DAX inodes that hold a dc_inode. */
	struct xarray inodes;
	/* Set when the connection is going: the ops send nothing more. */
	bool closed;
};

/* Per inode: fi->dax (freed by fuse_free_inode()). */
struct fuse_inode_dax {
	struct dc_inode *dci;
};

/* --- the backend ops -------------------------------------------------------- */

static int fdax_setup(void *priv, u64 ino, u64 file_off, u64 win_off, u64 len,
		      unsigned int flags)
{
	struct fuse_conn_dax *fcd = priv;
	struct fuse_setupmapping_in in = {
		.fh = -1,
		.foffset = file_off,
		.len = len,
		.moffset = win_off,
		.flags = FUSE_SETUPMAPPING_FLAG_READ,
	};
	struct fuse_args args = {};
	ssize_t ret;

	if (READ_ONCE(fcd->closed) || !fcd->fm)
		return -ENOTCONN;
	if (flags & DC_MAP_WRITE)
		in.flags |= FUSE_SETUPMAPPING_FLAG_WRITE;
	args.opcode = FUSE_SETUPMAPPING;
	args.nodeid = ino;
	args.in_numargs = 1;
	args.in_args[0].size = sizeof(in);
	args.in_args[0].value = &in;
	ret = fuse_simple_request(fcd->fm, &args);
	return ret < 0 ? ret : 0;
}

/* One FUSE_REMOVEMAPPING for @n ranges of node @ino. */
static int fdax_send_remove(struct fuse_conn_dax *fcd, u64 ino,
			    struct fuse_removemapping_one *one, unsigned int n)
{
	struct fuse_removemapping_in in = { .count = n };
	struct fuse_args args = {};
	ssize_t ret;

	args.opcode = FUSE_REMOVEMAPPING;
	args.nodeid = ino;
	args.in_numargs = 2;
	args.in_args[0].size = sizeof(in);
	args.in_args[0].value = &in;
	args.in_args[1].size = n * sizeof(*one);
	args.in_args[1].value = one;
	ret = fuse_simple_request(fcd->fm, &args);
	return ret < 0 ? ret : 0;
}

/*
 * The library batches removes across inodes; a request names one node, so
 * each run of one inode's entries is a request of its own.
 */
static int fdax_remove(void *priv, const struct dc_remove_entry *e,
		       unsigned int n)
{
	struct fuse_conn_dax *fcd = priv;
	struct fuse_removemapping_one single, *one;
	unsigned int i, start, max;
	int ret, err = 0;

	/* A connection that is going takes its window with it. */
	if (READ_ONCE(fcd->closed) || !fcd->fm)
		return 0;
	max = min_t(unsigned int, n, FUSE_REMOVEMAPPING_MAX_ENTRY);
	one = kmalloc_array(max, sizeof(*one), GFP_NOFS);
	if (!one) {
		one = &single;
		max = 1;
	}
	for (start = 0; start < n; start = i) {
		for (i = start; i < n && i - start < max && e[i].ino == e[start].ino; i++) {
			one[i - start].moffset = e[i].win_off;
			one[i - start].len = e[i].len;
		}
		ret = fdax_send_remove(fcd, e[start].ino, one, i - start);
		if (ret && !err)
			err = ret;
	}
	if (one != &single)
		kfree(one);
	return err;
}

/* The live inode of node @ino, with a reference, or NULL. */
static struct inode *fdax_grab(struct fuse_conn_dax *fcd, u64 ino)
{
	struct inode *inode;

	xa_lock(&fcd->inodes);
	inode = xa_load(&fcd->inodes, ino);
	if (inode)
		inode = igrab(inode);
	xa_unlock(&fcd->inodes);
	return inode;
}

/*
 * Called before the library reclaims, punches or evicts the mapping of
 * [@file_off, @file_off + @len) of node @ino (DC_CACHE_WRITEBACK_ALL): after
 * it, the range may map another file.  Unmap it from every process, write
 * back and drop its DAX entries, all under the inode's invalidate_lock so
 * that no fault maps it again meanwhile.  A page still in use
 * (get_user_pages) refuses: the library then keeps the mapping and
 * reclaims another.
 */
static int fdax_writeback(void *priv, u64 ino, u64 file_off, u64 len,
			  u64 win_off)
{
	struct fuse_conn_dax *fcd = priv;
	loff_t end = file_off + len - 1;
	struct writeback_control wbc = {
		.sync_mode = WB_SYNC_ALL,
		.nr_to_write = LONG_MAX,
		.range_start = file_off,
		.range_end = end,
	};
	struct address_space *mapping;
	struct inode *inode;
	int ret;

	/*
	 * The negative test (kshim/fuse/build --broken): the range is
	 * reused while page tables and DAX entries still map it.
	 */
	if (FDAX_BROKEN)
		return 0;
	inode = fdax_grab(fcd, ino);
	/* An inode being evicted has dropped its pages already. */
	if (!inode)
		return 0;
	mapping = inode->i_mapping;
	filemap_invalidate_lock(mapping);
	/* Unmaps the range from page tables, then looks for busy pages. */
	if (dax_layout_busy_page_range(mapping, file_off, end)) {
		ret = -EBUSY;
	} else {
		/*
		 * The DAX writeback itself, not filemap_fdatawrite_range():
		 * that returns at once when no entry of the file is tagged
		 * DIRTY, and an entry can keep a TOWRITE tag with no DIRTY
		 * (seen on 6.1 with a window of one range), which makes
		 * invalidate_inode_pages2_range() fail with -EBUSY on every
		 * try: the range could never be reclaimed.  This writeback
		 * walks the TOWRITE entries whatever the DIRTY tags say.
		 */
		ret = dax_writeback_mapping_range(mapping, fcd->dev, &wbc);
		if (!ret)
			ret = invalidate_inode_pages2_range(mapping,
							    file_off >> PAGE_SHIFT,
							    end >> PAGE_SHIFT);
	}
	filemap_invalidate_unlock(mapping);
	iput(inode);
	return ret;
}

static const struct dc_backend_ops fdax_ops = {
	.setup = fdax_setup,
	.remove = fdax_remove,
	.writeback = fdax_writeback,
};

/* --- connection ------------------------------------------------------------- */

/* One line of the window's counters, at unmount (the guest tests read it). */
static void fdax_report(struct fuse_conn_dax *fcd)
{
	struct dc_cache_stats st;

	if (dc_cache_stats(fcd->cache, &st, sizeof(st)))
		return;
	pr_info("fuse-dax: window of %llu ranges: %llu hits, %llu misses, %llu upgrades, %llu inline reclaims, %llu background reclaims, %llu removes sent, %llu skipped, %llu bypasses, %llu waits\n",
		st.nr_ranges, st.hits, st.misses, st.upgrades,
		st.inline_reclaims, st.bg_reclaims, st.removes_sent,
		st.removes_skipped, st.bypasses, st.waits);
}

/*
 * Drop every inode's dc_inode (their mappings are removed while the
 * connection still answers) and the cache.
 */
static void fdax_teardown(struct fuse_conn_dax *fcd)
{
	struct dc_inode *dci;
	struct inode *inode;
	unsigned long id;
	int ret;

	if (!fcd->cache)
		return;
	fdax_report(fcd);
	for (;;) {
		/* Under RCU: an inode being freed stays readable (i_callback). */
		rcu_read_lock();
		id = 0;
		inode = xa_find(&fcd->inodes, &id, ULONG_MAX, XA_PRESENT);
		dci = NULL;
		/* Whoever erases the entry puts the dc_inode. */
		if (inode && xa_cmpxchg(&fcd->inodes, id, inode, NULL, 0) == inode) {
			dci = get_fuse_inode(inode)->dax->dci;
			get_fuse_inode(inode)->dax->dci = NULL;
		}
		rcu_read_unlock();
		if (!inode)
			break;
		dc_inode_put(dci);
	}
	ret = dc_cache_destroy(fcd->cache);
	if (ret) {
		/* Pins still held: the cache stays, destroyed at conn free. */
		pr_warn("fuse-dax: window cache still pinned at unmount: %d\n", ret);
		return;
	}
	fcd->cache = NULL;
}

int fuse_dax_conn_alloc(struct fuse_conn *fc, enum fuse_dax_mode dax_mode,
			struct dax_device *dax_dev)
{
	struct dc_cache_config cfg;
	struct fuse_conn_dax *fcd;
	long pages;
	u64 window;
	int id, ret;

	fc->dax_mode = dax_mode;
	if (!dax_dev)
		return 0;

	id = dax_read_lock();
	pages = dax_direct_access(dax_dev, 0, LONG_MAX, DAX_ACCESS, NULL, NULL);
	dax_read_unlock(id);
	if (pages < 0)
		return pages;
	window = ((u64)pages << PAGE_SHIFT) & ~(FDAX_RANGE_SIZE - 1);
	if (!window)
		return -ENOSPC;

	fcd = kzalloc(sizeof(*fcd), GFP_KERNEL);
	if (!fcd)
		return -ENOMEM;
	fcd->dev = dax_dev;
	xa_init(&fcd->inodes);
	ret = dc_cache_config_init(&cfg, sizeof(cfg), window);
	if (!ret) {
		cfg.range_shift = FDAX_RANGE_SHIFT;
		cfg.flags = DC_CACHE_WRITEBACK_ALL;
		/*
		 * A write or a read that must map waits for a range as long
		 * as stock's does: until one comes free or a fatal signal
		 * (-EINTR); write() has no -ETIMEDOUT to give.
		 */
		cfg.wait_timeout_ns = DC_WAIT_FOREVER;
		ret = dc_cache_create(&cfg, sizeof(cfg), &fdax_ops, sizeof(fdax_ops),
				      fcd, &fcd->cache);
	}
	if (ret) {
		kfree(fcd);
		return ret;
	}
	pr_debug("fuse-dax: window of %llu ranges of 2 MiB\n",
		 window >> FDAX_RANGE_SHIFT);
	fc->dax = fcd;
	return 0;
}

void fuse_dax_conn_free(struct fuse_conn *fc)
{
	struct fuse_conn_dax *fcd = fc->dax;

	if (!fcd)
		return;
	/* Normally gone at unmount (fuse_dax_cancel_work()). */
	WRITE_ONCE(fcd->closed, true);
	fdax_teardown(fcd);
	if (fcd->cache)
		return;	/* leaked rather than freed under a pin */
	xa_destroy(&fcd->inodes);
	kfree(fcd);
	fc->dax = NULL;
}

/*
 * Unmount, before the last requests: the inodes are evicted later, once the
 * superblock is no longer active (fuse_dax_inode_cleanup() is not called
 * then), so their mappings go now, while REMOVEMAPPING is still answered.
 */
void fuse_dax_cancel_work(struct fuse_conn *fc)
{
	if (fc->dax)
		fdax_teardown(fc->dax);
}
EXPORT_SYMBOL_GPL(fuse_dax_cancel_work);

bool fuse_dax_check_alignment(struct fuse_conn *fc, unsigned int map_alignment)
{
	if (!fc->dax || map_alignment <= FDAX_RANGE_SHIFT)
		return true;
	pr_warn("fuse-dax: the server's map_alignment %u exceeds the 2 MiB ranges\n",
		map_alignment);
	return false;
}

/* --- inodes ------------------------------------------------------------------- */

bool fuse_dax_inode_alloc(struct super_block *sb, struct fuse_inode *fi)
{
	fi->dax = NULL;
	if (!get_fuse_conn_super(sb)->dax)
		return true;
	fi->dax = kzalloc(sizeof(*fi->dax), GFP_KERNEL_ACCOUNT);
	return fi->dax;
}

static int fdax_writepages(struct address_space *mapping,
			   struct writeback_control *wbc)
{
	struct fuse_conn *fc = get_fuse_conn(mapping->host);

	return dax_writeback_mapping_range(mapping, fc->dax->dev, wbc);
}

static const struct address_space_operations fdax_aops = {
	.writepages = fdax_writepages,
	.direct_IO = noop_direct_IO,
	.dirty_folio = noop_dirty_folio,
};

/* Whether the mount option and the server's attribute flag want DAX. */
static bool fdax_wanted(struct fuse_conn *fc, unsigned int flags)
{
	switch (fc->dax_mode) {
	case FUSE_DAX_NEVER:
		return false;
	case FUSE_DAX_ALWAYS:
		return fc->dax;
	default:
		return fc->dax && fc->inode_dax && (flags & FUSE_ATTR_DAX);
	}
}

void fuse_dax_inode_init(struct inode *inode, unsigned int flags)
{
	struct fuse_conn *fc = get_fuse_conn(inode);
	struct fuse_inode *fi = get_fuse_inode(inode);
	struct fuse_conn_dax *fcd = fc->dax;

	if (!fdax_wanted(fc, flags) || !fi->dax || !fcd->cache)
		return;
	cmpxchg(&fcd->fm, NULL, get_fuse_mount(inode));
	/* Without a dc_inode the file is simply not DAX. */
	if (dc_inode_get(fcd->cache, fi->nodeid, &fi->dax->dci))
		return;
	if (xa_err(xa_store(&fcd->inodes, fi->nodeid, inode, GFP_KERNEL))) {
		dc_inode_put(fi->dax->dci);
		fi->dax->dci = NULL;
		return;
	}
	inode->i_flags |= S_DAX;
	inode->i_data.a_ops = &fdax_aops;
}

/* Eviction, while the superblock is active: the inode's mappings go. */
void fuse_dax_inode_cleanup(struct inode *inode)
{
	struct fuse_inode *fi = get_fuse_inode(inode);
	struct fuse_conn_dax *fcd = get_fuse_conn(inode)->dax;
	struct dc_inode *dci;

	if (!fi->dax || !fcd)
		return;
	if (xa_cmpxchg(&fcd->inodes, fi->nodeid, inode, NULL, 0) != inode)
		return;	/* fdax_teardown() has it */
	dci = fi->dax->dci;
	fi->dax->dci = NULL;
	dc_inode_put(dci);
}

/* An inode whose DAX flag changed on the server is dropped from the cache. */
void fuse_dax_dontcache(struct inode *inode, unsigned int flags)
{
	struct fuse_conn *fc = get_fuse_conn(inode);
	bool want = flags & FUSE_ATTR_DAX;

	if (fuse_is_inode_dax_mode(fc->dax_mode) && want != IS_DAX(inode))
		d_mark_dontcache(inode);
}

/* --- iomap: a pin for the length of each step ----------------------------------- */

static int fdax_iomap_begin(struct inode *inode, loff_t pos, loff_t length,
			    unsigned int flags, struct iomap *iomap,
			    struct iomap *srcmap)
{
	struct fuse_conn_dax *fcd = get_fuse_conn(inode)->dax;
	struct dc_inode *dci = get_fuse_inode(inode)->dax->dci;
	loff_t size = i_size_read(inode);
	unsigned int mflags = 0;
	struct dc_pin pin;
	loff_t len;
	int ret;

	iomap->offset = pos;
	iomap->flags = 0;
	iomap->bdev = NULL;
	iomap->dax_dev = fcd->dev;
	iomap->private = NULL;
	if (pos >= size) {
		/* Beyond the end: a hole (extending writes do not come here). */
		iomap->addr = IOMAP_NULL_ADDR;
		iomap->length = length;
		iomap->type = IOMAP_HOLE;
		return 0;
	}
	if (!dci)
		return -EIO;
	if (flags & IOMAP_WRITE)
		mflags |= DC_MAP_WRITE;
	/* A fault holds its invalidate_lock: it must not wait for the library. */
	if (flags & IOMAP_FAULT)
		mflags |= DC_MAP_NOWAIT | DC_MAP_NORECLAIM;
	/* read() (fuse_dax_read_iter()) can do without the window. */
	if (!(flags & (IOMAP_WRITE | IOMAP_FAULT)) && READ_ONCE(dax_bypass))
		mflags |= DC_MAP_MAY_BYPASS;
	ret = dc_map(dci, pos, mflags, &pin);
	if (ret) {
		/* Admission control: read this range with FUSE_READ. */
		if (ret == DC_MAP_BYPASS)
			return FDAX_BYPASS;
		return ret < 0 ? ret : -EIO;
	}
	len = min_t(u64, length, pin.len);
	if (pos + len > size)
		len = size - pos;
	if (flags & IOMAP_FAULT)
		len = ALIGN(len, PAGE_SIZE);
	iomap->addr = pin.win_off;
	iomap->length = len;
	iomap->type = IOMAP_MAPPED;
	/* Held until iomap_end: no struct dc_pin to allocate per step. */
	iomap->private = dc_pin_stow(&pin);
	return 0;
}

static int fdax_iomap_end(struct inode *inode, loff_t pos, loff_t length,
			  ssize_t written, unsigned int flags,
			  struct iomap *iomap)
{
	dc_unpin_stowed(iomap->private);
	iomap->private = NULL;
	return 0;
}

static const struct iomap_ops fdax_iomap_ops = {
	.iomap_begin = fdax_iomap_begin,
	.iomap_end = fdax_iomap_end,
};

/* --- read, write ------------------------------------------------------------------ */

/*
 * Read the rest of the range at iocb->ki_pos (at most) with FUSE_READ: a
 * range the library's admission control would not map now.  The window
 * maps the server's file, so the two ways agree.
 */
static ssize_t fdax_read_bypass(struct kiocb *iocb, struct iov_iter *to)
{
	struct fuse_io_priv io = FUSE_IO_PRIV_SYNC(iocb);
	size_t left = iov_iter_count(to);
	size_t n = FDAX_RANGE_SIZE - (iocb->ki_pos & (FDAX_RANGE_SIZE - 1));
	ssize_t ret;

	if (n < left)
		iov_iter_truncate(to, n);
	else
		n = left;
	ret = fuse_direct_io(&io, to, &iocb->ki_pos, 0);
	iov_iter_reexpand(to, iov_iter_count(to) + left - n);
	return ret;
}

ssize_t fuse_dax_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret = 0, done = 0;

	if (!(iocb->ki_flags & IOCB_NOWAIT))
		inode_lock_shared(inode);
	else if (!inode_trylock_shared(inode))
		return -EAGAIN;
	/* Through the window up to a range it refuses, that one without, on. */
	while (iov_iter_count(to)) {
		ret = dax_iomap_rw(iocb, to, &fdax_iomap_ops);
		if (ret == FDAX_BYPASS)
			ret = fdax_read_bypass(iocb, to);
		if (ret <= 0)
			break;
		done += ret;
	}
	inode_unlock_shared(inode);
	return done ? done : ret;
}

/*
 * A write that ends past the end of the file goes to the server as a
 * FUSE_WRITE: the size changes there with the data, and the window never
 * maps beyond the end.
 */
static bool fdax_write_extends(struct kiocb *iocb, struct iov_iter *from)
{
	return iocb->ki_pos + iov_iter_count(from) >
	       i_size_read(file_inode(iocb->ki_filp));
}

ssize_t fuse_dax_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret;
	int err;

	if (!(iocb->ki_flags & IOCB_NOWAIT))
		inode_lock(inode);
	else if (!inode_trylock(inode))
		return -EAGAIN;
	ret = generic_write_checks(iocb, from);
	if (ret > 0) {
		err = file_remove_privs(iocb->ki_filp);
		if (err)
			ret = err;
	}
	if (ret > 0) {
		if (fdax_write_extends(iocb, from)) {
			struct fuse_io_priv io = FUSE_IO_PRIV_SYNC(iocb);

			ret = fuse_direct_io(&io, from, &iocb->ki_pos,
					     FUSE_DIO_WRITE);
			fuse_write_update_attr(inode, iocb->ki_pos, ret);
		} else {
			ret = dax_iomap_rw(iocb, from, &fdax_iomap_ops);
		}
	}
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
}

/* --- mmap and faults ----------------------------------------------------------------- */

static vm_fault_t fdax_fault(struct vm_fault *vmf, enum page_entry_size pe_size,
			     bool write)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	struct address_space *mapping = inode->i_mapping;
	struct fuse_conn_dax *fcd = get_fuse_conn(inode)->dax;
	struct dc_inode *dci = get_fuse_inode(inode)->dax->dci;
	loff_t pos = (loff_t)vmf->pgoff << PAGE_SHIFT;
	struct dc_pin early = {};
	unsigned int tries = 0;
	vm_fault_t ret;
	pfn_t pfn;
	int err;

	if (write)
		sb_start_pagefault(inode->i_sb);
	/*
	 * Pin the range before the invalidate_lock, where the miss may
	 * reclaim inline and wait for a free range: iomap_begin then finds
	 * it mapped (a hit, no lock).  On any error it stays unpinned and
	 * iomap_begin's own map decides.
	 */
	if (dci && pos < i_size_read(inode))
		dc_map(dci, pos, write ? DC_MAP_WRITE : 0, &early);
	for (;; tries++) {
		err = 0;
		filemap_invalidate_lock_shared(mapping);
		ret = dax_iomap_fault(vmf, pe_size, &pfn, &err, &fdax_iomap_ops);
		if (!(ret & VM_FAULT_ERROR) || err != -EAGAIN)
			break;
		/*
		 * No free range, or the library's lock of the inode was
		 * taken (a reclaim waiting for this invalidate_lock, say):
		 * wait unlocked for a free range, and a tick if it was the
		 * lock again.
		 */
		filemap_invalidate_unlock_shared(mapping);
		if (fatal_signal_pending(current)) {
			ret = VM_FAULT_SIGBUS;
			goto out;
		}
		dc_wait_free(fcd->cache, FDAX_FAULT_WAIT_NS);
		if (tries)
			schedule_timeout_uninterruptible(1);
		else
			cond_resched();
	}
	if (ret & VM_FAULT_NEEDDSYNC)
		ret = dax_finish_sync_fault(vmf, pe_size, pfn);
	filemap_invalidate_unlock_shared(mapping);
out:
	dc_unpin(&early);
	if (write)
		sb_end_pagefault(inode->i_sb);
	return ret;
}

static vm_fault_t fdax_vm_fault(struct vm_fault *vmf)
{
	return fdax_fault(vmf, PE_SIZE_PTE, vmf->flags & FAULT_FLAG_WRITE);
}

static vm_fault_t fdax_vm_huge_fault(struct vm_fault *vmf,
				     enum page_entry_size pe_size)
{
	return fdax_fault(vmf, pe_size, vmf->flags & FAULT_FLAG_WRITE);
}

static vm_fault_t fdax_vm_mkwrite(struct vm_fault *vmf)
{
	return fdax_fault(vmf, PE_SIZE_PTE, true);
}

static const struct vm_operations_struct fdax_vm_ops = {
	.fault = fdax_vm_fault,
	.huge_fault = fdax_vm_huge_fault,
	.page_mkwrite = fdax_vm_mkwrite,
	.pfn_mkwrite = fdax_vm_mkwrite,
};

int fuse_dax_mmap(struct file *file, struct vm_area_struct *vma)
{
	file_accessed(file);
	vma->vm_ops = &fdax_vm_ops;
	vma->vm_flags |= VM_MIXEDMAP | VM_HUGEPAGE;
	return 0;
}

/* --- layouts ------------------------------------------------------------------------ */

/*
 * Wait until no page of [@start, @end] is in use beyond its mapping (a
 * get_user_pages() reference), with the invalidate_lock held for writing
 * (truncate, fallocate): it is let go while waiting.
 */
int fuse_dax_break_layouts(struct inode *inode, u64 start, u64 end)
{
	struct address_space *mapping = inode->i_mapping;
	struct page *page;
	int ret;

	while ((page = dax_layout_busy_page_range(mapping, start, end))) {
		filemap_invalidate_unlock(mapping);
		ret = wait_var_event_interruptible(&page->_refcount,
						   page_ref_count(page) == 1);
		filemap_invalidate_lock(mapping);
		if (ret)
			return ret;
	}
	return 0;
}
