// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stats.c - daxfs's counters, and the file .daxfs-stats in the mount root
 * that shows them with the cache's (also logged at unmount).
 */
#include "daxfs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * The open stats files: a release that the kernel has not sent when the
 * mount goes away (a close just before the unmount) leaves its file here,
 * freed at exit.
 */
static struct dfs_file stats_files = { .next = &stats_files, .prev = &stats_files };
static pthread_mutex_t stats_files_lock = PTHREAD_MUTEX_INITIALIZER;

atomic_uint_fast64_t dfs_n_reads, dfs_n_writes, dfs_n_ext_writes, dfs_n_fallbacks, dfs_n_bypassed;
/* Writes the default policy served with pwrite() (see write_window()). */
atomic_uint_fast64_t dfs_n_direct_writes;
/*
 * Reads that refreshed the attributes, the shrinks they found, and the
 * punches after a shrink that left a range another read held pinned.
 */
atomic_uint_fast64_t dfs_n_attr_refreshes, dfs_n_attr_shrinks, dfs_n_attr_punch_busy;
/* Reads replied from the window without a copy; those that met a page past the end. */
atomic_uint_fast64_t dfs_n_zc_reads, dfs_n_zc_faults;
/* fsync's COMMITs, the writebacks they waited for, and their errors. */
atomic_uint_fast64_t dfs_n_commits, dfs_n_commit_wbs, dfs_n_wb_errors;
/*
 * Writebacks of reclaimed (or evicted, or punched) writable ranges done on
 * the pool, their errors, and those done inline with the backend's msync()
 * because the pool or a descriptor was missing.
 */
atomic_uint_fast64_t dfs_n_rc_wbs, dfs_n_rc_wb_errors, dfs_n_rc_wb_inline;
/*
 * The io_uring engine: CQEs reaped, submit op calls by the retry timer,
 * requests parked, requests failed back to FUSE.
 */
atomic_uint_fast64_t dfs_n_u_completions, dfs_n_u_timer_retries, dfs_n_u_parks, dfs_n_u_errors;

/*
 * Append to the text at @buf (@size bytes), @len bytes long so far: as if
 * one snprintf() wrote all of it, it returns the length the whole would
 * have (or a negative one after an output error), and what does not fit is
 * left out.
 */
__attribute__((format(printf, 4, 5)))
static int text_add(char *buf, size_t size, int len, const char *fmt, ...)
{
	va_list ap;
	size_t at;
	int n;

	if (len < 0)
		return len;
	at = (size_t)len < size ? (size_t)len : size;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, size - at, fmt, ap);
	va_end(ap);
	return n < 0 ? n : len + n;
}

/* The configuration, and daxfs's own counts of reads and writes. */
static int text_io(char *buf, size_t size, int len, uint64_t reads, uint64_t bypassed)
{
	return text_add(buf, size, len,
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
			"setup_cost: %" PRIu64 "\n",
			dfs_opt.no_dax ? "no-dax" : "dax", dfs_opt.policy,
			dfs_opt.window_size, (uint64_t)1 << dfs_opt.range_shift,
			reads, (uint64_t)atomic_load(&dfs_n_writes),
			(uint64_t)atomic_load(&dfs_n_ext_writes),
			(uint64_t)atomic_load(&dfs_n_direct_writes),
			(uint64_t)atomic_load(&dfs_n_fallbacks),
			bypassed,
			dfs_map_flags ? dfs_opt.evict_interval : 0,
			dfs_map_flags ? dfs_opt.setup_cost : 0);
}

/* The cache's counters (zero with --no-dax), some per 10k reads. */
static int text_cache(char *buf, size_t size, int len, uint64_t reads, uint64_t bypassed)
{
	struct dc_cache_stats st;

	memset(&st, 0, sizeof(st));
	if (dfs_cache)
		dc_cache_stats(dfs_cache, &st, sizeof(st));
	return text_add(buf, size, len,
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
			"bypassed_per_10k_reads: %" PRIu64 "\n",
			st.bypass_budget,
			st.hits, st.misses, st.bypasses, st.bypass_full,
			st.bypass_busy, st.bypass_write, st.admits_contested, st.upgrades,
			st.inline_reclaims,
			st.bg_reclaims, st.removes_sent, st.removes_skipped,
			st.remove_batches, st.waits, st.wait_ns, st.setup_failures,
			st.writebacks, st.nr_free, st.nr_mapped,
			reads ? st.hits * 10000 / reads : 0,
			reads ? st.misses * 10000 / reads : 0,
			reads ? bypassed * 10000 / reads : 0);
}

/* The attribute cache's refreshes, and the reads replied without a copy. */
static int text_attr(char *buf, size_t size, int len, uint64_t reads)
{
	uint64_t refreshes = (uint64_t)atomic_load(&dfs_n_attr_refreshes);

	return text_add(buf, size, len,
			"attr_timeout_ns: %" PRIu64 "\n"
			"attr_refreshes: %" PRIu64 "\n"
			"attr_refreshes_per_10k_reads: %" PRIu64 "\n"
			"attr_shrinks: %" PRIu64 "\n"
			"attr_punch_busy: %" PRIu64 "\n"
			"zero_copy_reads: %" PRIu64 "\n"
			"zero_copy_faults: %" PRIu64 "\n",
			dfs_opt.attr_timeout_ns, refreshes,
			reads ? refreshes * 10000 / reads : 0,
			(uint64_t)atomic_load(&dfs_n_attr_shrinks),
			(uint64_t)atomic_load(&dfs_n_attr_punch_busy),
			(uint64_t)atomic_load(&dfs_n_zc_reads),
			(uint64_t)atomic_load(&dfs_n_zc_faults));
}

