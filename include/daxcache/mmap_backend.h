/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/mmap_backend.h - a real backend for the DAX window cache, in
 * userspace: file ranges are mapped into a window with mmap(MAP_FIXED).
 *
 * dc_mmapbe_create() reserves a window of window_size bytes of address
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
 * raises SIGBUS.  A range that starts at or past the end of the file is
 * refused with -ENXIO.  A program should not read or write past the end of
 * the file through the window, and should punch the mappings of a file
 * before it truncates it itself; but any other process may truncate the
 * file behind its back.  Copy through the window with dc_mmapbe_read() and
 * dc_mmapbe_write(): a copy that touches a page the file no longer has
 * fails with -EIO instead of killing the program.
 *
 * SIGBUS: the first dc_mmapbe_create() installs a process-wide SIGBUS
 * handler (once; it stays installed after dc_mmapbe_destroy()).  A SIGBUS
 * that is not a fault of one of those copies inside the window span it
 * copies (a fault anywhere else, raise(), kill()) goes to the action that
 * was installed before: a handler is called as the kernel would call it
 * (SA_SIGINFO, its sa_mask, SA_NODEFER, SA_RESETHAND honoured), SIG_IGN
 * ignores a SIGBUS sent by a process, and otherwise the default action
 * terminates the process (the backend's handler takes SA_ONSTACK and
 * SA_RESTART from that action, too).  A program that installs its own SIGBUS handler
 * should do so before the first dc_mmapbe_create(); one installed later
 * replaces the backend's, and then copies are unprotected unless it calls
 * the action it replaced (with SA_SIGINFO's three arguments) for the faults
 * it does not handle.  Saving and restoring the handler with signal(), as
 * some test frameworks do around each test, loses SA_SIGINFO and breaks
 * it.  The program's handler may leave with siglongjmp() when it gets a
 * fault that happened inside a copy but is not the copy's (in the caller's
 * buffer, say): the copy is then abandoned cleanly.  A copy that fails
 * with -EIO leaves the signal mask as it was.
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

#include <stddef.h>
#include <stdint.h>

#include <daxcache/cache.h>
#include <daxcache/sized.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dc_mmapbe;

/**
 * struct dc_mmapbe_config - the window of an mmap backend.
 * @window_size: bytes; a non-zero multiple of the range size.
 * @range_shift: log2 of the range size, 12..40, and at least the page size
 *	(the cache's range_shift).
 *
 * Passed with its size (see daxcache/daxcache.h); new members are only
 * ever appended.
 */
struct dc_mmapbe_config {
	uint64_t window_size;
	unsigned int range_shift;
};

/* The first layout of struct dc_mmapbe_config: up to @range_shift. */
#define DC_MMAPBE_CONFIG_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_mmapbe_config, range_shift)

/**
 * dc_mmapbe_create() - reserve a window of address space.
 * @cfg: the window's size and range size (copied).
 * @size: sizeof(*@cfg) as the caller knows it.
 * @out: receives the backend.
 *
 * The first call in the process installs the SIGBUS handler of
 * dc_mmapbe_read() and dc_mmapbe_write() (see the header comment).
 *
 * Context: process context.
 * Return: 0; -EINVAL for a bad size or shift, a NULL @cfg or @out, or
 * @size below DC_MMAPBE_CONFIG_SIZE_VER0; -E2BIG when @cfg is larger than
 * this library knows and the rest is not zero; -ENOMEM, or the error of
 * mmap() reserving the window or of sigaction().
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_mmapbe_create(const struct dc_mmapbe_config *cfg, size_t size,
		     struct dc_mmapbe **out);

/**
 * dc_mmapbe_destroy() - unmap the window and free the backend.
 * @be: the backend, or NULL.
 *
 * The cache using it must have been destroyed first.  Registered
 * descriptors are not closed.
 *
 * Context: process context.
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): returns
 * at once, the object left to the exit.
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
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
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
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_mmapbe_remove_file(struct dc_mmapbe *be, uint64_t ino);

/**
 * dc_mmapbe_read() - copy from a pinned window range into a buffer.
 * @be: the backend the pin's cache uses.
 * @pin: a pin from dc_map(), held across the call.
 * @off: where to start, in bytes from the pinned position (@pin->win_off).
 * @buf: the destination.
 * @len: bytes to copy; @off + @len must not exceed @pin->len.
 *
 * Copies window bytes [@pin->win_off + @off, + @len) to @buf, and survives
 * the file having been truncated behind the mapping (by any process): a
 * page of the copy that is past the end of the file raises SIGBUS, which
 * ends this call with -EIO and nothing else.  The call is all or nothing
 * as far as its return says: after -EIO, @buf holds an unspecified part of
 * the bytes (those copied before the fault); read the file with pread()
 * to learn its new size and contents.  A fault in @buf itself is not the
 * copy's: it reaches the program's SIGBUS action.
 *
 * Costs one sigsetjmp() that saves no signal mask (no system call) on top
 * of the memcpy().
 *
 * Context: any thread, also a signal handler (async-signal-safe), without
 * dc_thread_register().  SIGBUS must not be blocked in the calling thread
 * (the kernel kills a process that faults with SIGBUS blocked: so not from
 * a SIGBUS handler installed without SA_NODEFER), and the handler of
 * another signal that interrupts a copy must not leave it with
 * siglongjmp().
 * Return: 0 when all @len bytes were copied (also for @len 0); -EIO if the
 * copy touched a window page whose file page no longer exists (or a memory
 * error); -EINVAL for a NULL @be or @pin, a NULL @buf with a non-zero
 * @len, or a span outside the pin or the window.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_mmapbe_read(const struct dc_mmapbe *be, const struct dc_pin *pin,
		   uint64_t off, void *buf, size_t len);

/**
 * dc_mmapbe_write() - copy from a buffer into a pinned writable range.
 * @be: the backend the pin's cache uses.
 * @pin: a pin from dc_map() with DC_MAP_WRITE, held across the call.
 * @off: where to start, in bytes from the pinned position (@pin->win_off).
 * @buf: the source.
 * @len: bytes to copy; @off + @len must not exceed @pin->len.
 *
 * The write twin of dc_mmapbe_read(): a page past the end of the file
 * (truncated behind the mapping) ends the call with -EIO.  After -EIO an
 * unspecified part of @buf (bytes before the fault) may have reached the
 * file; write it with pwrite() to extend the file again if that is meant.
 *
 * Context: as dc_mmapbe_read().
 * Return: 0 when all @len bytes were copied; -EIO as dc_mmapbe_read();
 * -EPERM if @pin is not writable; -EINVAL as dc_mmapbe_read().
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_mmapbe_write(const struct dc_mmapbe *be, const struct dc_pin *pin,
		    uint64_t off, const void *buf, size_t len);

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
