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

struct payload {
	struct dc_slot head;
	uint64_t id;
	unsigned char rest[24];
};

struct sfz {
	struct dc_slot_table *tbl;
	unsigned int min, max;
	bool tagged;			/* slots big enough for a payload */
	unsigned int handoffs_left;	/* threads are slow: a few per input */
	struct dc_slot *held[MAX_SLOTS];
	unsigned int nheld;
	uint64_t free_ids[MAX_SLOTS];	/* ids of the free slots */
	unsigned int nfree;
	uint64_t next_id;
	struct dc_slot_stats want;	/* the model's counters */
};

static const unsigned long sizes[] = {
	0, 1, sizeof(struct dc_slot) - 1, sizeof(struct dc_slot),
	sizeof(struct payload), sizeof(struct payload) + 13, 4096,
};

static void check_stats(struct sfz *s)
{
	struct dc_slot_stats st;

	dc_slot_table_stats(s->tbl, &st);
	FZ_CHECK(st.allocated == s->want.allocated && st.out == s->want.out &&
		 st.backlog == 0,
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
static void table_create(struct fz_in *in, struct sfz *s)
{
	unsigned int min = fz_below(in, 6), max = fz_below(in, 8);
	unsigned long size = sizes[fz_below(in, sizeof(sizes) / sizeof(sizes[0]))];
	unsigned long eff = size ? size : sizeof(struct dc_slot);
	bool bad = !max || min > max || eff < sizeof(struct dc_slot);
	int ret;

	ret = dc_slot_table_create(min, max, size, &s->tbl);
	if (bad) {
		FZ_CHECK(ret == -EINVAL && !s->tbl,
			 "create(%u, %u, %lu): %d, want -EINVAL", min, max, size, ret);
		min = 1;
		max = 4;
		eff = size = sizeof(struct payload);
		ret = dc_slot_table_create(min, max, size, &s->tbl);
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
		dc_fault_alloc_fail_nth(1);
	if (kind == 0) {
		ret = dc_slot_tryget(s->tbl, &slot);
	} else if (kind == 1 && o != BLOCKED && !alloc_fails) {
		ret = dc_slot_get(s->tbl, &slot);
	} else {
		ret = dc_slot_get_timeout(s->tbl, timeouts[fz_below(in, 3)], &slot);
	}
	if (alloc_fails) {
		failed = dc_fault_alloc_failed();
		dc_fault_alloc_fail_nth(0);
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

static void do_put(struct sfz *s, unsigned int k)
{
	struct dc_slot *slot;

	if (!s->nheld)
		return;
	k %= s->nheld;
	slot = s->held[k];
	s->held[k] = s->held[--s->nheld];
	dc_slot_put(s->tbl, slot);
	s->want.out--;
	if (s->want.allocated > s->min) {
		s->want.allocated--;
		s->want.releases++;
	} else if (s->tagged) {
		s->free_ids[s->nfree++] = ((struct payload *)slot)->id;
	} else {
		s->nfree++;
	}
}

struct waiter {
	struct dc_slot_table *tbl;
	struct dc_slot *slot;
	int ret;
	bool done;
};

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;

	w->ret = dc_slot_get_timeout(w->tbl, 30ull * 1000000000ull, &w->slot);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* With the table full: a thread waits, our put hands it the slot. */
static void do_handoff(struct sfz *s, unsigned int k)
{
	struct waiter w = { .tbl = s->tbl };
	struct dc_slot_stats st;
	struct dc_slot *slot;
	pthread_t tid;

	if (predict(s) != BLOCKED || !s->nheld || !s->handoffs_left)
		return;
	s->handoffs_left--;
	FZ_CHECK(!pthread_create(&tid, NULL, waiter_fn, &w), "pthread_create");
	do {
		sched_yield();
		dc_slot_table_stats(s->tbl, &st);
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
	struct dc_slot_table *bad = (struct dc_slot_table *)1;

	FZ_CHECK(s, "out of memory");
	s->handoffs_left = 2;
	FZ_CHECK(dc_slot_table_create(2, 1, 0, &bad) == -EINVAL && !bad,
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
