/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxfs.h - what the parts of daxfs share: the node of a source inode, an
 * open file, the options, the counters of .daxfs-stats, and the functions
 * one part calls in another.  Private to daxfs (see main.c for what the
 * program does); nothing here is the library's API.
 *
 * The parts:
 *   main.c       main(), the daemon's start, logging
 *   options.c    the command line and -o options, --help
 *   cache.c      the mmap backend's window and the cache, by --policy
 *   node.c       the source inodes the kernel knows, and their registration
 *                with the cache while open
 *   creds.c      the caller's credentials, for the nodes daxfs makes
 *   fsops.c      the FUSE operations on files and attributes, and the table
 *                of operations
 *   dir.c        the FUSE operations on directories and names
 *   io.c         read and write through the window (spliced replies)
 *   uring.c      the io_uring engine (--io-engine=uring)
 *   writeback.c  fsync's commit after writeback, and the writebacks of
 *                reclaimed ranges
 *   stats.c      the counters and the .daxfs-stats file
 */
#ifndef DAXFS_H
#define DAXFS_H

/* Every part includes this header first: it sets what the system headers see. */
#define _GNU_SOURCE
#define FUSE_USE_VERSION 312

#include <daxcache/daxcache.h>
#include <daxcache/mmap_backend.h>
#include <fuse_lowlevel.h>

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#define DAXFS_STATS_NAME	".daxfs-stats"
#define DAXFS_STATS_MAX		4096
#define DAXFS_TIMEOUT_S		1.0
/* Exported inode numbers with this bit set are assigned by dfs_map_ino(). */
#define DAXFS_XINO_BIT		(1ull << 63)
/* The smallest read replied without a copy (io.c). */
#define DAXFS_ZC_MIN		8192
/* window_copy() and zc_read(): the cache bypasses all of it, use the ring. */
#define DAXFS_BYPASS_WHOLE	2

/* One source inode the kernel knows about. */
struct dfs_node {
	struct dfs_node *next;		/* hash chain */
	dev_t dev;
	ino_t ino;
	uint64_t fino;			/* st_ino shown, and the cache inode id */
	int path_fd;			/* O_PATH descriptor of the source */
	uint64_t nlookup;		/* kernel references */
	unsigned int nopen;		/* open files (dax mode bookkeeping) */
	pthread_rwlock_t io_lock;	/* read/write shared, truncate exclusive */
	atomic_bool atime_due;		/* see touch_atime() */
	int map_fd;			/* registered with the backend while nopen */
	struct dfs_node *fd_next;	/* fd_table chain, while map_fd is open */
	struct dc_inode *dci;
	struct dc_attr *attr;		/* cached size and mtime, from the first open on */
	pthread_mutex_t dirty_lock;
	uint64_t *dirty;		/* ranges written through the window since fsync */
	size_t dirty_words;
};

struct dfs_file {
	int fd;
	DIR *dir;
	char *text;			/* the stats snapshot */
	size_t text_len;
	struct dfs_file *next, *prev;	/* stats_files */
};

/*
 * The options; the int and char * fields are filled by fuse_opt_parse()
 * (which frees a string it replaces: the defaults of those are NULL).
 */
struct daxfs_opts {
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
	uint64_t evict_interval;	/* --evict-interval: see policy_default() */
	char *evict_arg;
	uint64_t setup_cost;		/* --setup-cost: see policy_default() */
	char *cost_arg;
	char *window_arg;
	char *shift_arg;
	char *policy_arg;
	char *log_arg;			/* -o log=FILE */
	int allow_other;		/* -o allow_other given (kept for libfuse) */
	int default_permissions;	/* -o default_permissions given (kept) */
	int no_default_permissions;	/* -o no_default_permissions: see allow_other_permissions() */
	char *src;
	const char *mnt;
};

/* options.c */
extern struct daxfs_opts dfs_opt;
void dfs_usage(FILE *f, const char *prog);
int dfs_opts_parse(struct fuse_args *args);
int dfs_check_values(void);
void dfs_opts_free(void);

/* cache.c */
extern struct dc_mmapbe *dfs_be;
extern struct dc_cache *dfs_cache;
extern const struct dc_backend_ops *dfs_be_ops;
extern unsigned int dfs_map_flags;
int dfs_window_reserve(void);
const char *dfs_policy_name(const char *name);
int dfs_cache_start(void);

