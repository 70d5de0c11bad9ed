// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * workload_test.c - checks of the daxsim access generators: names, bounds,
 * reproducibility, the zipf distribution, the sequential streams, the
 * scan-plus-hot-set mix, the files of files64, the writes of rw75 and the
 * moving hot set of shift.  Exit 0 when every check passes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			failures++;					\
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__,	\
				__LINE__, #cond);			\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

static void test_names(void)
{
	enum dsim_wl wl, got;

	for (wl = 0; wl < DSIM_NR_WL; wl++) {
		CHECK(dsim_wl_parse(dsim_wl_name(wl), &got) == 0 && got == wl,
		      "round trip of %s", dsim_wl_name(wl));
	}
	CHECK(!strcmp(dsim_wl_name(DSIM_ZIPF099), "zipf0.99"), "name");
	CHECK(!strcmp(dsim_wl_name(DSIM_NR_WL), "?"), "unknown name");
	CHECK(dsim_wl_parse("zipf", &got) == -EINVAL, "bad name accepted");
	CHECK(dsim_wl_parse(NULL, &got) == -EINVAL, "NULL name accepted");
}

static void test_bad_args(void)
{
	struct dsim_gen g;

	CHECK(dsim_gen_init(&g, DSIM_UNIFORM, 0, 0, 1, 1) == -EINVAL, "0 pages");
	CHECK(dsim_gen_init(&g, DSIM_UNIFORM, 10, 1, 1, 1) == -EINVAL, "thread");
	CHECK(dsim_gen_init(&g, DSIM_UNIFORM, 10, 0, 0, 1) == -EINVAL, "0 threads");
	CHECK(dsim_gen_init(&g, DSIM_NR_WL, 10, 0, 1, 1) == -EINVAL, "workload");
	CHECK(dsim_gen_init(NULL, DSIM_UNIFORM, 10, 0, 1, 1) == -EINVAL, "NULL");
}

/* Every workload, a few sizes and thread counts: in bounds, reproducible. */
static void test_bounds_and_seed(void)
{
	static const uint64_t sizes[] = { 1, 7, 512, 512 * 10 + 37, 512 * 256 };
	struct dsim_gen a, b, c;
	unsigned int s, t, n, i, same_c;
	enum dsim_wl wl;
	uint64_t pa, pb;

	for (wl = 0; wl < DSIM_NR_WL; wl++)
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	for (n = 1; n <= 3; n++)
	for (t = 0; t < n; t++) {
		CHECK(dsim_gen_init(&a, wl, sizes[s], t, n, 42) == 0, "init");
		CHECK(dsim_gen_init(&b, wl, sizes[s], t, n, 42) == 0, "init");
		CHECK(dsim_gen_init(&c, wl, sizes[s], t, n, 43) == 0, "init");
		same_c = 0;
		for (i = 0; i < 20000; i++) {
			pa = dsim_gen_next(&a);
			pb = dsim_gen_next(&b);
			if (pa == dsim_gen_next(&c))
				same_c++;
			if (pa >= sizes[s] || pa != pb) {
				CHECK(pa < sizes[s] && pa == pb,
				      "%s size %llu thread %u/%u: %llu vs %llu",
				      dsim_wl_name(wl),
				      (unsigned long long)sizes[s], t, n,
				      (unsigned long long)pa,
				      (unsigned long long)pb);
				break;
			}
		}
		/* Another seed gives another stream (seq has no randomness). */
		if (wl != DSIM_SEQ && sizes[s] >= 512 * 256)
			CHECK(same_c < 2000, "%s: seed 43 matches seed 42 %u times",
			      dsim_wl_name(wl), same_c);
		dsim_gen_fini(&a);
		dsim_gen_fini(&b);
		dsim_gen_fini(&c);
	}
}

