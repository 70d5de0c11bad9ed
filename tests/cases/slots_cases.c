// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * slots_cases.c - slot table cases: the minimum is preallocated, the table
 * grows on demand up to its maximum and shrinks back to the minimum; a
 * failed allocation waits in the backlog rather than failing; the backlog is
 * served in FIFO order; non-blocking and timed gets; a threaded stress that
 * checks the invariants (never more than max out, every get matched by a
 * put, back to the minimum at the end); the init and fini ops; and, with an
 * init op that holds allocations until the test lets them go, failed
 * allocations while others wait in the backlog.
 */
#include "dc_test.h"

#include <daxcache/fault.h>
#include <daxcache/slots.h>

/* dc_slot_table_create() with the limits as numbers. */
static int table_new(unsigned int min_slots, unsigned int max_slots,
		     size_t slot_size, const struct dc_slot_table_ops *ops,
		     void *priv, struct dc_slot_table **out)
{
	struct dc_slot_table_config cfg = {
		.min_slots = min_slots,
		.max_slots = max_slots,
		.slot_size = slot_size,
	};

	return dc_slot_table_create(&cfg, sizeof(cfg), ops,
				    ops ? sizeof(*ops) : 0, priv, out);
}

static void stats(struct dc_slot_table *tbl, struct dc_slot_table_stats *st)
{
	dc_slot_table_stats(tbl, st, sizeof(*st));
}

DC_TEST(slots_bad_limits_and_busy_destroy)
{
	struct dc_slot_table *tbl;
	struct dc_slot *s;

	DC_ASSERT_INT_EQ(t, table_new(0, 0, 0, NULL, NULL, &tbl), -EINVAL);
	DC_ASSERT_INT_EQ(t, table_new(3, 2, 0, NULL, NULL, &tbl), -EINVAL);
	DC_ASSERT_INT_EQ(t, table_new(1, 2, 1, NULL, NULL, &tbl), -EINVAL);
	DC_ASSERT_INT_EQ(t, table_new(1, 2, 0, NULL, NULL, &tbl), 0);
	DC_ASSERT_INT_EQ(t, dc_slot_tryget(tbl, &s), 0);
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(tbl), -EBUSY);
	dc_slot_put(tbl, s);
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(tbl), 0);
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(NULL), 0);
}

DC_TEST(slots_min_preallocated_grow_to_max_release_above_min)
{
	struct dc_slot *held[8];
	struct dc_slot_table *tbl;
	struct dc_slot_table_stats st;
	struct dc_slot *s;
	unsigned int i;

	DC_ASSERT_INT_EQ(t, table_new(3, 8, 0, NULL, NULL, &tbl), 0);
	stats(tbl, &st);
	DC_ASSERT_EQ(t, st.allocated, 3);
	DC_ASSERT_EQ(t, st.dynamic_allocs, 0);
	for (i = 0; i < 8; i++) {
		DC_ASSERT_INT_EQ(t, dc_slot_tryget(tbl, &held[i]), 0);
		stats(tbl, &st);
		/* The first three come from the preallocated ones. */
		DC_ASSERT_EQ(t, st.dynamic_allocs, i < 3 ? 0 : i - 2);
		DC_ASSERT_EQ(t, st.allocated, i < 3 ? 3 : i + 1);
		DC_ASSERT_EQ(t, st.out, i + 1);
	}
	/* At the maximum: non-blocking is refused, timed waits time out. */
	DC_ASSERT_INT_EQ(t, dc_slot_tryget(tbl, &s), -EAGAIN);
	DC_ASSERT(t, s == NULL);
	DC_ASSERT_INT_EQ(t, dc_slot_get_timeout(tbl, 1000000, &s), -ETIMEDOUT);
	stats(tbl, &st);
	DC_ASSERT_EQ(t, st.waits, 1);
	DC_ASSERT_EQ(t, st.timeouts, 1);
	DC_ASSERT_EQ(t, st.backlog, 0);
	/* Freed slots above the minimum are released, the rest kept. */
	for (i = 0; i < 8; i++) {
		dc_slot_put(tbl, held[i]);
		stats(tbl, &st);
		DC_ASSERT_EQ(t, st.allocated, i < 5 ? 7 - i : 3);
	}
	stats(tbl, &st);
	DC_ASSERT_EQ(t, st.releases, 5);
	DC_ASSERT_EQ(t, st.out, 0);
	/* And reused without allocating. */
	DC_ASSERT_INT_EQ(t, dc_slot_get(tbl, &s), 0);
	stats(tbl, &st);
	DC_ASSERT_EQ(t, st.dynamic_allocs, 5);
	dc_slot_put(tbl, s);
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(tbl), 0);
}

