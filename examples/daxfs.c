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
 * = the inode number shown, see map_ino()) and read and write go through
 * the window, as a virtio-fs guest does with its DAX window: dc_map() the
 * range, copy with dc_mmapbe_write() (a write) or reply straight from the
 * pinned range (a read of 8 KiB or more: zc_read() splices it to
 * /dev/fuse; smaller ones are copied with dc_mmapbe_read()), dc_unpin().
 * Reads are clipped to the file size; writes that reach past the end of
 * the file go to pwrite() (a window range past EOF cannot be touched),
 * and a truncate (setattr, or an open with O_TRUNC) punches the inode's
 * mappings and truncates under the inode's I/O lock held exclusive.  A source file truncated behind
 * daxfs's back (in SRC, by another program) makes a copy through the window
 * fail with -EIO instead of SIGBUS; the read or write is then served with
 * pread()/pwrite().
 * Under the default policy every dc_map() passes DC_MAP_MAY_BYPASS, and a
 * range the cache answers DC_MAP_BYPASS for (admission control: mapping it
 * would only churn the window) is read with pread(); and writes are all
 * pwrite()s, which never make a mapping writable (see dfs_write()).  Once
 * the window is full, the cache's eviction budget lets a read miss
 * replace a mapping at most once per --evict-interval references
 * (sequential streams excepted: config.admit_evict_interval, see
 * cache_start()); daxfs has no admission rule of its own.
 * With --no-dax every read and write is a plain pread()/pwrite().
 * With --io-engine=uring those direct reads and writes (--no-dax, the
 * extending and appending writes, and what the cache bypasses whole) go
 * through an io_uring ring behind a dc_reqq instead (seed 002: see
 * uring_io()).
 *
 * Attributes by the rule of seed 001 (FUSE: update attributes on read only
 * on timeout): each open file's size and mtime are cached in a struct
 * dc_attr, and a read fstat()s the source only when it reaches past the
 * cached size or the attributes are older than --attr-timeout (or made
 * stale: by daxfs's own truncate, or a copy that met a page past the end).
 * A refresh that finds the file smaller (truncated by another process)
 * punches the window mappings past the new end.  Writes still fstat(),
 * and grow the cached size to what they wrote.
 *
 * Commit after writeback (seed 004): fsync writes back the ranges written
 * through the window since the last fsync in parallel, on a small pool of
 * threads whose jobs hold slots of a dc_slot table, and the last writeback
 * to complete issues the one fdatasync() (the COMMIT) and the reply, through
 * a dc_iocomp (see dfs_fsync()).
 *
 * The cache counters can be read at any time from /.daxfs-stats in the
 * mount root and are logged when the filesystem is unmounted (fuse_log():
 * stderr in the foreground; a daemon's go to -o log=FILE, or syslog).
 * Its line "tracing:" points to the events behind the counters: the
 * library's USDT probes (README.md, "Tracing").
 * Daemonized, what can fail to start (the ring, the cache, the writeback
 * pool) runs before the parent exits (see daemon_begin()).
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
#include <fuse_log.h>
#include <fuse_lowlevel.h>
#ifdef DAXFS_URING
#include <liburing.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
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
#include <sys/uio.h>
#include <sys/xattr.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define STATS_NAME	".daxfs-stats"
#define STATS_MAX	4096
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
	atomic_bool atime_due;		/* see touch_atime() */
	int map_fd;			/* registered with the backend while nopen */
	struct dnode *fd_next;		/* fd_table chain, while map_fd is open */
	struct dc_inode *dci;
	struct dc_attr *attr;		/* cached size and mtime, from the first open on */
	pthread_mutex_t dirty_lock;
	uint64_t *dirty;		/* ranges written through the window since fsync */
	size_t dirty_words;
};

struct dfile {
	int fd;
	DIR *dir;
	char *text;			/* the stats snapshot */
	size_t text_len;
	struct dfile *next, *prev;	/* stats_files */
};

/*
 * The open stats files: a release that the kernel has not sent when the
 * mount goes away (a close just before the unmount) leaves its file here,
 * freed at exit.
 */
static struct dfile stats_files = { .next = &stats_files, .prev = &stats_files };
static pthread_mutex_t stats_files_lock = PTHREAD_MUTEX_INITIALIZER;

/* What a setup costs the cache's admission rule, in pread()s of the backing file. */
#define DAXFS_SETUP_COST	8u

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
	bool uring;			/* --io-engine=uring */
	bool retry_timer;		/* --retry=timer */
	unsigned int ring_depth;
	char *engine_arg;
	char *depth_arg;
	char *retry_arg;
	uint64_t attr_timeout_ns;
	char *attr_timeout_arg;
	uint64_t evict_interval;	/* --evict-interval: see cache_start() */
	char *evict_arg;
	uint64_t setup_cost;		/* --setup-cost: see cache_start() */
	char *cost_arg;
	char *window_arg;
	char *shift_arg;
	char *policy_arg;
	char *log_arg;			/* -o log=FILE */
	int allow_other;		/* -o allow_other given (kept for libfuse) */
	int default_permissions;	/* -o default_permissions given (kept) */
	int no_default_permissions;	/* -o no_default_permissions: see main() */
	char *src;
	const char *mnt;
} opt = {
	.window_size = 256ull << 20,
	.range_shift = 21,
	.policy = "default",
	.attr_timeout_ns = 1000000000ull,
	.ring_depth = 16,
	.evict_interval = 256,
	.setup_cost = DAXFS_SETUP_COST,
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

/*
 * Where fuse_log() (daxfs's messages and libfuse's) goes: stderr (the
 * terminal in the foreground, the -o log=FILE of a daemon), or syslog for a
 * daemon without one (its stderr is then /dev/null).
 */
static bool log_syslog;

static void dfs_log(enum fuse_log_level level, const char *fmt, va_list ap)
{
	if (log_syslog)
		vsyslog((int)level, fmt, ap);	/* the levels are syslog's */
	else
		vfprintf(stderr, fmt, ap);
}

/* fuse_log() @text line by line (syslog keeps one message per line). */
static void log_lines(enum fuse_log_level level, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		int len = nl ? (int)(nl - text) : (int)strlen(text);

		fuse_log(level, "%.*s\n", len, text);
		text += len + (nl ? 1 : 0);
	}
}
static gid_t *daemon_groups;
static int daemon_ngroups;
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The nodes whose map_fd is open, by cache inode id (fino), for the pool's
 * writebacks at reclaim (pool_writeback()), which the library calls with
 * only an id.  fd_lock nests inside open_lock and inside the library's
 * inode mutexes; nothing that holds it calls into the library.
 */
static struct dnode *fd_table[NR_BUCKETS];
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

static struct dc_mmapbe *be;

/*
 * Built with -DDAXFS_TIMING (x86-64): the time from the start of every read
 * of a file to its reply call (lfence; rdtsc), summed and shown in
 * .daxfs-stats as read_handler_ns per read, the TSC calibrated against
 * CLOCK_MONOTONIC since the start.  The reply itself is left out: it wakes
 * the reader, who may run on this CPU before writev() returns.  This is
 * how the per-read figures in the comments on read_size() and the
 * eviction budget were measured (with more marks between, for the parts).
 */
#if defined(DAXFS_TIMING) && defined(__x86_64__)
#include <x86intrin.h>
static atomic_uint_fast64_t t_cycles, t_reads;
static uint64_t t_tsc0, t_ns0;
static __thread uint64_t tl_start, tl_reply;

static uint64_t timing_tsc(void)
{
	_mm_lfence();
	return __rdtsc();
}

#define T_START()	(tl_start = timing_tsc(), tl_reply = 0)
#define T_REPLY()	(tl_reply = timing_tsc())
#define T_END()								\
	do {								\
		if (tl_reply) {						\
			atomic_fetch_add(&t_cycles, tl_reply - tl_start); \
			atomic_fetch_add(&t_reads, 1);			\
		}							\
	} while (0)
#else
#define T_START()	do { } while (0)
#define T_REPLY()	do { } while (0)
#define T_END()		do { } while (0)
#endif
static struct dc_cache *cache;

static atomic_uint_fast64_t n_reads, n_writes, n_ext_writes, n_fallbacks, n_bypassed;
/* Writes the default policy served with pwrite() (see dfs_write()). */
static atomic_uint_fast64_t n_direct_writes;
/* Seed 001: reads that refreshed the attributes, and the shrinks they found. */
static atomic_uint_fast64_t n_attr_refreshes, n_attr_shrinks, n_attr_punch_busy;
/* Reads replied from the window without a copy; those that met a page past the end. */
static atomic_uint_fast64_t n_zc_reads, n_zc_faults;
/* Seed 004: fsync COMMITs, the writebacks they waited for, and their errors. */
static atomic_uint_fast64_t n_commits, n_commit_wbs, n_wb_errors;
/*
 * Seed 004 at reclaim: writebacks of reclaimed (or evicted, or punched)
 * writable ranges done on the pool, their errors, and those done inline
 * with the backend's msync() because the pool or a descriptor was missing.
 */
static atomic_uint_fast64_t n_rc_wbs, n_rc_wb_errors, n_rc_wb_inline;
/*
 * The io_uring engine: CQEs reaped, submit op calls by the retry timer,
 * requests parked, requests failed back to FUSE.
 */
static atomic_uint_fast64_t n_u_completions, n_u_timer_retries, n_u_parks, n_u_errors;
static void uring_stats(struct dc_reqq_stats *st);
/* dc_map() flags of every access: DC_MAP_MAY_BYPASS under the default policy. */
static unsigned int map_flags;

/* The mmap backend's ops, which daxfs's writeback falls back on. */
static const struct dc_backend_ops *be_ops;
/* The largest read zc_read() replies to: zc_init(), 0 without splice. */
static size_t zc_max;

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

/* fd_table: @n's map_fd is open, or about to be closed. */
static void fd_table_add(struct dnode *n)
{
	struct dnode **head = &fd_table[n->fino % NR_BUCKETS];

	pthread_mutex_lock(&fd_lock);
	n->fd_next = *head;
	*head = n;
	pthread_mutex_unlock(&fd_lock);
}

