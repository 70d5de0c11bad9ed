/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_itree.c - point-lookup latency of libdaxcache's RCU interval tree
 * next to a rwlock-protected augmented rbtree, liburcu's lock-free hash
 * table and a flat array, with 1 and 2 readers: without a writer, with one
 * paced at 10,000 insert+remove pairs a second, and with one unthrottled.
 *
 * usage: bench_itree [--time SEC] [--slices N] [--quick] [--max-n N] [--json PATH]
 *        bench_itree instr INDEX N OPS
 *        bench_itree best OPS REPS N...
 *
 * The second form only builds INDEX (dcitree, lfht, ...) with N intervals
 * and does OPS lookups in bench_instr_loop(), single-threaded, for
 * bench/itree/instr to count under callgrind.  The third times that loop
 * for dcitree and lfht with each N, REPS times each, alternating, and
 * prints the best ns per lookup of each and their ratio: on a loaded
 * machine the fastest of many short runs is the one least disturbed.
 *
 * Exits 1 if any lookup returned a wrong item or any update failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <daxcache/thread.h>

#include "../../lib/platform/prng.h"
#include "../common/opts.h"
#include "bench_report.h"
#include "bench_run.h"
#include "bench_target.h"

#define DEFAULT_SECONDS	0.3
#define QUICK_SECONDS	0.02
#define QUICK_MAX_N	100000
#define DEFAULT_SLICES	15	/* per cell, interleaved across the indexes */
#define QUICK_SLICES	5
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const uint64_t sizes[] = { 1000, 100000, 1000000 };
static const unsigned int reader_counts[] = { 1, 2 };

struct options {
	double seconds;
	unsigned int slices;
	uint64_t max_n;
	const char *json;
};

#define STR(x)		#x
#define XSTR(x)		STR(x)

static int parse_options(int argc, char **argv, struct options *o)
{
	struct bench_opt opts[] = {
		BENCH_OPT_TIME(&o->seconds, QUICK_SECONDS, "measuring time per cell (default "
			       XSTR(DEFAULT_SECONDS) ")"),
		{ .name = "slices", .arg = "N", .type = BENCH_OPT_UINT,
		  .dst = &o->slices, .min = 1, .max = BENCH_SLICES_MAX,
		  .on_quick = true, .quick = QUICK_SLICES,
		  .help = "interleaved slices per cell, each one a round\nof the"
			  " paired slowdowns (default " XSTR(DEFAULT_SLICES) ")" },
		BENCH_OPT_QUICK(NULL, "tiny run: --time " XSTR(QUICK_SECONDS)
				" --slices " XSTR(QUICK_SLICES)
				" --max-n " XSTR(QUICK_MAX_N) " unless given"),
		{ .name = "max-n", .arg = "N", .type = BENCH_OPT_U64,
		  .dst = &o->max_n, .min = 1000, .max = 1e19,
		  .on_quick = true, .quick = QUICK_MAX_N,
		  .help = "skip sizes above N (sizes: 1000 100000 1000000)" },
		BENCH_OPT_JSON(&o->json, "results file (default bench/results/itree.json)"),
		BENCH_OPT_END,
	};

	o->seconds = DEFAULT_SECONDS;
	o->slices = DEFAULT_SLICES;
	o->max_n = UINT64_MAX;
	o->json = "bench/results/itree.json";
	bench_opts_main("bench_itree", opts, argc, argv);
	return 0;
}

/* Print every failure in @row loudly; return how many there were. */
static uint64_t check_row(const struct bench_row *row)
{
	const char *w = bench_writer_name(row->writer);
	uint64_t failures = 0;
	int t;

	for (t = 0; t < BENCH_NTARGETS; t++) {
		const struct bench_result *r = &row->res[t];

		if (r->mismatches)
			fprintf(stderr, "FAIL: %s n=%" PRIu64 " readers=%u %s: %" PRIu64 " of %" PRIu64 " lookups returned a wrong item\n",
				bench_targets[t]->name, row->n, row->readers,
				w, r->mismatches, r->lookups);
		if (r->update_errors)
			fprintf(stderr, "FAIL: %s n=%" PRIu64 " readers=%u %s: %" PRIu64 " writer updates failed\n",
				bench_targets[t]->name, row->n, row->readers,
				w, r->update_errors);
		failures += r->mismatches + r->update_errors;
	}
	return failures;
}

