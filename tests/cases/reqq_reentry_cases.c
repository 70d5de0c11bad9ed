// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reqq_reentry_cases.c - the request queue's rarer paths, made deterministic
 * by a device that acts from inside its submit op: a shutdown that lands
 * while a submission is on its way (first submission and resubmission), a
 * device that completes synchronously while the queue is resubmitting, and
 * the 2019 timer retry meeting a device that is still full.  The device
 * counts submit op calls nested inside another on the same thread, which
 * reqq.h promises never to make: a completion from inside a direct
 * submission, and an end callback that submits from inside one.
 */
#include "dc_test.h"

#include <daxcache/reqq.h>

#define MS		1000000ull
#define MAX_DEV		8

struct mdev {
	dci_spinlock_t lock;
	struct dc_reqq *q;
	struct dc_reqq_req *held[MAX_DEV];
	unsigned int nr_held;
	unsigned int cap;		/* requests the device holds at most */
	bool sync;			/* complete each accepted request at once */
	bool shutdown_next;		/* shut the queue down, then say -ENOSPC */
	unsigned int full_for;		/* answer -ENOSPC to this many calls */
	unsigned int calls;
	/* threads in the submit op now, and calls nested on one of them */
	const void *in_op[MAX_DEV];
	unsigned int nr_in_op;
	unsigned int nested;
	/*
	 * The op for @gate_req waits until a request is parked, then
	 * completes the oldest one the device holds, then goes on as usual.
	 */
	struct dc_reqq_req *gate_req;
	bool gate_entered;
	bool gate_timed_out;		/* nothing was parked within the bound */
};

struct mreq {
	struct dc_reqq_req r;
	dci_atomic_t ends;
	int status;
	struct dc_reqq *q;
	struct mreq *then;		/* submitted by this one's end callback */
	int then_ret;
};

static void mreq_end(struct dc_reqq_req *r, int status)
{
	struct mreq *m = dci_container_of(r, struct mreq, r);

	m->status = status;
	dci_atomic_inc(&m->ends);
	if (m->then)
		m->then_ret = dc_reqq_submit(m->q, &m->then->r);
}

/* A snapshot of the queue's counters. */
static struct dc_reqq_stats mdev_stats(struct mdev *d)
{
	struct dc_reqq_stats st;

	dc_reqq_stats(d->q, &st, sizeof(st));
	return st;
}

/*
 * Wait until a request is parked; then complete held[0].  Inside the op
 * there is no case to fail: a wait that reaches DC_WAIT_LIMIT_NS (only a
 * hang does) is recorded for the case to assert on.
 */
static void mdev_gate(struct mdev *d)
{
	uint64_t end = dci_now_ns() + DC_WAIT_LIMIT_NS;
	struct dc_reqq_req *r = NULL;
	unsigned int i;

	while (!mdev_stats(d).parked) {
		if (dci_now_ns() > end) {
			d->gate_timed_out = true;
			break;
		}
		dc_test_sleep_us(100);
	}
	dci_spin_lock(&d->lock);
	if (d->nr_held) {
		r = d->held[0];
		for (i = 1; i < d->nr_held; i++)
			d->held[i - 1] = d->held[i];
		d->nr_held--;
	}
	dci_spin_unlock(&d->lock);
	if (r)
		dc_reqq_complete(d->q, r, 0);
}

/* Under d->lock: this thread left the op. */
static void mdev_leave(struct mdev *d, const void *self)
{
	unsigned int i = d->nr_in_op;

	while (i-- > 0) {
		if (d->in_op[i] == self) {
			d->in_op[i] = d->in_op[--d->nr_in_op];
			return;
		}
	}
}

static int mdev_submit(struct dc_reqq_req *r, void *priv)
{
	struct mdev *d = priv;
	const void *self = dci_thread_self();
	bool shut = false, complete = false, gate = false;
	unsigned int i;
	int ret = 0;

	dci_spin_lock(&d->lock);
	for (i = 0; i < d->nr_in_op; i++)
		if (d->in_op[i] == self)
			d->nested++;
	if (d->nr_in_op < MAX_DEV)
		d->in_op[d->nr_in_op++] = self;
	if (r == d->gate_req) {
		d->gate_req = NULL;
		d->gate_entered = true;
		gate = true;
	}
	dci_spin_unlock(&d->lock);
	if (gate)
		mdev_gate(d);

	dci_spin_lock(&d->lock);
	d->calls++;
	if (d->shutdown_next) {
		d->shutdown_next = false;
		shut = true;
		ret = -ENOSPC;
	} else if (d->full_for) {
		d->full_for--;
		ret = -ENOSPC;
	} else if (d->sync) {
		complete = true;
	} else if (d->nr_held < d->cap) {
		d->held[d->nr_held++] = r;
	} else {
		ret = -ENOSPC;
	}
	dci_spin_unlock(&d->lock);
	if (shut)
		dc_reqq_shutdown(d->q);
	if (complete)
		dc_reqq_complete(d->q, r, 0);
	dci_spin_lock(&d->lock);
	mdev_leave(d, self);
	dci_spin_unlock(&d->lock);
	return ret;
}