/* fsync's commits and their writebacks, and the writebacks at reclaim. */
static int text_commit(char *buf, size_t size, int len)
{
	uint64_t commits = (uint64_t)atomic_load(&dfs_n_commits);
	uint64_t wbs = (uint64_t)atomic_load(&dfs_n_commit_wbs);

	return text_add(buf, size, len,
			"commits: %" PRIu64 "\n"
			"commit_writebacks: %" PRIu64 "\n"
			"writebacks_per_commit: %" PRIu64 ".%02" PRIu64 "\n"
			"writeback_errors: %" PRIu64 "\n"
			"reclaim_writebacks: %" PRIu64 "\n"
			"reclaim_writeback_errors: %" PRIu64 "\n"
			"reclaim_writebacks_inline: %" PRIu64 "\n",
			commits, wbs, commits ? wbs / commits : 0,
			commits ? wbs * 100 / commits % 100 : 0,
			(uint64_t)atomic_load(&dfs_n_wb_errors),
			(uint64_t)atomic_load(&dfs_n_rc_wbs),
			(uint64_t)atomic_load(&dfs_n_rc_wb_errors),
			(uint64_t)atomic_load(&dfs_n_rc_wb_inline));
}

/* The io_uring engine's counters, and where the events behind them are. */
static int text_uring(char *buf, size_t size, int len)
{
	struct dc_reqq_stats rq;

	dfs_uring_stats(&rq);
	return text_add(buf, size, len,
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
			dfs_opt.uring ? "uring" : "sync",
			dfs_opt.retry_timer ? "timer" : "completion", dfs_opt.ring_depth,
			rq.submitted, (uint64_t)atomic_load(&dfs_n_u_completions),
			rq.enospc, (uint64_t)atomic_load(&dfs_n_u_parks), rq.resubmitted,
			(uint64_t)atomic_load(&dfs_n_u_timer_retries),
			(uint64_t)atomic_load(&dfs_n_u_errors), rq.parked, rq.in_flight);
}

/*
 * The text of .daxfs-stats, one "name: value" a line, in @buf of @size
 * bytes (cut short if it does not fit); its length.
 */
size_t dfs_stats_text(char *buf, size_t size)
{
	uint64_t reads = (uint64_t)atomic_load(&dfs_n_reads);
	uint64_t bypassed = (uint64_t)atomic_load(&dfs_n_bypassed);
	int len;

	len = text_io(buf, size, 0, reads, bypassed);
	len = text_cache(buf, size, len, reads, bypassed);
	len = text_attr(buf, size, len, reads);
	len = text_commit(buf, size, len);
	len = text_uring(buf, size, len);
#if defined(DAXFS_TIMING) && defined(__x86_64__)
	if (len > 0 && (size_t)len < size)
		len += dfs_timing_text(buf + len, size - (size_t)len);
#endif
	if (len < 0)
		return 0;
	return (size_t)len < size ? (size_t)len : size - 1;
}

void dfs_stats_attr(struct stat *st)
{
	char buf[2048];

	memset(st, 0, sizeof(*st));
	st->st_ino = DAXFS_XINO_BIT;	/* no dfs_map_ino() number: its n starts at 1 */
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = (off_t)dfs_stats_text(buf, sizeof(buf));
}

/* Answer @err for .daxfs-stats, which only opens, reads and stats; true then. */
bool dfs_stats_refuse(fuse_req_t req, struct dfs_node *n, int err)
{
	if (n != &dfs_stats_node)
		return false;
	fuse_reply_err(req, err);
	return true;
}

/*
 * SEEK_DATA and SEEK_HOLE in the text an open of .daxfs-stats took: data
 * without a hole up to its end, as in any regular file (cp looks for holes
 * with them, and fails on an error other than ENXIO).
 */
off_t dfs_stats_seek(const struct dfs_file *f, off_t off, int whence)
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

/* Open .daxfs-stats: its text now, which the reads of this open return. */
void dfs_stats_open(fuse_req_t req, struct fuse_file_info *fi)
{
	struct dfs_file *f = calloc(1, sizeof(*f) + DAXFS_STATS_MAX);

	if (!f) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	f->fd = -1;
	f->text = (char *)(f + 1);
	f->text_len = dfs_stats_text(f->text, DAXFS_STATS_MAX);
	pthread_mutex_lock(&stats_files_lock);
	f->next = stats_files.next;
	f->prev = &stats_files;
	f->next->prev = f;
	stats_files.next = f;
	pthread_mutex_unlock(&stats_files_lock);
	fi->fh = (uint64_t)(uintptr_t)f;
	fi->direct_io = 1;
	fuse_reply_open(req, fi);
}

/* Reply to a read of @size bytes at @off of the text an open of .daxfs-stats took. */
void dfs_stats_read(fuse_req_t req, struct fuse_file_info *fi, size_t size, off_t off)
{
	struct dfs_file *f = (struct dfs_file *)(uintptr_t)fi->fh;
	char text[DAXFS_STATS_MAX];
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
}

/* Release an open of .daxfs-stats (the caller replies). */
void dfs_stats_release(struct fuse_file_info *fi)
{
	struct dfs_file *f = (struct dfs_file *)(uintptr_t)fi->fh;

	pthread_mutex_lock(&stats_files_lock);
	f->prev->next = f->next;
	f->next->prev = f->prev;
	pthread_mutex_unlock(&stats_files_lock);
	free(f);
}

/* At exit: free the opens the kernel sent no release for. */
void dfs_stats_files_free(void)
{
	while (stats_files.next != &stats_files) {
		struct dfs_file *f = stats_files.next;

		stats_files.next = f->next;
		free(f);
	}
}
