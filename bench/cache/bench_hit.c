// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_hit.c - section 1: the hit path.
 *
 * Each thread pins and unpins its own 8 mapped ranges in turn, as fast as
 * it can, through the cache (dc_map + dc_unpin: RCU lookup, no lock) and
 * through the kernel baseline (rwlock + rbtree + refcount).  Rows: 1
 * thread; 2 threads on one inode (the usual case: one file, many readers);
 * 2 threads on an inode each (no shared lock in either).  Every pin's
 * window offset is checked against the one mapped at setup.  A third
 * column runs the same loop around calls that do nothing: the loop's own
 * cost, and the best 2-thread scaling this machine gives to threads that
 * share nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_cache.h"
#include "bench_util.h"
#include "kernel_rwlock.h"
#include "noop_target.h"
#include "null_backend.h"

#define HIT_PER_THREAD	8	/* ranges each thread cycles through */
#define HIT_THREADS	2
#define HIT_MAPPED	64	/* mapped ranges per inode */
#define HIT_WINDOW	256	/* ranges: never under reclaim pressure */
#define HIT_BATCH	256	/* pins between looks at the stop flag */

enum hit_target { HIT_DC, HIT_KERNEL, HIT_NOOP, HIT_NTARGETS };
enum hit_row { ROW_1, ROW_2, ROW_2_OWN, HIT_NROWS };

static const char *const target_name[HIT_NTARGETS] = {
	"dc", "kernel_rwlock", "noop",
};

static const struct {
	const char *label;	/* table */
	const char *key;	/* JSON prefix */
	unsigned int threads;
	bool own_inode;
} rows[HIT_NROWS] = {
	{ "1 thread",            "hit",           1, false },
	{ "2 threads, 1 inode",  "hit",           2, false },
	{ "2 threads, 2 inodes", "hit_own_inode", 2, true },
};

struct hit_result {
	uint64_t ops;
	uint64_t thread_ns;	/* summed over threads */
	uint64_t cpu_ns;	/* CPU time the threads got */
	uint64_t wall_ns;	/* summed over slices */
};

struct hit_ctx {
	struct dc_cache *cache;
	struct dc_inode *dc_inode[HIT_THREADS];
	struct kr_inode *kr_inode[HIT_THREADS];
	uint64_t win[HIT_THREADS][HIT_MAPPED];	/* same in both structures */
	bool own_inode;				/* for the running cell */
	struct hit_result res[HIT_NROWS][HIT_NTARGETS];
};

static unsigned int inode_of(const struct hit_ctx *ctx, unsigned int id)
{
	return ctx->own_inode ? id : 0;
}

static void hit_failed(struct bench_thread *th, const char *what, int ret,
		       uint64_t bad)
{
	bench_fail("hit %s thread %u: %" PRIu64 " bad pins (first error %d)",
		   what, th->id, bad, ret);
}

/*
 * HIT_LOOP() - one hit thread's timed loop, the same for every
 * implementation: pin range k with @map (0 or an error; it fills @pin),
 * check the window offset, unpin with @unpin, until told to stop; then
 * report bad pins under @name.  A macro, so that each thread calls its map
 * and unpin directly: an indirect call per pin would be part of the ns/op
 * measured.
 */
#define HIT_LOOP(th, name, want, pin, map, unpin) do {			\
	uint64_t __ops = 0, __bad = 0;					\
	unsigned int __i, k;						\
	int __ret, __err = 0;						\
									\
	bench_thread_begin(th);						\
	do {								\
		for (__i = 0; __i < HIT_BATCH; __i++) {			\
			k = __i % HIT_PER_THREAD;			\
			__ret = (map);					\
			if (__builtin_expect(__ret, 0)) {		\
				__bad++;				\
				__err = __err ? __err : __ret;		\
				continue;				\
			}						\
			__bad += (pin).win_off != (want)[k];		\
			unpin;						\
		}							\
		__ops += HIT_BATCH;					\
	} while (!bench_thread_stopping(th));				\
	bench_thread_end(th, __ops);					\
	if (__bad)							\
		hit_failed(th, name, __err, __bad);			\
} while (0)

/* The file offsets of a thread's ranges, from its first. */
static void hit_offsets(uint64_t *off, unsigned int first)
{
	unsigned int k;

	for (k = 0; k < HIT_PER_THREAD; k++)
		off[k] = (uint64_t)(first + k) << BENCH_RANGE_SHIFT;
}

