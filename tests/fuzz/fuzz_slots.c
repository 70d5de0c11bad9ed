// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_slots.c - the slot table against a model of its counts.
 *
 * The model knows how many slots exist and are out, and which slots are
 * free: each slot carries an id in its payload (0 until first used), so a
 * get must return a zeroed new slot exactly when the table had to allocate,
 * and otherwise one of the free slots with its payload intact.  Waits are
 * bounded: a get that would wait uses a short timeout, and the one blocking
 * case (a handoff) has a helper thread waiting for the slot we put.
 *
 * Failed allocations with waiters queued: the table's init op holds an
 * allocation that takes the last place below the maximum while helper
 * threads join the backlog, then fails it; the waiters' own allocations, if
 * the table hands them the failed one's place, fail or not as the input
 * says.  No waiter may be left with nothing out and nothing being
 * allocated (seen: they waited out their timeouts), and each must end with
 * a slot or -ENOMEM, as the model predicts.
 */
#include "fuzz.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/fault.h>
#include <daxcache/slots.h>

#define MAX_SLOTS	12
#define MAX_QUEUED	3

struct payload {
	struct dc_slot head;
	uint64_t id;
	unsigned char rest[24];
};

struct waiter {
	struct dc_slot_table *tbl;
	struct dc_slot *slot;
	int ret;
	bool done;
	bool put_back;			/* give the slot back at once */
};

struct sfz {
	struct dc_slot_table *tbl;
	/* the init op's script (see do_strand()) */
	bool hold_next;			/* hold the next allocation, then fail it */
	unsigned int nqueue;		/* waiters to queue meanwhile */
	unsigned int plan;		/* bit k: the k-th waiter allocation fails */
	unsigned int attempts;		/* waiter allocations so far */
	struct waiter queued[MAX_QUEUED];
	pthread_t tids[MAX_QUEUED];
	unsigned int min, max;
	bool tagged;			/* slots big enough for a payload */
	unsigned int handoffs_left;	/* threads are slow: a few per input */
	struct dc_slot *held[MAX_SLOTS];
	unsigned int nheld;
	uint64_t free_ids[MAX_SLOTS];	/* ids of the free slots */
	unsigned int nfree;
	uint64_t next_id;
	struct dc_slot_table_stats want;	/* the model's counters */
};

static const unsigned long sizes[] = {
	0, 1, sizeof(struct dc_slot) - 1, sizeof(struct dc_slot),
	sizeof(struct payload), sizeof(struct payload) + 13, 4096,
};

static void check_stats(struct sfz *s)
{
	struct dc_slot_table_stats st;

	dc_slot_table_stats(s->tbl, &st, sizeof(st));
	FZ_CHECK(st.allocated == s->want.allocated && st.out == s->want.out &&
		 st.backlog == 0 && st.retries == s->want.retries,
		 "allocated %u out %u backlog %u, model %u %u 0", st.allocated,
		 st.out, st.backlog, s->want.allocated, s->want.out);
	FZ_CHECK(st.dynamic_allocs == s->want.dynamic_allocs &&
		 st.alloc_failures == s->want.alloc_failures &&
		 st.releases == s->want.releases && st.waits == s->want.waits &&
		 st.handoffs == s->want.handoffs &&
		 st.timeouts == s->want.timeouts &&
		 st.max_backlog == s->want.max_backlog,
		 "counters: dyn %llu fail %llu rel %llu waits %llu hand %llu to %llu maxbl %u",
		 (unsigned long long)st.dynamic_allocs,
		 (unsigned long long)st.alloc_failures,
		 (unsigned long long)st.releases, (unsigned long long)st.waits,
		 (unsigned long long)st.handoffs, (unsigned long long)st.timeouts,
		 st.max_backlog);
	FZ_CHECK(s->want.out == s->nheld, "model out %u, held %u",
		 s->want.out, s->nheld);
}

/* Decode a config; a bad one must be refused, then a default one is used. */
static void *waiter_fn(void *arg);

/* Start a waiter and wait until the backlog holds @n callers. */
static void queue_waiter(struct sfz *s, struct waiter *w, pthread_t *tid,
			 unsigned int n)
{
	struct dc_slot_table_stats st;

	*w = (struct waiter){ .tbl = s->tbl, .put_back = true };
	FZ_CHECK(!pthread_create(tid, NULL, waiter_fn, w), "pthread_create");
	do {
		sched_yield();
		dc_slot_table_stats(s->tbl, &st, sizeof(st));
	} while (st.backlog < n && !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE));
	FZ_CHECK(!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE),
		 "waiter %u returned %d instead of queueing", n, w->ret);
}

