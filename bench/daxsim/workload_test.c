// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * workload_test.c - checks of the daxsim access generators: names, bounds,
 * reproducibility, the zipf distribution, the sequential streams and the
 * scan-plus-hot-set mix.  Exit 0 when every check passes.
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

int main(void)
{
	test_names();
	test_bad_args();
	test_bounds_and_seed();
	test_zipf(DSIM_ZIPF09, 0.9);
	test_zipf(DSIM_ZIPF099, 0.99);
	test_seq();
	test_scanhot();
	if (failures) {
		fprintf(stderr, "workload-test: %d failures\n", failures);
		return 1;
	}
	printf("workload-test: all checks passed\n");
	return 0;
}
