/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_report.c - the itree bench's table, notes and JSON file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "../common/json.h"
#include "bench_report.h"

static const char *writer_name(bool writer)
{
	return writer ? "writer" : "nowriter";
}

void bench_report_header(double seconds, int slices)
{
	int t;

	printf("itree point lookup: ns/op per reader thread, %.2f s per cell in %d interleaved slices\n\n",
	       seconds, slices);
	printf("%9s %3s %-8s", "n", "rd", "writer");
	for (t = 0; t < BENCH_NTARGETS; t++)
		printf(" %13s", bench_targets[t]->name);
	printf(" %14s %12s\n", "rbtree/dcitree", "dcitree/flat");
	fflush(stdout);
}

void bench_report_row(const struct bench_row *row)
{
	const struct bench_result *r = row->res;
	int t;

	printf("%9" PRIu64 " %3u %-8s", row->n, row->readers,
	       writer_name(row->writer));
	for (t = 0; t < BENCH_NTARGETS; t++)
		printf(" %13.1f", bench_ns_per_op(&r[t]));
	printf(" %14.2f %12.2f\n",
	       bench_ns_per_op(&r[BENCH_RBTREE_RWLOCK]) /
	       bench_ns_per_op(&r[BENCH_DCITREE]),
	       bench_ns_per_op(&r[BENCH_DCITREE]) /
	       bench_ns_per_op(&r[BENCH_FLAT]));
	fflush(stdout);
}

static void print_writer_rates(const struct bench_row *rows, size_t nrows)
{
	size_t i;
	int t;

	printf("\nwriter: insert+remove pairs per second while the readers ran\n\n");
	printf("%9s %3s %-8s", "n", "rd", "");
	for (t = 0; t < BENCH_NTARGETS; t++)
		printf(" %13s", bench_targets[t]->name);
	printf("\n");
	for (i = 0; i < nrows; i++) {
		if (!rows[i].writer)
			continue;
		printf("%9" PRIu64 " %3u %-8s", rows[i].n, rows[i].readers, "");
		for (t = 0; t < BENCH_NTARGETS; t++)
			printf(" %13.0f",
			       bench_updates_per_s(&rows[i].res[t]));
		printf("\n");
	}
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
		busy = rows[i].readers + rows[i].writer;
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
	print_notes(rows, nrows);
	fflush(stdout);
}

int bench_report_json(const char *path, const struct bench_row *rows,
		      size_t nrows)
{
	struct bench_json *j = bench_json_new();
	size_t i;
	int t, ret;

	if (!j) {
		fprintf(stderr, "bench_itree: out of memory\n");
		return -1;
	}
	for (i = 0; i < nrows; i++)
		for (t = 0; t < BENCH_NTARGETS; t++) {
			bench_json_key(j, "%s/%" PRIu64 "/%u/%s",
				       bench_targets[t]->name, rows[i].n,
				       rows[i].readers,
				       writer_name(rows[i].writer));
			bench_json_dbl(j, NULL, bench_ns_per_op(&rows[i].res[t]), 3);
		}
	ret = bench_json_save(j, path, "bench_itree");
	bench_json_free(j);
	return ret ? -1 : 0;
}
