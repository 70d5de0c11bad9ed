// SPDX-License-Identifier: LGPL-2.1-or-later
/* cc daxfs.c $(pkg-config --cflags --libs daxcache fuse3) -pthread */
/*
 * daxfs - a FUSE passthrough filesystem whose reads and writes go through a
 * libdaxcache window.
 *
 * Usage: daxfs SRC MNT [options]   (--help lists them)
 *
 * Every directory entry of SRC is shown under MNT.  While a regular file is
 * open, its source file is registered with the mmap backend (cache inode id
 * = the inode number shown, see map_ino()) and read and write copy through
 * the window, as
 * a virtio-fs guest does with its DAX window: dc_map() the range, copy with
 * dc_mmapbe_read() or dc_mmapbe_write(), dc_unpin().  Reads are clipped to
 * the file size; writes that reach past the end of the file go to pwrite()
 * (a window range past EOF cannot be touched), and a truncate (setattr, or
 * an open with O_TRUNC) punches the inode's mappings and truncates under
 * the inode's I/O lock held exclusive.  A source file truncated behind
 * daxfs's back (in SRC, by another program) makes a copy through the window
 * fail with -EIO instead of SIGBUS; the read or write is then served with
 * pread()/pwrite().
 * Under the default policy every dc_map() passes DC_MAP_MAY_BYPASS, and a
 * range the cache answers DC_MAP_BYPASS for (admission control: mapping it
 * would only churn the window) is read or written with pread()/pwrite().
 * With --no-dax every read and write is a plain pread()/pwrite().
 *
 * The cache counters can be read at any time from /.daxfs-stats in the
 * mount root and are printed when the filesystem is unmounted.
 *
 * Everything else is passed through to SRC (usage() lists it): mknod,
 * symlink, link, xattrs, fallocate, copy_file_range and the rest.  daxfs
 * runs with umask 0 (the kernel applied the caller's), and as root makes
 * new nodes with the caller's credentials (caller_creds_enter()).  It
 * implements no lock operation: the kernel's FUSE client then keeps fcntl
 * and flock locks itself, with exact POSIX semantics among the processes
 * using MNT, where setlk passed through to the backing descriptor would
 * make daxfs the owner of every caller's lock (so that two callers never
 * conflict) and park serving threads in blocking waits.
 */
#define _GNU_SOURCE
#define FUSE_USE_VERSION 312

#include <daxcache/daxcache.h>
#include <daxcache/mmap_backend.h>
#include <fuse_lowlevel.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#define STATS_NAME	".daxfs-stats"
#define NR_BUCKETS	4096
#define TIMEOUT_S	1.0
/* Exported inode numbers with this bit set are assigned by map_ino(). */
#define XINO_BIT	(1ull << 63)

/* One source inode the kernel knows about. */
struct dnode {
	struct dnode *next;		/* hash chain */
	dev_t dev;
	ino_t ino;
	uint64_t fino;			/* st_ino shown, and the cache inode id */
	int path_fd;			/* O_PATH descriptor of the source */
	uint64_t nlookup;		/* kernel references */
	unsigned int nopen;		/* open files (dax mode bookkeeping) */
	pthread_rwlock_t io_lock;	/* read/write shared, truncate exclusive */
	int map_fd;			/* registered with the backend while nopen */
	struct dc_inode *dci;
};

struct dfile {
	int fd;
	DIR *dir;
	char *text;			/* the stats snapshot */
	size_t text_len;
};

/*
 * The options; the int and char * fields are filled by fuse_opt_parse()
 * (which frees a string it replaces: the defaults of those are NULL).
 */
static struct daxfs_opts {
	uint64_t window_size;
	unsigned int range_shift;
	const char *policy;
	int no_dax;
	int direct_io;
	char *window_arg;
	char *shift_arg;
	char *policy_arg;
	char *src;
	const char *mnt;
} opt = {
	.window_size = 256ull << 20,
	.range_shift = 21,
	.policy = "default",
};