DC_TEST(slots_alloc_failure_joins_backlog)
{
	struct dc_slot_table *tbl;
	struct dc_slot_table_stats st;
	struct dc_slot *a, *s;

	DC_ASSERT_INT_EQ(t, table_new(1, 4, 0, NULL, NULL, &tbl), 0);
	DC_ASSERT_INT_EQ(t, dc_slot_get(tbl, &a), 0);
	/* Below the maximum, but the allocation fails: wait, not -ENOMEM. */
	dci_fault_alloc_fail_nth(1);
	DC_ASSERT_INT_EQ(t, dc_slot_get_timeout(tbl, 1000000, &s), -ETIMEDOUT);
	DC_ASSERT_EQ(t, dci_fault_alloc_failed(), 1);
	stats(tbl, &st);
	DC_ASSERT_EQ(t, st.alloc_failures, 1);
	DC_ASSERT_EQ(t, st.waits, 1);
	DC_ASSERT_EQ(t, st.allocated, 1);
	/* Non-blocking callers get -EAGAIN for the same. */
	dci_fault_alloc_fail_nth(1);
	DC_ASSERT_INT_EQ(t, dc_slot_tryget(tbl, &s), -EAGAIN);
	dc_slot_put(tbl, a);
	/* With no slot out, nobody could wake a waiter: -ENOMEM. */
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(tbl), 0);
	DC_ASSERT_INT_EQ(t, table_new(0, 4, 0, NULL, NULL, &tbl), 0);
	dci_fault_alloc_fail_nth(1);
	DC_ASSERT_INT_EQ(t, dc_slot_get(tbl, &s), -ENOMEM);
	dci_fault_alloc_fail_nth(0);
	DC_ASSERT_INT_EQ(t, dc_slot_get(tbl, &s), 0);
	dc_slot_put(tbl, s);
	stats(tbl, &st);
	DC_ASSERT_EQ(t, st.allocated, 0);
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(tbl), 0);
}

/* --- the init and fini ops --------------------------------------------- */

#define OPS_MAGIC	0x5106c0deu

struct tslot {
	struct dc_slot head;
	unsigned int magic;
};

struct ops_ctx {
	unsigned int inits, finis;
	unsigned int fail_at;		/* init call that fails (1-based), or 0 */
	unsigned int bad;		/* fini of a slot init never saw */
};

static int ops_init(struct dc_slot *slot, void *priv)
{
	struct ops_ctx *c = priv;
	struct tslot *ts = dci_container_of(slot, struct tslot, head);

	if (++c->inits == c->fail_at)
		return -ENOMEM;
	ts->magic = OPS_MAGIC;
	return 0;
}

static void ops_fini(struct dc_slot *slot, void *priv)
{
	struct ops_ctx *c = priv;
	struct tslot *ts = dci_container_of(slot, struct tslot, head);

	if (ts->magic != OPS_MAGIC)
		c->bad++;
	ts->magic = 0;
	c->finis++;
}

static const struct dc_slot_table_ops test_ops = {
	.init = ops_init, .fini = ops_fini,
};

