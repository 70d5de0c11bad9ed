// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_reqq.c - the request dispatch queue in front of a simulated device.
 *
 * The device holds at most @cap requests and answers -ENOSPC when full; the
 * input can make a chosen later submit call fail with another error, make
 * the device complete its oldest request synchronously inside the submit op
 * (the queue allows it), or complete one and still refuse (room freed while
 * the submitter was in the op).  End callbacks may submit their request
 * again, also from a completion inside the op.  The device can let another
 * thread submit while a direct submission is inside its op, then complete
 * its oldest request and take the one in hand (seen: a completion there
 * resubmitted the other thread's parked request nested in the op).  A model
 * of the parked FIFO and of every counter is checked:
 *
 * - every accepted request ends exactly once, with the device's status, the
 *   error of its resubmission, or -ENOTCONN after shutdown; a refused one
 *   never ends; no end runs inside dc_reqq_submit() for the request it
 *   submits unless the device completed it there;
 * - parked requests reach the device in FIFO order, new ones wait behind
 *   them, and the submit op never runs nested in a submit op on the same
 *   thread (a per-thread depth; calls from other threads may overlap);
 * - after each call the queue holds no parked request while the device has
 *   room (completion-driven mode);
 * - the stats equal the model's; drain(0) answers whether anything is open.
 */
#include "fuzz.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/reqq.h>

#define NREQ	12
#define MAXCAP	4

enum rstate { R_IDLE, R_SUBMITTING, R_DEVICE, R_COMPLETING, R_PARKED, R_FAILING };

struct rq {
	struct dc_reqq_req req;
	enum rstate state;
	int expect;			/* status its end must get */
	unsigned int ends;
	unsigned int resubmits;		/* submits left for its end callback */
	bool in_submit;			/* its dc_reqq_submit() is running */
	bool refused;			/* the op said -ENOSPC in this submit */
	uint64_t park_no;		/* the model's parks before this one's */
	uint64_t refused_at;		/* the model's parks at its refusal */
};

struct qfz {
	struct dc_reqq *q;
	bool timer, shut;
	struct rq r[NREQ];
	/* the device */
	unsigned int cap, on[MAXCAP], non;
	uint64_t calls, fail_at;
	int fail_err;
	bool sync, refuse;
	int other;			/* request another thread submits, or -1 */
	bool other_complete;		/* then complete the oldest and accept */
	unsigned int in_op;		/* submit op calls running, all threads */
	unsigned int api_depth;		/* submit/complete calls running */
	/* the model */
	unsigned int parked[NREQ], nparked;
	uint64_t parks;
	struct dc_reqq_stats st;
};

static struct qfz *F;

/* Submit op calls running on this thread: more than one is nesting. */
static __thread unsigned int op_depth;

/*
 * DC_FUZZ_ALLOW=reqq-end-in-submit relaxes one check: that no request is
 * ended (other than by the device) inside its own dc_reqq_submit().  The
 * fuzzer found a submit that parked its request and, seeing a completion
 * meanwhile, dispatched it and ended it there; fixed (a submitter now
 * retries its own request, and only while nothing is parked).  Regression
 * input: corpus/reqq-end-in-own-submit.  corpus/reqq-nested-in-direct-op
 * is the nested submit op: another thread's request parked while a direct
 * submission is in the op, then a completion there.
 */
static unsigned int idx_of(struct dc_reqq_req *req)
{
	struct rq *r = (struct rq *)((char *)req - offsetof(struct rq, req));
	unsigned int i = (unsigned int)(r - F->r);

	FZ_CHECK(i < NREQ, "unknown request %p", (void *)req);
	return i;
}

static void count_error(struct rq *r)
{
	if (r->req.flags & DC_REQQ_FORGET)
		F->st.dropped++;
	else
		F->st.failed++;
}

static void device_complete(unsigned int k, int status);
static void other_thread_submits(unsigned int i);

static int submit_op(struct dc_reqq_req *req, void *priv)
{
	unsigned int i = idx_of(req), k;
	struct rq *r = &F->r[i];
	bool resub = r->state == R_PARKED;
	int ret = 0;

	FZ_CHECK(priv == F, "submit op priv %p", priv);
	FZ_CHECK(!op_depth, "submit op for #%u nested in a submit op on this thread",
		 i);
	FZ_CHECK(!F->shut, "submit op called after shutdown");
	if (resub) {
		FZ_CHECK(!F->timer, "timer mode resubmitted without its timer");
		FZ_CHECK(F->nparked && F->parked[0] == i,
			 "resubmitted #%u, model head #%d", i,
			 F->nparked ? (int)F->parked[0] : -1);
	} else if (r->refused) {
		/*
		 * Its submitter tries it again (at once, or after the parked
		 * ones its op's completion left to it): never past a request
		 * the model parked before the refusal.
		 */
		FZ_CHECK(r->state == R_SUBMITTING, "retry of #%u in state %d",
			 i, r->state);
		for (k = 0; k < F->nparked; k++)
			FZ_CHECK(F->r[F->parked[k]].park_no >= r->refused_at,
				 "retry of #%u went to the device past #%u, parked before it",
				 i, F->parked[k]);
	} else {
		FZ_CHECK(r->state == R_SUBMITTING, "submit op for #%u in state %d",
			 i, r->state);
		FZ_CHECK(F->timer || !F->nparked,
			 "new request #%u went to the device past %u parked", i,
			 F->nparked);
	}
	op_depth++;
	F->in_op++;
	F->calls++;
	if (!resub && F->other >= 0 && F->r[F->other].state == R_IDLE &&
	    (unsigned int)F->other != i) {
		/* Another thread submits while this one is in the op. */
		unsigned int j = (unsigned int)F->other;

		F->other = -1;
		other_thread_submits(j);
		if (F->other_complete && F->non == F->cap)
			device_complete(0, 0);
	}
	if (F->calls == F->fail_at) {
		ret = F->fail_err;
	} else if (F->non == F->cap) {
		/* Room freed while the submitter is in here: still refused. */
		if (F->refuse && F->non >= 2)
			device_complete(0, 0);
		ret = -ENOSPC;
	}
	if (!ret) {
		F->st.submitted++;
		F->st.in_flight++;
		if (resub) {
			F->st.resubmitted++;
			memmove(F->parked, F->parked + 1, --F->nparked * sizeof(F->parked[0]));
			F->st.parked--;
		}
		r->state = R_DEVICE;
		F->on[F->non++] = i;
		if (F->sync)
			device_complete(0, 0);
	} else if (ret == -ENOSPC) {
		F->st.enospc++;
		/*
		 * A first submission refused stays the submitter's: it may
		 * try again before it parks the request (seen when it returns).
		 */
		if (!resub && !r->refused) {
			/* Later refusals keep its place at the head. */
			r->refused = true;
			r->refused_at = F->parks;
		}
	} else {
		count_error(r);
		if (resub) {
			memmove(F->parked, F->parked + 1,
				--F->nparked * sizeof(F->parked[0]));
			F->st.parked--;
			r->state = R_FAILING;
			r->expect = ret;
		} else {
			r->state = R_IDLE;	/* refused: the caller's again */
		}
	}
	F->in_op--;
	op_depth--;
	return ret;
}

static const struct dc_reqq_ops ops = { .submit = submit_op };

static int do_submit(unsigned int i);

static void end_fn(struct dc_reqq_req *req, int status)
{
	unsigned int i = idx_of(req);
	struct rq *r = &F->r[i];

	FZ_CHECK(r->state == R_COMPLETING || r->state == R_FAILING ||
		 (r->state == R_PARKED && F->shut),
		 "end of #%u (status %d) in state %d", i, status, r->state);
	if (r->state == R_PARKED) {
		FZ_CHECK(F->nparked && F->parked[0] == i,
			 "shutdown ended #%u out of order", i);
		memmove(F->parked, F->parked + 1, --F->nparked * sizeof(F->parked[0]));
		r->expect = -ENOTCONN;
	}
	FZ_CHECK(!r->in_submit || r->state == R_COMPLETING ||
		 fz_allowed("reqq-end-in-submit"),
		 "end of #%u (status %d) from inside its own dc_reqq_submit()",
		 i, status);
	FZ_CHECK(status == r->expect, "end of #%u: status %d, want %d", i,
		 status, r->expect);
	r->ends++;
	r->state = R_IDLE;
	/* Also from a completion inside the submit op: the queue must cope. */
	if (r->resubmits) {
		r->resubmits--;
		do_submit(i);
	}
}

/* Submit #i; the model follows what the submit op saw. */
static int do_submit(unsigned int i)
{
	struct rq *r = &F->r[i];
	int ret;

	FZ_CHECK(r->state == R_IDLE, "submitting busy #%u", i);
	r->state = R_SUBMITTING;
	r->refused = false;
	/*
	 * An end callback may submit it again from inside this call (a
	 * synchronous completion): from then on the submission running is
	 * that one's, and after it returned, none of this request's is.
	 */
	r->in_submit = true;
	F->api_depth++;
	ret = dc_reqq_submit(F->q, &r->req);
	F->api_depth--;
	r->in_submit = false;
	if (F->shut) {
		FZ_CHECK(ret == -ENOTCONN, "submit after shutdown: %d", ret);
		FZ_CHECK(r->state == R_SUBMITTING, "refused #%u was used", i);
		r->state = R_IDLE;
		return ret;
	}
	if (ret) {
		FZ_CHECK(ret != -ENOSPC && r->state == R_IDLE,
			 "submit #%u: %d in state %d", i, ret, r->state);
		return ret;
	}
	if (r->state == R_SUBMITTING) {
		/*
		 * Parked: the op refused it (-ENOSPC), or never saw it because
		 * others were parked or a dispatcher is running (we are in a
		 * callback).
		 */
		FZ_CHECK(r->refused || op_depth ||
			 (!F->timer && (F->nparked || F->api_depth)),
			 "#%u parked with nothing parked", i);
		r->state = R_PARKED;
		r->park_no = F->parks++;
		F->parked[F->nparked++] = i;
		F->st.parked++;
	}
	return 0;
}

struct other {
	unsigned int i;
};

static void *other_fn(void *arg)
{
	struct other *o = arg;

	do_submit(o->i);
	return NULL;
}

/*
 * Submit #i from another thread and wait for it: the model is only ever
 * touched by one thread at a time (this one waits in pthread_join()).
 */
static void other_thread_submits(unsigned int i)
{
	struct other o = { .i = i };
	pthread_t tid;

	FZ_CHECK(!pthread_create(&tid, NULL, other_fn, &o), "pthread_create");
	FZ_CHECK(!pthread_join(tid, NULL), "pthread_join");
}

/* The device completes its k-th request. */
static void device_complete(unsigned int k, int status)
{
	unsigned int i, ends;

	if (!F->non)
		return;
	k %= F->non;
	i = F->on[k];
	memmove(F->on + k, F->on + k + 1, (--F->non - k) * sizeof(F->on[0]));
	F->r[i].state = R_COMPLETING;
	F->r[i].expect = status;
	F->st.completed++;
	F->st.in_flight--;
	ends = F->r[i].ends;
	F->api_depth++;
	dc_reqq_complete(F->q, &F->r[i].req, status);
	F->api_depth--;
	FZ_CHECK(F->r[i].ends > ends, "complete of #%u: %u ends", i,
		 F->r[i].ends - ends);
}

static void check(void)
{
	struct dc_reqq_stats st;
	uint64_t open = 0;
	unsigned int i;
	int ret;

	dc_reqq_stats(F->q, &st, sizeof(st));
	FZ_CHECK(!memcmp(&st, &F->st, sizeof(st)),
		 "stats: sub %llu enospc %llu resub %llu compl %llu failed %llu dropped %llu shut %llu infl %llu parked %llu; model %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		 (unsigned long long)st.submitted, (unsigned long long)st.enospc,
		 (unsigned long long)st.resubmitted, (unsigned long long)st.completed,
		 (unsigned long long)st.failed, (unsigned long long)st.dropped,
		 (unsigned long long)st.shut_down, (unsigned long long)st.in_flight,
		 (unsigned long long)st.parked,
		 (unsigned long long)F->st.submitted, (unsigned long long)F->st.enospc,
		 (unsigned long long)F->st.resubmitted, (unsigned long long)F->st.completed,
		 (unsigned long long)F->st.failed, (unsigned long long)F->st.dropped,
		 (unsigned long long)F->st.shut_down, (unsigned long long)F->st.in_flight,
		 (unsigned long long)F->st.parked);
	FZ_CHECK(F->timer || F->shut || !F->nparked || F->non == F->cap,
		 "%u parked while the device holds %u of %u", F->nparked, F->non,
		 F->cap);
	for (i = 0; i < NREQ; i++)
		open += F->r[i].state != R_IDLE;
	ret = dc_reqq_drain(F->q, 0);
	FZ_CHECK(ret == (open ? -ETIMEDOUT : 0), "drain(0): %d with %llu open",
		 ret, (unsigned long long)open);
}

static void create(struct fz_in *in)
{
	struct dc_reqq_config cfg = { 0 };
	struct dc_reqq_ops noop = { .submit = NULL };
	uint8_t how = fz_u8(in);
	int ret;

	FZ_CHECK(dc_reqq_create(NULL, 0, &ops, sizeof(ops), F, &F->q) == -EINVAL,
		 "create(NULL)");
	FZ_CHECK(dc_reqq_create(&cfg, sizeof(cfg), &noop, sizeof(noop), F,
				&F->q) == -EINVAL, "create without submit");
	cfg.flags = 0x2u << (how % 8);
	FZ_CHECK(dc_reqq_create(&cfg, sizeof(cfg), &ops, sizeof(ops), F,
				&F->q) == -EINVAL, "create, flags %#x", cfg.flags);
	F->timer = how & 0x10;
	cfg.flags = F->timer ? DC_REQQ_TIMER_RETRY : 0;
	/* The retry timer never fires within an input. */
	cfg.retry_delay_ns = 600ull * 1000000000ull;
	ret = dc_reqq_create(&cfg, sizeof(cfg), &ops, sizeof(ops), F, &F->q);
	FZ_CHECK(!ret, "create: %d", ret);
	F->cap = 1 + (how >> 5) % MAXCAP;
}

void fz_reqq(struct fz_in *in)
{
	static const int errs[] = { -ENOMEM, -EIO, -EINVAL, -EPIPE };
	unsigned int i, guard;

	F = calloc(1, sizeof(*F));
	FZ_CHECK(F, "out of memory");
	F->other = -1;
	create(in);
	for (i = 0; i < NREQ; i++)
		dc_reqq_req_init(&F->r[i].req, end_fn, (i & 3) == 3 ? DC_REQQ_FORGET : 0);
	while (fz_more(in)) {
		uint8_t op = fz_u8(in), a = fz_u8(in);

		switch (op % 8) {
		case 0:
		case 1:
		case 2: {
			struct rq *r = &F->r[a % NREQ];

			if (r->state == R_IDLE) {
				r->resubmits = (op >> 3) % 3 == 2 ? 1 : 0;
				do_submit(a % NREQ);
			}
			break;
		}
		case 3:
		case 4:
			device_complete(a, (op & 0x80) ? -EIO : 0);
			break;
		case 5:
			F->fail_at = F->calls + 1 + (a & 3);
			F->fail_err = errs[(a >> 2) & 3];
			break;
		case 6:
			F->sync = a & 1;
			F->refuse = a & 2;
			/* The next direct submission lets #(a >> 4) in. */
			F->other = (a & 4) ? (int)((a >> 4) % NREQ) : -1;
			F->other_complete = a & 8;
			break;
		default:
			if ((a & 7) == 7) {
				F->shut = true;
				dc_reqq_shutdown(F->q);
				F->st.shut_down += F->st.parked;
				F->st.parked = 0;
				FZ_CHECK(!F->nparked, "%u parked after shutdown",
					 F->nparked);
			}
			break;
		}
		check();
	}
	/* Complete everything on the device; then destroy ends the parked. */
	F->sync = false;
	F->refuse = false;
	F->other = -1;
	F->fail_at = 0;
	for (guard = 0; F->non && guard < 10 * NREQ; guard++)
		device_complete(0, 0);
	check();
	FZ_CHECK(!F->non, "device never emptied");
	F->shut = true;
	dc_reqq_destroy(F->q);
	for (i = 0; i < NREQ; i++)
		FZ_CHECK(F->r[i].state == R_IDLE, "#%u open after destroy (state %d)",
			 i, F->r[i].state);
	free(F);
	F = NULL;
}