static const struct dc_reqq_ops mdev_ops = { .submit = mdev_submit };

static int mdev_start(struct mdev *d, unsigned int flags)
{
	struct dc_reqq_config cfg = {
		.flags = flags, .retry_delay_ns = 1 * MS,
	};

	dci_spin_lock_init(&d->lock);
	return dc_reqq_create(&cfg, sizeof(cfg), &mdev_ops, sizeof(mdev_ops),
			      d, &d->q);
}

static void mreq_init(struct mreq *m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		dc_reqq_req_init(&m[i].r, mreq_end, 0);
		dci_atomic_set(&m[i].ends, 0);
		m[i].status = 1;
		m[i].q = NULL;
		m[i].then = NULL;
		m[i].then_ret = 1;
	}
}

/*
 * The end of every case: the queue holds nothing (none parked, none in
 * flight), drains at once and is destroyed.
 */
static void mdev_end(struct dc_test *t, struct mdev *d)
{
	struct dc_reqq_stats st = mdev_stats(d);

	DC_ASSERT_EQ(t, st.parked, 0);
	DC_ASSERT_EQ(t, st.in_flight, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d->q, 0), 0);
	dc_reqq_destroy(d->q);
}

/*
 * The end of a case where all went through: each of the @n requests ended
 * once, with status 0, no submit op ran nested in another, the queue
 * completed the @n; then mdev_end().
 */
static void mdev_all_done(struct dc_test *t, struct mdev *d, struct mreq *m,
			  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		DC_ASSERT_INT_EQ(t, dci_atomic_read(&m[i].ends), 1);
		DC_ASSERT_INT_EQ(t, m[i].status, 0);
	}
	DC_ASSERT_EQ(t, d->nested, 0);
	DC_ASSERT_EQ(t, mdev_stats(d).completed, n);
	mdev_end(t, d);
}

/* The device answers -ENOSPC to a first submission after a shutdown. */
DC_TEST(reqq_reentry_shutdown_during_submit)
{
	struct mdev d = { .cap = 4 };
	struct mreq m[1];

	DC_ASSERT_INT_EQ(t, mdev_start(&d, 0), 0);
	mreq_init(m, 1);
	d.shutdown_next = true;
	/* Not accepted: the caller hears -ENOTCONN, the end callback nothing. */
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[0].r), -ENOTCONN);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&m[0].ends), 0);
	mdev_end(t, &d);
}

/* A parked request is resubmitted, and the shutdown lands meanwhile. */
DC_TEST(reqq_reentry_shutdown_during_resubmit)
{
	struct mdev d = { .cap = 1 };
	struct mreq m[2];

	DC_ASSERT_INT_EQ(t, mdev_start(&d, 0), 0);
	mreq_init(m, 2);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[0].r), 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[1].r), 0);	/* parked */
	DC_ASSERT_EQ(t, mdev_stats(&d).parked, 1);
	d.shutdown_next = true;
	dc_reqq_complete(d.q, d.held[0], 0);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&m[0].ends), 1);
	DC_ASSERT_INT_EQ(t, m[0].status, 0);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&m[1].ends), 1);
	DC_ASSERT_INT_EQ(t, m[1].status, -ENOTCONN);
	DC_ASSERT_EQ(t, mdev_stats(&d).shut_down, 1);
	mdev_end(t, &d);
}

/*
 * The device turns synchronous while requests are parked: each resubmission
 * completes inside the submit op, whose completion finds the dispatcher
 * busy and leaves the rest to it.  Everything ends, in order, once.
 */
DC_TEST(reqq_reentry_sync_completion_while_dispatching)
{
	struct mdev d = { .cap = 1 };
	struct mreq m[4];
	unsigned int i;

	DC_ASSERT_INT_EQ(t, mdev_start(&d, 0), 0);
	mreq_init(m, 4);
	for (i = 0; i < 4; i++)
		DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[i].r), 0);
	DC_ASSERT_EQ(t, mdev_stats(&d).parked, 3);
	dci_spin_lock(&d.lock);
	d.sync = true;
	dci_spin_unlock(&d.lock);
	dc_reqq_complete(d.q, d.held[0], 0);
	DC_ASSERT_EQ(t, mdev_stats(&d).resubmitted, 3);
	mdev_all_done(t, &d, m, 4);
}