static void fd_table_del(struct dnode *n)
{
	struct dnode **pp;

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
static int fd_table_dup(uint64_t fino)
{
	struct dnode *n;
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

/* Whether the caller of @req has @gid as its group or one of its groups. */
static bool caller_in_group(fuse_req_t req, gid_t gid)
{
	gid_t groups[64];
	int i, n;

	if (fuse_req_ctx(req)->gid == gid)
		return true;
	n = fuse_req_getgroups(req, 64, groups);
	for (i = 0; i < n && i < 64; i++)
		if (groups[i] == gid)
			return true;
	return false;
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
	struct dc_reqq_stats rq;
	uint64_t reads = (uint64_t)atomic_load(&n_reads);
	uint64_t refreshes = (uint64_t)atomic_load(&n_attr_refreshes);
	uint64_t commits = (uint64_t)atomic_load(&n_commits);
	uint64_t wbs = (uint64_t)atomic_load(&n_commit_wbs);
	uint64_t bypassed = (uint64_t)atomic_load(&n_bypassed);
	int len;

	memset(&st, 0, sizeof(st));
	if (cache)
		dc_cache_stats(cache, &st, sizeof(st));
	uring_stats(&rq);
	len = snprintf(buf, size,
		       "mode: %s\n"
		       "policy: %s\n"
		       "window_size: %" PRIu64 "\n"
		       "range_size: %" PRIu64 "\n"
		       "reads: %" PRIu64 "\n"
		       "writes: %" PRIu64 "\n"
		       "extending_writes: %" PRIu64 "\n"
		       "direct_writes: %" PRIu64 "\n"
		       "fallbacks: %" PRIu64 "\n"
		       "bypassed_ios: %" PRIu64 "\n"
		       "evict_interval: %" PRIu64 "\n"
		       "setup_cost: %" PRIu64 "\n"
		       "bypass_budget: %" PRIu64 "\n"
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
		       "nr_mapped: %" PRIu64 "\n"
		       "hits_per_10k_reads: %" PRIu64 "\n"
		       "setups_per_10k_reads: %" PRIu64 "\n"
		       "bypassed_per_10k_reads: %" PRIu64 "\n"
		       "attr_timeout_ns: %" PRIu64 "\n"
		       "attr_refreshes: %" PRIu64 "\n"
		       "attr_refreshes_per_10k_reads: %" PRIu64 "\n"
		       "attr_shrinks: %" PRIu64 "\n"
		       "attr_punch_busy: %" PRIu64 "\n"
		       "zero_copy_reads: %" PRIu64 "\n"
		       "zero_copy_faults: %" PRIu64 "\n"
		       "commits: %" PRIu64 "\n"
		       "commit_writebacks: %" PRIu64 "\n"
		       "writebacks_per_commit: %" PRIu64 ".%02" PRIu64 "\n"
		       "writeback_errors: %" PRIu64 "\n"
		       "reclaim_writebacks: %" PRIu64 "\n"
		       "reclaim_writeback_errors: %" PRIu64 "\n"
		       "reclaim_writebacks_inline: %" PRIu64 "\n"
		       "io_engine: %s\n"
		       "retry: %s\n"
		       "ring_depth: %u\n"
		       "uring_submits: %" PRIu64 "\n"
		       "uring_completions: %" PRIu64 "\n"
		       "uring_ring_full: %" PRIu64 "\n"
		       "uring_parks: %" PRIu64 "\n"
		       "uring_resubmits: %" PRIu64 "\n"
		       "uring_timer_retries: %" PRIu64 "\n"
		       "uring_errors: %" PRIu64 "\n"
		       "uring_parked: %" PRIu64 "\n"
		       "uring_in_flight: %" PRIu64 "\n"
		       "tracing: each miss, bypass, reclaim, wait: see README.md, Tracing\n",
		       opt.no_dax ? "no-dax" : "dax", opt.policy,
		       opt.window_size, (uint64_t)1 << opt.range_shift,
		       reads, (uint64_t)atomic_load(&n_writes),
		       (uint64_t)atomic_load(&n_ext_writes),
		       (uint64_t)atomic_load(&n_direct_writes),
		       (uint64_t)atomic_load(&n_fallbacks),
		       bypassed,
		       map_flags ? opt.evict_interval : 0,
		       map_flags ? opt.setup_cost : 0, st.bypass_budget,
		       st.hits, st.misses, st.bypasses, st.bypass_full,
		       st.bypass_busy, st.bypass_write, st.admits_contested, st.upgrades, st.inline_reclaims,
		       st.bg_reclaims, st.removes_sent, st.removes_skipped,
		       st.remove_batches, st.waits, st.wait_ns, st.setup_failures,
		       st.writebacks, st.nr_free, st.nr_mapped,
		       reads ? st.hits * 10000 / reads : 0,
		       reads ? st.misses * 10000 / reads : 0,
		       reads ? bypassed * 10000 / reads : 0,
		       opt.attr_timeout_ns, refreshes,
		       reads ? refreshes * 10000 / reads : 0,
		       (uint64_t)atomic_load(&n_attr_shrinks),
		       (uint64_t)atomic_load(&n_attr_punch_busy),
		       (uint64_t)atomic_load(&n_zc_reads),
		       (uint64_t)atomic_load(&n_zc_faults),
		       commits, wbs, commits ? wbs / commits : 0,
		       commits ? wbs * 100 / commits % 100 : 0,
		       (uint64_t)atomic_load(&n_wb_errors),
		       (uint64_t)atomic_load(&n_rc_wbs),
		       (uint64_t)atomic_load(&n_rc_wb_errors),
		       (uint64_t)atomic_load(&n_rc_wb_inline),
		       opt.uring ? "uring" : "sync",
		       opt.retry_timer ? "timer" : "completion", opt.ring_depth,
		       rq.submitted, (uint64_t)atomic_load(&n_u_completions),
		       rq.enospc, (uint64_t)atomic_load(&n_u_parks), rq.resubmitted,
		       (uint64_t)atomic_load(&n_u_timer_retries),
		       (uint64_t)atomic_load(&n_u_errors), rq.parked, rq.in_flight);
#if defined(DAXFS_TIMING) && defined(__x86_64__)
	if (len > 0 && (size_t)len < size) {
		struct timespec ts;
		uint64_t nr = (uint64_t)atomic_load(&t_reads), ns;
		double cyc_per_ns;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec - t_ns0;
		cyc_per_ns = ns ? (double)(timing_tsc() - t_tsc0) / (double)ns : 1;
		len += snprintf(buf + len, size - (size_t)len,
				"timed_reads: %" PRIu64 "\nread_handler_ns: %.1f\n", nr,
				nr ? (double)atomic_load(&t_cycles) / cyc_per_ns / (double)nr : 0);
	}
#endif
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
	pthread_mutex_init(&n->dirty_lock, NULL);
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
	dc_attr_destroy(n->attr);
	pthread_rwlock_destroy(&n->io_lock);
	pthread_mutex_destroy(&n->dirty_lock);
	free(n->dirty);
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

/*
 * The clock of the attribute cache, in ns: CLOCK_MONOTONIC_COARSE, read on
 * every read of a file.  It advances once a scheduler tick (1-10 ms, far
 * below any useful --attr-timeout; --attr-timeout=0 still refreshes on
 * every read, the attributes being valid only while now < deadline), and
 * costs a fraction of the fine clock: timed in a loop of 5 million calls
 * on a 2-CPU virtual machine (a paravirtual clock), CLOCK_MONOTONIC took
 * 84-93 ns a call, CLOCK_MONOTONIC_COARSE 18-20 ns.
 */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The attribute cache's invalidate hook (seed 001): a refresh found the
 * source smaller than the cache knew it, so another process truncated it
 * behind daxfs's back: punch the window mappings past the new end, whose
 * pages the file no longer has.  A changed mtime (or a grown file) drops
 * nothing: the window maps the file MAP_SHARED, so it shows every write
 * to the file, made through it or not.  Called by a read of @data (a
 * struct dnode), which holds the file open (n->dci stays) and no pin.
 */
static void attr_invalidate(void *data, const struct dc_attr_values *old,
			    const struct dc_attr_values *cur)
{
	struct dnode *n = data;

	if (cur->size >= old->size)
		return;
	atomic_fetch_add_explicit(&n_attr_shrinks, 1, memory_order_relaxed);
	/* A range another read holds pinned stays; reading it past the end falls back. */
	if (dc_inode_punch(n->dci, cur->size, UINT64_MAX))
		atomic_fetch_add_explicit(&n_attr_punch_busy, 1, memory_order_relaxed);
}

/* First open of a regular file in dax mode: register it with the cache. */
static int dax_attach(struct dnode *n)
{
	struct dc_attr_config ap = {
		.timeout_ns = opt.attr_timeout_ns,
		.rule = DC_ATTR_RULE_TIMEOUT,
		.auto_inval = true,
		.invalidate = attr_invalidate,
		.data = n,
	};
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
	fd_table_add(n);
	err = dc_inode_get(cache, n->fino, &n->dci);
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
	/* Its eviction's writebacks, if it runs now, still find the fd. */
	dc_inode_put(n->dci);
	n->dci = NULL;
	fd_table_del(n);
	dc_mmapbe_remove_file(be, n->fino);
	close(n->map_fd);
	n->map_fd = -1;
	pthread_mutex_unlock(&open_lock);
}

static void dfs_init(void *userdata, struct fuse_conn_info *conn)
{
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	/*
	 * Replies from the window's pipe are spliced to /dev/fuse (zc_read());
	 * without splice libfuse would copy them out of the pipe: copy here.
	 */
	conn->want |= conn->capable & (FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE);
	if (!(conn->capable & FUSE_CAP_SPLICE_WRITE))
		zc_max = 0;
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
 * truncation is done; the cached attributes are made stale, so that the
 * next read learns the new size.  0 or -errno.
 */
static int punch_window(struct dnode *n, off_t size)
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
	atomic_store_explicit(&n->atime_due, true, memory_order_relaxed);
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
	atomic_store_explicit(&n->atime_due, true, memory_order_relaxed);
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
 * the new end of the file (punch_window() also makes the cached size
 * stale).
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
		f = calloc(1, sizeof(*f) + STATS_MAX);
		if (!f) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
		f->fd = -1;
		f->text = (char *)(f + 1);
		f->text_len = stats_text(f->text, STATS_MAX);
		pthread_mutex_lock(&stats_files_lock);
		f->next = stats_files.next;
		f->prev = &stats_files;
		f->next->prev = f;
		stats_files.next = f;
		pthread_mutex_unlock(&stats_files_lock);
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
		struct dfile *f = (struct dfile *)(uintptr_t)fi->fh;

		pthread_mutex_lock(&stats_files_lock);
		f->prev->next = f->next;
		f->next->prev = f->prev;
		pthread_mutex_unlock(&stats_files_lock);
		free(f);
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

/* Note that the range of @off was written through the window: 0 or -ENOMEM. */
static int mark_dirty(struct dnode *n, uint64_t off)
{
	uint64_t r = off >> opt.range_shift;
	size_t w = (size_t)(r / 64);
	int err = 0;

	pthread_mutex_lock(&n->dirty_lock);
	if (w >= n->dirty_words) {
		size_t words = w + 1 > 2 * n->dirty_words ? w + 1 : 2 * n->dirty_words;
		uint64_t *d = realloc(n->dirty, words * sizeof(*d));

		if (!d) {
			err = -ENOMEM;
			goto out;
		}
		memset(d + n->dirty_words, 0, (words - n->dirty_words) * sizeof(*d));
		n->dirty = d;
		n->dirty_words = words;
	}
	n->dirty[w] |= 1ull << (r % 64);
out:
	pthread_mutex_unlock(&n->dirty_lock);
	return err;
}

/* window_copy() and zc_read(): the cache bypasses all of it, use the ring. */
#define BYPASS_WHOLE	2

/*
 * Copy [@off, @off + @len) of @n through the window, range by range; a
 * range the cache answers DC_MAP_BYPASS for goes straight to @fd.  0 or
 * -errno: -EIO when the source was truncated behind our back (a window
 * page past its end), and the caller then falls back to pread()/pwrite().
 * With --io-engine=uring, BYPASS_WHOLE when the cache bypasses the whole
 * of [@off, @off + @len) (one range): nothing copied, the caller serves it
 * through the ring.
 */
static int window_copy(struct dnode *n, int fd, char *buf, size_t len,
		       uint64_t off, bool write)
{
	uint64_t rs = (uint64_t)1 << opt.range_shift;
	struct dc_pin pin;
	bool first = true;
	int err;

	while (len) {
		size_t chunk;

		err = dc_map(n->dci, off, map_flags | (write ? DC_MAP_WRITE : 0), &pin);
		if (err == DC_MAP_BYPASS) {
			chunk = rs - (off & (rs - 1)) < len ?
				(size_t)(rs - (off & (rs - 1))) : len;
			atomic_fetch_add_explicit(&n_bypassed, 1, memory_order_relaxed);
			if (first && chunk == len && opt.uring)
				return BYPASS_WHOLE;
			err = direct_copy(fd, buf, chunk, off, write);
			if (err)
				return err;
			first = false;
			buf += chunk;
			off += chunk;
			len -= chunk;
			continue;
		}
		if (err)
			return err;
		first = false;
		chunk = pin.len < len ? (size_t)pin.len : len;
		if (write) {
			err = dc_mmapbe_write(be, &pin, 0, buf, chunk);
			if (!err)
				err = mark_dirty(n, off);
		} else {
			err = dc_mmapbe_read(be, &pin, 0, buf, chunk);
		}
		dc_unpin(&pin);
		if (err)
			return err;
		buf += chunk;
		off += chunk;
		len -= chunk;
	}
	return 0;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000ll + ts->tv_nsec;
}

/*
 * The size of @n's source that a read of [@off, @off + @size) goes by, in
 * *@sizep (seed 001): while the cached attributes are valid and the read
 * stays within the cached size, @off + @size (the read needs no clipping:
 * one call into the attribute cache, one lock, per read); else the source
 * is fstat()ed and the attributes refreshed (the hook punches the window
 * past a new, smaller end).  0 or -errno.
 */
static int read_size(struct dnode *n, uint64_t off, uint64_t size, uint64_t *sizep)
{
	struct dc_attr_values v;
	uint64_t version;
	struct stat st;
	int err;

	if (!dc_attr_read_check(n->attr, off, size, mono_ns(), &version)) {
		/* Valid a moment ago: a read racing the timeout goes by it. */
		*sizep = off + size;
		return 0;
	}
	err = stat_fd(n->map_fd, &st);
	if (err)
		return err;
	atomic_fetch_add_explicit(&n_attr_refreshes, 1, memory_order_relaxed);
	v.size = (uint64_t)st.st_size;
	v.mtime_ns = ts_ns(&st.st_mtim);
	v.ctime_ns = ts_ns(&st.st_ctim);
	/* -ESTALE (a write raced it) installs nothing; this read uses @v. */
	dc_attr_refresh(n->attr, &v, version, mono_ns());
	*sizep = v.size;
	return 0;
}

/*
 * Reads without a copy in daxfs.  A read of at least ZC_MIN bytes is
 * vmsplice()d from the pinned window range(s) into a pipe of the serving
 * thread, and the pipe is passed to fuse_reply_data(), which splices it to
 * /dev/fuse: the only copy left is the kernel's, from the page cache pages
 * into the request.  The pins are dropped after the reply is sent.
 *
 * Why vmsplice() and not fuse_reply_iov() (a writev() from the window):
 * both are SIGBUS-safe, as the kernel reads the window, and a page past the
 * end of a source truncated behind our back makes it fail with EFAULT, no
 * signal.  But a writev() to /dev/fuse that fails has already consumed the
 * request: the kernel answers the reader EIO, where the copy path falls
 * back to pread() and returns the right bytes (daxfs-trunc-smoke and
 * daxfs-attr check that).  vmsplice() fails before anything is sent, and once it has taken
 * the pages, the pipe holds references to them, so a truncation racing the
 * reply cannot fault it any more: the reader gets the bytes as they were.
 *
 * Below ZC_MIN libfuse does not splice (it reads a pipe into a buffer of
 * its own, which is a copy and two more system calls): such reads are
 * copied with dc_mmapbe_read() into a buffer on the stack, no malloc().
 * Nor does it above zc_max: its own pipe must hold the reply and three
 * pages more, and a pipe cannot grow past /proc/sys/fs/pipe-max-size
 * (1 MiB by default, so a read of 1 MiB is copied as before).
 */
#define ZC_MIN		8192
#define ZC_MAX_SEGS	64
#define ZC_SLACK	(4 * 4096)

static __thread int zc_pipe[2] = { -1, -1 };
static __thread size_t zc_pipe_size;
static pthread_key_t zc_key;

static void zc_pipe_close(void)
{
	if (zc_pipe[0] >= 0) {
		close(zc_pipe[0]);
		close(zc_pipe[1]);
	}
	zc_pipe[0] = zc_pipe[1] = -1;
}

static void zc_destructor(void *arg)
{
	zc_pipe_close();
}

/* The calling thread's pipe, made to hold @len bytes; false if it cannot. */
static bool zc_pipe_get(size_t len)
{
	int size;

	if (zc_pipe[0] < 0) {
		if (pipe2(zc_pipe, O_CLOEXEC | O_NONBLOCK)) {
			zc_pipe[0] = zc_pipe[1] = -1;
			return false;
		}
		pthread_setspecific(zc_key, (void *)1);
		fcntl(zc_pipe[0], F_SETPIPE_SZ, (int)(zc_max + ZC_SLACK));
		size = fcntl(zc_pipe[0], F_GETPIPE_SZ);
		zc_pipe_size = size > 0 ? (size_t)size : 0;
	}
	return len <= zc_pipe_size;
}

/* The largest read zc_read() takes: what pipe-max-size leaves libfuse. */
static void zc_init(void)
{
	unsigned long max = 0;
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "r");

	if (f) {
		if (fscanf(f, "%lu", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (max > (64ul << 20))
		max = 64ul << 20;
	zc_max = max > ZC_MIN + ZC_SLACK ? max - ZC_SLACK : 0;
}

/*
 * Reply to the read of [@off, @off + @len) of @n, within the size, from the
 * window (see above); a range the cache bypasses is pread() from @fd into a
 * buffer spliced likewise (a read that bypasses whole is replied from the
 * buffer, as before, and not counted in zero_copy_reads).  Called with
 * n->io_lock held shared.  Return: 1 replied; 0 not replied, copy instead
 * (no pipe, too many ranges); -errno not replied: -EIO when a page or
 * range is past the end of the source (the caller falls back to pread()),
 * or the error of dc_map(); BYPASS_WHOLE (--io-engine=uring) not replied:
 * the cache bypasses all of it, the caller serves it through the ring.
 */
static int zc_read(fuse_req_t req, struct dnode *n, int fd, size_t len, uint64_t off)
{
	uint64_t rs = (uint64_t)1 << opt.range_shift;
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(len);
	struct dc_pin pins[ZC_MAX_SEGS];
	struct iovec iov[ZC_MAX_SEGS];
	char *win = dc_mmapbe_window(be), *bounce = NULL;
	unsigned int npins = 0, nseg = 0, i;
	size_t done = 0, chunk;
	ssize_t got;
	int err, ret = 0;

	if (!zc_pipe_get(len))
		return 0;
	while (done < len) {
		if (nseg == ZC_MAX_SEGS)
			goto out;	/* 0: copy */
		err = dc_map(n->dci, off + done, map_flags, &pins[npins]);
		if (err == DC_MAP_BYPASS) {
			uint64_t o = off + done;

			chunk = rs - (o & (rs - 1)) < len - done ?
				(size_t)(rs - (o & (rs - 1))) : len - done;
			if (!done && chunk == len && opt.uring) {
				atomic_fetch_add_explicit(&n_bypassed, 1,
							  memory_order_relaxed);
				ret = BYPASS_WHOLE;
				goto out;
			}
			if (!bounce && !(bounce = malloc(len))) {
				ret = -ENOMEM;
				goto out;
			}
			atomic_fetch_add_explicit(&n_bypassed, 1, memory_order_relaxed);
			ret = direct_copy(fd, bounce + done, chunk, o, false);
			if (ret)
				goto out;
			iov[nseg].iov_base = bounce + done;
		} else if (err) {
			ret = err;
			goto out;
		} else {
			chunk = pins[npins].len < len - done ? (size_t)pins[npins].len :
							       len - done;
			iov[nseg].iov_base = win + pins[npins].win_off;
			npins++;
		}
		iov[nseg++].iov_len = chunk;
		done += chunk;
	}
	if (!npins) {
		/* All bypassed: read into @bounce already, a splice would cost more. */
		fuse_reply_buf(req, bounce, len);
		ret = 1;
		goto out;
	}
	/* The pipe takes references to the pages; EFAULT: one is past the end. */
	for (i = 0; i < nseg;) {
		got = vmsplice(zc_pipe[1], &iov[i], nseg - i, SPLICE_F_NONBLOCK);
		if (got < 0) {
			ret = -errno;
			if (ret == -EFAULT) {
				ret = -EIO;
				atomic_fetch_add_explicit(&n_zc_faults, 1,
							  memory_order_relaxed);
			}
			zc_pipe_close();	/* emptied the simple way */
			goto out;
		}
		while (i < nseg && (size_t)got >= iov[i].iov_len)
			got -= (ssize_t)iov[i++].iov_len;
		if (i < nseg) {
			iov[i].iov_base = (char *)iov[i].iov_base + got;
			iov[i].iov_len -= (size_t)got;
		}
	}
	bv.buf[0].flags = FUSE_BUF_IS_FD;
	bv.buf[0].fd = zc_pipe[0];
	/*
	 * An error is answered to the request by fuse_reply_data() itself;
	 * it may leave bytes in the pipe, which is then made anew.
	 */
	T_REPLY();
	if (fuse_reply_data(req, &bv, FUSE_BUF_SPLICE_MOVE))
		zc_pipe_close();
	atomic_fetch_add_explicit(&n_zc_reads, 1, memory_order_relaxed);
	ret = 1;
out:
	for (i = 0; i < npins; i++)
		dc_unpin(&pins[i]);
	free(bounce);
	return ret;
}

/*
 * The io_uring engine (--io-engine=uring), after seed 002 (virtio-fs: a
 * full queue is refilled when a completion arrives, not from a 1 ms timer).
 * The direct reads and writes (--no-dax, and writes that extend the file or
 * append) are not served on the FUSE thread: a struct uio carries the
 * request through the library's dc_reqq, whose submit op (uring_submit())
 * places it in a ring of --ring-depth entries and answers -ENOSPC when that
 * many are on the ring already.  The reqq parks such a request and
 * resubmits it from dc_reqq_complete(), which the completion thread
 * (uring_reaper()) calls for every CQE it reaps, before the end callback
 * (uio_end()) replies to FUSE (libfuse replies may come from any thread).
 * --retry=timer makes the reqq retry parked requests from its 1 ms timer
 * instead (DC_REQQ_TIMER_RETRY, the 2019 rule), for comparison.  Any other
 * error (from io_uring_submit(), -ENOMEM, or the CQE's -EIO) goes back to
 * the FUSE request.  A short read or write is replied short, as a single
 * pread()/pwrite() of the synchronous engine is.
 */
#ifdef DAXFS_URING
struct uio {
	struct dc_reqq_req rq;
	fuse_req_t req;
	struct dnode *n;
	int fd;
	bool write;
	size_t len;
	uint64_t off;
	char buf[];
};

static struct io_uring ring;
static bool ring_up;
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int ring_in_flight;	/* SQEs given to the ring, CQE not reaped */
static struct dc_reqq *uq;
static struct dc_reqq_stats uq_final;	/* uq's counters when it was destroyed */
static pthread_t reaper;
static bool reaper_up;
/* The request this thread is handing to dc_reqq_submit(), and whether the
 * submit op took it there and then (else it was parked). */
static __thread struct uio *tl_submitting;
static __thread bool tl_direct, tl_reaper;

/* The reqq's submit op: 0 on the ring, -ENOSPC when full, or -errno. */
static int uring_submit(struct dc_reqq_req *rq, void *priv)
{
	struct uio *u = (struct uio *)((char *)rq - offsetof(struct uio, rq));
	struct io_uring_sqe *sqe;
	int ret;

	/* Neither a FUSE thread's submission nor a completion: the timer. */
	if (u != tl_submitting && !tl_reaper)
		atomic_fetch_add_explicit(&n_u_timer_retries, 1, memory_order_relaxed);
	pthread_mutex_lock(&ring_lock);
	if (ring_in_flight >= opt.ring_depth || !(sqe = io_uring_get_sqe(&ring))) {
		pthread_mutex_unlock(&ring_lock);
		return -ENOSPC;
	}
	if (u->write)
		io_uring_prep_write(sqe, u->fd, u->buf, (unsigned int)u->len, u->off);
	else
		io_uring_prep_read(sqe, u->fd, u->buf, (unsigned int)u->len, u->off);
	io_uring_sqe_set_data(sqe, u);
	ring_in_flight++;
	ret = io_uring_submit(&ring);
	if (ret < 0) {
		/*
		 * The SQE stays in the submission queue and goes with the next
		 * io_uring_submit(): make it a no-op, whose CQE the reaper
		 * only counts off ring_in_flight.
		 */
		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data(sqe, NULL);
		pthread_mutex_unlock(&ring_lock);
		return ret == -ENOSPC ? -EAGAIN : ret;
	}
	pthread_mutex_unlock(&ring_lock);
	if (u == tl_submitting)
		tl_direct = true;
	return 0;
}

static const struct dc_reqq_ops uring_ops = { .submit = uring_submit };

/* End callback: reply to FUSE with @status (bytes or -errno), free @rq. */
static void uio_end(struct dc_reqq_req *rq, int status)
{
	struct uio *u = (struct uio *)((char *)rq - offsetof(struct uio, rq));

	if (status < 0) {
		atomic_fetch_add_explicit(&n_u_errors, 1, memory_order_relaxed);
		fuse_reply_err(u->req, -status);
	} else if (u->write) {
		if (u->n->attr)
			dc_attr_note_write(u->n->attr, u->off + (uint64_t)status,
					   DC_ATTR_MTIME_UNKNOWN, mono_ns());
		fuse_reply_write(u->req, (size_t)status);
	} else {
		fuse_reply_buf(u->req, u->buf, (size_t)status);
	}
	free(u);
}

/* The completion thread: reap CQEs, complete their requests. */
static void *uring_reaper(void *arg)
{
	struct io_uring_cqe *cqe;
	struct uio *u;
	int res;

	tl_reaper = true;
	for (;;) {
		if (io_uring_wait_cqe(&ring, &cqe))
			continue;	/* -EINTR */
		u = io_uring_cqe_get_data(cqe);
		res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		pthread_mutex_lock(&ring_lock);
		ring_in_flight--;
		pthread_mutex_unlock(&ring_lock);
		if (u == (struct uio *)&ring)
			break;		/* uring_stop()'s marker */
		if (!u)
			continue;	/* a failed submission's no-op */
		atomic_fetch_add_explicit(&n_u_completions, 1, memory_order_relaxed);
		dc_reqq_complete(uq, &u->rq, res);
	}
	return NULL;
}

/*
 * Serve a direct read (@write false: @data NULL) or write of @len bytes at
 * @off through the ring; replies to @req in every case.
 */
static void uring_io(fuse_req_t req, struct dnode *n, int fd, const char *data,
		     size_t len, uint64_t off)
{
	struct uio *u = malloc(sizeof(*u) + (len ? len : 1));
	int err;

	if (!u) {
		atomic_fetch_add_explicit(&n_u_errors, 1, memory_order_relaxed);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	dc_reqq_req_init(&u->rq, uio_end, 0);
	u->req = req;
	u->n = n;
	u->fd = fd;
	u->write = data != NULL;
	u->len = len;
	u->off = off;
	if (data)
		memcpy(u->buf, data, len);	/* libfuse reuses its buffer */
	tl_submitting = u;
	tl_direct = false;
	err = dc_reqq_submit(uq, &u->rq);
	tl_submitting = NULL;
	/* @u may be completed and freed already: only the flags are ours. */
	if (!err && !tl_direct)
		atomic_fetch_add_explicit(&n_u_parks, 1, memory_order_relaxed);
	if (err) {
		atomic_fetch_add_explicit(&n_u_errors, 1, memory_order_relaxed);
		fuse_reply_err(req, -err);
		free(u);
	}
}

/* Whether io_uring works here (the kernel or seccomp may refuse it). */
static int uring_probe(void)
{
	struct io_uring r;
	int err = io_uring_queue_init(2, &r, 0);

	if (!err)
		io_uring_queue_exit(&r);
	return err;
}

/* Set the ring, the reqq and the completion thread up; 0 or -errno (said). */
static int uring_start(void)
{
	struct dc_reqq_config cfg = {
		.flags = opt.retry_timer ? DC_REQQ_TIMER_RETRY : 0,
	};
	int err;

	/* Twice the depth: the stop marker and failed no-ops fit too. */
	err = io_uring_queue_init(opt.ring_depth * 2, &ring, 0);
	if (err) {
		fprintf(stderr, "daxfs: io_uring: %s\n", strerror(-err));
		return err;
	}
	ring_up = true;
	err = dc_reqq_create(&cfg, sizeof(cfg), &uring_ops, sizeof(uring_ops),
			     NULL, &uq);
	if (err) {
		fprintf(stderr, "daxfs: reqq: %s\n", strerror(-err));
		return err;
	}
	err = pthread_create(&reaper, NULL, uring_reaper, NULL);
	if (err) {
		fprintf(stderr, "daxfs: completion thread: %s\n", strerror(err));
		return -err;
	}
	reaper_up = true;
	return 0;
}

/* After the session loop: wait for the requests, stop the reaper, free. */
static void uring_stop(void)
{
	struct io_uring_sqe *sqe;

	if (uq && reaper_up)
		dc_reqq_drain(uq, UINT64_MAX);
	if (reaper_up) {
		pthread_mutex_lock(&ring_lock);
		sqe = io_uring_get_sqe(&ring);
		if (sqe) {
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data(sqe, &ring);
			ring_in_flight++;
			io_uring_submit(&ring);
		}
		pthread_mutex_unlock(&ring_lock);
		if (!sqe)
			return;	/* not reached (drained): the reaper keeps the ring */
		pthread_join(reaper, NULL);
	}
	/* The counters, for the report at unmount. */
	if (uq)
		dc_reqq_stats(uq, &uq_final, sizeof(uq_final));
	dc_reqq_destroy(uq);
	uq = NULL;
	if (ring_up)
		io_uring_queue_exit(&ring);
	ring_up = false;
}

static void uring_stats(struct dc_reqq_stats *st)
{
	*st = uq_final;
	if (uq)
		dc_reqq_stats(uq, st, sizeof(*st));
}
#else
static void uring_io(fuse_req_t req, struct dnode *n, int fd, const char *data,
		     size_t len, uint64_t off)
{
	fuse_reply_err(req, ENOSYS);	/* not reached: refused at start */
}

static int uring_probe(void)
{
	return -ENOSYS;
}

static int uring_start(void)
{
	fprintf(stderr, "daxfs: built without liburing: no --io-engine=uring\n");
	return -ENOSYS;
}

static void uring_stop(void)
{
}

static void uring_stats(struct dc_reqq_stats *st)
{
	memset(st, 0, sizeof(*st));
}
#endif

/*
 * atime of reads served from the window.  A copy from (or a splice of) a
 * shared mapping of the source does not touch atime: only the mmap() of a
 * range (a miss) does, and a read pread() serves.  So the first read from
 * the window after an open, a write or a setattr through daxfs reads one
 * byte of it with pread() too, and the source's filesystem updates atime
 * by its own rule (relatime: when atime is not later than mtime or ctime;
 * noatime: never).  Later reads leave it, as relatime does once atime is
 * later than mtime and ctime, until the 24 hours relatime also counts have
 * passed: a file held open and read for longer keeps its atime until the
 * next open, write or setattr (strictatime would update it on every read).
 * One system call per open or write instead of one per read.
 */
static void touch_atime(struct dnode *n, int fd, uint64_t off)
{
	char c;

	if (atomic_load_explicit(&n->atime_due, memory_order_relaxed) &&
	    atomic_exchange_explicit(&n->atime_due, false, memory_order_relaxed) &&
	    pread(fd, &c, 1, (off_t)off) < 0)
		atomic_store_explicit(&n->atime_due, true, memory_order_relaxed);
}

static void dfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct dnode *n = get_node(ino);
	char small[ZC_MIN], *buf = small;
	bool direct = !n->dci;
	uint64_t fsize;
	ssize_t got = 0;
	int err = 0;

	if (n == &stats_node) {
		struct dfile *f = (struct dfile *)(uintptr_t)fi->fh;
		char text[STATS_MAX];
		size_t len;

		if ((size_t)off >= f->text_len) {
			fuse_reply_buf(req, NULL, 0);
			return;
		}
		len = f->text_len - (size_t)off < size ? f->text_len - (size_t)off : size;
		/*
		 * Replied from a copy: the reader's close (whose release frees
		 * @f on another thread) may come as soon as the kernel has the
		 * reply, before writev() returns here.
		 */
		memcpy(text, f->text + off, len);
		fuse_reply_buf(req, text, len);
		return;
	}
	T_START();
	atomic_fetch_add_explicit(&n_reads, 1, memory_order_relaxed);
	pthread_rwlock_rdlock(&n->io_lock);
	if (!direct) {
		err = read_size(n, (uint64_t)off, size, &fsize);
		if (err)
			goto out;
		if ((uint64_t)off >= fsize)
			goto out;
		if ((uint64_t)size > fsize - (uint64_t)off)
			size = (size_t)(fsize - (uint64_t)off);
		touch_atime(n, (int)fi->fh, (uint64_t)off);
		err = size >= ZC_MIN && size <= zc_max ?
		      zc_read(req, n, (int)fi->fh, size, (uint64_t)off) : 0;
		if (err == 1) {
			pthread_rwlock_unlock(&n->io_lock);
			T_END();
			return;
		}
		if (err == BYPASS_WHOLE)
			goto ring;
	}
	if (direct && opt.uring)
		goto ring;
	/* --no-dax, declined; or above zc_max, no pipe, too many ranges. */
	if (size > sizeof(small) && !(buf = malloc(size))) {
		err = -ENOMEM;
		goto out;
	}
	if (direct) {
		got = pread((int)fi->fh, buf, size, off);
		err = got < 0 ? -errno : 0;
		goto out;
	}
	got = (ssize_t)size;
	if (!err)
		err = window_copy(n, (int)fi->fh, buf, size, (uint64_t)off, false);
	if (err == BYPASS_WHOLE) {
		if (buf != small)
			free(buf);
		goto ring;
	}
	if (err) {
		/*
		 * A page or range past the end: the source shrank behind
		 * our back, and the cached size is wrong.  The next read
		 * refreshes it (and punches the window past the new end).
		 */
		dc_attr_expire(n->attr);
		atomic_fetch_add_explicit(&n_fallbacks, 1, memory_order_relaxed);
		got = pread((int)fi->fh, buf, size, off);
		err = got < 0 ? -errno : 0;
	}
out:
	pthread_rwlock_unlock(&n->io_lock);
	if (err)
		fuse_reply_err(req, -err);
	else {
		T_REPLY();
		fuse_reply_buf(req, buf, (size_t)got);
	}
	if (buf != small)
		free(buf);
	T_END();
	return;
ring:
	/* Served, and replied to, by the completion thread. */
	pthread_rwlock_unlock(&n->io_lock);
	uring_io(req, n, (int)fi->fh, NULL, size, (uint64_t)off);
}

/*
 * mtime and ctime of a write through the window.  A store into the shared
 * mapping updates them only when it faults: on the first write to a clean
 * page, not on a page already dirty.  So every window write sets them as
 * the write() it replaces would: futimens() with UTIME_NOW for mtime (ctime
 * follows), one system call that touches no data.  (A write of 0 bytes
 * updates nothing; rewriting one byte would, but races with a writer on
 * SRC.)  As write() does (file_update_time()), it is skipped when both
 * times, as fstat() @st showed them before the copy, are not older than
 * the coarse clock the kernel stamps them with: a write in the same tick
 * would not move them either.  That skips most writes of a stream: one
 * futimens() per write cost four times the time of 4 KiB writes (a journal
 * update each).  futimens() with UTIME_OMIT needs the file's owner or
 * CAP_FOWNER: a daemon that is neither rewrites the first byte it wrote
 * instead.
 */
static int touch_mtime(int fd, const struct stat *st, const char *buf, uint64_t off)
{
	static const struct timespec now[2] = {
		{ .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_NOW },
	};
	struct timespec tick;

	if (!clock_gettime(CLOCK_REALTIME_COARSE, &tick) &&
	    ts_ns(&st->st_mtim) >= ts_ns(&tick) && ts_ns(&st->st_ctim) >= ts_ns(&tick))
		return 0;
	if (!futimens(fd, now))
		return 0;
	if (errno != EPERM)
		return -errno;
	return pwrite(fd, buf, 1, (off_t)off) == 1 ? 0 : -errno;
}

/*
 * What a local filesystem does on a write by a user without CAP_FSETID:
 * clear setuid, and setgid on a group-executable file or when the writer
 * is not in the file's group.  With the page cache the kernel does it
 * itself (a SETATTR before the WRITE); with direct_io it leaves it to the
 * server (FUSE_WRITE_KILL_SUIDGID, which libfuse 3.14 does not pass on),
 * and daxfs's own write, as root, would keep them.  The caller's uid 0
 * stands for CAP_FSETID.  @st: the source's attributes, or NULL (then
 * fstat()ed).  0 or -errno.
 */
static int kill_priv(fuse_req_t req, int fd, const struct stat *st)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct stat own;
	mode_t kill = 0;

	if (!opt.direct_io || !ctx->uid)
		return 0;
	if (!st) {
		if (fstat(fd, &own))
			return -errno;
		st = &own;
	}
	if (!S_ISREG(st->st_mode) || !(st->st_mode & (S_ISUID | S_ISGID)))
		return 0;
	if (st->st_mode & S_ISUID)
		kill |= S_ISUID;
	if ((st->st_mode & S_ISGID) &&
	    ((st->st_mode & S_IXGRP) || !caller_in_group(req, st->st_gid)))
		kill |= S_ISGID;
	if (kill && fchmod(fd, st->st_mode & 07777 & ~kill))
		return -errno;
	return 0;
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
	/* mtime moves: relatime updates atime at the next read. */
	atomic_store_explicit(&n->atime_due, true, memory_order_relaxed);
	pthread_rwlock_rdlock(&n->io_lock);
	if (!n->dci || (fi->flags & O_APPEND)) {
		err = kill_priv(req, (int)fi->fh, NULL);
		if (err)
			goto out;
		goto plain;
	}
	/*
	 * The default policy writes with pwrite(), never through the window.
	 * With this backend a window write saves one system call, but makes
	 * its mapping writable: a setup that maps the whole range anew (its
	 * page tables dropped), a write fault on every clean page, and a
	 * writeback - msync(MS_SYNC), a wait for the disk - when the range is
	 * reclaimed, on the thread whose miss reclaims it.  Under fio's 75/25
	 * random mix on a file 4x the window that writeback held reads for
	 * milliseconds.  pwrite() goes to the page cache the window maps
	 * (MAP_SHARED), so mapped ranges see the bytes at once, and fsync's
	 * fdatasync() makes them stable like every other direct write.
	 */
	if (map_flags & DC_MAP_MAY_BYPASS) {
		atomic_fetch_add_explicit(&n_direct_writes, 1, memory_order_relaxed);
		err = kill_priv(req, (int)fi->fh, NULL);
		if (err)
			goto out;
		goto plain;
	}
	/*
	 * Writes still fstat() the source: a cached size larger than the
	 * file (shrunk behind our back) would send a write past its end
	 * through the window, where bytes on the last page past the end are
	 * silently lost instead of extending the file.
	 */
	err = stat_fd(n->map_fd, &st);
	if (!err)
		err = kill_priv(req, (int)fi->fh, &st);
	if (err)
		goto out;
	if ((uint64_t)off + size > (uint64_t)st.st_size) {
		atomic_fetch_add_explicit(&n_ext_writes, 1, memory_order_relaxed);
		goto plain;
	}
	err = window_copy(n, (int)fi->fh, (char *)buf, size, (uint64_t)off, true);
	if (!err) {
		err = touch_mtime((int)fi->fh, &st, buf, (uint64_t)off);
		goto out;
	}
	if (err == BYPASS_WHOLE)
		goto plain;	/* the ring */
	atomic_fetch_add_explicit(&n_fallbacks, 1, memory_order_relaxed);
plain:
	if (opt.uring) {
		pthread_rwlock_unlock(&n->io_lock);
		uring_io(req, n, (int)fi->fh, buf, size, (uint64_t)off);
		return;
	}
	done = pwrite((int)fi->fh, buf, size, off);
	err = done < 0 ? -errno : 0;
out:
	/* The cached size grows to what we wrote (reads need no refresh). */
	if (!err && n->attr)
		dc_attr_note_write(n->attr, (uint64_t)off + (uint64_t)done,
				   DC_ATTR_MTIME_UNKNOWN, mono_ns());
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

/*
 * Commit after writeback (seed 004).  A window write marks its range dirty
 * in the node's bitmap.  fsync takes the dirty set and queues one writeback
 * job per dirty range to a pool of WB_WORKERS threads; each job holds a
 * slot of the dc_slot table wb_slots for its life, so at most WB_SLOTS_MAX
 * are queued or running and the fsync thread waits in the table's FIFO
 * backlog beyond that.  A job starts the range's writeback and waits for
 * it (sync_file_range(), parallel across the pool).  Each fsync owns a
 * dc_iocomp: a reference per job, dropped when the job completes, and the
 * fsync's own, dropped once every job is queued; the last put runs
 * wb_commit_done(), which issues the one fdatasync() (fsync() for a full
 * sync) - the COMMIT - and replies to the FUSE request.  The fsync thread
 * returns without replying.  Data written with pwrite() (bypassed or
 * extending writes) is made stable by the COMMIT too.
 *
 * Reclaim of a writable range (and its eviction or punch) writes back on
 * the pool as well: see pool_writeback().
 */
#define WB_WORKERS	4
#define WB_SLOTS_MIN	2
#define WB_SLOTS_MAX	8

struct wb_commit {
	struct dc_iocomp ioc;
	fuse_req_t req;
	int fd;
	int datasync;
	atomic_int err;			/* the first writeback error, positive */
	unsigned int nr_wb;
};

struct wb_job {
	struct dc_slot slot;		/* first: the table's */
	struct wb_job *next;
	struct wb_commit *c;		/* NULL: a reclaim's writeback, of @fd */
	int fd;				/* its own descriptor, closed when done */
	uint64_t off, len;
};

static struct dc_slot_table *wb_slots;
static pthread_t wb_threads[WB_WORKERS];
static unsigned int wb_nr_threads;
static pthread_mutex_t wb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wb_cond = PTHREAD_COND_INITIALIZER;
static struct wb_job *wb_head, **wb_tail = &wb_head;
static bool wb_stop;
/*
 * Under wb_lock: whether reclaims may queue (from wb_start() until
 * wb_stop_all()), and how many pool_writeback() calls are between taking a
 * slot and queueing; wb_stop_all() waits on wb_idle for them.
 */
static bool wb_open;
static unsigned int wb_users;
static pthread_cond_t wb_idle = PTHREAD_COND_INITIALIZER;

/* The last put of a commit's counter: the COMMIT, then the reply. */
static void wb_commit_done(struct dc_iocomp *ioc, void *data)
{
	struct wb_commit *c = data;
	int r = c->datasync ? fdatasync(c->fd) : fsync(c->fd);
	int err = r ? errno : atomic_load(&c->err);

	atomic_fetch_add_explicit(&n_commits, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&n_commit_wbs, c->nr_wb, memory_order_relaxed);
	fuse_reply_err(c->req, err);
	free(c);	/* the counter is embedded: freeing it here is allowed */
}

/* Start the writeback of @len bytes of @fd at @off and wait for it; 0 or errno. */
static int range_sync(int fd, uint64_t off, uint64_t len)
{
	return sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WAIT_BEFORE |
			       SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) ? errno : 0;
}

/* Write back one range and wait for it; a writeback error is the commit's. */
static void wb_run(struct wb_commit *c, uint64_t off, uint64_t len)
{
	int zero = 0, err = range_sync(c->fd, off, len);

	if (err) {
		atomic_fetch_add_explicit(&n_wb_errors, 1, memory_order_relaxed);
		atomic_compare_exchange_strong(&c->err, &zero, err);
	}
}

/* A reclaim's writeback: start it, wait for it, count it. */
static void wb_reclaim_run(struct wb_job *j)
{
	int err = range_sync(j->fd, j->off, j->len);

	/* No caller to tell: the log does (the next fsync fails too). */
	if (err) {
		atomic_fetch_add_explicit(&n_rc_wb_errors, 1, memory_order_relaxed);
		fuse_log(FUSE_LOG_ERR, "daxfs: writeback of a reclaimed range at %" PRIu64
			 " (%" PRIu64 " bytes): %s\n", j->off, j->len, strerror(err));
	}
	close(j->fd);
	atomic_fetch_add_explicit(&n_rc_wbs, 1, memory_order_relaxed);
}

/* Queue @j for the workers; wb_lock held. */
static void wb_queue_locked(struct wb_job *j)
{
	j->next = NULL;
	*wb_tail = j;
	wb_tail = &j->next;
	pthread_cond_signal(&wb_cond);
}

static void *wb_worker(void *arg)
{
	for (;;) {
		struct wb_job *j;
		struct wb_commit *c;

		pthread_mutex_lock(&wb_lock);
		while (!wb_head && !wb_stop)
			pthread_cond_wait(&wb_cond, &wb_lock);
		j = wb_head;
		if (j) {
			wb_head = j->next;
			if (!wb_head)
				wb_tail = &wb_head;
		}
		pthread_mutex_unlock(&wb_lock);
		if (!j)
			return NULL;	/* stopped, and the queue is empty */
		c = j->c;
		if (c)
			wb_run(c, j->off, j->len);
		else
			wb_reclaim_run(j);
		/* The slot first: the commit may be the last put, and reply. */
		dc_slot_put(wb_slots, &j->slot);
		if (c)
			dc_iocomp_put(&c->ioc);
	}
}

/* Start the pool (in the serving process: after fuse_daemonize()). */
static int wb_start(void)
{
	static const struct dc_slot_table_config cfg = {
		.min_slots = WB_SLOTS_MIN,
		.max_slots = WB_SLOTS_MAX,
		.slot_size = sizeof(struct wb_job),
	};
	int err = dc_slot_table_create(&cfg, sizeof(cfg), NULL, 0, NULL, &wb_slots);

	if (err) {
		fprintf(stderr, "daxfs: writeback slots: %s\n", strerror(-err));
		return err;
	}
	for (wb_nr_threads = 0; wb_nr_threads < WB_WORKERS; wb_nr_threads++) {
		err = pthread_create(&wb_threads[wb_nr_threads], NULL, wb_worker, NULL);
		if (err) {
			fprintf(stderr, "daxfs: writeback threads: %s\n", strerror(err));
			return -err;
		}
	}
	pthread_mutex_lock(&wb_lock);
	wb_open = true;
	pthread_mutex_unlock(&wb_lock);
	return 0;
}

/* Let the pool finish what is queued, then stop it. */
static void wb_stop_all(void)
{
	unsigned int i;

	pthread_mutex_lock(&wb_lock);
	wb_open = false;
	while (wb_users)
		pthread_cond_wait(&wb_idle, &wb_lock);
	wb_stop = true;
	pthread_cond_broadcast(&wb_cond);
	pthread_mutex_unlock(&wb_lock);
	for (i = 0; i < wb_nr_threads; i++)
		pthread_join(wb_threads[i], NULL);
	wb_nr_threads = 0;
	if (wb_slots)
		dc_slot_table_destroy(wb_slots);
	wb_slots = NULL;
}

/*
 * The backend's writeback op, which the library calls before it reclaims
 * a writable range (or evicts or punches one), under the inode's mutex and
 * often on the thread whose miss is waiting for the range.  The window maps
 * the file MAP_SHARED: what was written through it is in the file's page
 * cache, and a remap of the window range leaves it there, so the range may
 * be reused before the disk write.  That write goes to the pool: a job
 * holds a slot and a descriptor of its own and runs sync_file_range(),
 * while this returns 0 at once.  The next fsync's COMMIT makes the bytes
 * stable, and an error of the job's write reaches that fsync through the
 * file's error sequence, as an error of the kernel's own writeback does.
 * Before the pool starts, after it stops, and for an inode evicted after
 * its file was closed (no descriptor left), the backend's msync(MS_SYNC)
 * runs here instead.
 */
static int pool_writeback(void *priv, uint64_t ino, uint64_t file_off,
			  uint64_t len, uint64_t win_off)
{
	struct dc_slot *slot;
	struct wb_job *j;
	bool pool_up, queued = false;
	int fd;

	pthread_mutex_lock(&wb_lock);
	pool_up = wb_open;
	if (pool_up)
		wb_users++;
	pthread_mutex_unlock(&wb_lock);
	if (!pool_up)
		goto inline_wb;
	fd = fd_table_dup(ino);
	/* Waits in the table's FIFO backlog while WB_SLOTS_MAX are out. */
	if (fd >= 0 && !dc_slot_get(wb_slots, &slot)) {
		j = (struct wb_job *)slot;
		j->c = NULL;
		j->fd = fd;
		j->off = file_off;
		j->len = len;
		pthread_mutex_lock(&wb_lock);
		wb_queue_locked(j);	/* wb_stop waits for wb_users */
		pthread_mutex_unlock(&wb_lock);
		queued = true;
	} else if (fd >= 0) {
		close(fd);
	}
	pthread_mutex_lock(&wb_lock);
	if (!--wb_users)
		pthread_cond_broadcast(&wb_idle);
	pthread_mutex_unlock(&wb_lock);
	if (queued)
		return 0;
inline_wb:
	atomic_fetch_add_explicit(&n_rc_wb_inline, 1, memory_order_relaxed);
	return be_ops->writeback(priv, ino, file_off, len, win_off);
}

static void dfs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		      struct fuse_file_info *fi)
{
	struct dnode *n = get_node(ino);
	struct wb_commit *c;
	uint64_t *dirty, rs = (uint64_t)1 << opt.range_shift;
	size_t words, w;
	int r = 0;

	if (n == &stats_node) {
		fuse_reply_err(req, 0);
		return;
	}
	c = wb_slots ? calloc(1, sizeof(*c)) : NULL;
	if (!c) {
		/* --no-dax (or no memory): the COMMIT alone. */
		r = datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh);
		fuse_reply_err(req, r ? errno : 0);
		return;
	}
	c->req = req;
	c->fd = (int)fi->fh;
	c->datasync = datasync;
	dc_iocomp_init(&c->ioc, wb_commit_done, c);
	/* Take the dirty set: writes from now on belong to the next fsync. */
	pthread_mutex_lock(&n->dirty_lock);
	dirty = n->dirty;
	words = n->dirty_words;
	n->dirty = NULL;
	n->dirty_words = 0;
	pthread_mutex_unlock(&n->dirty_lock);
	for (w = 0; w < words; w++) {
		while (dirty[w]) {
			unsigned int bit = (unsigned int)__builtin_ctzll(dirty[w]);
			uint64_t off = ((uint64_t)w * 64 + bit) * rs;
			struct dc_slot *slot;
			struct wb_job *j;

			dirty[w] &= dirty[w] - 1;
			c->nr_wb++;
			/* Waits in the table's FIFO backlog while WB_SLOTS_MAX are out. */
			if (dc_slot_get(wb_slots, &slot)) {
				wb_run(c, off, rs);	/* no slot to be had: here */
				continue;
			}
			j = (struct wb_job *)slot;
			j->c = c;
			j->fd = -1;
			j->off = off;
			j->len = rs;
			dc_iocomp_get(&c->ioc);
			pthread_mutex_lock(&wb_lock);
			wb_queue_locked(j);
			pthread_mutex_unlock(&wb_lock);
		}
	}
	free(dirty);
	/* Ours, dropped last: the COMMIT and the reply run at the last put. */
	dc_iocomp_put(&c->ioc);
}

/*
 * fsync() of a directory: make its entries (a rename into it, a new name)
 * stable on the source.  Without .fsyncdir libfuse answers ENOSYS, and the
 * kernel then stops asking and returns 0: a rename followed by fsync() of
 * the directory would not be durable.
 */
static void dfs_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
			 struct fuse_file_info *fi)
{
	struct dfile *f = (struct dfile *)(uintptr_t)fi->fh;
	int fd = dirfd(f->dir);
	int r = datasync ? fdatasync(fd) : fsync(fd);

	fuse_reply_err(req, r ? errno : 0);
}

/*
 * access() and chdir() without -o default_permissions: the source decides,
 * for the caller's credentials.  Without .access the kernel, answered
 * ENOSYS once, allows every access() from then on.  (With
 * default_permissions the kernel checks the mode itself and never asks.)
 */
static void dfs_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct dnode *n = get_node(ino);
	char path[64];
	int err;

	if (n == &stats_node) {
		fuse_reply_err(req, mask & W_OK ? EACCES : 0);
		return;
	}
	proc_path(n, path, sizeof(path));
	err = caller_creds_enter(req);
	if (!err) {
		/* AT_EACCESS: check with the fsuid and fsgid just set. */
		err = faccessat(AT_FDCWD, path, mask, as_root ? AT_EACCESS : 0) ? errno : 0;
		caller_creds_exit();
	} else {
		err = -err;
	}
	fuse_reply_err(req, err);
}

/*
 * SEEK_DATA and SEEK_HOLE in the text an open of .daxfs-stats took: data
 * without a hole up to its end, as in any regular file (cp looks for holes
 * with them, and fails on an error other than ENXIO).
 */
static off_t stats_seek(const struct dfile *f, off_t off, int whence)
{
	if (off < 0) {
		errno = EINVAL;
		return -1;
	}
	if (off >= (off_t)f->text_len) {
		errno = ENXIO;
		return -1;
	}
	return whence == SEEK_HOLE ? (off_t)f->text_len : off;
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

	if (get_node(ino) == &stats_node)
		r = stats_seek((struct dfile *)(uintptr_t)fi->fh, off, whence);
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
	else if (out->attr)
		dc_attr_note_write(out->attr, (uint64_t)off_out, DC_ATTR_MTIME_UNKNOWN,
				   mono_ns());
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
		"    reads and writes go through the window (reads of 8 KiB or more are\n"
		"    spliced from it to /dev/fuse, not copied); --no-dax makes them\n"
		"    plain pread()/pwrite().  Everything else is passed through to SRC:\n"
		"    lookup, getattr, setattr (mode, owner, size, times), mkdir, mknod\n"
		"    (FIFOs, sockets, character and block devices), symlink, readlink,\n"
		"    link, unlink, rmdir, rename (with RENAME_NOREPLACE and\n"
		"    RENAME_EXCHANGE), readdir, statfs, fsync of files and of\n"
		"    directories (a rename then fsync of its directory is durable),\n"
		"    access, lseek (SEEK_DATA, SEEK_HOLE), extended attributes (get,\n"
		"    set, list, remove), fallocate and copy_file_range.\n"
		"    New files get the mode the caller asked for under the caller's\n"
		"    umask (daxfs runs with umask 0); run as root, daxfs makes them with\n"
		"    the caller's uid, gid and groups, and the source checks that the\n"
		"    caller may make them.  Every other access the kernel checks, as\n"
		"    it would on SRC, with -o default_permissions: daxfs itself does\n"
		"    not.  -o allow_other (serve other users) turns default_permissions\n"
		"    on, unless -o no_default_permissions is given too (then any user\n"
		"    may change what daxfs may change: only access() asks SRC).\n"
		"    Writes and reads keep the source's times as write() and read()\n"
		"    would: a write through the window sets mtime and ctime\n"
		"    (futimens(), a store to a dirty page does not); the first read\n"
		"    from the window after an open, a write or a setattr reads a byte\n"
		"    with pread(), so that the source updates atime by its own rule\n"
		"    (relatime, noatime); later ones do not.  An unprivileged write\n"
		"    clears setuid and setgid (with --direct-io daxfs does it, as a\n"
		"    local filesystem would).  SEEK_DATA and SEEK_HOLE ask the source.\n"
		"    fsync writes the ranges written through the window back in\n"
		"    parallel (4 threads, at most 8 ranges queued), then makes the file\n"
		"    stable with one fdatasync() (fsync() for a full sync) and replies.\n"
		"    A read trusts the size of the source it learnt last for\n"
		"    --attr-timeout seconds (unless it reads past it): a file shrunk\n"
		"    by another process is seen, and the window past its new end\n"
		"    punched, once that time has passed.\n"
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
		"           default (admission control; writes are pwrite()s, never\n"
		"           through the window), 2019, seed000 or upstream\n"
		"    --no-dax                      [no_dax]\n"
		"           plain pread()/pwrite() (the baseline)\n"
		"    --attr-timeout=SECONDS        [attr_timeout=SECONDS]\n"
		"           how long a read trusts the cached size of the source\n"
		"           (default 1; 0: every read fstat()s it)\n"
		"    --evict-interval=N            [evict_interval=N]\n"
		"           default policy: the cache's eviction budget: once every\n"
		"           window range is mapped, a read miss may replace a mapping\n"
		"           at most once per N references the cache counts (misses,\n"
		"           and hits as its victim scan collects them; a sequential\n"
		"           stream excepted); the other misses it refuses are pread()\n"
		"           (default 256; 0 or 1: no budget)\n"
		"    --setup-cost=N                [setup_cost=N]\n"
		"           default policy: what one setup costs the cache's\n"
		"           admission rule, in pread()s of the backing file: a miss\n"
		"           that is no sequential stream replaces a mapping only when\n"
		"           its count leads the victim's by more than N (1..200,\n"
		"           default 8)\n"
		"    --direct-io                   [direct_io]\n"
		"           open files with direct_io (no page cache); a write by a\n"
		"           caller other than root clears setuid and setgid\n"
		"    -o no_default_permissions\n"
		"           with allow_other: do not turn default_permissions on\n"
		"    --io-engine=sync|uring        [io_engine=ENGINE]\n"
		"           sync (default): direct reads and writes (--no-dax, and\n"
		"           writes that extend the file) are pread()/pwrite() on the\n"
		"           FUSE thread; uring: they go through an io_uring ring\n"
		"           and a completion thread replies (if built with liburing)\n"
		"    --ring-depth=N                [ring_depth=N]\n"
		"           the most requests on the ring (default 16); more are\n"
		"           parked and resubmitted when a completion frees room\n"
		"    --retry=completion|timer      [retry=RULE]\n"
		"           when parked requests are retried: at a completion\n"
		"           (default) or from a 1 ms timer (the 2019 rule)\n"
		"    --log=FILE                    [log=FILE]\n"
		"           a daemon's messages (errors, the statistics at unmount)\n"
		"           are appended to FILE; without it they go to syslog\n"
		"           (in the foreground: stderr)\n"
		"    -f, --foreground              stay in the foreground; without it\n"
		"           the command returns once the daemon serves the mount (0),\n"
		"           or with 1 and the message if it failed to start\n"
		"    -d, --debug                   [debug] FUSE debug output (implies -f)\n"
		"    -s                            serve requests with one thread\n"
		"    -o OPT[,OPT...]               the options in brackets, and the FUSE\n"
		"           and mount options below (e.g. default_permissions,allow_other)\n"
		"    -h, --help                    this text\n"
		"    -V, --version                 the libfuse version\n"
		"\n"
		"FILES\n"
		"    MNT/" STATS_NAME "   the cache counters; printed at unmount too\n"
		"           (attr_refreshes: reads that fstat()ed the source, also\n"
		"           per 10k reads; attr_shrinks: of those, the ones that\n"
		"           found it shrunk and punched the window; zero_copy_reads:\n"
		"           reads spliced from the window, zero_copy_faults: of those,\n"
		"           the ones that met a page past the end and fell back;\n"
		"           direct_writes: writes the default policy pwrite()s;\n"
		"           bypass_budget: misses the cache's eviction budget\n"
		"           (--evict-interval) refused, of bypass_full;\n"
		"           hits, setups (misses) and bypassed_ios also per 10k reads;\n"
		"           commits: fsyncs, commit_writebacks: the range writebacks\n"
		"           they waited for, also per commit; reclaim_writebacks:\n"
		"           writebacks of reclaimed writable ranges done on the\n"
		"           pool, reclaim_writebacks_inline: those done with msync()\n"
		"           by the reclaiming thread (no pool, or the file closed);\n"
		"           uring_*: the io_uring engine: submits to the ring,\n"
		"           completions, ring_full (-ENOSPC answers), parks (requests\n"
		"           parked), resubmits (parked requests that reached the\n"
		"           ring), timer_retries (submissions by the retry timer))\n"
		"\n"
		"EXIT STATUS\n"
		"    0 unmounted cleanly (daemonized: the daemon serves the mount),\n"
		"    1 an error (also one the daemon met while it started),\n"
		"    2 bad arguments.\n"
		"\n", prog);
}

