// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_miss.c - section 2: the miss path with a null backend.
 *
 * noreclaim: rounds of MISS_ROUND maps of new indexes of a fresh inode into
 * a window four times larger, so the free pool never runs low (nor below
 * the background reclaimer's threshold); the inode is put after each round
 * so the next starts empty, and that eviction is timed apart.
 *
 * reclaim: one inode maps ever new indexes into a full window of
 * MISS_SMALL ranges; every map must reclaim an idle range (inline, with the
 * library's default policy, once the free pool is empty).
 *
 * Beside the wall time per miss (the figure the targets judge), each cell
 * reports the CPU time per miss of its own thread and of the whole process
 * while its maps ran: on a shared machine the wall time is what the thread
 * waited for a CPU as well as what it ran, and the process figure includes
 * the work other threads do for the misses (liburcu's callback thread
 * freeing the tree nodes they replaced, the background reclaimer).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_cache.h"
#include "bench_util.h"
#include "null_backend.h"

#define MISS_ROUND	256	/* maps per timed round */
#define MISS_BIG	(4 * MISS_ROUND)	/* ranges: no reclaim */
#define MISS_SMALL	64	/* ranges: every miss reclaims */

enum miss_cell { MISS_NORECLAIM, MISS_RECLAIM, MISS_NCELLS };

static const char *const cell_name[MISS_NCELLS] = { "noreclaim", "reclaim" };

struct miss_result {
	uint64_t wall_ns;		/* the cell's time, eviction included */
	uint64_t cpu_ns;		/* CPU time it got meanwhile */
	uint64_t maps;
	uint64_t map_ns;
	uint64_t map_cpu_ns;		/* the thread's CPU time during its maps */
	uint64_t map_proc_ns;		/* the process's, all threads */
	uint64_t evicted;
	uint64_t evict_ns;
	struct dc_cache_stats d;	/* stats deltas, summed */
};

struct miss_ctx {
	struct dc_cache *big, *small;
	struct dc_inode *streamer;	/* the reclaim cell's inode */
	uint64_t next_index;		/* its next new index */
	struct miss_result res[MISS_NCELLS];
};

/* CPU time of the whole process, all threads, in nanoseconds. */
static uint64_t proc_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Map and unpin @n new indexes from @first; returns the time it took. */
static uint64_t map_new(struct dc_inode *inode, uint64_t first, unsigned int n,
			const char *what)
{
	uint64_t t0 = bench_now_ns(), t1;
	struct dc_pin pin;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = dc_map(inode, (first + i) << BENCH_RANGE_SHIFT, 0, &pin);
		if (__builtin_expect(ret, 0)) {
			t1 = bench_now_ns();
			bench_fail("miss %s: dc_map of index %" PRIu64 ": %d",
				   what, first + i, ret);
			return t1 - t0;
		}
		dc_unpin(&pin);
	}
	return bench_now_ns() - t0;
}

/* map_new() for a cell: its wall, thread and process CPU times go to @r. */
static void map_new_timed(struct miss_result *r, struct dc_inode *inode,
			  uint64_t first, unsigned int n, const char *what)
{
	uint64_t proc0 = proc_cpu_ns(), cpu0 = bench_cpu_ns(), cpu1;

	/* Nested, so that each clock's reading falls outside the inner ones. */
	r->map_ns += map_new(inode, first, n, what);
	cpu1 = bench_cpu_ns();
	r->map_proc_ns += proc_cpu_ns() - proc0;
	r->map_cpu_ns += cpu1 - cpu0;
	r->maps += n;
}

static void run_noreclaim(struct miss_ctx *ctx, double secs)
{
	struct miss_result *r = &ctx->res[MISS_NORECLAIM];
	uint64_t end = bench_now_ns() + (uint64_t)(secs * 1e9), t0;
	struct dc_inode *inode;

	do {
		inode = bench_inode_get(ctx->big, 1);
		map_new_timed(r, inode, 0, MISS_ROUND, "noreclaim");
		t0 = bench_now_ns();
		dc_inode_put(inode);
		r->evict_ns += bench_now_ns() - t0;
		r->evicted += MISS_ROUND;
	} while (bench_now_ns() < end);
}

static void run_reclaim(struct miss_ctx *ctx, double secs)
{
	struct miss_result *r = &ctx->res[MISS_RECLAIM];
	uint64_t end = bench_now_ns() + (uint64_t)(secs * 1e9);

	do {
		map_new_timed(r, ctx->streamer, ctx->next_index, MISS_ROUND,
			      "reclaim");
		ctx->next_index += MISS_ROUND;
	} while (bench_now_ns() < end);
}

static void run_cell(void *arg, unsigned int cell, unsigned int slice,
		     double secs)
{
	struct miss_ctx *ctx = arg;
	struct dc_cache *c = cell == MISS_NORECLAIM ? ctx->big : ctx->small;
	struct miss_result *r = &ctx->res[cell];
	uint64_t t0 = bench_now_ns(), cpu0 = bench_cpu_ns();
	struct dc_cache_stats s0, s1;

	bench_stats(c, &s0);
	if (cell == MISS_NORECLAIM)
		run_noreclaim(ctx, secs);
	else
		run_reclaim(ctx, secs);
	bench_stats(c, &s1);
	bench_stats_delta(&r->d, &s0, &s1);
	r->cpu_ns += bench_cpu_ns() - cpu0;
	r->wall_ns += bench_now_ns() - t0;
}

/*
 * The stats must say what the cells did: only misses; no reclaim with the
 * big window; with the small one, a reclaim for every miss beyond what the
 * free pool held when a slice began (none unless the background reclaimer
 * refilled it: counted, and noted in the report).
 */
static void miss_check(const struct miss_ctx *ctx)
{
	const struct miss_result *n = &ctx->res[MISS_NORECLAIM];
	const struct miss_result *r = &ctx->res[MISS_RECLAIM];

	if (n->d.misses != n->maps || n->d.hits || n->d.inline_reclaims ||
	    n->d.bg_reclaims || n->d.waits || n->d.removes_sent != n->evicted)
		bench_fail("miss noreclaim: %" PRIu64 " maps, %" PRIu64 " evicted; stats: %" PRIu64 " misses, %" PRIu64 " hits, %" PRIu64 " inline and %" PRIu64 " bg reclaims, %" PRIu64 " waits, %" PRIu64 " removes sent",
			   n->maps, n->evicted, n->d.misses, n->d.hits,
			   n->d.inline_reclaims, n->d.bg_reclaims, n->d.waits,
			   n->d.removes_sent);
	if (r->d.misses != r->maps || r->d.hits || r->d.waits ||
	    r->d.inline_reclaims + r->d.bg_reclaims +
	    (uint64_t)MISS_SMALL * BENCH_SLICES < r->maps)
		bench_fail("miss reclaim: %" PRIu64 " maps; stats: %" PRIu64 " misses, %" PRIu64 " hits, %" PRIu64 " waits, %" PRIu64 " inline and %" PRIu64 " bg reclaims",
			   r->maps, r->d.misses, r->d.hits, r->d.waits,
			   r->d.inline_reclaims, r->d.bg_reclaims);
}

static double per(uint64_t ns, uint64_t n)
{
	return n ? (double)ns / (double)n : 0;
}

static void miss_report(const struct miss_ctx *ctx, struct bench_json *j)
{
	const struct miss_result *res = ctx->res;
	unsigned int c;

	printf("%-10s %10s %9s %10s %10s %12s %11s %10s %5s %16s\n", "",
	       "ns/miss", "cpu ns", "all cpu ns", "misses", "inline recl",
	       "bg recl", "removes", "cpu%", "evict ns/range");
	for (c = 0; c < MISS_NCELLS; c++) {
		printf("%-10s %10.1f %9.1f %10.1f %10" PRIu64 " %12" PRIu64 " %11" PRIu64 " %10" PRIu64 " %5.0f",
		       cell_name[c], per(res[c].map_ns, res[c].maps),
		       per(res[c].map_cpu_ns, res[c].maps),
		       per(res[c].map_proc_ns, res[c].maps),
		       res[c].d.misses, res[c].d.inline_reclaims,
		       res[c].d.bg_reclaims, res[c].d.removes_sent,
		       100 * per(res[c].cpu_ns, res[c].wall_ns));
		if (res[c].evicted)
			printf(" %16.1f", per(res[c].evict_ns, res[c].evicted));
		printf("\n");
		bench_json_addf(j, 100 * per(res[c].cpu_ns, res[c].wall_ns),
			     "miss/null/%s/cpu_pct", cell_name[c]);
		bench_json_addf(j, per(res[c].map_ns, res[c].maps), "miss/null/%s",
			     cell_name[c]);
		bench_json_addf(j, per(res[c].map_cpu_ns, res[c].maps),
			     "miss/null/%s/cpu_ns", cell_name[c]);
		bench_json_addf(j, per(res[c].map_proc_ns, res[c].maps),
			     "miss/null/%s/all_cpu_ns", cell_name[c]);
		bench_json_addf(j, (double)res[c].d.misses, "miss/null/%s/misses",
			     cell_name[c]);
		bench_json_addf(j, (double)res[c].d.inline_reclaims,
			     "miss/null/%s/inline_reclaims", cell_name[c]);
	}
	bench_json_addf(j, per(res[MISS_NORECLAIM].evict_ns,
			    res[MISS_NORECLAIM].evicted),
		     "miss/null/evict_per_range");
	bench_json_addf(j, per(res[MISS_RECLAIM].map_ns, res[MISS_RECLAIM].maps) /
		     per(res[MISS_NORECLAIM].map_ns, res[MISS_NORECLAIM].maps),
		     "miss/null/reclaim_over_noreclaim");
	if (res[MISS_RECLAIM].d.bg_reclaims)
		printf("note: the background reclaimer freed %" PRIu64 " ranges during the reclaim cell,\n"
		       "      so some of its misses took a free range instead of reclaiming inline\n",
		       res[MISS_RECLAIM].d.bg_reclaims);
	printf("ns/miss: wall time; cpu ns: the thread's CPU time per miss; all cpu ns: the\n"
	       "process's (every thread: the RCU callbacks freeing replaced tree nodes too)\n");
	printf("reclaim/noreclaim: %.2f; eviction (batched remove, %d per call) is timed apart\n",
	       per(res[MISS_RECLAIM].map_ns, res[MISS_RECLAIM].maps) /
	       per(res[MISS_NORECLAIM].map_ns, res[MISS_NORECLAIM].maps),
	       MISS_ROUND);
}

void bench_miss(const struct bench_opts *o, struct bench_json *j)
{
	struct miss_ctx *ctx = calloc(1, sizeof(*ctx));
	struct dc_cache_stats st;

	if (!ctx) {
		fprintf(stderr, "bench_cache: out of memory\n");
		exit(1);
	}
	printf("== 2. miss path: ns per dc_map of a new index + dc_unpin, null backend, 1 thread ==\n");
	printf("   noreclaim: rounds of %d new indexes into a %d-range window, inode put between rounds\n"
	       "   reclaim:   new indexes into a full %d-range window with an empty free pool:\n"
	       "              each needs a reclaim\n\n",
	       MISS_ROUND, MISS_BIG, MISS_SMALL);
	ctx->big = bench_cache_new(MISS_BIG, 0, &null_backend_ops, NULL);
	ctx->small = bench_cache_new(MISS_SMALL, 0, &null_backend_ops, NULL);
	ctx->streamer = bench_inode_get(ctx->small, 1);
	/*
	 * Fill the small window, and go on until the background reclaimer,
	 * kicked while the pool drained, has gone idle: from here on the pool
	 * stays empty and every miss reclaims.
	 */
	map_new(ctx->streamer, 0, 4 * MISS_SMALL, "fill");
	bench_stats_settled(ctx->small, &st);
	map_new(ctx->streamer, 4 * MISS_SMALL, (unsigned int)st.nr_free, "fill");
	ctx->next_index = 4 * MISS_SMALL + st.nr_free;
	bench_interleave(MISS_NCELLS, o->seconds, run_cell, ctx);
	miss_check(ctx);
	miss_report(ctx, j);
	dc_inode_put(ctx->streamer);
	bench_cache_done(ctx->big, "miss noreclaim cache");
	bench_cache_done(ctx->small, "miss reclaim cache");
	free(ctx);
	printf("\n");
	fflush(stdout);
}
