// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: reqq.c - request dispatch queue (see include/daxcache/reqq.h).
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
 *
 * No nesting: every call of the submit op is bracketed by an op_frame on
 * q->frames that names the calling thread.  A dc_reqq_complete() or
 * dc_reqq_submit() that finds its own thread there runs inside the op (a
 * synchronous device, or an end callback that submits again): it must not
 * call the op.  It parks its request, or leaves the parked ones, and sets
 * the frame's @kick; the thread dispatches them once its op call returned.
 * A frame on another thread means a concurrent submission, which is fine.
 * A dispatcher's own nested calls need no kick: it re-reads the parked list
 * before it stops.
 *
 * Callers: filesystems' request paths, through <daxcache/reqq.h>.
 */
#include "platform.h"
#include "struct_size.h"

#include <daxcache/reqq.h>

#define REQQ_DEFAULT_DELAY_NS	1000000ull

/* One thread's call of the submit op; on q->frames for its duration. */
struct op_frame {
	struct op_frame *next;
	const void *thread;
	bool kick;	/* a nested call left parked requests to this thread */
};

struct dc_reqq {
	dci_spinlock_t lock;
	struct op_frame *frames;		/* submit op calls running */
	struct dc_reqq_req *head, *tail;	/* parked, FIFO */
	uint64_t seq;				/* completions so far */
	uint64_t pending;			/* accepted, not yet ended */
	bool dispatching;
	bool shutdown;
	bool timer;
	const struct dc_reqq_ops *ops;		/* &ops_copy */
	struct dc_reqq_ops ops_copy;		/* the caller's, as this library knows it */
	void *priv;
	uint64_t delay_ns;
	struct dc_reqq_stats st;
	struct dci_waitq drained;
	struct dci_worker retry;			/* DC_REQQ_TIMER_RETRY only */
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
	dci_write_once(q->pending, q->pending - 1);
	if (!q->pending)
		dci_waitq_wake_all(&q->drained);
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
	dci_spin_lock(&q->lock);
	put_pending(q);
	dci_spin_unlock(&q->lock);
}

/* The frame of this thread's running submit op call, if any. */
static struct op_frame *frame_here(struct dc_reqq *q)
{
	const void *self = dci_thread_self();
	struct op_frame *f;

	for (f = q->frames; f; f = f->next)
		if (f->thread == self)
			return f;
	return NULL;
}

/* Call the submit op for @req; q->lock held on entry and return, not across. */
static int call_submit(struct dc_reqq *q, struct dc_reqq_req *req,
		       struct op_frame *f)
{
	struct op_frame **pp;
	int ret;

	f->thread = dci_thread_self();
	f->kick = false;
	f->next = q->frames;
	q->frames = f;
	dci_spin_unlock(&q->lock);

	ret = q->ops->submit(req, q->priv);

	dci_spin_lock(&q->lock);
	for (pp = &q->frames; *pp != f; pp = &(*pp)->next)
		;
	*pp = f->next;
	return ret;
}

/*
 * Resubmit parked requests, in order, while the device takes them; entered
 * with q->lock held and q->dispatching set by the caller, returns with both
 * released.  Only one thread dispatches at a time; others leave it to that
 * one (it re-checks q->seq and the list before it stops).
 *
 * @own: a request that dc_reqq_submit() parked and still answers for (its
 * caller has not been told it was accepted), or NULL.  A resubmission error
 * of @own does not end it: the error is returned, @own not accepted.
 */
static int dispatch_locked(struct dc_reqq *q, struct dc_reqq_req *own)
	__dc_releases(&q->lock)
{
	struct dc_reqq_req *req;
	struct op_frame f;
	int ret, own_ret = 0;
	uint64_t seq;

	while (q->head && !q->shutdown) {
		req = unpark(q);
		q->st.in_flight++;
		seq = q->seq;
		ret = call_submit(q, req, &f);
		if (!ret) {
			q->st.submitted++;
			if (req == own)
				own = NULL;	/* accepted, like a direct one */
			else
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
					dci_worker_queue_delayed(&q->retry, q->delay_ns);
				break;
			}
			if (req != own)
				q->st.shut_down++;
			ret = -ENOTCONN;
		} else {
			count_error(q, req);
		}
		if (req == own) {
			/* Never accepted: its caller hears the error. */
			own = NULL;
			own_ret = ret;
			put_pending(q);
			continue;
		}
		dci_spin_unlock(&q->lock);
		end_req(q, req, ret);
		dci_spin_lock(&q->lock);
	}
	q->dispatching = false;
	dci_spin_unlock(&q->lock);
	return own_ret;
}

