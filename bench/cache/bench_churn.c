// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_churn.c - section 3: reclaim throughput under churn.
 *
 * A latency-model backend (setup and remove each busy-wait o->latency_ns
 * per call) behind a window of CHURN_WINDOW ranges; threads map uniformly
 * random ranges out of CHURN_KEYS (4x the window), spread over CHURN_INODES
 * inodes, and unpin at once.  One cache per policy:
 *
 *   inline_noremove  inline reclaim first, reuse without remove (default)
 *   inline_remove    inline reclaim first, remove before reuse
 *   bg_noremove      kick the background reclaimer first (2019)
 *   bg_remove        both 2019 behaviours
 *
 * Every pin is checked against what the backend last set up in its window
 * range; the cache's counters are checked against the backend's calls.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cache.h"
#include "bench_util.h"
#include "../common/lat_hist.h"
#include "latency_backend.h"

#define CHURN_WINDOW	64	/* ranges */
#define CHURN_INODES	4
#define CHURN_PER_INODE	64	/* indexes per inode */
#define CHURN_KEYS	(CHURN_INODES * CHURN_PER_INODE)
#define CHURN_THREADS	2
#define CHURN_BATCH	16	/* maps between looks at the stop flag */

static const struct {
	const char *name;
	unsigned int flags;
} policies[] = {
	{ "inline_noremove", 0 },
	{ "inline_remove",   DC_CACHE_REMOVE_ON_INLINE },
	{ "bg_noremove",     DC_CACHE_KICK_BG_FIRST },
	{ "bg_remove",       DC_CACHE_KICK_BG_FIRST | DC_CACHE_REMOVE_ON_INLINE },
};

#define NPOLICIES	(sizeof(policies) / sizeof(policies[0]))

struct churn_result {
	uint64_t ops;
	uint64_t wall_ns;
	uint64_t thread_ns;	/* summed over threads */
	uint64_t cpu_ns;	/* CPU time the threads got */
	uint64_t preempted;	/* their involuntary context switches */
	uint64_t slept;		/* their voluntary ones */
	struct dc_cache_stats d;
	struct lat_hist hist;
};

struct churn_cache {
	struct dc_cache *cache;
	struct lat_backend *be;
	struct dc_inode *inode[CHURN_INODES];
};

struct churn_ctx {
	struct churn_cache pc[NPOLICIES];
	struct churn_cache *running;		/* the cell's cache */
	struct lat_hist thread_hist[CHURN_THREADS];
	struct churn_result res[NPOLICIES][CHURN_THREADS];	/* [p][threads-1] */
};

static void *churn_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct churn_ctx *ctx = th->ctx;
	struct churn_cache *pc = ctx->running;
	struct lat_hist *h = th->priv;
	uint64_t rng = th->rng, ops = 0, bad = 0, key, ino, idx, t0, t1;
	struct dc_pin pin;
	unsigned int i;
	int ret, err = 0;

	bench_thread_begin(th);
	do {
		for (i = 0; i < CHURN_BATCH; i++) {
			key = bench_rand_below(&rng, CHURN_KEYS);
			ino = key / CHURN_PER_INODE;
			idx = key % CHURN_PER_INODE;
			t0 = bench_now_ns();
			ret = dc_map(pc->inode[ino], idx << BENCH_RANGE_SHIFT, 0,
				     &pin);
			t1 = bench_now_ns();
			if (ret) {
				bad++;
				err = err ? err : ret;
				continue;
			}
			lat_hist_add(h, t1 - t0);
			bad += !lat_backend_check(pc->be, ino + 1, idx,
						  pin.win_off);
			dc_unpin(&pin);
			ops++;
		}
	} while (!bench_thread_stopping(th));
	bench_thread_end(th, ops);
	if (bad)
		bench_fail("churn thread %u: %" PRIu64 " failed maps or wrong pins (first error %d)",
			   th->id, bad, err);
	return NULL;
}