static struct dnode root;
static struct dnode stats_node;
static struct dnode *table[NR_BUCKETS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The inode numbers of files that are not on SRC's device (SRC spans
 * mounts), or whose number has XINO_BIT set: each (dev, ino) gets the next
 * XINO_BIT | n once and keeps it for the life of the mount, so that no two
 * files under MNT show the same st_ino (they all share MNT's st_dev).
 */
struct xino {
	struct xino *next;
	dev_t dev;
	ino_t ino;
	uint64_t fino;
};

static struct xino *xino_table[NR_BUCKETS];
static uint64_t xino_next = 1;
static pthread_mutex_t xino_lock = PTHREAD_MUTEX_INITIALIZER;

/* Run as root: files are made with the caller's fsuid, fsgid and groups. */
static bool as_root;
static uid_t daemon_uid;
static gid_t daemon_gid;
static gid_t *daemon_groups;
static int daemon_ngroups;
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static struct dc_mmapbe *be;
static struct dc_cache *cache;

static atomic_uint_fast64_t n_reads, n_writes, n_ext_writes, n_fallbacks, n_bypassed;
/* dc_map() flags of every access: DC_MAP_MAY_BYPASS under the default policy. */
static unsigned int map_flags;

static __thread bool thread_registered;
static pthread_key_t reg_key;

static void reg_destructor(void *arg)
{
	dc_thread_unregister();
}

/* Register the calling thread before its first call into libdaxcache. */
static void ensure_registered(void)
{
	if (thread_registered)
		return;
	dc_thread_register();
	pthread_setspecific(reg_key, (void *)1);
	thread_registered = true;
}

static struct dnode *get_node(fuse_ino_t ino)
{
	if (ino == FUSE_ROOT_ID)
		return &root;
	return (struct dnode *)(uintptr_t)ino;
}

static unsigned int bucket(dev_t dev, ino_t ino)
{
	return (unsigned int)((ino * 0x9e3779b97f4a7c15ull ^ dev) % NR_BUCKETS);
}

static int stat_fd(int fd, struct stat *st)
{
	return fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/*
 * The st_ino shown under MNT for the source inode (@dev, @ino): @ino itself
 * on SRC's device, a number of map_ino()'s own elsewhere; 0 if out of memory.
 */
static uint64_t map_ino(dev_t dev, ino_t ino)
{
	unsigned int b = bucket(dev, ino);
	struct xino *x;
	uint64_t fino = 0;

	if (dev == root.dev && !((uint64_t)ino & XINO_BIT))
		return (uint64_t)ino;
	pthread_mutex_lock(&xino_lock);
	for (x = xino_table[b]; x; x = x->next)
		if (x->dev == dev && x->ino == ino)
			break;
	if (!x) {
		x = malloc(sizeof(*x));
		if (x) {
			x->dev = dev;
			x->ino = ino;
			x->fino = XINO_BIT | xino_next++;
			x->next = xino_table[b];
			xino_table[b] = x;
		}
	}
	if (x)
		fino = x->fino;
	pthread_mutex_unlock(&xino_lock);
	return fino;
}

static void xino_free(void)
{
	unsigned int b;

	for (b = 0; b < NR_BUCKETS; b++) {
		while (xino_table[b]) {
			struct xino *x = xino_table[b];

			xino_table[b] = x->next;
			free(x);
		}
	}
}

/*
 * Make the calling thread create files as the caller of @req would: its
 * fsuid, fsgid and supplementary groups (the source then also checks the
 * caller's permissions).  Only when run as root; setfsuid(), setfsgid()
 * and the raw setgroups system call change the calling thread only.
 * 0, or -errno with nothing changed.
 */
static int caller_creds_enter(fuse_req_t req)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	gid_t small[64], *groups = small;
	int size = 64, n;

	if (!as_root)
		return 0;
	/* The number of the caller's groups, of which the first @size filled. */
	n = fuse_req_getgroups(req, size, small);
	if (n > size) {
		size = n;
		groups = calloc((size_t)size, sizeof(*groups));
		if (!groups)
			return -ENOMEM;
		n = fuse_req_getgroups(req, size, groups);
	}
	if (n > size)
		n = size;	/* it joined groups since: the first @size */
	if (n < 0)
		n = 0;		/* no /proc entry of the caller: no groups */
	if (syscall(SYS_setgroups, (size_t)n, groups)) {
		n = -errno;
		goto out;
	}
	setfsgid(ctx->gid);
	setfsuid(ctx->uid);
	n = 0;
	if ((uid_t)setfsuid((uid_t)-1) != ctx->uid || (gid_t)setfsgid((gid_t)-1) != ctx->gid) {
		setfsuid(daemon_uid);
		setfsgid(daemon_gid);
		n = -EPERM;
	}
	if (n)
		syscall(SYS_setgroups, (size_t)daemon_ngroups, daemon_groups);
out:
	if (groups != small)
		free(groups);
	return n;
}

/* Back to the daemon's own credentials (a no-op when not run as root). */
static void caller_creds_exit(void)
{
	if (!as_root)
		return;
	setfsuid(daemon_uid);
	setfsgid(daemon_gid);
	syscall(SYS_setgroups, (size_t)daemon_ngroups, daemon_groups);
}

static size_t stats_text(char *buf, size_t size)
{
	struct dc_cache_stats st;
	int len;

	memset(&st, 0, sizeof(st));
	if (cache)
		dc_cache_stats(cache, &st, sizeof(st));
	len = snprintf(buf, size,
		       "mode: %s\n"
		       "policy: %s\n"
		       "window_size: %" PRIu64 "\n"
		       "range_size: %" PRIu64 "\n"
		       "reads: %" PRIu64 "\n"
		       "writes: %" PRIu64 "\n"
		       "extending_writes: %" PRIu64 "\n"
		       "fallbacks: %" PRIu64 "\n"
		       "bypassed_ios: %" PRIu64 "\n"
		       "hits: %" PRIu64 "\n"
		       "misses: %" PRIu64 "\n"
		       "bypasses: %" PRIu64 "\n"
		       "bypass_full: %" PRIu64 "\n"
		       "bypass_busy: %" PRIu64 "\n"
		       "bypass_write: %" PRIu64 "\n"
		       "admits_contested: %" PRIu64 "\n"
		       "upgrades: %" PRIu64 "\n"
		       "inline_reclaims: %" PRIu64 "\n"
		       "bg_reclaims: %" PRIu64 "\n"
		       "removes_sent: %" PRIu64 "\n"
		       "removes_skipped: %" PRIu64 "\n"
		       "remove_batches: %" PRIu64 "\n"
		       "waits: %" PRIu64 "\n"
		       "wait_ns: %" PRIu64 "\n"
		       "setup_failures: %" PRIu64 "\n"
		       "writebacks: %" PRIu64 "\n"
		       "nr_free: %" PRIu64 "\n"
		       "nr_mapped: %" PRIu64 "\n",
		       opt.no_dax ? "no-dax" : "dax", opt.policy,
		       opt.window_size, (uint64_t)1 << opt.range_shift,
		       (uint64_t)atomic_load(&n_reads), (uint64_t)atomic_load(&n_writes),
		       (uint64_t)atomic_load(&n_ext_writes),
		       (uint64_t)atomic_load(&n_fallbacks),
		       (uint64_t)atomic_load(&n_bypassed),
		       st.hits, st.misses, st.bypasses, st.bypass_full,
		       st.bypass_busy, st.bypass_write, st.admits_contested, st.upgrades, st.inline_reclaims,
		       st.bg_reclaims, st.removes_sent, st.removes_skipped,
		       st.remove_batches, st.waits, st.wait_ns, st.setup_failures,
		       st.writebacks, st.nr_free, st.nr_mapped);
	if (len < 0)
		return 0;
	return (size_t)len < size ? (size_t)len : size - 1;
}

static void stats_attr(struct stat *st)
{
	char buf[2048];

	memset(st, 0, sizeof(*st));
	st->st_ino = XINO_BIT;	/* no map_ino() number: its n starts at 1 */
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = (off_t)stats_text(buf, sizeof(buf));
}

/*
 * Find or add the node of @st (holding @fd, which it takes or closes), whose
 * exported inode number is @fino.
 */
static struct dnode *find_or_add(const struct stat *st, int fd, uint64_t fino)
{
	unsigned int b = bucket(st->st_dev, st->st_ino);
	struct dnode *n;

	pthread_mutex_lock(&table_lock);
	for (n = table[b]; n; n = n->next)
		if (n->dev == st->st_dev && n->ino == st->st_ino)
			break;
	if (n) {
		n->nlookup++;
		pthread_mutex_unlock(&table_lock);
		close(fd);
		return n;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		pthread_mutex_unlock(&table_lock);
		close(fd);
		return NULL;
	}
	n->dev = st->st_dev;
	n->ino = st->st_ino;
	n->fino = fino;
	n->path_fd = fd;
	n->nlookup = 1;
	n->map_fd = -1;
	pthread_rwlock_init(&n->io_lock, NULL);
	n->next = table[b];
	table[b] = n;
	pthread_mutex_unlock(&table_lock);
	return n;
}

static void forget_node(struct dnode *n, uint64_t count)
{
	struct dnode **pp;

	if (n == &root || n == &stats_node)
		return;
	pthread_mutex_lock(&table_lock);
	n->nlookup -= count < n->nlookup ? count : n->nlookup;
	if (n->nlookup) {
		pthread_mutex_unlock(&table_lock);
		return;
	}
	for (pp = &table[bucket(n->dev, n->ino)]; *pp; pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			break;
		}
	}
	pthread_mutex_unlock(&table_lock);
	close(n->path_fd);
	pthread_rwlock_destroy(&n->io_lock);
	free(n);
}

