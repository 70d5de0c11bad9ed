// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * itree_cases.c - interval tree cases: API contract, boundaries, a
 * differential run against a reference model, allocation failures, and
 * lockless readers racing a writer.
 */
#include "dc_test.h"

#include <daxcache/fault.h>

#include "itree_internal.h"

/* Items are fake pointers that encode the interval start: never dereferenced. */
static void *item_of(uint64_t start)
{
	return (void *)(uintptr_t)((start << 1) | 1);
}

DC_TEST(itree_api)
{
	struct dc_itree *tree;
	struct dc_itree_entry e;
	void *item = NULL;

	DC_ASSERT_INT_EQ(t, dc_itree_create(NULL), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_itree_create(&tree), 0);
	DC_ASSERT(t, dc_itree_lookup(tree, 0) == NULL);
	DC_ASSERT(t, !dc_itree_first(tree, 0, UINT64_MAX, &e));
	DC_ASSERT_INT_EQ(t, dc_itree_remove(tree, 5, NULL), -ENOENT);

	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 10, 9, item_of(10)), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 10, 20, NULL), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 10, 20, item_of(10)), 0);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 30, 30, item_of(30)), 0);
	/* Every kind of overlap is refused. */
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 10, 20, item_of(1)), -EEXIST);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 5, 10, item_of(1)), -EEXIST);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 20, 25, item_of(1)), -EEXIST);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 12, 13, item_of(1)), -EEXIST);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 0, 100, item_of(1)), -EEXIST);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 25, 30, item_of(1)), -EEXIST);
	DC_ASSERT_EQ(t, dc_itree_count(tree), 2);
	/* Neighbours that touch but do not overlap are fine. */
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 21, 29, item_of(21)), 0);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 0, 9, item_of(0)), 0);

	DC_ASSERT(t, dc_itree_lookup(tree, 9) == item_of(0));
	DC_ASSERT(t, dc_itree_lookup(tree, 10) == item_of(10));
	DC_ASSERT(t, dc_itree_lookup(tree, 20) == item_of(10));
	DC_ASSERT(t, dc_itree_lookup(tree, 21) == item_of(21));
	DC_ASSERT(t, dc_itree_lookup(tree, 31) == NULL);
	DC_ASSERT(t, dc_itree_lookup_entry(tree, 15, &e));
	DC_ASSERT_EQ(t, e.start, 10);
	DC_ASSERT_EQ(t, e.last, 20);

	/* Removal is by exact start. */
	DC_ASSERT_INT_EQ(t, dc_itree_remove(tree, 11, NULL), -ENOENT);
	DC_ASSERT_INT_EQ(t, dc_itree_remove(tree, 10, &item), 0);
	DC_ASSERT(t, item == item_of(10));
	DC_ASSERT(t, dc_itree_lookup(tree, 15) == NULL);
	DC_ASSERT_INT_EQ(t, dc_itree_remove(tree, 10, NULL), -ENOENT);
	DC_ASSERT_EQ(t, dc_itree_count(tree), 3);

	/* Iteration over [5, 25]: [0,9] and [21,29] overlap it. */
	DC_ASSERT(t, dc_itree_first(tree, 5, 25, &e));
	DC_ASSERT_EQ(t, e.start, 0);
	DC_ASSERT(t, dc_itree_next(tree, &e, 25));
	DC_ASSERT_EQ(t, e.start, 21);
	DC_ASSERT(t, !dc_itree_next(tree, &e, 25));
	DC_ASSERT(t, !dc_itree_first(tree, 10, 20, &e));
	DC_ASSERT(t, !dc_itree_first(tree, 25, 5, &e));
	dc_itree_destroy(tree);
	dc_itree_destroy(NULL);
}