DC_TEST(slots_ops_init_fini)
{
	struct ops_ctx c = { 0 };
	struct dc_slot_table *tbl;
	struct dc_slot_table_stats st;
	struct dc_slot *held[4];
	unsigned int i;

	DC_ASSERT_INT_EQ(t, table_new(2, 4, sizeof(struct tslot),
				      &test_ops, &c, &tbl), 0);
	DC_ASSERT_EQ(t, c.inits, 2);
	for (i = 0; i < 4; i++) {
		DC_ASSERT_INT_EQ(t, dc_slot_tryget(tbl, &held[i]), 0);
		/* Prepared before the caller sees it. */
		DC_ASSERT_EQ(t, dci_container_of(held[i], struct tslot, head)->magic,
			     OPS_MAGIC);
	}
	DC_ASSERT_EQ(t, c.inits, 4);
	for (i = 0; i < 4; i++)
		dc_slot_put(tbl, held[i]);
	/* The two above the minimum were released through fini. */
	DC_ASSERT_EQ(t, c.finis, 2);
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(tbl), 0);
	DC_ASSERT_EQ(t, c.finis, 4);
	DC_ASSERT_EQ(t, c.bad, 0);

	/* A failed init while preallocating: the prepared one is undone. */
	c = (struct ops_ctx){ .fail_at = 2 };
	tbl = (struct dc_slot_table *)&c;
	DC_ASSERT_INT_EQ(t, table_new(3, 4, sizeof(struct tslot),
				      &test_ops, &c, &tbl), -ENOMEM);
	DC_ASSERT(t, tbl == NULL);
	DC_ASSERT_EQ(t, c.inits, 2);
	DC_ASSERT_EQ(t, c.finis, 1);

	/* A failed init on demand is a failed allocation. */
	c = (struct ops_ctx){ .fail_at = 1 };
	DC_ASSERT_INT_EQ(t, table_new(0, 1, sizeof(struct tslot),
				      &test_ops, &c, &tbl), 0);
	DC_ASSERT_INT_EQ(t, dc_slot_get(tbl, &held[0]), -ENOMEM);
	dc_slot_table_stats(tbl, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.alloc_failures, 1);
	DC_ASSERT_EQ(t, st.allocated, 0);
	DC_ASSERT_INT_EQ(t, dc_slot_get(tbl, &held[0]), 0);
	dc_slot_put(tbl, held[0]);
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(tbl), 0);
	DC_ASSERT_EQ(t, c.finis, 1);
	DC_ASSERT_EQ(t, c.bad, 0);
}

/* --- threads ----------------------------------------------------------- */

#define FIFO_WAITERS	4

struct fifo_ctx {
	struct dc_slot_table *tbl;
	struct dc_slot *held;
	dci_atomic_t order;	/* grants seen so far */
	dci_atomic_t bad;
	bool fail_alloc;
};

static unsigned int backlog_len(struct dc_slot_table *tbl)
{
	struct dc_slot_table_stats st;

	dc_slot_table_stats(tbl, &st, sizeof(st));
	return st.backlog;
}

/* Wait (bounded, ~5 s) until the backlog holds @n callers. */
static bool wait_backlog(struct dc_slot_table *tbl, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 50000; i++) {
		if (backlog_len(tbl) == n)
			return true;
		dc_test_sleep_us(100);
	}
	return false;
}

static void fifo_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct fifo_ctx *c = arg;
	struct dc_slot *s;

	if (idx == 0) {
		/* The holder: lets go once every waiter is queued (or never). */
		bool queued = wait_backlog(c->tbl, FIFO_WAITERS);

		dc_slot_put(c->tbl, c->held);
		DC_ASSERT(t, queued);
		return;
	}
	/* Waiter idx queues right after waiter idx - 1. */
	DC_ASSERT(t, wait_backlog(c->tbl, idx - 1));
	if (c->fail_alloc && idx == 1)
		dci_fault_alloc_fail_nth(1);
	DC_ASSERT_INT_EQ(t, dc_slot_get(c->tbl, &s), 0);
	if ((unsigned int)dci_atomic_read(&c->order) != idx - 1)
		dci_atomic_inc(&c->bad);
	dci_atomic_inc(&c->order);
	dc_slot_put(c->tbl, s);
}

static void fifo_round(struct dc_test *t, unsigned int max, bool fail_alloc)
{
	struct fifo_ctx *c = dc_test_alloc(sizeof(*c));
	struct dc_slot_table_stats st;
	int order, bad;

	DC_ASSERT(t, c != NULL);
	c->fail_alloc = fail_alloc;
	dci_atomic_set(&c->order, 0);
	dci_atomic_set(&c->bad, 0);
	if (table_new(1, max, 0, NULL, NULL, &c->tbl)) {
		dc_test_free(c);
		DC_ASSERT(t, false);
	}
	if (dc_slot_get(c->tbl, &c->held) == 0)
		dc_test_run_threads(t, FIFO_WAITERS + 1, fifo_thread, c);
	dci_fault_alloc_fail_nth(0);
	dc_slot_table_stats(c->tbl, &st, sizeof(st));
	dc_slot_table_destroy(c->tbl);
	order = dci_atomic_read(&c->order);
	bad = dci_atomic_read(&c->bad);
	dc_test_free(c);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, order, FIFO_WAITERS);
	DC_ASSERT_EQ(t, bad, 0);
	DC_ASSERT_EQ(t, st.handoffs, FIFO_WAITERS);
	DC_ASSERT_EQ(t, st.max_backlog, FIFO_WAITERS);
	DC_ASSERT_EQ(t, st.out, 0);
	if (fail_alloc)
		DC_ASSERT_EQ(t, st.alloc_failures, 1);
}