/* Rank frequencies follow 1 / rank^s: the share of each range's hits. */
static void test_zipf(enum dsim_wl wl, double s)
{
	const uint64_t nr = 256, draws = 2000000;
	uint64_t *hits, i, k, r;
	double h = 0.0, p, sd, *share;
	struct dsim_gen g;

	hits = calloc(nr, sizeof(*hits));
	share = calloc(nr, sizeof(*share));
	if (!hits || !share) {
		CHECK(0, "out of memory");
		free(hits);
		free(share);
		return;
	}
	CHECK(dsim_gen_init(&g, wl, nr * DSIM_RANGE_PAGES, 0, 1, 7) == 0, "init");
	for (i = 0; i < draws; i++)
		hits[dsim_gen_next(&g) / DSIM_RANGE_PAGES]++;
	for (k = 1; k <= nr; k++)
		h += pow((double)k, -s);
	/* Sorted by frequency, the ranges must show the zipf shares. */
	for (r = 0; r < nr; r++)
		share[r] = (double)hits[r];
	for (i = 0; i < nr; i++)	/* selection sort, descending */
		for (k = i + 1; k < nr; k++)
			if (share[k] > share[i]) {
				p = share[i];
				share[i] = share[k];
				share[k] = p;
			}
	for (k = 0; k < 8; k++) {
		p = pow((double)(k + 1), -s) / h;
		sd = sqrt((double)draws * p * (1 - p));
		CHECK(fabs(share[k] - (double)draws * p) < 6 * sd + 1,
		      "%s rank %llu: %.0f hits, expected %.0f", dsim_wl_name(wl),
		      (unsigned long long)k + 1, share[k], (double)draws * p);
	}
	/* The hottest ranges are spread, not the first ones of the file. */
	for (k = 0, i = 0; k < 8; k++)
		if (hits[k] > hits[0] / 2 + 1)
			i++;
	CHECK(i < 8, "%s: the first 8 ranges are all hot", dsim_wl_name(wl));
	dsim_gen_fini(&g);
	free(hits);
	free(share);
}

static void test_seq(void)
{
	const uint64_t pages = 1000;
	struct dsim_gen g;
	unsigned int t;
	uint64_t i, lo, hi;

	for (t = 0; t < 3; t++) {
		lo = pages * t / 3;
		hi = pages * (t + 1) / 3;
		CHECK(dsim_gen_init(&g, DSIM_SEQ, pages, t, 3, 1) == 0, "init");
		for (i = 0; i < 3 * (hi - lo); i++) {
			uint64_t p = dsim_gen_next(&g);

			if (p != lo + i % (hi - lo)) {
				CHECK(0, "thread %u access %llu: page %llu", t,
				      (unsigned long long)i, (unsigned long long)p);
				break;
			}
		}
		dsim_gen_fini(&g);
	}
}

/* 90% in a hot set of 1/8 of the ranges, 10% a scan over the rest. */
static void test_scanhot(void)
{
	const uint64_t nr = 256, pages = nr * DSIM_RANGE_PAGES;
	uint64_t i, hot = 0, draws, cold_seen = 0, nr_hot_ranges = 0;
	unsigned char *is_hot, *seen;
	struct dsim_gen g, g2;

	is_hot = calloc(nr, 1);
	seen = calloc(pages, 1);
	if (!is_hot || !seen) {
		CHECK(0, "out of memory");
		free(is_hot);
		free(seen);
		return;
	}
	CHECK(dsim_gen_init(&g, DSIM_SCANHOT, pages, 0, 1, 5) == 0, "init");
	CHECK(g.nr_hot == nr / 8, "hot ranges %llu", (unsigned long long)g.nr_hot);
	for (i = 0; i < g.nr_hot; i++)
		is_hot[g.perm[i]] = 1;
	/* Enough accesses for the scan to cover the cold part once. */
	draws = g.cold_pages * 100 / DSIM_SCANHOT_SCAN_PCT;
	for (i = 0; i < draws; i++) {
		uint64_t p = dsim_gen_next(&g);

		if (is_hot[p / DSIM_RANGE_PAGES]) {
			hot++;
		} else if (!seen[p]) {
			seen[p] = 1;
			cold_seen++;
		}
	}
	for (i = 0; i < nr; i++)
		nr_hot_ranges += is_hot[i];
	CHECK(nr_hot_ranges == nr / 8, "hot set");
	CHECK(fabs((double)hot / (double)draws - 0.9) < 0.003,
	      "hot share %.4f", (double)hot / (double)draws);
	/* The scan is sequential: it has seen nearly all of the cold part. */
	CHECK(cold_seen > g.cold_pages * 97 / 100, "scan covered %llu of %llu",
	      (unsigned long long)cold_seen, (unsigned long long)g.cold_pages);
	/* Two threads share the hot set but start their scans apart. */
	CHECK(dsim_gen_init(&g2, DSIM_SCANHOT, pages, 1, 2, 5) == 0, "init");
	CHECK(!memcmp(g.perm, g2.perm, nr * sizeof(*g.perm)), "hot sets differ");
	CHECK(g2.pos == g2.cold_pages / 2, "thread 1 scan start");
	dsim_gen_fini(&g);
	dsim_gen_fini(&g2);
	free(is_hot);
	free(seen);
}