DC_TEST(itree_boundaries)
{
	struct dc_itree *tree;
	struct dc_itree_entry e;

	DC_ASSERT_INT_EQ(t, dc_itree_create(&tree), 0);
	/* The whole index space as one interval. */
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 0, UINT64_MAX, item_of(7)), 0);
	DC_ASSERT(t, dc_itree_lookup(tree, 0) == item_of(7));
	DC_ASSERT(t, dc_itree_lookup(tree, UINT64_MAX) == item_of(7));
	DC_ASSERT(t, dc_itree_lookup(tree, UINT64_MAX / 2) == item_of(7));
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, UINT64_MAX, UINT64_MAX,
					    item_of(1)), -EEXIST);
	DC_ASSERT(t, dc_itree_first(tree, UINT64_MAX, UINT64_MAX, &e));
	DC_ASSERT_EQ(t, e.last, UINT64_MAX);
	DC_ASSERT(t, !dc_itree_next(tree, &e, UINT64_MAX));
	DC_ASSERT_INT_EQ(t, dc_itree_remove(tree, 0, NULL), 0);
	DC_ASSERT_EQ(t, dc_itree_count(tree), 0);

	/* Single points at both ends. */
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 0, 0, item_of(0)), 0);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, UINT64_MAX, UINT64_MAX,
					    item_of(2)), 0);
	DC_ASSERT(t, dc_itree_lookup(tree, 0) == item_of(0));
	DC_ASSERT(t, dc_itree_lookup(tree, 1) == NULL);
	DC_ASSERT(t, dc_itree_lookup(tree, UINT64_MAX - 1) == NULL);
	DC_ASSERT(t, dc_itree_lookup(tree, UINT64_MAX) == item_of(2));
	DC_ASSERT(t, dc_itree_first(tree, 0, UINT64_MAX, &e));
	DC_ASSERT_EQ(t, e.start, 0);
	DC_ASSERT(t, dc_itree_next(tree, &e, UINT64_MAX));
	DC_ASSERT_EQ(t, e.start, UINT64_MAX);
	DC_ASSERT(t, !dc_itree_next(tree, &e, UINT64_MAX));
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 1, UINT64_MAX - 1, item_of(1)), 0);
	DC_ASSERT(t, dc_itree_lookup(tree, 1234567) == item_of(1));
	DC_ASSERT_EQ(t, dc_itree_count(tree), 3);
	dc_itree_destroy(tree);
}

/*
 * A tree four levels high (the lookups' prefetching path), the greatest
 * point in a deep tree, and an interval that reaches past the separator of
 * its leaf: a point beyond the separator routes to the next leaf, which
 * holds no start at or below it.
 */
DC_TEST(itree_deep_lookups)
{
	const uint64_t n = 5000, stride = 10;
	struct dc_itree *tree;
	struct dc_itree_entry e;
	uint64_t k, s;

	DC_ASSERT_INT_EQ(t, dc_itree_create(&tree), 0);
	/* Ascending inserts leave full nodes: 16 starts a leaf. */
	for (k = 0; k < n; k++)
		DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, k * stride,
						    k * stride + 1,
						    item_of(k * stride)), 0);
	DC_RETURN_IF_FAILED(t);
	for (k = 0; k < n; k++) {
		s = k * stride;
		DC_ASSERT(t, dc_itree_lookup(tree, s) == item_of(s));
		DC_ASSERT(t, dc_itree_lookup(tree, s + 1) == item_of(s));
		DC_ASSERT(t, dc_itree_lookup(tree, s + 2) == NULL);
		DC_RETURN_IF_FAILED(t);
	}
	DC_ASSERT(t, dc_itree_lookup(tree, UINT64_MAX) == NULL);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, n * stride, UINT64_MAX,
					    item_of(n * stride)), 0);
	DC_ASSERT(t, dc_itree_lookup(tree, UINT64_MAX) == item_of(n * stride));
	DC_ASSERT(t, dc_itree_lookup_entry(tree, UINT64_MAX, &e));
	DC_ASSERT_EQ(t, e.start, n * stride);

	/*
	 * 160 starts the second leaf and is its separator.  Without it,
	 * [155, 165] goes into the first leaf and covers points that route
	 * to the second one.
	 */
	DC_ASSERT_INT_EQ(t, dc_itree_remove(tree, 160, NULL), 0);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 155, 165, item_of(155)), 0);
	for (s = 155; s <= 165; s++)
		DC_ASSERT(t, dc_itree_lookup(tree, s) == item_of(155));
	DC_ASSERT(t, dc_itree_lookup(tree, 166) == NULL);
	DC_ASSERT(t, dc_itree_lookup(tree, 170) == item_of(170));
	DC_ASSERT(t, dc_itree_first(tree, 162, 200, &e));
	DC_ASSERT_EQ(t, e.start, 155);
	/* The same past the separator of an inner node (16 leaves on). */
	DC_ASSERT_INT_EQ(t, dc_itree_remove(tree, 2560, NULL), 0);
	DC_ASSERT(t, dc_itree_lookup(tree, 2560) == NULL);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 2555, 2565, item_of(2555)), 0);
	DC_ASSERT(t, dc_itree_lookup(tree, 2563) == item_of(2555));
	DC_ASSERT(t, dc_itree_lookup(tree, 2566) == NULL);
	dc_itree_destroy(tree);
}

