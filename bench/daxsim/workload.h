/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * workload.h - access generators for the DAX window simulator: reproducible
 * streams of 4 KiB page numbers in a file, one stream per thread.
 *
 * The file is cut into ranges of DSIM_RANGE_PAGES pages (2 MiB, the cache's
 * default range size); the last range may be short.  The workloads:
 *
 * - uniform:  every page of the file with the same probability.
 * - zipf0.9, zipf0.99: a range is drawn with probability proportional to
 *   1 / rank^s (s = 0.9 or 0.99, exactly; a precomputed CDF searched by
 *   bisection), ranks being assigned to ranges by a random permutation so
 *   that hot ranges are spread over the file; then a uniform page within
 *   the range.  All threads share the permutation (it depends on the seed
 *   only), so they share the hot set.
 * - seq:      thread t of n streams its own part of the file, pages
 *   [t * P / n, (t + 1) * P / n), in order, wrapping at its end.
 * - scanhot:  a hot set of 1/8 of the file's ranges (at least one; chosen by
 *   a random permutation shared by all threads) and the rest, the cold part.
 *   Each access is, with probability 9/10, a uniform page of the hot set,
 *   and otherwise the next page of a sequential scan over the cold part
 *   (range by range in permutation order, page by page, wrapping); thread
 *   t of n starts its scan at t/n of the cold part.  A short last range
 *   of the file is always cold (last in scan order).  A file of a single
 *   range has no cold part and behaves as uniform.
 * - files64:  zipf0.99 over the ranges as above, the file being 64 files
 *   of whole ranges, one after the other (fewer when the file has fewer
 *   ranges; the last takes what is left): the hot ranges are spread over
 *   64 inodes.  dsim_gen_file() names the file of a page.
 * - rw75:     zipf0.9 as above, each access a write with probability 1/4
 *   (drawn after the page; dsim_gen_next() leaves it in @write).
 * - shift:    zipf0.99 as above until dsim_gen_shift(), then zipf0.99 over
 *   another permutation of the ranges (also from the seed alone): the hot
 *   set moves.  The caller shifts midway through its run.
 *
 * The same (workload, file_pages, thread, nthreads, seed) gives the same
 * stream.  A generator is used by one thread at a time.
 */
#ifndef BENCH_DAXSIM_WORKLOAD_H
#define BENCH_DAXSIM_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#define DSIM_PAGE_SHIFT		12
#define DSIM_RANGE_PAGES	512u	/* 2 MiB / 4 KiB */
#define DSIM_SCANHOT_HOT_DIV	8u	/* hot set: 1/8 of the ranges */
#define DSIM_SCANHOT_SCAN_PCT	10u	/* 10% of accesses are the scan */

#define DSIM_FILES		64u	/* files64: files the hot set is spread over */
#define DSIM_WRITE_PCT		25u	/* rw75: accesses that write */

enum dsim_wl {
	DSIM_UNIFORM, DSIM_ZIPF09, DSIM_ZIPF099, DSIM_SEQ, DSIM_SCANHOT,
	DSIM_FILES64, DSIM_RW75, DSIM_SHIFT, DSIM_NR_WL
};

/**
 * struct dsim_gen - one thread's access generator.
 * @wl: the workload.
 * @file_pages: pages in the file.
 * @nr_ranges: ranges in the file (the last may be short).
 * @rng: xoshiro256** state, private to this thread's stream.
 * @cdf: zipf: cumulative probability of ranks 1..nr_ranges (NULL otherwise).
 * @perm: zipf: range of each rank; scanhot: hot ranges first, then the
 *	cold ones in scan order (NULL otherwise).
 * @perm2: shift: range of each rank after dsim_gen_shift() (NULL otherwise).
 * @shifted: shift: dsim_gen_shift() was called.
 * @nr_files: files the pages are spread over (1 but for files64).
 * @file_ranges: ranges per file (the last file takes the rest).
 * @write: rw75: the last page dsim_gen_next() returned is written.
 * @nr_hot: scanhot: ranges in the hot set.
 * @pos: seq: next page; scanhot: next page of the scan, counted over the
 *	cold part (0 .. cold_pages - 1).
 * @lo: seq: first page of this thread's part.
 * @hi: seq: one past the last page of this thread's part.
 * @cold_pages: scanhot: pages in the cold part.
 * @hot_pages: scanhot: pages in the hot set.
 * @issued: accesses generated so far.
 */
struct dsim_gen {
	enum dsim_wl wl;
	uint64_t file_pages;
	uint64_t nr_ranges;
	uint64_t rng[4];
	double *cdf;
	uint32_t *perm;
	uint32_t *perm2;
	bool shifted;
	unsigned int nr_files;
	uint64_t file_ranges;
	bool write;
	uint64_t nr_hot;
	uint64_t pos;
	uint64_t lo;
	uint64_t hi;
	uint64_t cold_pages;
	uint64_t hot_pages;
	uint64_t issued;
};

/**
 * dsim_wl_name() - the name of a workload.
 * @wl: the workload.
 *
 * Context: any.
 * Return: "uniform", "zipf0.9", "zipf0.99", "seq", "scanhot", "files64",
 * "rw75" or "shift"; "?" for an unknown value.
 */
const char *dsim_wl_name(enum dsim_wl wl);

/**
 * dsim_wl_parse() - a workload from its name.
 * @name: as dsim_wl_name() writes it.
 * @out: receives the workload.
 *
 * Context: any.
 * Return: 0, or -EINVAL for an unknown name or NULL arguments.
 */
int dsim_wl_parse(const char *name, enum dsim_wl *out);

/**
 * dsim_gen_init() - start a generator of page numbers in [0, @file_pages).
 * @g: the generator.
 * @wl: the workload.
 * @file_pages: pages in the file, at least 1 (and below 2^32 ranges).
 * @thread: this thread's index, below @nthreads.
 * @nthreads: threads sharing the workload.
 * @seed: the seed.
 *
 * Context: process context; allocates for zipf and scanhot.
 * Return: 0, -EINVAL for bad arguments, or -ENOMEM.
 */
int dsim_gen_init(struct dsim_gen *g, enum dsim_wl wl, uint64_t file_pages,
		  unsigned int thread, unsigned int nthreads, uint64_t seed);

/**
 * dsim_gen_next() - the next page number.
 * @g: an initialised generator.
 *
 * Context: any; never blocks.
 * Return: a page number below file_pages.
 */
uint64_t dsim_gen_next(struct dsim_gen *g);

/**
 * dsim_gen_file() - the file a page number of the generator falls in.
 * @g: an initialised generator.
 * @page: a page number it returned.
 * @file: receives the file, below @g->nr_files.
 * @file_page: receives the page within that file.
 *
 * Context: any.
 */
void dsim_gen_file(const struct dsim_gen *g, uint64_t page, unsigned int *file,
		   uint64_t *file_page);

/**
 * dsim_gen_shift() - move the hot set of a shift workload; nothing for the
 * others.
 * @g: an initialised generator.
 *
 * Context: any; never blocks.
 */
void dsim_gen_shift(struct dsim_gen *g);

/**
 * dsim_gen_fini() - free what dsim_gen_init() allocated.
 * @g: the generator (initialised, or zeroed).
 *
 * Context: any.
 */
void dsim_gen_fini(struct dsim_gen *g);

#endif /* BENCH_DAXSIM_WORKLOAD_H */