/* Look up @name in @parent and fill @e; the node gains a lookup reference. */
static int do_lookup(struct dnode *parent, const char *name, struct fuse_entry_param *e)
{
	struct dnode *n;
	uint64_t fino;
	int fd, err;

	memset(e, 0, sizeof(*e));
	e->attr_timeout = TIMEOUT_S;
	e->entry_timeout = TIMEOUT_S;
	if (parent == &root && !strcmp(name, STATS_NAME)) {
		e->ino = (fuse_ino_t)(uintptr_t)&stats_node;
		e->attr_timeout = 0;
		stats_attr(&e->attr);
		return 0;
	}
	fd = openat(parent->path_fd, name, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	err = stat_fd(fd, &e->attr);
	if (err) {
		close(fd);
		return err;
	}
	fino = map_ino(e->attr.st_dev, e->attr.st_ino);
	n = fino ? find_or_add(&e->attr, fd, fino) : NULL;
	if (!n) {
		if (!fino)
			close(fd);
		return -ENOMEM;
	}
	e->attr.st_ino = (ino_t)fino;
	e->ino = (fuse_ino_t)(uintptr_t)n;
	return 0;
}

/*
 * The /proc/self/fd link of @n's O_PATH descriptor: it resolves to the
 * inode itself, a symlink included, for the calls that refuse an O_PATH
 * descriptor (open, chmod, f*xattr, linkat without CAP_DAC_READ_SEARCH).
 */
static void proc_path(struct dnode *n, char *path, size_t size)
{
	snprintf(path, size, "/proc/self/fd/%d", n->path_fd);
}

/* Answer @err for .daxfs-stats, which only opens, reads and stats; true then. */
static bool stats_refuse(fuse_req_t req, struct dnode *n, int err)
{
	if (n != &stats_node)
		return false;
	fuse_reply_err(req, err);
	return true;
}

/* Open the source of @n with @flags through /proc. */
static int reopen(struct dnode *n, int flags)
{
	char path[64];

	proc_path(n, path, sizeof(path));
	/* O_DIRECT is the kernel's business: our buffers need not be aligned. */
	return open(path, flags & ~(O_NOFOLLOW | O_DIRECT));
}

/* First open of a regular file in dax mode: register it with the cache. */
static int dax_attach(struct dnode *n)
{
	int err = 0;

	if (opt.no_dax)
		return 0;
	pthread_mutex_lock(&open_lock);
	if (n->nopen++) {
		pthread_mutex_unlock(&open_lock);
		return 0;
	}
	n->map_fd = reopen(n, O_RDWR);
	if (n->map_fd < 0)
		n->map_fd = reopen(n, O_RDONLY);
	if (n->map_fd < 0) {
		err = -errno;
		goto fail;
	}
	err = dc_mmapbe_add_file(be, n->fino, n->map_fd);
	if (err)
		goto fail_close;
	ensure_registered();
	err = dc_inode_get(cache, n->fino, &n->dci);
	if (err)
		goto fail_remove;
	pthread_mutex_unlock(&open_lock);
	return 0;
fail_remove:
	dc_mmapbe_remove_file(be, n->fino);
fail_close:
	close(n->map_fd);
fail:
	n->map_fd = -1;
	n->dci = NULL;
	n->nopen--;
	pthread_mutex_unlock(&open_lock);
	return err;
}

static void dax_detach(struct dnode *n)
{
	if (opt.no_dax)
		return;
	pthread_mutex_lock(&open_lock);
	if (--n->nopen) {
		pthread_mutex_unlock(&open_lock);
		return;
	}
	ensure_registered();
	dc_inode_put(n->dci);
	n->dci = NULL;
	dc_mmapbe_remove_file(be, n->fino);
	close(n->map_fd);
	n->map_fd = -1;
	pthread_mutex_unlock(&open_lock);
}

static void dfs_init(void *userdata, struct fuse_conn_info *conn)
{
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
}

static void dfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	int err = do_lookup(get_node(parent), name, &e);

	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_entry(req, &e);
}

