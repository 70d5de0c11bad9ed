// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reqq_cases.c - the request dispatch queue (daxcache/reqq.h) against a
 * simulated device: a bounded ring of requests that answers -ENOSPC when
 * full, and errors on demand.  The single-threaded cases complete requests
 * by hand; the stress case has submitter threads and a completer thread.
 */
#include "dc_test.h"

#include <daxcache/reqq.h>

#define MS		1000000ull
#define DEV_MAX		64
#define LOG_MAX		64

struct dev {
	dci_spinlock_t lock;
	unsigned int cap;		/* queue size Q */
	unsigned int head, count;
	struct dc_reqq_req *ring[DEV_MAX];
	int fail_next;			/* error for the next submit, once */
	bool sync;			/* complete each request at once */
	struct dc_reqq *q;
	dci_atomic_t submits;		/* calls of the submit op */
	int depth, max_depth;		/* nesting of the submit op */
};

struct treq {
	struct dc_reqq_req r;
	int id;
	int ends;
	int status;
};

/* What ended, in order. */
struct endlog {
	int ids[LOG_MAX];
	int status[LOG_MAX];
	unsigned int n;
};

static struct endlog *cur_log;

static void treq_end(struct dc_reqq_req *r, int status)
{
	struct treq *tr = dci_container_of(r, struct treq, r);

	tr->ends++;
	tr->status = status;
	if (cur_log && cur_log->n < LOG_MAX) {
		cur_log->ids[cur_log->n] = tr->id;
		cur_log->status[cur_log->n++] = status;
	}
}

static int dev_submit(struct dc_reqq_req *r, void *priv)
{
	struct dev *d = priv;
	int ret = 0;

	dci_spin_lock(&d->lock);
	dci_atomic_inc(&d->submits);
	if (++d->depth > d->max_depth)
		d->max_depth = d->depth;
	if (d->fail_next) {
		ret = d->fail_next;
		d->fail_next = 0;
	} else if (d->count == d->cap) {
		ret = -ENOSPC;
	} else if (!d->sync) {
		d->ring[(d->head + d->count++) % DEV_MAX] = r;
	}
	dci_spin_unlock(&d->lock);
	if (!ret && d->sync)
		dc_reqq_complete(d->q, r, 0);
	dci_spin_lock(&d->lock);
	d->depth--;
	dci_spin_unlock(&d->lock);
	return ret;
}

static const struct dc_reqq_ops dev_ops = { .submit = dev_submit };

/* Complete the oldest request on the device; false when it is empty. */
static bool dev_complete_one(struct dev *d, int status)
{
	struct dc_reqq_req *r = NULL;

	dci_spin_lock(&d->lock);
	if (d->count) {
		r = d->ring[d->head];
		d->head = (d->head + 1) % DEV_MAX;
		d->count--;
	}
	dci_spin_unlock(&d->lock);
	if (r)
		dc_reqq_complete(d->q, r, status);
	return r;
}

static void dev_init(struct dc_test *t, struct dev *d, unsigned int cap,
		     unsigned int flags, uint64_t delay_ns)
{
	struct dc_reqq_config cfg = {
		.flags = flags, .retry_delay_ns = delay_ns,
	};

	memset(d, 0, sizeof(*d));
	dci_atomic_set(&d->submits, 0);
	dci_spin_lock_init(&d->lock);
	d->cap = cap;
	DC_ASSERT_INT_EQ(t, dc_reqq_create(&cfg, sizeof(cfg), &dev_ops,
					   sizeof(dev_ops), d, &d->q), 0);
	DC_ASSERT(t, d->q);
}

static void dev_fini(struct dev *d)
{
	dc_reqq_destroy(d->q);
	dci_spin_lock_destroy(&d->lock);
	cur_log = NULL;
}

