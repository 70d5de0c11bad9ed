// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mmap_backend.c - the mmap window backend (see include/daxcache/mmap_backend.h).
 *
 * Userspace only: this file is not part of the kernel build.
 *
 * The file table is a small array searched linearly under a mutex; the
 * mutex is held only to look up a descriptor, never across a system call,
 * so setups of different ranges run in parallel.  The cache never runs two
 * operations on one window range at once, and MAP_FIXED replaces whatever
 * was there atomically, so the window needs no lock of its own.
 */
#include "platform.h"

#include <daxcache/mmap_backend.h>

#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MMAPBE_MIN_SHIFT	12u
#define MMAPBE_MAX_SHIFT	40u

struct mmapbe_file {
	uint64_t ino;
	int fd;
};

struct dc_mmapbe {
	unsigned char *base;
	uint64_t window_size;
	uint64_t range_size;
	dc_mutex_t lock;		/* guards files, nr_files, cap_files */
	struct mmapbe_file *files;
	size_t nr_files;
	size_t cap_files;
};

/* Called with be->lock held. */
static struct mmapbe_file *mmapbe_find(struct dc_mmapbe *be, uint64_t ino)
{
	size_t i;

	for (i = 0; i < be->nr_files; i++)
		if (be->files[i].ino == ino)
			return &be->files[i];
	return NULL;
}

/* A window range: aligned to the range size and inside the window. */
static bool mmapbe_range_ok(const struct dc_mmapbe *be, uint64_t win_off,
			    uint64_t len)
{
	uint64_t mask = be->range_size - 1;

	return len && !(win_off & mask) && !(len & mask) &&
	       win_off < be->window_size && len <= be->window_size - win_off;
}

/* Put PROT_NONE anonymous memory back over a window range. */
static int mmapbe_reserve(struct dc_mmapbe *be, uint64_t win_off, uint64_t len)
{
	void *p = mmap(be->base + win_off, len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? -errno : 0;
}

static int mmapbe_setup(void *priv, uint64_t ino, uint64_t file_off,
			uint64_t win_off, uint64_t len, unsigned int flags)
{
	struct dc_mmapbe *be = priv;
	struct mmapbe_file *f;
	struct stat st;
	int prot = PROT_READ;
	void *p;
	int fd, ret;

	if (!be || !mmapbe_range_ok(be, win_off, len) ||
	    (file_off & (be->range_size - 1)) || file_off > (uint64_t)INT64_MAX)
		return -EINVAL;
	dc_mutex_lock(&be->lock);
	f = mmapbe_find(be, ino);
	fd = f ? f->fd : -1;
	dc_mutex_unlock(&be->lock);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st))
		return -errno;
	if ((int64_t)file_off >= (int64_t)st.st_size)
		return -ENXIO;
	if (flags & DC_MAP_WRITE)
		prot |= PROT_WRITE;
	p = mmap(be->base + win_off, len, prot, MAP_SHARED | MAP_FIXED, fd,
		 (off_t)file_off);
	if (p == MAP_FAILED) {
		ret = -errno;
		/*
		 * A failed MAP_FIXED may have unmapped the old range: reserve
		 * it again so that nothing else is placed in the window.
		 */
		mmapbe_reserve(be, win_off, len);
		return ret;
	}
	return 0;
}

static int mmapbe_remove(void *priv, const struct dc_remove_entry *entries,
			 unsigned int n)
{
	struct dc_mmapbe *be = priv;
	unsigned int i;
	int ret = 0, err;

	if (!be || (n && !entries))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!mmapbe_range_ok(be, entries[i].win_off, entries[i].len)) {
			ret = ret ? ret : -EINVAL;
			continue;
		}
		err = mmapbe_reserve(be, entries[i].win_off, entries[i].len);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

static int mmapbe_writeback(void *priv, uint64_t ino, uint64_t file_off,
			    uint64_t len, uint64_t win_off)
{
	struct dc_mmapbe *be = priv;

	if (!be || !mmapbe_range_ok(be, win_off, len))
		return -EINVAL;
	if (msync(be->base + win_off, len, MS_SYNC))
		return -errno;
	return 0;
}

static const struct dc_backend_ops mmapbe_ops = {
	.setup = mmapbe_setup,
	.remove = mmapbe_remove,
	.writeback = mmapbe_writeback,
};

DC_EXPORT const struct dc_backend_ops *dc_mmapbe_ops(void)
{
	return &mmapbe_ops;
}

DC_EXPORT int dc_mmapbe_create(uint64_t window_size, unsigned int range_shift,
			       struct dc_mmapbe **out)
{
	long page = sysconf(_SC_PAGESIZE);
	struct dc_mmapbe *be;
	uint64_t rsize;
	void *p;
	int ret;

	if (!out || range_shift < MMAPBE_MIN_SHIFT ||
	    range_shift > MMAPBE_MAX_SHIFT)
		return -EINVAL;
	rsize = 1ull << range_shift;
	if (page > 0 && rsize < (uint64_t)page)
		return -EINVAL;
	if (!window_size || (window_size & (rsize - 1)) ||
	    window_size > (uint64_t)SIZE_MAX)
		return -EINVAL;
	be = dc_zalloc(sizeof(*be));
	if (!be)
		return -ENOMEM;
	p = mmap(NULL, window_size, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		dc_free(be);
		return ret;
	}
	be->base = p;
	be->window_size = window_size;
	be->range_size = rsize;
	dc_mutex_init(&be->lock);
	*out = be;
	return 0;
}

DC_EXPORT void dc_mmapbe_destroy(struct dc_mmapbe *be)
{
	if (!be)
		return;
	munmap(be->base, be->window_size);
	dc_mutex_destroy(&be->lock);
	dc_free(be->files);
	dc_free(be);
}

DC_EXPORT void *dc_mmapbe_window(const struct dc_mmapbe *be)
{
	return be ? be->base : NULL;
}

DC_EXPORT int dc_mmapbe_add_file(struct dc_mmapbe *be, uint64_t ino, int fd)
{
	struct mmapbe_file *files;
	struct stat st;
	int ret = 0;

	if (!be)
		return -EINVAL;
	if (fd < 0 || fstat(fd, &st))
		return -EBADF;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	dc_mutex_lock(&be->lock);
	if (mmapbe_find(be, ino)) {
		ret = -EEXIST;
		goto out;
	}
	if (be->nr_files == be->cap_files) {
		size_t cap = be->cap_files ? 2 * be->cap_files : 8;

		/* dc_alloc, not realloc: every allocation has a fault site. */
		files = dc_alloc(cap * sizeof(*files));
		if (!files) {
			ret = -ENOMEM;
			goto out;
		}
		if (be->nr_files)
			memcpy(files, be->files, be->nr_files * sizeof(*files));
		dc_free(be->files);
		be->files = files;
		be->cap_files = cap;
	}
	be->files[be->nr_files].ino = ino;
	be->files[be->nr_files].fd = fd;
	be->nr_files++;
out:
	dc_mutex_unlock(&be->lock);
	return ret;
}

DC_EXPORT int dc_mmapbe_remove_file(struct dc_mmapbe *be, uint64_t ino)
{
	struct mmapbe_file *f;
	int ret = 0;

	if (!be)
		return -EINVAL;
	dc_mutex_lock(&be->lock);
	f = mmapbe_find(be, ino);
	if (f)
		*f = be->files[--be->nr_files];
	else
		ret = -ENOENT;
	dc_mutex_unlock(&be->lock);
	return ret;
}