static void run_cell(void *arg, unsigned int cell, unsigned int slice,
		     double secs)
{
	struct churn_ctx *ctx = arg;
	unsigned int p = cell / CHURN_THREADS, n = cell % CHURN_THREADS + 1, i;
	struct churn_result *r = &ctx->res[p][n - 1];
	struct bench_thread th[CHURN_THREADS];
	struct dc_cache_stats s0, s1;

	memset(th, 0, sizeof(th));
	ctx->running = &ctx->pc[p];
	for (i = 0; i < n; i++) {
		memset(&ctx->thread_hist[i], 0, sizeof(ctx->thread_hist[i]));
		th[i].ctx = ctx;
		th[i].priv = &ctx->thread_hist[i];
	}
	bench_stats(ctx->running->cache, &s0);
	/* Same seeds for every policy: the same sequence of keys. */
	r->wall_ns += bench_team_run(th, n, churn_thread, secs,
				     100 * n + slice);
	bench_stats(ctx->running->cache, &s1);
	bench_stats_delta(&r->d, &s0, &s1);
	for (i = 0; i < n; i++) {
		r->ops += th[i].ops;
		r->thread_ns += th[i].ns;
		r->cpu_ns += th[i].cpu_ns;
		r->preempted += th[i].preempted;
		r->slept += th[i].slept;
		lat_hist_merge(&r->hist, &ctx->thread_hist[i]);
	}
}

static void churn_setup(struct churn_ctx *ctx, uint64_t latency_ns)
{
	struct churn_cache *pc;
	struct dc_pin pin;
	unsigned int p, i, k;
	int ret;

	for (p = 0; p < NPOLICIES; p++) {
		pc = &ctx->pc[p];
		pc->be = lat_backend_create(latency_ns, latency_ns, CHURN_WINDOW,
					    BENCH_RANGE_SHIFT);
		if (!pc->be) {
			fprintf(stderr, "bench_cache: out of memory\n");
			exit(1);
		}
		pc->cache = bench_cache_new(CHURN_WINDOW, policies[p].flags,
					    &lat_backend_ops, pc->be);
		for (i = 0; i < CHURN_INODES; i++)
			pc->inode[i] = bench_inode_get(pc->cache, i + 1);
		/* Warm up: every key once, so cells start with a full window. */
		for (k = 0; k < CHURN_KEYS; k++) {
			i = k / CHURN_PER_INODE;
			ret = dc_map(pc->inode[i],
				     (uint64_t)(k % CHURN_PER_INODE) << BENCH_RANGE_SHIFT,
				     0, &pin);
			if (ret) {
				bench_fail("churn %s warm-up: dc_map: %d",
					   policies[p].name, ret);
				continue;
			}
			dc_unpin(&pin);
		}
	}
}

/*
 * Over each cache's whole life (warm-up included, eviction not yet), its
 * counters must agree with the backend's record and with each other.
 */
static void churn_check(struct churn_ctx *ctx)
{
	struct lat_backend_counts b;
	struct dc_cache_stats st;
	uint64_t want_removes, want_skipped;
	unsigned int p;

	for (p = 0; p < NPOLICIES; p++) {
		const char *name = policies[p].name;
		bool remove_inline = policies[p].flags & DC_CACHE_REMOVE_ON_INLINE;

		bench_stats_settled(ctx->pc[p].cache, &st);
		lat_backend_counts(ctx->pc[p].be, &b);
		if (b.bad_calls || b.stale_removes || b.pin_mismatches)
			bench_fail("churn %s: backend saw %" PRIu64 " bad calls, %" PRIu64 " removes of mappings not there, %" PRIu64 " pins on the wrong mapping",
				   name, b.bad_calls, b.stale_removes,
				   b.pin_mismatches);
		if (b.setups != st.misses + st.upgrades + st.setup_failures)
			bench_fail("churn %s: %" PRIu64 " setup calls but stats count %" PRIu64 " misses",
				   name, b.setups, st.misses);
		if (b.remove_entries != st.removes_sent ||
		    b.removes != st.remove_batches)
			bench_fail("churn %s: backend got %" PRIu64 " removes in %" PRIu64 " calls, stats say %" PRIu64 " in %" PRIu64,
				   name, b.remove_entries, b.removes,
				   st.removes_sent, st.remove_batches);
		want_removes = st.bg_reclaims + (remove_inline ? st.inline_reclaims : 0);
		want_skipped = remove_inline ? 0 : st.inline_reclaims;
		if (st.removes_sent != want_removes ||
		    st.removes_skipped != want_skipped)
			bench_fail("churn %s: %" PRIu64 " inline and %" PRIu64 " bg reclaims, so %" PRIu64 " removes and %" PRIu64 " skipped expected; stats say %" PRIu64 " and %" PRIu64,
				   name, st.inline_reclaims, st.bg_reclaims,
				   want_removes, want_skipped, st.removes_sent,
				   st.removes_skipped);
		if (st.setup_failures || st.remove_failures)
			bench_fail("churn %s: %" PRIu64 " setup and %" PRIu64 " remove failures",
				   name, st.setup_failures, st.remove_failures);
	}
}

