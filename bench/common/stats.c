// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stats.c - the benchmarks' order statistics (see stats.h).
 */
#include <stdlib.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void bench_sort_doubles(double *v, unsigned int n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_double);
}

double bench_median(double *v, unsigned int n)
{
	if (!n)
		return 0.0;
	bench_sort_doubles(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

unsigned int bench_median_ci_rank(unsigned int n)
{
	double p = 1.0, cdf = 0.0;
	unsigned int i, j = 0;

	/* p = P(X = j) = C(n, j) / 2^n; cdf = P(X <= j - 1) at the test. */
	for (i = 0; i < n; i++)
		p /= 2.0;
	while (j < n / 2 && cdf + p <= 0.025) {
		cdf += p;
		j++;
		p = p * (double)(n - j + 1) / (double)j;
	}
	return j ? j : 1;
}

unsigned int bench_paired_median(const double *a, const double *b, unsigned int n,
				 double *m, double *lo, double *hi)
{
	double *v = calloc(n ? n : 1, sizeof(*v));
	unsigned int i, k = 0, j;

	*m = *lo = *hi = 0.0;
	if (!v)
		return 0;
	for (i = 0; i < n; i++)
		if (a[i] > 0 && b[i] > 0)
			v[k++] = a[i] / b[i];
	if (k) {
		*m = bench_median(v, k);	/* sorts v */
		j = bench_median_ci_rank(k);
		*lo = v[j - 1];
		*hi = v[k - j];
	}
	free(v);
	return k;
}