DC_TEST(slots_backlog_fifo_at_max)
{
	fifo_round(t, 1, false);
}

/*
 * Below the maximum: the first waiter is there because its allocation
 * failed; later callers queue behind it instead of overtaking.
 */
DC_TEST(slots_backlog_fifo_after_alloc_failure)
{
	fifo_round(t, 8, true);
}

/*
 * An init op that holds each allocation until the test opens its gate:
 * init call i (0-based, in call order) waits for open[i] and then returns
 * result[i].  Calls past the scripted ones pass at once.
 */
#define GATES		3
#define GATE_WAIT_NS	(10000000000ull * dc_test_slowdown())

struct gate_ctx {
	dci_spinlock_t lock;
	struct dc_slot_table *tbl;
	unsigned int calls;		/* init calls so far */
	bool open[GATES];
	int result[GATES];
	bool stuck;			/* a gate was never opened */
	unsigned int order;		/* grants seen, for FIFO checks */
	int ret[5];			/* each thread's get */
	unsigned int rank[5];		/* each thread's place among grants */
};

static bool gate_calls_at_least(struct gate_ctx *c, unsigned int n)
{
	bool ret;

	dci_spin_lock(&c->lock);
	ret = c->calls >= n;
	dci_spin_unlock(&c->lock);
	return ret;
}

static bool gate_is_open(struct gate_ctx *c, unsigned int i)
{
	bool ret;

	dci_spin_lock(&c->lock);
	ret = c->open[i];
	dci_spin_unlock(&c->lock);
	return ret;
}

/* Wait (bounded, ~5 s) until @pred(@c, @n) holds. */
static bool gate_wait(struct gate_ctx *c,
		      bool (*pred)(struct gate_ctx *c, unsigned int n),
		      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 50000; i++) {
		if (pred(c, n))
			return true;
		dc_test_sleep_us(100);
	}
	return false;
}

static void gate_open(struct gate_ctx *c, unsigned int i, int result)
{
	dci_spin_lock(&c->lock);
	c->result[i] = result;
	c->open[i] = true;
	dci_spin_unlock(&c->lock);
}

static int gated_init(struct dc_slot *slot, void *priv)
{
	struct gate_ctx *c = priv;
	unsigned int i;
	int ret;

	dci_spin_lock(&c->lock);
	i = c->calls++;
	dci_spin_unlock(&c->lock);
	if (i >= GATES)
		return 0;
	if (!gate_wait(c, gate_is_open, i)) {
		dci_spin_lock(&c->lock);
		c->stuck = true;
		dci_spin_unlock(&c->lock);
	}
	dci_spin_lock(&c->lock);
	ret = c->result[i];
	dci_spin_unlock(&c->lock);
	return ret;
}

static const struct dc_slot_table_ops gated_ops = { .init = gated_init };

static bool gate_backlog_is(struct gate_ctx *c, unsigned int n)
{
	return backlog_len(c->tbl) == n;
}

static bool gate_out_is(struct gate_ctx *c, unsigned int n)
{
	struct dc_slot_table_stats st;

	dc_slot_table_stats(c->tbl, &st, sizeof(st));
	return st.out == n;
}

/* The failed retry below has put its waiter back at the head. */
static bool gate_requeued(struct gate_ctx *c, unsigned int n)
{
	struct dc_slot_table_stats st;

	dc_slot_table_stats(c->tbl, &st, sizeof(st));
	return st.alloc_failures == n && st.backlog == 2;
}

/* A waiter: record what the get returned and its place among grants. */
static void gate_get(struct gate_ctx *c, unsigned int idx)
{
	struct dc_slot *s = NULL;
	int ret;

	ret = dc_slot_get_timeout(c->tbl, GATE_WAIT_NS, &s);
	dci_spin_lock(&c->lock);
	c->ret[idx] = ret;
	if (!ret)
		c->rank[idx] = c->order++;
	dci_spin_unlock(&c->lock);
	if (!ret)
		dc_slot_put(c->tbl, s);
}

