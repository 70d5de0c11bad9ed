// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fsops.c - the FUSE operations on files and their attributes (lookup,
 * getattr, setattr, open, create, release, access, lseek, statfs, xattrs,
 * fallocate, copy_file_range), and the table of every operation.
 */
#include "daxfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

static void dfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	int err = dfs_do_lookup(dfs_get_node(parent), name, &e);

	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_entry(req, &e);
}

static void dfs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	dfs_forget_node(dfs_get_node(ino), nlookup);
	fuse_reply_none(req);
}

static void dfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dfs_node *n = dfs_get_node(ino);
	struct stat st;
	int err;

	if (n == &dfs_stats_node) {
		dfs_stats_attr(&st);
		fuse_reply_attr(req, &st, 0);
		return;
	}
	err = dfs_stat_fd(n->path_fd, &st);
	st.st_ino = (ino_t)n->fino;
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_attr(req, &st, DAXFS_TIMEOUT_S);
}

/* Truncate the source of @n to @size through @fd (< 0: a new O_WRONLY one). */
static int do_truncate(struct dfs_node *n, int fd, off_t size)
{
	bool own = fd < 0;
	int err;

	if (own)
		fd = dfs_reopen(n, O_WRONLY);
	if (fd < 0)
		return -errno;
	pthread_rwlock_wrlock(&n->io_lock);
	err = dfs_punch_window(n, size);
	if (!err && ftruncate(fd, size))
		err = -errno;
	pthread_rwlock_unlock(&n->io_lock);
	if (own)
		close(fd);
	return err;
}

static void dfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
			int valid, struct fuse_file_info *fi)
{
	struct dfs_node *n = dfs_get_node(ino);
	char path[64];
	int err = 0;

	if (dfs_stats_refuse(req, n, EPERM))
		return;
	dfs_proc_path(n, path, sizeof(path));
	if ((valid & FUSE_SET_ATTR_MODE) && chmod(path, attr->st_mode))
		err = -errno;
	if (!err && (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID))) {
		uid_t uid = (valid & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1;
		gid_t gid = (valid & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1;

		if (fchownat(n->path_fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
			err = -errno;
	}
	if (!err && (valid & FUSE_SET_ATTR_SIZE))
		err = do_truncate(n, fi ? (int)fi->fh : -1, attr->st_size);
	if (!err && (valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME))) {
		struct timespec ts[2] = {
			{ .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT },
		};

		if (valid & FUSE_SET_ATTR_ATIME_NOW)
			ts[0].tv_nsec = UTIME_NOW;
		else if (valid & FUSE_SET_ATTR_ATIME)
			ts[0] = attr->st_atim;
		if (valid & FUSE_SET_ATTR_MTIME_NOW)
			ts[1].tv_nsec = UTIME_NOW;
		else if (valid & FUSE_SET_ATTR_MTIME)
			ts[1] = attr->st_mtim;
		if (utimensat(AT_FDCWD, path, ts, 0))
			err = -errno;
	}
	if (err) {
		fuse_reply_err(req, -err);
		return;
	}
	atomic_store_explicit(&n->atime_due, true, memory_order_relaxed);
	dfs_getattr(req, ino, fi);
}

static void setup_open(struct dfs_node *n, struct fuse_file_info *fi, int fd)
{
	fi->fh = (uint64_t)fd;
	atomic_store_explicit(&n->atime_due, true, memory_order_relaxed);
	if (dfs_opt.direct_io)
		fi->direct_io = 1;
}

static void dfs_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		       mode_t mode, struct fuse_file_info *fi)
{
	struct dfs_node *p = dfs_get_node(parent), *n;
	struct fuse_entry_param e;
	int fd, err;

	/*
	 * The file may exist (made in SRC, or by a racing create) and be open
	 * and mapped: truncate it as do_truncate() does, not with O_TRUNC.
	 */
	err = dfs_caller_creds_enter(req);
	if (err) {
		fuse_reply_err(req, -err);
		return;
	}
	fd = openat(p->path_fd, name,
		    (fi->flags | O_CREAT) & ~(O_NOFOLLOW | O_DIRECT | O_TRUNC), mode);
	err = fd < 0 ? errno : 0;
	dfs_caller_creds_exit();
	if (fd < 0) {
		fuse_reply_err(req, err);
		return;
	}
	err = dfs_do_lookup(p, name, &e);
	if (err)
		goto fail;
	n = dfs_get_node(e.ino);
	if (fi->flags & O_TRUNC) {
		err = do_truncate(n, (fi->flags & O_ACCMODE) == O_RDONLY ? -1 : fd, 0);
		if (err) {
			dfs_forget_node(n, 1);
			goto fail;
		}
	}
	err = dfs_dax_attach(n);
	if (err) {
		dfs_forget_node(n, 1);
		goto fail;
	}
	setup_open(n, fi, fd);
	fuse_reply_create(req, &e, fi);
	return;
fail:
	close(fd);
	fuse_reply_err(req, -err);
}

/*
 * Open the source of @n with @flags: a descriptor or -errno.  libfuse asks
 * for atomic O_TRUNC, so an open(O_TRUNC) arrives here, not as a setattr:
 * truncate as do_truncate() does, with the I/O lock held exclusive and the
 * window punched first, or a read running beside it copies from pages past
 * the new end of the file (dfs_punch_window() also makes the cached size
 * stale).
 */
static int open_source(struct dfs_node *n, int flags)
{
	int fd, err;

	if (!(flags & O_TRUNC)) {
		fd = dfs_reopen(n, flags);
		return fd < 0 ? -errno : fd;
	}
	pthread_rwlock_wrlock(&n->io_lock);
	err = dfs_punch_window(n, 0);
	if (!err) {
		fd = dfs_reopen(n, flags);
		if (fd < 0)
			err = -errno;
	}
	pthread_rwlock_unlock(&n->io_lock);
	return err ? err : fd;
}

static void dfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dfs_node *n = dfs_get_node(ino);
	int fd, err;

	if (n == &dfs_stats_node) {
		dfs_stats_open(req, fi);
		return;
	}
	fd = open_source(n, fi->flags);
	if (fd < 0) {
		fuse_reply_err(req, -fd);
		return;
	}
	err = dfs_dax_attach(n);
	if (err) {
		close(fd);
		fuse_reply_err(req, -err);
		return;
	}
	setup_open(n, fi, fd);
	fuse_reply_open(req, fi);
}

