// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxvfsd's FUSE side: a host directory served through FUSE requests, and
 * the DAX window's mappings (FUSE_SETUPMAPPING, FUSE_REMOVEMAPPING).
 *
 * Node ids name host inodes, each held by an O_PATH descriptor; a file
 * handle is a descriptor opened through /proc/self/fd.  Every request is
 * counted by opcode (fs_write_counts).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/fuse.h>

#include "daxvfsd.h"

#define MAX_OPCODE	64
#define MAX_FD		65536
#define DAX_RANGE	(2u << 20)

struct node {
	int fd;			/* O_PATH */
	dev_t dev;
	ino_t ino;
	uint64_t nlookup;
};

static pthread_mutex_t nodes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node *nodes;	/* index: node id; 1 is the root */
static uint64_t nnodes;

static DIR *dirs[MAX_FD];	/* by the directory's descriptor (fh) */

static uint64_t counts[MAX_OPCODE];

/* The window: what is mapped where, to unmap before a map over it. */
struct mapping {
	uint64_t moffset, len;
	uint64_t foffset;
	dev_t dev;
	ino_t ino;
	int writable;
};
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mapping *maps;
static size_t nmaps, maps_cap;
static uint64_t window_size;
static int broken;
static const char *share_dir;
static int counts_on_lookup;
static int trace;	/* DAXVFSD_TRACE=1: every map and unmap on stderr */
/*
 * FUSE_SUBMOUNTS, negotiated at INIT: a directory on another file system
 * than its parent is looked up as a submount root (FUSE_ATTR_SUBMOUNT),
 * which the guest mounts on first access, on the same connection and
 * window.
 */
static int submounts;

/*
 * QEMU 11.1 refuses to map a range that the file's end cuts ("backing store
 * size ... is too small"), but the guest maps whole 2 MiB ranges, the
 * file's last one too.  Such a file is padded on the host up to the end of
 * the range while daxvfsd runs, and its real (logical) size is kept here:
 * the guest is told that size, reads stop at it, and the padding reads as
 * zeros once the file grows over it.  fs_finish() cuts the padding off.
 */
struct pad {
	dev_t dev;
	ino_t ino;
	int fd;			/* O_RDWR, to cut the padding off */
	uint64_t logical;
};
static pthread_mutex_t pad_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pad *pads;
static size_t npads, pads_cap;

/* Under pad_lock. */
static struct pad *pad_of(dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < npads; i++)
		if (pads[i].dev == dev && pads[i].ino == ino)
			return &pads[i];
	return NULL;
}

/* Under pad_lock: the file's padding off (its size set to the logical). */
static int pad_drop(struct pad *p)
{
	int err = ftruncate(p->fd, p->logical) < 0 ? -errno : 0;

	close(p->fd);
	*p = pads[--npads];
	return err;
}

static uint64_t logical_size(const struct stat *st)
{
	uint64_t size = st->st_size;
	struct pad *p;

	pthread_mutex_lock(&pad_lock);
	p = pad_of(st->st_dev, st->st_ino);
	if (p && p->logical < size)
		size = p->logical;
	pthread_mutex_unlock(&pad_lock);
	return size;
}

void fs_finish(void)
{
	pthread_mutex_lock(&pad_lock);
	while (npads)
		pad_drop(&pads[0]);
	pthread_mutex_unlock(&pad_lock);
}

