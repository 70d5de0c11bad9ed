/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/reqq.h - request dispatch queue in front of a bounded device
 * queue, with completion-driven retry of a full queue.
 *
 * A caller-provided submit op (history: docs/design.md) places a
 * request on the device's queue and answers 0, -ENOSPC (the queue is full),
 * -ENOMEM or another -errno.
 *
 * - -ENOSPC: the request is parked, in FIFO order, and resubmitted as soon
 *   as a completion (dc_reqq_complete()) frees room.  No timer is involved:
 *   -ENOSPC must mean that the device holds requests of this queue whose
 *   completions are still to come.
 * - -ENOMEM or any other error: the request fails back to its caller with
 *   that errno.  A DC_REQQ_FORGET request (fire-and-forget, like FUSE's
 *   FORGET) is dropped instead, and counted.
 *
 * Who hears about a request, exactly once:
 * - dc_reqq_submit() returns the error of a first submission that fails with
 *   anything but -ENOSPC (and -ENOTCONN after shutdown).  The request was
 *   not accepted: its end callback is not called, the caller still owns it.
 *   (A first submission refused with -ENOSPC while a completion freed room
 *   and nothing was parked is tried again at once by dc_reqq_submit(); the
 *   error of that retry is returned the same way.  When others were parked
 *   and the completion came from inside this submission's own op, the
 *   request is parked behind them and dc_reqq_submit() resubmits them and
 *   it, in order, before it returns; an error of its own resubmission is
 *   returned the same way.)
 * - Every request that dc_reqq_submit() accepted (returned 0) has its end
 *   callback called exactly once: with the status given to
 *   dc_reqq_complete(); with the error of a later resubmission from the
 *   parked list; or with -ENOTCONN when the queue is shut down while it is
 *   parked.  dc_reqq_submit() ends no request by itself, with one exception
 *   that stays in the completion path: when its submit op called
 *   dc_reqq_complete() or dc_reqq_submit() on this queue (a synchronous
 *   device; an end callback that submits again), the resubmission of
 *   parked requests that this calls for runs once the op has returned,
 *   still inside dc_reqq_submit(), and may end them with a resubmission
 *   error, never the request being submitted.  A FORGET request's end
 *   callback is called too (with the error when it is dropped), so that
 *   its memory can be released.
 *
 * Locking: the queue's lock protects the parked list and the counters.  It
 * is never held while the submit op or an end callback runs, so both may
 * call dc_reqq_complete() (a device that completes synchronously) or
 * dc_reqq_submit().  One thread at a time resubmits parked requests (the
 * "dispatcher"): a completion that finds a dispatcher running leaves the
 * work to it, and parked requests reach the device in order.  The submit op
 * never runs nested inside itself on one thread: a dc_reqq_complete() or
 * dc_reqq_submit() made from inside the op (directly, or by an end
 * callback of a synchronous completion) parks its request or leaves the
 * parked ones to the thread's op call, which resubmits them once the op
 * has returned.  The op may run on several threads at once (submitters on
 * the direct path, the dispatcher): it serialises its own device access.
 * dc_reqq_complete() may run the submit op for parked requests in its
 * caller's context: the caller must not hold, around dc_reqq_complete(), a
 * lock its submit op takes.
 *
 * A timer retry is kept for comparison (DC_REQQ_TIMER_RETRY): parked
 * requests are retried from a delayed worker (1 ms by default), completions
 * do not dispatch, and new requests go to the device directly even when
 * others are parked (they may overtake parked ones, as they did then).
 */
#ifndef DAXCACHE_REQQ_H
#define DAXCACHE_REQQ_H

#include <stddef.h>
#include <stdint.h>

#include <daxcache/sized.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dc_reqq;
struct dc_reqq_req;

/**
 * typedef dc_reqq_end_fn - a request's end callback.
 * @req: the request; it belongs to the caller again (it may be freed).
 * @status: the device's status from dc_reqq_complete(), the error of a
 *          failed resubmission, or -ENOTCONN after dc_reqq_shutdown().
 */
typedef void (*dc_reqq_end_fn)(struct dc_reqq_req *req, int status);

/* Request flags. */
#define DC_REQQ_FORGET		0x1u	/* fire-and-forget: dropped on error */

