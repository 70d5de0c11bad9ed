/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_itree.c - point-lookup latency of libdaxcache's RCU interval tree
 * next to a rwlock-protected augmented rbtree, liburcu's lock-free hash
 * table and a flat array, with 1 and 2 readers, with and without a writer.
 *
 * usage: bench_itree [--time SEC] [--quick] [--max-n N] [--json PATH]
 *
 * Exits 1 if any lookup returned a wrong item or any update failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <daxcache/thread.h>

#include "../common/opts.h"
#include "bench_report.h"
#include "bench_run.h"
#include "bench_target.h"

#define DEFAULT_SECONDS	0.3
#define QUICK_SECONDS	0.02
#define QUICK_MAX_N	100000
#define SLICES		5	/* per cell, interleaved across the indexes */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const uint64_t sizes[] = { 1000, 100000, 1000000 };
static const unsigned int reader_counts[] = { 1, 2 };

struct options {
	double seconds;
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
		BENCH_OPT_QUICK(NULL, "tiny run: --time " XSTR(QUICK_SECONDS)
				" --max-n " XSTR(QUICK_MAX_N) " unless given"),
		{ .name = "max-n", .arg = "N", .type = BENCH_OPT_U64,
		  .dst = &o->max_n, .min = 1000, .max = 1e19,
		  .on_quick = true, .quick = QUICK_MAX_N,
		  .help = "skip sizes above N (sizes: 1000 100000 1000000)" },
		BENCH_OPT_JSON(&o->json, "results file (default bench/results/itree.json)"),
		BENCH_OPT_END,
	};

	o->seconds = DEFAULT_SECONDS;
	o->max_n = UINT64_MAX;
	o->json = "bench/results/itree.json";
	bench_opts_main("bench_itree", opts, argc, argv);
	return 0;
}

/* Print every failure in @row loudly; return how many there were. */
static uint64_t check_row(const struct bench_row *row)
{
	const char *w = row->writer ? "writer" : "nowriter";
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
 * Measure every index for @seconds under @row's configuration, in SLICES
 * interleaved slices with a rotating order, so a burst of outside load
 * lands on all indexes alike instead of on one column.
 */
static void measure_row(struct bench_row *row, void *const *index,
			double seconds)
{
	struct bench_config cfg = {
		.n = row->n,
		.readers = row->readers,
		.writer = row->writer,
		.seconds = seconds / SLICES,
	};
	int slice, i, t;

	for (slice = 0; slice < SLICES; slice++) {
		cfg.seed = (uint64_t)slice;
		for (i = 0; i < BENCH_NTARGETS; i++) {
			t = (slice + i) % BENCH_NTARGETS;
			cfg.target = bench_targets[t];
			cfg.index = index[t];
			bench_run(&cfg, &row->res[t]);
		}
	}
}

/* Measure every configuration of size @n; rows go to @rows[*nrows...]. */
static uint64_t bench_size(uint64_t n, double seconds, struct bench_row *rows,
			   size_t *nrows)
{
	void *index[BENCH_NTARGETS];
	uint64_t failures = 0;
	struct bench_row *row;
	size_t r;
	int t, writer;

	for (t = 0; t < BENCH_NTARGETS; t++) {
		index[t] = bench_targets[t]->create(n);
		if (!index[t]) {
			fprintf(stderr, "bench_itree: cannot build %s with n=%" PRIu64 "\n",
				bench_targets[t]->name, n);
			exit(1);
		}
	}
	for (r = 0; r < ARRAY_SIZE(reader_counts); r++) {
		for (writer = 0; writer < 2; writer++) {
			row = &rows[(*nrows)++];
			row->n = n;
			row->readers = reader_counts[r];
			row->writer = writer;
			measure_row(row, index, seconds);
			bench_report_row(row);
			failures += check_row(row);
		}
	}
	for (t = 0; t < BENCH_NTARGETS; t++)
		bench_targets[t]->destroy(index[t]);
	return failures;
}

int main(int argc, char **argv)
{
	struct bench_row *rows;
	struct options o;
	uint64_t failures = 0;
	size_t s, nrows = 0;
	int ret = 0;

	if (parse_options(argc, argv, &o))
		return 2;
	rows = calloc(ARRAY_SIZE(sizes) * ARRAY_SIZE(reader_counts) * 2,
		      sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "bench_itree: out of memory\n");
		return 1;
	}
	dc_thread_register();
	bench_report_header(o.seconds, SLICES);
	for (s = 0; s < ARRAY_SIZE(sizes) && sizes[s] <= o.max_n; s++)
		failures += bench_size(sizes[s], o.seconds, rows, &nrows);
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