/* node.c */
extern struct dfs_node dfs_root;
extern struct dfs_node dfs_stats_node;
int dfs_root_init(void);
int dfs_stat_fd(int fd, struct stat *st);
uint64_t dfs_map_ino(dev_t dev, ino_t ino);
void dfs_xino_free(void);
int dfs_fd_table_dup(uint64_t fino);
void dfs_forget_node(struct dfs_node *n, uint64_t count);
int dfs_do_lookup(struct dfs_node *parent, const char *name, struct fuse_entry_param *e);
void dfs_proc_path(struct dfs_node *n, char *path, size_t size);
int dfs_reopen(struct dfs_node *n, int flags);
uint64_t dfs_mono_ns(void);
int dfs_dax_attach(struct dfs_node *n);
void dfs_dax_detach(struct dfs_node *n);
int dfs_punch_window(struct dfs_node *n, off_t size);

/* The node of the kernel's inode number @ino. */
static inline struct dfs_node *dfs_get_node(fuse_ino_t ino)
{
	if (ino == FUSE_ROOT_ID)
		return &dfs_root;
	return (struct dfs_node *)(uintptr_t)ino;
}

/* creds.c */
extern bool dfs_as_root;
int dfs_caller_creds_enter(fuse_req_t req);
bool dfs_caller_in_group(fuse_req_t req, gid_t gid);
void dfs_caller_creds_exit(void);
int dfs_creds_init(void);
void dfs_creds_free(void);

/* fsops.c */
extern const struct fuse_lowlevel_ops dfs_ops;

/* dir.c */
void dfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void dfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void dfs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name);
void dfs_readlink(fuse_req_t req, fuse_ino_t ino);
void dfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void dfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void dfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void dfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		fuse_ino_t newparent, const char *newname, unsigned int flags);
void dfs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi);
void dfs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void dfs_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);

/* io.c */
void dfs_init(void *userdata, struct fuse_conn_info *conn);
void dfs_zc_init(void);
void dfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
	      struct fuse_file_info *fi);
void dfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
	       off_t off, struct fuse_file_info *fi);
#if defined(DAXFS_TIMING) && defined(__x86_64__)
void dfs_timing_init(void);
int dfs_timing_text(char *buf, size_t size);
#endif

/* uring.c */
void dfs_uring_io(fuse_req_t req, struct dfs_node *n, int fd, const char *data,
		  size_t len, uint64_t off);
int dfs_uring_probe(void);
int dfs_uring_start(void);
void dfs_uring_stop(void);
void dfs_uring_stats(struct dc_reqq_stats *st);

/* writeback.c */
int dfs_wb_start(void);
void dfs_wb_stop_all(void);
int dfs_pool_writeback(void *priv, uint64_t ino, uint64_t file_off,
		       uint64_t len, uint64_t win_off);
void dfs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);

/* stats.c: the counters, and the .daxfs-stats file */
extern atomic_uint_fast64_t dfs_n_reads, dfs_n_writes, dfs_n_ext_writes, dfs_n_fallbacks,
	dfs_n_bypassed;
extern atomic_uint_fast64_t dfs_n_direct_writes;
extern atomic_uint_fast64_t dfs_n_attr_refreshes, dfs_n_attr_shrinks, dfs_n_attr_punch_busy;
extern atomic_uint_fast64_t dfs_n_zc_reads, dfs_n_zc_faults;
extern atomic_uint_fast64_t dfs_n_commits, dfs_n_commit_wbs, dfs_n_wb_errors;
extern atomic_uint_fast64_t dfs_n_rc_wbs, dfs_n_rc_wb_errors, dfs_n_rc_wb_inline;
extern atomic_uint_fast64_t dfs_n_u_completions, dfs_n_u_timer_retries, dfs_n_u_parks,
	dfs_n_u_errors;
size_t dfs_stats_text(char *buf, size_t size);
void dfs_stats_attr(struct stat *st);
bool dfs_stats_refuse(fuse_req_t req, struct dfs_node *n, int err);
void dfs_stats_open(fuse_req_t req, struct fuse_file_info *fi);
void dfs_stats_read(fuse_req_t req, struct fuse_file_info *fi, size_t size, off_t off);
void dfs_stats_release(struct fuse_file_info *fi);
off_t dfs_stats_seek(const struct dfs_file *f, off_t off, int whence);
void dfs_stats_files_free(void);

#endif /* DAXFS_H */