/**
 * struct dc_reqq_req - a request, embedded in the caller's own structure
 * (find it again with container_of()).  Set up with dc_reqq_req_init().
 * @end: called once when an accepted request ends.
 * @flags: DC_REQQ_FORGET or 0.
 */
struct dc_reqq_req {
	dc_reqq_end_fn end;
	unsigned int flags;
	/* private: */
	struct dc_reqq_req *dc_next;
};

/**
 * struct dc_reqq_ops - what the queue calls.
 * @submit: place @req on the device's queue.  Returns 0 (the device now
 *          owns it and will report it with dc_reqq_complete()), -ENOSPC when
 *          the device queue is full, or another -errno.  Called without any
 *          lock of the queue held, from dc_reqq_submit(), dc_reqq_complete()
 *          or the retry worker, possibly on several threads at once, but
 *          never nested inside itself on one thread (whatever it calls).
 *
 * Passed with its size and copied (see daxcache/daxcache.h); new members
 * are only ever appended.
 */
struct dc_reqq_ops {
	int (*submit)(struct dc_reqq_req *req, void *priv);
};

/* The first layout of struct dc_reqq_ops: submit. */
#define DC_REQQ_OPS_SIZE_VER0 DC_OFFSETOFEND(struct dc_reqq_ops, submit)

/* Queue flags. */
#define DC_REQQ_TIMER_RETRY	0x1u	/* retry parked requests from a timer, not on completion */

/**
 * struct dc_reqq_config - how to create a queue.
 * @flags: DC_REQQ_TIMER_RETRY or 0 (completion-driven retry).
 * @retry_delay_ns: the retry timer's delay with DC_REQQ_TIMER_RETRY; 0 means
 *                  1 ms.  The kernel rounds it up to whole jiffies.
 *
 * Passed with its size (see daxcache/daxcache.h); new members are only
 * ever appended.  All zero is the default queue.
 */
struct dc_reqq_config {
	unsigned int flags;
	uint64_t retry_delay_ns;
};

/* The first layout of struct dc_reqq_config: flags, retry_delay_ns. */
#define DC_REQQ_CONFIG_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_reqq_config, retry_delay_ns)

/**
 * struct dc_reqq_stats - counters of a queue.
 * @submitted: calls of the submit op that returned 0.
 * @enospc: calls of the submit op that returned -ENOSPC.
 * @resubmitted: parked requests that later reached the device.
 * @completed: dc_reqq_complete() calls.
 * @failed: normal requests failed back with a submit error.
 * @dropped: FORGET requests dropped on a submit error.
 * @shut_down: parked requests ended with -ENOTCONN.
 * @in_flight: requests being submitted or on the device, now.
 * @parked: requests parked now.
 *
 * Filled for the caller's size (see daxcache/daxcache.h); new members are
 * only ever appended.
 */
struct dc_reqq_stats {
	uint64_t submitted;
	uint64_t enospc;
	uint64_t resubmitted;
	uint64_t completed;
	uint64_t failed;
	uint64_t dropped;
	uint64_t shut_down;
	uint64_t in_flight;
	uint64_t parked;
};

/* The first layout of struct dc_reqq_stats: up to @parked. */
#define DC_REQQ_STATS_SIZE_VER0 DC_OFFSETOFEND(struct dc_reqq_stats, parked)

/**
 * dc_reqq_create() - create a queue.
 * @cfg: the configuration (copied).
 * @cfg_size: sizeof(*@cfg) as the caller knows it.
 * @ops: the submit op, required (copied).
 * @ops_size: sizeof(*@ops) as the caller knows it.
 * @priv: passed to the ops.
 * @out: where the queue goes.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL when @cfg, @ops or its submit op is missing, for
 * unknown flags, or a size below DC_REQQ_CONFIG_SIZE_VER0 or
 * DC_REQQ_OPS_SIZE_VER0; -E2BIG when @cfg or @ops is larger than this
 * library knows and the rest is not zero; -ENOMEM, or an error from
 * starting the retry worker (DC_REQQ_TIMER_RETRY).
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_reqq_create(const struct dc_reqq_config *cfg, size_t cfg_size,
		   const struct dc_reqq_ops *ops, size_t ops_size, void *priv,
		   struct dc_reqq **out);

/**
 * dc_reqq_destroy() - shut a queue down and free it.
 * @q: the queue, or NULL.
 *
 * Parked requests end with -ENOTCONN.  Requests still on the device are the
 * caller's bug (dc_reqq_drain() first): they are reported once and their
 * later completion would touch freed memory.
 *
 * Context: process context; may sleep (stops the retry worker).
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): returns
 * at once, the object left to the exit.
 */