static void dfs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_node(get_node(ino), nlookup);
	fuse_reply_none(req);
}

static void dfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dnode *n = get_node(ino);
	struct stat st;
	int err;

	if (n == &stats_node) {
		stats_attr(&st);
		fuse_reply_attr(req, &st, 0);
		return;
	}
	err = stat_fd(n->path_fd, &st);
	st.st_ino = (ino_t)n->fino;
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_attr(req, &st, TIMEOUT_S);
}

/*
 * Punch the window mappings of @n from @size on, before the source is
 * truncated to @size; called with n->io_lock held exclusive, so that no
 * read or write maps a range again (or copies from one) until the
 * truncation is done.  0 or -errno.
 */
static int punch_window(struct dnode *n, off_t size)
{
	int err = 0;

	pthread_mutex_lock(&open_lock);
	if (n->dci) {
		ensure_registered();
		err = dc_inode_punch(n->dci, (uint64_t)size, UINT64_MAX);
	}
	pthread_mutex_unlock(&open_lock);
	return err;
}

/* Truncate the source of @n to @size through @fd (< 0: a new O_WRONLY one). */
static int do_truncate(struct dnode *n, int fd, off_t size)
{
	bool own = fd < 0;
	int err;

	if (own)
		fd = reopen(n, O_WRONLY);
	if (fd < 0)
		return -errno;
	pthread_rwlock_wrlock(&n->io_lock);
	err = punch_window(n, size);
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
	struct dnode *n = get_node(ino);
	char path[64];
	int err = 0;

	if (stats_refuse(req, n, EPERM))
		return;
	proc_path(n, path, sizeof(path));
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
	dfs_getattr(req, ino, fi);
}

/*
 * Reply to a request that made (or linked) @name in @p, @err its outcome
 * (0 or -errno), with the entry of @name.
 */
static void reply_made(fuse_req_t req, struct dnode *p, const char *name, int err)
{
	struct fuse_entry_param e;

	if (!err)
		err = do_lookup(p, name, &e);
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
static void dfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct dnode *p = get_node(parent);
	int err = caller_creds_enter(req);

	if (!err) {
		if (mkdirat(p->path_fd, name, mode))
			err = -errno;
		caller_creds_exit();
	}
	reply_made(req, p, name, err);
}

/* FIFOs, sockets, character and block devices, regular files. */
static void dfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, dev_t rdev)
{
	struct dnode *p = get_node(parent);
	int err = caller_creds_enter(req);

	if (!err) {
		if (mknodat(p->path_fd, name, mode, rdev))
			err = -errno;
		caller_creds_exit();
	}
	reply_made(req, p, name, err);
}

static void dfs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
			const char *name)
{
	struct dnode *p = get_node(parent);
	int err = caller_creds_enter(req);

	if (!err) {
		if (symlinkat(link, p->path_fd, name))
			err = -errno;
		caller_creds_exit();
	}
	reply_made(req, p, name, err);
}

static void dfs_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char buf[PATH_MAX + 1];
	ssize_t len = readlinkat(get_node(ino)->path_fd, "", buf, sizeof(buf));

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
static void dfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		     const char *newname)
{
	struct dnode *n = get_node(ino), *p = get_node(newparent);
	char path[64];
	int err = 0;

	if (stats_refuse(req, n, EPERM))
		return;
	proc_path(n, path, sizeof(path));
	if (linkat(AT_FDCWD, path, p->path_fd, newname, AT_SYMLINK_FOLLOW))
		err = -errno;
	reply_made(req, p, newname, err);
}

static void dfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int r = unlinkat(get_node(parent)->path_fd, name, 0);

	fuse_reply_err(req, r ? errno : 0);
}

static void dfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int r = unlinkat(get_node(parent)->path_fd, name, AT_REMOVEDIR);

	fuse_reply_err(req, r ? errno : 0);
}

static void dfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		       fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	int r = renameat2(get_node(parent)->path_fd, name,
			  get_node(newparent)->path_fd, newname, flags);

	fuse_reply_err(req, r ? errno : 0);
}

static void dfs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dnode *n = get_node(ino);
	struct dfile *f = calloc(1, sizeof(*f));
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

static void dfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	struct dfile *f = (struct dfile *)(uintptr_t)fi->fh;
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
		st.st_ino = (ino_t)map_ino(get_node(ino)->dev, d->d_ino);
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

static void dfs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dfile *f = (struct dfile *)(uintptr_t)fi->fh;

	closedir(f->dir);
	free(f);
	fuse_reply_err(req, 0);
}

static void setup_open(struct dnode *n, struct fuse_file_info *fi, int fd)
{
	fi->fh = (uint64_t)fd;
	if (opt.direct_io)
		fi->direct_io = 1;
}