/* files64: the pages map to 64 files of whole ranges, the hot set over many. */
static void test_files64(void)
{
	const uint64_t nr = 256, pages = nr * DSIM_RANGE_PAGES;
	unsigned int file, files_hot = 0;
	uint64_t i, fp, *hits, top[64];
	uint8_t seen[DSIM_FILES] = { 0 };
	struct dsim_gen g, z;

	hits = calloc(nr, sizeof(*hits));
	if (!hits) {
		CHECK(0, "out of memory");
		return;
	}
	CHECK(dsim_gen_init(&g, DSIM_FILES64, pages, 0, 1, 3) == 0, "init");
	CHECK(dsim_gen_init(&z, DSIM_ZIPF099, pages, 0, 1, 3) == 0, "init");
	CHECK(g.nr_files == DSIM_FILES && g.file_ranges == nr / DSIM_FILES,
	      "%u files of %llu ranges", g.nr_files, (unsigned long long)g.file_ranges);
	for (i = 0; i < 200000; i++) {
		uint64_t p = dsim_gen_next(&g);

		/* The same stream as zipf0.99: only the files are new. */
		if (p != dsim_gen_next(&z)) {
			CHECK(0, "access %llu: files64 is not zipf0.99's stream",
			      (unsigned long long)i);
			break;
		}
		dsim_gen_file(&g, p, &file, &fp);
		if (file >= g.nr_files || fp >= g.file_ranges * DSIM_RANGE_PAGES ||
		    (uint64_t)file * g.file_ranges * DSIM_RANGE_PAGES + fp != p) {
			CHECK(0, "page %llu: file %u page %llu", (unsigned long long)p, file,
			      (unsigned long long)fp);
			break;
		}
		CHECK(!g.write, "files64 never writes");
		hits[p / DSIM_RANGE_PAGES]++;
	}
	/* The 64 hottest ranges lie in at least half of the files. */
	for (i = 0; i < 64; i++) {
		uint64_t r, best = 0;

		for (r = 0; r < nr; r++)
			if (hits[r] > hits[best])
				best = r;
		top[i] = best;
		hits[best] = 0;
		dsim_gen_file(&g, top[i] * DSIM_RANGE_PAGES, &file, &fp);
		if (!seen[file]++)
			files_hot++;
	}
	CHECK(files_hot >= 32, "the 64 hottest ranges lie in %u files", files_hot);
	dsim_gen_fini(&g);
	dsim_gen_fini(&z);
	/* A file of fewer ranges than 64: one file per range, the rest in the last. */
	CHECK(dsim_gen_init(&g, DSIM_FILES64, 10 * DSIM_RANGE_PAGES + 7, 0, 1, 3) == 0, "init");
	CHECK(g.nr_files == 11 && g.file_ranges == 1, "%u files", g.nr_files);
	dsim_gen_file(&g, 10 * DSIM_RANGE_PAGES + 6, &file, &fp);
	CHECK(file == 10 && fp == 6, "last page: file %u page %llu", file,
	      (unsigned long long)fp);
	dsim_gen_fini(&g);
	/* Every other workload is one file. */
	CHECK(dsim_gen_init(&g, DSIM_ZIPF09, pages, 0, 1, 3) == 0, "init");
	dsim_gen_file(&g, pages - 1, &file, &fp);
	CHECK(g.nr_files == 1 && file == 0 && fp == pages - 1, "zipf0.9: file %u", file);
	dsim_gen_fini(&g);
	free(hits);
}

