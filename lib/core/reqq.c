// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reqq.c - request dispatch queue (see include/daxcache/reqq.h).
 *
 * State under q->lock: the parked list (singly linked, head and tail), the
 * counters, the dispatcher flag and a completion sequence number.  The lock
 * is never held across the submit op or an end callback.
 *
 * Lost wake-ups: a submitter that gets -ENOSPC takes the lock to park its
 * request; a completion takes the same lock to bump q->seq and look at the
 * parked list.  The submitter read q->seq before calling the submit op; if
 * it changed by the time the request is parked, a completion freed room that
 * nobody has used for a parked request, so the submitter dispatches itself.
 * Otherwise the next completion will find the request parked.  The
 * dispatcher does the same check for each request it resubmits.
 *
 * q->pending counts accepted requests whose end callback has not returned:
 * dc_reqq_drain() waits for it to reach zero, and it is dropped (and the
 * drainers woken, under the lock) only after the end callback returned.
 */
#include "platform.h"

#include <daxcache/reqq.h>

#define REQQ_DEFAULT_DELAY_NS	1000000ull

struct dc_reqq {
	dc_spinlock_t lock;
	struct dc_reqq_req *head, *tail;	/* parked, FIFO */
	uint64_t seq;				/* completions so far */
	uint64_t pending;			/* accepted, not yet ended */
	bool dispatching;
	bool shutdown;
	bool timer;
	const struct dc_reqq_ops *ops;
	void *priv;
	uint64_t delay_ns;
	struct dc_reqq_stats st;
	struct dc_waitq drained;
	struct dc_worker retry;			/* DC_REQQ_TIMER_RETRY only */
};

static void park_tail(struct dc_reqq *q, struct dc_reqq_req *req)
{
	req->dc_next = NULL;
	if (q->tail)
		q->tail->dc_next = req;
	else
		q->head = req;
	q->tail = req;
	q->st.parked++;
}

static void park_head(struct dc_reqq *q, struct dc_reqq_req *req)
{
	req->dc_next = q->head;
	q->head = req;
	if (!q->tail)
		q->tail = req;
	q->st.parked++;
}

static struct dc_reqq_req *unpark(struct dc_reqq *q)
{
	struct dc_reqq_req *req = q->head;

	q->head = req->dc_next;
	if (!q->head)
		q->tail = NULL;
	q->st.parked--;
	return req;
}

/* Under q->lock: one accepted request is finished with. */
static void put_pending(struct dc_reqq *q)
{
	dc_write_once(q->pending, q->pending - 1);
	if (!q->pending)
		dc_waitq_wake_all(&q->drained);
}

/* Under q->lock: count a submit error of @req. */
static void count_error(struct dc_reqq *q, struct dc_reqq_req *req)
{
	if (req->flags & DC_REQQ_FORGET)
		q->st.dropped++;
	else
		q->st.failed++;
}

/* End an accepted request; called and returns without q->lock. */
static void end_req(struct dc_reqq *q, struct dc_reqq_req *req, int status)
{
	req->end(req, status);
	dc_spin_lock(&q->lock);
	put_pending(q);
	dc_spin_unlock(&q->lock);
}

/*
 * Resubmit parked requests, in order, while the device takes them.  Only one
 * thread dispatches at a time; others leave it to that one (it re-checks
 * q->seq and the list before it stops).
 */
static void dispatch(struct dc_reqq *q)
{
	struct dc_reqq_req *req;
	uint64_t seq;
	int ret;

	dc_spin_lock(&q->lock);
	if (q->dispatching) {
		dc_spin_unlock(&q->lock);
		return;
	}
	q->dispatching = true;
	while (q->head && !q->shutdown) {
		req = unpark(q);
		q->st.in_flight++;
		seq = q->seq;
		dc_spin_unlock(&q->lock);

		ret = q->ops->submit(req, q->priv);

		dc_spin_lock(&q->lock);
		if (!ret) {
			q->st.submitted++;
			q->st.resubmitted++;
			continue;
		}
		q->st.in_flight--;
		if (ret == -ENOSPC) {
			q->st.enospc++;
			if (!q->shutdown) {
				park_head(q, req);
				if (!q->timer && q->seq != seq)
					continue;	/* room was freed meanwhile */
				if (q->timer)
					dc_worker_queue_delayed(&q->retry, q->delay_ns);
				break;
			}
			q->st.shut_down++;
			ret = -ENOTCONN;
		} else {
			count_error(q, req);
		}
		dc_spin_unlock(&q->lock);
		end_req(q, req, ret);
		dc_spin_lock(&q->lock);
	}
	q->dispatching = false;
	dc_spin_unlock(&q->lock);
}

static void retry_fn(struct dc_worker *w)
{
	dispatch(dc_container_of(w, struct dc_reqq, retry));
}

DC_EXPORT int dc_reqq_create(const struct dc_reqq_config *cfg,
			     struct dc_reqq **qp)
{
	struct dc_reqq *q;
	int ret;