static const char *const opnames[MAX_OPCODE] = {
	[FUSE_LOOKUP] = "LOOKUP", [FUSE_FORGET] = "FORGET", [FUSE_GETATTR] = "GETATTR",
	[FUSE_SETATTR] = "SETATTR", [FUSE_READLINK] = "READLINK", [FUSE_SYMLINK] = "SYMLINK",
	[FUSE_MKNOD] = "MKNOD", [FUSE_MKDIR] = "MKDIR", [FUSE_UNLINK] = "UNLINK",
	[FUSE_RMDIR] = "RMDIR", [FUSE_RENAME] = "RENAME", [FUSE_LINK] = "LINK",
	[FUSE_OPEN] = "OPEN", [FUSE_READ] = "READ", [FUSE_WRITE] = "WRITE",
	[FUSE_STATFS] = "STATFS", [FUSE_RELEASE] = "RELEASE", [FUSE_FSYNC] = "FSYNC",
	[FUSE_SETXATTR] = "SETXATTR", [FUSE_GETXATTR] = "GETXATTR",
	[FUSE_LISTXATTR] = "LISTXATTR", [FUSE_REMOVEXATTR] = "REMOVEXATTR",
	[FUSE_FLUSH] = "FLUSH", [FUSE_INIT] = "INIT", [FUSE_OPENDIR] = "OPENDIR",
	[FUSE_READDIR] = "READDIR", [FUSE_RELEASEDIR] = "RELEASEDIR",
	[FUSE_FSYNCDIR] = "FSYNCDIR", [FUSE_GETLK] = "GETLK", [FUSE_SETLK] = "SETLK",
	[FUSE_SETLKW] = "SETLKW", [FUSE_ACCESS] = "ACCESS", [FUSE_CREATE] = "CREATE",
	[FUSE_INTERRUPT] = "INTERRUPT", [FUSE_BMAP] = "BMAP", [FUSE_DESTROY] = "DESTROY",
	[FUSE_IOCTL] = "IOCTL", [FUSE_POLL] = "POLL", [FUSE_NOTIFY_REPLY] = "NOTIFY_REPLY",
	[FUSE_BATCH_FORGET] = "BATCH_FORGET", [FUSE_FALLOCATE] = "FALLOCATE",
	[FUSE_READDIRPLUS] = "READDIRPLUS", [FUSE_RENAME2] = "RENAME2",
	[FUSE_LSEEK] = "LSEEK", [FUSE_COPY_FILE_RANGE] = "COPY_FILE_RANGE",
	[FUSE_SETUPMAPPING] = "SETUPMAPPING", [FUSE_REMOVEMAPPING] = "REMOVEMAPPING",
	[FUSE_SYNCFS] = "SYNCFS",
};

void fs_write_counts(const char *path)
{
	char tmp[4096];
	FILE *f;
	int i;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	for (i = 0; i < MAX_OPCODE; i++) {
		uint64_t n = __atomic_load_n(&counts[i], __ATOMIC_RELAXED);

		if (n)
			fprintf(f, "%s %llu\n", opnames[i] ? opnames[i] : "OPCODE",
				(unsigned long long)n);
	}
	if (fclose(f) == 0)
		rename(tmp, path);
}

static void proc_path(char *buf, size_t len, int fd)
{
	snprintf(buf, len, "/proc/self/fd/%d", fd);
}

/* --- nodes ---------------------------------------------------------------- */

static int node_fd(uint64_t id)
{
	int fd = -1;

	pthread_mutex_lock(&nodes_lock);
	if (id && id < nnodes && nodes[id].fd >= 0)
		fd = nodes[id].fd;
	pthread_mutex_unlock(&nodes_lock);
	return fd;
}

/* The node of (fd, st), a lookup counted; fd is taken over. */
static uint64_t node_get(int fd, const struct stat *st)
{
	uint64_t id, free_id = 0;

	pthread_mutex_lock(&nodes_lock);
	for (id = 1; id < nnodes; id++) {
		if (nodes[id].fd < 0) {
			if (!free_id && id != 1)
				free_id = id;
			continue;
		}
		if (nodes[id].dev == st->st_dev && nodes[id].ino == st->st_ino) {
			nodes[id].nlookup++;
			pthread_mutex_unlock(&nodes_lock);
			close(fd);
			return id;
		}
	}
	if (!free_id) {
		struct node *n = realloc(nodes, (nnodes + 1) * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&nodes_lock);
			close(fd);
			return 0;
		}
		nodes = n;
		free_id = nnodes++;
	}
	nodes[free_id].fd = fd;
	nodes[free_id].dev = st->st_dev;
	nodes[free_id].ino = st->st_ino;
	nodes[free_id].nlookup = 1;
	pthread_mutex_unlock(&nodes_lock);
	return free_id;
}

static void node_forget(uint64_t id, uint64_t n)
{
	pthread_mutex_lock(&nodes_lock);
	if (id > 1 && id < nnodes && nodes[id].fd >= 0) {
		nodes[id].nlookup = nodes[id].nlookup > n ? nodes[id].nlookup - n : 0;
		if (!nodes[id].nlookup) {
			close(nodes[id].fd);
			nodes[id].fd = -1;
		}
	}
	pthread_mutex_unlock(&nodes_lock);
}

/*
 * What each SETUPMAPPING and REMOVEMAPPING costs at least, in microseconds
 * (--map-cost): under TCG the guest runs some hundred times slower than on
 * hardware while the host's map stays as fast, so a round trip costs the
 * guest far less than it does in a real virtio-fs deployment (seed 000's
 * host: about 100 us per round trip).  The wait is taken before the map
 * lock, as a daemon's worker waits for the VMM: other workers go on.
 */