static void churn_teardown(struct churn_ctx *ctx)
{
	unsigned int p, i;

	for (p = 0; p < NPOLICIES; p++) {
		for (i = 0; i < CHURN_INODES; i++)
			dc_inode_put(ctx->pc[p].inode[i]);
		bench_cache_done(ctx->pc[p].cache, policies[p].name);
		lat_backend_destroy(ctx->pc[p].be);
	}
}

static double per_s(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0;
}

static void report_rate(const struct churn_result *r, const char *name,
			unsigned int n, double base, struct bench_json *j)
{
	const struct dc_cache_stats *d = &r->d;
	double maps = per_s(r->ops, r->wall_ns);
	uint64_t p50 = lat_hist_percentile(&r->hist, 50);
	uint64_t p99 = lat_hist_percentile(&r->hist, 99);
	double cpu = r->thread_ns ? 100.0 * (double)r->cpu_ns / (double)r->thread_ns : 0;

	printf("%-16s %3u %9.0f %7.2f %5.1f %8.1f %8.1f %9.1f %5.0f %9.0f %9.0f\n",
	       name, n, maps, base ? maps / base : 0,
	       d->hits + d->misses ? 100.0 * (double)d->hits /
				     (double)(d->hits + d->misses) : 0,
	       p50 / 1e3, p99 / 1e3, r->hist.max / 1e3, cpu,
	       per_s(r->preempted, r->thread_ns),
	       per_s(r->slept, r->thread_ns));
	bench_json_addf(j, maps, "churn/%s/%u/maps_per_s", name, n);
	bench_json_addf(j, base ? maps / base : 0,
		     "churn/%s/%u/maps_per_s_over_inline_noremove", name, n);
	bench_json_addf(j, (double)p50, "churn/%s/%u/p50_ns", name, n);
	bench_json_addf(j, (double)p99, "churn/%s/%u/p99_ns", name, n);
	bench_json_addf(j, (double)r->hist.max, "churn/%s/%u/max_ns", name, n);
	bench_json_addf(j, cpu, "churn/%s/%u/cpu_pct", name, n);
	bench_json_addf(j, per_s(r->preempted, r->thread_ns),
		     "churn/%s/%u/preemptions_per_thread_s", name, n);
}

static void report_counts(const struct churn_result *r, const char *name,
			  unsigned int n, struct bench_json *j)
{
	const struct dc_cache_stats *d = &r->d;

	printf("%-16s %3u %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %9.1f\n",
	       name, n, d->hits, d->misses, d->inline_reclaims,
	       d->bg_reclaims, d->removes_sent, d->remove_batches, d->waits,
	       d->wait_ns / 1e6);
	bench_json_addf(j, (double)d->hits, "churn/%s/%u/hits", name, n);
	bench_json_addf(j, (double)d->misses, "churn/%s/%u/misses", name, n);
	bench_json_addf(j, (double)d->inline_reclaims,
		     "churn/%s/%u/inline_reclaims", name, n);
	bench_json_addf(j, (double)d->bg_reclaims, "churn/%s/%u/bg_reclaims",
		     name, n);
	bench_json_addf(j, (double)d->removes_sent, "churn/%s/%u/removes_sent",
		     name, n);
	bench_json_addf(j, (double)d->remove_batches,
		     "churn/%s/%u/remove_batches", name, n);
	bench_json_addf(j, (double)d->waits, "churn/%s/%u/waits", name, n);
	bench_json_addf(j, (double)d->wait_ns, "churn/%s/%u/wait_ns", name, n);
}