static void dfs_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		       mode_t mode, struct fuse_file_info *fi)
{
	struct dnode *p = get_node(parent), *n;
	struct fuse_entry_param e;
	int fd, err;

	/*
	 * The file may exist (made in SRC, or by a racing create) and be open
	 * and mapped: truncate it as do_truncate() does, not with O_TRUNC.
	 */
	err = caller_creds_enter(req);
	if (err) {
		fuse_reply_err(req, -err);
		return;
	}
	fd = openat(p->path_fd, name,
		    (fi->flags | O_CREAT) & ~(O_NOFOLLOW | O_DIRECT | O_TRUNC), mode);
	err = fd < 0 ? errno : 0;
	caller_creds_exit();
	if (fd < 0) {
		fuse_reply_err(req, err);
		return;
	}
	err = do_lookup(p, name, &e);
	if (err)
		goto fail;
	n = get_node(e.ino);
	if (fi->flags & O_TRUNC) {
		err = do_truncate(n, (fi->flags & O_ACCMODE) == O_RDONLY ? -1 : fd, 0);
		if (err) {
			forget_node(n, 1);
			goto fail;
		}
	}
	err = dax_attach(n);
	if (err) {
		forget_node(n, 1);
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
 * the new end of the file.  (The size is not cached here: reads and writes
 * fstat() the source under the lock.)
 */
static int open_source(struct dnode *n, int flags)
{
	int fd, err;

	if (!(flags & O_TRUNC)) {
		fd = reopen(n, flags);
		return fd < 0 ? -errno : fd;
	}
	pthread_rwlock_wrlock(&n->io_lock);
	err = punch_window(n, 0);
	if (!err) {
		fd = reopen(n, flags);
		if (fd < 0)
			err = -errno;
	}
	pthread_rwlock_unlock(&n->io_lock);
	return err ? err : fd;
}

static void dfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dnode *n = get_node(ino);
	struct dfile *f;
	int fd, err;

	if (n == &stats_node) {
		f = calloc(1, sizeof(*f) + 2048);
		if (!f) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
		f->fd = -1;
		f->text = (char *)(f + 1);
		f->text_len = stats_text(f->text, 2048);
		fi->fh = (uint64_t)(uintptr_t)f;
		fi->direct_io = 1;
		fuse_reply_open(req, fi);
		return;
	}
	fd = open_source(n, fi->flags);
	if (fd < 0) {
		fuse_reply_err(req, -fd);
		return;
	}
	err = dax_attach(n);
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
	struct dnode *n = get_node(ino);

	if (n == &stats_node) {
		free((void *)(uintptr_t)fi->fh);
	} else {
		close((int)fi->fh);
		dax_detach(n);
	}
	fuse_reply_err(req, 0);
}

/*
 * Copy @len bytes between @buf and @fd at @off with pread()/pwrite(), for a
 * range the cache told us to bypass (the window maps the file MAP_SHARED,
 * so both views stay coherent through the page cache); 0 or -errno.
 */
static int direct_copy(int fd, char *buf, size_t len, uint64_t off, bool write)
{
	while (len) {
		ssize_t got = write ? pwrite(fd, buf, len, (off_t)off) :
				      pread(fd, buf, len, (off_t)off);

		if (got < 0)
			return -errno;
		if (!got)
			return -EIO;	/* the size was checked: a racing truncate */
		buf += got;
		off += (uint64_t)got;
		len -= (size_t)got;
	}
	return 0;
}

/*
 * Copy [@off, @off + @len) of @n through the window, range by range; a
 * range the cache answers DC_MAP_BYPASS for goes straight to @fd.  0 or
 * -errno: -EIO when the source was truncated behind our back (a window
 * page past its end), and the caller then falls back to pread()/pwrite().
 */
static int window_copy(struct dnode *n, int fd, char *buf, size_t len,
		       uint64_t off, bool write)
{
	uint64_t rs = (uint64_t)1 << opt.range_shift;
	struct dc_pin pin;
	int err;

	ensure_registered();
	while (len) {
		size_t chunk;

		err = dc_map(n->dci, off, map_flags | (write ? DC_MAP_WRITE : 0), &pin);
		if (err == DC_MAP_BYPASS) {
			chunk = rs - (off & (rs - 1)) < len ?
				(size_t)(rs - (off & (rs - 1))) : len;
			atomic_fetch_add_explicit(&n_bypassed, 1, memory_order_relaxed);
			err = direct_copy(fd, buf, chunk, off, write);
			if (err)
				return err;
			buf += chunk;
			off += chunk;
			len -= chunk;
			continue;
		}
		if (err)
			return err;
		chunk = pin.len < len ? (size_t)pin.len : len;
		if (write)
			err = dc_mmapbe_write(be, &pin, 0, buf, chunk);
		else
			err = dc_mmapbe_read(be, &pin, 0, buf, chunk);
		dc_unpin(&pin);
		if (err)
			return err;
		buf += chunk;
		off += chunk;
		len -= chunk;
	}
	return 0;
}

static void dfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct dnode *n = get_node(ino);
	struct stat st;
	ssize_t got;
	char *buf;
	int err;

	if (n == &stats_node) {
		struct dfile *f = (struct dfile *)(uintptr_t)fi->fh;

		if ((size_t)off >= f->text_len)
			fuse_reply_buf(req, NULL, 0);
		else
			fuse_reply_buf(req, f->text + off,
				       f->text_len - (size_t)off < size ?
				       f->text_len - (size_t)off : size);
		return;
	}
	atomic_fetch_add_explicit(&n_reads, 1, memory_order_relaxed);
	buf = malloc(size ? size : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_rwlock_rdlock(&n->io_lock);
	if (!n->dci) {
		got = pread((int)fi->fh, buf, size, off);
		err = got < 0 ? -errno : 0;
		goto out;
	}
	err = stat_fd(n->map_fd, &st);
	if (err)
		goto out;
	if (off >= st.st_size) {
		got = 0;
		goto out;
	}
	if ((uint64_t)size > (uint64_t)(st.st_size - off))
		size = (size_t)(st.st_size - off);
	got = (ssize_t)size;
	err = window_copy(n, (int)fi->fh, buf, size, (uint64_t)off, false);
	if (err) {
		atomic_fetch_add_explicit(&n_fallbacks, 1, memory_order_relaxed);
		got = pread((int)fi->fh, buf, size, off);
		err = got < 0 ? -errno : 0;
	}
out:
	pthread_rwlock_unlock(&n->io_lock);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_buf(req, buf, (size_t)got);
	free(buf);
}

static void dfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		      off_t off, struct fuse_file_info *fi)
{
	struct dnode *n = get_node(ino);
	struct stat st;
	ssize_t done = (ssize_t)size;
	int err;

	if (stats_refuse(req, n, EBADF))
		return;
	atomic_fetch_add_explicit(&n_writes, 1, memory_order_relaxed);
	pthread_rwlock_rdlock(&n->io_lock);
	if (!n->dci || (fi->flags & O_APPEND)) {
		err = 0;
		goto plain;
	}
	err = stat_fd(n->map_fd, &st);
	if (err)
		goto out;
	if ((uint64_t)off + size > (uint64_t)st.st_size) {
		atomic_fetch_add_explicit(&n_ext_writes, 1, memory_order_relaxed);
		goto plain;
	}
	err = window_copy(n, (int)fi->fh, (char *)buf, size, (uint64_t)off, true);
	if (!err)
		goto out;
	atomic_fetch_add_explicit(&n_fallbacks, 1, memory_order_relaxed);
plain:
	done = pwrite((int)fi->fh, buf, size, off);
	err = done < 0 ? -errno : 0;
out:
	pthread_rwlock_unlock(&n->io_lock);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_write(req, (size_t)done);
}

