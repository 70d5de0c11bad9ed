// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_instr.c - the loops that bench/cache/instr runs under
 * valgrind --tool=callgrind to count instructions per operation.
 *
 * usage: bench-instr WHAT N
 *   hit-dc:R        N x (dc_map + dc_unpin) of R ranges mapped in one
 *                   inode (R from 1 to 2^20), each hit of one drawn at
 *                   random (the same draws every run); "hit-dc" is R = 8
 *   whit-dc:R       the same as hit-dc:R with DC_MAP_WRITE, the ranges
 *                   mapped writable first: write hits
 *   hit-kernel:R    N x (kr_map + kr_unpin), the kernel-style baseline,
 *                   the same way
 *   miss            N misses of new indexes, a window that never reclaims
 *   miss-reclaim    N misses into a full window: each reclaims inline
 *   miss-scattered  N misses of new indexes in a scattered order, a window
 *                   that never reclaims: each lands inside a leaf of the
 *                   tree (a copy), where the ascending ones of "miss" are
 *                   appended in place
 *   evict:R         N evictions of an inode that maps R ranges (its last
 *                   dc_inode_put(): every range back to the pool, the
 *                   tree and the inode freed); "evict" is R = EVICT_RANGES
 *   evict-kernel:R  the same in the kernel-style baseline (kr_inode_destroy())
 *   bypass          N random 4 KiB reads with DC_MAP_MAY_BYPASS of a file
 *                   four times a window of BYPASS_WINDOW ranges, as
 *                   examples/mmap-window's regime (b) reads (its setup
 *                   cost, MMAP_SETUP_COST there), after a warm-up of
 *                   BYPASS_WARM reads: most misses are refused; prints
 *                   "misses M bypasses B" of the measured loop (its
 *                   admitted misses and its bypasses), for the script's
 *                   per-miss figure
 *
 * The loop runs once as a warm-up and then N times; the script runs each
 * twice (N and 2N) and divides the difference of the collected counts by
 * N, so that setup, warm-up and teardown cancel out.  It collects inside
 * the measured calls only (callgrind's --toggle-collect: dc_map() and
 * dc_unpin() for hits, whose setup maps through dc_map_timeout() so that
 * its misses are not collected, the measured loop for misses, whose setup may wait
 * for the background reclaimer), plus the RCU callbacks a miss leaves
 * behind (recycling replaced tree nodes, freeing those it does not keep),
 * which a miss costs as surely as its own instructions.
 *
 * Run plain, it does the same and checks the results; it prints nothing
 * but errors (exit 1), or exit 3 when the background reclaimer freed
 * ranges during a miss-reclaim loop (the script runs it again).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/thread.h>

#include "bench_cache.h"
#include "bench_util.h"
#include "kernel_rwlock.h"
#include "null_backend.h"

#define HIT_RANGES	8	/* "hit-dc", "hit-kernel" */
#define HIT_RANGES_MAX	(1u << 20)
#define MISS_FULL	64	/* the reclaiming window */
#define EVICT_RANGES	256	/* "evict": as bench/kernel's miss rounds */
#define BYPASS_WINDOW	32	/* "bypass": mmap-window's default 64 MiB */
#define BYPASS_FILE	(4 * BYPASS_WINDOW)
#define BYPASS_WARM	50000
#define BYPASS_COST	8	/* examples/mmap-window.c's MMAP_SETUP_COST */
#define BYPASS_BLOCK_SHIFT 12

static uint64_t bad, measured;

/*
 * One loop per implementation, each calling its functions directly: an
 * indirect call would be counted in the instructions per operation.
 */

static void __attribute__((noinline)) hit_dc(struct dc_inode *inode,
					     const uint64_t *want,
					     const uint32_t *seq, uint64_t n,
					     unsigned int flags)
{
	struct dc_pin pin;
	uint64_t i;

	for (i = 0; i < n; i++) {
		uint32_t k = seq[i];

		if (dc_map(inode, (uint64_t)k << BENCH_RANGE_SHIFT, flags, &pin)) {
			bad++;
			continue;
		}
		bad += pin.win_off != want[k];
		dc_unpin(&pin);
	}
}