/*
 * Reference model: owner[x] is the start (relative to the window base) of
 * the interval covering base + x, or -1.  Intervals stay inside the window.
 */
#define MODEL_SPAN	65536u
#define MODEL_MAXLEN	24u

struct model {
	uint64_t base;
	int32_t *owner;
	size_t count;
};

static bool model_free(const struct model *m, uint32_t s, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (m->owner[s + i] >= 0)
			return false;
	return true;
}

static void model_set(struct model *m, uint32_t s, uint32_t len, int32_t v)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		m->owner[s + i] = v;
}

/* The interval of the model containing x: its relative start and length. */
static bool model_at(const struct model *m, uint32_t x, uint32_t *s, uint32_t *len)
{
	uint32_t e;

	if (m->owner[x] < 0)
		return false;
	*s = (uint32_t)m->owner[x];
	for (e = *s; e < MODEL_SPAN && m->owner[e] == m->owner[x]; e++)
		;
	*len = e - *s;
	return true;
}

/* Iterate [a, b] in the tree and compare with the model. */
static void check_range(struct dc_test *t, struct dc_itree *tree,
			const struct model *m, uint32_t a, uint32_t b)
{
	struct dc_itree_entry e;
	uint32_t x = a, s, len;
	bool more;

	/* The first model interval overlapping [a, b]. */
	while (x <= b && m->owner[x] < 0)
		x++;
	more = dc_itree_first(tree, m->base + a, m->base + b, &e);
	while (x <= b) {
		DC_ASSERT(t, model_at(m, x, &s, &len));
		DC_ASSERT(t, more);
		DC_ASSERT_EQ(t, e.start, m->base + s);
		DC_ASSERT_EQ(t, e.last, m->base + s + len - 1);
		DC_ASSERT(t, e.item == item_of(m->base + s));
		for (x = s + len; x <= b && m->owner[x] < 0; x++)
			;
		more = dc_itree_next(tree, &e, m->base + b);
	}
	DC_ASSERT(t, !more);
}

