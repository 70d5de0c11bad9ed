// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_share.c - section 1b: how hits scale with what two threads share.
 *
 * Section 1 gives each thread 8 ranges of its own, far apart in the
 * window: the shape the hit path was tuned on.  Here one inode maps
 * SHARE_MAPPED ranges, and each shape runs with 1 thread and with 2
 * (2 is this machine's limit); the figure is the 2-thread aggregate pins
 * per second over the 1-thread figure (2.00 is perfect):
 *
 *   random    each thread its own random sequence over all the mapped
 *             ranges (the general case: a big file read at random);
 *   adjacent  each thread one range, the two neighbours in the window
 *             (their struct dci_range side by side in memory);
 *   same      both threads one range (the pin count is one shared line).
 *
 * Targets: dc (dc_map + dc_unpin: a hit pinned in a slot of the thread),
 * dc_counted (the same calls while the thread holds SHARE_HELD other pins,
 * so that every hit is counted in the range's shared count, as every hit
 * was before slots), the kernel-style baseline (rwlock +
 * rbtree + refcount, as fs/fuse/dax.c), noop (the loop itself: what the
 * machine gives two threads that share nothing), and, for the same range,
 * a prototype of a pin that writes no shared line (a hazard pointer: the
 * range in a slot of the pinning thread's own, a full fence, the identity
 * checked again; see proto_pin()), to show what bounds the shared pin.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_cache.h"
#include "bench_util.h"
#include "kernel_rwlock.h"
#include "noop_target.h"
#include "null_backend.h"

#define SHARE_MAPPED	4096	/* mapped ranges of the one inode */
#define SHARE_WINDOW	(2 * SHARE_MAPPED)	/* never under reclaim pressure */
#define SHARE_THREADS	2
#define SHARE_SEQ	4096	/* pins in a thread's random sequence */
#define SHARE_BATCH	256	/* pins between looks at the stop flag */
#define SHARE_LINE	64

enum share_shape { SH_RANDOM, SH_ADJACENT, SH_SAME, SH_NSHAPES };
enum share_target {
	ST_DC, ST_DC_COUNTED, ST_KERNEL, ST_NOOP, ST_PROTO, ST_NTARGETS
};

static const char *const shape_name[SH_NSHAPES] = {
	"random", "adjacent", "same",
};
static const char *const shape_label[SH_NSHAPES] = {
	"random over 4096", "adjacent ranges", "same range",
};
static const char *const target_name[ST_NTARGETS] = {
	"dc", "dc_counted", "kernel_rwlock", "noop", "hazard_proto",
};

/*
 * dc_counted holds this many pins of its own before it starts, more than
 * a thread has slots (userspace: DCI_PLAT_PIN_SLOTS, 4), so that every
 * hit it times is pinned in the range's count: the shared-count pin that
 * slots replaced, reached through the slot pin's full-slots path.
 */
#define SHARE_HELD	8

/*
 * The prototype's range: what a hit reads (identity, generation, window
 * offset), nothing a pin writes.  Its pin is a slot per thread, on a line
 * of its own.
 */
struct proto_range {
	uint64_t gen;
	uint64_t index;
	uint64_t win_off;
} __attribute__((aligned(SHARE_LINE)));

struct proto_slot {
	const struct proto_range *hp;
} __attribute__((aligned(SHARE_LINE)));

struct share_result {
	uint64_t ops;
	uint64_t wall_ns;
	uint64_t thread_ns;
	uint64_t cpu_ns;
};

struct share_ctx {
	struct dc_cache *cache;
	struct dc_inode *inode;
	struct kr_inode *kr;
	uint64_t win[SHARE_MAPPED];
	/* Per thread and shape: the indexes it pins, in order. */
	uint32_t seq[SH_NSHAPES][SHARE_THREADS][SHARE_SEQ];
	unsigned int adjacent[SHARE_THREADS];
	struct proto_range proto;
	struct proto_slot slot[SHARE_THREADS];
	enum share_shape shape;	/* for the running cell */
	struct share_result res[SH_NSHAPES][SHARE_THREADS][ST_NTARGETS];
};

/*
 * A hazard-pointer pin of @r for @index: publish it in the thread's own
 * slot, fence, check the identity again (a reclaimer would clear the
 * identity, fence, and look for the range in every slot before reusing
 * it).  Stores go to the thread's own line only; the range is read.
 */
static inline int proto_pin(struct proto_slot *slot,
			    const struct proto_range *r, uint64_t index,
			    struct noop_pin *pin)
{
	uint64_t gen = __atomic_load_n(&r->gen, __ATOMIC_ACQUIRE);

	if (r->index != index)
		return -ENOENT;
	__atomic_store_n(&slot->hp, r, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->gen, __ATOMIC_SEQ_CST) != gen) {
		__atomic_store_n(&slot->hp, NULL, __ATOMIC_RELEASE);
		return -EAGAIN;
	}
	pin->win_off = r->win_off;
	pin->slot = NULL;
	return 0;
}

