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

/**
 * struct bench_row - one table row: every index under one configuration.
 * @n: resident intervals.
 * @readers: reader threads.
 * @writer: whether a writer thread ran.
 * @res: the measurements, indexed by enum bench_target_id.
 */
struct bench_row {
	uint64_t n;
	unsigned int readers;
	bool writer;
	struct bench_result res[BENCH_NTARGETS];
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
 * bench_report_footer() - print the writer rates and the notes.
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
 * Keys are "<index>/<n>/<readers>/<writer|nowriter>".
 *
 * Return: 0, or -1 with a message printed.
 */
int bench_report_json(const char *path, const struct bench_row *rows,
		      size_t nrows);

#endif /* BENCH_ITREE_REPORT_H */
