// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * iocomp_cases.c - io-completion counter cases: the function runs once, at
 * the last put, after every earlier put's writes; NULL is accepted; misuse
 * is reported and never runs the function twice.
 */
#include "dc_test.h"

struct comp_rec {
	dci_atomic_t calls;
	void *last_data;
	struct dc_iocomp *last_ioc;
};

static void comp_fn(struct dc_iocomp *ioc, void *data)
{
	struct comp_rec *r = data;

	r->last_ioc = ioc;
	r->last_data = data;
	dci_atomic_inc(&r->calls);
}

DC_TEST(iocomp_runs_once_at_last_put)
{
	struct comp_rec r = { .last_data = NULL };
	struct dc_iocomp ioc;
	int i;

	dci_atomic_set(&r.calls, 0);
	dc_iocomp_init(&ioc, comp_fn, &r);
	DC_ASSERT_INT_EQ(t, dc_iocomp_pending(&ioc), 1);
	for (i = 0; i < 10; i++)
		dc_iocomp_get(&ioc);
	DC_ASSERT_INT_EQ(t, dc_iocomp_pending(&ioc), 11);
	/* Every I/O completes before the initiator lets go: no call yet. */
	for (i = 0; i < 10; i++)
		dc_iocomp_put(&ioc);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&r.calls), 0);
	dc_iocomp_put(&ioc);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&r.calls), 1);
	DC_ASSERT(t, r.last_ioc == &ioc);
	DC_ASSERT(t, r.last_data == &r);
	DC_ASSERT_INT_EQ(t, dc_iocomp_pending(&ioc), 0);
}

DC_TEST(iocomp_null_is_a_no_op)
{
	dc_iocomp_get(NULL);
	dc_iocomp_put(NULL);
	struct dc_iocomp *ioc = (struct dc_iocomp *)&ioc;

	DC_ASSERT_INT_EQ(t, dc_iocomp_alloc(NULL, NULL, &ioc), -EINVAL);
	DC_ASSERT(t, ioc == NULL);
	DC_ASSERT_INT_EQ(t, dc_iocomp_alloc(comp_fn, NULL, NULL), -EINVAL);
}

DC_TEST(iocomp_allocated_is_freed_after_call)
{
	struct comp_rec r = { .last_data = NULL };
	struct dc_iocomp *ioc;

	dci_atomic_set(&r.calls, 0);
	DC_ASSERT_INT_EQ(t, dc_iocomp_alloc(comp_fn, &r, &ioc), 0);
	DC_ASSERT(t, ioc != NULL);
	dc_iocomp_get(ioc);
	dc_iocomp_put(ioc);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&r.calls), 0);
	dc_iocomp_put(ioc);	/* runs and frees; a leak shows under ASan */
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&r.calls), 1);
	DC_ASSERT(t, r.last_ioc == ioc);
}

DC_TEST(iocomp_misuse_never_runs_twice)
{
	struct comp_rec r = { .last_data = NULL };
	unsigned long warned = dc_warn_count();
	struct dc_iocomp ioc;

	dci_atomic_set(&r.calls, 0);
	dc_iocomp_init(&ioc, comp_fn, &r);
	dc_iocomp_put(&ioc);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&r.calls), 1);
	/* A put after zero is reported and runs nothing. */
	dc_iocomp_put(&ioc);
	DC_ASSERT(t, dc_warn_count() > warned);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&r.calls), 1);

	/* A get on zero is reported; later puts never reach zero again. */
	warned = dc_warn_count();
	dc_iocomp_init(&ioc, comp_fn, &r);
	dc_iocomp_put(&ioc);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&r.calls), 2);
	dc_iocomp_get(&ioc);
	DC_ASSERT(t, dc_warn_count() > warned);
	dc_iocomp_put(&ioc);
	dc_iocomp_put(&ioc);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&r.calls), 2);
}

