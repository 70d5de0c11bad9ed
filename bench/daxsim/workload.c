// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * workload.c - the access generators of the DAX window simulator (see
 * workload.h for the workloads).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/opts.h"
#include "workload.h"

static const char *const wl_names[DSIM_NR_WL] = {
	[DSIM_UNIFORM] = "uniform",
	[DSIM_ZIPF09] = "zipf0.9",
	[DSIM_ZIPF099] = "zipf0.99",
	[DSIM_SEQ] = "seq",
	[DSIM_SCANHOT] = "scanhot",
	[DSIM_FILES64] = "files64",
	[DSIM_RW75] = "rw75",
	[DSIM_SHIFT] = "shift",
};

BENCH_NAMED_ENUM(enum dsim_wl, wl_names, DSIM_NR_WL, dsim_wl_name, dsim_wl_parse)

/* splitmix64: expands a seed into generator state. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void rng_seed(uint64_t s[4], uint64_t seed)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256**. */
static inline uint64_t rng_next(uint64_t s[4])
{
	uint64_t r = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* Uniform in [0, n), n > 0 (multiply-shift; the bias is below 2^-32 here). */
static inline uint64_t rng_below(uint64_t s[4], uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

/* Uniform in [0, 1). */
static inline double rng_unit(uint64_t s[4])
{
	return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

/* A random permutation of 0..n-1 drawn from @seed alone. */
static uint32_t *make_perm(uint64_t n, uint64_t seed)
{
	uint64_t s[4], i, j;
	uint32_t *p, t;

	p = malloc(n * sizeof(*p));
	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		p[i] = (uint32_t)i;
	rng_seed(s, seed ^ 0x7065726d75746521ull);
	for (i = n - 1; i > 0; i--) {
		j = rng_below(s, i + 1);
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	return p;
}

/* cdf[k] = P(rank <= k + 1) for ranks 1..n weighted 1 / rank^s. */
static double *make_zipf_cdf(uint64_t n, double s)
{
	double *cdf, sum = 0.0;
	uint64_t k;

	cdf = malloc(n * sizeof(*cdf));
	if (!cdf)
		return NULL;
	for (k = 0; k < n; k++) {
		sum += pow((double)(k + 1), -s);
		cdf[k] = sum;
	}
	for (k = 0; k < n; k++)
		cdf[k] /= sum;
	cdf[n - 1] = 1.0;
	return cdf;
}

/* Pages in range @r of the file. */
static inline uint64_t range_pages(const struct dsim_gen *g, uint64_t r)
{
	uint64_t first = r * DSIM_RANGE_PAGES;
	uint64_t left = g->file_pages - first;

	return left < DSIM_RANGE_PAGES ? left : DSIM_RANGE_PAGES;
}

static int init_scanhot(struct dsim_gen *g, unsigned int thread,
			unsigned int nthreads, uint64_t seed)
{
	uint64_t i;
	uint32_t t;

	g->perm = make_perm(g->nr_ranges, seed);
	if (!g->perm)
		return -ENOMEM;
	/* A short last range of the file goes to the end of the scan order. */
	if (g->file_pages % DSIM_RANGE_PAGES) {
		for (i = 0; g->perm[i] != g->nr_ranges - 1; i++)
			;
		t = g->perm[i];
		g->perm[i] = g->perm[g->nr_ranges - 1];
		g->perm[g->nr_ranges - 1] = t;
	}
	g->nr_hot = g->nr_ranges / DSIM_SCANHOT_HOT_DIV;
	if (!g->nr_hot)
		g->nr_hot = 1;
	g->hot_pages = 0;
	for (i = 0; i < g->nr_hot; i++)
		g->hot_pages += range_pages(g, g->perm[i]);
	g->cold_pages = g->file_pages - g->hot_pages;
	g->pos = g->cold_pages * thread / nthreads;
	return 0;
}

int dsim_gen_init(struct dsim_gen *g, enum dsim_wl wl, uint64_t file_pages,
		  unsigned int thread, unsigned int nthreads, uint64_t seed)
{
	uint64_t nr_ranges;
	int err = 0;

	if (!g)
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	nr_ranges = (file_pages + DSIM_RANGE_PAGES - 1) / DSIM_RANGE_PAGES;
	if ((unsigned int)wl >= DSIM_NR_WL || !file_pages || !nthreads ||
	    thread >= nthreads || nr_ranges > UINT32_MAX)
		return -EINVAL;
	g->wl = wl;
	g->file_pages = file_pages;
	g->nr_ranges = nr_ranges;
	g->nr_files = 1;
	g->file_ranges = nr_ranges;
	/* Each thread its own stream; the shared tables use the seed alone. */
	rng_seed(g->rng, seed ^ ((uint64_t)(thread + 1) * 0xd1b54a32d192ed03ull));

	switch (wl) {
	case DSIM_UNIFORM:
		break;
	case DSIM_ZIPF09:
	case DSIM_ZIPF099:
	case DSIM_FILES64:
	case DSIM_RW75:
	case DSIM_SHIFT:
		g->cdf = make_zipf_cdf(nr_ranges,
				       wl == DSIM_ZIPF09 || wl == DSIM_RW75 ? 0.9 : 0.99);
		g->perm = make_perm(nr_ranges, seed);
		if (!g->cdf || !g->perm)
			err = -ENOMEM;
		if (wl == DSIM_SHIFT) {
			/* Another permutation, from the seed alone. */
			g->perm2 = make_perm(nr_ranges, seed ^ 0x7368696674656421ull);
			if (!g->perm2)
				err = -ENOMEM;
		}
		if (wl == DSIM_FILES64) {
			g->nr_files = nr_ranges < DSIM_FILES ? (unsigned int)nr_ranges :
				      DSIM_FILES;
			g->file_ranges = nr_ranges / g->nr_files;
		}
		break;
	case DSIM_SEQ:
		g->lo = file_pages * thread / nthreads;
		g->hi = file_pages * (thread + 1) / nthreads;
		if (g->hi == g->lo)	/* more threads than pages */
			g->hi = g->lo + 1;
		g->pos = g->lo;
		break;
	case DSIM_SCANHOT:
		err = init_scanhot(g, thread, nthreads, seed);
		break;
	default:
		err = -EINVAL;
	}
	if (err)
		dsim_gen_fini(g);
	return err;
}

/* The rank (0-based) whose CDF interval holds @u. */
static uint64_t zipf_rank(const double *cdf, uint64_t n, double u)
{
	uint64_t lo = 0, hi = n - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Page @i of the ranges perm[first..] counted in order.  Only the last entry
 * of perm may be a short range (init_scanhot() moves it there), so every
 * range before the one holding page @i is full.
 */
static inline uint64_t perm_page(const struct dsim_gen *g, uint64_t first,
				 uint64_t i)
{
	return (uint64_t)g->perm[first + i / DSIM_RANGE_PAGES] * DSIM_RANGE_PAGES +
	       i % DSIM_RANGE_PAGES;
}

static uint64_t next_scanhot(struct dsim_gen *g)
{
	uint64_t p;

	if (!g->cold_pages || rng_below(g->rng, 100) >= DSIM_SCANHOT_SCAN_PCT)
		return perm_page(g, 0, rng_below(g->rng, g->hot_pages));
	p = perm_page(g, g->nr_hot, g->pos);
	if (++g->pos >= g->cold_pages)
		g->pos = 0;
	return p;
}

uint64_t dsim_gen_next(struct dsim_gen *g)
{
	uint64_t r, p;

	g->issued++;
	switch (g->wl) {
	case DSIM_ZIPF09:
	case DSIM_ZIPF099:
	case DSIM_FILES64:
	case DSIM_RW75:
	case DSIM_SHIFT:
		r = (g->shifted ? g->perm2 : g->perm)[zipf_rank(g->cdf, g->nr_ranges,
								rng_unit(g->rng))];
		p = r * DSIM_RANGE_PAGES + rng_below(g->rng, range_pages(g, r));
		if (g->wl == DSIM_RW75)
			g->write = rng_below(g->rng, 100) < DSIM_WRITE_PCT;
		return p;
	case DSIM_SEQ:
		p = g->pos;
		if (++g->pos >= g->hi)
			g->pos = g->lo;
		return p;
	case DSIM_SCANHOT:
		return next_scanhot(g);
	case DSIM_UNIFORM:
	default:
		return rng_below(g->rng, g->file_pages);
	}
}

void dsim_gen_file(const struct dsim_gen *g, uint64_t page, unsigned int *file,
		   uint64_t *file_page)
{
	uint64_t f = page / DSIM_RANGE_PAGES / g->file_ranges;

	if (f >= g->nr_files)
		f = g->nr_files - 1;
	*file = (unsigned int)f;
	*file_page = page - f * g->file_ranges * DSIM_RANGE_PAGES;
}

void dsim_gen_shift(struct dsim_gen *g)
{
	if (g->perm2)
		g->shifted = true;
}

void dsim_gen_fini(struct dsim_gen *g)
{
	if (!g)
		return;
	free(g->cdf);
	free(g->perm);
	free(g->perm2);
	g->cdf = NULL;
	g->perm = NULL;
	g->perm2 = NULL;
}