/*
 * Measure every index for @seconds under each of the BENCH_NWRITERS
 * configurations of @rows (one per writer mode), in @slices interleaved
 * slices with a rotating order, so that a burst of outside load lands on
 * all indexes and modes alike instead of on one column or one row: the
 * ratios between them are what the bench reports.  Each slice's CPU ns per
 * lookup is kept too, for the ratios paired by slice.
 */
static void measure_rows(struct bench_row *rows, void *const *index,
			 double seconds, unsigned int slices)
{
	struct bench_config cfg = {
		.n = rows[0].n,
		.readers = rows[0].readers,
		.seconds = seconds / slices,
	};
	unsigned int slice;
	int m, i, t;

	for (slice = 0; slice < slices; slice++) {
		cfg.seed = (uint64_t)slice;
		for (m = 0; m < BENCH_NWRITERS; m++) {
			cfg.writer = rows[(slice + m) % BENCH_NWRITERS].writer;
			for (i = 0; i < BENCH_NTARGETS; i++) {
				struct bench_row *row = &rows[cfg.writer];
				struct bench_result one = { 0 };

				t = (int)((slice + (unsigned int)i) % BENCH_NTARGETS);
				cfg.target = bench_targets[t];
				cfg.index = index[t];
				bench_run(&cfg, &one);
				row->slice_cpu[t][slice] = bench_cpu_ns_per_op(&one);
				bench_result_add(&row->res[t], &one);
			}
		}
	}
	for (m = 0; m < BENCH_NWRITERS; m++)
		rows[m].nr_slices = slices;
}

/* Measure every configuration of size @n; rows go to @rows[*nrows...]. */
static uint64_t bench_size(uint64_t n, double seconds, unsigned int slices,
			   struct bench_row *rows, size_t *nrows)
{
	void *index[BENCH_NTARGETS];
	uint64_t failures = 0;
	struct bench_row *group;
	size_t r;
	int t, m;

	for (t = 0; t < BENCH_NTARGETS; t++) {
		index[t] = bench_targets[t]->create(n);
		if (!index[t]) {
			fprintf(stderr, "bench_itree: cannot build %s with n=%" PRIu64 "\n",
				bench_targets[t]->name, n);
			exit(1);
		}
	}
	for (r = 0; r < ARRAY_SIZE(reader_counts); r++) {
		/* One row per writer mode, indexed by it. */
		group = &rows[*nrows];
		for (m = 0; m < BENCH_NWRITERS; m++) {
			group[m].n = n;
			group[m].readers = reader_counts[r];
			group[m].writer = (enum bench_writer)m;
		}
		measure_rows(group, index, seconds, slices);
		for (m = 0; m < BENCH_NWRITERS; m++) {
			bench_report_row(&group[m]);
			failures += check_row(&group[m]);
		}
		*nrows += BENCH_NWRITERS;
	}
	for (t = 0; t < BENCH_NTARGETS; t++)
		bench_targets[t]->destroy(index[t]);
	return failures;
}

/*
 * The loop bench/itree/instr counts and `best` times: the readers' (one
 * draw, one lookup through the target, one check a lookup), with the
 * queries of @seed (> 0).  Not inlined, not static, so
 * that callgrind can name it in --toggle-collect.
 */
__attribute__((noinline)) uint64_t bench_instr_loop(const struct bench_target *t,
						    void *index, uint64_t n,
						    uint64_t ops, uint64_t seed);
__attribute__((noinline)) uint64_t bench_instr_loop(const struct bench_target *t,
						    void *index, uint64_t n,
						    uint64_t ops, uint64_t seed)
{
	/* odd times a small nonzero count: never 0 */
	uint64_t rng = 0x9e3779b97f4a7c15ull * seed, bad = 0, s, i;

	for (i = 0; i < ops; i++) {
		s = (((dci_prng_next(&rng) >> 32) * n) >> 32) * BENCH_STRIDE;
		bad += t->lookup(index, s) != bench_item(s);
	}
	return bad;
}

