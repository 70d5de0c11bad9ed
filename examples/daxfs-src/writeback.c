// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * writeback.c - fsync's commit after writeback, on a pool of threads, and
 * the writebacks of reclaimed writable ranges on the same pool.
 */
#include "daxfs.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Commit after writeback.  A window write marks its range dirty
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
 * the pool as well: see dfs_pool_writeback().
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
 * Under wb_lock: whether reclaims may queue (from dfs_wb_start() until
 * dfs_wb_stop_all()), and how many dfs_pool_writeback() calls are between taking a
 * slot and queueing; dfs_wb_stop_all() waits on wb_idle for them.
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

	atomic_fetch_add_explicit(&dfs_n_commits, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&dfs_n_commit_wbs, c->nr_wb, memory_order_relaxed);
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
		atomic_fetch_add_explicit(&dfs_n_wb_errors, 1, memory_order_relaxed);
		atomic_compare_exchange_strong(&c->err, &zero, err);
	}
}

/* A reclaim's writeback: start it, wait for it, count it. */
static void wb_reclaim_run(struct wb_job *j)
{
	int err = range_sync(j->fd, j->off, j->len);

	/* No caller to tell: the log does (the next fsync fails too). */
	if (err) {
		atomic_fetch_add_explicit(&dfs_n_rc_wb_errors, 1, memory_order_relaxed);
		fuse_log(FUSE_LOG_ERR, "daxfs: writeback of a reclaimed range at %" PRIu64
			 " (%" PRIu64 " bytes): %s\n", j->off, j->len, strerror(err));
	}
	close(j->fd);
	atomic_fetch_add_explicit(&dfs_n_rc_wbs, 1, memory_order_relaxed);
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
int dfs_wb_start(void)
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
void dfs_wb_stop_all(void)
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
int dfs_pool_writeback(void *priv, uint64_t ino, uint64_t file_off,
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
	fd = dfs_fd_table_dup(ino);
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
	atomic_fetch_add_explicit(&dfs_n_rc_wb_inline, 1, memory_order_relaxed);
	return dfs_be_ops->writeback(priv, ino, file_off, len, win_off);
}

void dfs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
	       struct fuse_file_info *fi)
{
	struct dfs_node *n = dfs_get_node(ino);
	struct wb_commit *c;
	uint64_t *dirty, rs = (uint64_t)1 << dfs_opt.range_shift;
	size_t words, w;
	int r = 0;

	if (n == &dfs_stats_node) {
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