/* rw75: a quarter of the accesses write, over zipf0.9's ranges. */
static void test_rw75(void)
{
	const uint64_t pages = 256 * DSIM_RANGE_PAGES, draws = 400000;
	uint64_t i, writes = 0;
	struct dsim_gen g, r;
	double sd;

	CHECK(dsim_gen_init(&g, DSIM_RW75, pages, 1, 2, 9) == 0, "init");
	CHECK(dsim_gen_init(&r, DSIM_ZIPF09, pages, 1, 2, 9) == 0, "init");
	for (i = 0; i < draws; i++) {
		uint64_t p = dsim_gen_next(&g);

		writes += g.write;
		CHECK(p < pages, "page %llu", (unsigned long long)p);
		dsim_gen_next(&r);
		CHECK(!r.write, "zipf0.9 never writes");
	}
	sd = sqrt((double)draws * 0.25 * 0.75);
	CHECK(fabs((double)writes - 0.25 * (double)draws) < 6 * sd,
	      "%llu writes in %llu accesses", (unsigned long long)writes,
	      (unsigned long long)draws);
	dsim_gen_fini(&g);
	dsim_gen_fini(&r);
}

/* The 8 hottest ranges of @n draws from @g. */
static void hottest(struct dsim_gen *g, uint64_t n, uint64_t nr, uint64_t top[8])
{
	uint64_t *hits = calloc(nr, sizeof(*hits)), i, r;

	if (!hits) {
		CHECK(0, "out of memory");
		return;
	}
	for (i = 0; i < n; i++)
		hits[dsim_gen_next(g) / DSIM_RANGE_PAGES]++;
	for (i = 0; i < 8; i++) {
		top[i] = 0;
		for (r = 0; r < nr; r++)
			if (hits[r] > hits[top[i]])
				top[i] = r;
		hits[top[i]] = 0;
	}
	free(hits);
}

/* shift: zipf0.99 until dsim_gen_shift(), then another hot set. */
static void test_shift(void)
{
	const uint64_t nr = 256, pages = nr * DSIM_RANGE_PAGES;
	uint64_t before[8], after[8], again[8], i, k, same = 0;
	struct dsim_gen g, z;

	CHECK(dsim_gen_init(&g, DSIM_SHIFT, pages, 0, 1, 11) == 0, "init");
	CHECK(dsim_gen_init(&z, DSIM_ZIPF099, pages, 0, 1, 11) == 0, "init");
	for (i = 0; i < 100000; i++)
		if (dsim_gen_next(&g) != dsim_gen_next(&z)) {
			CHECK(0, "before the shift, access %llu is not zipf0.99's",
			      (unsigned long long)i);
			break;
		}
	dsim_gen_shift(&z);	/* nothing for another workload */
	hottest(&z, 200000, nr, again);
	hottest(&g, 200000, nr, before);
	dsim_gen_shift(&g);
	hottest(&g, 200000, nr, after);
	for (i = 0; i < 8; i++)
		for (k = 0; k < 8; k++)
			same += before[i] == after[k];
	CHECK(same <= 2, "%llu of the 8 hottest ranges stayed hot after the shift",
	      (unsigned long long)same);
	for (i = 0, same = 0; i < 8; i++)
		for (k = 0; k < 8; k++)
			same += before[i] == again[k];
	CHECK(same >= 6, "zipf0.99 after a shift: only %llu of its 8 hottest ranges stayed",
	      (unsigned long long)same);
	dsim_gen_fini(&g);
	dsim_gen_fini(&z);
}

int main(void)
{
	test_names();
	test_bad_args();
	test_bounds_and_seed();
	test_zipf(DSIM_ZIPF09, 0.9);
	test_zipf(DSIM_ZIPF099, 0.99);
	test_seq();
	test_scanhot();
	test_files64();
	test_rw75();
	test_shift();
	printf("workload-test: %d failures\n", failures);
	return failures ? 1 : 0;
}
