/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/mmap_backend.h - a real backend for the DAX window cache, in
 * userspace: file ranges are mapped into a window with mmap(MAP_FIXED).
 *
 * dc_mmapbe_create() reserves a window of @window_size bytes of address
 * space (anonymous, PROT_NONE).  The caller registers the files it will map
 * (a cache inode id -> an open file descriptor) and passes dc_mmapbe_ops()
 * and the struct dc_mmapbe as ops and priv to dc_cache_create().  Then:
 *
 * - setup maps the file range with mmap(MAP_SHARED | MAP_FIXED) at
 *   window + win_off, PROT_READ, or PROT_READ | PROT_WRITE for DC_MAP_WRITE
 *   (the descriptor must then be open O_RDWR);
 * - remove maps anonymous PROT_NONE memory over each entry's window range;
 * - writeback is msync(MS_SYNC) of the window range.
 *
 * A range that starts before the end of the file but runs past it is mapped
 * whole (as mmap allows); touching pages of it past the end of the file
 * raises SIGBUS, so callers must not read or write past the end of the file
 * through the window (and must not truncate a file that has mappings; punch
 * them first).  A range that starts at or past the end of the file is
 * refused with -ENXIO.
 *
 * The descriptor stays the caller's: it must stay open until
 * dc_mmapbe_remove_file(), and a file must only be removed when the cache
 * can no longer set up mappings of it (after the last dc_inode_put()).
 * Every function may be called from several threads at once.
 *
 * Userspace only.
 */
#ifndef DAXCACHE_MMAP_BACKEND_H
#define DAXCACHE_MMAP_BACKEND_H

#include <stdint.h>

#include <daxcache/cache.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dc_mmapbe;

/**
 * dc_mmapbe_create() - reserve a window of address space.
 * @window_size: bytes; a non-zero multiple of the range size.
 * @range_shift: log2 of the range size, 12..40, and at least the page size.
 * @out: receives the backend.
 *
 * Context: process context.
 * Return: 0; -EINVAL for a bad size or shift or a NULL @out; -ENOMEM, or
 * the error of mmap() reserving the window.
 */
int dc_mmapbe_create(uint64_t window_size, unsigned int range_shift,
		     struct dc_mmapbe **out);

/**
 * dc_mmapbe_destroy() - unmap the window and free the backend.
 * @be: the backend, or NULL.
 *
 * The cache using it must have been destroyed first.  Registered
 * descriptors are not closed.
 *
 * Context: process context.
 */
void dc_mmapbe_destroy(struct dc_mmapbe *be);

/**
 * dc_mmapbe_window() - the base address of the window.
 * @be: the backend.
 *
 * A pin's win_off is an offset from this address.
 *
 * Context: any.
 * Return: the base address.
 */
void *dc_mmapbe_window(const struct dc_mmapbe *be);

/**
 * dc_mmapbe_ops() - the backend operations for dc_cache_create().
 *
 * Context: any.
 * Return: a static table; pass the struct dc_mmapbe as priv.
 */
const struct dc_backend_ops *dc_mmapbe_ops(void);

/**
 * dc_mmapbe_add_file() - register @fd as the file of inode id @ino.
 * @be: the backend.
 * @ino: the cache inode id.
 * @fd: an open descriptor of a regular file (O_RDWR for writable maps).
 *
 * Context: process context.
 * Return: 0; -EINVAL for a NULL @be; -EBADF if @fd is not an open
 * descriptor; -EINVAL if it is not a regular file; -EEXIST if @ino is
 * already registered; -ENOMEM.
 */
int dc_mmapbe_add_file(struct dc_mmapbe *be, uint64_t ino, int fd);

/**
 * dc_mmapbe_remove_file() - forget the file of inode id @ino.
 * @be: the backend.
 * @ino: the cache inode id.
 *
 * Existing mappings are left alone; see the header comment for when this
 * may be called.  The descriptor is not closed.
 *
 * Context: process context.
 * Return: 0; -EINVAL for a NULL @be; -ENOENT if @ino is not registered.
 */
int dc_mmapbe_remove_file(struct dc_mmapbe *be, uint64_t ino);

/*
 * Errors of the operations (seen as the return of dc_map() for setup):
 * -EINVAL  offsets or length not aligned to the range size, or outside the
 *          window;
 * -ENOENT  no file registered for the inode id;
 * -EBADF   the registered descriptor is no longer open;
 * -ENXIO   the range starts at or past the end of the file;
 * -EACCES  DC_MAP_WRITE on a descriptor not open for writing (from mmap);
 * other    the error of fstat(), mmap() or msync().
 */

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_MMAP_BACKEND_H */