static void *dc_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct hit_ctx *ctx = th->ctx;
	unsigned int ino = inode_of(ctx, th->id), first = th->id * HIT_PER_THREAD;
	struct dc_inode *inode = ctx->dc_inode[ino];
	const uint64_t *want = &ctx->win[ino][first];
	uint64_t off[HIT_PER_THREAD];
	struct dc_pin pin;

	hit_offsets(off, first);
	HIT_LOOP(th, "dc", want, pin, dc_map(inode, off[k], 0, &pin),
		 dc_unpin(&pin));
	return NULL;
}

static void *kernel_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct hit_ctx *ctx = th->ctx;
	unsigned int ino = inode_of(ctx, th->id), first = th->id * HIT_PER_THREAD;
	struct kr_inode *inode = ctx->kr_inode[ino];
	const uint64_t *want = &ctx->win[ino][first];
	uint64_t off[HIT_PER_THREAD];
	struct kr_pin pin;

	hit_offsets(off, first);
	HIT_LOOP(th, "kernel_rwlock", want, pin, kr_map(inode, off[k], &pin),
		 kr_unpin(&pin));
	return NULL;
}

static void *noop_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct hit_ctx *ctx = th->ctx;
	unsigned int ino = inode_of(ctx, th->id), first = th->id * HIT_PER_THREAD;
	const uint64_t *want = &ctx->win[ino][first];
	struct noop_pin pin;

	HIT_LOOP(th, "noop", want, pin, noop_map(want, k, &pin),
		 noop_unpin(&pin));
	return NULL;
}

static void *(*const thread_fn[HIT_NTARGETS])(void *) = {
	dc_thread, kernel_thread, noop_thread,
};

static void run_cell(void *arg, unsigned int cell, unsigned int slice,
		     double secs)
{
	struct hit_ctx *ctx = arg;
	unsigned int row = cell / HIT_NTARGETS, t = cell % HIT_NTARGETS, i;
	struct hit_result *res = &ctx->res[row][t];
	struct bench_thread th[HIT_THREADS] = { { 0 } };
	struct dc_cache_stats s0, s1;
	uint64_t ops = 0;

	for (i = 0; i < rows[row].threads; i++)
		th[i].ctx = ctx;
	ctx->own_inode = rows[row].own_inode;
	bench_stats(ctx->cache, &s0);
	res->wall_ns += bench_team_run(th, rows[row].threads,
				       thread_fn[t], secs, slice);
	bench_stats(ctx->cache, &s1);
	for (i = 0; i < rows[row].threads; i++) {
		ops += th[i].ops;
		res->thread_ns += th[i].ns;
		res->cpu_ns += th[i].cpu_ns;
	}
	res->ops += ops;
	if (t != HIT_DC)
		return;
	/* Every call a lock-free hit; the stats must say so exactly. */
	if (s1.misses != s0.misses || s1.hits - s0.hits != ops)
		bench_fail("hit dc %s: %" PRIu64 " pins, but stats count %" PRIu64 " hits and %" PRIu64 " misses",
			   rows[row].label, ops, s1.hits - s0.hits,
			   s1.misses - s0.misses);
}

/* Map HIT_MAPPED ranges of each inode in both structures. */
static void hit_setup(struct hit_ctx *ctx)
{
	struct dc_pin pin;
	unsigned int n, k;
	int ret;

	ctx->cache = bench_cache_new(HIT_WINDOW, 0, &null_backend_ops, NULL);
	for (n = 0; n < HIT_THREADS; n++) {
		ctx->dc_inode[n] = bench_inode_get(ctx->cache, n + 1);
		ctx->kr_inode[n] = kr_inode_create(BENCH_RANGE_SHIFT);
		if (!ctx->kr_inode[n]) {
			fprintf(stderr, "bench_cache: out of memory\n");
			exit(1);
		}
		for (k = 0; k < HIT_MAPPED; k++) {
			ret = dc_map(ctx->dc_inode[n],
				     (uint64_t)k << BENCH_RANGE_SHIFT, 0, &pin);
			if (ret) {
				fprintf(stderr, "bench_cache: hit setup: dc_map: %d\n",
					ret);
				exit(1);
			}
			ctx->win[n][k] = pin.win_off;
			dc_unpin(&pin);
			if (kr_inode_add(ctx->kr_inode[n], k, pin.win_off)) {
				fprintf(stderr, "bench_cache: out of memory\n");
				exit(1);
			}
		}
	}
}

static void hit_teardown(struct hit_ctx *ctx)
{
	unsigned int n;

	for (n = 0; n < HIT_THREADS; n++) {
		dc_inode_put(ctx->dc_inode[n]);
		kr_inode_destroy(ctx->kr_inode[n]);
	}
	bench_cache_done(ctx->cache, "hit cache");
}

static double ns_per_op(const struct hit_result *r)
{
	return r->ops ? (double)r->thread_ns / (double)r->ops : 0;
}