static void dfs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

static void dfs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		      struct fuse_file_info *fi)
{
	int r = 0;

	/* Pages written through the window are the file's page cache pages. */
	if (get_node(ino) != &stats_node)
		r = datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh);
	fuse_reply_err(req, r ? errno : 0);
}

static void dfs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs sv;

	if (fstatvfs(root.path_fd, &sv))
		fuse_reply_err(req, errno);
	else
		fuse_reply_statfs(req, &sv);
}

/*
 * Reply with the @size bytes an xattr call needs (@size 0) or got (@buf).
 * Extended attributes go through proc_path(): f*xattr() refuse O_PATH.
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
	struct dnode *n = get_node(ino);
	char path[64], *buf = NULL;

	if (stats_refuse(req, n, ENODATA))
		return;
	if (size && !(buf = malloc(size))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	proc_path(n, path, sizeof(path));
	reply_xattr(req, buf, size, getxattr(path, name, buf, size));
	free(buf);
}

static void dfs_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct dnode *n = get_node(ino);
	char path[64], *buf = NULL;

	if (n == &stats_node) {
		reply_xattr(req, NULL, size, 0);
		return;
	}
	if (size && !(buf = malloc(size))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	proc_path(n, path, sizeof(path));
	reply_xattr(req, buf, size, listxattr(path, buf, size));
	free(buf);
}

static void dfs_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			 const char *value, size_t size, int flags)
{
	struct dnode *n = get_node(ino);
	char path[64];

	if (stats_refuse(req, n, EPERM))
		return;
	proc_path(n, path, sizeof(path));
	fuse_reply_err(req, setxattr(path, name, value, size, flags) ? errno : 0);
}

static void dfs_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct dnode *n = get_node(ino);
	char path[64];

	if (stats_refuse(req, n, EPERM))
		return;
	proc_path(n, path, sizeof(path));
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
	struct dnode *n = get_node(ino);
	bool shift = mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE);
	int err = 0;

	if (stats_refuse(req, n, EBADF))
		return;
	if (shift) {
		pthread_rwlock_wrlock(&n->io_lock);
		err = punch_window(n, off);
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
	struct dnode *out = get_node(ino_out);
	ssize_t done;

	if (get_node(ino_in) == &stats_node || out == &stats_node) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	pthread_rwlock_rdlock(&out->io_lock);
	done = copy_file_range((int)fi_in->fh, &off_in, (int)fi_out->fh, &off_out,
			       len, (unsigned int)flags);
	if (done < 0)
		done = -errno;
	pthread_rwlock_unlock(&out->io_lock);
	if (done < 0)
		fuse_reply_err(req, (int)-done);
	else
		fuse_reply_write(req, (size_t)done);
}

static const struct fuse_lowlevel_ops dfs_ops = {
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

static int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B' && shift)
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"NAME\n"
		"    daxfs - FUSE passthrough filesystem whose reads and writes copy\n"
		"            through a libdaxcache window (mmap backend)\n"
		"\n"
		"SYNOPSIS\n"
		"    %s SRC MNT [options]\n"
		"\n"
		"DESCRIPTION\n"
		"    Shows the tree under SRC on MNT.  While a regular file is open, its\n"
		"    reads and writes are copied through the window; --no-dax makes them\n"
		"    plain pread()/pwrite().  Everything else is passed through to SRC:\n"
		"    lookup, getattr, setattr (mode, owner, size, times), mkdir, mknod\n"
		"    (FIFOs, sockets, character and block devices), symlink, readlink,\n"
		"    link, unlink, rmdir, rename (with RENAME_NOREPLACE and\n"
		"    RENAME_EXCHANGE), readdir, statfs, fsync, extended attributes\n"
		"    (get, set, list, remove), fallocate and copy_file_range.\n"
		"    New files get the mode the caller asked for under the caller's\n"
		"    umask (daxfs runs with umask 0); run as root, daxfs makes them with\n"
		"    the caller's uid, gid and groups, and the source checks that the\n"
		"    caller may make them.  Mount with -o default_permissions (and\n"
		"    allow_other to serve other users) so that the kernel checks every\n"
		"    other access as it would on SRC: daxfs itself does not.\n"
		"    Inode numbers are the source's on SRC's filesystem; a file on\n"
		"    another filesystem mounted under SRC gets a number of its own\n"
		"    (top bit set), so that no two files under MNT share one.\n"
		"    fcntl() and flock() locks are kept by the kernel's FUSE client for\n"
		"    every process using MNT; they do not see locks taken on SRC directly.\n"
		"\n"
		"OPTIONS\n"
		"    Sizes take K, M, G, T suffixes.  Each daxfs option also has an\n"
		"    -o form (in brackets), for fstab and mount(8).\n"
		"    -w SIZE, --window-size=SIZE   [window_size=SIZE]\n"
		"           window size (default 256M)\n"
		"    -r N, --range-shift=N         [range_shift=N]\n"
		"           log2 of the range size, 12..40 (default 21)\n"
		"    -p NAME, --policy=NAME        [policy=NAME]\n"
		"           default (admission control), 2019, seed000 or upstream\n"
		"    --no-dax                      [no_dax]\n"
		"           plain pread()/pwrite() (the baseline)\n"
		"    --direct-io                   [direct_io]\n"
		"           open files with direct_io (no page cache)\n"
		"    -f, --foreground              stay in the foreground\n"
		"    -d, --debug                   [debug] FUSE debug output (implies -f)\n"
		"    -s                            serve requests with one thread\n"
		"    -o OPT[,OPT...]               the options in brackets, and the FUSE\n"
		"           and mount options below (e.g. default_permissions,allow_other)\n"
		"    -h, --help                    this text\n"
		"    -V, --version                 the libfuse version\n"
		"\n"
		"FILES\n"
		"    MNT/" STATS_NAME "   the cache counters; printed at unmount too\n"
		"\n"
		"EXIT STATUS\n"
		"    0 unmounted cleanly, 1 an error, 2 bad arguments.\n"
		"\n", prog);
}

enum { KEY_FOREGROUND, KEY_DEBUG };

#define DAXFS_OPT(t, field, value) { t, offsetof(struct daxfs_opts, field), value }

/*
 * fuse_opt_parse() applies every template an argument matches, in order:
 * "--window-size %s" also matches "--window-size=8M" (with "=8M"), so the
 * "=%s" form comes after it and is the one that sticks.
 */