static void differential_run(struct dc_test *t, uint64_t base, unsigned int ops)
{
	struct dc_test_rng rng;
	struct dc_itree *tree;
	struct model m = { .base = base };
	unsigned int i;

	dc_test_rng_init(&rng, t->seed ^ base);
	m.owner = dc_test_alloc(MODEL_SPAN * sizeof(*m.owner));
	DC_ASSERT(t, m.owner);
	model_set(&m, 0, MODEL_SPAN, -1);
	DC_ASSERT_INT_EQ(t, dc_itree_create(&tree), 0);

	for (i = 0; i < ops && !dc_test_failed(t); i++) {
		unsigned int op = (unsigned int)dc_test_below(&rng, 100);
		uint32_t len = 1 + (uint32_t)dc_test_below(&rng, MODEL_MAXLEN);
		uint32_t s = (uint32_t)dc_test_below(&rng, MODEL_SPAN - len + 1);
		uint32_t ms, mlen;
		unsigned long failed;
		void *item;
		int ret;

		if (op < 45) {
			bool fail = dc_test_below(&rng, 50) == 0;
			bool ok = model_free(&m, s, len);

			if (fail)
				dci_fault_alloc_fail_nth(1);
			ret = dc_itree_insert(tree, base + s, base + s + len - 1,
					      item_of(base + s));
			failed = dci_fault_alloc_failed();
			dci_fault_alloc_fail_nth(0);
			if (!ok) {
				DC_ASSERT_INT_EQ(t, ret, -EEXIST);
			} else if (fail && ret) {
				/*
				 * It fails only if it needed new memory: an
				 * insert that takes nodes the tree recycled
				 * succeeds even with the hook armed.
				 */
				DC_ASSERT_INT_EQ(t, ret, -ENOMEM);
				DC_ASSERT_EQ(t, failed, 1);
			} else {
				DC_ASSERT_INT_EQ(t, ret, 0);
				model_set(&m, s, len, (int32_t)s);
				m.count++;
			}
		} else if (op < 85) {
			/* Remove: mostly an existing interval, sometimes a miss. */
			bool exists = model_at(&m, s, &ms, &mlen);
			bool fail = dc_test_below(&rng, 20) == 0;

			if (!exists || dc_test_below(&rng, 8) == 0)
				ms = s, exists = exists && m.owner[s] == (int32_t)s;
			if (fail)
				dci_fault_alloc_fail_nth(1);
			ret = dc_itree_remove(tree, base + ms, &item);
			dci_fault_alloc_fail_nth(0);
			if (exists) {
				DC_ASSERT_INT_EQ(t, ret, 0);
				DC_ASSERT(t, item == item_of(base + ms));
				model_at(&m, ms, &ms, &mlen);
				model_set(&m, ms, mlen, -1);
				m.count--;
			} else {
				DC_ASSERT_INT_EQ(t, ret, -ENOENT);
			}
		} else if (op < 97) {
			void *found = dc_itree_lookup(tree, base + s);

			if (model_at(&m, s, &ms, &mlen))
				DC_ASSERT(t, found == item_of(base + ms));
			else
				DC_ASSERT(t, found == NULL);
		} else {
			check_range(t, tree, &m, s,
				    s + (uint32_t)dc_test_below(&rng, MODEL_SPAN - s));
		}
		if (i % 4096 == 0) {
			DC_ASSERT_EQ(t, dc_itree_count(tree), m.count);
			check_range(t, tree, &m, 0, MODEL_SPAN - 1);
		}
	}
	DC_ASSERT_EQ(t, dc_itree_count(tree), m.count);
	check_range(t, tree, &m, 0, MODEL_SPAN - 1);
	dc_test_log(t, "base %#llx: %u ops, %zu intervals at the end",
		    (unsigned long long)base, i, m.count);
	dc_itree_destroy(tree);
	dc_test_free(m.owner);
}

DC_TEST(itree_differential)
{
	unsigned int ops = 100000 * dc_test_scale();

	/* Low end, high end (wrap-around bugs), and the middle. */
	differential_run(t, 0, ops);
	DC_RETURN_IF_FAILED(t);
	differential_run(t, UINT64_MAX - MODEL_SPAN + 1, ops / 4);
	DC_RETURN_IF_FAILED(t);
	differential_run(t, (t->seed | 1) << 20, ops / 4);
}

#define PATH_SPAN	4096u

/*
 * A miss's insert at the path its lookup noted (dci_itree_lookup_path()):
 * used while the tree is as the lookup saw it, walked again once anything
 * changed.  Each key is looked up, then, at random, the tree changes
 * before the insert (an insert that may split the noted leaf, or a
 * remove that may merge or empty it), so that the noted path is stale;
 * an insert that trusted a stale path would put its entry in a node no
 * longer in the tree, and the lookups after it would miss.
 */
