// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reqq_more_cases.c - the request queue's rarer paths, made deterministic
 * by a device that acts from inside its submit op: a shutdown that lands
 * while a submission is on its way (first submission and resubmission), a
 * device that completes synchronously while the queue is resubmitting, and
 * the 2019 timer retry meeting a device that is still full.
 */
#include "dc_test.h"

#include <daxcache/reqq.h>

#define MS		1000000ull
#define MAX_DEV		8

struct mdev {
	dc_spinlock_t lock;
	struct dc_reqq *q;
	struct dc_reqq_req *held[MAX_DEV];
	unsigned int nr_held;
	unsigned int cap;		/* requests the device holds at most */
	bool sync;			/* complete each accepted request at once */
	bool shutdown_next;		/* shut the queue down, then say -ENOSPC */
	unsigned int full_for;		/* answer -ENOSPC to this many calls */
	unsigned int calls;
};

struct mreq {
	struct dc_reqq_req r;
	dc_atomic_t ends;
	int status;
};

static void mreq_end(struct dc_reqq_req *r, int status)
{
	struct mreq *m = dc_container_of(r, struct mreq, r);

	m->status = status;
	dc_atomic_inc(&m->ends);
}

static int mdev_submit(struct dc_reqq_req *r, void *priv)
{
	struct mdev *d = priv;
	bool shut = false, complete = false;
	int ret = 0;

	dc_spin_lock(&d->lock);
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
	dc_spin_unlock(&d->lock);
	if (shut)
		dc_reqq_shutdown(d->q);
	if (complete)
		dc_reqq_complete(d->q, r, 0);
	return ret;
}

static const struct dc_reqq_ops mdev_ops = { .submit = mdev_submit };

static int mdev_start(struct mdev *d, unsigned int flags)
{
	struct dc_reqq_config cfg = {
		.ops = &mdev_ops, .priv = d, .flags = flags,
		.retry_delay_ns = 1 * MS,
	};

	dc_spin_lock_init(&d->lock);
	return dc_reqq_create(&cfg, &d->q);
}

static void mreq_init(struct mreq *m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		dc_reqq_req_init(&m[i].r, mreq_end, 0);
		dc_atomic_set(&m[i].ends, 0);
		m[i].status = 1;
	}
}

/* The device answers -ENOSPC to a first submission after a shutdown. */
DC_TEST(reqq_more_shutdown_during_submit)
{
	struct dc_reqq_stats st;
	struct mdev d = { .cap = 4 };
	struct mreq m[1];

	DC_ASSERT_INT_EQ(t, mdev_start(&d, 0), 0);
	mreq_init(m, 1);
	d.shutdown_next = true;
	/* Not accepted: the caller hears -ENOTCONN, the end callback nothing. */
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[0].r), -ENOTCONN);
	DC_ASSERT_INT_EQ(t, dc_atomic_read(&m[0].ends), 0);
	dc_reqq_get_stats(d.q, &st);
	DC_ASSERT_EQ(t, st.in_flight, 0);
	DC_ASSERT_EQ(t, st.parked, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);
	dc_reqq_destroy(d.q);
}

/* A parked request is resubmitted, and the shutdown lands meanwhile. */
DC_TEST(reqq_more_shutdown_during_resubmit)
{
	struct dc_reqq_stats st;
	struct mdev d = { .cap = 1 };
	struct mreq m[2];

	DC_ASSERT_INT_EQ(t, mdev_start(&d, 0), 0);
	mreq_init(m, 2);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[0].r), 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[1].r), 0);	/* parked */
	dc_reqq_get_stats(d.q, &st);
	DC_ASSERT_EQ(t, st.parked, 1);
	d.shutdown_next = true;
	dc_reqq_complete(d.q, d.held[0], 0);
	DC_ASSERT_INT_EQ(t, dc_atomic_read(&m[0].ends), 1);
	DC_ASSERT_INT_EQ(t, m[0].status, 0);
	DC_ASSERT_INT_EQ(t, dc_atomic_read(&m[1].ends), 1);
	DC_ASSERT_INT_EQ(t, m[1].status, -ENOTCONN);
	dc_reqq_get_stats(d.q, &st);
	DC_ASSERT_EQ(t, st.shut_down, 1);
	DC_ASSERT_EQ(t, st.parked, 0);
	DC_ASSERT_EQ(t, st.in_flight, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);
	dc_reqq_destroy(d.q);
}

/*
 * The device turns synchronous while requests are parked: each resubmission
 * completes inside the submit op, whose completion finds the dispatcher
 * busy and leaves the rest to it.  Everything ends, in order, once.
 */
DC_TEST(reqq_more_sync_completion_while_dispatching)
{
	struct dc_reqq_stats st;
	struct mdev d = { .cap = 1 };
	struct mreq m[4];
	unsigned int i;

	DC_ASSERT_INT_EQ(t, mdev_start(&d, 0), 0);
	mreq_init(m, 4);
	for (i = 0; i < 4; i++)
		DC_ASSERT_INT_EQ(t, dc_reqq_submit(d.q, &m[i].r), 0);
	dc_reqq_get_stats(d.q, &st);
	DC_ASSERT_EQ(t, st.parked, 3);
	dc_spin_lock(&d.lock);
	d.sync = true;
	dc_spin_unlock(&d.lock);
	dc_reqq_complete(d.q, d.held[0], 0);
	for (i = 0; i < 4; i++) {
		DC_ASSERT_INT_EQ(t, dc_atomic_read(&m[i].ends), 1);
		DC_ASSERT_INT_EQ(t, m[i].status, 0);
	}
	dc_reqq_get_stats(d.q, &st);
	DC_ASSERT_EQ(t, st.resubmitted, 3);
	DC_ASSERT_EQ(t, st.completed, 4);
	DC_ASSERT_EQ(t, st.parked, 0);
	DC_ASSERT_EQ(t, st.in_flight, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);
	dc_reqq_destroy(d.q);
}

/* Timer retry: the retry finds the device still full and parks again. */
DC_TEST(reqq_more_timer_retry_still_full)
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
		dc_spin_lock(&d.lock);
		if (d.nr_held) {
			dc_spin_unlock(&d.lock);
			break;
		}
		dc_spin_unlock(&d.lock);
		if (++waited > 20000)
			break;
		dc_test_sleep_us(1000);
	}
	DC_ASSERT_INT_EQ(t, d.nr_held, 1);
	DC_ASSERT_INT_EQ(t, d.calls, 4);
	dc_reqq_get_stats(d.q, &st);
	DC_ASSERT_EQ(t, st.enospc, 3);
	DC_ASSERT_EQ(t, st.resubmitted, 1);
	DC_ASSERT_EQ(t, st.parked, 0);
	dc_reqq_complete(d.q, d.held[0], 0);
	DC_ASSERT_INT_EQ(t, dc_atomic_read(&m[0].ends), 1);
	DC_ASSERT_INT_EQ(t, m[0].status, 0);
	DC_ASSERT_INT_EQ(t, dc_reqq_drain(d.q, 0), 0);
	dc_reqq_destroy(d.q);
}

DC_SUITE(reqq_more,
	 DC_CASE(reqq_more_shutdown_during_submit),
	 DC_CASE(reqq_more_shutdown_during_resubmit),
	 DC_CASE(reqq_more_sync_completion_while_dispatching),
	 DC_CASE(reqq_more_timer_retry_still_full));