static void __attribute__((noinline)) hit_kernel(struct kr_inode *inode,
						 const uint64_t *want,
						 const uint32_t *seq, uint64_t n)
{
	struct kr_pin pin;
	uint64_t i;

	for (i = 0; i < n; i++) {
		uint32_t k = seq[i];

		if (kr_map(inode, (uint64_t)k << BENCH_RANGE_SHIFT, &pin)) {
			bad++;
			continue;
		}
		bad += pin.win_off != want[k];
		kr_unpin(&pin);
	}
}

/*
 * Map (and unpin) @n new indexes from @first with @flags; each must be a
 * miss.  Inlined into each caller, so that the instructions stay with the
 * function the script collects in.
 */
static inline __attribute__((always_inline)) void
map_new_each(struct dc_inode *inode, uint64_t first, uint64_t n,
	     unsigned int flags)
{
	struct dc_pin pin;
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (dc_map(inode, (first + i) << BENCH_RANGE_SHIFT, flags, &pin)) {
			bad++;
			continue;
		}
		dc_unpin(&pin);
	}
}

static void __attribute__((noinline)) misses(struct dc_inode *inode,
					     uint64_t first, uint64_t n)
{
	map_new_each(inode, first, n, 0);
}

/*
 * With DC_MAP_MAY_BYPASS, into free ranges: a miss under admission control
 * takes a free range without kicking the background reclaimer (each of
 * misses() below the threshold kicks it).
 */
static void __attribute__((noinline)) misses_quiet(struct dc_inode *inode,
						   uint64_t first, uint64_t n)
{
	map_new_each(inode, first, n, DC_MAP_MAY_BYPASS);
}

/*
 * The same as misses(), for the measured misses only: the script collects
 * inside this function (and the RCU callbacks), not in the setup's misses,
 * which may wait for the background reclaimer.
 */
static void __attribute__((noinline)) measured_misses(struct dc_inode *inode,
						      uint64_t first, uint64_t n)
{
	/* Not the same code as misses(), or the two may be folded into one. */
	measured += n;
	map_new_each(inode, first, n, 0);
}

/*
 * measured_misses() in a scattered order: the n new indexes from @first,
 * index first + (i * MISS_STRIDE) % n for i < n, each between two mapped
 * earlier (for n prime to MISS_STRIDE, a permutation).
 */
#define MISS_STRIDE	7919u	/* a prime: no divisor of the N the script uses */

static void __attribute__((noinline)) measured_scattered(struct dc_inode *inode,
							 uint64_t first, uint64_t n)
{
	struct dc_pin pin;
	uint64_t i;

	measured += n;
	for (i = 0; i < n; i++) {
		if (dc_map(inode, (first + (i * MISS_STRIDE) % n) << BENCH_RANGE_SHIFT, 0,
			   &pin)) {
			bad++;
			continue;
		}
		dc_unpin(&pin);
	}
}

/*
 * Reads of the file offsets @seq[0..@n) with DC_MAP_MAY_BYPASS: a pin
 * (hit or admitted miss) is dropped at once, a bypass counted.
 */
static inline __attribute__((always_inline)) void
read_each(struct dc_inode *inode, const uint64_t *seq, uint64_t n)
{
	struct dc_pin pin;
	uint64_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = dc_map(inode, seq[i], DC_MAP_MAY_BYPASS, &pin);
		if (ret == DC_MAP_BYPASS)
			continue;
		if (ret) {
			bad++;
			continue;
		}
		dc_unpin(&pin);
	}
}

static void __attribute__((noinline)) bypass_warm(struct dc_inode *inode,
						  const uint64_t *seq, uint64_t n)
{
	read_each(inode, seq, n);
}

static void __attribute__((noinline)) measured_bypass(struct dc_inode *inode,
						      const uint64_t *seq, uint64_t n)
{
	/* Not the same code as bypass_warm(), or the two may be folded into one. */
	measured += n;
	read_each(inode, seq, n);
}

/*
 * mmap-window's regime (b): uniform random 4 KiB reads of a file four
 * times the window, the same draws in every run; after BYPASS_WARM reads
 * (not measured: the window fills, the sketch reaches its steady state),
 * @n measured.
 */