static inline void proto_unpin(struct proto_slot *slot)
{
	__atomic_store_n(&slot->hp, NULL, __ATOMIC_RELEASE);
}

/*
 * SHARE_LOOP() - a thread's timed loop: pin the indexes of @seq in turn
 * with @map (0 or an error; it fills @pin), check the window offset
 * against @win, unpin, until told to stop.  A macro, so that each target
 * is called directly (an indirect call would be part of what is timed).
 */
#define SHARE_LOOP(th, name, seq, win, pin, map, unpin) do {		\
	uint64_t __ops = 0, __bad = 0;					\
	unsigned int __i, __k = 0, idx;					\
	int __ret;							\
									\
	bench_thread_begin(th);						\
	do {								\
		for (__i = 0; __i < SHARE_BATCH; __i++) {		\
			idx = (seq)[__k];				\
			__k = (__k + 1) % SHARE_SEQ;			\
			__ret = (map);					\
			if (__builtin_expect(__ret, 0)) {		\
				__bad++;				\
				continue;				\
			}						\
			__bad += (pin).win_off != (win)[idx];		\
			unpin;						\
		}							\
		__ops += SHARE_BATCH;					\
	} while (!bench_thread_stopping(th));				\
	bench_thread_end(th, __ops);					\
	if (__bad)							\
		bench_fail("share %s %s thread %u: %" PRIu64 " bad pins",	\
			   name, shape_name[ctx->shape], (th)->id, __bad); \
} while (0)

static const uint32_t *thread_seq(const struct share_ctx *ctx,
				  const struct bench_thread *th)
{
	return ctx->seq[ctx->shape][th->id];
}

static uint64_t share_off(unsigned int idx)
{
	return (uint64_t)idx << BENCH_RANGE_SHIFT;
}

static void *dc_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct share_ctx *ctx = th->ctx;
	const uint32_t *seq = thread_seq(ctx, th);
	struct dc_pin pin;

	SHARE_LOOP(th, "dc", seq, ctx->win, pin,
		   dc_map(ctx->inode, share_off(idx), 0, &pin), dc_unpin(&pin));
	return NULL;
}

/* dc with the thread's slots all taken: every timed pin is counted. */
static void *dc_counted_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct share_ctx *ctx = th->ctx;
	const uint32_t *seq = thread_seq(ctx, th);
	struct dc_pin held[SHARE_HELD], pin;
	unsigned int k;
	int ret;

	for (k = 0; k < SHARE_HELD; k++) {
		ret = dc_map(ctx->inode, share_off(SHARE_MAPPED - 1 - k), 0,
			     &held[k]);
		if (ret)
			bench_fail("share dc_counted: held pin %u: %d", k, ret);
	}
	SHARE_LOOP(th, "dc_counted", seq, ctx->win, pin,
		   dc_map(ctx->inode, share_off(idx), 0, &pin), dc_unpin(&pin));
	for (k = 0; k < SHARE_HELD; k++)
		dc_unpin(&held[k]);
	return NULL;
}

static void *kernel_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct share_ctx *ctx = th->ctx;
	const uint32_t *seq = thread_seq(ctx, th);
	struct kr_pin pin;

	SHARE_LOOP(th, "kernel_rwlock", seq, ctx->win, pin,
		   kr_map(ctx->kr, share_off(idx), &pin), kr_unpin(&pin));
	return NULL;
}