static unsigned int map_cost_us;

void fs_set_map_cost(unsigned int us)
{
	map_cost_us = us;
}

static void pay_map_cost(void)
{
	struct timespec ts = {
		.tv_sec = map_cost_us / 1000000,
		.tv_nsec = (long)(map_cost_us % 1000000) * 1000,
	};

	if (map_cost_us)
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
}

int fs_init(const char *dir, uint64_t window, int break_mapping, int lookup_counts)
{
	struct stat st;
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	nodes = calloc(2, sizeof(*nodes));
	if (!nodes)
		return -1;
	nodes[0].fd = -1;
	nodes[1].fd = fd;
	nodes[1].dev = st.st_dev;
	nodes[1].ino = st.st_ino;
	nodes[1].nlookup = 1;
	nnodes = 2;
	window_size = window;
	broken = break_mapping;
	share_dir = dir;
	counts_on_lookup = lookup_counts;
	trace = getenv("DAXVFSD_TRACE") && !strcmp(getenv("DAXVFSD_TRACE"), "1");
	return 0;
}

/* --- replies ------------------------------------------------------------------ */

struct req {
	const struct fuse_in_header *h;
	const uint8_t *arg;	/* after the header */
	size_t arg_len;
	uint8_t *out;		/* the reply: header, then its payload */
	size_t out_max;
	size_t out_len;
};

static void *reply_buf(struct req *r, size_t len)
{
	if (sizeof(struct fuse_out_header) + len > r->out_max)
		return NULL;
	r->out_len = sizeof(struct fuse_out_header) + len;
	return r->out + sizeof(struct fuse_out_header);
}

static int reply(struct req *r, const void *p, size_t len)
{
	void *b = reply_buf(r, len);

	if (!b)
		return -EIO;
	memcpy(b, p, len);
	return 0;
}

static void fill_attr(struct fuse_attr *a, const struct stat *st)
{
	memset(a, 0, sizeof(*a));
	a->ino = st->st_ino;
	a->size = logical_size(st);
	a->blocks = st->st_blocks;
	a->atime = st->st_atim.tv_sec;
	a->mtime = st->st_mtim.tv_sec;
	a->ctime = st->st_ctim.tv_sec;
	a->atimensec = st->st_atim.tv_nsec;
	a->mtimensec = st->st_mtim.tv_nsec;
	a->ctimensec = st->st_ctim.tv_nsec;
	a->mode = st->st_mode;
	a->nlink = st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = st->st_rdev;
	a->blksize = st->st_blksize;
}

static int reply_attr(struct req *r, int fd)
{
	struct fuse_attr_out o = { .attr_valid = 1 };
	struct stat st;

	if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	fill_attr(&o.attr, &st);
	return reply(r, &o, sizeof(o));
}