static void treqs_init(struct treq *tr, int n, unsigned int flags)
{
	int i;

	for (i = 0; i < n; i++) {
		memset(&tr[i], 0, sizeof(tr[i]));
		tr[i].id = i;
		dc_reqq_req_init(&tr[i].r, treq_end, flags);
	}
}

/*
 * A device of two that logs every end in @log, and @n requests, of which
 * the first @nsub are submitted (and accepted or parked).
 */
static void logged_start(struct dc_test *t, struct dev *d, struct endlog *log,
			 struct treq *tr, int n, int nsub)
{
	int i;

	memset(log, 0, sizeof(*log));
	cur_log = log;
	dev_init(t, d, 2, 0, 0);
	DC_RETURN_IF_FAILED(t);
	treqs_init(tr, n, 0);
	for (i = 0; i < nsub; i++)
		DC_ASSERT_INT_EQ(t, dc_reqq_submit(d->q, &tr[i].r), 0);
}

DC_TEST(reqq_create_invalid)
{
	struct dc_reqq_ops none = { .submit = NULL };
	struct dc_reqq_config cfg = { 0 };
	struct dc_reqq *q = (struct dc_reqq *)&cfg;

	DC_ASSERT_INT_EQ(t, dc_reqq_create(&cfg, sizeof(cfg), &none,
					   sizeof(none), NULL, &q), -EINVAL);
	DC_ASSERT(t, !q);
	q = (struct dc_reqq *)&cfg;
	DC_ASSERT_INT_EQ(t, dc_reqq_create(&cfg, sizeof(cfg), NULL, 0, NULL,
					   &q), -EINVAL);
	DC_ASSERT(t, !q);
	DC_ASSERT_INT_EQ(t, dc_reqq_create(NULL, 0, &dev_ops, sizeof(dev_ops),
					   NULL, &q), -EINVAL);
	cfg.flags = 0x100;
	DC_ASSERT_INT_EQ(t, dc_reqq_create(&cfg, sizeof(cfg), &dev_ops,
					   sizeof(dev_ops), NULL, &q), -EINVAL);
	dc_reqq_destroy(NULL);
}

/* Parked requests reach the device in FIFO order, one per completion. */
DC_TEST(reqq_fifo_parked)
{
	static struct endlog log;
	struct dc_reqq_stats st;
	struct treq tr[8];
	struct dev d;
	int i;

	logged_start(t, &d, &log, tr, 8, 8);
	DC_RETURN_IF_FAILED(t);
	/* Two on the device, one -ENOSPC, the rest parked behind it. */
	DC_ASSERT_EQ(t, dci_atomic_read(&d.submits), 3);
	dc_reqq_stats(d.q, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.parked, 6);
	DC_ASSERT_EQ(t, st.in_flight, 2);
	DC_ASSERT_EQ(t, st.enospc, 1);

	while (dev_complete_one(&d, 0))
		;
	DC_ASSERT_EQ(t, log.n, 8);
	for (i = 0; i < 8; i++) {
		DC_ASSERT_INT_EQ(t, log.ids[i], i);
		DC_ASSERT_INT_EQ(t, log.status[i], 0);
		DC_ASSERT_INT_EQ(t, tr[i].ends, 1);
	}
	dc_reqq_stats(d.q, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.parked, 0);
	DC_ASSERT_EQ(t, st.in_flight, 0);
	DC_ASSERT_EQ(t, st.completed, 8);
	DC_ASSERT_EQ(t, st.resubmitted, 6);
	/*
	 * Each completion refills the device until it is full again: one
	 * -ENOSPC per completion while more than one request was parked.
	 */
	DC_ASSERT_EQ(t, st.enospc, 1 + 5);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);
	dev_fini(&d);
}