static const struct fuse_opt daxfs_opts[] = {
	DAXFS_OPT("--window-size %s", window_arg, 0),
	DAXFS_OPT("--window-size=%s", window_arg, 0),
	DAXFS_OPT("-w %s", window_arg, 0),
	DAXFS_OPT("window_size=%s", window_arg, 0),
	DAXFS_OPT("--range-shift %s", shift_arg, 0),
	DAXFS_OPT("--range-shift=%s", shift_arg, 0),
	DAXFS_OPT("-r %s", shift_arg, 0),
	DAXFS_OPT("range_shift=%s", shift_arg, 0),
	DAXFS_OPT("--policy %s", policy_arg, 0),
	DAXFS_OPT("--policy=%s", policy_arg, 0),
	DAXFS_OPT("-p %s", policy_arg, 0),
	DAXFS_OPT("policy=%s", policy_arg, 0),
	DAXFS_OPT("--no-dax", no_dax, 1),
	DAXFS_OPT("no_dax", no_dax, 1),
	DAXFS_OPT("--direct-io", direct_io, 1),
	DAXFS_OPT("direct_io", direct_io, 1),
	FUSE_OPT_KEY("--foreground", KEY_FOREGROUND),
	FUSE_OPT_KEY("--debug", KEY_DEBUG),
	FUSE_OPT_END
};

/*
 * fuse_opt_parse() callback: the long forms of -f and -d become those for
 * fuse_parse_cmdline(), the first non-option is SRC (the second, MNT, is
 * fuse_parse_cmdline()'s), other options go on to libfuse, which rejects
 * those it does not know.  1 keeps @arg, 0 drops it, -1 fails.
 */
static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	switch (key) {
	case KEY_FOREGROUND:
		return fuse_opt_add_arg(outargs, "-f") ? -1 : 0;
	case KEY_DEBUG:
		return fuse_opt_add_arg(outargs, "-d") ? -1 : 0;
	case FUSE_OPT_KEY_NONOPT:
		if (opt.src)
			return 1;
		opt.src = strdup(arg);
		return opt.src ? 0 : -1;
	default:
		if (arg[0] == '-' && arg[1] == '-' && strcmp(arg, "--help") &&
		    strcmp(arg, "--version")) {
			fprintf(stderr, "daxfs: unknown option '%s'\n", arg);
			return -1;
		}
		return 1;
	}
}

/* Check the values fuse_opt_parse() stored; 0 or -1 (said why). */
static int check_values(void)
{
	uint64_t v;

	if (opt.window_arg &&
	    (parse_size(opt.window_arg, &opt.window_size) || !opt.window_size))
		goto bad;
	if (opt.shift_arg) {
		if (parse_size(opt.shift_arg, &v) || v < 12 || v > 40)
			goto bad_shift;
		opt.range_shift = (unsigned int)v;
	}
	if (opt.policy_arg) {
		if (strcmp(opt.policy_arg, "default") && strcmp(opt.policy_arg, "2019") &&
		    strcmp(opt.policy_arg, "seed000") && strcmp(opt.policy_arg, "upstream")) {
			fprintf(stderr, "daxfs: bad value '%s'\n", opt.policy_arg);
			return -1;
		}
		opt.policy = opt.policy_arg;
	}
	return 0;
bad:
	fprintf(stderr, "daxfs: bad value '%s'\n", opt.window_arg);
	return -1;
bad_shift:
	fprintf(stderr, "daxfs: bad value '%s'\n", opt.shift_arg);
	return -1;
}

/*
 * The window is reserved before the daemonizing fork, so that a bad size is
 * reported on the terminal; it is only address space, which fork() copies.
 */
static int window_reserve(void)
{
	struct dc_mmapbe_config cfg = {
		.window_size = opt.window_size,
		.range_shift = opt.range_shift,
	};
	int err = dc_mmapbe_create(&cfg, sizeof(cfg), &be);

	if (err)
		fprintf(stderr, "daxfs: mmap backend: %s\n", strerror(-err));
	return err;
}

/*
 * The cache is created after fuse_daemonize(), in the process that serves
 * requests.  (The library starts its threads on first use, so a cache made
 * before the fork would work too; a program that forks once the cache has
 * run must bracket fork() with dc_before_fork() and dc_after_fork_*().)
 */
