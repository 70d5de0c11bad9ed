// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * inode_cases.c - the cache's inode table: lookups that take no lock, a
 * table that grows while it is read, last puts racing with lookups.
 */
#include "dc_test.h"

#include "sim_env.h"

/* More than twice the first table's 1024 buckets: it grows at least twice. */
#define MANY_INODES	3000u
#define STABLE_INODES	64u
#define GROW_ROUNDS	3u
#define RACE_IDS	4u
/*
 * A reader's pace: one round per this many of the grower's gets and puts,
 * and this many rounds ahead at most.  A scheduler that lets the readers
 * run while the grower waits (valgrind's, which runs one thread at a time)
 * would otherwise let them make garbage without bound.
 */
#define OPS_PER_ROUND	8u
#define ROUNDS_AHEAD	16u

static struct dc_cache *cache_new(struct dc_test *t)
{
	struct dc_cache_config cfg;
	struct dc_cache *c = NULL;
	int ret;

	dc_cache_config_init(&cfg, sizeof(cfg), 4ull << 21);
	ret = dc_cache_create(&cfg, sizeof(cfg), sim_null_ops(),
			      sizeof(struct dc_backend_ops), NULL, &c);
	if (ret)
		dc_test_fail(t, __FILE__, __LINE__, "dc_cache_create: %d", ret);
	return c;
}

static uint64_t nr_inodes(struct dc_cache *c)
{
	return sim_cache_stats(c).nr_inodes;
}

/* Each id names one inode while it is held, through every growth. */
DC_TEST(inode_table_grows)
{
	struct dc_inode **held, *again;
	struct dc_cache *c = cache_new(t);
	unsigned int i;

	DC_RETURN_IF_FAILED(t);
	held = dc_test_alloc(MANY_INODES * sizeof(*held));
	DC_ASSERT(t, held);
	if (!held)
		goto out;
	for (i = 0; i < MANY_INODES && !dc_test_failed(t); i++) {
		/* Ids far apart and close together, as file handles come. */
		DC_ASSERT_INT_EQ(t, dc_inode_get(c, (uint64_t)i << (i & 1 ? 40 : 0), &held[i]), 0);
	}
	if (dc_test_failed(t))
		goto out_free;
	DC_ASSERT_EQ(t, nr_inodes(c), MANY_INODES);
	for (i = 0; i < MANY_INODES; i++) {
		DC_ASSERT_INT_EQ(t, dc_inode_get(c, (uint64_t)i << (i & 1 ? 40 : 0), &again), 0);
		if (dc_test_failed(t))
			break;
		DC_ASSERT(t, again == held[i]);
		DC_ASSERT_EQ(t, dc_inode_id(again), (uint64_t)i << (i & 1 ? 40 : 0));
		dc_inode_put(again);
	}
	DC_ASSERT_EQ(t, nr_inodes(c), MANY_INODES);
	for (i = 0; i < MANY_INODES; i++)
		dc_inode_put(held[i]);
	DC_ASSERT_EQ(t, nr_inodes(c), 0);
	/* The grown table still takes new inodes. */
	DC_ASSERT_INT_EQ(t, dc_inode_get(c, 7, &again), 0);
	if (!dc_test_failed(t))
		dc_inode_put(again);
out_free:
	dc_test_free(held);
out:
	DC_ASSERT_INT_EQ(t, dc_cache_destroy(c), 0);
}

struct grow_ctx {
	struct dc_cache *c;
	struct dc_inode *stable[STABLE_INODES];
	struct dc_inode **grown;
	dci_atomic_t reader_rounds;
	dci_atomic_t grower_ops;		/* the grower's gets and puts so far */
	dci_atomic_t done;
};

#define STABLE_ID(i)	(0xabc0000ull + (i))
#define GROWN_ID(i)	(0x5000000000ull + (i))
#define RACE_ID(i)	(0x7700000000ull + (i))

/*
 * Readers look up the held inodes over and over and must find exactly
 * them; racers get and put inodes nobody else holds, so that last puts
 * race with lookups.
 */