/* Look name up in parent's directory: a counted node and its entry. */
static int lookup(int parent, const char *name, struct fuse_entry_out *e)
{
	struct stat st, pst;
	int fd = openat(parent, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	memset(e, 0, sizeof(*e));
	e->nodeid = node_get(fd, &st);
	if (!e->nodeid)
		return -ENOMEM;
	e->entry_valid = 1;
	e->attr_valid = 1;
	fill_attr(&e->attr, &st);
	if (submounts && S_ISDIR(st.st_mode) && fstat(parent, &pst) == 0 &&
	    pst.st_dev != st.st_dev)
		e->attr.flags |= FUSE_ATTR_SUBMOUNT;
	return 0;
}

/* --- the DAX window -------------------------------------------------------- */

/* Under map_lock: unmap every tracked mapping overlapping [m, m + len). */
static int unmap_overlapping(uint64_t m, uint64_t len)
{
	size_t i = 0;
	int err = 0;

	while (i < nmaps) {
		if (maps[i].moffset < m + len && m < maps[i].moffset + maps[i].len) {
			int e = vu_shmem_unmap(maps[i].moffset, maps[i].len);

			if (trace || e)
				fprintf(stderr, "daxvfsd: unmap window %llu+%llu (ino %llu offset %llu): %d\n",
					(unsigned long long)maps[i].moffset,
					(unsigned long long)maps[i].len,
					(unsigned long long)maps[i].ino,
					(unsigned long long)maps[i].foffset, e);
			if (e)
				err = e;
			maps[i] = maps[--nmaps];
			continue;
		}
		i++;
	}
	return err;
}

/* The file fd at least end bytes long, padded if it was shorter. */
static int pad_for_map(int fd, uint64_t end)
{
	struct stat st;
	struct pad *p;
	int err = 0;

	pthread_mutex_lock(&pad_lock);
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	if ((uint64_t)st.st_size >= end)
		goto out;
	p = pad_of(st.st_dev, st.st_ino);
	if (!p) {
		if (npads == pads_cap) {
			size_t cap = pads_cap ? 2 * pads_cap : 16;
			struct pad *n = realloc(pads, cap * sizeof(*n));

			if (!n) {
				err = -ENOMEM;
				goto out;
			}
			pads = n;
			pads_cap = cap;
		}
		p = &pads[npads];
		p->fd = dup(fd);
		if (p->fd < 0) {
			err = -errno;
			goto out;
		}
		p->dev = st.st_dev;
		p->ino = st.st_ino;
		p->logical = st.st_size;
		npads++;
	}
	if (ftruncate(fd, end) < 0)
		err = -errno;
out:
	pthread_mutex_unlock(&pad_lock);
	return err;
}

static int setupmapping(struct req *r)
{
	const struct fuse_setupmapping_in *in = (const void *)r->arg;
	int writable, map_writable, fd, nfd, err = 0;
	struct mapping *old = NULL;
	uint64_t foffset;
	struct stat st;
	char path[64];
	size_t i;

	if (r->arg_len < sizeof(*in))
		return -EINVAL;
	if (!in->len || in->moffset >= window_size || in->len > window_size - in->moffset)
		return -EINVAL;
	pay_map_cost();
	writable = !!(in->flags & FUSE_SETUPMAPPING_FLAG_WRITE);
	/* fs/fuse/dax.c sends fh -1: the node is what is mapped. */
	fd = node_fd(r->h->nodeid);
	if (fd < 0)
		return -EBADF;
	proc_path(path, sizeof(path), fd);
	/*
	 * Writable wherever the file can be opened for writing, even when the
	 * guest asks for a read-only range: the guest upgrades a live range to
	 * writable with a second SETUPMAPPING, and QEMU 11.1 can only replace a
	 * mapping by unmapping it first, which would leave a hole in the window
	 * that the guest's other readers of the range read as zeros (the
	 * faults check saw it).  With the range writable from the start, the
	 * upgrade changes nothing here.  (QEMU also maps a read-only range
	 * with PROT_WRITE, so it needs a writable descriptor anyway.)  The
	 * guest's page tables keep the range read-only until it asks.
	 */
	nfd = open(path, O_RDWR | O_CLOEXEC);
	map_writable = nfd >= 0;
	if (nfd < 0 && !writable)
		nfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nfd < 0)
		return -errno;
	if (fstat(nfd, &st) < 0) {
		err = -errno;
		close(nfd);
		return err;
	}
	foffset = in->foffset;
	/* The negative test's broken backend: every range maps the file's start. */
	if (broken)
		foffset = 0;
	pthread_mutex_lock(&map_lock);
	for (i = 0; i < nmaps; i++)
		if (maps[i].moffset == in->moffset && maps[i].len == in->len)
			old = &maps[i];
	if (old && old->dev == st.st_dev && old->ino == st.st_ino && old->foffset == foffset &&
	    (old->writable || !writable)) {
		if (trace)
			fprintf(stderr, "daxvfsd: map window %llu+%llu (ino %llu offset %llu%s): already\n",
				(unsigned long long)in->moffset, (unsigned long long)in->len,
				(unsigned long long)st.st_ino, (unsigned long long)foffset,
				writable ? " w" : "");
		goto out;	/* already mapped so */
	}
	err = pad_for_map(nfd, foffset + in->len);
	if (!err)
		err = unmap_overlapping(in->moffset, in->len);
	if (!err)
		err = vu_shmem_map(nfd, foffset, in->moffset, in->len, map_writable);
	if (trace && !err)
		fprintf(stderr, "daxvfsd: map window %llu+%llu (ino %llu offset %llu%s): done\n",
			(unsigned long long)in->moffset, (unsigned long long)in->len,
			(unsigned long long)st.st_ino, (unsigned long long)foffset,
			writable ? " w" : "");
	if (err) {
		fprintf(stderr, "daxvfsd: SETUPMAPPING at window %llu (%llu bytes of file offset %llu): %s\n",
			(unsigned long long)in->moffset, (unsigned long long)in->len,
			(unsigned long long)foffset, strerror(-err));
		goto out;
	}
	if (nmaps == maps_cap) {
		size_t cap = maps_cap ? 2 * maps_cap : 64;
		struct mapping *n = realloc(maps, cap * sizeof(*n));

		if (!n)
			abort();
		maps = n;
		maps_cap = cap;
	}
	maps[nmaps].moffset = in->moffset;
	maps[nmaps].len = in->len;
	maps[nmaps].foffset = foffset;
	maps[nmaps].dev = st.st_dev;
	maps[nmaps].ino = st.st_ino;
	maps[nmaps].writable = map_writable;
	nmaps++;
out:
	pthread_mutex_unlock(&map_lock);
	close(nfd);
	return err ? -EIO : reply(r, NULL, 0);
}

