// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lat_hist.c - merging and reading log-linear latency histograms.
 */
#include "lat_hist.h"

void lat_hist_merge(struct lat_hist *dst, const struct lat_hist *src)
{
	unsigned int b;

	for (b = 0; b < LAT_HIST_BUCKETS; b++)
		dst->count[b] += src->count[b];
	dst->n += src->n;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* The middle of bucket @b: its lowest value plus half its width. */
static uint64_t bucket_mid(unsigned int b)
{
	unsigned int e, sub;

	if (b < LAT_HIST_LINEAR)
		return b;
	e = (b - LAT_HIST_LINEAR) / LAT_HIST_SUB + LAT_HIST_SUB_BITS + 1;
	sub = (b - LAT_HIST_LINEAR) % LAT_HIST_SUB;
	return ((uint64_t)(LAT_HIST_SUB + sub) << (e - LAT_HIST_SUB_BITS)) +
	       ((1ull << (e - LAT_HIST_SUB_BITS)) >> 1);
}

uint64_t lat_hist_percentile(const struct lat_hist *h, double pct)
{
	uint64_t want, seen = 0;
	unsigned int b;

	if (!h->n)
		return 0;
	want = (uint64_t)((double)h->n * pct / 100.0);
	if ((double)want < (double)h->n * pct / 100.0)
		want++;
	if (!want)
		want = 1;
	for (b = 0; b < LAT_HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen >= want)
			return bucket_mid(b) < h->max ? bucket_mid(b) : h->max;
	}
	return h->max;
}
