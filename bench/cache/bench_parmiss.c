// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_parmiss.c - section 2b: misses in parallel within one file.
 *
 * T threads each map new ranges of ONE inode (thread k its own block of
 * PM_ROUND indexes), against T threads with an inode each, through a
 * backend whose setup sleeps PM_SETUP_US (a round trip to the host is a
 * wait, not CPU work: lat_backend_set_sleep()).  The window holds every
 * thread's block, so nothing is reclaimed; after each round a thread
 * punches its own block (removes cost nothing here) and starts again.
 * The figure: misses per second of wall time summed over the threads, and
 * the one-inode rate over the own-inode rate at each T.  With the inode's
 * lock held across the setup the one-inode rate stays that of one thread
 * (a ratio of 1/T); without it, it follows the own-inode rate.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_cache.h"
#include "bench_util.h"
#include "latency_backend.h"

#define PM_ROUND	32u	/* misses per thread per round */
#define PM_MAX_T	16u	/* the most threads a cell runs */
#define PM_SETUP_US	200u	/* each setup sleeps this long */
#define PM_INO_BASE	100u
/* At least this long per cell: a slice must hold many 200 us setups. */
#define PM_MIN_SECONDS	1.0

struct pm_cell_result {
	uint64_t misses;
	uint64_t wall_ns;		/* the longest thread's, summed over slices */
	uint64_t cpu_ns;		/* the threads' CPU time */
	struct dc_cache_stats d;
};

struct pm_ctx {
	struct dc_cache *cache;
	struct lat_backend *be;
	struct dc_inode *inode[PM_MAX_T];	/* one each; [0] is the shared one */
	unsigned int nt;			/* thread counts measured */
	unsigned int threads[5];		/* 1, 2, 4, 8, 16 */
	struct pm_cell_result res[2 * 5];	/* [2 * t + own] */
	/* The running cell's. */
	bool own;
	unsigned int t;
};

/* Cell @cell: thread count threads[cell / 2], own inodes when odd. */
static void pm_cell(const struct pm_ctx *ctx, unsigned int cell,
		    unsigned int *t, bool *own)
{
	*t = ctx->threads[cell / 2];
	*own = cell & 1;
}

/* Map @n new indexes of @inode from @first, each a miss, checked; 0 or -1. */
static int pm_round(struct pm_ctx *ctx, struct dc_inode *inode, uint64_t ino,
		    uint64_t first, unsigned int n)
{
	uint64_t rs = 1ull << BENCH_RANGE_SHIFT;
	struct dc_pin pin;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = dc_map(inode, (first + i) * rs, 0, &pin);
		if (ret) {
			bench_fail("parmiss: dc_map of index %" PRIu64 ": %d", first + i, ret);
			return -1;
		}
		lat_backend_check(ctx->be, ino, first + i, pin.win_off & ~(rs - 1));
		dc_unpin(&pin);
	}
	return 0;
}

static void *pm_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct pm_ctx *ctx = th->ctx;
	uint64_t rs = 1ull << BENCH_RANGE_SHIFT, ops = 0;
	unsigned int k = th->id;
	struct dc_inode *inode = ctx->own ? ctx->inode[k] : ctx->inode[0];
	uint64_t ino = PM_INO_BASE + (ctx->own ? k : 0);
	/* Each thread its own block of indexes, in either layout. */
	uint64_t first = (uint64_t)k * PM_ROUND;
	int ret;

	bench_thread_begin(th);
	while (!bench_thread_stopping(th)) {
		if (pm_round(ctx, inode, ino, first, PM_ROUND))
			break;
		ops += PM_ROUND;
		ret = dc_inode_punch(inode, first * rs, PM_ROUND * rs);
		if (ret) {
			bench_fail("parmiss: punch: %d", ret);
			break;
		}
	}
	bench_thread_end(th, ops);
	return NULL;
}

static void pm_run_cell(void *arg, unsigned int cell, unsigned int slice,
			double secs)
{
	struct pm_ctx *ctx = arg;
	struct pm_cell_result *r = &ctx->res[cell];
	struct bench_thread th[PM_MAX_T] = { { 0 } };
	struct dc_cache_stats s0, s1;
	unsigned int i;

	pm_cell(ctx, cell, &ctx->t, &ctx->own);
	for (i = 0; i < ctx->t; i++)
		th[i].ctx = ctx;
	bench_stats(ctx->cache, &s0);
	r->wall_ns += bench_team_run(th, ctx->t, pm_thread, secs, 7 * slice + cell);
	bench_stats(ctx->cache, &s1);
	bench_stats_delta(&r->d, &s0, &s1);
	for (i = 0; i < ctx->t; i++) {
		r->misses += th[i].ops;
		r->cpu_ns += th[i].cpu_ns;
	}
}