static int removemapping(struct req *r)
{
	const struct fuse_removemapping_in *in = (const void *)r->arg;
	const struct fuse_removemapping_one *one;
	uint32_t i;
	int err = 0;

	if (r->arg_len < sizeof(*in) ||
	    (r->arg_len - sizeof(*in)) / sizeof(*one) < in->count)
		return -EINVAL;
	one = (const void *)(r->arg + sizeof(*in));
	pay_map_cost();
	pthread_mutex_lock(&map_lock);
	for (i = 0; i < in->count; i++) {
		int e = unmap_overlapping(one[i].moffset, one[i].len);

		if (e)
			err = e;
	}
	pthread_mutex_unlock(&map_lock);
	return err ? -EIO : reply(r, NULL, 0);
}

/* --- the requests ----------------------------------------------------------- */

static const char *arg_name(struct req *r, size_t off)
{
	if (r->arg_len <= off || !memchr(r->arg + off, 0, r->arg_len - off))
		return NULL;
	return (const char *)r->arg + off;
}

static int do_init(struct req *r)
{
	const struct fuse_init_in *in = (const void *)r->arg;
	struct fuse_init_out o;

	if (r->arg_len < 16)
		return -EINVAL;
	memset(&o, 0, sizeof(o));
	o.major = FUSE_KERNEL_VERSION;
	o.minor = FUSE_KERNEL_MINOR_VERSION;
	if (in->minor < o.minor)
		o.minor = in->minor;
	o.max_readahead = in->max_readahead;
	o.flags = in->flags & (FUSE_ASYNC_READ | FUSE_BIG_WRITES | FUSE_MAP_ALIGNMENT |
			       FUSE_ATOMIC_O_TRUNC | FUSE_EXPORT_SUPPORT | FUSE_SUBMOUNTS);
	submounts = !!(o.flags & FUSE_SUBMOUNTS);
	o.max_background = 16;
	o.congestion_threshold = 12;
	o.max_write = 128 * 1024;
	o.time_gran = 1;
	/* log2 of the alignment of SETUPMAPPING's offsets: a page. */
	o.map_alignment = 12;
	return reply(r, &o, sizeof(o));
}

