// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxsim_out.c - the simulator's human tables: one line per point, the
 * summaries by workload and thread count, and the achieved latencies.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "daxsim.h"

void dsim_print_header(void)
{
	printf("%-8s %2s %-8s %7s %10s %8s %8s %9s %6s %6s %8s %8s\n",
	       "workload", "th", "policy", "ratio", "iops", "p50_us", "p99_us",
	       "p999_us", "hit", "bypass", "set/kop", "rm/kop");
}

/* How far @ns is from the round trip @rt, in percent. */
static double drift_pct(double ns, uint64_t rt)
{
	return rt ? 100.0 * (ns - (double)rt) / (double)rt : 0.0;
}

static bool drifted(double ns, uint64_t calls, uint64_t rt)
{
	return calls && fabs(drift_pct(ns, rt)) > DSIM_DRIFT_PCT;
}

void dsim_print_point(const struct dsim_point *pt)
{
	printf("%-8s %2u %-8s %7.4g %10.0f %8.2f %8.2f %9.2f %6.3f %6.3f %8.2f %8.2f\n",
	       dsim_wl_name(pt->wl), pt->threads, dsim_policy_name(pt->policy),
	       pt->ratio, pt->iops, pt->p50_us, pt->p99_us, pt->p999_us,
	       pt->hit_ratio, pt->bypass_ratio, pt->setups_per_kop,
	       pt->removes_per_kop);
	fflush(stdout);
}

#define DRIFT_SHOWN	12	/* the worst drifts printed one by one */

/* One achieved latency off its target. */
struct drift {
	const struct dsim_point *pt;
	unsigned int kind;
	double ns;
	uint64_t calls;
};

static const char *const kind_name[3] = { "setup", "remove", "non-DAX read" };

