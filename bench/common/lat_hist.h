/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lat_hist.h - a log-linear latency histogram: each power of two of
 * nanoseconds is cut into 32 buckets, so a percentile read from it is within
 * 1/64 (1.6%) of the true value, and two neighbouring buckets are 1.6% to
 * 3.1% apart (with 8 buckets they were 6.25% to 12.5% apart: too coarse for
 * a bound like "p99 at most 1.1x").  Values below 64 ns have a bucket each.
 */
#ifndef BENCH_COMMON_LAT_HIST_H
#define BENCH_COMMON_LAT_HIST_H

#include <stdint.h>

#define LAT_HIST_SUB_BITS	5
#define LAT_HIST_SUB		(1u << LAT_HIST_SUB_BITS)
#define LAT_HIST_LINEAR		(2 * LAT_HIST_SUB)	/* exact below this */
#define LAT_HIST_BUCKETS	(LAT_HIST_LINEAR + (64 - LAT_HIST_SUB_BITS - 1) * LAT_HIST_SUB)

/**
 * struct lat_hist - counts per bucket; zero it to start.
 * @count: samples per bucket.
 * @n: samples in all.
 * @max: the largest sample.
 */
struct lat_hist {
	uint64_t count[LAT_HIST_BUCKETS];
	uint64_t n;
	uint64_t max;
};

/**
 * lat_hist_add() - count one sample.
 * @h: the histogram.
 * @ns: the sample.
 *
 * Context: the thread that owns @h.
 */
static inline void lat_hist_add(struct lat_hist *h, uint64_t ns)
{
	unsigned int b, e;

	if (ns < LAT_HIST_LINEAR) {
		b = (unsigned int)ns;
	} else {
		e = 63u - (unsigned int)__builtin_clzll(ns);
		b = LAT_HIST_LINEAR + (e - LAT_HIST_SUB_BITS - 1) * LAT_HIST_SUB +
		    (unsigned int)((ns >> (e - LAT_HIST_SUB_BITS)) &
				   (LAT_HIST_SUB - 1));
	}
	h->count[b]++;
	h->n++;
	if (ns > h->max)
		h->max = ns;
}

/**
 * lat_hist_merge() - add @src's samples to @dst.
 * @dst: the sum.
 * @src: what to add.
 *
 * Context: no thread is adding to either.
 */
void lat_hist_merge(struct lat_hist *dst, const struct lat_hist *src);

/**
 * lat_hist_percentile() - the value below which @pct percent of samples lie.
 * @h: the histogram.
 * @pct: 0..100.
 *
 * Context: no thread is adding to @h.
 * Return: the middle of the bucket that holds that sample, or 0 when empty.
 */
uint64_t lat_hist_percentile(const struct lat_hist *h, double pct);

#endif /* BENCH_COMMON_LAT_HIST_H */