static double rate(const struct pm_cell_result *r)
{
	return r->wall_ns ? (double)r->misses * 1e9 / (double)r->wall_ns : 0;
}

static void pm_report(const struct pm_ctx *ctx, struct bench_json *j)
{
	struct lat_backend_counts bc;
	unsigned int i;

	printf("%8s %14s %14s %10s %12s %12s\n", "threads", "one inode/s",
	       "inode each/s", "one/own", "one: waits", "one cpu%");
	for (i = 0; i < ctx->nt; i++) {
		const struct pm_cell_result *one = &ctx->res[2 * i];
		const struct pm_cell_result *own = &ctx->res[2 * i + 1];
		double ratio = rate(own) > 0 ? rate(one) / rate(own) : 0;

		printf("%8u %14.0f %14.0f %10.2f %12" PRIu64 " %12.1f\n",
		       ctx->threads[i], rate(one), rate(own), ratio, one->d.waits,
		       one->wall_ns ? 100.0 * (double)one->cpu_ns / (double)one->wall_ns : 0);
		bench_json_addf(j, rate(one), "parmiss/one/%u", ctx->threads[i]);
		bench_json_addf(j, rate(own), "parmiss/own/%u", ctx->threads[i]);
		bench_json_addf(j, ratio, "parmiss/ratio/%u", ctx->threads[i]);
	}
	lat_backend_counts(ctx->be, &bc);
	if (bc.bad_calls || bc.stale_removes || bc.pin_mismatches)
		bench_fail("parmiss: backend saw %" PRIu64 " bad calls, %" PRIu64 " stale removes, %" PRIu64 " wrong pins",
			   bc.bad_calls, bc.stale_removes, bc.pin_mismatches);
	printf("one/own: the one-inode rate over the own-inode rate, measured side by side;\n"
	       "1/T where each miss waits for the others' setups, 1.00 where none does.\n"
	       "waits: dc_map() calls that slept (none expected: no two threads miss one index)\n");
}

/* Every miss a miss, nothing reclaimed, nothing waited for. */
static void pm_check(const struct pm_ctx *ctx)
{
	unsigned int c;

	for (c = 0; c < 2 * ctx->nt; c++) {
		const struct pm_cell_result *r = &ctx->res[c];

		if (r->d.misses != r->misses || r->d.hits || r->d.waits ||
		    r->d.inline_reclaims || r->d.bg_reclaims)
			bench_fail("parmiss cell %u: %" PRIu64 " misses made; stats: %" PRIu64 " misses, %" PRIu64 " hits, %" PRIu64 " waits, %" PRIu64 " inline and %" PRIu64 " bg reclaims",
				   c, r->misses, r->d.misses, r->d.hits, r->d.waits,
				   r->d.inline_reclaims, r->d.bg_reclaims);
	}
}

void bench_parmiss(const struct bench_opts *o, struct bench_json *j)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct pm_ctx *ctx = calloc(1, sizeof(*ctx));
	unsigned int t, i, nr = PM_MAX_T * PM_ROUND;

	if (!ctx) {
		fprintf(stderr, "bench_cache: out of memory\n");
		exit(1);
	}
	/* 1, 2 and 4 threads everywhere; 8 and 16 where as many CPUs are. */
	for (t = 1; t <= PM_MAX_T; t *= 2)
		if (t <= 4 || t <= cpus)
			ctx->threads[ctx->nt++] = t;
	printf("== 2b. misses in parallel within a file: misses/s, setup sleeps %u us, no reclaim ==\n"
	       "   T threads map new ranges (%u each per round, then punch them) of ONE inode,\n"
	       "   against T threads with an inode each; at least %.1f s per cell\n\n",
	       PM_SETUP_US, PM_ROUND, PM_MIN_SECONDS);
	ctx->be = lat_backend_create(PM_SETUP_US * 1000ull, 0, nr, BENCH_RANGE_SHIFT);
	if (!ctx->be) {
		fprintf(stderr, "bench_cache: out of memory\n");
		exit(1);
	}
	lat_backend_set_sleep(ctx->be, true);
	ctx->cache = bench_cache_new(nr, 0, &lat_backend_ops, ctx->be);
	for (i = 0; i < PM_MAX_T; i++)
		ctx->inode[i] = bench_inode_get(ctx->cache, PM_INO_BASE + i);
	bench_interleave(2 * ctx->nt, o->seconds < PM_MIN_SECONDS ? PM_MIN_SECONDS :
			 o->seconds, pm_run_cell, ctx);
	pm_check(ctx);
	pm_report(ctx, j);
	for (i = 0; i < PM_MAX_T; i++)
		dc_inode_put(ctx->inode[i]);
	bench_cache_done(ctx->cache, "parmiss cache");
	lat_backend_destroy(ctx->be);
	free(ctx);
	printf("\n");
	fflush(stdout);
}
