// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * uring.c - the io_uring engine of --io-engine=uring (built with liburing:
 * DAXFS_URING), or the stubs that refuse it.
 */
#include "daxfs.h"

#ifdef DAXFS_URING
#include <liburing.h>
#endif

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/*
 * The io_uring engine (--io-engine=uring): a full queue is refilled when a
 * completion arrives, not from a 1 ms timer.
 * The direct reads and writes (--no-dax, and writes that extend the file or
 * append) are not served on the FUSE thread: a struct uio carries the
 * request through the library's dc_reqq, whose submit op (uring_submit())
 * places it in a ring of --ring-depth entries and answers -ENOSPC when that
 * many are on the ring already.  The reqq parks such a request and
 * resubmits it from dc_reqq_complete(), which the completion thread
 * (uring_reaper()) calls for every CQE it reaps, before the end callback
 * (uio_end()) replies to FUSE (libfuse replies may come from any thread).
 * --retry=timer makes the reqq retry parked requests from its 1 ms timer
 * instead (DC_REQQ_TIMER_RETRY), for comparison.  Any other
 * error (from io_uring_submit(), -ENOMEM, or the CQE's -EIO) goes back to
 * the FUSE request.  A short read or write is replied short, as a single
 * pread()/pwrite() of the synchronous engine is.
 */
#ifdef DAXFS_URING
struct uio {
	struct dc_reqq_req rq;
	fuse_req_t req;
	struct dfs_node *n;
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
		atomic_fetch_add_explicit(&dfs_n_u_timer_retries, 1, memory_order_relaxed);
	pthread_mutex_lock(&ring_lock);
	if (ring_in_flight >= dfs_opt.ring_depth || !(sqe = io_uring_get_sqe(&ring))) {
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
		atomic_fetch_add_explicit(&dfs_n_u_errors, 1, memory_order_relaxed);
		fuse_reply_err(u->req, -status);
	} else if (u->write) {
		if (u->n->attr)
			dc_attr_note_write(u->n->attr, u->off + (uint64_t)status,
					   DC_ATTR_MTIME_UNKNOWN, dfs_mono_ns());
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
			break;		/* dfs_uring_stop()'s marker */
		if (!u)
			continue;	/* a failed submission's no-op */
		atomic_fetch_add_explicit(&dfs_n_u_completions, 1, memory_order_relaxed);
		dc_reqq_complete(uq, &u->rq, res);
	}
	return NULL;
}

/*
 * Serve a direct read (@write false: @data NULL) or write of @len bytes at
 * @off through the ring; replies to @req in every case.
 */
void dfs_uring_io(fuse_req_t req, struct dfs_node *n, int fd, const char *data,
		  size_t len, uint64_t off)
{
	struct uio *u = malloc(sizeof(*u) + (len ? len : 1));
	int err;

	if (!u) {
		atomic_fetch_add_explicit(&dfs_n_u_errors, 1, memory_order_relaxed);
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
		atomic_fetch_add_explicit(&dfs_n_u_parks, 1, memory_order_relaxed);
	if (err) {
		atomic_fetch_add_explicit(&dfs_n_u_errors, 1, memory_order_relaxed);
		fuse_reply_err(req, -err);
		free(u);
	}
}

/* Whether io_uring works here (the kernel or seccomp may refuse it). */
int dfs_uring_probe(void)
{
	struct io_uring r;
	int err = io_uring_queue_init(2, &r, 0);

	if (!err)
		io_uring_queue_exit(&r);
	return err;
}

/* Set the ring, the reqq and the completion thread up; 0 or -errno (said). */
int dfs_uring_start(void)
{
	struct dc_reqq_config cfg = {
		.flags = dfs_opt.retry_timer ? DC_REQQ_TIMER_RETRY : 0,
	};
	int err;

	/* Twice the depth: the stop marker and failed no-ops fit too. */
	err = io_uring_queue_init(dfs_opt.ring_depth * 2, &ring, 0);
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
void dfs_uring_stop(void)
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

void dfs_uring_stats(struct dc_reqq_stats *st)
{
	*st = uq_final;
	if (uq)
		dc_reqq_stats(uq, st, sizeof(*st));
}
#else
void dfs_uring_io(fuse_req_t req, struct dfs_node *n, int fd, const char *data,
		  size_t len, uint64_t off)
{
	fuse_reply_err(req, ENOSYS);	/* not reached: refused at start */
}

int dfs_uring_probe(void)
{
	return -ENOSYS;
}

int dfs_uring_start(void)
{
	fprintf(stderr, "daxfs: built without liburing: no --io-engine=uring\n");
	return -ENOSYS;
}

void dfs_uring_stop(void)
{
}

void dfs_uring_stats(struct dc_reqq_stats *st)
{
	memset(st, 0, sizeof(*st));
}
#endif
