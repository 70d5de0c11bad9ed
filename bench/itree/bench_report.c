/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_report.c - the itree bench's table, notes and JSON file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "../common/json.h"
#include "../common/stats.h"
#include "bench_report.h"

/* The lookup's targets: against lfht, and beside a paced writer. */
#define TARGET_OVER_LFHT	1.0	/* dcitree ns/op over lfht's, at most */
#define TARGET_PACED_SLOWDOWN	1.10	/* with writer10k over without, at most */

void bench_report_header(double seconds, int slices)
{
	int t;

	printf("itree point lookup: ns/op per reader thread, %.2f s per cell in %d interleaved slices\n\n",
	       seconds, slices);
	printf("%9s %3s %-9s", "n", "rd", "writer");
	for (t = 0; t < BENCH_NTARGETS; t++)
		printf(" %13s", bench_targets[t]->name);
	printf(" %14s %12s\n", "rbtree/dcitree", "dcitree/flat");
	fflush(stdout);
}

void bench_report_row(const struct bench_row *row)
{
	const struct bench_result *r = row->res;
	int t;

	printf("%9" PRIu64 " %3u %-9s", row->n, row->readers,
	       bench_writer_name(row->writer));
	for (t = 0; t < BENCH_NTARGETS; t++)
		printf(" %13.1f", bench_ns_per_op(&r[t]));
	printf(" %14.2f %12.2f\n",
	       bench_ns_per_op(&r[BENCH_RBTREE_RWLOCK]) /
	       bench_ns_per_op(&r[BENCH_DCITREE]),
	       bench_ns_per_op(&r[BENCH_DCITREE]) /
	       bench_ns_per_op(&r[BENCH_FLAT]));
	fflush(stdout);
}

const struct bench_row *bench_report_find(const struct bench_row *rows,
					  size_t nrows, uint64_t n,
					  unsigned int readers,
					  enum bench_writer writer)
{
	size_t i;

	for (i = 0; i < nrows; i++)
		if (rows[i].n == n && rows[i].readers == readers &&
		    rows[i].writer == writer)
			return &rows[i];
	return NULL;
}

double bench_report_slowdown(const struct bench_row *rows, size_t nrows,
			     const struct bench_row *row, int t, bool cpu)
{
	const struct bench_row *base = bench_report_find(rows, nrows, row->n,
							 row->readers,
							 BENCH_NOWRITER);
	double (*per_op)(const struct bench_result *) =
		cpu ? bench_cpu_ns_per_op : bench_ns_per_op;
	double b = base ? per_op(&base->res[t]) : 0;

	return b > 0 ? per_op(&row->res[t]) / b : 0;
}

double bench_report_slowdown_paired(const struct bench_row *rows, size_t nrows,
				    const struct bench_row *row, int t,
				    double *lo, double *hi)
{
	const struct bench_row *base = bench_report_find(rows, nrows, row->n,
							 row->readers,
							 BENCH_NOWRITER);
	unsigned int n;
	double m;

	*lo = *hi = 0;
	if (!base)
		return 0;
	n = row->nr_slices < base->nr_slices ? row->nr_slices : base->nr_slices;
	bench_paired_median(row->slice_cpu[t], base->slice_cpu[t], n, &m, lo, hi);
	return m;
}

/* dcitree's ns/op over lfht's in @row, CPU or thread time; 0 if none. */
static double over_lfht(const struct bench_row *row, bool cpu)
{
	double (*per_op)(const struct bench_result *) =
		cpu ? bench_cpu_ns_per_op : bench_ns_per_op;
	double l = per_op(&row->res[BENCH_LFHT]);

	return l > 0 ? per_op(&row->res[BENCH_DCITREE]) / l : 0;
}

static void print_writer_rates(const struct bench_row *rows, size_t nrows)
{
	size_t i;
	int t;

	printf("\nwriter: insert+remove pairs per second while the readers ran\n\n");
	printf("%9s %3s %-9s", "n", "rd", "writer");
	for (t = 0; t < BENCH_NTARGETS; t++)
		printf(" %13s", bench_targets[t]->name);
	printf("\n");
	for (i = 0; i < nrows; i++) {
		if (rows[i].writer == BENCH_NOWRITER)
			continue;
		printf("%9" PRIu64 " %3u %-9s", rows[i].n, rows[i].readers,
		       bench_writer_name(rows[i].writer));
		for (t = 0; t < BENCH_NTARGETS; t++)
			printf(" %13.0f",
			       bench_updates_per_s(&rows[i].res[t]));
		printf("\n");
	}
}