DC_TEST(itree_insert_at_lookup_path)
{
	struct dc_test_rng rng;
	struct dci_itree_path seen;
	struct dc_itree *tree;
	uint8_t *in;
	unsigned int i, stale = 0, ops = 20000 * dc_test_scale();
	size_t count = 0;
	uint64_t k, other;

	dc_test_rng_init(&rng, t->seed);
	in = dc_test_alloc(PATH_SPAN);
	DC_ASSERT(t, in);
	memset(in, 0, PATH_SPAN);
	DC_ASSERT_INT_EQ(t, dc_itree_create(&tree), 0);
	/* An empty tree's path (depth 0) is stale once the tree has an entry. */
	DC_ASSERT(t, !dci_itree_lookup_path(tree, 7, &seen));
	DC_ASSERT_EQ(t, seen.depth, 0);
	DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, 3, 3, item_of(3)), 0);
	DC_ASSERT_INT_EQ(t, dci_itree_insert_new(tree, 7, 7, item_of(7), &seen), 0);
	DC_ASSERT(t, dc_itree_lookup(tree, 3) == item_of(3));
	DC_ASSERT(t, dc_itree_lookup(tree, 7) == item_of(7));
	in[3] = in[7] = 1;
	count = 2;
	for (i = 0; i < ops && !dc_test_failed(t); i++) {
		/* Mostly ascending runs (appends), else anywhere. */
		k = dc_test_below(&rng, 4) ? (i * 7) % PATH_SPAN :
					     dc_test_below(&rng, PATH_SPAN);
		if (dci_itree_lookup_path(tree, k, &seen)) {
			DC_ASSERT(t, in[k]);
			DC_ASSERT_INT_EQ(t, dc_itree_remove(tree, k, NULL), 0);
			in[k] = 0;
			count--;
			continue;
		}
		DC_ASSERT(t, !in[k]);
		if (dc_test_below(&rng, 3) == 0) {
			other = dc_test_below(&rng, PATH_SPAN);
			if (other == k)
				continue;
			if (in[other]) {
				DC_ASSERT_INT_EQ(t, dc_itree_remove(tree, other, NULL), 0);
				in[other] = 0;
				count--;
			} else {
				DC_ASSERT_INT_EQ(t, dc_itree_insert(tree, other, other,
								    item_of(other)), 0);
				in[other] = 1;
				count++;
			}
			stale++;
		}
		DC_ASSERT_INT_EQ(t, dci_itree_insert_new(tree, k, k, item_of(k),
							 &seen), 0);
		in[k] = 1;
		count++;
		if (i % 512 == 0) {
			for (k = 0; k < PATH_SPAN; k++)
				DC_ASSERT(t, dc_itree_lookup(tree, k) ==
					     (in[k] ? item_of(k) : NULL));
		}
	}
	for (k = 0; k < PATH_SPAN; k++)
		DC_ASSERT(t, dc_itree_lookup(tree, k) == (in[k] ? item_of(k) : NULL));
	DC_ASSERT_EQ(t, dc_itree_count(tree), count);
	dc_test_log(t, "%u ops, %u inserts at a stale path, %zu entries at the end",
		    i, stale, count);
	dc_itree_destroy(tree);
	dc_test_free(in);
}