/* Completion-driven: nothing is retried until a completion comes. */
DC_TEST(reqq_enospc_needs_completion)
{
	struct dc_reqq_stats st;
	struct treq tr[3];
	struct dev d;

	dev_init(t, &d, 2, 0, 0);
	DC_RETURN_IF_FAILED(t);
	treqs_init(tr, 3, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[0].r), 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[1].r), 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[2].r), 0);
	DC_ASSERT_EQ(t, dci_atomic_read(&d.submits), 3);
	dc_test_sleep_us(20000);	/* a timer would have fired by now */
	DC_ASSERT_EQ(t, dci_atomic_read(&d.submits), 3);
	dc_reqq_stats(d.q, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.parked, 1);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 1 * MS), -ETIMEDOUT);

	DC_ASSERT(t, dev_complete_one(&d, 0));
	DC_ASSERT_EQ(t, dci_atomic_read(&d.submits), 4);	/* resubmitted, synchronously */
	dc_reqq_stats(d.q, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.parked, 0);
	DC_ASSERT_EQ(t, st.in_flight, 2);
	while (dev_complete_one(&d, 0))
		;
	DC_ASSERT_INT_EQ(t, tr[2].ends, 1);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);
	dev_fini(&d);
}

/* -ENOMEM and other errors fail back; FORGET requests are dropped. */
DC_TEST(reqq_errors_fail_back)
{
	struct dc_reqq_stats st;
	struct treq tr[4], fg[2];
	struct dev d;

	dev_init(t, &d, 1, 0, 0);
	DC_RETURN_IF_FAILED(t);
	treqs_init(tr, 4, 0);
	treqs_init(fg, 2, DC_REQQ_FORGET);

	/* First submission: the error is returned, no end callback. */
	d.fail_next = -ENOMEM;
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[0].r), -ENOMEM);
	DC_ASSERT_INT_EQ(t, tr[0].ends, 0);
	d.fail_next = -EIO;
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[0].r), -EIO);
	d.fail_next = -ENOMEM;
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &fg[0].r), -ENOMEM);
	DC_ASSERT_INT_EQ(t, fg[0].ends, 0);
	dc_reqq_stats(d.q, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.failed, 2);
	DC_ASSERT_EQ(t, st.dropped, 1);
	DC_ASSERT_EQ(t, st.in_flight, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);

	/* Resubmission of parked requests: the end callback gets the error. */
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[1].r), 0);	/* device */
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[2].r), 0);	/* parked */
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &fg[1].r), 0);	/* parked */
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[3].r), 0);	/* parked */
	d.fail_next = -ENOMEM;
	DC_ASSERT(t, dev_complete_one(&d, 0));
	/* tr[2] failed with -ENOMEM; fg[1] went to the device. */
	DC_ASSERT_INT_EQ(t, tr[1].ends, 1);
	DC_ASSERT_INT_EQ(t, tr[2].ends, 1);
	DC_ASSERT_INT_EQ(t, tr[2].status, -ENOMEM);
	d.fail_next = -ENOMEM;
	DC_ASSERT(t, dev_complete_one(&d, 0));
	DC_ASSERT_INT_EQ(t, fg[1].ends, 1);
	DC_ASSERT_INT_EQ(t, fg[1].status, 0);
	DC_ASSERT_INT_EQ(t, tr[3].ends, 1);
	DC_ASSERT_INT_EQ(t, tr[3].status, -ENOMEM);

	/* A parked FORGET that meets -ENOMEM is dropped (and ended). */
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[0].r), 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &fg[0].r), 0);
	d.fail_next = -ENOMEM;
	DC_ASSERT(t, dev_complete_one(&d, -EIO));
	DC_ASSERT_INT_EQ(t, tr[0].status, -EIO);
	DC_ASSERT_INT_EQ(t, fg[0].ends, 1);
	DC_ASSERT_INT_EQ(t, fg[0].status, -ENOMEM);
	dc_reqq_stats(d.q, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.failed, 4);
	DC_ASSERT_EQ(t, st.dropped, 2);
	DC_ASSERT_EQ(t, st.parked, 0);
	DC_ASSERT_EQ(t, st.in_flight, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);
	dev_fini(&d);
}