static const char *verdict(double v, double limit)
{
	return v <= 0 ? "-" : v <= limit ? "met" : "NOT met";
}

/*
 * An upper bound's verdict on a paired median @v with interval @lo: not
 * met "within noise" while the interval still reaches the bound.
 */
static const char *paired_verdict(double v, double lo, double limit)
{
	if (v <= 0)
		return "-";
	if (v <= limit)
		return "met";
	return lo <= limit ? "NOT met, within noise" : "NOT met, beyond noise";
}

/* The targets' figures of every size and reader count; returns misses. */
static unsigned int print_targets(const struct bench_row *rows, size_t nrows)
{
	const struct bench_row *none, *paced, *full;
	unsigned int missed = 0;
	double over, sp, lo, hi;
	size_t i;

	printf("\ntargets, read on reader CPU time (time descheduled\n"
	       "left out): dcitree's lookup at most lfht's (ns/op ratio <= %.2f, no\n"
	       "writer); a writer at %d pairs/s slows dcitree's readers by at most\n"
	       "%.0f%% (ns/op with it over without <= %.2f), judged on the median of\n"
	       "the ratios paired by slice, with its 95%% confidence interval: \"within\n"
	       "noise\" while the interval reaches the bound.  \"of sums\": the same\n"
	       "ratio over the whole cell.  The unthrottled writer's slowdown is\n"
	       "reported, with no target.  \"thread time\": the ratios of the ns/op\n"
	       "above; lfht's slowdowns for comparison.\n\n",
	       TARGET_OVER_LFHT, BENCH_PACED_RATE,
	       (TARGET_PACED_SLOWDOWN - 1) * 100, TARGET_PACED_SLOWDOWN);
	printf("%9s %3s | %-93s | %-19s | %s\n", "", "", "CPU time",
	       "thread time", "lfht, CPU");
	printf("%9s %3s | %-24s | %-47s | %7s | %6s | %5s %5s %6s | %5s %6s\n",
	       "n", "rd", "dcitree/lfht", "writer10k slowdown by slice (95% CI)",
	       "of sums", "writer", "ratio", "w10k", "writer", "w10k", "writer");
	for (i = 0; i < nrows; i++) {
		if (rows[i].writer != BENCH_NOWRITER)
			continue;
		none = &rows[i];
		paced = bench_report_find(rows, nrows, none->n, none->readers,
					  BENCH_WRITER_PACED);
		full = bench_report_find(rows, nrows, none->n, none->readers,
					 BENCH_WRITER);
		if (!paced || !full)
			continue;
		over = over_lfht(none, true);
		sp = bench_report_slowdown_paired(rows, nrows, paced, BENCH_DCITREE,
						  &lo, &hi);
		missed += !(over > 0 && over <= TARGET_OVER_LFHT);
		missed += !(sp > 0 && sp <= TARGET_PACED_SLOWDOWN);
		printf("%9" PRIu64 " %3u | %5.2f <= %4.2f %-10s | %5.2f (%4.2f-%4.2f) <= %4.2f %-21s | %7.2f | %6.2f | %5.2f %5.2f %6.2f | %5.2f %6.2f\n",
		       none->n, none->readers,
		       over, TARGET_OVER_LFHT, verdict(over, TARGET_OVER_LFHT),
		       sp, lo, hi, TARGET_PACED_SLOWDOWN,
		       paired_verdict(sp, lo, TARGET_PACED_SLOWDOWN),
		       bench_report_slowdown(rows, nrows, paced, BENCH_DCITREE, true),
		       bench_report_slowdown(rows, nrows, full, BENCH_DCITREE, true),
		       over_lfht(none, false),
		       bench_report_slowdown(rows, nrows, paced, BENCH_DCITREE, false),
		       bench_report_slowdown(rows, nrows, full, BENCH_DCITREE, false),
		       bench_report_slowdown(rows, nrows, paced, BENCH_LFHT, true),
		       bench_report_slowdown(rows, nrows, full, BENCH_LFHT, true));
	}
	if (missed)
		printf("\ntargets: %u NOT met (reported, not asserted)\n", missed);
	else
		printf("\ntargets: all met\n");
	return missed;
}