/* Sequential fills split nodes at every level; each failed step is a no-op. */
DC_TEST(itree_enomem_leaves_tree_intact)
{
	struct dc_itree *tree;
	unsigned int k, nth, failures = 0;
	const unsigned int n = 5000;

	DC_ASSERT_INT_EQ(t, dc_itree_create(&tree), 0);
	for (k = 0; k < n; k++) {
		for (nth = 1;; nth++) {
			int ret;

			dci_fault_alloc_fail_nth(nth);
			ret = dc_itree_insert(tree, 2 * k, 2 * k, item_of(2 * k));
			dci_fault_alloc_fail_nth(0);
			if (!ret)
				break;
			DC_ASSERT_INT_EQ(t, ret, -ENOMEM);
			DC_ASSERT_EQ(t, dc_itree_count(tree), k);
			DC_ASSERT(t, dc_itree_lookup(tree, 2 * k) == NULL);
			failures++;
		}
		if (k % 512 == 0 && k)
			DC_ASSERT(t, dc_itree_lookup(tree, k) == item_of(k));
	}
	/*
	 * An insert that takes nodes the tree recycled after a grace period
	 * allocates nothing and cannot fail, and when those arrive depends
	 * on the RCU callbacks: only the first insert (an empty tree, nothing
	 * recycled yet) is sure to allocate.
	 */
	DC_ASSERT(t, failures >= 1);
	/* Removal never fails, even with every allocation failing. */
	for (k = 0; k < n; k += 1) {
		dci_fault_alloc_fail_nth(1);
		DC_ASSERT_INT_EQ(t, dc_itree_remove(tree, 2 * k, NULL), 0);
		dci_fault_alloc_fail_nth(0);
		if (k + 1 < n)
			DC_ASSERT(t, dc_itree_lookup(tree, 2 * k + 2) ==
				     item_of(2 * k + 2));
	}
	DC_ASSERT_EQ(t, dc_itree_count(tree), 0);
	dc_itree_destroy(tree);
}

/* --- lockless readers against one writer ------------------------------- */

#define RCU_STABLE	4096u	/* intervals [8k, 8k+3], never removed */

struct rcu_ctx {
	struct dc_itree *tree;
	dci_atomic_t stop;
	dci_atomic64_t lookups;
	dci_atomic64_t rounds;	/* reader rounds so far, published each round */
	unsigned int writer_ops;
};

/* Wait until the readers finish a round they began after this call. */
static void rcu_wait_reader_round(struct dc_test *t, struct rcu_ctx *c)
{
	uint64_t seen = dci_atomic64_read(&c->rounds);

	DC_WAIT_FOR(t, dci_atomic64_read(&c->rounds) > seen + 1 ||
		       dc_test_failed(t));
}

static void rcu_writer(struct dc_test *t, struct rcu_ctx *c)
{
	struct dc_test_rng rng;
	unsigned int i;

	dc_test_rng_init(&rng, t->seed + 1);
	/*
	 * The readers overlap the writer by construction, not by the
	 * scheduler's grace (valgrind runs one thread at a time): a reader
	 * round starts and ends before the first write, and in the middle.
	 */
	rcu_wait_reader_round(t, c);
	for (i = 0; i < c->writer_ops; i++) {
		if (i == c->writer_ops / 2)
			rcu_wait_reader_round(t, c);
		/* Volatile intervals live in the gaps [8k+4, 8k+7]. */
		uint64_t k = dc_test_below(&rng, RCU_STABLE);
		uint64_t s = 8 * k + 4 + dc_test_below(&rng, 2);
		int ret = dc_itree_insert(c->tree, s, s + 1, item_of(s));

		if (ret == -EEXIST)
			ret = dc_itree_remove(c->tree, s, NULL);
		if (ret == -ENOENT) {
			/* The other volatile start of this gap is in place. */
			ret = dc_itree_remove(c->tree, s ^ 1, NULL);
		}
		DC_ASSERT_INT_EQ(t, ret, 0);
	}
}