struct drain_ctx {
	struct dev d;
	int ret;
	uint64_t took;
};

static void drain_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct drain_ctx *c = arg;
	uint64_t start = dci_now_ns();

	if (idx == 0) {
		c->ret = dc_reqq_drain(c->d.q, DC_WAIT_LIMIT_NS);
		c->took = dci_now_ns() - start;
	} else {
		dc_test_sleep_us(20000);
		while (dev_complete_one(&c->d, 0))
			;
	}
}

DC_TEST(reqq_drain)
{
	struct drain_ctx *c = dc_test_alloc(sizeof(*c));
	struct treq tr[5];

	DC_ASSERT(t, c);
	dev_init(t, &c->d, 2, 0, 0);
	DC_RETURN_IF_FAILED(t);
	treqs_init(tr, 5, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(c->d.q, 0), 0);	/* idle */
	for (int i = 0; i < 5; i++)
		DC_ASSERT_INT_EQ(t, dc_reqq_submit(c->d.q, &tr[i].r), 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(c->d.q, 5 * MS), -ETIMEDOUT);
	c->ret = 1;
	dc_test_run_threads(t, 2, drain_thread, c);
	DC_ASSERT_INT_EQ(t, c->ret, 0);
	DC_ASSERT(t, c->took >= 10 * MS);
	for (int i = 0; i < 5; i++)
		DC_ASSERT_INT_EQ(t, tr[i].ends, 1);
	dev_fini(&c->d);
	dc_test_free(c);
}

/* Shutdown ends parked requests with -ENOTCONN, FIFO; in-flight ones finish. */
DC_TEST(reqq_shutdown)
{
	static struct endlog log;
	struct dc_reqq_stats st;
	struct treq tr[5], late;
	struct dev d;
	int i;

	logged_start(t, &d, &log, tr, 5, 5);
	DC_RETURN_IF_FAILED(t);
	treqs_init(&late, 1, 0);
	dc_reqq_shutdown(d.q);
	DC_ASSERT_EQ(t, log.n, 3);
	for (i = 0; i < 3; i++) {
		DC_ASSERT_INT_EQ(t, log.ids[i], i + 2);
		DC_ASSERT_INT_EQ(t, log.status[i], -ENOTCONN);
	}
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &late.r), -ENOTCONN);
	DC_ASSERT_INT_EQ(t, late.ends, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 1 * MS), -ETIMEDOUT);
	while (dev_complete_one(&d, 0))
		;
	DC_ASSERT_INT_EQ(t, tr[0].status, 0);
	DC_ASSERT_INT_EQ(t, tr[1].status, 0);
	for (i = 0; i < 5; i++)
		DC_ASSERT_INT_EQ(t, tr[i].ends, 1);
	dc_reqq_stats(d.q, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.shut_down, 3);
	DC_ASSERT_EQ(t, st.parked, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);
	dc_reqq_shutdown(d.q);		/* idempotent */
	dev_fini(&d);
}

/*
 * A device that completes inside its submit op: completions call back into
 * the queue while the dispatcher is resubmitting.  No deadlock, no nested
 * submit op, FIFO kept.
 */
DC_TEST(reqq_sync_completion)
{
	static struct endlog log;
	struct treq tr[6];
	struct dev d;

	logged_start(t, &d, &log, tr, 6, 5);
	DC_RETURN_IF_FAILED(t);
	d.sync = true;
	/* The device is refilled before 0 ends: 2, 3 and 4 run through. */
	DC_ASSERT(t, dev_complete_one(&d, 0));
	DC_ASSERT_EQ(t, log.n, 4);
	DC_ASSERT_INT_EQ(t, log.ids[0], 2);
	DC_ASSERT_INT_EQ(t, log.ids[1], 3);
	DC_ASSERT_INT_EQ(t, log.ids[2], 4);
	DC_ASSERT_INT_EQ(t, log.ids[3], 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[5].r), 0);	/* direct */
	DC_ASSERT_INT_EQ(t, tr[5].ends, 1);
	DC_ASSERT_INT_EQ(t, d.max_depth, 1);
	DC_ASSERT(t, dev_complete_one(&d, 0));
	DC_ASSERT_INT_EQ(t, tr[1].ends, 1);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);
	dev_fini(&d);
}