/* Timer retry: the retry finds the device still full and parks again. */
DC_TEST(reqq_reentry_timer_retry_still_full)
{
	struct dc_reqq_stats st;
	struct mdev d = { .cap = 4, .full_for = 3 };
	struct mreq m[1];
	unsigned int waited = 0;

	DC_ASSERT_INT_EQ(t, mdev_start(&d, DC_REQQ_TIMER_RETRY), 0);
	mreq_init(m, 1);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[0].r), 0);
	/* Bounded (20 s); the count of retries, not the time, is checked. */
	for (;;) {
		dci_spin_lock(&d.lock);
		if (d.nr_held) {
			dci_spin_unlock(&d.lock);
			break;
		}
		dci_spin_unlock(&d.lock);
		if (++waited > 20000)
			break;
		dc_test_sleep_us(1000);
	}
	DC_ASSERT_INT_EQ(t, d.nr_held, 1);
	DC_ASSERT_INT_EQ(t, d.calls, 4);
	dc_reqq_stats(d.q, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.enospc, 3);
	DC_ASSERT_EQ(t, st.resubmitted, 1);
	DC_ASSERT_EQ(t, st.parked, 0);
	dc_reqq_complete(d.q, d.held[0], 0);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&m[0].ends), 1);
	DC_ASSERT_INT_EQ(t, m[0].status, 0);
	mdev_end(t, &d);
}

/*
 * The device holds one request, R0.  Thread A submits R1 by the direct
 * path; while A is in the submit op, thread B submits R2, which the full
 * device refuses and the queue parks; then, still inside A's op, the
 * device completes R0.  That completion must not resubmit R2 from inside
 * A's op (the op would run nested in itself); R2 goes to the device once
 * A's op has returned.  Nothing is lost or ended twice.
 */
struct nest_ctx {
	struct mdev *d;
	struct mreq *m;
	int ret[2];
};

static bool mdev_gate_entered(struct mdev *d)
{
	bool ret;

	dci_spin_lock(&d->lock);
	ret = d->gate_entered;
	dci_spin_unlock(&d->lock);
	return ret;
}

static void nest_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct nest_ctx *c = arg;

	if (idx == 0) {
		c->ret[0] = dc_reqq_submit(c->d->q, &c->m[1].r);
		return;
	}
	DC_WAIT_FOR(t, mdev_gate_entered(c->d));
	c->ret[1] = dc_reqq_submit(c->d->q, &c->m[2].r);
}

DC_TEST(reqq_reentry_complete_inside_direct_submit)
{
	struct nest_ctx c = { .ret = { 1, 1 } };
	struct mdev d = { .cap = 1 };
	struct mreq m[3];
	unsigned int guard;

	DC_ASSERT_INT_EQ(t, mdev_start(&d, 0), 0);
	mreq_init(m, 3);
	c.d = &d;
	c.m = m;
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[0].r), 0);
	DC_ASSERT_EQ(t, d.nr_held, 1);
	d.gate_req = &m[1].r;
	dc_test_run_threads(t, 2, nest_thread, &c);
	DC_RETURN_IF_FAILED(t);
	/* R2 was parked while R1's op ran: the case tested what it says. */
	DC_ASSERT(t, !d.gate_timed_out);
	DC_ASSERT_INT_EQ(t, c.ret[0], 0);
	DC_ASSERT_INT_EQ(t, c.ret[1], 0);
	/* Let the device finish whatever it holds. */
	for (guard = 0; d.nr_held && guard < 8; guard++)
		dc_reqq_complete(d.q, d.held[--d.nr_held], 0);
	mdev_all_done(t, &d, m, 3);
}

/*
 * A synchronous device: R0's completion runs inside R0's submit op, and
 * R0's end callback submits R1.  R1 must wait until R0's op has returned
 * (it is parked, then resubmitted by R0's dc_reqq_submit() on the way
 * out); the op never runs nested in itself.
 */
DC_TEST(reqq_reentry_submit_from_end_inside_submit)
{
	struct mdev d = { .cap = 1, .sync = true };
	struct mreq m[2];

	DC_ASSERT_INT_EQ(t, mdev_start(&d, 0), 0);
	mreq_init(m, 2);
	m[0].q = d.q;
	m[0].then = &m[1];
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[0].r), 0);
	DC_ASSERT_INT_EQ(t, m[0].then_ret, 0);
	DC_ASSERT_EQ(t, mdev_stats(&d).submitted, 2);
	mdev_all_done(t, &d, m, 2);
}

DC_SUITE(reqq_reentry,
	 DC_CASE(reqq_reentry_shutdown_during_submit),
	 DC_CASE(reqq_reentry_shutdown_during_resubmit),
	 DC_CASE(reqq_reentry_sync_completion_while_dispatching),
	 DC_CASE(reqq_reentry_timer_retry_still_full),
	 DC_CASE(reqq_reentry_complete_inside_direct_submit),
	 DC_CASE(reqq_reentry_submit_from_end_inside_submit));
