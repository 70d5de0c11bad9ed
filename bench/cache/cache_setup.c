// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cache_setup.c - creating, reading and retiring the caches under test,
 * with every unexpected result counted as a failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cache.h"
#include "bench_util.h"

#define DRAIN_WAIT_NS	(2ull * 1000000000ull)
#define SETTLE_NS	(1000ull * 1000000ull)

void bench_stats(const struct dc_cache *c, struct dc_cache_stats *st)
{
	int ret = dc_cache_stats(c, st, sizeof(*st));

	if (ret) {
		memset(st, 0, sizeof(*st));
		bench_fail("dc_cache_stats: %d", ret);
	}
}

void bench_stats_settled(const struct dc_cache *c, struct dc_cache_stats *st)
{
	uint64_t deadline = bench_now_ns() + SETTLE_NS;
	struct timespec nap = { .tv_nsec = 10000000 };
	struct dc_cache_stats prev;

	bench_stats(c, st);
	do {
		prev = *st;
		nanosleep(&nap, NULL);
		bench_stats(c, st);
	} while (memcmp(&prev, st, sizeof(prev)) && bench_now_ns() < deadline);
}

void bench_stats_delta(struct dc_cache_stats *d, const struct dc_cache_stats *a,
		       const struct dc_cache_stats *b)
{
	d->hits += b->hits - a->hits;
	d->misses += b->misses - a->misses;
	d->upgrades += b->upgrades - a->upgrades;
	d->inline_reclaims += b->inline_reclaims - a->inline_reclaims;
	d->bg_reclaims += b->bg_reclaims - a->bg_reclaims;
	d->removes_sent += b->removes_sent - a->removes_sent;
	d->removes_skipped += b->removes_skipped - a->removes_skipped;
	d->remove_batches += b->remove_batches - a->remove_batches;
	d->remove_failures += b->remove_failures - a->remove_failures;
	d->waits += b->waits - a->waits;
	d->wait_ns += b->wait_ns - a->wait_ns;
	d->setup_failures += b->setup_failures - a->setup_failures;
	d->writebacks += b->writebacks - a->writebacks;
	d->writeback_failures += b->writeback_failures - a->writeback_failures;
}

struct dc_cache *bench_cache_new(unsigned int nr_ranges, unsigned int flags,
				 const struct dc_backend_ops *ops, void *priv)
{
	struct dc_cache_config cfg;
	struct dc_cache *c;
	int ret;

	dc_cache_config_init(&cfg, sizeof(cfg), (uint64_t)nr_ranges << BENCH_RANGE_SHIFT);
	cfg.range_shift = BENCH_RANGE_SHIFT;
	cfg.flags = flags;
	ret = dc_cache_create(&cfg, sizeof(cfg), ops, sizeof(*ops), priv, &c);
	if (ret) {
		fprintf(stderr, "bench_cache: dc_cache_create(%u ranges, flags %#x): %d\n",
			nr_ranges, flags, ret);
		exit(1);
	}
	return c;
}

struct dc_inode *bench_inode_get(struct dc_cache *c, uint64_t ino)
{
	struct dc_inode *inode;
	int ret = dc_inode_get(c, ino, &inode);

	if (ret) {
		fprintf(stderr, "bench_cache: dc_inode_get(%" PRIu64 "): %d\n",
			ino, ret);
		exit(1);
	}
	return inode;
}

/*
 * With every inode put, every range must come back to the free pool; the
 * background reclaimer may still hold a batch for a moment.
 */
void bench_cache_done(struct dc_cache *c, const char *what)
{
	uint64_t deadline = bench_now_ns() + DRAIN_WAIT_NS;
	struct timespec nap = { .tv_nsec = 1000000 };
	struct dc_cache_stats st;

	for (;;) {
		bench_stats(c, &st);
		if ((st.nr_free == st.nr_ranges && !st.nr_mapped &&
		     !st.nr_inodes) || bench_now_ns() > deadline)
			break;
		nanosleep(&nap, NULL);
	}
	if (st.nr_free != st.nr_ranges || st.nr_mapped || st.nr_inodes)
		bench_fail("%s: after putting every inode: %" PRIu64 " of %" PRIu64 " ranges free, %" PRIu64 " mapped, %" PRIu64 " inodes",
			   what, st.nr_free, st.nr_ranges, st.nr_mapped,
			   st.nr_inodes);
	dc_cache_destroy(c);
}