/* The 2019 behaviour: completions do not dispatch, a timer does. */
DC_TEST(reqq_timer_retry)
{
	struct dc_reqq_stats st;
	struct treq tr[3];
	uint64_t end;
	struct dev d;

	dev_init(t, &d, 1, DC_REQQ_TIMER_RETRY, 2 * MS);
	DC_RETURN_IF_FAILED(t);
	treqs_init(tr, 3, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[0].r), 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[1].r), 0);	/* parked */
	DC_ASSERT(t, dev_complete_one(&d, 0));
	dc_reqq_stats(d.q, &st, sizeof(st));
	/* The timer may already have fired, but not the completion's doing. */
	DC_ASSERT(t, st.completed == 1 && st.enospc >= 1);
	/*
	 * Wait for the resubmission, not for the list to empty: the timer's
	 * dispatch unparks the request before it calls the submit op (without
	 * the lock), and counts it resubmitted only once the op took it.
	 */
	end = dci_now_ns() + DC_WAIT_LIMIT_NS;
	do {
		dc_test_sleep_us(1000);
		dc_reqq_stats(d.q, &st, sizeof(st));
	} while (!st.resubmitted && dci_now_ns() < end);
	DC_ASSERT_EQ(t, st.parked, 0);
	DC_ASSERT_EQ(t, st.resubmitted, 1);
	DC_ASSERT(t, dev_complete_one(&d, 0));
	DC_ASSERT_INT_EQ(t, tr[1].ends, 1);

	/* With room, new requests go straight to the device. */
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[2].r), 0);
	dc_reqq_stats(d.q, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.in_flight, 1);
	DC_ASSERT(t, dev_complete_one(&d, 0));
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);
	dev_fini(&d);
}

/* Timer mode really waits for the timer: a long delay, then shutdown. */
DC_TEST(reqq_timer_no_completion_kick)
{
	struct dc_reqq_stats st;
	struct treq tr[2];
	struct dev d;

	/* A timer that no wait in this file outlasts. */
	dev_init(t, &d, 1, DC_REQQ_TIMER_RETRY, 2 * DC_WAIT_LIMIT_NS);
	DC_RETURN_IF_FAILED(t);
	treqs_init(tr, 2, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[0].r), 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &tr[1].r), 0);
	DC_ASSERT(t, dev_complete_one(&d, 0));
	dc_test_sleep_us(10000);
	dc_reqq_stats(d.q, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.parked, 1);
	DC_ASSERT_EQ(t, dci_atomic_read(&d.submits), 2);
	dc_reqq_shutdown(d.q);
	DC_ASSERT_INT_EQ(t, tr[1].status, -ENOTCONN);
	dev_fini(&d);		/* drops the pending timer */
}

/* ------------------------------------------------------------------ */
/* Stress: every request ends exactly once with the right status.      */

#define STRESS_Q	16
#define STRESS_SUBMITTERS 3
#define STRESS_WINDOW	64	/* outstanding requests per submitter */

struct sreq {
	struct dc_reqq_req r;
	int expect;			/* status its end callback must get */
	dci_atomic_t ends;
	bool accepted;
};

struct stress {
	struct dc_test *t;
	dci_spinlock_t lock;
	struct dc_reqq_req *ring[STRESS_Q];
	unsigned int head, count;
	struct dc_test_rng rng;		/* under lock */
	struct dc_reqq *q;
	struct sreq *reqs;
	unsigned int n;
	dci_atomic64_t issued;		/* dc_reqq_submit() calls, less refusals */
	dci_atomic64_t ended;		/* end callbacks run */
	dci_atomic64_t refused;		/* dc_reqq_submit() errors */
	dci_atomic_t submitters_done;
	dci_atomic_t bad;
	uint64_t done_by[STRESS_SUBMITTERS];
};