/*
 * The init op.  Armed by do_strand(), it holds the allocation of the get
 * in progress while waiters queue behind it, then fails it; the waiters'
 * allocations (their turns, once it failed) follow the plan.
 */
static int fz_slot_init(struct dc_slot *slot, void *priv)
{
	struct sfz *s = priv;
	unsigned int k;

	(void)slot;
	if (__atomic_exchange_n(&s->hold_next, false, __ATOMIC_ACQ_REL)) {
		for (k = 0; k < s->nqueue; k++)
			queue_waiter(s, &s->queued[k], &s->tids[k], k + 1);
		return -ENOMEM;
	}
	if (!s->nqueue)
		return 0;
	k = __atomic_fetch_add(&s->attempts, 1, __ATOMIC_ACQ_REL);
	return k < 32 && (s->plan >> k) & 1 ? -ENOMEM : 0;
}

static const struct dc_slot_table_ops fz_slot_ops = { .init = fz_slot_init };

static void table_create(struct fz_in *in, struct sfz *s)
{
	unsigned int min = fz_below(in, 6), max = fz_below(in, 8);
	unsigned long size = sizes[fz_below(in, sizeof(sizes) / sizeof(sizes[0]))];
	unsigned long eff = size ? size : sizeof(struct dc_slot);
	bool bad = !max || min > max || eff < sizeof(struct dc_slot);
	struct dc_slot_table_config cfg = { 0 };
	int ret;

	cfg.min_slots = min;
	cfg.max_slots = max;
	cfg.slot_size = size;
	ret = dc_slot_table_create(&cfg, sizeof(cfg), &fz_slot_ops,
				   sizeof(fz_slot_ops), s, &s->tbl);
	if (bad) {
		FZ_CHECK(ret == -EINVAL && !s->tbl,
			 "create(%u, %u, %lu): %d, want -EINVAL", min, max, size, ret);
		min = 1;
		max = 4;
		eff = size = sizeof(struct payload);
		cfg.min_slots = min;
		cfg.max_slots = max;
		cfg.slot_size = size;
		ret = dc_slot_table_create(&cfg, sizeof(cfg), &fz_slot_ops,
					   sizeof(fz_slot_ops), s, &s->tbl);
	}
	FZ_CHECK(!ret && s->tbl, "create(%u, %u, %lu): %d", min, max, size, ret);
	s->min = min;
	s->max = max;
	s->tagged = eff >= sizeof(struct payload);
	s->nheld = 0;
	s->nfree = min;
	memset(s->free_ids, 0, sizeof(s->free_ids));
	memset(&s->want, 0, sizeof(s->want));
	s->want.allocated = min;
}

/* A get returned @slot; @fresh: the model says it was allocated now. */
static void got_slot(struct sfz *s, struct dc_slot *slot, bool fresh)
{
	struct payload *p = (struct payload *)slot;
	unsigned int i;

	FZ_CHECK(slot, "get succeeded without a slot");
	FZ_CHECK(s->nheld < MAX_SLOTS, "more slots out than the maximum");
	s->held[s->nheld++] = slot;
	s->want.out++;
	if (fresh) {
		s->want.allocated++;
		s->want.dynamic_allocs++;
	}
	if (!s->tagged)
		return;
	if (fresh) {
		static const unsigned char zero[sizeof(p->rest)];

		FZ_CHECK(p->id == 0 && !memcmp(p->rest, zero, sizeof(zero)),
			 "new slot not zeroed (id %llu)", (unsigned long long)p->id);
	} else {
		for (i = 0; i < s->nfree && s->free_ids[i] != p->id; i++)
			;
		FZ_CHECK(i < s->nfree, "reused slot id %llu was not free",
			 (unsigned long long)p->id);
		s->free_ids[i] = s->free_ids[--s->nfree];
	}
	if (!p->id) {
		p->id = ++s->next_id;
		memset(p->rest, (int)(p->id & 0xff), sizeof(p->rest));
	}
}

/* What the model expects a get to do now. */
enum outcome { REUSE, ALLOC, BLOCKED };

static enum outcome predict(const struct sfz *s)
{
	if (s->want.allocated > s->want.out)
		return REUSE;
	return s->want.allocated < s->max ? ALLOC : BLOCKED;
}