static void run_bypass(uint64_t n)
{
	uint64_t *seq = calloc(BYPASS_WARM + n, sizeof(*seq));
	uint64_t i, state = 0x9e3779b97f4a7c15ull;
	struct dc_cache_config cfg;
	struct dc_cache_stats s0, s1;
	struct dc_inode *inode;
	struct dc_cache *c;
	int ret;

	if (!seq) {
		fprintf(stderr, "bench-instr: out of memory\n");
		exit(1);
	}
	dc_cache_config_init(&cfg, sizeof(cfg),
			     (uint64_t)BYPASS_WINDOW << BENCH_RANGE_SHIFT);
	cfg.range_shift = BENCH_RANGE_SHIFT;
	cfg.admit_setup_cost = BYPASS_COST;
	ret = dc_cache_create(&cfg, sizeof(cfg), &null_backend_ops,
			      sizeof(null_backend_ops), NULL, &c);
	if (ret) {
		fprintf(stderr, "bench-instr: dc_cache_create: %d\n", ret);
		exit(1);
	}
	inode = bench_inode_get(c, 1);
	for (i = 0; i < BYPASS_WARM + n; i++)
		seq[i] = bench_rand_below(&state, (uint64_t)BYPASS_FILE <<
					  (BENCH_RANGE_SHIFT - BYPASS_BLOCK_SHIFT)) <<
			 BYPASS_BLOCK_SHIFT;
	bypass_warm(inode, seq, BYPASS_WARM);
	bench_stats(c, &s0);
	measured_bypass(inode, seq + BYPASS_WARM, n);
	bench_stats(c, &s1);
	if (s1.hits - s0.hits + s1.misses - s0.misses + s1.bypasses - s0.bypasses != n)
		bench_fail("bypass: %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64 " bypasses counted for %" PRIu64 " reads",
			   s1.hits - s0.hits, s1.misses - s0.misses,
			   s1.bypasses - s0.bypasses, n);
	printf("misses %" PRIu64 " bypasses %" PRIu64 "\n", s1.misses - s0.misses,
	       s1.bypasses - s0.bypasses);
	dc_inode_put(inode);
	bench_cache_done(c, "bypass cache");
	free(seq);
}

/*
 * Hits of @nr ranges mapped in one inode: first each in turn (the warm-up),
 * then @n drawn at random, the same draws in every run.
 */
static void run_hits(uint64_t n, unsigned int nr, bool kernel, unsigned int flags)
{
	struct dc_cache *c = NULL;
	struct dc_inode *inode = NULL;
	struct kr_inode *kr = NULL;
	uint64_t *want = calloc(nr, sizeof(*want));
	uint32_t *seq = calloc(n + nr, sizeof(*seq));
	uint64_t i, state = 0x9e3779b97f4a7c15ull;
	struct dc_cache_stats s0, s1;
	struct dc_pin pin;
	unsigned int k;

	if (kernel)
		kr = kr_inode_create(BENCH_RANGE_SHIFT);
	if (!want || !seq || (kernel && !kr)) {
		fprintf(stderr, "bench-instr: out of memory\n");
		exit(1);
	}
	if (!kernel) {
		/* Twice the ranges mapped: the background reclaimer never runs. */
		c = bench_cache_new(2 * nr + 64, 0, &null_backend_ops, NULL);
		inode = bench_inode_get(c, 1);
	}
	for (k = 0; k < nr; k++) {
		seq[k] = k;
		if (kernel) {
			/* Window offsets as a cache would hand them out. */
			want[k] = (uint64_t)(nr - 1 - k) << BENCH_RANGE_SHIFT;
			if (kr_inode_add(kr, k, want[k])) {
				fprintf(stderr, "bench-instr: out of memory\n");
				exit(1);
			}
			continue;
		}
		/* Not dc_map(): the script collects there. */
		if (dc_map_timeout(inode, (uint64_t)k << BENCH_RANGE_SHIFT, flags,
				   DC_WAIT_FOREVER, &pin)) {
			fprintf(stderr, "bench-instr: setup map failed\n");
			exit(1);
		}
		want[k] = pin.win_off;
		dc_unpin(&pin);
	}
	for (i = 0; i < n; i++)
		seq[nr + i] = (uint32_t)bench_rand_below(&state, nr);
	if (kernel) {
		hit_kernel(kr, want, seq, nr);
		hit_kernel(kr, want, seq + nr, n);
		kr_inode_destroy(kr);
	} else {
		bench_stats(c, &s0);
		hit_dc(inode, want, seq, nr, flags);
		hit_dc(inode, want, seq + nr, n, flags);
		bench_stats(c, &s1);
		if (s1.hits - s0.hits != n + nr || s1.misses != s0.misses)
			bench_fail("hit-dc: %" PRIu64 " hits and %" PRIu64 " misses counted for %" PRIu64 " hits",
				   s1.hits - s0.hits, s1.misses - s0.misses,
				   n + nr);
		dc_inode_put(inode);
		bench_cache_done(c, "hit cache");
	}
	free(seq);
	free(want);
}