static void reader_round(struct dc_test *t, struct grow_ctx *x, unsigned int idx)
{
	struct dc_inode *inode;
	unsigned int i;

	for (i = 0; i < STABLE_INODES; i++) {
		if (dc_inode_get(x->c, STABLE_ID(i), &inode)) {
			DC_ASSERT(t, false);
			return;
		}
		DC_ASSERT(t, inode == x->stable[i]);
		dc_inode_put(inode);
	}
	for (i = 0; i < RACE_IDS; i++) {
		if (dc_inode_get(x->c, RACE_ID((i + idx) % RACE_IDS), &inode)) {
			DC_ASSERT(t, false);
			return;
		}
		DC_ASSERT_EQ(t, dc_inode_id(inode), RACE_ID((i + idx) % RACE_IDS));
		dc_inode_put(inode);
	}
}

static void wait_for_readers(struct dc_test *t, struct grow_ctx *x)
{
	DC_WAIT_FOR(t, dci_atomic_read(&x->reader_rounds) > 0 || dc_test_failed(t));
}

/* Whether a reader that has done @rounds may do another one now. */
static bool reader_may_go(struct grow_ctx *x, unsigned int rounds)
{
	return rounds < ROUNDS_AHEAD +
		(unsigned int)dci_atomic_read(&x->grower_ops) / OPS_PER_ROUND ||
	       dci_atomic_read(&x->done);
}

static void grow_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct grow_ctx *x = arg;
	unsigned int r, i, rounds = 0;

	if (idx) {
		/* At least one whole round after the grower started. */
		do {
			reader_round(t, x, idx);
			dci_atomic_inc(&x->reader_rounds);
			rounds++;
			DC_WAIT_FOR(t, reader_may_go(x, rounds) || dc_test_failed(t));
		} while (!dci_atomic_read(&x->done) && !dc_test_failed(t));
		reader_round(t, x, idx);
		return;
	}
	/* The grower: overlap with the readers by construction. */
	wait_for_readers(t, x);
	for (r = 0; r < GROW_ROUNDS && !dc_test_failed(t); r++) {
		for (i = 0; i < MANY_INODES; i++) {
			if (dc_inode_get(x->c, GROWN_ID(i), &x->grown[i])) {
				DC_ASSERT(t, false);
				while (i--)
					dc_inode_put(x->grown[i]);
				goto out;
			}
			dci_atomic_inc(&x->grower_ops);
		}
		for (i = 0; i < MANY_INODES; i++) {
			dc_inode_put(x->grown[i]);
			dci_atomic_inc(&x->grower_ops);
		}
	}
out:
	dci_atomic_set(&x->done, 1);
}

DC_TEST(inode_lookups_race_growth)
{
	struct grow_ctx x;
	unsigned int i;

	memset(&x, 0, sizeof(x));
	x.c = cache_new(t);
	DC_RETURN_IF_FAILED(t);
	x.grown = dc_test_alloc(MANY_INODES * sizeof(*x.grown));
	DC_ASSERT(t, x.grown);
	for (i = 0; i < STABLE_INODES && !dc_test_failed(t); i++)
		DC_ASSERT_INT_EQ(t, dc_inode_get(x.c, STABLE_ID(i), &x.stable[i]), 0);
	if (!dc_test_failed(t)) {
		dci_atomic_set(&x.reader_rounds, 0);
		dci_atomic_set(&x.grower_ops, 0);
		dci_atomic_set(&x.done, 0);
		dc_test_run_threads(t, 3, grow_thread, &x);
	}
	/* Only the held inodes are left: every grown and raced one went. */
	DC_ASSERT_EQ(t, nr_inodes(x.c), i);
	while (i--)
		dc_inode_put(x.stable[i]);
	DC_ASSERT_EQ(t, nr_inodes(x.c), 0);
	dc_test_free(x.grown);
	DC_ASSERT_INT_EQ(t, dc_cache_destroy(x.c), 0);
}

DC_SUITE(inode,
	 DC_CASE(inode_table_grows),
	 DC_CASE(inode_lookups_race_growth));