static void *noop_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct share_ctx *ctx = th->ctx;
	const uint32_t *seq = thread_seq(ctx, th);
	struct noop_pin pin;

	SHARE_LOOP(th, "noop", seq, ctx->win, pin,
		   noop_map(ctx->win, idx, &pin), noop_unpin(&pin));
	return NULL;
}

/* The same range only: the prototype models one range. */
static void *proto_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct share_ctx *ctx = th->ctx;
	const uint32_t *seq = thread_seq(ctx, th);
	struct proto_slot *slot = &ctx->slot[th->id];
	struct noop_pin pin;

	SHARE_LOOP(th, "hazard_proto", seq, ctx->win, pin,
		   proto_pin(slot, &ctx->proto, idx, &pin), proto_unpin(slot));
	return NULL;
}

static void *(*const thread_fn[ST_NTARGETS])(void *) = {
	dc_thread, dc_counted_thread, kernel_thread, noop_thread,
	proto_thread,
};

static bool target_runs(enum share_shape s, enum share_target t)
{
	return t != ST_PROTO || s == SH_SAME;
}

/* Cells: shape x threads (1, 2) x target. */
static void run_cell(void *arg, unsigned int cell, unsigned int slice,
		     double secs)
{
	struct share_ctx *ctx = arg;
	unsigned int t = cell % ST_NTARGETS;
	unsigned int n = (cell / ST_NTARGETS) % SHARE_THREADS + 1;
	unsigned int s = cell / (ST_NTARGETS * SHARE_THREADS), i;
	struct share_result *res = &ctx->res[s][n - 1][t];
	struct bench_thread th[SHARE_THREADS] = { { 0 } };

	if (!target_runs(s, t))
		return;
	for (i = 0; i < n; i++)
		th[i].ctx = ctx;
	ctx->shape = s;
	res->wall_ns += bench_team_run(th, n, thread_fn[t], secs, slice);
	for (i = 0; i < n; i++) {
		res->ops += th[i].ops;
		res->thread_ns += th[i].ns;
		res->cpu_ns += th[i].cpu_ns;
	}
}

/* Two mapped indexes whose ranges are neighbours in the window. */
static void find_adjacent(struct share_ctx *ctx)
{
	const uint64_t rs = 1ull << BENCH_RANGE_SHIFT;
	unsigned int a, b;

	for (a = 0; a < SHARE_MAPPED; a++)
		for (b = 0; b < SHARE_MAPPED; b++)
			if (ctx->win[b] == ctx->win[a] + rs) {
				ctx->adjacent[0] = a;
				ctx->adjacent[1] = b;
				return;
			}
	fprintf(stderr, "bench_cache: share setup: no neighbours in the window\n");
	exit(1);
}

static void make_sequences(struct share_ctx *ctx)
{
	unsigned int n, k;

	for (n = 0; n < SHARE_THREADS; n++) {
		uint64_t rng = bench_seed(77, n);

		for (k = 0; k < SHARE_SEQ; k++) {
			ctx->seq[SH_RANDOM][n][k] =
				(uint32_t)bench_rand_below(&rng, SHARE_MAPPED);
			ctx->seq[SH_ADJACENT][n][k] = ctx->adjacent[n];
			ctx->seq[SH_SAME][n][k] = 0;
		}
	}
}

static void share_setup(struct share_ctx *ctx)
{
	struct dc_pin pin;
	unsigned int k;
	int ret;

	ctx->cache = bench_cache_new(SHARE_WINDOW, 0, &null_backend_ops, NULL);
	ctx->inode = bench_inode_get(ctx->cache, 1);
	ctx->kr = kr_inode_create(BENCH_RANGE_SHIFT);
	if (!ctx->kr) {
		fprintf(stderr, "bench_cache: out of memory\n");
		exit(1);
	}
	for (k = 0; k < SHARE_MAPPED; k++) {
		ret = dc_map(ctx->inode, share_off(k), 0, &pin);
		if (ret) {
			fprintf(stderr, "bench_cache: share setup: dc_map: %d\n", ret);
			exit(1);
		}
		ctx->win[k] = pin.win_off;
		dc_unpin(&pin);
		if (kr_inode_add(ctx->kr, k, pin.win_off)) {
			fprintf(stderr, "bench_cache: out of memory\n");
			exit(1);
		}
	}
	ctx->proto.gen = 1;
	ctx->proto.index = 0;
	ctx->proto.win_off = ctx->win[0];
	find_adjacent(ctx);
	make_sequences(ctx);
}

