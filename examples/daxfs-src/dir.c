// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dir.c - the FUSE operations on directories and names: mkdir, mknod,
 * symlink, readlink, link, unlink, rmdir, rename, opendir, readdir,
 * releasedir and fsyncdir, passed through to SRC.
 */
#include "daxfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Reply to a request that made (or linked) @name in @p, @err its outcome
 * (0 or -errno), with the entry of @name.
 */
static void reply_made(fuse_req_t req, struct dfs_node *p, const char *name, int err)
{
	struct fuse_entry_param e;

	if (!err)
		err = dfs_do_lookup(p, name, &e);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_entry(req, &e);
}

/*
 * The mode of a new node: the kernel sends it with the caller's umask
 * applied (daxfs does not ask for FUSE_CAP_DONT_MASK), and main() clears
 * daxfs's own umask, so that it is not applied a second time.
 */
void dfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct dfs_node *p = dfs_get_node(parent);
	int err = dfs_caller_creds_enter(req);

	if (!err) {
		if (mkdirat(p->path_fd, name, mode))
			err = -errno;
		dfs_caller_creds_exit();
	}
	reply_made(req, p, name, err);
}

/* FIFOs, sockets, character and block devices, regular files. */
void dfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
	       mode_t mode, dev_t rdev)
{
	struct dfs_node *p = dfs_get_node(parent);
	int err = dfs_caller_creds_enter(req);

	if (!err) {
		if (mknodat(p->path_fd, name, mode, rdev))
			err = -errno;
		dfs_caller_creds_exit();
	}
	reply_made(req, p, name, err);
}

void dfs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		 const char *name)
{
	struct dfs_node *p = dfs_get_node(parent);
	int err = dfs_caller_creds_enter(req);

	if (!err) {
		if (symlinkat(link, p->path_fd, name))
			err = -errno;
		dfs_caller_creds_exit();
	}
	reply_made(req, p, name, err);
}

void dfs_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char buf[PATH_MAX + 1];
	ssize_t len = readlinkat(dfs_get_node(ino)->path_fd, "", buf, sizeof(buf));

	if (len < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	if ((size_t)len >= sizeof(buf)) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	buf[len] = '\0';
	fuse_reply_readlink(req, buf);
}

/*
 * A hard link to the source of @ino.  linkat() of the /proc/self/fd link
 * with AT_SYMLINK_FOLLOW links the inode the O_PATH descriptor holds (a
 * symlink too), where AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH.
 */
void dfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
	      const char *newname)
{
	struct dfs_node *n = dfs_get_node(ino), *p = dfs_get_node(newparent);
	char path[64];
	int err = 0;

	if (dfs_stats_refuse(req, n, EPERM))
		return;
	dfs_proc_path(n, path, sizeof(path));
	if (linkat(AT_FDCWD, path, p->path_fd, newname, AT_SYMLINK_FOLLOW))
		err = -errno;
	reply_made(req, p, newname, err);
}

void dfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int r = unlinkat(dfs_get_node(parent)->path_fd, name, 0);

	fuse_reply_err(req, r ? errno : 0);
}

void dfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int r = unlinkat(dfs_get_node(parent)->path_fd, name, AT_REMOVEDIR);

	fuse_reply_err(req, r ? errno : 0);
}

void dfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	int r = renameat2(dfs_get_node(parent)->path_fd, name,
			  dfs_get_node(newparent)->path_fd, newname, flags);

	fuse_reply_err(req, r ? errno : 0);
}

void dfs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dfs_node *n = dfs_get_node(ino);
	struct dfs_file *f = calloc(1, sizeof(*f));
	int fd;

	if (!f) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fd = openat(n->path_fd, ".", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || !(f->dir = fdopendir(fd))) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		free(f);
		fuse_reply_err(req, err);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)f;
	fuse_reply_open(req, fi);
}

void dfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi)
{
	struct dfs_file *f = (struct dfs_file *)(uintptr_t)fi->fh;
	char *buf = malloc(size);
	size_t used = 0;
	bool nomem = false;
	struct dirent *d;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	seekdir(f->dir, off);
	for (;;) {
		struct stat st;
		size_t len;

		errno = 0;
		d = readdir(f->dir);
		if (!d)
			break;
		memset(&st, 0, sizeof(st));
		st.st_ino = (ino_t)dfs_map_ino(dfs_get_node(ino)->dev, d->d_ino);
		if (!st.st_ino && d->d_ino) {
			nomem = true;
			break;
		}
		st.st_mode = (mode_t)d->d_type << 12;
		len = fuse_add_direntry(req, buf + used, size - used, d->d_name, &st,
					d->d_off);
		if (len > size - used)
			break;
		used += len;
	}
	if (nomem && !used)
		fuse_reply_err(req, ENOMEM);
	else
		fuse_reply_buf(req, buf, used);
	free(buf);
}

void dfs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dfs_file *f = (struct dfs_file *)(uintptr_t)fi->fh;

	closedir(f->dir);
	free(f);
	fuse_reply_err(req, 0);
}

/*
 * fsync() of a directory: make its entries (a rename into it, a new name)
 * stable on the source.  Without .fsyncdir libfuse answers ENOSYS, and the
 * kernel then stops asking and returns 0: a rename followed by fsync() of
 * the directory would not be durable.
 */
void dfs_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		  struct fuse_file_info *fi)
{
	struct dfs_file *f = (struct dfs_file *)(uintptr_t)fi->fh;
	int fd = dirfd(f->dir);
	int r = datasync ? fdatasync(fd) : fsync(fd);

	fuse_reply_err(req, r ? errno : 0);
}
