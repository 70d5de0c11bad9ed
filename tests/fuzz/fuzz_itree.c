// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_itree.c - interval tree operations checked against a reference
 * model: a sorted array of intervals.  After every operation the tree's
 * count and a full walk (first + next) must equal the model.
 *
 * Ops (one byte each, then their arguments): insert, remove, lookup,
 * range walk, insert or remove with an allocation failing, lookups inside a
 * read-side section, a run of inserts (so that nodes split and the tree
 * grows levels), removal of every k-th interval, remove everything.
 */
#include "fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/fault.h>
#include <daxcache/itree.h>
#include <daxcache/thread.h>

#define MODEL_MAX	512	/* intervals the model holds at most */
#define SMALL		96	/* most bounds fall below this, so they collide */

struct ival {
	uint64_t start, last;
	void *item;
};

struct model {
	struct ival iv[MODEL_MAX];
	unsigned int n;
};

/* Distinct non-NULL items. */
static char tokens[256];

/* Index of the first interval with start >= @x. */
static unsigned int m_ceil(const struct model *m, uint64_t x)
{
	unsigned int lo = 0, hi = m->n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (m->iv[mid].start < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the interval containing @x, or -1. */
static int m_find(const struct model *m, uint64_t x)
{
	unsigned int i;

	for (i = 0; i < m->n; i++)
		if (m->iv[i].start <= x && x <= m->iv[i].last)
			return (int)i;
	return -1;
}

static int m_insert(struct model *m, uint64_t start, uint64_t last, void *item)
{
	unsigned int i, at;

	if (start > last || !item)
		return -EINVAL;
	for (i = 0; i < m->n; i++)
		if (m->iv[i].start <= last && start <= m->iv[i].last)
			return -EEXIST;
	at = m_ceil(m, start);
	memmove(&m->iv[at + 1], &m->iv[at], (m->n - at) * sizeof(m->iv[0]));
	m->iv[at] = (struct ival){ start, last, item };
	m->n++;
	return 0;
}

static int m_remove(struct model *m, uint64_t start, void **item)
{
	unsigned int at = m_ceil(m, start);

	if (at == m->n || m->iv[at].start != start)
		return -ENOENT;
	*item = m->iv[at].item;
	memmove(&m->iv[at], &m->iv[at + 1], (m->n - at - 1) * sizeof(m->iv[0]));
	m->n--;
	return 0;
}

/*
 * The tree equals the model: count, and a walk over everything (for big
 * trees only every 16th op, or the walks would make the inputs slow).
 */
static void check_all(const struct dc_itree *t, const struct model *m,
		      unsigned int nop)
{
	struct dc_itree_entry e;
	unsigned int i = 0;
	bool have;

	FZ_CHECK(dc_itree_count(t) == m->n, "count %zu, model %u",
		 dc_itree_count(t), m->n);
	if (m->n > 32 && nop % 16)
		return;
	for (have = dc_itree_first(t, 0, UINT64_MAX, &e); have;
	     have = dc_itree_next(t, &e, UINT64_MAX), i++) {
		FZ_CHECK(i < m->n, "walk returns more than the model's %u", m->n);
		FZ_CHECK(e.start == m->iv[i].start && e.last == m->iv[i].last &&
			 e.item == m->iv[i].item,
			 "walk #%u: [%#llx, %#llx] %p, model [%#llx, %#llx] %p", i,
			 (unsigned long long)e.start, (unsigned long long)e.last,
			 e.item, (unsigned long long)m->iv[i].start,
			 (unsigned long long)m->iv[i].last, m->iv[i].item);
	}
	FZ_CHECK(i == m->n, "walk returned %u of %u", i, m->n);
}

static void check_lookup(const struct dc_itree *t, const struct model *m,
			 uint64_t x)
{
	struct dc_itree_entry e;
	int k = m_find(m, x);
	void *it = dc_itree_lookup(t, x);
	bool found = dc_itree_lookup_entry(t, x, &e);

	if (k < 0) {
		FZ_CHECK(!it && !found, "lookup %#llx found %p, model none",
			 (unsigned long long)x, it);
		return;
	}
	FZ_CHECK(it == m->iv[k].item, "lookup %#llx: %p, model %p",
		 (unsigned long long)x, it, m->iv[k].item);
	FZ_CHECK(found && e.start == m->iv[k].start && e.last == m->iv[k].last &&
		 e.item == it, "lookup_entry %#llx", (unsigned long long)x);
}

/* Walk [a, b] with first/next and compare with the model. */
static void check_walk(const struct dc_itree *t, const struct model *m,
		       uint64_t a, uint64_t b)
{
	struct dc_itree_entry e;
	unsigned int i;
	bool have;

	/* Model: the first interval ending at or after a, if it starts <= b. */
	for (i = 0; i < m->n && m->iv[i].last < a; i++)
		;
	have = dc_itree_first(t, a, b, &e);
	if (a > b || i == m->n || m->iv[i].start > b) {
		FZ_CHECK(!have, "first(%#llx, %#llx) found [%#llx, %#llx]",
			 (unsigned long long)a, (unsigned long long)b,
			 (unsigned long long)e.start, (unsigned long long)e.last);
		return;
	}
	for (; have; have = dc_itree_next(t, &e, b), i++) {
		FZ_CHECK(i < m->n && m->iv[i].start <= b,
			 "walk of [%#llx, %#llx] past the model",
			 (unsigned long long)a, (unsigned long long)b);
		FZ_CHECK(e.start == m->iv[i].start && e.item == m->iv[i].item,
			 "walk of [%#llx, %#llx] #%u: start %#llx, model %#llx",
			 (unsigned long long)a, (unsigned long long)b, i,
			 (unsigned long long)e.start,
			 (unsigned long long)m->iv[i].start);
	}
	FZ_CHECK(i == m->n || m->iv[i].start > b,
		 "walk of [%#llx, %#llx] stopped early at #%u",
		 (unsigned long long)a, (unsigned long long)b, i);
}

static void do_insert(struct fz_in *in, struct dc_itree *t, struct model *m,
		      unsigned long fail_nth)
{
	uint64_t start = fz_num(in, SMALL), span = fz_num(in, 8), last;
	uint8_t k = fz_u8(in);
	void *item = k == 255 ? NULL : &tokens[k];
	int want, ret;

	/* Mostly start + span (saturated); span's top values give start > last. */
	last = span > UINT64_MAX - start ? UINT64_MAX : start + span;
	if ((span & 0xff) == 0xfe && start)
		last = start - 1;
	if (m->n == MODEL_MAX)
		return;
	if (fail_nth)
		dci_fault_alloc_fail_nth(fail_nth);
	ret = dc_itree_insert(t, start, last, item);
	if (fail_nth) {
		bool failed = dci_fault_alloc_failed();

		dci_fault_alloc_fail_nth(0);
		if (ret == -ENOMEM) {
			FZ_CHECK(failed, "-ENOMEM without a failed allocation");
			return;		/* the tree must be unchanged: check_all */
		}
	}
	want = m_insert(m, start, last, item);
	FZ_CHECK(ret == want, "insert [%#llx, %#llx] %p: %d, model %d",
		 (unsigned long long)start, (unsigned long long)last, item,
		 ret, want);
}

static void do_remove(struct fz_in *in, struct dc_itree *t, struct model *m,
		      unsigned long fail_nth)
{
	uint8_t how = fz_u8(in);
	uint64_t start;
	void *got = NULL, *want_item = NULL;
	int ret, want;

	if (m->n && (how & 1))
		start = m->iv[fz_below(in, m->n)].start;
	else
		start = fz_num(in, SMALL);
	/* Removal never fails for memory: a failed allocation changes nothing. */
	if (fail_nth)
		dci_fault_alloc_fail_nth(fail_nth);
	ret = dc_itree_remove(t, start, (how & 2) ? NULL : &got);
	if (fail_nth)
		dci_fault_alloc_fail_nth(0);
	want = m_remove(m, start, &want_item);
	FZ_CHECK(ret == want, "remove %#llx: %d, model %d",
		 (unsigned long long)start, ret, want);
	if (!ret && !(how & 2))
		FZ_CHECK(got == want_item, "remove %#llx gave %p, model %p",
			 (unsigned long long)start, got, want_item);
}

/* Insert a run of intervals base + k * stride, each [s, s + span]. */
static void do_run(struct fz_in *in, struct dc_itree *t, struct model *m)
{
	unsigned int n = 8 + fz_below(in, 120), stride = 1 + fz_below(in, 8), k;
	unsigned int span = fz_below(in, stride);
	uint64_t base = fz_num(in, 1u << 16);
	uint8_t tok = fz_u8(in);

	for (k = 0; k < n && m->n < MODEL_MAX; k++) {
		uint64_t start = base + (uint64_t)k * stride, last = start + span;
		void *item = &tokens[(uint8_t)(tok + k) % 255];
		int ret, want;

		if (start < base || last < start)
			break;		/* wrapped past UINT64_MAX */
		ret = dc_itree_insert(t, start, last, item);
		want = m_insert(m, start, last, item);
		FZ_CHECK(ret == want, "run insert [%#llx, %#llx]: %d, model %d",
			 (unsigned long long)start, (unsigned long long)last, ret, want);
	}
}

/* Remove every k-th interval, from a chosen phase. */
static void do_thin(struct fz_in *in, struct dc_itree *t, struct model *m)
{
	unsigned int every = 1 + fz_below(in, 4), phase = fz_below(in, every);
	unsigned int j, kept = 0, n = m->n;
	void *item;
	int ret;

	for (j = 0; j < n; j++) {
		struct ival iv = m->iv[j];

		if (j % every != phase) {
			m->iv[kept++] = iv;
			continue;
		}
		ret = dc_itree_remove(t, iv.start, &item);
		FZ_CHECK(!ret && item == iv.item, "thin: remove %#llx: %d",
			 (unsigned long long)iv.start, ret);
	}
	m->n = kept;
}

void fz_itree(struct fz_in *in)
{
	struct dc_itree *t;
	unsigned int nop;
	struct model *m;
	void *item;
	int ret;

	m = calloc(1, sizeof(*m));
	FZ_CHECK(m, "out of memory");
	FZ_CHECK(dc_itree_create(NULL) == -EINVAL, "create(NULL)");
	ret = dc_itree_create(&t);
	FZ_CHECK(!ret, "create: %d", ret);
	for (nop = 1; fz_more(in); nop++) {
		uint8_t op = fz_u8(in);

		switch (op % 8) {
		case 0:
		case 1:
			do_insert(in, t, m, 0);
			break;
		case 2:
			do_remove(in, t, m, 0);
			break;
		case 3: {
			uint64_t x = fz_num(in, SMALL);

			check_lookup(t, m, x);
			if (x)
				check_lookup(t, m, x - 1);
			if (x != UINT64_MAX)
				check_lookup(t, m, x + 1);
			break;
		}
		case 4: {
			uint64_t a = fz_num(in, SMALL), b = fz_num(in, SMALL);

			check_walk(t, m, a, b);
			break;
		}
		case 5:
			/* An allocation fails: -ENOMEM and no change, or success. */
			if (op & 0x80)
				do_remove(in, t, m, 1 + fz_below(in, 4));
			else
				do_insert(in, t, m, 1 + fz_below(in, 4));
			break;
		case 6: {
			/* Lookups as a reader would make them. */
			unsigned int i, nr = 1 + fz_below(in, 4);

			dc_read_lock();
			for (i = 0; i < nr; i++)
				check_lookup(t, m, fz_num(in, SMALL));
			dc_read_unlock();
			break;
		}
		default:
			if ((op & 0xf0) == 0x70) {
				do_thin(in, t, m);
				break;
			}
			if ((op & 0xf0) != 0xf0) {
				do_run(in, t, m);
				break;
			}
			/* Remove everything, from the back. */
			while (m->n) {
				uint64_t start = m->iv[m->n - 1].start;

				ret = dc_itree_remove(t, start, &item);
				FZ_CHECK(!ret && item == m->iv[m->n - 1].item,
					 "remove %#llx: %d", (unsigned long long)start, ret);
				m->n--;
			}
			break;
		}
		check_all(t, m, nop);
	}
	check_all(t, m, 0);
	dc_itree_destroy(t);
	/*
	 * The nodes are freed through RCU callbacks: wait for them, so that
	 * each input frees what it allocated (libFuzzer runs a leak check
	 * after any input that did not, and stops checking after 1000).
	 */
	dc_barrier();
	free(m);
}