void dc_reqq_destroy(struct dc_reqq *q);

/**
 * dc_reqq_req_init() - set up a request before its first submission.
 * @req: the request.
 * @end: its end callback (non-NULL).
 * @flags: DC_REQQ_FORGET or 0.
 *
 * A request may be submitted again after it ended (re-init not needed).
 *
 * Context: any.
 * Return: nothing.
 */
void dc_reqq_req_init(struct dc_reqq_req *req, dc_reqq_end_fn end,
		      unsigned int flags);

/**
 * dc_reqq_submit() - send a request to the device, or park it.
 * @q: the queue.
 * @req: the request, not currently submitted.
 *
 * With completion-driven retry, a request goes to the device directly only
 * when nothing is parked (otherwise it is parked behind the others, FIFO).
 * On -ENOSPC it is parked.  Called from inside the submit op on this
 * thread (an end callback of a synchronous completion), the request is
 * parked, and resubmitted once that op call has returned (in DC_REQQ_TIMER_RETRY mode:
 * by the retry timer).  No end callback is called from here, except those
 * of the exception in the header comment.
 *
 * Context: any context in which the submit op may run; takes the queue's
 * spinlock.
 * Return: 0 when the request was accepted (its end callback will run once);
 * -ENOTCONN after dc_reqq_shutdown(); otherwise the submit op's error (not
 * -ENOSPC), the request not accepted (for a FORGET request the drop is
 * counted).
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_reqq_submit(struct dc_reqq *q, struct dc_reqq_req *req);

/**
 * dc_reqq_complete() - the device finished a request.
 * @q: the queue.
 * @req: a request the submit op had accepted.
 * @status: its result, handed to its end callback.
 *
 * Resubmits parked requests (completion-driven mode) while the device
 * accepts them, unless another thread is doing so already, then runs the
 * end callback.  May be called from within the submit op: the resubmission
 * is then left to that op call, which does it once it has returned.
 *
 * Context: the caller's completion context; the submit op and end
 * callbacks run in it.  Hold no lock the submit op takes.
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): returns
 * at once; @req's end callback is not called.
 */
void dc_reqq_complete(struct dc_reqq *q, struct dc_reqq_req *req, int status);

/**
 * dc_reqq_drain() - wait until no request is parked, being submitted, on
 * the device or in its end callback.
 * @q: the queue.
 * @timeout_ns: the longest wait; UINT64_MAX waits for good.
 *
 * Context: process context; sleeps.
 * Return: 0, -ETIMEDOUT, or -EINTR (kernel: fatal signal).
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_reqq_drain(struct dc_reqq *q, uint64_t timeout_ns);

/**
 * dc_reqq_shutdown() - refuse new requests and end the parked ones.
 * @q: the queue.
 *
 * Parked requests end with -ENOTCONN, in FIFO order, from here.  Requests on
 * the device still complete normally through dc_reqq_complete(); a request
 * being resubmitted that meets -ENOSPC ends with -ENOTCONN.  Later
 * dc_reqq_submit() calls return -ENOTCONN.  Idempotent.
 *
 * Context: any context where end callbacks may run.
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): returns
 * at once, doing nothing.
 */
void dc_reqq_shutdown(struct dc_reqq *q);

/**
 * dc_reqq_stats() - read the counters.
 * @q: the queue.
 * @st: filled with a consistent snapshot.
 * @size: sizeof(*@st) as the caller knows it: exactly that much is written.
 *
 * Context: any.
 * Return: 0, or -EINVAL for NULL arguments or @size below
 * DC_REQQ_STATS_SIZE_VER0.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_reqq_stats(struct dc_reqq *q, struct dc_reqq_stats *st, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_REQQ_H */