static void print_notes(const struct bench_row *rows, size_t nrows)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int busy, most = 0;
	size_t i;

	printf("\nnotes:\n"
	       "- ns/op = reader thread-seconds / lookups, the latency one reader sees.\n"
	       "  Every column pays the same harness cost per lookup (xorshift draw,\n"
	       "  one indirect call, check of the returned item).\n"
	       "- lfht finds exact starts only; flat has one slot per 2-point granule.\n"
	       "- rbtree_rwlock uses a default pthread rwlock (glibc: readers first),\n"
	       "  so busy readers can starve its writer: see the writer rates.\n");
	for (i = 0; i < nrows; i++) {
		busy = rows[i].readers + (rows[i].writer != BENCH_NOWRITER);
		if (busy > most)
			most = busy;
	}
	if (cpus > 0 && most > (unsigned long)cpus)
		printf("- OVERSUBSCRIBED: %ld CPUs online, threads unpinned; rows with more\n"
		       "  busy threads (up to %u: readers + writer) than CPUs time-share, and\n"
		       "  a reader's ns/op then includes the time it spent descheduled.\n",
		       cpus, most);
}

void bench_report_footer(const struct bench_row *rows, size_t nrows)
{
	print_writer_rates(rows, nrows);
	print_targets(rows, nrows);
	print_notes(rows, nrows);
	fflush(stdout);
}

int bench_report_json(const char *path, const struct bench_row *rows,
		      size_t nrows)
{
	struct bench_json *j = bench_json_new();
	double m, lo, hi;
	size_t i;
	int t, ret;

	if (!j) {
		fprintf(stderr, "bench_itree: out of memory\n");
		return -1;
	}
	for (i = 0; i < nrows; i++) {
		const struct bench_row *r = &rows[i];
		const char *w = bench_writer_name(r->writer);

		for (t = 0; t < BENCH_NTARGETS; t++) {
			const char *name = bench_targets[t]->name;

			bench_json_key(j, "%s/%" PRIu64 "/%u/%s",
				       name, r->n, r->readers, w);
			bench_json_dbl(j, NULL, bench_ns_per_op(&r->res[t]), 3);
			bench_json_key(j, "cpu/%s/%" PRIu64 "/%u/%s",
				       name, r->n, r->readers, w);
			bench_json_dbl(j, NULL, bench_cpu_ns_per_op(&r->res[t]), 3);
			if (r->writer == BENCH_NOWRITER)
				continue;
			bench_json_key(j, "slowdown/%s/%" PRIu64 "/%u/%s",
				       name, r->n, r->readers, w);
			bench_json_dbl(j, NULL,
				       bench_report_slowdown(rows, nrows, r, t, true), 4);
			m = bench_report_slowdown_paired(rows, nrows, r, t, &lo, &hi);
			bench_json_key(j, "slowdown_median/%s/%" PRIu64 "/%u/%s",
				       name, r->n, r->readers, w);
			bench_json_dbl(j, NULL, m, 4);
			bench_json_key(j, "slowdown_lo/%s/%" PRIu64 "/%u/%s",
				       name, r->n, r->readers, w);
			bench_json_dbl(j, NULL, lo, 4);
			bench_json_key(j, "slowdown_hi/%s/%" PRIu64 "/%u/%s",
				       name, r->n, r->readers, w);
			bench_json_dbl(j, NULL, hi, 4);
			bench_json_key(j, "wall_slowdown/%s/%" PRIu64 "/%u/%s",
				       name, r->n, r->readers, w);
			bench_json_dbl(j, NULL,
				       bench_report_slowdown(rows, nrows, r, t, false), 4);
			bench_json_key(j, "updates_per_s/%s/%" PRIu64 "/%u/%s",
				       name, r->n, r->readers, w);
			bench_json_dbl(j, NULL, bench_updates_per_s(&r->res[t]), 0);
		}
		if (r->writer == BENCH_NOWRITER && over_lfht(r, true) > 0) {
			bench_json_key(j, "dcitree_over_lfht/%" PRIu64 "/%u",
				       r->n, r->readers);
			bench_json_dbl(j, NULL, over_lfht(r, true), 4);
			bench_json_key(j, "wall_dcitree_over_lfht/%" PRIu64 "/%u",
				       r->n, r->readers);
			bench_json_dbl(j, NULL, over_lfht(r, false), 4);
		}
	}
	ret = bench_json_save(j, path, "bench_itree");
	bench_json_free(j);
	return ret ? -1 : 0;
}
