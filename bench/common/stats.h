/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stats.h - the benchmarks' order statistics: sorting, medians, and the
 * median of a ratio paired by round with its 95% confidence interval.
 */
#ifndef BENCH_COMMON_STATS_H
#define BENCH_COMMON_STATS_H

/**
 * bench_sort_doubles() - sort @n values ascending, in place.
 * @v: the values.
 * @n: how many.
 *
 * Context: any.
 */
void bench_sort_doubles(double *v, unsigned int n);

/**
 * bench_median() - the median of @n values.
 * @v: the values, sorted in place.
 * @n: how many.
 *
 * Context: any.
 * Return: the median (the mean of the middle two for even @n); 0 for none.
 */
double bench_median(double *v, unsigned int n);

/**
 * bench_median_ci_rank() - where a 95% confidence interval of a median ends.
 * @n: how many values (at least 1).
 *
 * The interval runs from the j-th smallest of @n values to the j-th largest,
 * j the largest rank with P(X < j) <= 2.5% for X ~ Binomial(@n, 1/2): it
 * holds the median with at least 95% chance whatever the distribution.  For
 * @n below 6 no rank is that safe, and the whole range is returned (j = 1).
 *
 * Context: any.
 * Return: j, 1-based, at least 1.
 */
unsigned int bench_median_ci_rank(unsigned int n);

/**
 * bench_paired_median() - the median of a figure over another, paired by round.
 * @a: the first figure's value in each round.
 * @b: the second figure's, in the same rounds.
 * @n: rounds.
 * @m: gets the median over the rounds of @a[i] / @b[i].
 * @lo: gets the lower end of its 95% confidence interval.
 * @hi: gets the upper end.
 *
 * Rounds where either value is not above 0 are left out.  The two values
 * of a round are measured close together, so that the machine's load at
 * that moment weighs on both alike, where comparing each one's median alone
 * compares one's quiet rounds with the other's busy ones.
 *
 * Context: any; allocates.
 * Return: the rounds used; 0 (and 0 in *@m, *@lo, *@hi) when none has both
 * values or memory ran out.
 */
unsigned int bench_paired_median(const double *a, const double *b, unsigned int n,
				 double *m, double *lo, double *hi);

#endif /* BENCH_COMMON_STATS_H */