static void dispatch(struct dc_reqq *q)
{
	dci_spin_lock(&q->lock);
	if (q->dispatching) {
		dci_spin_unlock(&q->lock);
		return;
	}
	q->dispatching = true;
	dispatch_locked(q, NULL);
}

static void retry_fn(struct dci_worker *w)
{
	dispatch(dci_container_of(w, struct dc_reqq, retry));
}

int dc_reqq_create(const struct dc_reqq_config *ucfg,
		   size_t cfg_size, const struct dc_reqq_ops *uops,
		   size_t ops_size, void *priv, struct dc_reqq **out)
{
	struct dc_reqq_config cfg;
	struct dc_reqq_ops ops;
	struct dc_reqq *q;
	int ret;

	ret = sized_create_in(out, &cfg, ucfg, cfg_size,
			      DC_REQQ_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	if (dci_fork_check(__func__))
		return -ECHILD;
	ret = sized_copy_in(&ops, sizeof(ops), uops, ops_size,
			    DC_REQQ_OPS_SIZE_VER0);
	if (ret)
		return ret;
	if (!ops.submit || (cfg.flags & ~DC_REQQ_TIMER_RETRY))
		return -EINVAL;
	q = dci_zalloc(sizeof(*q));
	if (!q)
		return -ENOMEM;
	dci_spin_lock_init(&q->lock);
	dci_waitq_init(&q->drained);
	q->ops_copy = ops;
	q->ops = &q->ops_copy;
	q->priv = priv;
	q->timer = cfg.flags & DC_REQQ_TIMER_RETRY;
	q->delay_ns = cfg.retry_delay_ns ? cfg.retry_delay_ns :
		      REQQ_DEFAULT_DELAY_NS;
	if (q->timer) {
		ret = dci_worker_start(&q->retry, retry_fn, "dc-reqq-retry");
		if (ret) {
			dci_waitq_destroy(&q->drained);
			dci_spin_lock_destroy(&q->lock);
			dci_free(q);
			return ret;
		}
	}
	*out = q;
	return 0;
}
DCI_EXPORT(dc_reqq_create);

void dc_reqq_destroy(struct dc_reqq *q)
{
	uint64_t pending;

	/* In a child forked unprepared, left to the exit: locks may be held. */
	if (!q || dci_fork_check(__func__))
		return;
	dc_reqq_shutdown(q);
	if (q->timer)
		dci_worker_stop(&q->retry);
	dci_spin_lock(&q->lock);
	pending = q->pending;
	dci_spin_unlock(&q->lock);
	dci_warn_once(pending, "reqq destroyed with %llu requests in flight",
		     (unsigned long long)pending);
	dci_waitq_destroy(&q->drained);
	dci_spin_lock_destroy(&q->lock);
	dci_free(q);
}
DCI_EXPORT(dc_reqq_destroy);

void dc_reqq_req_init(struct dc_reqq_req *req, dc_reqq_end_fn end,
		      unsigned int flags)
{
	req->end = end;
	req->flags = flags;
	req->dc_next = NULL;
}
DCI_EXPORT(dc_reqq_req_init);

/*
 * Call the submit op for @req, which is nobody else's to send (q->lock
 * held; the op runs without it), again while it says -ENOSPC and a
 * completion came meanwhile.  *@kick: a completion nested in an op call
 * left the parked requests to this thread.  Returns the op's last answer.
 */
static int submit_op(struct dc_reqq *q, struct dc_reqq_req *req, bool *kick)
{
	struct op_frame f;
	uint64_t seq;
	int ret;

	for (;;) {
		q->st.in_flight++;
		seq = q->seq;
		ret = call_submit(q, req, &f);
		*kick |= f.kick;
		if (!ret) {
			q->st.submitted++;
			return 0;
		}
		q->st.in_flight--;
		if (ret != -ENOSPC)
			return ret;
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
			return ret;
	}
}

int dc_reqq_submit(struct dc_reqq *q, struct dc_reqq_req *req)
{
	struct dc_reqq_req *own = NULL;
	struct op_frame *nest;
	bool kick = false;
	int ret, err;

	if (dci_fork_check(__func__))
		return -ECHILD;
	dci_spin_lock(&q->lock);
	if (q->shutdown) {
		dci_spin_unlock(&q->lock);
		return -ENOTCONN;
	}
	dci_write_once(q->pending, q->pending + 1);
	nest = frame_here(q);
	if (nest || (!q->timer && (q->head || q->dispatching))) {
		/*
		 * Behind the parked ones; the dispatcher or a completion takes
		 * it from there.  From inside the submit op (an end callback
		 * of a synchronous completion), the op must not run nested:
		 * this thread resubmits it when its op call has returned, or
		 * the retry timer does.
		 */
		park_tail(q, req);
		if (nest && q->timer)
			dci_worker_queue_delayed(&q->retry, q->delay_ns);
		else if (nest)
			nest->kick = true;
		dci_spin_unlock(&q->lock);
		return 0;
	}
	ret = submit_op(q, req, &kick);
	if (ret == -ENOSPC && !q->shutdown) {
		park_tail(q, req);
		if (q->timer)
			dci_worker_queue_delayed(&q->retry, q->delay_ns);
		own = req;
		ret = 0;
	} else if (ret) {
		if (ret == -ENOSPC)
			ret = -ENOTCONN;
		else
			count_error(q, req);
		put_pending(q);
	}
	/*
	 * A completion (or submission) nested in our op call left the
	 * parked requests to us: resubmit them now that the op returned.
	 * We are in the context that completion ran in.  We claim the
	 * dispatcher role under the lock we parked @req with, so nobody else
	 * resubmits @req, which is still ours to report on.
	 */
	if (kick && !q->timer && q->head && !q->dispatching) {
		q->dispatching = true;
		err = dispatch_locked(q, own);
		return err ? err : ret;
	}
	dci_spin_unlock(&q->lock);
	return ret;
}
DCI_EXPORT(dc_reqq_submit);

void dc_reqq_complete(struct dc_reqq *q, struct dc_reqq_req *req,
		      int status)
{
	struct op_frame *nest;
	bool kick = false;

	if (dci_fork_check(__func__))
		return;
	dci_spin_lock(&q->lock);
	q->seq++;
	q->st.completed++;
	q->st.in_flight--;
	if (!q->timer && q->head && !q->dispatching) {
		nest = frame_here(q);
		if (nest)
			nest->kick = true;	/* inside our op: not from here */
		else
			q->dispatching = kick = true;
	}
	/* Refill the device first: the end callback may take a while. */
	if (kick)
		dispatch_locked(q, NULL);
	else
		dci_spin_unlock(&q->lock);
	end_req(q, req, status);
}
DCI_EXPORT(dc_reqq_complete);

int dc_reqq_drain(struct dc_reqq *q, uint64_t timeout_ns)
{
	if (dci_fork_check(__func__))
		return -ECHILD;
	return dci_waitq_wait_timeout(&q->drained, !dci_read_once(q->pending),
				     timeout_ns);
}
DCI_EXPORT(dc_reqq_drain);

void dc_reqq_shutdown(struct dc_reqq *q)
{
	struct dc_reqq_req *list, *req;

	if (dci_fork_check(__func__))
		return;
	dci_spin_lock(&q->lock);
	q->shutdown = true;
	list = q->head;
	q->head = NULL;
	q->tail = NULL;
	q->st.shut_down += q->st.parked;
	q->st.parked = 0;
	dci_spin_unlock(&q->lock);

	while (list) {
		req = list;
		list = req->dc_next;
		end_req(q, req, -ENOTCONN);
	}
}
DCI_EXPORT(dc_reqq_shutdown);

int dc_reqq_stats(struct dc_reqq *q, struct dc_reqq_stats *st,
		  size_t size)
{
	if (!q)
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	return sized_copy_out_locked(st, size, &q->lock, &q->st, sizeof(q->st),
				     DC_REQQ_STATS_SIZE_VER0);
}
DCI_EXPORT(dc_reqq_stats);