static void churn_report(struct churn_ctx *ctx, uint64_t latency_ns,
			 struct bench_json *j)
{
	struct lat_backend_counts b;
	unsigned int p, n;
	double base;

	printf("%-16s %3s %9s %7s %5s %8s %8s %9s %5s %9s %9s\n",
	       "policy", "thr", "maps/s", "vs inl", "hit%", "p50 us", "p99 us",
	       "max us", "cpu%", "preempt/s", "sleeps/s");
	for (n = 1; n <= CHURN_THREADS; n++) {
		base = per_s(ctx->res[0][n - 1].ops, ctx->res[0][n - 1].wall_ns);
		for (p = 0; p < NPOLICIES; p++)
			report_rate(&ctx->res[p][n - 1], policies[p].name, n,
				    base, j);
	}
	printf("\n'vs inl' = maps/s / inline_noremove's maps/s with as many threads (same run);\n"
	       "cpu%% = CPU time the mapping threads got / their wall time; preempt/s and\n"
	       "sleeps/s = involuntary and voluntary context switches per thread-second\n\n");
	printf("%-16s %3s %9s %9s %9s %9s %9s %9s %7s %9s\n", "totals", "thr",
	       "hits", "misses", "inline", "bg", "removes", "batches", "waits",
	       "wait ms");
	for (n = 1; n <= CHURN_THREADS; n++)
		for (p = 0; p < NPOLICIES; p++)
			report_counts(&ctx->res[p][n - 1], policies[p].name, n, j);
	printf("\nbackend latency achieved (target %.1f us per call; includes time descheduled):\n",
	       latency_ns / 1e3);
	bench_json_addf(j, (double)latency_ns, "churn/latency_target_ns");
	for (p = 0; p < NPOLICIES; p++) {
		lat_backend_counts(ctx->pc[p].be, &b);
		printf("  %-16s setup %7.2f us avg (%" PRIu64 " calls), remove %7.2f us avg (%" PRIu64 " calls, %.2f entries each)\n",
		       policies[p].name,
		       b.setups ? (double)b.setup_ns / (double)b.setups / 1e3 : 0,
		       b.setups,
		       b.removes ? (double)b.remove_ns / (double)b.removes / 1e3 : 0,
		       b.removes,
		       b.removes ? (double)b.remove_entries / (double)b.removes : 0);
		bench_json_addf(j, b.setups ? (double)b.setup_ns / (double)b.setups : 0,
			     "churn/%s/setup_avg_ns", policies[p].name);
		bench_json_addf(j, b.removes ? (double)b.remove_ns / (double)b.removes : 0,
			     "churn/%s/remove_avg_ns", policies[p].name);
	}
}

void bench_churn(const struct bench_opts *o, struct bench_json *j)
{
	struct churn_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx) {
		fprintf(stderr, "bench_cache: out of memory\n");
		exit(1);
	}
	printf("== 3. reclaim under churn: latency-model backend, %.1f us per setup and per remove call ==\n",
	       o->latency_ns / 1e3);
	printf("   window %d ranges; uniform random maps over %d ranges (%d inodes x %d), unpinned at once;\n"
	       "   counts are totals over the cell; p50/p99 of dc_map latency (log-linear histogram, +-6%%)\n\n",
	       CHURN_WINDOW, CHURN_KEYS, CHURN_INODES, CHURN_PER_INODE);
	churn_setup(ctx, o->latency_ns);
	bench_interleave(NPOLICIES * CHURN_THREADS, o->seconds, run_cell, ctx);
	churn_report(ctx, o->latency_ns, j);
	churn_check(ctx);
	churn_teardown(ctx);
	free(ctx);
	printf("\n");
	fflush(stdout);
}