static struct stress *stress_cur;

static void sreq_end(struct dc_reqq_req *r, int status)
{
	struct sreq *s = dci_container_of(r, struct sreq, r);

	dci_atomic_inc(&s->ends);
	if (dci_read_once(s->expect) != status)
		s->expect = 1;		/* flagged; checked at the end */
	dci_atomic64_inc(&stress_cur->ended);
}

static int stress_submit(struct dc_reqq_req *r, void *priv)
{
	struct stress *s = priv;
	struct sreq *sr = dci_container_of(r, struct sreq, r);
	uint64_t x;
	int ret = 0;

	dci_spin_lock(&s->lock);
	x = dc_test_below(&s->rng, 1000);
	if (s->count == STRESS_Q || (x < 20 && s->count)) {
		ret = -ENOSPC;		/* full, or says so at random */
	} else if (x >= 990) {
		ret = -ENOMEM;
	} else {
		sr->expect = (x & 1) ? 0 : -EIO;	/* device's verdict */
		s->ring[(s->head + s->count++) % STRESS_Q] = r;
	}
	if (ret == -ENOMEM)
		sr->expect = -ENOMEM;
	dci_spin_unlock(&s->lock);
	return ret;
}

static const struct dc_reqq_ops stress_ops = { .submit = stress_submit };

static void stress_submitter(struct stress *s, unsigned int idx)
{
	unsigned int per = s->n / STRESS_SUBMITTERS;
	unsigned int first = idx * per, i;
	uint64_t accepted = 0;
	int ret;

	for (i = first; i < first + per; i++) {
		struct sreq *sr = &s->reqs[i];

		/* Closed loop: a bounded number outstanding. */
		while (dci_atomic64_read(&s->issued) - dci_atomic64_read(&s->ended) >
		       STRESS_WINDOW * STRESS_SUBMITTERS)
			dc_test_sleep_us(0);
		dc_reqq_req_init(&sr->r, sreq_end, (i % 7 == 0) ? DC_REQQ_FORGET : 0);
		dci_atomic64_inc(&s->issued);
		ret = dc_reqq_submit(s->q, &sr->r);
		if (!ret) {
			sr->accepted = true;
			accepted++;
			continue;
		}
		dci_atomic64_add(&s->issued, -1);
		dci_atomic64_inc(&s->refused);
		if (ret != -ENOMEM || dci_atomic_read(&sr->ends))
			dci_atomic_inc(&s->bad);
	}
	s->done_by[idx] = accepted;
}

static void stress_completer(struct stress *s)
{
	struct dc_reqq_req *r;
	struct dc_reqq_stats qs;

	for (;;) {
		dci_spin_lock(&s->lock);
		r = NULL;
		if (s->count) {
			r = s->ring[s->head];
			s->head = (s->head + 1) % STRESS_Q;
			s->count--;
		}
		dci_spin_unlock(&s->lock);
		if (r) {
			struct sreq *sr = dci_container_of(r, struct sreq, r);

			dc_reqq_complete(s->q, r, dci_read_once(sr->expect));
			continue;
		}
		if (dci_atomic_read(&s->submitters_done) == STRESS_SUBMITTERS) {
			dc_reqq_stats(s->q, &qs, sizeof(qs));
			if (!qs.in_flight && !qs.parked)
				break;
		}
		dc_test_sleep_us(0);
	}
}

static void stress_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct stress *s = arg;

	if (idx == STRESS_SUBMITTERS) {
		stress_completer(s);
		return;
	}
	stress_submitter(s, idx);
	dci_smp_mb();
	dci_atomic_inc(&s->submitters_done);
}