	*qp = NULL;
	if (!cfg || !cfg->ops || !cfg->ops->submit ||
	    (cfg->flags & ~DC_REQQ_TIMER_RETRY))
		return -EINVAL;
	q = dc_zalloc(sizeof(*q));
	if (!q)
		return -ENOMEM;
	dc_spin_lock_init(&q->lock);
	dc_waitq_init(&q->drained);
	q->ops = cfg->ops;
	q->priv = cfg->priv;
	q->timer = cfg->flags & DC_REQQ_TIMER_RETRY;
	q->delay_ns = cfg->retry_delay_ns ? cfg->retry_delay_ns :
		      REQQ_DEFAULT_DELAY_NS;
	if (q->timer) {
		ret = dc_worker_start(&q->retry, retry_fn, "dc-reqq-retry");
		if (ret) {
			dc_waitq_destroy(&q->drained);
			dc_spin_lock_destroy(&q->lock);
			dc_free(q);
			return ret;
		}
	}
	*qp = q;
	return 0;
}

DC_EXPORT void dc_reqq_destroy(struct dc_reqq *q)
{
	uint64_t pending;

	if (!q)
		return;
	dc_reqq_shutdown(q);
	if (q->timer)
		dc_worker_stop(&q->retry);
	dc_spin_lock(&q->lock);
	pending = q->pending;
	dc_spin_unlock(&q->lock);
	dc_warn_once(pending, "reqq destroyed with %llu requests in flight",
		     (unsigned long long)pending);
	dc_waitq_destroy(&q->drained);
	dc_spin_lock_destroy(&q->lock);
	dc_free(q);
}

DC_EXPORT void dc_reqq_req_init(struct dc_reqq_req *req, dc_reqq_end_fn end,
				unsigned int flags)
{
	req->end = end;
	req->flags = flags;
	req->dc_next = NULL;
}

DC_EXPORT int dc_reqq_submit(struct dc_reqq *q, struct dc_reqq_req *req)
{
	uint64_t seq;
	int ret;

	dc_spin_lock(&q->lock);
	if (q->shutdown) {
		dc_spin_unlock(&q->lock);
		return -ENOTCONN;
	}
	dc_write_once(q->pending, q->pending + 1);
	if (!q->timer && (q->head || q->dispatching)) {
		/* Behind the parked ones; the dispatcher or a completion
		 * takes it from there. */
		park_tail(q, req);
		dc_spin_unlock(&q->lock);
		return 0;
	}
	for (;;) {
		q->st.in_flight++;
		seq = q->seq;
		dc_spin_unlock(&q->lock);

		ret = q->ops->submit(req, q->priv);

		dc_spin_lock(&q->lock);
		if (!ret) {
			q->st.submitted++;
			dc_spin_unlock(&q->lock);
			return 0;
		}
		q->st.in_flight--;
		if (ret != -ENOSPC)
			break;
		q->st.enospc++;
		/*
		 * A completion that came while this submission failed found
		 * nothing parked to resubmit: try again here rather than park
		 * and dispatch, which could end other requests (or this one)
		 * from inside dc_reqq_submit().  Anything parked already has
		 * a completion coming, or a dispatcher, to take this one too.
		 */
		if (q->shutdown || q->timer || q->seq == seq || q->head ||
		    q->dispatching)
			break;
	}
	if (ret == -ENOSPC) {
		if (!q->shutdown) {
			park_tail(q, req);
			if (q->timer)
				dc_worker_queue_delayed(&q->retry, q->delay_ns);
			dc_spin_unlock(&q->lock);
			return 0;
		}
		ret = -ENOTCONN;
	} else {
		count_error(q, req);
	}
	put_pending(q);
	dc_spin_unlock(&q->lock);
	return ret;
}

DC_EXPORT void dc_reqq_complete(struct dc_reqq *q, struct dc_reqq_req *req,
				int status)
{
	bool kick;

	dc_spin_lock(&q->lock);
	q->seq++;
	q->st.completed++;
	q->st.in_flight--;
	kick = !q->timer && q->head && !q->dispatching;
	dc_spin_unlock(&q->lock);

	/* Refill the device first: the end callback may take a while. */
	if (kick)
		dispatch(q);
	end_req(q, req, status);
}

DC_EXPORT int dc_reqq_drain(struct dc_reqq *q, uint64_t timeout_ns)
{
	return dc_waitq_wait_timeout(&q->drained, !dc_read_once(q->pending),
				     timeout_ns);
}

DC_EXPORT void dc_reqq_shutdown(struct dc_reqq *q)
{
	struct dc_reqq_req *list, *req;

	dc_spin_lock(&q->lock);
	q->shutdown = true;
	list = q->head;
	q->head = NULL;
	q->tail = NULL;
	q->st.shut_down += q->st.parked;
	q->st.parked = 0;
	dc_spin_unlock(&q->lock);

	while (list) {
		req = list;
		list = req->dc_next;
		end_req(q, req, -ENOTCONN);
	}
}

DC_EXPORT void dc_reqq_get_stats(struct dc_reqq *q, struct dc_reqq_stats *st)
{
	dc_spin_lock(&q->lock);
	*st = q->st;
	dc_spin_unlock(&q->lock);
}
