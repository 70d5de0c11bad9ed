/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * study.h - the cells of the hit-ratio study and their reports.
 */
#ifndef BENCH_HITRATIO_STUDY_H
#define BENCH_HITRATIO_STUDY_H

#include <stdint.h>
#include <stdio.h>

/* The policies of one cell, in column order. */
enum hr_col {
	HR_LRU,			/* exact LRU, offline */
	HR_OPT,			/* Belady's OPT, offline */
	HR_TCLOCK,		/* textbook CLOCK, offline */
	HR_TCLOCK_COLD,		/* textbook CLOCK loading frames with the bit clear */
	HR_FIFO,		/* FIFO, offline */
	HR_ARC,			/* ARC, offline */
	HR_2Q,			/* full 2Q, offline */
	HR_S3FIFO,		/* S3-FIFO, offline */
	HR_SIEVE,		/* SIEVE, offline */
	HR_CLOCK,		/* library, DC_VICTIM_CLOCK, default config */
	HR_RR,			/* library, DC_VICTIM_ROUND_ROBIN, default config */
	HR_LIBDEF,		/* library, CLOCK + DC_MAP_MAY_BYPASS, default config */
	HR_CLOCK_FAIR,		/* the same three with at most one range kept free */
	HR_RR_FAIR,
	HR_LIBDEF_FAIR,
	HR_LSIEVE,		/* library, DC_VICTIM_SIEVE, default config */
	HR_LSIEVE_ADMIT,	/* library, SIEVE + DC_MAP_MAY_BYPASS, default config */
	HR_LRU_OCC,		/* exact LRU at the default CLOCK's mean occupancy */
	HR_TCLOCK_OWN,		/* tclk0 taking victims from the own file first */
	HR_NR_COLS
};

/**
 * struct hr_cell - one workload at one window/file ratio.
 * @wl: workload name.
 * @ratio: window size / file size.
 * @cap: window size in ranges.
 * @n: accesses replayed.
 * @hit: hit ratio per column (0..1).
 * @occ: library columns: mean fraction of the window's ranges mapped over
 *	the second half of the trace (the effective capacity).
 * @bypass: library columns: accesses answered DC_MAP_BYPASS (0..1).
 * @bg_share: library columns: share of the reclaims done by the
 *	background reclaimer (0..1).
 * @setups: setups per access (0..1): the offline columns map every miss,
 *	the library columns count the backend's setups.
 */
struct hr_cell {
	const char *wl;
	double ratio;
	uint32_t cap;
	uint64_t n;
	double hit[HR_NR_COLS];
	double occ[HR_NR_COLS];
	double bypass[HR_NR_COLS];
	double bg_share[HR_NR_COLS];
	double setups[HR_NR_COLS];
};

/* The default trails the best online policy by more than this (points). */
#define HR_ANCHOR_PTS	1.0

/**
 * hr_best_online() - the online offline-simulated policy (every column
 * before the library's but OPT) with the highest hit ratio in a cell.
 * @c: the cell.
 *
 * Context: any.
 * Return: its column; ties go to the earlier column.
 */
enum hr_col hr_best_online(const struct hr_cell *c);

/**
 * struct hr_study - every cell, and how they were made.
 * @cells: the cells, workload-major.
 * @nr_cells: how many.
 * @file_ranges: file size in ranges.
 * @accesses: accesses per trace.
 * @seed: generator seed.
 * @fair_threshold_pct: reclaim_threshold_pct of the fair config.
 * @seconds: wall time of the study.
 */
struct hr_study {
	struct hr_cell *cells;
	unsigned int nr_cells;
	uint32_t file_ranges;
	uint64_t accesses;
	uint64_t seed;
	unsigned int fair_threshold_pct;
	double seconds;
};

/* Column names as in the TSV and JSON. */
extern const char *const hr_col_name[HR_NR_COLS];

/**
 * hr_print_table() - the hit-ratio table, the occupancy table and the
 * targets block.
 * @s: the study.
 * @f: where to print.
 *
 * Return: 1 when both targets are met under the fair config, else 0.
 */
int hr_print_table(const struct hr_study *s, FILE *f);

/**
 * hr_write_tsv() - one line per cell with a header line, tab separated.
 * @s: the study.
 * @path: the file.
 *
 * Return: 0, or -1 with a message printed.
 */
int hr_write_tsv(const struct hr_study *s, const char *path);

/**
 * hr_write_json() - the study as one JSON object.
 * @s: the study.
 * @path: the file.
 *
 * Return: 0, or -1 with a message printed.
 */
int hr_write_json(const struct hr_study *s, const char *path);

#endif /* BENCH_HITRATIO_STUDY_H */