static int open_node(uint64_t id, int flags)
{
	char path[64];
	int fd = node_fd(id);

	if (fd < 0)
		return -EBADF;
	proc_path(path, sizeof(path), fd);
	/*
	 * Mapped for writing, a file must be readable; the guest sends the
	 * offset of every write, so O_APPEND would move it.
	 */
	flags &= ~(O_CREAT | O_EXCL | O_NOCTTY | O_APPEND);
	if ((flags & O_ACCMODE) == O_WRONLY)
		flags = (flags & ~O_ACCMODE) | O_RDWR;
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int do_setattr(struct req *r)
{
	const struct fuse_setattr_in *in = (const void *)r->arg;
	int fd = node_fd(r->h->nodeid);
	char path[64];

	if (r->arg_len < sizeof(*in))
		return -EINVAL;
	if (fd < 0)
		return -EBADF;
	proc_path(path, sizeof(path), fd);
	if ((in->valid & FATTR_MODE) && chmod(path, in->mode) < 0)
		return -errno;
	if (in->valid & (FATTR_UID | FATTR_GID)) {
		uid_t u = (in->valid & FATTR_UID) ? in->uid : (uid_t)-1;
		gid_t g = (in->valid & FATTR_GID) ? in->gid : (gid_t)-1;

		if (fchownat(fd, "", u, g, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	}
	if (in->valid & FATTR_SIZE) {
		struct stat st;
		struct pad *p;
		int e;

		/* The padding goes first: what grows back over it reads zeros. */
		pthread_mutex_lock(&pad_lock);
		if (fstatat(fd, "", &st, AT_EMPTY_PATH) == 0 &&
		    (p = pad_of(st.st_dev, st.st_ino)))
			pad_drop(p);
		e = (in->valid & FATTR_FH) ? ftruncate(in->fh, in->size) : truncate(path, in->size);
		pthread_mutex_unlock(&pad_lock);
		if (e < 0)
			return -errno;
	}
	if (in->valid & (FATTR_ATIME | FATTR_MTIME)) {
		struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };

		if (in->valid & FATTR_ATIME) {
			ts[0].tv_sec = in->atime;
			ts[0].tv_nsec = in->atimensec;
			if (in->valid & FATTR_ATIME_NOW)
				ts[0].tv_nsec = UTIME_NOW;
		}
		if (in->valid & FATTR_MTIME) {
			ts[1].tv_sec = in->mtime;
			ts[1].tv_nsec = in->mtimensec;
			if (in->valid & FATTR_MTIME_NOW)
				ts[1].tv_nsec = UTIME_NOW;
		}
		if (utimensat(AT_FDCWD, path, ts, 0) < 0)
			return -errno;
	}
	return reply_attr(r, fd);
}

static int do_readdir(struct req *r)
{
	const struct fuse_read_in *in = (const void *)r->arg;
	uint8_t *buf;
	size_t n = 0, max;
	DIR *d;

	if (r->arg_len < sizeof(*in) || in->fh >= MAX_FD || !dirs[in->fh])
		return -EBADF;
	d = dirs[in->fh];
	max = r->out_max - sizeof(struct fuse_out_header);
	if (max > in->size)
		max = in->size;
	buf = reply_buf(r, 0);
	if (!buf)
		return -EIO;
	if (in->offset == 0)
		rewinddir(d);
	else
		seekdir(d, in->offset);
	for (;;) {
		long pos = telldir(d);
		struct dirent *de;
		struct fuse_dirent *fd;
		size_t namelen, len;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				return -errno;
			break;
		}
		namelen = strlen(de->d_name);
		len = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);
		if (n + len > max) {
			seekdir(d, pos);
			break;
		}
		fd = (struct fuse_dirent *)(buf + n);
		memset(fd, 0, len);
		fd->ino = de->d_ino;
		fd->off = telldir(d);
		fd->namelen = namelen;
		fd->type = de->d_type;
		memcpy(fd->name, de->d_name, namelen);
		n += len;
	}
	r->out_len = sizeof(struct fuse_out_header) + n;
	return 0;
}

