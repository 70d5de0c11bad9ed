// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxsim_targets.c - the targets the simulator reports (never asserts),
 * read from the uniform random, 1 thread points, and one read at every
 * point: the default policy is never the wrong choice.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "daxsim.h"

#define RATIO_SEED	0.4	/* seed000/2019's: a 4 GiB window, a 10 GiB file */
#define RATIO_CLIFF	0.25	/* the working set is 4x the window */

const struct dsim_point *dsim_find_point(const struct dsim_point *pts, size_t n,
					 enum dsim_wl wl, unsigned int threads,
					 enum dsim_policy pol, double ratio)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (pts[i].wl == wl && pts[i].threads == threads &&
		    pts[i].policy == pol && fabs(pts[i].ratio - ratio) < 1e-9 &&
		    pts[i].ops)
			return &pts[i];
	}
	return NULL;
}

static const struct dsim_point *find(const struct dsim_point *pts, size_t n,
				     enum dsim_policy pol, double ratio)
{
	return dsim_find_point(pts, n, DSIM_UNIFORM, 1, pol, ratio);
}

/*
 * @d against the other policies of its point, from @d's IOPS over each
 * one's paired by round (struct dsim_point @vs): the best other is the one
 * @d trails most.  False if none was measured.
 */
static bool nw_point(const struct dsim_point *pts, size_t n,
		     const struct dsim_point *d, struct dsim_nw *w)
{
	static const enum dsim_policy others[] = { DSIM_P2019, DSIM_SEED000, DSIM_UPSTREAM };
	const struct dsim_point *o;
	double m;
	unsigned int k;

	memset(w, 0, sizeof(*w));
	w->d = d;
	for (k = 0; k < sizeof(others) / sizeof(others[0]); k++) {
		o = dsim_find_point(pts, n, d->wl, d->threads, others[k], d->ratio);
		if (o && d->vs[others[k]] > 0 &&
		    (!w->best || d->vs[others[k]] < d->vs[w->best->policy]))
			w->best = o;
	}
	w->nd = dsim_find_point(pts, n, d->wl, d->threads, DSIM_NODAX, d->ratio);
	if (w->nd && d->vs[DSIM_NODAX] <= 0)
		w->nd = NULL;
	if (!w->best && !w->nd)
		return false;
	w->margin = INFINITY;
	w->hi = INFINITY;
	if (w->best) {
		w->v_best = d->vs[w->best->policy];
		w->best_lo = d->vs_lo[w->best->policy];
		w->best_hi = d->vs_hi[w->best->policy];
		w->margin = w->v_best / DSIM_NW_IOPS;
		w->hi = w->best_hi / DSIM_NW_IOPS;
		if (w->best->p99_us > 0) {
			w->v_p99 = d->p99_us / w->best->p99_us;
			w->p99_lo = d->p99_vs_lo[w->best->policy];
			w->p99_hi = d->p99_vs_hi[w->best->policy];
			m = w->v_p99 > 0 ? DSIM_NW_P99 / w->v_p99 : INFINITY;
			if (m < w->margin)
				w->margin = m;
		}
	}
	if (w->nd) {
		w->v_nd = d->vs[DSIM_NODAX];
		w->nd_lo = d->vs_lo[DSIM_NODAX];
		w->nd_hi = d->vs_hi[DSIM_NODAX];
		m = w->v_nd / DSIM_NW_IOPS;
		if (m < w->margin)
			w->margin = m;
		if (w->nd_hi / DSIM_NW_IOPS < w->hi)
			w->hi = w->nd_hi / DSIM_NW_IOPS;
	}
	return true;
}

unsigned int dsim_nw_eval(const struct dsim_point *pts, size_t n,
			  struct dsim_nw *worst, unsigned int *met)
{
	unsigned int compared = 0;
	struct dsim_nw w;
	size_t i;

	memset(worst, 0, sizeof(*worst));
	*met = 0;
	for (i = 0; i < n; i++) {
		if (pts[i].policy != DSIM_DEFAULT || !pts[i].ops ||
		    !nw_point(pts, n, &pts[i], &w))
			continue;
		if (!compared++ || w.margin < worst->margin)
			*worst = w;
		*met += w.margin >= 1.0;
	}
	return compared;
}

