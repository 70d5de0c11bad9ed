/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_report.h - the itree bench's table, notes and JSON file.
 */
#ifndef BENCH_ITREE_REPORT_H
#define BENCH_ITREE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_run.h"
#include "bench_target.h"

/* The most slices a cell is measured in (bench_itree --slices). */
#define BENCH_SLICES_MAX	64

/**
 * struct bench_row - one table row: every index under one configuration.
 * @n: resident intervals.
 * @readers: reader threads.
 * @writer: what updated the index meanwhile.
 * @res: the measurements, indexed by enum bench_target_id.
 * @nr_slices: the slices @res was measured in.
 * @slice_cpu: each slice's reader CPU ns per lookup, per index, in slice
 *	order: slice i of every row of one size and reader count ran in the
 *	same round, so a writer's slowdown can be paired by round.
 */
struct bench_row {
	uint64_t n;
	unsigned int readers;
	enum bench_writer writer;
	struct bench_result res[BENCH_NTARGETS];
	unsigned int nr_slices;
	double slice_cpu[BENCH_NTARGETS][BENCH_SLICES_MAX];
};

/**
 * bench_report_header() - print the title and column names.
 * @seconds: measuring time per index and row.
 * @slices: how many interleaved slices that time is cut into.
 */
void bench_report_header(double seconds, int slices);

/**
 * bench_report_row() - print one row of ns/op and the ratio columns.
 * @row: the row.
 */
void bench_report_row(const struct bench_row *row);

/**
 * bench_report_find() - the row of one configuration.
 * @rows: all rows.
 * @nrows: how many.
 * @n: resident intervals.
 * @readers: reader threads.
 * @writer: the writer mode.
 *
 * Return: the row, or NULL if it was not measured.
 */
const struct bench_row *bench_report_find(const struct bench_row *rows,
					  size_t nrows, uint64_t n,
					  unsigned int readers,
					  enum bench_writer writer);

/**
 * bench_report_slowdown() - how much a writer slows the readers of one index.
 * @rows: all rows.
 * @nrows: how many.
 * @row: a row with a writer.
 * @t: the index.
 * @cpu: compare reader CPU time (bench_cpu_ns_per_op()) rather than
 *	reader thread time (bench_ns_per_op()).
 *
 * Return: ns/op in @row over ns/op in the same configuration without
 * writer, or 0 if that one is missing.
 */
double bench_report_slowdown(const struct bench_row *rows, size_t nrows,
			     const struct bench_row *row, int t, bool cpu);

/**
 * bench_report_slowdown_paired() - a writer's slowdown of one index's
 * readers, paired by slice.
 * @rows: all rows.
 * @nrows: how many.
 * @row: a row with a writer.
 * @t: the index.
 * @lo: gets the lower end of the 95% confidence interval.
 * @hi: gets the upper end.
 *
 * Return: the median over the slices of the CPU ns/op in @row over the
 * same slice's without writer (bench_paired_median()), or 0 (and 0 in
 * *@lo and *@hi) if that row is missing.
 */
double bench_report_slowdown_paired(const struct bench_row *rows, size_t nrows,
				    const struct bench_row *row, int t,
				    double *lo, double *hi);

/**
 * bench_report_footer() - print the writer rates, the targets and the
 * notes.
 * @rows: all rows.
 * @nrows: how many.
 */
void bench_report_footer(const struct bench_row *rows, size_t nrows);

/**
 * bench_report_json() - write every ns/op as one JSON object.
 * @path: the file to (over)write.
 * @rows: all rows.
 * @nrows: how many.
 *
 * Keys are "<index>/<n>/<readers>/<nowriter|writer10k|writer>" (ns/op),
 * "cpu/<index>/<n>/<readers>/<mode>" (CPU ns/op),
 * "slowdown/<index>/<n>/<readers>/<writer10k|writer>" (bench_report_slowdown()
 * on CPU time; "wall_slowdown/..." on thread time),
 * "updates_per_s/<index>/<n>/<readers>/<writer10k|writer>" and
 * "slowdown_median/...", "slowdown_lo/..." and "slowdown_hi/..."
 * (bench_report_slowdown_paired() and its interval),
 * "dcitree_over_lfht/<n>/<readers>" (CPU ns/op without writer;
 * "wall_dcitree_over_lfht/..." on thread time).
 *
 * Return: 0, or -1 with a message printed.
 */
int bench_report_json(const char *path, const struct bench_row *rows,
		      size_t nrows);

#endif /* BENCH_ITREE_REPORT_H */