static void dfs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dfs_node *n = dfs_get_node(ino);

	if (n == &dfs_stats_node) {
		dfs_stats_release(fi);
	} else {
		close((int)fi->fh);
		dfs_dax_detach(n);
	}
	fuse_reply_err(req, 0);
}

static void dfs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

/*
 * access() and chdir() without -o default_permissions: the source decides,
 * for the caller's credentials.  Without .access the kernel, answered
 * ENOSYS once, allows every access() from then on.  (With
 * default_permissions the kernel checks the mode itself and never asks.)
 */
static void dfs_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct dfs_node *n = dfs_get_node(ino);
	char path[64];
	int err;

	if (n == &dfs_stats_node) {
		fuse_reply_err(req, mask & W_OK ? EACCES : 0);
		return;
	}
	dfs_proc_path(n, path, sizeof(path));
	err = dfs_caller_creds_enter(req);
	if (!err) {
		/* AT_EACCESS: check with the fsuid and fsgid just set. */
		err = faccessat(AT_FDCWD, path, mask, dfs_as_root ? AT_EACCESS : 0) ? errno : 0;
		dfs_caller_creds_exit();
	} else {
		err = -err;
	}
	fuse_reply_err(req, err);
}

/*
 * SEEK_DATA and SEEK_HOLE, answered by the source (SEEK_SET, SEEK_CUR and
 * SEEK_END the kernel answers itself).  Without .lseek the kernel, answered
 * ENOSYS once, treats every file as data without a hole.
 */
static void dfs_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		      struct fuse_file_info *fi)
{
	off_t r;

	if (dfs_get_node(ino) == &dfs_stats_node)
		r = dfs_stats_seek((struct dfs_file *)(uintptr_t)fi->fh, off, whence);
	else
		r = lseek((int)fi->fh, off, whence);
	if (r < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_lseek(req, r);
}

static void dfs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs sv;

	if (fstatvfs(dfs_root.path_fd, &sv))
		fuse_reply_err(req, errno);
	else
		fuse_reply_statfs(req, &sv);
}

/*
 * Reply with the @size bytes an xattr call needs (@size 0) or got (@buf).
 * Extended attributes go through dfs_proc_path(): f*xattr() refuse O_PATH.
 */
static void reply_xattr(fuse_req_t req, const char *buf, size_t size, ssize_t len)
{
	if (len < 0)
		fuse_reply_err(req, errno);
	else if (!size)
		fuse_reply_xattr(req, (size_t)len);
	else
		fuse_reply_buf(req, buf, (size_t)len);
}

static void dfs_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct dfs_node *n = dfs_get_node(ino);
	char path[64], *buf = NULL;

	if (dfs_stats_refuse(req, n, ENODATA))
		return;
	if (size && !(buf = malloc(size))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	dfs_proc_path(n, path, sizeof(path));
	reply_xattr(req, buf, size, getxattr(path, name, buf, size));
	free(buf);
}