static void judge(struct dsim_target *t, const char *what, double ratio,
		  const struct dsim_point *a, const struct dsim_point *b,
		  bool p99, enum dsim_cmp cmp, double limit)
{
	double va, vb;
	bool ok;

	/* No confidence interval here (ci_hi 0): only the every-point rule has one. */
	memset(t, 0, sizeof(*t));
	snprintf(t->what, sizeof(t->what), "%s", what);
	t->wl = DSIM_UNIFORM;
	t->threads = 1;
	t->ratio = ratio;
	t->limit = limit;
	t->cmp = cmp;
	t->value = 0.0;
	if (!a || !b) {
		t->met = DSIM_NOT_MEASURED;
		return;
	}
	va = p99 ? a->p99_us : a->iops;
	vb = p99 ? b->p99_us : b->iops;
	if (vb <= 0.0) {
		t->met = DSIM_NOT_MEASURED;
		return;
	}
	t->value = va / vb;
	switch (cmp) {
	case DSIM_GE:
		ok = t->value >= limit;
		break;
	case DSIM_LE:
		ok = t->value <= limit;
		break;
	default:
		ok = t->value < limit;
		break;
	}
	t->met = ok ? DSIM_MET : DSIM_NOT_MET;
}

/*
 * The every-point rule (the default policy never the wrong choice) as
 * three targets, one per bound, each read at its worst point: the
 * default's IOPS over the best other DAX policy's (>= DSIM_NW_IOPS), over
 * nodax's (>= DSIM_NW_IOPS), and its p99 over that best policy's
 * (<= DSIM_NW_P99).  All three met: every point meets the rule.
 */
static void nw_targets(struct dsim_target *t, const struct dsim_point *pts, size_t n)
{
	static const char *const what[3] = {
		"default/best other IOPS (worst)",
		"default/nodax IOPS (worst)",
		"default/best other p99 (worst)",
	};
	const struct dsim_point *at[3] = { NULL, NULL, NULL };
	double worst[3] = { INFINITY, INFINITY, 0.0 }, v;
	double lo[3] = { 0.0, 0.0, 0.0 }, hi[3] = { 0.0, 0.0, 0.0 };
	bool have;
	struct dsim_nw w;
	unsigned int k;
	size_t i;

	for (i = 0; i < n; i++) {
		if (pts[i].policy != DSIM_DEFAULT || !pts[i].ops ||
		    !nw_point(pts, n, &pts[i], &w))
			continue;
		for (k = 0; k < 3; k++) {
			have = k == 1 ? w.nd != NULL : w.best != NULL;
			if (k == 2)
				have = have && w.best->p99_us > 0;
			if (!have)
				continue;
			v = k == 0 ? w.v_best : k == 1 ? w.v_nd : w.v_p99;
			if (!at[k] || (k == 2 ? v > worst[k] : v < worst[k])) {
				worst[k] = v;
				at[k] = &pts[i];
				lo[k] = k == 0 ? w.best_lo : k == 1 ? w.nd_lo : w.p99_lo;
				hi[k] = k == 0 ? w.best_hi : k == 1 ? w.nd_hi : w.p99_hi;
			}
		}
	}
	for (k = 0; k < 3; k++) {
		memset(&t[k], 0, sizeof(t[k]));
		snprintf(t[k].what, sizeof(t[k].what), "%s", what[k]);
		t[k].limit = k == 2 ? DSIM_NW_P99 : DSIM_NW_IOPS;
		t[k].cmp = k == 2 ? DSIM_LE : DSIM_GE;
		if (!at[k]) {
			t[k].met = DSIM_NOT_MEASURED;
			continue;
		}
		t[k].wl = at[k]->wl;
		t[k].threads = at[k]->threads;
		t[k].ratio = at[k]->ratio;
		t[k].value = worst[k];
		t[k].ci_lo = lo[k];
		t[k].ci_hi = hi[k];
		t[k].met = (k == 2 ? worst[k] <= t[k].limit : worst[k] >= t[k].limit) ?
			   DSIM_MET : DSIM_NOT_MET;
	}
}

unsigned int dsim_targets_eval(const struct dsim_params *p,
			       const struct dsim_point *pts, size_t n,
			       struct dsim_target *t)
{
	/*
	 * Policy a against b, IOPS or p99, at one ratio or (ratio 0) at every
	 * swept ratio from @from on; "fits": the whole file is in the window.
	 * @host: the figure depends on the host model, so the name says which
	 * (the 2019 code that seed000's 1.87x and 0.56x were measured against
	 * paid for its background reclaimer's removes on the reading thread; a
	 * host that serves them in parallel makes nothing pay for them).
	 */
	static const struct {
		const char *what;
		double ratio, from;
		enum dsim_policy a, b;
		bool p99;
		enum dsim_cmp cmp;
		double limit;
		bool host;
	} rules[] = {
		{ "seed000/2019 IOPS", RATIO_SEED, 0, DSIM_SEED000, DSIM_P2019, false, DSIM_GE, 1.87, true },
		{ "seed000/2019 p99", RATIO_SEED, 0, DSIM_SEED000, DSIM_P2019, true, DSIM_LE, 0.56, true },
		{ "2019/nodax IOPS (cliff)", RATIO_CLIFF, 0, DSIM_P2019, DSIM_NODAX, false, DSIM_LT, 1.0, false },
		{ "upstream/nodax IOPS (cliff)", RATIO_CLIFF, 0, DSIM_UPSTREAM, DSIM_NODAX, false, DSIM_LT, 1.0, false },
		{ "default/nodax IOPS (no cliff)", 0, 0, DSIM_DEFAULT, DSIM_NODAX, false, DSIM_GE, 0.95, false },
		{ "default/nodax IOPS (fits)", 0, 1.0, DSIM_DEFAULT, DSIM_NODAX, false, DSIM_GE, 5.0, false },
	};
	unsigned int k = 0, i, j;
	double r;

