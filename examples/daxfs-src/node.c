// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * node.c - the source inodes the kernel knows (struct dfs_node), their inode
 * numbers under MNT, and the registration of an open regular file with the
 * mmap backend and the cache (dfs_dax_attach()).
 */
#include "daxfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NR_BUCKETS	4096

struct dfs_node dfs_root;
struct dfs_node dfs_stats_node;
static struct dfs_node *table[NR_BUCKETS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The inode numbers of files that are not on SRC's device (SRC spans
 * mounts), or whose number has DAXFS_XINO_BIT set: each (dev, ino) gets the
 * next DAXFS_XINO_BIT | n once and keeps it for the life of the mount, so
 * that no two files under MNT show the same st_ino (they all share MNT's
 * st_dev).
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

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The nodes whose map_fd is open, by cache inode id (fino), for the pool's
 * writebacks at reclaim (dfs_pool_writeback()), which the library calls with
 * only an id.  fd_lock nests inside open_lock and inside the library's
 * inode mutexes; nothing that holds it calls into the library.
 */
static struct dfs_node *fd_table[NR_BUCKETS];
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned int bucket(dev_t dev, ino_t ino)
{
	return (unsigned int)((ino * 0x9e3779b97f4a7c15ull ^ dev) % NR_BUCKETS);
}

/* fd_table: @n's map_fd is open, or about to be closed. */
static void fd_table_add(struct dfs_node *n)
{
	struct dfs_node **head = &fd_table[n->fino % NR_BUCKETS];

	pthread_mutex_lock(&fd_lock);
	n->fd_next = *head;
	*head = n;
	pthread_mutex_unlock(&fd_lock);
}

static void fd_table_del(struct dfs_node *n)
{
	struct dfs_node **pp;

	pthread_mutex_lock(&fd_lock);
	for (pp = &fd_table[n->fino % NR_BUCKETS]; *pp; pp = &(*pp)->fd_next) {
		if (*pp == n) {
			*pp = n->fd_next;
			break;
		}
	}
	pthread_mutex_unlock(&fd_lock);
}

/* A descriptor of its own of the file of cache inode @fino, or -1. */
int dfs_fd_table_dup(uint64_t fino)
{
	struct dfs_node *n;
	int fd = -1;

	pthread_mutex_lock(&fd_lock);
	for (n = fd_table[fino % NR_BUCKETS]; n; n = n->fd_next)
		if (n->fino == fino)
			break;
	if (n)
		fd = fcntl(n->map_fd, F_DUPFD_CLOEXEC, 0);
	pthread_mutex_unlock(&fd_lock);
	return fd;
}

int dfs_stat_fd(int fd, struct stat *st)
{
	return fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/*
 * The st_ino shown under MNT for the source inode (@dev, @ino): @ino itself
 * on SRC's device, a number of dfs_map_ino()'s own elsewhere; 0 if out of
 * memory.
 */
uint64_t dfs_map_ino(dev_t dev, ino_t ino)
{
	unsigned int b = bucket(dev, ino);
	struct xino *x;
	uint64_t fino = 0;

	if (dev == dfs_root.dev && !((uint64_t)ino & DAXFS_XINO_BIT))
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
			x->fino = DAXFS_XINO_BIT | xino_next++;
			x->next = xino_table[b];
			xino_table[b] = x;
		}
	}
	if (x)
		fino = x->fino;
	pthread_mutex_unlock(&xino_lock);
	return fino;
}

void dfs_xino_free(void)
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
 * Find or add the node of @st (holding @fd, which it takes or closes), whose
 * exported inode number is @fino.
 */
static struct dfs_node *find_or_add(const struct stat *st, int fd, uint64_t fino)
{
	unsigned int b = bucket(st->st_dev, st->st_ino);
	struct dfs_node *n;

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
	pthread_mutex_init(&n->dirty_lock, NULL);
	n->next = table[b];
	table[b] = n;
	pthread_mutex_unlock(&table_lock);
	return n;
}