/* A waiter that comes once @pred(@c, @n) holds: gate_get() as thread @idx. */
static void gate_get_when(struct dc_test *t, struct gate_ctx *c, unsigned int idx,
			  bool (*pred)(struct gate_ctx *c, unsigned int n),
			  unsigned int n)
{
	DC_ASSERT(t, gate_wait(c, pred, n));
	gate_get(c, idx);
}

/* Once two wait in the backlog, fail the first allocation (A's). */
static void gate_fail_first(struct dc_test *t, struct gate_ctx *c)
{
	if (!gate_wait(c, gate_backlog_is, 2))
		dc_test_fail(t, __FILE__, __LINE__, "backlog never reached 2");
	gate_open(c, 0, -ENOMEM);
}

/*
 * The counts @st of a gated case once its threads are done: allocations
 * that failed, retries on a waiter's behalf, allocations past the minimum,
 * waits; then the table at rest (no timeout, no waiter, nothing out,
 * nothing left allocated).
 */
static void check_gated_counts(struct dc_test *t,
			       const struct dc_slot_table_stats *st,
			       uint64_t failures, uint64_t retries,
			       uint64_t dynamic, uint64_t waits)
{
	DC_ASSERT_EQ(t, st->alloc_failures, failures);
	DC_ASSERT_EQ(t, st->retries, retries);
	DC_ASSERT_EQ(t, st->dynamic_allocs, dynamic);
	DC_ASSERT_EQ(t, st->waits, waits);
	DC_ASSERT_EQ(t, st->timeouts, 0);
	DC_ASSERT_EQ(t, st->backlog, 0);
	DC_ASSERT_EQ(t, st->out, 0);
	DC_ASSERT_EQ(t, st->allocated, 0);
}

/*
 * Nothing is out and nobody would ever wake a waiter but a slot the
 * allocation in progress brings: every waiter must have a way out.
 */
static void check_not_stranded(struct dc_test *t, struct dc_slot_table *tbl)
{
	struct dc_slot_table_stats st;

	dc_slot_table_stats(tbl, &st, sizeof(st));
	if (st.backlog && !st.out && st.allocated == st.out)
		dc_test_fail(t, __FILE__, __LINE__,
			     "%u waiters stranded: allocated %u, out %u",
			     st.backlog, st.allocated, st.out);
}

/* A gated table of at most @max slots, none preallocated; NULL on failure. */
static struct gate_ctx *gate_new(struct dc_test *t, unsigned int max)
{
	struct gate_ctx *c = dc_test_alloc(sizeof(*c));

	if (!c) {
		dc_test_fail(t, __FILE__, __LINE__, "no memory");
		return NULL;
	}
	memset(c, 0, sizeof(*c));
	dci_spin_lock_init(&c->lock);
	if (table_new(0, max, 0, &gated_ops, c, &c->tbl)) {
		dci_spin_lock_destroy(&c->lock);
		dc_test_free(c);
		dc_test_fail(t, __FILE__, __LINE__, "table_new");
		return NULL;
	}
	return c;
}

/* The table is idle: it is destroyed, and the context freed. */
static void gate_free(struct dc_test *t, struct gate_ctx *c)
{
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(c->tbl), 0);
	dci_spin_lock_destroy(&c->lock);
	dc_test_free(c);
}

/*
 * min 0, max 1.  A allocates and is held in its init op; B and C join the
 * backlog (the table is at its maximum, counting A's allocation); A's
 * allocation fails.  A gets -ENOMEM (nothing is out), and its place goes
 * to B, whose allocation fails too (-ENOMEM), then to C, who gets a slot.
 */
static void strand_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct gate_ctx *c = arg;
	struct dc_slot *s = NULL;

	switch (idx) {
	case 0:			/* A */
		c->ret[0] = dc_slot_get(c->tbl, &s);
		check_not_stranded(t, c->tbl);
		break;
	case 1:			/* B, once A is allocating */
		gate_get_when(t, c, 1, gate_calls_at_least, 1);
		break;
	case 2:			/* C, behind B */
		gate_get_when(t, c, 2, gate_backlog_is, 1);
		break;
	default:		/* fail A's allocation once both wait */
		gate_fail_first(t, c);
		break;
	}
}