static int cache_start(void)
{
	struct dc_cache_config cfg;
	int err;

	dc_cache_config_init(&cfg, sizeof(cfg), opt.window_size);
	cfg.range_shift = opt.range_shift;
	/*
	 * The older policies map every miss, as they always did; the default
	 * one lets admission control answer DC_MAP_BYPASS (read it directly).
	 */
	cfg.admit = DC_ADMIT_ALWAYS;
	if (!strcmp(opt.policy, "2019")) {
		cfg.flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_REMOVE_ON_INLINE;
	} else if (!strcmp(opt.policy, "seed000")) {
		cfg.flags = 0;
		cfg.victim = DC_VICTIM_ROUND_ROBIN;
	} else if (!strcmp(opt.policy, "upstream")) {
		/* Upstream Linux sends REMOVEMAPPING on inline reclaim too. */
		cfg.flags = DC_CACHE_INLINE_OWN_ONLY | DC_CACHE_REMOVE_ON_INLINE;
		cfg.victim = DC_VICTIM_ROUND_ROBIN;
	} else {
		cfg.admit = DC_ADMIT_FREQ;
		map_flags = DC_MAP_MAY_BYPASS;
	}
	err = dc_cache_create(&cfg, sizeof(cfg), dc_mmapbe_ops(),
			      sizeof(struct dc_backend_ops), be, &cache);
	if (err) {
		fprintf(stderr, "daxfs: cache: %s\n", strerror(-err));
		return err;
	}
	return 0;
}

/* Remember the daemon's credentials, which caller_creds_exit() restores. */
static int creds_init(void)
{
	int n;

	daemon_uid = geteuid();
	daemon_gid = getegid();
	as_root = !daemon_uid;
	n = getgroups(0, NULL);
	if (n < 0)
		return -1;
	daemon_groups = calloc((size_t)n + 1, sizeof(*daemon_groups));
	if (!daemon_groups)
		return -1;
	daemon_ngroups = getgroups(n, daemon_groups);
	return daemon_ngroups < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts cl;
	struct fuse_session *se;
	struct fuse_loop_config *loop_cfg;
	struct stat st;
	char buf[2048];
	int ret = 1;

	memset(&cl, 0, sizeof(cl));
	if (fuse_opt_parse(&args, &opt, daxfs_opts, opt_proc) ||
	    fuse_opt_insert_arg(&args, 1, "-ofsname=daxfs,subtype=daxfs") ||
	    fuse_parse_cmdline(&args, &cl)) {
		ret = 2;
		goto out_args;
	}
	if (cl.show_help) {
		usage(stdout, argv[0]);
		printf("FUSE OPTIONS\n");
		fuse_cmdline_help();
		fuse_lowlevel_help();
		ret = 0;
		goto out_args;
	}
	if (cl.show_version) {
		printf("daxfs, libfuse %s\n", fuse_pkgversion());
		fuse_lowlevel_version();
		ret = 0;
		goto out_args;
	}
	if (!opt.src || !cl.mountpoint) {
		usage(stderr, argv[0]);
		ret = 2;
		goto out_args;
	}
	if (check_values()) {
		ret = 2;
		goto out_args;
	}
	opt.mnt = cl.mountpoint;
	/* The kernel applied the caller's umask: daxfs must not apply its own. */
	umask(0);
	if (creds_init()) {
		perror("daxfs: getgroups");
		goto out_args;
	}
	root.path_fd = open(opt.src, O_PATH | O_DIRECTORY);
	if (root.path_fd < 0 || stat_fd(root.path_fd, &st)) {
		fprintf(stderr, "daxfs: %s: %s\n", opt.src, strerror(errno));
		goto out_args;
	}
	root.dev = st.st_dev;
	root.ino = st.st_ino;
	root.fino = map_ino(st.st_dev, st.st_ino);
	root.nlookup = 1;
	root.map_fd = -1;
	pthread_rwlock_init(&root.io_lock, NULL);
	pthread_key_create(&reg_key, reg_destructor);
	ensure_registered();
	if (!root.fino || (!opt.no_dax && window_reserve()))
		goto out_args;

	/* NULL for an option libfuse does not know, too (it said which). */
	se = fuse_session_new(&args, &dfs_ops, sizeof(dfs_ops), NULL);
	if (!se)
		goto out_window;
	if (fuse_set_signal_handlers(se))
		goto out_session;
	if (fuse_session_mount(se, cl.mountpoint))
		goto out_signals;
	if (fuse_daemonize(cl.foreground))
		goto out_unmount;
	if (!opt.no_dax && cache_start())
		goto out_unmount;
	if (cl.singlethread) {
		ret = fuse_session_loop(se) < 0 ? 1 : 0;
		goto out_unmount;
	}
	/*
	 * An explicit loop config, destroyed here: the implicit one of the
	 * older entry point is never freed (LeakSanitizer sees it).
	 */
	loop_cfg = fuse_loop_cfg_create();
	if (!loop_cfg)
		goto out_unmount;
	fuse_loop_cfg_set_clone_fd(loop_cfg, (unsigned int)cl.clone_fd);
	fuse_loop_cfg_set_max_threads(loop_cfg, cl.max_threads);
	if (cl.max_idle_threads != UINT_MAX)
		fuse_loop_cfg_set_idle_threads(loop_cfg, cl.max_idle_threads);
	/* > 0: ended by a signal, which is a clean unmount too */
	ret = fuse_session_loop_mt(se, loop_cfg) < 0 ? 1 : 0;
	fuse_loop_cfg_destroy(loop_cfg);
out_unmount:
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
	stats_text(buf, sizeof(buf));
	fprintf(stderr, "daxfs: unmounted %s\n%s", opt.mnt, buf);
out_window:
	if (cache)
		dc_cache_destroy(cache);
	dc_mmapbe_destroy(be);
	dc_thread_unregister();
out_args:
	xino_free();
	free(daemon_groups);
	free(cl.mountpoint);
	free(opt.src);
	free(opt.window_arg);
	free(opt.shift_arg);
	free(opt.policy_arg);
	fuse_opt_free_args(&args);
	return ret;
}