enum { KEY_FOREGROUND, KEY_DEBUG, KEY_ALLOW_OTHER, KEY_DEFAULT_PERMISSIONS };

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
	DAXFS_OPT("--attr-timeout %s", attr_timeout_arg, 0),
	DAXFS_OPT("--attr-timeout=%s", attr_timeout_arg, 0),
	DAXFS_OPT("attr_timeout=%s", attr_timeout_arg, 0),
	DAXFS_OPT("--evict-interval %s", evict_arg, 0),
	DAXFS_OPT("--evict-interval=%s", evict_arg, 0),
	DAXFS_OPT("evict_interval=%s", evict_arg, 0),
	DAXFS_OPT("--setup-cost %s", cost_arg, 0),
	DAXFS_OPT("--setup-cost=%s", cost_arg, 0),
	DAXFS_OPT("setup_cost=%s", cost_arg, 0),
	DAXFS_OPT("--direct-io", direct_io, 1),
	DAXFS_OPT("direct_io", direct_io, 1),
	DAXFS_OPT("--io-engine %s", engine_arg, 0),
	DAXFS_OPT("--io-engine=%s", engine_arg, 0),
	DAXFS_OPT("io_engine=%s", engine_arg, 0),
	DAXFS_OPT("--ring-depth %s", depth_arg, 0),
	DAXFS_OPT("--ring-depth=%s", depth_arg, 0),
	DAXFS_OPT("ring_depth=%s", depth_arg, 0),
	DAXFS_OPT("--retry %s", retry_arg, 0),
	DAXFS_OPT("--retry=%s", retry_arg, 0),
	DAXFS_OPT("retry=%s", retry_arg, 0),
	DAXFS_OPT("--log %s", log_arg, 0),
	DAXFS_OPT("--log=%s", log_arg, 0),
	DAXFS_OPT("log=%s", log_arg, 0),
	DAXFS_OPT("no_default_permissions", no_default_permissions, 1),
	FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
	FUSE_OPT_KEY("default_permissions", KEY_DEFAULT_PERMISSIONS),
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
	case KEY_ALLOW_OTHER:
		opt.allow_other = 1;
		return 1;	/* libfuse's mount option too */
	case KEY_DEFAULT_PERMISSIONS:
		opt.default_permissions = 1;
		return 1;
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
	if (opt.attr_timeout_arg) {
		char *end;
		double t;

		errno = 0;
		t = strtod(opt.attr_timeout_arg, &end);
		/* At most a year: a "forever" that still fits in ns. */
		if (errno || end == opt.attr_timeout_arg || *end || !(t >= 0) ||
		    t > 31536000.0) {
			fprintf(stderr, "daxfs: bad value '%s'\n", opt.attr_timeout_arg);
			return -1;
		}
		opt.attr_timeout_ns = (uint64_t)(t * 1e9);
	}
	if (opt.evict_arg) {
		if (parse_size(opt.evict_arg, &opt.evict_interval) ||
		    opt.evict_interval > UINT_MAX) {
			fprintf(stderr, "daxfs: bad value '%s'\n", opt.evict_arg);
			return -1;
		}
	}
	if (opt.cost_arg) {
		if (parse_size(opt.cost_arg, &opt.setup_cost) ||
		    opt.setup_cost < 1 || opt.setup_cost > DC_ADMIT_SETUP_COST_MAX) {
			fprintf(stderr, "daxfs: bad value '%s'\n", opt.cost_arg);
			return -1;
		}
	}
	if (opt.engine_arg) {
		if (!strcmp(opt.engine_arg, "uring")) {
#ifndef DAXFS_URING
			fprintf(stderr, "daxfs: built without liburing: no --io-engine=uring\n");
			return -1;
#endif
			opt.uring = true;
		} else if (strcmp(opt.engine_arg, "sync")) {
			fprintf(stderr, "daxfs: bad value '%s'\n", opt.engine_arg);
			return -1;
		}
	}
	if (opt.depth_arg) {
		if (parse_size(opt.depth_arg, &v) || !v || v > 4096) {
			fprintf(stderr, "daxfs: bad value '%s'\n", opt.depth_arg);
			return -1;
		}
		opt.ring_depth = (unsigned int)v;
	}
	if (opt.retry_arg) {
		if (!strcmp(opt.retry_arg, "timer")) {
			opt.retry_timer = true;
		} else if (strcmp(opt.retry_arg, "completion")) {
			fprintf(stderr, "daxfs: bad value '%s'\n", opt.retry_arg);
			return -1;
		}
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
	struct dc_backend_ops ops;
	int err;

	dc_cache_config_init(&cfg, sizeof(cfg), opt.window_size);
	cfg.range_shift = opt.range_shift;
	/*
	 * The older policies map every miss, as they always did; the default
	 * one lets admission control answer DC_MAP_BYPASS (read it directly).
	 */
	cfg.admit = DC_ADMIT_ALWAYS;
	if (!strcmp(opt.policy, "2019")) {
		/* That code sent one REMOVEMAPPING per range it reclaimed. */
		cfg.flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_REMOVE_ON_INLINE;
		cfg.remove_batch_max = 1;
	} else if (!strcmp(opt.policy, "seed000")) {
		cfg.flags = 0;
		cfg.victim = DC_VICTIM_ROUND_ROBIN;
	} else if (!strcmp(opt.policy, "upstream")) {
		/*
		 * Upstream Linux kicks its background reclaimer on every
		 * allocation below the threshold, and sends REMOVEMAPPING on
		 * inline reclaim too, one per range reclaimed.
		 */
		cfg.flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_INLINE_OWN_ONLY |
			    DC_CACHE_REMOVE_ON_INLINE;
		cfg.victim = DC_VICTIM_ROUND_ROBIN;
		cfg.remove_batch_max = 1;
	} else {
		cfg.admit = DC_ADMIT_FREQ;
		/*
		 * A setup is the mmap backend's mmap(MAP_FIXED) over the old
		 * mapping and the page faults of its first touches, where a
		 * bypassed read is one pread() of the backing file
		 * (--setup-cost, default DAXFS_SETUP_COST).
		 */
		cfg.admit_setup_cost = (unsigned int)opt.setup_cost;
		/*
		 * The eviction budget: with this backend a hit saves one
		 * pread() (the data is copied either way) while a setup is an
		 * mmap() over the old mapping, then a page fault on each page
		 * read (as much as about 18 pread()s under fio's random 4 KiB
		 * reads), so where reads spread evenly over more than the
		 * window an eviction that the contest admits by chance is a
		 * loss; at most one per --evict-interval references (0: none).
		 */
		cfg.admit_evict_interval = (unsigned int)opt.evict_interval;
		map_flags = DC_MAP_MAY_BYPASS;
	}
	be_ops = dc_mmapbe_ops();
	ops = *be_ops;
	ops.writeback = pool_writeback;
	err = dc_cache_create(&cfg, sizeof(cfg), &ops, sizeof(ops), be, &cache);
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

/* The daemon's end of the pipe its parent waits on (daemon_begin()). */
static int ready_fd = -1;

/*
 * Unless @foreground, fork: the parent waits until the child says it
 * serves the mount (daemon_ready(): exit 0), or exits 1 if the child ends
 * first (it failed to start, and said why on the stderr they share).
 * fuse_daemonize() cannot be used: its parent exits 0 at once, before
 * what can fail (the io_uring ring, the cache, the writeback pool, whose
 * threads must be started in the process that serves) has run.  0 or -1.
 */
static int daemon_begin(bool foreground)
{
	int p[2];
	char c;
	pid_t pid;

	if (foreground)
		return 0;
	if (pipe2(p, O_CLOEXEC)) {
		perror("daxfs: pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("daxfs: fork");
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid) {
		ssize_t r;

		close(p[1]);
		/* EOF: the daemon exited (or died) without saying it serves. */
		do
			r = read(p[0], &c, 1);
		while (r < 0 && errno == EINTR);
		_exit(r == 1 && c == 'r' ? 0 : 1);
	}
	close(p[0]);
	ready_fd = p[1];
	if (setsid() < 0) {
		perror("daxfs: setsid");
		return -1;
	}
	return 0;
}

/*
 * Everything started: detach from the terminal (stderr to -o log=FILE's
 * @log_fd, or /dev/null and fuse_log() to syslog) and let the parent exit 0.
 */
static void daemon_ready(int log_fd)
{
	int null_fd;
	char c = 'r';

	if (chdir("/"))
		fuse_log(FUSE_LOG_WARNING, "daxfs: chdir /: %s\n", strerror(errno));
	if (ready_fd < 0)
		return;
	null_fd = open("/dev/null", O_RDWR);
	if (null_fd >= 0) {
		dup2(null_fd, 0);
		dup2(null_fd, 1);
		dup2(log_fd >= 0 ? log_fd : null_fd, 2);
		if (null_fd > 2)
			close(null_fd);
	}
	if (log_fd < 0) {
		openlog("daxfs", LOG_PID, LOG_DAEMON);
		log_syslog = true;
	}
	while (write(ready_fd, &c, 1) < 0 && errno == EINTR)
		;
	close(ready_fd);
	ready_fd = -1;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts cl;
	struct fuse_session *se;
	struct fuse_loop_config *loop_cfg;
	struct stat st;
	char buf[STATS_MAX];
	int ret = 1, err, log_fd = -1;

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
		err = uring_probe();
		printf("io_uring: %s%s\n", err == -ENOSYS ? "not built" :
		       err ? "refused: " : "available", err && err != -ENOSYS ?
		       strerror(-err) : "");
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
	/*
	 * allow_other serves other users, and daxfs checks no permission
	 * itself: without default_permissions the kernel would not either, and
	 * any user could chmod, chown, truncate or remove root's files.  So
	 * allow_other turns default_permissions on, unless the user explicitly
	 * asks for no_default_permissions (then only access() and what the
	 * source checks for new files, under the caller's ids, are checked).
	 */
	if (opt.allow_other && !opt.default_permissions) {
		if (opt.no_default_permissions) {
			fprintf(stderr, "daxfs: warning: allow_other without default_permissions:"
				" other users may change files daxfs can change\n");
		} else if (fuse_opt_add_arg(&args, "-odefault_permissions")) {
			goto out_args;
		}
	}
	fuse_set_log_func(dfs_log);
	if (opt.log_arg) {
		log_fd = open(opt.log_arg, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (log_fd < 0) {
			fprintf(stderr, "daxfs: %s: %s\n", opt.log_arg, strerror(errno));
			goto out_args;
		}
	}
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
	pthread_mutex_init(&root.dirty_lock, NULL);
	pthread_key_create(&zc_key, zc_destructor);
	zc_init();
#if defined(DAXFS_TIMING) && defined(__x86_64__)
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		t_ns0 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		t_tsc0 = timing_tsc();
	}
#endif
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
	/*
	 * What can fail runs in the serving process but before its parent
	 * exits, which then exits non-zero (the message is on its stderr).
	 */
	if (daemon_begin(cl.foreground))
		goto out_unmount;
	if (!opt.no_dax && (cache_start() || wb_start()))
		goto out_unmount;
	if (opt.uring && uring_start())
		goto out_unmount;
	daemon_ready(log_fd);
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
	uring_stop();
	wb_stop_all();
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
	stats_text(buf, sizeof(buf));
	fuse_log(FUSE_LOG_INFO, "daxfs: unmounted %s\n", opt.mnt);
	log_lines(FUSE_LOG_INFO, buf);
out_window:
	if (cache)
		dc_cache_destroy(cache);
	dc_mmapbe_destroy(be);
out_args:
	while (stats_files.next != &stats_files) {
		struct dfile *f = stats_files.next;

		stats_files.next = f->next;
		free(f);
	}
	if (log_fd >= 0)
		close(log_fd);
	if (log_syslog)
		closelog();
	xino_free();
	free(daemon_groups);
	free(cl.mountpoint);
	free(opt.src);
	free(opt.window_arg);
	free(opt.shift_arg);
	free(opt.policy_arg);
	free(opt.attr_timeout_arg);
	free(opt.evict_arg);
	free(opt.engine_arg);
	free(opt.depth_arg);
	free(opt.retry_arg);
	free(opt.log_arg);
	fuse_opt_free_args(&args);
	return ret;
}