static int cmp_drift(const void *a, const void *b)
{
	const struct drift *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/* Collect the drifted round trips of @pt into @d; returns how many. */
static unsigned int point_drifts(const struct dsim_params *p,
				 const struct dsim_point *pt, struct drift *d)
{
	const double ns[3] = { pt->setup_ns, pt->remove_ns, pt->read_rt_ns };
	const uint64_t calls[3] = { pt->setup_calls, pt->remove_calls, pt->read_rts };
	unsigned int k, n = 0;

	for (k = 0; k < 3; k++) {
		if (!drifted(ns[k], calls[k], p->rt_ns))
			continue;
		d[n].pt = pt;
		d[n].kind = k;
		d[n].ns = ns[k];
		d[n].calls = calls[k];
		n++;
	}
	return n;
}

static void print_drift(const struct dsim_params *p, const struct drift *d)
{
	const struct dsim_point *pt = d->pt;

	printf("WARNING: %s %u thr %s ratio %g: achieved %s %.2f us, %+.1f%% off "
	       "(%llu calls; readers had %.0f%% CPU, %llu preemptions)\n",
	       dsim_wl_name(pt->wl), pt->threads, dsim_policy_name(pt->policy),
	       pt->ratio, kind_name[d->kind], d->ns / 1000.0,
	       drift_pct(d->ns, p->rt_ns), (unsigned long long)d->calls,
	       pt->cpu_pct, (unsigned long long)pt->preempted);
}

unsigned int dsim_print_achieved(const struct dsim_params *p,
				 const struct dsim_point *pts, size_t n)
{
	double tot[3] = { 0, 0, 0 }, ok[3] = { 0, 0, 0 }, ns, cpu = 0;
	uint64_t calls[3] = { 0, 0, 0 };
	unsigned int bad = 0, bad2 = 0, k, nd = 0, m;
	struct drift *d;
	size_t i;

	d = calloc(3 * n + 1, sizeof(*d));
	for (i = 0; i < n; i++) {
		tot[0] += pts[i].setup_ns * (double)pts[i].setup_calls;
		ok[0] += pts[i].setup_ok_pct * (double)pts[i].setup_calls;
		calls[0] += pts[i].setup_calls;
		tot[1] += pts[i].remove_ns * (double)pts[i].remove_calls;
		ok[1] += pts[i].remove_ok_pct * (double)pts[i].remove_calls;
		calls[1] += pts[i].remove_calls;
		tot[2] += pts[i].read_rt_ns * (double)pts[i].read_rts;
		ok[2] += pts[i].read_rt_ok_pct * (double)pts[i].read_rts;
		calls[2] += pts[i].read_rts;
		cpu += pts[i].cpu_pct;
		if (!d)
			continue;
		m = point_drifts(p, &pts[i], &d[nd]);
		nd += m;
		if (m) {
			bad++;
			bad2 += pts[i].threads > 1;
		}
	}
	printf("\nachieved latency (target round trip %.2f us; spun, "
	       "timed with CLOCK_MONOTONIC):\n", (double)p->rt_ns / 1000.0);
	for (k = 0; k < 3; k++) {
		ns = calls[k] ? tot[k] / (double)calls[k] : 0.0;
		printf("  %-13s mean %8.2f us  %+7.2f%%  (%llu calls, %.1f%% of them "
		       "within %.0f%%)%s\n", kind_name[k], ns / 1000.0,
		       calls[k] ? drift_pct(ns, p->rt_ns) : 0.0,
		       (unsigned long long)calls[k],
		       calls[k] ? ok[k] / (double)calls[k] : 0.0, DSIM_DRIFT_PCT,
		       drifted(ns, calls[k], p->rt_ns) ? "  <-- OFF TARGET" : "");
	}
	printf("  readers had %.1f%% of a CPU each on average over the points\n",
	       n ? cpu / (double)n : 0.0);
	if (bad) {
		qsort(d, nd, sizeof(*d), cmp_drift);
		for (k = 0; k < nd && k < DRIFT_SHOWN; k++)
			print_drift(p, &d[k]);
		if (nd > DRIFT_SHOWN)
			printf("WARNING: ... and %u more drifted round trip means\n",
			       nd - DRIFT_SHOWN);
		printf("WARNING: achieved latency off by more than %.0f%% at %u of %zu points "
		       "(%u of them with 2+ threads)\n", DSIM_DRIFT_PCT, bad, n, bad2);
		printf("WARNING: %ld CPUs here: readers + the background reclaimer (+ other "
		       "load) may oversubscribe them; a preempted spin lasts longer, so "
		       "these points understate every policy that waits\n", dsim_cpus());
	} else {
		printf("  every point within %.0f%% of the target\n", DSIM_DRIFT_PCT);
	}
	free(d);
	return bad;
}

static void print_summary(const struct dsim_params *p, const struct dsim_point *pts,
			  size_t n, enum dsim_wl wl, unsigned int threads)
{
	const struct dsim_point *pt, *nd, *df;
	unsigned int r, k;

	printf("\nsummary %s, %u thread%s: kIOPS (p99 us)\n", dsim_wl_name(wl),
	       threads, threads > 1 ? "s" : "");
	printf("%7s %6s", "ratio", "ranges");
	for (k = 0; k < DSIM_NR_POLICIES; k++)
		if (p->pol_on[k])
			printf(" %15s", dsim_policy_name(k));
	printf(" %9s %6s\n", "def/nodax", "bypass");
	for (r = 0; r < p->nr_ratios; r++) {
		printf("%7.4g %6llu", p->ratios[r],
		       (unsigned long long)dsim_window_ranges(p, p->ratios[r]));
		for (k = 0; k < DSIM_NR_POLICIES; k++) {
			if (!p->pol_on[k])
				continue;
			pt = dsim_find_point(pts, n, wl, threads, k, p->ratios[r]);
			if (pt)
				printf(" %6.1f (%6.1f)", pt->iops / 1000.0, pt->p99_us);
			else
				printf(" %15s", "-");
		}
		nd = dsim_find_point(pts, n, wl, threads, DSIM_NODAX, p->ratios[r]);
		df = dsim_find_point(pts, n, wl, threads, DSIM_DEFAULT, p->ratios[r]);
		if (nd && df && nd->iops > 0)
			printf(" %8.2fx %6.3f\n", df->iops / nd->iops, df->bypass_ratio);
		else if (df)
			printf(" %9s %6.3f\n", "-", df->bypass_ratio);
		else
			printf(" %9s %6s\n", "-", "-");
	}
}

void dsim_print_summaries(const struct dsim_params *p,
			  const struct dsim_point *pts, size_t n)
{
	unsigned int w, t;

	for (w = 0; w < DSIM_NR_WL; w++) {
		if (!p->wl_on[w])
			continue;
		for (t = 0; t < p->nr_threads; t++)
			print_summary(p, pts, n, w, p->threads[t]);
	}
}