static int instr_main(int argc, char **argv)
{
	const struct bench_target *t = NULL;
	uint64_t n, ops, bad;
	void *index;
	int i;

	if (argc != 5) {
		fprintf(stderr, "usage: bench_itree instr INDEX N OPS\n");
		return 2;
	}
	for (i = 0; i < BENCH_NTARGETS; i++)
		if (!strcmp(argv[2], bench_targets[i]->name))
			t = bench_targets[i];
	n = strtoull(argv[3], NULL, 10);
	ops = strtoull(argv[4], NULL, 10);
	if (!t || n < 1 || n > UINT32_MAX) {
		fprintf(stderr, "bench_itree instr: bad index or N\n");
		return 2;
	}
	dc_thread_register();
	index = t->create(n);
	if (!index) {
		fprintf(stderr, "bench_itree instr: cannot build %s\n", t->name);
		return 1;
	}
	bad = bench_instr_loop(t, index, n, ops, 1);
	t->destroy(index);
	dc_thread_unregister();
	if (bad) {
		fprintf(stderr, "bench_itree instr: %" PRIu64 " wrong lookups\n", bad);
		return 1;
	}
	printf("%s n=%" PRIu64 ": %" PRIu64 " lookups\n", t->name, n, ops);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One line of `best`: dcitree and lfht with @n intervals. */
static int best_of(uint64_t n, uint64_t ops, uint64_t reps)
{
	static const enum bench_target_id ids[] = { BENCH_DCITREE, BENCH_LFHT };
	double best[ARRAY_SIZE(ids)], ns;
	void *index[ARRAY_SIZE(ids)];
	uint64_t r, t0, bad = 0;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(ids); k++) {
		index[k] = bench_targets[ids[k]]->create(n);
		if (!index[k]) {
			fprintf(stderr, "bench_itree best: cannot build %s\n",
				bench_targets[ids[k]]->name);
			exit(1);
		}
		best[k] = 0;
	}
	for (r = 0; r < reps; r++) {
		for (k = 0; k < ARRAY_SIZE(ids); k++) {
			t0 = mono_ns();
			/* Fresh queries each round, the same for both. */
			bad += bench_instr_loop(bench_targets[ids[k]], index[k],
						n, ops, r + 1);
			ns = (double)(mono_ns() - t0) / (double)ops;
			if (!r || ns < best[k])
				best[k] = ns;
		}
	}
	for (k = 0; k < ARRAY_SIZE(ids); k++)
		bench_targets[ids[k]]->destroy(index[k]);
	if (bad) {
		fprintf(stderr, "bench_itree best: %" PRIu64 " wrong lookups\n", bad);
		return 1;
	}
	printf("n=%" PRIu64 ": best of %" PRIu64 " x %" PRIu64 " lookups: dcitree %.1f ns, lfht %.1f ns, dcitree/lfht %.2f\n",
	       n, reps, ops, best[0], best[1], best[0] / best[1]);
	fflush(stdout);
	return 0;
}

static int best_main(int argc, char **argv)
{
	uint64_t n, ops, reps;
	int i, ret = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: bench_itree best OPS REPS N...\n");
		return 2;
	}
	ops = strtoull(argv[2], NULL, 10);
	reps = strtoull(argv[3], NULL, 10);
	if (!ops || !reps) {
		fprintf(stderr, "bench_itree best: bad OPS or REPS\n");
		return 2;
	}
	dc_thread_register();
	for (i = 4; i < argc; i++) {
		n = strtoull(argv[i], NULL, 10);
		if (n < 1 || n > UINT32_MAX) {
			fprintf(stderr, "bench_itree best: bad N %s\n", argv[i]);
			ret = 2;
			break;
		}
		ret |= best_of(n, ops, reps);
	}
	dc_thread_unregister();
	return ret;
}

int main(int argc, char **argv)
{
	struct bench_row *rows;
	struct options o;
	uint64_t failures = 0;
	size_t s, nrows = 0;
	int ret = 0;

	if (argc > 1 && !strcmp(argv[1], "instr"))
		return instr_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "best"))
		return best_main(argc, argv);
	if (parse_options(argc, argv, &o))
		return 2;
	rows = calloc(ARRAY_SIZE(sizes) * ARRAY_SIZE(reader_counts) *
		      BENCH_NWRITERS,
		      sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "bench_itree: out of memory\n");
		return 1;
	}
	dc_thread_register();
	bench_report_header(o.seconds, (int)o.slices);
	for (s = 0; s < ARRAY_SIZE(sizes) && sizes[s] <= o.max_n; s++)
		failures += bench_size(sizes[s], o.seconds, o.slices, rows, &nrows);
	dc_barrier();
	bench_report_footer(rows, nrows);
	if (failures) {
		fprintf(stderr, "bench_itree: FAILED: %" PRIu64 " wrong lookups or failed updates; no JSON written\n",
			failures);
		ret = 1;
	} else if (bench_report_json(o.json, rows, nrows)) {
		ret = 1;
	}
	dc_thread_unregister();
	free(rows);
	return ret;
}