/* CPU time the threads got, in percent of their wall time. */
static double cpu_pct(const struct hit_result *r)
{
	return r->thread_ns ? 100.0 * (double)r->cpu_ns / (double)r->thread_ns : 0;
}

/* The least CPU any cell of a row got, in percent of its wall time. */
static double row_cpu_pct(const struct hit_result *row)
{
	double least = cpu_pct(&row[0]);
	unsigned int t;

	for (t = 1; t < HIT_NTARGETS; t++)
		if (cpu_pct(&row[t]) < least)
			least = cpu_pct(&row[t]);
	return least;
}

/* Aggregate pins per second of wall time. */
static double ops_per_s(const struct hit_result *r)
{
	return r->wall_ns ? (double)r->ops * 1e9 / (double)r->wall_ns : 0;
}

static void hit_report(const struct hit_ctx *ctx, struct bench_json *j)
{
	const struct hit_result (*res)[HIT_NTARGETS] = ctx->res;
	unsigned int row, t;
	double scale;

	printf("%-20s %9s %9s %9s %8s %10s %10s %10s %5s\n", "ns/op per thread:",
	       "dc", "kernel", "noop", "kern/dc", "dc Mop/s", "kern Mop/s",
	       "noop Mop/s", "cpu%");
	for (row = 0; row < HIT_NROWS; row++) {
		printf("%-20s", rows[row].label);
		for (t = 0; t < HIT_NTARGETS; t++)
			printf(" %9.1f", ns_per_op(&res[row][t]));
		printf(" %8.2f", ns_per_op(&res[row][HIT_KERNEL]) /
		       ns_per_op(&res[row][HIT_DC]));
		for (t = 0; t < HIT_NTARGETS; t++)
			printf(" %10.1f", ops_per_s(&res[row][t]) / 1e6);
		printf(" %5.0f\n", row_cpu_pct(res[row]));
		for (t = 0; t < HIT_NTARGETS; t++) {
			bench_json_addf(j, ns_per_op(&res[row][t]), "%s/%s/%u",
				     rows[row].key, target_name[t],
				     rows[row].threads);
			bench_json_addf(j, ops_per_s(&res[row][t]),
				     "%s/%s/%u/ops_per_s", rows[row].key,
				     target_name[t], rows[row].threads);
		}
		bench_json_addf(j, ns_per_op(&res[row][HIT_KERNEL]) /
			     ns_per_op(&res[row][HIT_DC]),
			     "%s/kernel_rwlock_over_dc/%u", rows[row].key,
			     rows[row].threads);
		for (t = 0; t < HIT_NTARGETS; t++)
			bench_json_addf(j, cpu_pct(&res[row][t]), "%s/%s/%u/cpu_pct",
				     rows[row].key, target_name[t],
				     rows[row].threads);
	}
	printf("cpu%% = the least CPU time a cell of the row got / its threads' wall time\n");
	printf("\nscaling = 2-thread aggregate pins/s / 1-thread pins/s (2.00 is perfect;\n"
	       "noop shows what this machine gave two threads that share nothing);\n"
	       "in brackets: CPU time the 2 threads got / their wall time\n");
	printf("%-20s%15s%15s%15s\n", "", "dc", "kernel", "noop");
	for (row = ROW_2; row < HIT_NROWS; row++) {
		printf("%-20s", rows[row].label);
		for (t = 0; t < HIT_NTARGETS; t++) {
			scale = ops_per_s(&res[row][t]) / ops_per_s(&res[ROW_1][t]);
			printf("   %5.2f (%3.0f%%)", scale, cpu_pct(&res[row][t]));
			bench_json_addf(j, scale, "%s/%s/scaling", rows[row].key,
				     target_name[t]);
		}
		printf("\n");
	}
}

void bench_hit(const struct bench_opts *o, struct bench_json *j)
{
	struct hit_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx) {
		fprintf(stderr, "bench_cache: out of memory\n");
		exit(1);
	}
	printf("== 1. hit path: ns per map+unpin of a mapped range, per thread ==\n");
	printf("   each thread cycles through its own %d ranges; dc = dc_map+dc_unpin (null backend),\n"
	       "   kernel_rwlock = per-inode rwlock read-locked around an augmented rbtree lookup,\n"
	       "   then refcount_inc / refcount_dec, as fs/fuse/dax.c\n\n",
	       HIT_PER_THREAD);
	hit_setup(ctx);
	bench_interleave(HIT_NROWS * HIT_NTARGETS, o->seconds, run_cell, ctx);
	hit_report(ctx, j);
	hit_teardown(ctx);
	free(ctx);
	printf("\n");
	fflush(stdout);
}