static int do_request(struct req *r)
{
	const struct fuse_in_header *h = r->h;
	struct fuse_entry_out e;
	const char *name;
	int fd, err;

	switch (h->opcode) {
	case FUSE_INIT:
		return do_init(r);
	case FUSE_DESTROY:
		return reply(r, NULL, 0);
	case FUSE_LOOKUP:
		name = arg_name(r, 0);
		fd = node_fd(h->nodeid);
		if (!name || fd < 0)
			return -EINVAL;
		/*
		 * The benchmark's hook (--counts-on-lookup): looking up
		 * .daxvfsd-counts-N in the root writes the counts there first,
		 * so the guest reads them between two measurements.
		 */
		if (counts_on_lookup && h->nodeid == 1 && !strncmp(name, ".daxvfsd-counts-", 16) &&
		    !strchr(name, '/')) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", share_dir, name);
			fs_write_counts(path);
		}
		err = lookup(fd, name, &e);
		return err ? err : reply(r, &e, sizeof(e));
	case FUSE_FORGET: {
		const struct fuse_forget_in *in = (const void *)r->arg;

		if (r->arg_len >= sizeof(*in))
			node_forget(h->nodeid, in->nlookup);
		return 1;	/* no reply */
	}
	case FUSE_BATCH_FORGET: {
		const struct fuse_batch_forget_in *in = (const void *)r->arg;
		const struct fuse_forget_one *one = (const void *)(r->arg + sizeof(*in));
		uint32_t i;

		if (r->arg_len < sizeof(*in) ||
		    (r->arg_len - sizeof(*in)) / sizeof(*one) < in->count)
			return 1;
		for (i = 0; i < in->count; i++)
			node_forget(one[i].nodeid, one[i].nlookup);
		return 1;
	}
	case FUSE_INTERRUPT:
		return 1;
	case FUSE_GETATTR:
		fd = node_fd(h->nodeid);
		return fd < 0 ? -EBADF : reply_attr(r, fd);
	case FUSE_SETATTR:
		return do_setattr(r);
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		const struct fuse_open_in *in = (const void *)r->arg;
		struct fuse_open_out o = { 0 };

		if (r->arg_len < sizeof(*in))
			return -EINVAL;
		if (h->opcode == FUSE_OPENDIR) {
			DIR *d;

			fd = open_node(h->nodeid, O_RDONLY | O_DIRECTORY);
			if (fd < 0)
				return fd;
			if (fd >= MAX_FD || !(d = fdopendir(fd))) {
				close(fd);
				return -EMFILE;
			}
			dirs[fd] = d;
		} else {
			fd = open_node(h->nodeid, in->flags);
			if (fd < 0)
				return fd;
		}
		o.fh = fd;
		return reply(r, &o, sizeof(o));
	}
	case FUSE_CREATE: {
		const struct fuse_create_in *in = (const void *)r->arg;
		struct {
			struct fuse_entry_out e;
			struct fuse_open_out o;
		} o;
		int parent = node_fd(h->nodeid);

		name = arg_name(r, sizeof(*in));
		if (r->arg_len < sizeof(*in) || !name || parent < 0)
			return -EINVAL;
		fd = openat(parent, name, (in->flags | O_CREAT) & ~(O_APPEND | O_NOCTTY),
			    in->mode & ~in->umask);
		if (fd < 0)
			return -errno;
		close(fd);
		err = lookup(parent, name, &o.e);
		if (err)
			return err;
		fd = open_node(o.e.nodeid, in->flags & ~(O_TRUNC | O_EXCL));
		if (fd < 0) {
			node_forget(o.e.nodeid, 1);
			return fd;
		}
		memset(&o.o, 0, sizeof(o.o));
		o.o.fh = fd;
		return reply(r, &o, sizeof(o));
	}
	case FUSE_MKDIR: {
		const struct fuse_mkdir_in *in = (const void *)r->arg;
		int parent = node_fd(h->nodeid);

		name = arg_name(r, sizeof(*in));
		if (r->arg_len < sizeof(*in) || !name || parent < 0)
			return -EINVAL;
		if (mkdirat(parent, name, in->mode & ~in->umask) < 0)
			return -errno;
		err = lookup(parent, name, &e);
		return err ? err : reply(r, &e, sizeof(e));
	}
	case FUSE_UNLINK:
	case FUSE_RMDIR:
		name = arg_name(r, 0);
		fd = node_fd(h->nodeid);
		if (!name || fd < 0)
			return -EINVAL;
		if (unlinkat(fd, name, h->opcode == FUSE_RMDIR ? AT_REMOVEDIR : 0) < 0)
			return -errno;
		return reply(r, NULL, 0);
	case FUSE_RENAME:
	case FUSE_RENAME2: {
		size_t off = h->opcode == FUSE_RENAME ? sizeof(struct fuse_rename_in) :
			     sizeof(struct fuse_rename2_in);
		const struct fuse_rename2_in *in = (const void *)r->arg;
		const char *to;
		int newdir;

		name = arg_name(r, off);
		if (r->arg_len < off || !name)
			return -EINVAL;
		to = arg_name(r, off + strlen(name) + 1);
		fd = node_fd(h->nodeid);
		newdir = node_fd(in->newdir);
		if (!to || fd < 0 || newdir < 0)
			return -EINVAL;
		if (renameat2(fd, name, newdir, to,
			      h->opcode == FUSE_RENAME2 ? in->flags : 0) < 0)
			return -errno;
		return reply(r, NULL, 0);
	}
	case FUSE_READ: {
		const struct fuse_read_in *in = (const void *)r->arg;
		size_t max = r->out_max - sizeof(struct fuse_out_header);
		uint64_t size;
		struct stat st;
		uint8_t *b;
		ssize_t n;

		if (r->arg_len < sizeof(*in))
			return -EINVAL;
		if (max > in->size)
			max = in->size;
		if (fstat(in->fh, &st) < 0)
			return -errno;
		size = logical_size(&st);
		if (in->offset >= size)
			max = 0;
		else if (max > size - in->offset)
			max = size - in->offset;
		b = reply_buf(r, 0);
		n = pread(in->fh, b, max, in->offset);
		if (n < 0)
			return -errno;
		r->out_len = sizeof(struct fuse_out_header) + n;
		return 0;
	}
	case FUSE_WRITE: {
		const struct fuse_write_in *in = (const void *)r->arg;
		struct fuse_write_out o = { 0 };
		struct pad *p = NULL;
		struct stat st;
		ssize_t n;

		if (r->arg_len < sizeof(*in) || r->arg_len - sizeof(*in) < in->size)
			return -EINVAL;
		pthread_mutex_lock(&pad_lock);
		if (fstat(in->fh, &st) == 0 && (p = pad_of(st.st_dev, st.st_ino))) {
			/* A write past the logical end: the padding before it is zeros. */
			if (in->offset > p->logical) {
				static const uint8_t zeros[4096];
				uint64_t o = p->logical, end = in->offset;

				if (end > (uint64_t)st.st_size)
					end = st.st_size;
				while (o < end) {
					size_t l = end - o < sizeof(zeros) ? end - o : sizeof(zeros);

					if (pwrite(in->fh, zeros, l, o) != (ssize_t)l)
						break;
					o += l;
				}
			}
		}
		n = pwrite(in->fh, r->arg + sizeof(*in), in->size, in->offset);
		if (n > 0 && p && in->offset + n > p->logical)
			p->logical = in->offset + n;
		pthread_mutex_unlock(&pad_lock);
		if (n < 0)
			return -EIO;
		o.size = n;
		return reply(r, &o, sizeof(o));
	}
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR: {
		const struct fuse_release_in *in = (const void *)r->arg;

		if (r->arg_len < sizeof(*in) || in->fh >= MAX_FD)
			return -EINVAL;
		if (h->opcode == FUSE_RELEASEDIR && dirs[in->fh]) {
			closedir(dirs[in->fh]);
			dirs[in->fh] = NULL;
		} else {
			close(in->fh);
		}
		return reply(r, NULL, 0);
	}
	case FUSE_FLUSH:
		return reply(r, NULL, 0);
	case FUSE_FSYNC:
	case FUSE_FSYNCDIR: {
		const struct fuse_fsync_in *in = (const void *)r->arg;

		if (r->arg_len < sizeof(*in))
			return -EINVAL;
		fd = in->fh;
		if (h->opcode == FUSE_FSYNCDIR && in->fh < MAX_FD && dirs[in->fh])
			fd = dirfd(dirs[in->fh]);
		if (((in->fsync_flags & 1) ? fdatasync(fd) : fsync(fd)) < 0)
			return -errno;
		return reply(r, NULL, 0);
	}
	case FUSE_READDIR:
		return do_readdir(r);
	case FUSE_STATFS: {
		struct fuse_statfs_out o;
		struct statvfs sv;

		fd = node_fd(h->nodeid);
		if (fd < 0)
			fd = node_fd(1);
		if (fstatvfs(fd, &sv) < 0)
			return -errno;
		memset(&o, 0, sizeof(o));
		o.st.blocks = sv.f_blocks;
		o.st.bfree = sv.f_bfree;
		o.st.bavail = sv.f_bavail;
		o.st.files = sv.f_files;
		o.st.ffree = sv.f_ffree;
		o.st.bsize = sv.f_bsize;
		o.st.namelen = sv.f_namemax;
		o.st.frsize = sv.f_frsize;
		return reply(r, &o, sizeof(o));
	}
	case FUSE_SETUPMAPPING:
		return setupmapping(r);
	case FUSE_REMOVEMAPPING:
		return removemapping(r);
	default:
		return -ENOSYS;
	}
}

size_t fs_request(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_max)
{
	const struct fuse_in_header *h = (const void *)in;
	struct fuse_out_header *oh = (void *)out;
	struct req r;
	int err;

	if (in_len < sizeof(*h) || out_max < sizeof(*oh))
		return 0;
	if (h->opcode < MAX_OPCODE)
		__atomic_fetch_add(&counts[h->opcode], 1, __ATOMIC_RELAXED);
	r.h = h;
	r.arg = in + sizeof(*h);
	r.arg_len = in_len - sizeof(*h);
	if (h->len < in_len && h->len >= sizeof(*h))
		r.arg_len = h->len - sizeof(*h);
	r.out = out;
	r.out_max = out_max;
	r.out_len = sizeof(*oh);
	err = do_request(&r);
	if (err > 0)
		return 0;	/* FORGET, INTERRUPT: no reply */
	if (err < 0)
		r.out_len = sizeof(*oh);
	oh->len = r.out_len;
	oh->error = err;
	oh->unique = h->unique;
	return r.out_len;
}