static void rcu_reader(struct dc_test *t, struct rcu_ctx *c, unsigned int idx)
{
	struct dc_test_rng rng;
	uint64_t n = 0;

	dc_test_rng_init(&rng, t->seed + 100 + idx);
	while (!dci_atomic_read(&c->stop) && !dc_test_failed(t)) {
		uint64_t k = dc_test_below(&rng, RCU_STABLE);
		uint64_t p = 8 * k + dc_test_below(&rng, 4);
		struct dc_itree_entry e;
		uint64_t prev, a, b;
		unsigned int stable;
		bool backwards;
		void *found;

		dci_rcu_read_lock();
		found = dc_itree_lookup(c->tree, p);
		dci_rcu_read_unlock();
		DC_ASSERT(t, found == item_of(8 * k));

		/* Iterate a window: ascending, stable ones all present. */
		a = 8 * k;
		b = a + 8 * 16 - 1;
		stable = 0;
		backwards = false;
		prev = a;
		dci_rcu_read_lock();
		if (dc_itree_first(c->tree, a, b, &e)) {
			do {
				backwards |= e.start < prev;
				prev = e.start;
				if (!(e.start & 7))
					stable++;
			} while (dc_itree_next(c->tree, &e, b));
		}
		dci_rcu_read_unlock();
		DC_ASSERT(t, !backwards);
		DC_ASSERT_EQ(t, stable, k + 16 <= RCU_STABLE ? 16 : RCU_STABLE - k);
		dci_atomic64_inc(&c->rounds);
		/* Let the writer run where preemption is voluntary (kernel). */
		if (!(++n % 256))
			dc_test_sleep_us(0);
	}
	dci_atomic64_add(&c->lookups, n);
}

static void rcu_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct rcu_ctx *c = arg;

	if (idx == 0) {
		rcu_writer(t, c);
		dci_atomic_set(&c->stop, 1);
	} else {
		rcu_reader(t, c, idx);
	}
}

DC_TEST(itree_rcu_readers_vs_writer)
{
	struct rcu_ctx c = {
		.writer_ops = 200000 * dc_test_scale() / dc_test_slowdown()
	};
	unsigned int k;

	DC_ASSERT_INT_EQ(t, dc_itree_create(&c.tree), 0);
	for (k = 0; k < RCU_STABLE; k++)
		DC_ASSERT_INT_EQ(t, dc_itree_insert(c.tree, 8 * k, 8 * k + 3,
						    item_of(8 * k)), 0);
	dci_atomic_set(&c.stop, 0);
	dci_atomic64_set(&c.lookups, 0);
	dci_atomic64_set(&c.rounds, 0);
	dc_test_run_threads(t, 3, rcu_thread, &c);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, dci_atomic64_read(&c.lookups) > 0);
	dc_test_log(t, "writer ops %u, reader rounds %llu", c.writer_ops,
		    (unsigned long long)dci_atomic64_read(&c.lookups));
	dc_itree_destroy(c.tree);
}

/*
 * Ascending insertion fills leaves in place (the one change readers see
 * made to a published node): the writer appends [4i, 4i + 2] for ever
 * larger i, each counted in @hi once inserted, and removes the one APPEND_KEEP
 * behind, so that leaves are appended to, split and copied by removals
 * alike.  Readers check every entry they find whole (its last and item
 * are the ones written with its start), find every appended one that is
 * not yet removed, and never find the gaps.
 */
#define APPEND_KEEP	64u

struct append_ctx {
	struct dc_itree *tree;
	dci_atomic_t stop;
	dci_atomic64_t hi;	/* intervals appended so far */
	dci_atomic64_t checks;
	unsigned int writer_ops;
};

static void append_writer(struct dc_test *t, struct append_ctx *c)
{
	uint64_t i;

	/* [0, 2] is in place already. */
	for (i = 1; i <= c->writer_ops && !dc_test_failed(t); i++) {
		DC_ASSERT_INT_EQ(t, dc_itree_insert(c->tree, 4 * i, 4 * i + 2,
						    item_of(4 * i)), 0);
		dci_atomic64_set(&c->hi, i + 1);
		if (i >= APPEND_KEEP)
			DC_ASSERT_INT_EQ(t, dc_itree_remove(c->tree, 4 * (i - APPEND_KEEP),
							    NULL), 0);
		/* Let the readers in where preemption is voluntary (kernel). */
		if (!(i % 256))
			dc_test_sleep_us(0);
	}
}

/* Entry @e is [4i, 4i + 2] -> item_of(4i) for some i. */
static bool append_whole(const struct dc_itree_entry *e)
{
	return !(e->start & 3) && e->last == e->start + 2 &&
	       e->item == item_of(e->start);
}