DC_TEST(slots_failed_alloc_hands_over_to_waiter)
{
	struct gate_ctx *c = gate_new(t, 1);
	struct dc_slot_table_stats st;
	struct dc_slot *s;

	DC_ASSERT(t, c != NULL);
	c->result[1] = -ENOMEM;
	c->open[1] = true;
	c->open[2] = true;
	dc_test_run_threads(t, 4, strand_thread, c);
	dc_slot_table_stats(c->tbl, &st, sizeof(st));
	DC_ASSERT_INT_EQ(t, c->ret[0], -ENOMEM);
	DC_ASSERT_INT_EQ(t, c->ret[1], -ENOMEM);
	DC_ASSERT_INT_EQ(t, c->ret[2], 0);
	DC_ASSERT(t, !c->stuck);
	check_gated_counts(t, &st, 2, 2, 1, 2);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, st.releases, 1);
	/* Usable afterwards, with nothing stuck in the backlog. */
	DC_ASSERT_INT_EQ(t, dc_slot_tryget(c->tbl, &s), 0);
	dc_slot_put(c->tbl, s);
	gate_free(t, c);
}

/*
 * min 0, max 2.  A and A2 allocate, both held; W1 and W2 wait.  A fails with
 * nothing out: W1 gets its place and allocates, held too.  A2 succeeds, so
 * a slot is out when W1's allocation fails: W1 waits again, still first in
 * line, and A2's put goes to W1, W1's to W2.
 */
static void requeue_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct gate_ctx *c = arg;
	struct dc_slot *s = NULL;

	switch (idx) {
	case 0:			/* A */
		c->ret[0] = dc_slot_get_timeout(c->tbl, GATE_WAIT_NS, &s);
		break;
	case 1:			/* A2, once A is allocating */
		DC_ASSERT(t, gate_wait(c, gate_calls_at_least, 1));
		c->ret[1] = dc_slot_get(c->tbl, &s);
		if (c->ret[1])
			break;
		if (!gate_wait(c, gate_requeued, 2))
			dc_test_fail(t, __FILE__, __LINE__, "W1 never waited again");
		dc_slot_put(c->tbl, s);
		break;
	case 2:			/* W1, once both allocate */
		gate_get_when(t, c, 2, gate_calls_at_least, 2);
		break;
	case 3:			/* W2, behind W1 */
		gate_get_when(t, c, 3, gate_backlog_is, 1);
		break;
	default:
		gate_fail_first(t, c);
		/* W1 now allocates in A's place. */
		if (!gate_wait(c, gate_calls_at_least, 3))
			dc_test_fail(t, __FILE__, __LINE__, "no waiter took A's place");
		gate_open(c, 1, 0);
		if (!gate_wait(c, gate_out_is, 1))
			dc_test_fail(t, __FILE__, __LINE__, "A2 got no slot");
		gate_open(c, 2, -ENOMEM);
		break;
	}
}

DC_TEST(slots_failed_retry_waits_again_first_in_line)
{
	struct gate_ctx *c = gate_new(t, 2);
	struct dc_slot_table_stats st;

	DC_ASSERT(t, c != NULL);
	dc_test_run_threads(t, 5, requeue_thread, c);
	dc_slot_table_stats(c->tbl, &st, sizeof(st));
	DC_ASSERT_INT_EQ(t, c->ret[0], -ENOMEM);
	DC_ASSERT_INT_EQ(t, c->ret[1], 0);
	DC_ASSERT_INT_EQ(t, c->ret[2], 0);
	DC_ASSERT_INT_EQ(t, c->ret[3], 0);
	DC_ASSERT_EQ(t, c->rank[2], 0);
	DC_ASSERT_EQ(t, c->rank[3], 1);
	DC_ASSERT(t, !c->stuck);
	check_gated_counts(t, &st, 2, 1, 1, 2);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, st.handoffs, 2);
	DC_ASSERT_EQ(t, st.max_backlog, 2);
	gate_free(t, c);
}

#define STRESS_THREADS	6
#define STRESS_MAX	4

struct stress_ctx {
	struct dc_slot_table *tbl;
	dci_atomic_t out;
	dci_atomic_t max_seen;
	dci_atomic_t over;	/* times more than max were out */
	dci_atomic64_t gets, puts, refused;
	unsigned int iters;
	uint64_t seed;
};