static void do_get(struct fz_in *in, struct sfz *s, unsigned int kind,
		   bool alloc_fails)
{
	static const uint64_t timeouts[] = { 0, 1000, 100000 };
	enum outcome o = predict(s);
	struct dc_slot *slot = NULL;
	bool failed = false;
	int ret;

	if (alloc_fails)
		dci_fault_alloc_fail_nth(1);
	if (kind == 0) {
		ret = dc_slot_tryget(s->tbl, &slot);
	} else if (kind == 1 && o != BLOCKED && !alloc_fails) {
		ret = dc_slot_get(s->tbl, &slot);
	} else {
		ret = dc_slot_get_timeout(s->tbl, timeouts[fz_below(in, 3)], &slot);
	}
	if (alloc_fails) {
		failed = dci_fault_alloc_failed();
		dci_fault_alloc_fail_nth(0);
		FZ_CHECK(failed == (o == ALLOC),
			 "allocation failed: %d, model outcome %d", failed, o);
	}
	if (o == REUSE || (o == ALLOC && !failed)) {
		FZ_CHECK(!ret, "get (kind %u, outcome %d): %d", kind, o, ret);
		got_slot(s, slot, o == ALLOC);
		return;
	}
	FZ_CHECK(!slot, "failed get left a slot");
	if (failed)
		s->want.alloc_failures++;
	if (kind == 0) {
		FZ_CHECK(ret == -EAGAIN, "tryget (outcome %d): %d", o, ret);
		return;
	}
	if (failed && !s->want.out) {
		FZ_CHECK(ret == -ENOMEM, "get with nothing out: %d", ret);
		return;
	}
	FZ_CHECK(ret == -ETIMEDOUT, "get_timeout (outcome %d): %d", o, ret);
	s->want.waits++;
	s->want.timeouts++;
	if (!s->want.max_backlog)
		s->want.max_backlog = 1;
}

/* A slot back on the free list (or released), as do_put() counts it. */
static void slot_back(struct sfz *s, uint64_t id)
{
	if (s->want.allocated > s->min) {
		s->want.allocated--;
		s->want.releases++;
	} else if (s->tagged) {
		s->free_ids[s->nfree++] = id;
	} else {
		s->nfree++;
	}
}

static void do_put(struct sfz *s, unsigned int k)
{
	struct dc_slot *slot;
	uint64_t id;

	if (!s->nheld)
		return;
	k %= s->nheld;
	slot = s->held[k];
	s->held[k] = s->held[--s->nheld];
	id = s->tagged ? ((struct payload *)slot)->id : 0;
	dc_slot_put(s->tbl, slot);	/* may free it */
	s->want.out--;
	slot_back(s, id);
}

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;

	w->ret = dc_slot_get_timeout(w->tbl, 30ull * 1000000000ull, &w->slot);
	if (!w->ret && w->put_back)
		dc_slot_put(w->tbl, w->slot);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The allocation this get makes takes the last place below the maximum and
 * is held in the init op while @n waiters queue behind it; then it fails.
 * With nothing out, the table must hand its place to the first waiter,
 * whose allocation fails or not as @plan says, and so on down the line;
 * the waiter that gets a slot puts it back, for the next ones.  With slots
 * out (a tryget then, which does not wait itself), the waiters wait for
 * one of ours, which we put.
 */
static void do_strand(struct fz_in *in, struct sfz *s, uint8_t op)
{
	unsigned int n = 1 + fz_below(in, MAX_QUEUED), plan = fz_u8(in);
	bool tryget = (op >> 4) & 1 || s->want.out, got = false;
	struct dc_slot *slot = NULL;
	struct dc_slot_table_stats st;
	unsigned int k;
	uint64_t id;
	int ret;

	if (predict(s) != ALLOC || s->want.allocated + 1 != s->max ||
	    !s->handoffs_left)
		return;
	s->handoffs_left--;
	s->nqueue = n;
	s->plan = plan;
	s->attempts = 0;
	__atomic_store_n(&s->hold_next, true, __ATOMIC_RELEASE);
	if (tryget)
		ret = dc_slot_tryget(s->tbl, &slot);
	else
		ret = dc_slot_get(s->tbl, &slot);
	FZ_CHECK(ret == (tryget ? -EAGAIN : -ENOMEM) && !slot,
		 "get whose allocation failed with %u waiting: %d", n, ret);
	/* Now, not after a timeout: is anyone left for nobody to wake? */
	dc_slot_table_stats(s->tbl, &st, sizeof(st));
	FZ_CHECK(!st.backlog || st.out || st.allocated > st.out,
		 "%u waiters stranded: allocated %u, out %u, after a failed allocation",
		 st.backlog, st.allocated, st.out);
	s->want.alloc_failures++;
	s->want.waits += n;
	if (s->want.max_backlog < n)
		s->want.max_backlog = n;
	if (s->want.out) {
		/* Ours goes down the line of waiters and comes back. */
		k = fz_u8(in) % s->nheld;
		slot = s->held[k];
		s->held[k] = s->held[--s->nheld];
		s->want.out--;
		id = s->tagged ? ((struct payload *)slot)->id : 0;
		dc_slot_put(s->tbl, slot);
		for (k = 0; k < n; k++) {
			pthread_join(s->tids[k], NULL);
			FZ_CHECK(!s->queued[k].ret && s->queued[k].slot == slot,
				 "waiter %u: %d, slot %p, put %p", k,
				 s->queued[k].ret, (void *)s->queued[k].slot,
				 (void *)slot);
		}
		s->want.handoffs += n;
		slot_back(s, id);	/* the last waiter's put may have freed it */
	} else {
		/* Each waiter in turn allocates, until one succeeds. */
		for (k = 0; k < n; k++) {
			pthread_join(s->tids[k], NULL);
			if (got) {
				FZ_CHECK(!s->queued[k].ret, "waiter %u after the slot: %d",
					 k, s->queued[k].ret);
				s->want.handoffs++;
				continue;
			}
			s->want.retries++;
			if ((plan >> k) & 1) {
				FZ_CHECK(s->queued[k].ret == -ENOMEM,
					 "waiter %u, allocation failed: %d", k,
					 s->queued[k].ret);
				s->want.alloc_failures++;
				continue;
			}
			FZ_CHECK(!s->queued[k].ret, "waiter %u, allocation passed: %d",
				 k, s->queued[k].ret);
			got = true;
			s->want.dynamic_allocs++;
			s->want.allocated++;
		}
		if (got)
			slot_back(s, 0);	/* new, never tagged */
	}
	s->nqueue = 0;
}