static void append_reader(struct dc_test *t, struct append_ctx *c, unsigned int idx)
{
	struct dc_test_rng rng;
	uint64_t n = 0;

	dc_test_rng_init(&rng, t->seed + 200 + idx);
	while (!dci_atomic_read(&c->stop) && !dc_test_failed(t)) {
		uint64_t hi = dci_atomic64_read(&c->hi), i, prev;
		struct dc_itree_entry e;
		bool found, gap, whole = true, backwards = false;

		if (!hi)
			continue;
		/* The newest, or one of the last few. */
		i = hi - 1 - dc_test_below(&rng, hi < 8 ? hi : 8);
		dci_rcu_read_lock();
		found = dc_itree_lookup_entry(c->tree, 4 * i + 1, &e);
		gap = dc_itree_lookup(c->tree, 4 * i + 3) != NULL;
		dci_rcu_read_unlock();
		if (found)
			DC_ASSERT(t, append_whole(&e) && e.start == 4 * i);
		else
			DC_ASSERT(t, dci_atomic64_read(&c->hi) > i + APPEND_KEEP);
		DC_ASSERT(t, !gap);

		/* Iterate the newest few: ascending, each whole. */
		prev = 0;
		dci_rcu_read_lock();
		if (dc_itree_first(c->tree, 4 * (hi > 16 ? hi - 16 : 0), UINT64_MAX, &e)) {
			do {
				whole &= append_whole(&e);
				backwards |= e.start < prev;
				prev = e.start;
			} while (dc_itree_next(c->tree, &e, UINT64_MAX));
		}
		dci_rcu_read_unlock();
		DC_ASSERT(t, whole && !backwards);
		/* Iteration reached at least the newest seen before it began. */
		DC_ASSERT(t, prev >= 4 * (hi - 1));
		dci_atomic64_inc(&c->checks);
		if (!(++n % 256))
			dc_test_sleep_us(0);
	}
}

static void append_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct append_ctx *c = arg;

	if (idx == 0) {
		/* Some reader rounds overlap the appends, by construction. */
		DC_WAIT_FOR(t, dci_atomic64_read(&c->checks) > 0 || dc_test_failed(t));
		dci_atomic64_set(&c->checks, 0);
		append_writer(t, c);
		DC_WAIT_FOR(t, dci_atomic64_read(&c->checks) > 0 || dc_test_failed(t));
		dci_atomic_set(&c->stop, 1);
	} else {
		append_reader(t, c, idx);
	}
}

DC_TEST(itree_rcu_readers_vs_appender)
{
	struct append_ctx c = {
		.writer_ops = 100000 * dc_test_scale() / dc_test_slowdown()
	};

	DC_ASSERT_INT_EQ(t, dc_itree_create(&c.tree), 0);
	/* Readers start with something to find. */
	DC_ASSERT_INT_EQ(t, dc_itree_insert(c.tree, 0, 2, item_of(0)), 0);
	dci_atomic64_set(&c.hi, 1);
	dci_atomic_set(&c.stop, 0);
	dci_atomic64_set(&c.checks, 0);
	dc_test_run_threads(t, 3, append_thread, &c);
	DC_RETURN_IF_FAILED(t);
	dc_test_log(t, "appends %u, reader checks during and after them %llu", c.writer_ops,
		    (unsigned long long)dci_atomic64_read(&c.checks));
	dc_itree_destroy(c.tree);
}

DC_SUITE(itree,
	 DC_CASE(itree_api),
	 DC_CASE(itree_boundaries),
	 DC_CASE(itree_deep_lookups),
	 DC_CASE(itree_differential),
	 DC_CASE(itree_insert_at_lookup_path),
	 DC_CASE(itree_enomem_leaves_tree_intact),
	 DC_CASE(itree_rcu_readers_vs_writer),
	 DC_CASE(itree_rcu_readers_vs_appender));