static void stress_run(struct dc_test *t, unsigned int n)
{
	struct dc_reqq_config cfg = { 0 };
	struct stress *s = dc_test_alloc(sizeof(*s));
	struct dc_reqq_stats qs;
	uint64_t accepted = 0, ends = 0, start = dci_now_ns();
	unsigned int i;

	DC_ASSERT(t, s);
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->n = n - n % STRESS_SUBMITTERS;
	s->reqs = dc_test_alloc(sizeof(*s->reqs) * s->n);
	DC_ASSERT(t, s->reqs);
	memset(s->reqs, 0, sizeof(*s->reqs) * s->n);
	dci_spin_lock_init(&s->lock);
	dc_test_rng_init(&s->rng, t->seed);
	stress_cur = s;
	DC_ASSERT_INT_EQ(t, dc_reqq_create(&cfg, sizeof(cfg), &stress_ops,
					   sizeof(stress_ops), s, &s->q), 0);

	dc_test_run_threads(t, STRESS_SUBMITTERS + 1, stress_thread, s);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(s->q, DC_WAIT_LIMIT_NS), 0);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&s->bad), 0);

	for (i = 0; i < s->n; i++) {
		struct sreq *sr = &s->reqs[i];
		int e = dci_atomic_read(&sr->ends);

		if (sr->accepted) {
			accepted++;
			if (e != 1 || sr->expect == 1) {
				dc_test_fail(t, __FILE__, __LINE__,
					     "request %u: %d ends, status flag %d",
					     i, e, sr->expect);
				return;
			}
		} else {
			DC_ASSERT_INT_EQ(t, e, 0);
			DC_ASSERT_INT_EQ(t, sr->expect, -ENOMEM);
		}
		ends += e;
	}
	dc_reqq_stats(s->q, &qs, sizeof(qs));
	DC_ASSERT_EQ(t, accepted + dci_atomic64_read(&s->refused), s->n);
	DC_ASSERT_EQ(t, ends, accepted);
	DC_ASSERT_EQ(t, qs.failed + qs.dropped,
		     dci_atomic64_read(&s->refused) +
		     (accepted - qs.completed));
	DC_ASSERT_EQ(t, qs.submitted, qs.completed);
	DC_ASSERT(t, qs.resubmitted > 0);
	DC_ASSERT(t, qs.dropped > 0);
	dc_test_log(t, "%u requests: %llu completed, %llu failed, %llu dropped, "
		    "%llu -ENOSPC, %llu resubmitted, %llu ms",
		    s->n, (unsigned long long)qs.completed,
		    (unsigned long long)qs.failed,
		    (unsigned long long)qs.dropped,
		    (unsigned long long)qs.enospc,
		    (unsigned long long)qs.resubmitted,
		    (unsigned long long)((dci_now_ns() - start) / MS));
	dc_reqq_destroy(s->q);
	dci_spin_lock_destroy(&s->lock);
	dc_test_free(s->reqs);
	dc_test_free(s);
}

/*
 * The target: no request lost or ended twice under 10^6 requests
 * with random -ENOSPC and -ENOMEM (10^5 in the kernel suite, which runs
 * under emulation), times DC_TEST_SCALE.
 */
DC_TEST(reqq_stress)
{
	stress_run(t, 1000000 / dc_test_slowdown() * dc_test_scale());
}

DC_SUITE(reqq,
	 DC_CASE(reqq_create_invalid),
	 DC_CASE(reqq_fifo_parked),
	 DC_CASE(reqq_enospc_needs_completion),
	 DC_CASE(reqq_errors_fail_back),
	 DC_CASE(reqq_drain),
	 DC_CASE(reqq_shutdown),
	 DC_CASE(reqq_sync_completion),
	 DC_CASE(reqq_timer_retry),
	 DC_CASE(reqq_timer_no_completion_kick),
	 DC_CASE(reqq_stress));