	for (j = 0; j < sizeof(rules) / sizeof(rules[0]); j++) {
		for (i = 0; i < (rules[j].ratio > 0 ? 1 : p->nr_ratios); i++) {
			r = rules[j].ratio > 0 ? rules[j].ratio : p->ratios[i];
			if (r < rules[j].from)
				continue;
			judge(&t[k], rules[j].what, r, find(pts, n, rules[j].a, r),
			      find(pts, n, rules[j].b, r), rules[j].p99,
			      rules[j].cmp, rules[j].limit);
			if (rules[j].host)
				strncat(t[k].what, p->serial_host ? " (serial host)" :
					" (parallel host)",
					sizeof(t[k].what) - strlen(t[k].what) - 1);
			k++;
		}
	}
	nw_targets(&t[k], pts, n);
	return k + 3;
}

static const char *cmp_name(enum dsim_cmp c)
{
	return c == DSIM_GE ? ">=" : c == DSIM_LE ? "<=" : "<";
}

static const char *met_name(enum dsim_met m)
{
	return m == DSIM_MET ? "met" : m == DSIM_NOT_MET ? "NOT met" : "not measured";
}

/* Not a target: the other workloads and thread counts where default < 0.95x nodax. */
static void print_default_elsewhere(const struct dsim_point *pts, size_t n)
{
	const struct dsim_point *nd;
	unsigned int below = 0, compared = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (pts[i].policy != DSIM_DEFAULT ||
		    (pts[i].wl == DSIM_UNIFORM && pts[i].threads == 1))
			continue;
		nd = NULL;
		for (j = 0; j < n; j++)
			if (pts[j].policy == DSIM_NODAX && pts[j].wl == pts[i].wl &&
			    pts[j].threads == pts[i].threads &&
			    fabs(pts[j].ratio - pts[i].ratio) < 1e-9)
				nd = &pts[j];
		if (!nd || nd->iops <= 0)
			continue;
		compared++;
		if (pts[i].iops >= 0.95 * nd->iops)
			continue;
		if (!below++)
			printf("not a target: default below 0.95x nodax IOPS at");
		printf(" %s/%uthr/%g (%.2fx)", dsim_wl_name(pts[i].wl), pts[i].threads,
		       pts[i].ratio, pts[i].iops / nd->iops);
	}
	if (below)
		printf("\n");
	if (compared)
		printf("not a target: default >= 0.95x nodax IOPS at %u of %u points of the "
		       "other workloads and thread counts\n", compared - below, compared);
}

static void print_nw_point(const char *lead, const struct dsim_nw *w)
{
	const char *bn = w->best ? dsim_policy_name(w->best->policy) : "-";

	printf("%s%s/%uthr/%g: IOPS %.2fx %s (95%% CI %.2f-%.2f)", lead,
	       dsim_wl_name(w->d->wl), w->d->threads, w->d->ratio, w->v_best, bn,
	       w->best_lo, w->best_hi);
	printf(", %.2fx nodax (%.2f-%.2f), p99 %.2f us = %.2fx %s's (by round %.2f-%.2f); "
	       "hit ratio %.3f (%.3f), setups/kop %.2f (%.2f), bypass %.3f (margin %.3f)",
	       w->v_nd, w->nd_lo, w->nd_hi, w->d->p99_us, w->v_p99, bn, w->p99_lo,
	       w->p99_hi, w->d->hit_ratio,
	       w->best ? w->best->hit_ratio : 0.0, w->d->setups_per_kop,
	       w->best ? w->best->setups_per_kop : 0.0, w->d->bypass_ratio, w->margin);
}

/* Whether a point that misses the rule misses an IOPS bound beyond noise. */
static const char *nw_verdict(const struct dsim_nw *w)
{
	if (w->margin >= 1.0)
		return "met";
	return w->hi < 1.0 || (w->v_p99 > DSIM_NW_P99 && w->p99_lo > DSIM_NW_P99) ?
	       "NOT met, beyond noise" : "NOT met, within noise";
}