void dfs_forget_node(struct dfs_node *n, uint64_t count)
{
	struct dfs_node **pp;

	if (n == &dfs_root || n == &dfs_stats_node)
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
	dc_attr_destroy(n->attr);
	pthread_rwlock_destroy(&n->io_lock);
	pthread_mutex_destroy(&n->dirty_lock);
	free(n->dirty);
	free(n);
}

/* Look up @name in @parent and fill @e; the node gains a lookup reference. */
int dfs_do_lookup(struct dfs_node *parent, const char *name, struct fuse_entry_param *e)
{
	struct dfs_node *n;
	uint64_t fino;
	int fd, err;

	memset(e, 0, sizeof(*e));
	e->attr_timeout = DAXFS_TIMEOUT_S;
	e->entry_timeout = DAXFS_TIMEOUT_S;
	if (parent == &dfs_root && !strcmp(name, DAXFS_STATS_NAME)) {
		e->ino = (fuse_ino_t)(uintptr_t)&dfs_stats_node;
		e->attr_timeout = 0;
		dfs_stats_attr(&e->attr);
		return 0;
	}
	fd = openat(parent->path_fd, name, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	err = dfs_stat_fd(fd, &e->attr);
	if (err) {
		close(fd);
		return err;
	}
	fino = dfs_map_ino(e->attr.st_dev, e->attr.st_ino);
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
void dfs_proc_path(struct dfs_node *n, char *path, size_t size)
{
	snprintf(path, size, "/proc/self/fd/%d", n->path_fd);
}

/* Open the source of @n with @flags through /proc. */
int dfs_reopen(struct dfs_node *n, int flags)
{
	char path[64];

	dfs_proc_path(n, path, sizeof(path));
	/* O_DIRECT is the kernel's business: our buffers need not be aligned. */
	return open(path, flags & ~(O_NOFOLLOW | O_DIRECT));
}

/*
 * The clock of the attribute cache, in ns: CLOCK_MONOTONIC_COARSE, read on
 * every read of a file.  It advances once a scheduler tick (1-10 ms, far
 * below any useful --attr-timeout; --attr-timeout=0 still refreshes on
 * every read, the attributes being valid only while now < deadline), and
 * costs a fraction of the fine clock: timed in a loop of 5 million calls
 * on a 2-CPU virtual machine (a paravirtual clock), CLOCK_MONOTONIC took
 * 84-93 ns a call, CLOCK_MONOTONIC_COARSE 18-20 ns.
 */
uint64_t dfs_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The attribute cache's invalidate hook: a refresh found the
 * source smaller than the cache knew it, so another process truncated it
 * behind daxfs's back: punch the window mappings past the new end, whose
 * pages the file no longer has.  A changed mtime (or a grown file) drops
 * nothing: the window maps the file MAP_SHARED, so it shows every write
 * to the file, made through it or not.  Called by a read of @data (a
 * struct dfs_node), which holds the file open (n->dci stays) and no pin.
 */
static void attr_invalidate(void *data, const struct dc_attr_values *old,
			    const struct dc_attr_values *cur)
{
	struct dfs_node *n = data;

	if (cur->size >= old->size)
		return;
	atomic_fetch_add_explicit(&dfs_n_attr_shrinks, 1, memory_order_relaxed);
	/* A range another read holds pinned stays; reading it past the end falls back. */
	if (dc_inode_punch(n->dci, cur->size, UINT64_MAX))
		atomic_fetch_add_explicit(&dfs_n_attr_punch_busy, 1, memory_order_relaxed);
}

/* First open of a regular file in dax mode: register it with the cache. */
int dfs_dax_attach(struct dfs_node *n)
{
	struct dc_attr_config ap = {
		.timeout_ns = dfs_opt.attr_timeout_ns,
		.rule = DC_ATTR_RULE_TIMEOUT,
		.auto_inval = true,
		.invalidate = attr_invalidate,
		.data = n,
	};
	int err = 0;

	if (dfs_opt.no_dax)
		return 0;
	pthread_mutex_lock(&open_lock);
	if (n->nopen++) {
		pthread_mutex_unlock(&open_lock);
		return 0;
	}
	n->map_fd = dfs_reopen(n, O_RDWR);
	if (n->map_fd < 0)
		n->map_fd = dfs_reopen(n, O_RDONLY);
	if (n->map_fd < 0) {
		err = -errno;
		goto fail;
	}
	err = dc_mmapbe_add_file(dfs_be, n->fino, n->map_fd);
	if (err)
		goto fail_close;
	fd_table_add(n);
	err = dc_inode_get(dfs_cache, n->fino, &n->dci);
	if (err)
		goto fail_remove;
	/*
	 * Kept until the node is forgotten, across closes: a file opened
	 * again trusts what it learnt until the timeout.  None yet: the
	 * first read refreshes them.
	 */
	if (!n->attr) {
		err = dc_attr_create(&ap, sizeof(ap), &n->attr);
		if (err)
			goto fail_put;
	}
	pthread_mutex_unlock(&open_lock);
	return 0;
fail_put:
	dc_inode_put(n->dci);
fail_remove:
	fd_table_del(n);
	dc_mmapbe_remove_file(dfs_be, n->fino);
fail_close:
	close(n->map_fd);
fail:
	n->map_fd = -1;
	n->dci = NULL;
	n->nopen--;
	pthread_mutex_unlock(&open_lock);
	return err;
}

void dfs_dax_detach(struct dfs_node *n)
{
	if (dfs_opt.no_dax)
		return;
	pthread_mutex_lock(&open_lock);
	if (--n->nopen) {
		pthread_mutex_unlock(&open_lock);
		return;
	}
	/* Its eviction's writebacks, if it runs now, still find the fd. */
	dc_inode_put(n->dci);
	n->dci = NULL;
	fd_table_del(n);
	dc_mmapbe_remove_file(dfs_be, n->fino);
	close(n->map_fd);
	n->map_fd = -1;
	pthread_mutex_unlock(&open_lock);
}

/*
 * Punch the window mappings of @n from @size on, before the source is
 * truncated to @size; called with n->io_lock held exclusive, so that no
 * read or write maps a range again (or copies from one) until the
 * truncation is done; the cached attributes are made stale, so that the
 * next read learns the new size.  0 or -errno.
 */
int dfs_punch_window(struct dfs_node *n, off_t size)
{
	int err = 0;

	pthread_mutex_lock(&open_lock);
	if (n->dci)
		err = dc_inode_punch(n->dci, (uint64_t)size, UINT64_MAX);
	/* The size changes: the next read asks the source. */
	if (n->attr)
		dc_attr_expire(n->attr);
	pthread_mutex_unlock(&open_lock);
	return err;
}

/* The node of SRC, the root of the mount; 0 or -1 (said why). */
int dfs_root_init(void)
{
	struct stat st;

	dfs_root.path_fd = open(dfs_opt.src, O_PATH | O_DIRECTORY);
	if (dfs_root.path_fd < 0 || dfs_stat_fd(dfs_root.path_fd, &st)) {
		fprintf(stderr, "daxfs: %s: %s\n", dfs_opt.src, strerror(errno));
		return -1;
	}
	dfs_root.dev = st.st_dev;
	dfs_root.ino = st.st_ino;
	dfs_root.fino = dfs_map_ino(st.st_dev, st.st_ino);
	dfs_root.nlookup = 1;
	dfs_root.map_fd = -1;
	pthread_rwlock_init(&dfs_root.io_lock, NULL);
	pthread_mutex_init(&dfs_root.dirty_lock, NULL);
	return 0;
}