static void dfs_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct dfs_node *n = dfs_get_node(ino);
	char path[64], *buf = NULL;

	if (n == &dfs_stats_node) {
		reply_xattr(req, NULL, size, 0);
		return;
	}
	if (size && !(buf = malloc(size))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	dfs_proc_path(n, path, sizeof(path));
	reply_xattr(req, buf, size, listxattr(path, buf, size));
	free(buf);
}

static void dfs_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			 const char *value, size_t size, int flags)
{
	struct dfs_node *n = dfs_get_node(ino);
	char path[64];

	if (dfs_stats_refuse(req, n, EPERM))
		return;
	dfs_proc_path(n, path, sizeof(path));
	fuse_reply_err(req, setxattr(path, name, value, size, flags) ? errno : 0);
}

static void dfs_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct dfs_node *n = dfs_get_node(ino);
	char path[64];

	if (dfs_stats_refuse(req, n, EPERM))
		return;
	dfs_proc_path(n, path, sizeof(path));
	fuse_reply_err(req, removexattr(path, name) ? errno : 0);
}

/*
 * fallocate() on the open source file.  The window maps the file shared,
 * so a punched or zeroed range reads back as zeros through it too; a mode
 * that moves data or shrinks the file (collapse, insert: FUSE passes
 * neither today) is done as a truncate is, with the window punched from
 * @off on and the I/O lock held exclusive.
 */
static void dfs_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
			  off_t len, struct fuse_file_info *fi)
{
	struct dfs_node *n = dfs_get_node(ino);
	bool shift = mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE);
	int err = 0;

	if (dfs_stats_refuse(req, n, EBADF))
		return;
	if (shift) {
		pthread_rwlock_wrlock(&n->io_lock);
		err = dfs_punch_window(n, off);
	} else {
		pthread_rwlock_rdlock(&n->io_lock);
	}
	if (!err && fallocate((int)fi->fh, mode, off, len))
		err = -errno;
	pthread_rwlock_unlock(&n->io_lock);
	fuse_reply_err(req, -err);
}

/*
 * copy_file_range() between the open source files, in the source
 * filesystem (a reflink or an in-kernel copy); the window sees the copied
 * data through the page cache.  The I/O lock of the destination is held
 * shared, as for a write.
 */
static void dfs_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
				struct fuse_file_info *fi_in, fuse_ino_t ino_out,
				off_t off_out, struct fuse_file_info *fi_out,
				size_t len, int flags)
{
	struct dfs_node *out = dfs_get_node(ino_out);
	ssize_t done;

	if (dfs_get_node(ino_in) == &dfs_stats_node || out == &dfs_stats_node) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	pthread_rwlock_rdlock(&out->io_lock);
	done = copy_file_range((int)fi_in->fh, &off_in, (int)fi_out->fh, &off_out,
			       len, (unsigned int)flags);
	if (done < 0)
		done = -errno;
	else if (out->attr)
		dc_attr_note_write(out->attr, (uint64_t)off_out, DC_ATTR_MTIME_UNKNOWN,
				   dfs_mono_ns());
	pthread_rwlock_unlock(&out->io_lock);
	if (done < 0)
		fuse_reply_err(req, (int)-done);
	else
		fuse_reply_write(req, (size_t)done);
}

const struct fuse_lowlevel_ops dfs_ops = {
	.init = dfs_init,
	.lookup = dfs_lookup,
	.forget = dfs_forget,
	.getattr = dfs_getattr,
	.setattr = dfs_setattr,
	.readlink = dfs_readlink,
	.mknod = dfs_mknod,
	.mkdir = dfs_mkdir,
	.symlink = dfs_symlink,
	.link = dfs_link,
	.unlink = dfs_unlink,
	.rmdir = dfs_rmdir,
	.rename = dfs_rename,
	.open = dfs_open,
	.create = dfs_create,
	.read = dfs_read,
	.write = dfs_write,
	.flush = dfs_flush,
	.release = dfs_release,
	.fsync = dfs_fsync,
	.fsyncdir = dfs_fsyncdir,
	.access = dfs_access,
	.lseek = dfs_lseek,
	.opendir = dfs_opendir,
	.readdir = dfs_readdir,
	.releasedir = dfs_releasedir,
	.statfs = dfs_statfs,
	.setxattr = dfs_setxattr,
	.getxattr = dfs_getxattr,
	.listxattr = dfs_listxattr,
	.removexattr = dfs_removexattr,
	.fallocate = dfs_fallocate,
	.copy_file_range = dfs_copy_file_range,
};