/* With the table full: a thread waits, our put hands it the slot. */
static void do_handoff(struct sfz *s, unsigned int k)
{
	struct waiter w = { .tbl = s->tbl };
	struct dc_slot_table_stats st;
	struct dc_slot *slot;
	pthread_t tid;

	if (predict(s) != BLOCKED || !s->nheld || !s->handoffs_left)
		return;
	s->handoffs_left--;
	FZ_CHECK(!pthread_create(&tid, NULL, waiter_fn, &w), "pthread_create");
	do {
		sched_yield();
		dc_slot_table_stats(s->tbl, &st, sizeof(st));
	} while (!st.backlog && !__atomic_load_n(&w.done, __ATOMIC_ACQUIRE));
	if (__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
		pthread_join(tid, NULL);
		fz_fail(__FILE__, __LINE__, "waiter on a full table returned %d", w.ret);
	}
	k %= s->nheld;
	slot = s->held[k];
	s->held[k] = s->held[--s->nheld];
	dc_slot_put(s->tbl, slot);
	pthread_join(tid, NULL);
	FZ_CHECK(!w.ret && w.slot == slot, "waiter: %d, slot %p, put %p",
		 w.ret, (void *)w.slot, (void *)slot);
	s->held[s->nheld++] = slot;
	s->want.waits++;
	s->want.handoffs++;
	if (!s->want.max_backlog)
		s->want.max_backlog = 1;
}

static void table_destroy(struct sfz *s)
{
	while (s->nheld)
		do_put(s, 0);
	FZ_CHECK(!dc_slot_table_destroy(s->tbl), "destroy with nothing out");
	s->tbl = NULL;
}

void fz_slots(struct fz_in *in)
{
	struct sfz *s = calloc(1, sizeof(*s));
	struct dc_slot_table_config bad_cfg = { .min_slots = 2, .max_slots = 1 };
	struct dc_slot_table *bad = (struct dc_slot_table *)1;

	FZ_CHECK(s, "out of memory");
	s->handoffs_left = 2;
	FZ_CHECK(dc_slot_table_create(&bad_cfg, sizeof(bad_cfg), NULL, 0, NULL,
				      &bad) == -EINVAL && !bad,
		 "create with min > max");
	FZ_CHECK(!dc_slot_table_destroy(NULL), "destroy(NULL)");
	table_create(in, s);
	check_stats(s);
	while (fz_more(in)) {
		uint8_t op = fz_u8(in);

		switch (op % 8) {
		case 0:
		case 1:
		case 2:
			do_get(in, s, op % 3, false);
			break;
		case 3:
		case 4:
			do_put(s, fz_u8(in));
			break;
		case 5:
			do_get(in, s, (op >> 3) % 3, true);
			break;
		case 6:
			if ((op >> 3) & 1)
				do_strand(in, s, op);
			else
				do_handoff(s, fz_u8(in));
			break;
		default:
			if (s->nheld) {
				FZ_CHECK(dc_slot_table_destroy(s->tbl) == -EBUSY,
					 "destroy with %u slots out", s->nheld);
				break;
			}
			table_destroy(s);
			table_create(in, s);
			break;
		}
		check_stats(s);
	}
	table_destroy(s);
	free(s);
}