static void stress_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct stress_ctx *c = arg;
	struct dc_test_rng rng;
	unsigned int i;

	dc_test_rng_init(&rng, c->seed + idx);
	for (i = 0; i < c->iters && !dc_test_failed(t); i++) {
		struct dc_slot *s;
		int ret, now, seen;

		switch (dc_test_below(&rng, 3)) {
		case 0:
			ret = dc_slot_get(c->tbl, &s);
			break;
		case 1:
			ret = dc_slot_tryget(c->tbl, &s);
			break;
		default:
			ret = dc_slot_get_timeout(c->tbl, 200000, &s);
			break;
		}
		if (ret) {
			DC_ASSERT(t, ret == -EAGAIN || ret == -ETIMEDOUT);
			dci_atomic64_inc(&c->refused);
			continue;
		}
		dci_atomic64_inc(&c->gets);
		dci_atomic_inc(&c->out);
		now = dci_atomic_read(&c->out);
		seen = dci_atomic_read(&c->max_seen);
		if (now > seen)
			dci_atomic_set(&c->max_seen, now);
		if (now > STRESS_MAX)
			dci_atomic_inc(&c->over);	/* checked at the end */
		if (!dc_test_below(&rng, 8))
			dc_test_sleep_us(0);
		dci_atomic_dec(&c->out);
		dc_slot_put(c->tbl, s);
		dci_atomic64_inc(&c->puts);
	}
}

DC_TEST(slots_threads_stress_invariants)
{
	struct stress_ctx *c = dc_test_alloc(sizeof(*c));
	struct dc_slot_table_stats st;

	DC_ASSERT(t, c != NULL);
	dci_atomic_set(&c->out, 0);
	dci_atomic_set(&c->max_seen, 0);
	dci_atomic_set(&c->over, 0);
	dci_atomic64_set(&c->gets, 0);
	dci_atomic64_set(&c->puts, 0);
	dci_atomic64_set(&c->refused, 0);
	c->iters = 3000 * dc_test_scale();
	c->seed = t->seed;
	if (table_new(1, STRESS_MAX, 0, NULL, NULL, &c->tbl)) {
		dc_test_free(c);
		DC_ASSERT(t, false);
	}
	dc_test_run_threads(t, STRESS_THREADS, stress_thread, c);
	dc_slot_table_stats(c->tbl, &st, sizeof(st));
	dc_test_log(t, "gets %llu refused %llu waits %llu handoffs %llu dyn %llu releases %llu max_backlog %u",
		    (unsigned long long)dci_atomic64_read(&c->gets),
		    (unsigned long long)dci_atomic64_read(&c->refused),
		    (unsigned long long)st.waits,
		    (unsigned long long)st.handoffs,
		    (unsigned long long)st.dynamic_allocs,
		    (unsigned long long)st.releases, st.max_backlog);
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(c->tbl), 0);
	if (!dc_test_failed(t)) {
		DC_ASSERT_EQ(t, dci_atomic64_read(&c->gets),
			     dci_atomic64_read(&c->puts));
		DC_ASSERT_EQ(t, dci_atomic64_read(&c->gets) +
			     dci_atomic64_read(&c->refused),
			     (uint64_t)c->iters * STRESS_THREADS);
		DC_ASSERT_EQ(t, dci_atomic_read(&c->over), 0);
		DC_ASSERT(t, dci_atomic_read(&c->max_seen) <= STRESS_MAX);
		DC_ASSERT_EQ(t, st.out, 0);
		DC_ASSERT_EQ(t, st.backlog, 0);
		DC_ASSERT_EQ(t, st.allocated, 1);
		DC_ASSERT_EQ(t, st.dynamic_allocs, st.releases);
		DC_ASSERT(t, st.waits >= st.handoffs);
	}
	dc_test_free(c);
}

DC_SUITE(slots,
	 DC_CASE(slots_bad_limits_and_busy_destroy),
	 DC_CASE(slots_min_preallocated_grow_to_max_release_above_min),
	 DC_CASE(slots_alloc_failure_joins_backlog),
	 DC_CASE(slots_ops_init_fini),
	 DC_CASE(slots_backlog_fifo_at_max),
	 DC_CASE(slots_backlog_fifo_after_alloc_failure),
	 DC_CASE(slots_failed_alloc_hands_over_to_waiter),
	 DC_CASE(slots_failed_retry_waits_again_first_in_line),
	 DC_CASE(slots_threads_stress_invariants));