/* The count reads 0 once the function has run, misuse after it included. */
DC_TEST(iocomp_pending_zero_after_misuse)
{
	struct comp_rec r = { .last_data = NULL };
	struct dc_iocomp ioc;
	int after_run, after_put, after_get;

	dci_atomic_set(&r.calls, 0);
	dc_iocomp_init(&ioc, comp_fn, &r);
	dc_iocomp_put(&ioc);
	after_run = dc_iocomp_pending(&ioc);
	dc_iocomp_put(&ioc);
	after_put = dc_iocomp_pending(&ioc);
	dc_iocomp_init(&ioc, comp_fn, &r);
	dc_iocomp_put(&ioc);
	dc_iocomp_get(&ioc);
	after_get = dc_iocomp_pending(&ioc);
	DC_ASSERT_INT_EQ(t, after_run, 0);
	DC_ASSERT_INT_EQ(t, after_put, 0);
	DC_ASSERT_INT_EQ(t, after_get, 0);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&r.calls), 2);
}

/* --- N threads completing I/Os ----------------------------------------- */

#define IOC_THREADS	4
#define IOC_SLOTS	64

struct ioc_ctx {
	struct dc_iocomp ioc;
	dci_atomic_t calls;
	unsigned int per_thread;
	/* Written by each I/O before its put; read by the completion. */
	unsigned int done[IOC_THREADS][IOC_SLOTS];
	unsigned int seen_incomplete;
};

static void ioc_complete(struct dc_iocomp *ioc, void *data)
{
	struct ioc_ctx *c = data;
	unsigned int i, j;

	for (i = 0; i < IOC_THREADS; i++)
		for (j = 0; j < IOC_SLOTS; j++)
			if (c->done[i][j] != c->per_thread)
				c->seen_incomplete++;
	dci_atomic_inc(&c->calls);
}

/* Each thread completes per_thread I/Os the initiator got for it. */
static void ioc_worker(struct dc_test *t, void *arg, unsigned int idx)
{
	struct ioc_ctx *c = arg;
	unsigned int i, j;

	for (i = 0; i < c->per_thread; i++) {
		/* Nested I/O issued from the completion side: get/put pair. */
		dc_iocomp_get(&c->ioc);
		for (j = 0; j < IOC_SLOTS; j++)
			dci_write_once(c->done[idx][j], i + 1);
		dc_iocomp_put(&c->ioc);
		dc_iocomp_put(&c->ioc);	/* the reference taken by the initiator */
	}
}

static void ioc_round(struct dc_test *t, bool initiator_last)
{
	struct ioc_ctx *c = dc_test_alloc(sizeof(*c));
	unsigned int i;

	DC_ASSERT(t, c);
	c->per_thread = 20000;
	dci_atomic_set(&c->calls, 0);
	dc_iocomp_init(&c->ioc, ioc_complete, c);
	for (i = 0; i < IOC_THREADS * c->per_thread; i++)
		dc_iocomp_get(&c->ioc);
	if (!initiator_last) {
		/*
		 * Drop the initiator's reference first: the function must then
		 * run in whichever worker completes last.
		 */
		dc_iocomp_put(&c->ioc);
	}
	dc_test_run_threads(t, IOC_THREADS, ioc_worker, c);
	if (initiator_last) {
		DC_ASSERT_INT_EQ(t, dci_atomic_read(&c->calls), 0);
		DC_ASSERT_INT_EQ(t, dc_iocomp_pending(&c->ioc), 1);
		dc_iocomp_put(&c->ioc);
	}
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&c->calls), 1);
	DC_ASSERT_EQ(t, c->seen_incomplete, 0);
	dc_test_free(c);
}

DC_TEST(iocomp_threads_initiator_last)
{
	ioc_round(t, true);
}

DC_TEST(iocomp_threads_initiator_first)
{
	ioc_round(t, false);
}

DC_SUITE(iocomp,
	 DC_CASE(iocomp_runs_once_at_last_put),
	 DC_CASE(iocomp_null_is_a_no_op),
	 DC_CASE(iocomp_allocated_is_freed_after_call),
	 DC_CASE(iocomp_misuse_never_runs_twice),
	 DC_CASE(iocomp_pending_zero_after_misuse),
	 DC_CASE(iocomp_threads_initiator_last),
	 DC_CASE(iocomp_threads_initiator_first));