/* The eviction measured: the inode's last reference dropped. */
static void __attribute__((noinline)) evict_dc(struct dc_inode *inode)
{
	dc_inode_put(inode);
}

static void __attribute__((noinline)) evict_kernel(struct kr_inode *inode)
{
	kr_inode_destroy(inode);
}

/* A baseline inode of @nr mappings, to destroy. */
static struct kr_inode *kernel_inode(unsigned int nr)
{
	struct kr_inode *kr = kr_inode_create(BENCH_RANGE_SHIFT);
	unsigned int k;

	for (k = 0; kr && k < nr; k++)
		if (kr_inode_add(kr, k, (uint64_t)k << BENCH_RANGE_SHIFT))
			break;
	if (!kr || k < nr) {
		fprintf(stderr, "bench-instr: out of memory\n");
		exit(1);
	}
	return kr;
}

/*
 * @n + 1 rounds (the first a warm-up): a fresh inode maps @nr new ranges,
 * then is evicted.  The window holds twice @nr: the reclaimer never runs,
 * and every range an eviction drops is back in the pool before the next
 * round maps (the stats check it).
 */
static void run_evictions(uint64_t n, unsigned int nr, bool kernel)
{
	struct dc_cache *c = kernel ? NULL :
		bench_cache_new(2 * nr + 64, 0, &null_backend_ops, NULL);
	struct dc_cache_stats st;
	struct dc_inode *inode;
	uint64_t i;

	for (i = 0; i <= n; i++) {
		if (kernel) {
			evict_kernel(kernel_inode(nr));
			continue;
		}
		inode = bench_inode_get(c, i + 1);
		misses(inode, 0, nr);
		evict_dc(inode);
		bench_stats(c, &st);
		if (st.nr_mapped || st.nr_free != st.nr_ranges || st.bg_reclaims ||
		    st.inline_reclaims)
			bench_fail("evict: after round %" PRIu64 ": %" PRIu64 " mapped, %" PRIu64 " of %" PRIu64 " free, %" PRIu64 " reclaims",
				   i, st.nr_mapped, st.nr_free, st.nr_ranges,
				   st.bg_reclaims + st.inline_reclaims);
	}
	if (c)
		bench_cache_done(c, "evict cache");
}

/*
 * The R of "hit-dc:R" after @prefix in @what (@dflt without ":R"), 0 if
 * @what is not one.
 */
static unsigned int ranges_of(const char *what, const char *prefix,
			      unsigned int dflt)
{
	size_t len = strlen(prefix);
	unsigned long r;
	char *end;

	if (strncmp(what, prefix, len))
		return 0;
	if (!what[len])
		return dflt;
	if (what[len] != ':')
		return 0;
	r = strtoul(what + len + 1, &end, 10);
	if (*end || !r || r > HIT_RANGES_MAX) {
		fprintf(stderr, "bench-instr: bad range count in %s\n", what);
		exit(2);
	}
	return (unsigned int)r;
}