/* Whether an achieved round trip of @pt is more than DSIM_DRIFT_PCT off. */
static bool pt_drifted(const struct dsim_params *p, const struct dsim_point *pt)
{
	const double ns[3] = { pt->setup_ns, pt->remove_ns, pt->read_rt_ns };
	const uint64_t calls[3] = { pt->setup_calls, pt->remove_calls, pt->read_rts };
	double lim = (double)p->rt_ns * DSIM_DRIFT_PCT / 100.0;
	unsigned int k;

	for (k = 0; k < 3; k++)
		if (calls[k] && fabs(ns[k] - (double)p->rt_ns) > lim)
			return true;
	return false;
}

/*
 * After a verdict: the round trips of the default's or the best's point
 * that were off their target (a busy machine stretches a spin that was
 * preempted, more for some policies than for others, so that the costs
 * compared are not the simulated ones), and the CPU share the readers got.
 */
static void print_nw_load(const struct dsim_params *p, const struct dsim_nw *w)
{
	bool dd = pt_drifted(p, w->d), bd = w->best && pt_drifted(p, w->best);

	if (dd || bd)
		printf(" [achieved round trips off target: %s%s%s]", dd ? "default" : "",
		       dd && bd ? ", " : "", bd ? dsim_policy_name(w->best->policy) : "");
	printf(" [readers' CPU %.0f%%", w->d->cpu_pct);
	if (w->best)
		printf(", %s's %.0f%%", dsim_policy_name(w->best->policy), w->best->cpu_pct);
	printf("]");
}

/*
 * The every-point rule in full: how many points meet it, the worst one, and
 * each point that does not, with how many of those miss an IOPS bound by
 * more than the run can tell (the whole 95% confidence interval of the
 * paired ratio below the bound).
 */
static void print_nw(const struct dsim_params *p, const struct dsim_point *pts, size_t n)
{
	struct dsim_nw worst, w;
	unsigned int compared, met, below = 0, beyond = 0;
	size_t i;

	compared = dsim_nw_eval(pts, n, &worst, &met);
	if (!compared)
		return;
	printf("default never worse (every point: IOPS, paired by round over %u rounds, >= "
	       "%.2fx the best of 2019/seed000/upstream and >= %.2fx nodax; p99 <= %.2fx the "
	       "best's): %u of %u points met\n", worst.d->slices, DSIM_NW_IOPS, DSIM_NW_IOPS,
	       DSIM_NW_P99, met, compared);
	print_nw_point("  worst point ", &worst);
	printf(": %s", nw_verdict(&worst));
	print_nw_load(p, &worst);
	printf("\n");
	for (i = 0; i < n; i++) {
		if (pts[i].policy != DSIM_DEFAULT || !pts[i].ops ||
		    !nw_point(pts, n, &pts[i], &w) || w.margin >= 1.0)
			continue;
		if (!below++)
			printf("  points not met:\n");
		beyond += !strcmp(nw_verdict(&w), "NOT met, beyond noise");
		print_nw_point("    ", &w);
		printf(": %s", nw_verdict(&w));
		print_nw_load(p, &w);
		printf("\n");
	}
	if (below)
		printf("  of the %u points not met, %u miss a bound beyond noise (the 95%% CI of "
		       "the ratio paired by round entirely on the wrong side of it)\n", below,
		       beyond);
}

void dsim_print_targets(const struct dsim_params *p,
			const struct dsim_point *pts, size_t n)
{
	struct dsim_target t[DSIM_MAX_TARGETS];
	unsigned int k, i, met = 0, measured = 0;

	k = dsim_targets_eval(p, pts, n, t);
	printf("\ntargets (uniform random 4 KiB reads, 1 thread, but the last three, each "
	       "read at its worst point of the run; reported, not asserted):\n");
	printf("  %-33s %-8s %3s %7s %9s %8s  %s\n", "target", "workload", "thr", "ratio",
	       "value", "limit", "verdict");
	for (i = 0; i < k; i++) {
		printf("  %-33s %-8s %3u %7.4g ", t[i].what, dsim_wl_name(t[i].wl),
		       t[i].threads, t[i].ratio);
		if (t[i].met == DSIM_NOT_MEASURED)
			printf("%9s %2s%6.2fx  %s\n", "-", cmp_name(t[i].cmp), t[i].limit,
			       met_name(t[i].met));
		else if (t[i].ci_hi > 0)
			printf("%8.2fx %2s%6.2fx  %s (95%% CI %.2f-%.2f)\n", t[i].value,
			       cmp_name(t[i].cmp), t[i].limit, met_name(t[i].met),
			       t[i].ci_lo, t[i].ci_hi);
		else
			printf("%8.2fx %2s%6.2fx  %s\n", t[i].value, cmp_name(t[i].cmp),
			       t[i].limit, met_name(t[i].met));
		measured += t[i].met != DSIM_NOT_MEASURED;
		met += t[i].met == DSIM_MET;
	}
	printf("targets: %u of %u met (%u not measured)\n", met, measured, k - measured);
	print_nw(p, pts, n);
	print_default_elsewhere(pts, n);
}