static double ops_per_s(const struct share_result *r)
{
	return r->wall_ns ? (double)r->ops * 1e9 / (double)r->wall_ns : 0;
}

static double ns_per_op(const struct share_result *r)
{
	return r->ops ? (double)r->thread_ns / (double)r->ops : 0;
}

static double cpu_pct(const struct share_result *r)
{
	return r->thread_ns ? 100.0 * (double)r->cpu_ns / (double)r->thread_ns : 0;
}

static void share_report(const struct share_ctx *ctx, struct bench_json *j)
{
	unsigned int s, t;

	printf("%-18s", "ns/op 1 thread:");
	for (t = 0; t < ST_NTARGETS; t++)
		printf(" %13s", target_name[t]);
	printf("\n");
	for (s = 0; s < SH_NSHAPES; s++) {
		printf("%-18s", shape_label[s]);
		for (t = 0; t < ST_NTARGETS; t++) {
			if (!target_runs(s, t)) {
				printf(" %13s", "-");
				continue;
			}
			printf(" %13.1f", ns_per_op(&ctx->res[s][0][t]));
			bench_json_addf(j, ns_per_op(&ctx->res[s][0][t]),
					"share/%s/%s/ns_1", shape_name[s],
					target_name[t]);
		}
		printf("\n");
	}
	printf("\nscaling = 2-thread aggregate pins/s / 1-thread pins/s (2.00 is perfect;\n"
	       "target: dc at least 1.80 for random and adjacent); in brackets:\n"
	       "CPU time the 2 threads got / their wall time\n");
	printf("%-18s", "");
	for (t = 0; t < ST_NTARGETS; t++)
		printf(" %13s", target_name[t]);
	printf("\n");
	for (s = 0; s < SH_NSHAPES; s++) {
		printf("%-18s", shape_label[s]);
		for (t = 0; t < ST_NTARGETS; t++) {
			const struct share_result *one = &ctx->res[s][0][t];
			const struct share_result *two = &ctx->res[s][1][t];
			double scale;

			if (!target_runs(s, t)) {
				printf(" %13s", "-");
				continue;
			}
			scale = ops_per_s(one) ? ops_per_s(two) / ops_per_s(one) : 0;
			printf("   %4.2f (%3.0f%%)", scale, cpu_pct(two));
			bench_json_addf(j, scale, "share/%s/%s/scaling",
					shape_name[s], target_name[t]);
			bench_json_addf(j, cpu_pct(two), "share/%s/%s/cpu_pct",
					shape_name[s], target_name[t]);
		}
		printf("\n");
	}
}

void bench_share(const struct bench_opts *o, struct bench_json *j)
{
	struct share_ctx *ctx = calloc(1, sizeof(*ctx));
	unsigned int k;

	if (!ctx) {
		fprintf(stderr, "bench_cache: out of memory\n");
		exit(1);
	}
	printf("== 1b. hit scaling: 1 and 2 threads on one inode of %d mapped ranges ==\n"
	       "   random: each thread its own random sequence over them; adjacent: a range\n"
	       "   each, neighbours in the window; same: one range for both\n\n",
	       SHARE_MAPPED);
	share_setup(ctx);
	bench_interleave(SH_NSHAPES * SHARE_THREADS * ST_NTARGETS, o->seconds,
			 run_cell, ctx);
	share_report(ctx, j);
	dc_inode_put(ctx->inode);
	kr_inode_destroy(ctx->kr);
	bench_cache_done(ctx->cache, "share cache");
	for (k = 0; k < SHARE_THREADS; k++)
		if (ctx->slot[k].hp)
			bench_fail("share: hazard slot %u left set", k);
	free(ctx);
	printf("\n");
	fflush(stdout);
}