static void run_misses(uint64_t n, bool reclaim, bool scattered)
{
	unsigned int window = reclaim ? MISS_FULL : (unsigned int)(2 * n + 64);
	struct dc_cache *c = bench_cache_new(window, 0, &null_backend_ops, NULL);
	struct dc_inode *inode = bench_inode_get(c, 1);
	struct dc_cache_stats s0, s1, st;
	uint64_t next = 0;

	if (reclaim) {
		/*
		 * Fill the window, then take what the background reclaimer,
		 * kicked while the pool drained, frees, without kicking it
		 * again, until it has gone idle with nothing free: from there
		 * on every miss reclaims inline.
		 */
		misses(inode, 0, 4 * MISS_FULL);
		next = 4 * MISS_FULL;
		for (;;) {
			bench_stats_settled(c, &st);
			if (!st.nr_free)
				break;
			misses_quiet(inode, next, st.nr_free);
			next += st.nr_free;
		}
	}
	/* The warm-up: the tree's first levels, the allocator's first pages. */
	misses(inode, next, 32);
	next += 32;
	bench_stats(c, &s0);
	if (scattered && n % MISS_STRIDE == 0)
		bench_fail("miss-scattered: N %" PRIu64 " is a multiple of %u", n, MISS_STRIDE);
	if (scattered)
		measured_scattered(inode, next, n);
	else
		measured_misses(inode, next, n);
	dc_barrier();
	bench_stats(c, &s1);
	if (reclaim && s1.misses - s0.misses == n && s1.hits == s0.hits &&
	    s1.inline_reclaims - s0.inline_reclaims +
	    s1.bg_reclaims - s0.bg_reclaims == n && s1.bg_reclaims != s0.bg_reclaims) {
		/*
		 * The background reclaimer woke late (a loaded machine) and
		 * freed ranges that some misses took: not the path measured.
		 * bench/cache/instr runs it again.
		 */
		fprintf(stderr, "bench-instr: miss-reclaim: %" PRIu64 " background reclaims during the loop; run it again\n",
			s1.bg_reclaims - s0.bg_reclaims);
		exit(3);
	}
	if (s1.misses - s0.misses != n || s1.hits != s0.hits ||
	    (reclaim && s1.inline_reclaims - s0.inline_reclaims != n) ||
	    (!reclaim && s1.inline_reclaims + s1.bg_reclaims))
		bench_fail("%s: %" PRIu64 " misses, %" PRIu64 " hits, %" PRIu64 " inline reclaims counted for %" PRIu64 " misses",
			   reclaim ? "miss-reclaim" : scattered ? "miss-scattered" : "miss",
			   s1.misses - s0.misses, s1.hits - s0.hits,
			   s1.inline_reclaims - s0.inline_reclaims, n);
	dc_inode_put(inode);
	bench_cache_done(c, "miss cache");
}

int main(int argc, char **argv)
{
	unsigned int nr;
	uint64_t n;
	char *end;

	if (argc != 3) {
		fprintf(stderr, "usage: bench-instr hit-dc[:R]|whit-dc[:R]|hit-kernel[:R]|miss|miss-reclaim|miss-scattered|bypass|evict[:R]|evict-kernel[:R] N\n");
		return 2;
	}
	n = strtoull(argv[2], &end, 10);
	if (*end || !n || n > 100000000) {
		fprintf(stderr, "bench-instr: bad N %s\n", argv[2]);
		return 2;
	}
	dc_thread_register();
	if ((nr = ranges_of(argv[1], "hit-dc", HIT_RANGES)))
		run_hits(n, nr, false, 0);
	else if ((nr = ranges_of(argv[1], "whit-dc", HIT_RANGES)))
		run_hits(n, nr, false, DC_MAP_WRITE);
	else if ((nr = ranges_of(argv[1], "hit-kernel", HIT_RANGES)))
		run_hits(n, nr, true, 0);
	else if (!strcmp(argv[1], "miss"))
		run_misses(n, false, false);
	else if (!strcmp(argv[1], "miss-reclaim"))
		run_misses(n, true, false);
	else if (!strcmp(argv[1], "miss-scattered"))
		run_misses(n, false, true);
	else if (!strcmp(argv[1], "bypass"))
		run_bypass(n);
	else if ((nr = ranges_of(argv[1], "evict-kernel", EVICT_RANGES)))
		run_evictions(n, nr, true);
	else if ((nr = ranges_of(argv[1], "evict", EVICT_RANGES)))
		run_evictions(n, nr, false);
	else {
		fprintf(stderr, "bench-instr: unknown %s\n", argv[1]);
		return 2;
	}
	dc_barrier();
	dc_thread_unregister();
	if (bad)
		bench_fail("%" PRIu64 " bad pins", bad);
	if (bench_failures()) {
		fprintf(stderr, "bench-instr: FAILED\n");
		return 1;
	}
	return 0;
}
