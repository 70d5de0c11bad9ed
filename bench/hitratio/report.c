// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * report.c - the study's table, its targets block, and its TSV and JSON.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/json.h"
#include "study.h"

#define TARGET_PTS	3.0	/* CLOCK within 3 points (absolute) of LRU */
#define MAX_WL		16

const char *const hr_col_name[HR_NR_COLS] = {
	[HR_LRU] = "lru",
	[HR_OPT] = "opt",
	[HR_TCLOCK] = "textbook_clock",
	[HR_TCLOCK_COLD] = "textbook_clock_cold",
	[HR_FIFO] = "fifo",
	[HR_ARC] = "arc",
	[HR_2Q] = "2q",
	[HR_S3FIFO] = "s3fifo",
	[HR_SIEVE] = "sieve",
	[HR_CLOCK] = "clock",
	[HR_RR] = "rr",
	[HR_LIBDEF] = "lib_default",
	[HR_CLOCK_FAIR] = "clock_fair",
	[HR_RR_FAIR] = "rr_fair",
	[HR_LIBDEF_FAIR] = "lib_default_fair",
	[HR_LSIEVE] = "lib_sieve",
	[HR_LSIEVE_ADMIT] = "lib_sieve_admit",
	[HR_LRU_OCC] = "lru_at_occupancy",
	[HR_TCLOCK_OWN] = "textbook_clock_cold_own_file",
};

static const enum hr_col lib_cols[] = {
	HR_CLOCK, HR_RR, HR_LIBDEF, HR_CLOCK_FAIR, HR_RR_FAIR, HR_LIBDEF_FAIR,
	HR_LSIEVE, HR_LSIEVE_ADMIT,
};
#define NR_LIB_COLS	(sizeof(lib_cols) / sizeof(lib_cols[0]))

enum hr_col hr_best_online(const struct hr_cell *c)
{
	enum hr_col k, best = HR_LRU;

	for (k = HR_LRU; k < HR_CLOCK; k++)
		if (k != HR_OPT && c->hit[k] > c->hit[best])
			best = k;
	return best;
}

/* Points the default (default config) trails the best online policy by. */
static double anchor_gap(const struct hr_cell *c)
{
	return 100 * (c->hit[hr_best_online(c)] - c->hit[HR_LIBDEF]) + 0.0;
}

/* The modelled IOPS of the default over the best's: one round trip per miss. */
static double anchor_iops(const struct hr_cell *c)
{
	double md = 1 - c->hit[HR_LIBDEF], mb = 1 - c->hit[hr_best_online(c)];

	return md > 0 ? mb / md : 1.0;
}

/* The targets of one workload under one config; gaps in points. */
struct wl_target {
	const char *wl;
	double max_abs;		/* max |clock - lru| */
	double abs_at;
	double max_short;	/* max (lru - clock): CLOCK behind LRU */
	double short_at;
	double max_rr_over;	/* max (rr - clock): CLOCK behind RR */
	double rr_at;
	unsigned int below_rr;	/* cells where clock < rr */
	unsigned int cells;
};

struct verdict {
	int abs_ok;		/* |clock - lru| <= 3 everywhere */
	int short_ok;		/* lru - clock <= 3 everywhere */
	unsigned int below_rr;	/* cells with clock < rr */
};

/* Targets per workload for the @clock and @rr columns. */
static unsigned int targets(const struct hr_study *s, int clock, int rr,
			    struct wl_target *out, struct verdict *v)
{
	unsigned int i, n = 0;

	*v = (struct verdict){ .abs_ok = 1, .short_ok = 1 };
	for (i = 0; i < s->nr_cells; i++) {
		const struct hr_cell *c = &s->cells[i];
		/* + 0.0 turns a -0.0 into 0.0 for printing. */
		double d = 100 * (c->hit[clock] - c->hit[HR_LRU]) + 0.0;
		double r = 100 * (c->hit[rr] - c->hit[clock]) + 0.0;
		struct wl_target *w;

		if (!n || strcmp(out[n - 1].wl, c->wl)) {
			if (n == MAX_WL)
				break;
			out[n++] = (struct wl_target){
				.wl = c->wl, .max_abs = -1, .max_short = -1e9, .max_rr_over = -1e9,
			};
		}
		w = &out[n - 1];
		w->cells++;
		if (fabs(d) > w->max_abs) {
			w->max_abs = fabs(d);
			w->abs_at = c->ratio;
		}
		if (0.0 - d > w->max_short) {
			w->max_short = 0.0 - d;
			w->short_at = c->ratio;
		}
		if (r > w->max_rr_over) {
			w->max_rr_over = r;
			w->rr_at = c->ratio;
		}
		if (c->hit[clock] < c->hit[rr])
			w->below_rr++;
	}
	for (i = 0; i < n; i++) {
		if (out[i].max_abs > TARGET_PTS)
			v->abs_ok = 0;
		if (out[i].max_short > TARGET_PTS)
			v->short_ok = 0;
		v->below_rr += out[i].below_rr;
	}
	return n;
}

static const char *met(int ok)
{
	return ok ? "met" : "NOT met";
}

/* Print one config's targets; return 1 when all hold. */
static int print_targets(const struct hr_study *s, FILE *f, const char *cfg,
			 int clock, int rr)
{
	struct wl_target w[MAX_WL];
	struct verdict v;
	unsigned int n, i;

	n = targets(s, clock, rr, w, &v);
	for (i = 0; i < n; i++)
		fprintf(f, "  %-8s %-9s %7.2f @%-7.4g %7.2f @%-7.4g %5u/%u %7.2f @%-7.4g\n",
			cfg, w[i].wl, w[i].max_abs, w[i].abs_at, w[i].max_short, w[i].short_at,
			w[i].below_rr, w[i].cells, w[i].max_rr_over, w[i].rr_at);
	fprintf(f, "  %s config: |CLOCK - LRU| <= %.0f on every workload: %s; "
		"CLOCK >= LRU - %.0f: %s;\n    CLOCK never below RR: %s (%u cells below)\n",
		cfg, TARGET_PTS, met(v.abs_ok), TARGET_PTS, met(v.short_ok),
		met(!v.below_rr), v.below_rr);
	return v.abs_ok && !v.below_rr;
}

static double pct(double x)
{
	return 100 * x;
}

/* The cell of workload @wl at @ratio, or NULL. */
static const struct hr_cell *cell_at(const struct hr_study *s, const char *wl, double ratio)
{
	unsigned int i;

	for (i = 0; i < s->nr_cells; i++)
		if (!strcmp(s->cells[i].wl, wl) && fabs(s->cells[i].ratio - ratio) < 1e-9)
			return &s->cells[i];
	return NULL;
}

/*
 * files64 is zipf0.99's stream cut into 64 files: the library's figures on
 * the two differ only by the inodes, which is what choosing victims per
 * inode costs.
 */
static void print_same_stream(const struct hr_study *s, FILE *f)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->nr_cells; i++) {
		const struct hr_cell *m = &s->cells[i], *o;

		if (strcmp(m->wl, "files64") || !(o = cell_at(s, "zipf0.99", m->ratio)))
			continue;
		if (!n++)
			fprintf(f, "the same accesses on 64 inodes (files64) and on one (zipf0.99): the\n"
				"library default (its CLOCK), and offline tclk0 with victims window-wide\n"
				"and from the missing key's own file first (as inline reclaim takes them):\n");
		fprintf(f, "  ratio %-6.4g  64 inodes %5.1f (%5.1f)  one inode %5.1f (%5.1f)  "
			"difference %5.2f (%5.2f);  tclk0 %5.1f, own file first %5.1f\n",
			m->ratio, pct(m->hit[HR_LIBDEF]), pct(m->hit[HR_CLOCK]),
			pct(o->hit[HR_LIBDEF]), pct(o->hit[HR_CLOCK]),
			pct(o->hit[HR_LIBDEF] - m->hit[HR_LIBDEF]),
			pct(o->hit[HR_CLOCK] - m->hit[HR_CLOCK]), pct(m->hit[HR_TCLOCK_COLD]),
			pct(m->hit[HR_TCLOCK_OWN]));
	}
}

/*
 * The library default (default config) against the best online policy of
 * each cell: hit ratios, setups, the gap, the modelled IOPS.
 */
static void print_anchors(const struct hr_study *s, FILE *f)
{
	unsigned int i, within = 0;
	const struct hr_cell *worst = NULL;

	fprintf(f, "\nanchors (the library default against the best online policy of\n"
		"each cell, of lru tclk tclk0 fifo arc 2q s3f sieve; hit %%, setups per 1000\n"
		"accesses; modelled IOPS = the best's miss ratio over the default's, one round\n"
		"trip per miss, setup or direct read):\n");
	fprintf(f, "  %-9s %6s | %5s %7s | %-14s %5s %7s | %6s %5s\n", "workload", "ratio",
		"ldef", "set/k", "best", "hit", "set/k", "gap", "iops");
	for (i = 0; i < s->nr_cells; i++) {
		const struct hr_cell *c = &s->cells[i];
		enum hr_col b = hr_best_online(c);
		double gap = anchor_gap(c);

		fprintf(f, "  %-9s %6.4g | %5.1f %7.1f | %-14s %5.1f %7.1f | %6.2f %5.2f%s\n",
			c->wl, c->ratio, pct(c->hit[HR_LIBDEF]), 1000 * c->setups[HR_LIBDEF],
			hr_col_name[b], pct(c->hit[b]), 1000 * c->setups[b], gap,
			anchor_iops(c), gap > HR_ANCHOR_PTS ? "  TRAILS" : "");
		within += gap <= HR_ANCHOR_PTS;
		if (!worst || gap > anchor_gap(worst))
			worst = c;
	}
	if (!worst)
		return;
	print_same_stream(s, f);
	fprintf(f, "anchors: the default within %.0f point of the best online policy at %u of %u "
		"cells; worst %s @%.4g: %.2f points behind %s (%.1f against %.1f), modelled "
		"IOPS %.2fx\n", HR_ANCHOR_PTS, within, s->nr_cells, worst->wl, worst->ratio,
		anchor_gap(worst), hr_col_name[hr_best_online(worst)],
		pct(worst->hit[HR_LIBDEF]), pct(worst->hit[hr_best_online(worst)]),
		anchor_iops(worst));
}

/*
 * The library's SIEVE (DC_VICTIM_SIEVE) beside its CLOCK, default config,
 * without and with admission control: hit %, setups per 1000.
 */
static void print_lib_sieve(const struct hr_study *s, FILE *f)
{
	double sum_plain = 0, sum_admit = 0;
	unsigned int i, ahead_plain = 0, ahead_admit = 0;

	fprintf(f, "\nthe library's SIEVE (DC_VICTIM_SIEVE) beside its CLOCK, default config; hit %%\n"
		"(setups per 1000 accesses); ldef = CLOCK with DC_MAP_MAY_BYPASS, ls+a =\n"
		"SIEVE with it:\n");
	fprintf(f, "  %-9s %6s | %5s %7s %5s %7s %6s | %5s %7s %5s %7s %6s\n", "workload",
		"ratio", "clock", "set/k", "lsiev", "set/k", "diff", "ldef", "set/k", "ls+a",
		"set/k", "diff");
	for (i = 0; i < s->nr_cells; i++) {
		const struct hr_cell *c = &s->cells[i];
		double dp = pct(c->hit[HR_LSIEVE] - c->hit[HR_CLOCK]) + 0.0;
		double da = pct(c->hit[HR_LSIEVE_ADMIT] - c->hit[HR_LIBDEF]) + 0.0;

		fprintf(f, "  %-9s %6.4g | %5.1f %7.1f %5.1f %7.1f %+6.2f | %5.1f %7.1f %5.1f %7.1f"
			" %+6.2f\n", c->wl, c->ratio,
			pct(c->hit[HR_CLOCK]), 1000 * c->setups[HR_CLOCK],
			pct(c->hit[HR_LSIEVE]), 1000 * c->setups[HR_LSIEVE], dp,
			pct(c->hit[HR_LIBDEF]), 1000 * c->setups[HR_LIBDEF],
			pct(c->hit[HR_LSIEVE_ADMIT]), 1000 * c->setups[HR_LSIEVE_ADMIT], da);
		sum_plain += dp;
		sum_admit += da;
		ahead_plain += dp > 0;
		ahead_admit += da > 0;
	}
	if (!s->nr_cells)
		return;
	fprintf(f, "library SIEVE: against CLOCK mean %+.2f points, ahead at %u of %u cells;"
		" with admission against the default mean %+.2f points, ahead at %u of %u\n",
		sum_plain / s->nr_cells, ahead_plain, s->nr_cells,
		sum_admit / s->nr_cells, ahead_admit, s->nr_cells);
}

int hr_print_table(const struct hr_study *s, FILE *f)
{
	unsigned int i;
	int ok;

	fprintf(f, "hit-ratio study: file of %" PRIu32 " ranges (2 MiB), %" PRIu64
		" accesses per trace (one thread), seed %" PRIu64 "\n"
		"hit ratio in %%; cold misses included; capacity = window ranges\n\n",
		s->file_ranges, s->accesses, s->seed);
	fprintf(f, "%-9s %6s %4s | %-53s | %-28s | %-22s |\n", "", "", "",
		"offline", "library, default config", "library, fair config");
	fprintf(f, "%-9s %6s %4s | %5s %5s %5s %5s %5s %5s %5s %5s %5s | %5s %5s %5s %4s %4s"
		" | %5s %5s %5s %4s | %7s\n",
		"workload", "ratio", "cap", "lru", "opt", "tclk", "tclk0", "fifo", "arc", "2q",
		"s3f", "sieve", "clock", "rr", "ldef", "occ", "byp", "clock", "rr", "ldef", "occ",
		"lru@occ");
	for (i = 0; i < s->nr_cells; i++) {
		const struct hr_cell *c = &s->cells[i];

		fprintf(f, "%-9s %6.4g %4" PRIu32 " | %5.1f %5.1f %5.1f %5.1f %5.1f"
			" %5.1f %5.1f %5.1f %5.1f"
			" | %5.1f %5.1f %5.1f %4.0f %4.1f | %5.1f %5.1f %5.1f %4.0f | %7.1f\n",
			c->wl, c->ratio, c->cap, pct(c->hit[HR_LRU]), pct(c->hit[HR_OPT]),
			pct(c->hit[HR_TCLOCK]), pct(c->hit[HR_TCLOCK_COLD]), pct(c->hit[HR_FIFO]),
			pct(c->hit[HR_ARC]), pct(c->hit[HR_2Q]), pct(c->hit[HR_S3FIFO]),
			pct(c->hit[HR_SIEVE]),
			pct(c->hit[HR_CLOCK]), pct(c->hit[HR_RR]), pct(c->hit[HR_LIBDEF]),
			pct(c->occ[HR_CLOCK]), pct(c->bypass[HR_LIBDEF]),
			pct(c->hit[HR_CLOCK_FAIR]), pct(c->hit[HR_RR_FAIR]),
			pct(c->hit[HR_LIBDEF_FAIR]), pct(c->occ[HR_CLOCK_FAIR]),
			pct(c->hit[HR_LRU_OCC]));
	}
	fprintf(f, "\ncolumns: tclk = textbook CLOCK (bit set on load), tclk0 = the same with the\n"
		"bit clear on load (as the library); arc, 2q, s3f, sieve = ARC, full 2Q,\n"
		"S3-FIFO and SIEVE (the state-of-the-art anchors); ldef = the library's default policy:\n"
		"CLOCK, dc_map() with DC_MAP_MAY_BYPASS (a bypass counts as a miss), byp =\n"
		"its bypass %%; occ = mean %% of the window's ranges mapped over the second\n"
		"half of the trace (CLOCK); lru@occ = exact LRU with the default config's\n"
		"occupancy as its capacity.  Default config: reclaim_threshold_pct 20,\n"
		"reclaim_batch 10; fair: reclaim_threshold_pct %u, reclaim_batch 1 (the\n"
		"background reclaimer keeps at most one range free).  Library cells race\n"
		"with its background reclaimer and vary slightly between runs; the offline\n"
		"ones are exact.\n", s->fair_threshold_pct);
	fprintf(f, "\ntargets: CLOCK hit ratio within %.0f points of exact LRU on every workload,\n"
		"never below round-robin; points, @ the ratio where the maximum is:\n",
		TARGET_PTS);
	fprintf(f, "  %-8s %-9s %15s %15s %7s %15s\n", "config", "workload", "max|clk-lru|",
		"max(lru-clk)", "clk<rr", "max(rr-clk)");
	ok = print_targets(s, f, "fair", HR_CLOCK_FAIR, HR_RR_FAIR);
	print_targets(s, f, "default", HR_CLOCK, HR_RR);
	print_anchors(s, f);
	print_lib_sieve(s, f);
	fprintf(f, "\ntotal %.1f s\n", s->seconds);
	return ok;
}

int hr_write_tsv(const struct hr_study *s, const char *path)
{
	FILE *f = fopen(path, "w");
	unsigned int i, k;

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "workload\tratio\tcap\taccesses");
	for (k = 0; k < HR_NR_COLS; k++)
		fprintf(f, "\t%s", hr_col_name[k]);
	for (k = 0; k < NR_LIB_COLS; k++)
		fprintf(f, "\tocc_%s\tbypass_%s\tbg_share_%s", hr_col_name[lib_cols[k]],
			hr_col_name[lib_cols[k]], hr_col_name[lib_cols[k]]);
	for (k = 0; k < NR_LIB_COLS; k++)
		fprintf(f, "\tsetups_%s", hr_col_name[lib_cols[k]]);
	fprintf(f, "\tbest_online\tbest_online_hit\tbest_online_setups\tlib_default_gap_pts"
		"\tlib_default_iops_vs_best\n");
	for (i = 0; i < s->nr_cells; i++) {
		const struct hr_cell *c = &s->cells[i];

		fprintf(f, "%s\t%.6g\t%" PRIu32 "\t%" PRIu64, c->wl, c->ratio, c->cap, c->n);
		for (k = 0; k < HR_NR_COLS; k++)
			fprintf(f, "\t%.6f", c->hit[k]);
		for (k = 0; k < NR_LIB_COLS; k++)
			fprintf(f, "\t%.6f\t%.6f\t%.6f", c->occ[lib_cols[k]],
				c->bypass[lib_cols[k]], c->bg_share[lib_cols[k]]);
		for (k = 0; k < NR_LIB_COLS; k++)
			fprintf(f, "\t%.6f", c->setups[lib_cols[k]]);
		fprintf(f, "\t%s\t%.6f\t%.6f\t%.4f\t%.4f\n", hr_col_name[hr_best_online(c)],
			c->hit[hr_best_online(c)], c->setups[hr_best_online(c)], anchor_gap(c),
			anchor_iops(c));
	}
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static void json_targets(const struct hr_study *s, struct bench_json *j,
			 const char *cfg, int clock, int rr)
{
	struct wl_target w[MAX_WL];
	struct verdict v;
	unsigned int n, i;

	n = targets(s, clock, rr, w, &v);
	bench_json_obj(j, cfg);
	bench_json_arr(j, "workloads");
	for (i = 0; i < n; i++) {
		bench_json_obj(j, NULL);
		bench_json_str(j, "workload", w[i].wl);
		bench_json_dbl(j, "max_abs_clock_minus_lru_pts", w[i].max_abs, 4);
		bench_json_dbl(j, "at_ratio", w[i].abs_at, BENCH_JSON_G);
		bench_json_dbl(j, "max_lru_minus_clock_pts", w[i].max_short, 4);
		bench_json_dbl(j, "short_at_ratio", w[i].short_at, BENCH_JSON_G);
		bench_json_dbl(j, "max_rr_minus_clock_pts", w[i].max_rr_over, 4);
		bench_json_dbl(j, "rr_at_ratio", w[i].rr_at, BENCH_JSON_G);
		bench_json_u64(j, "cells_clock_below_rr", w[i].below_rr);
		bench_json_u64(j, "cells", w[i].cells);
		bench_json_end(j);
	}
	bench_json_end(j);
	bench_json_bool(j, "clock_within_3pts_of_lru", v.abs_ok);
	bench_json_bool(j, "clock_not_3pts_below_lru", v.short_ok);
	bench_json_bool(j, "clock_never_below_rr", !v.below_rr);
	bench_json_u64(j, "cells_clock_below_rr", v.below_rr);
	bench_json_end(j);
}

static void json_anchors(const struct hr_study *s, struct bench_json *j)
{
	const struct hr_cell *worst = NULL;
	unsigned int i, within = 0;

	for (i = 0; i < s->nr_cells; i++) {
		within += anchor_gap(&s->cells[i]) <= HR_ANCHOR_PTS;
		if (!worst || anchor_gap(&s->cells[i]) > anchor_gap(worst))
			worst = &s->cells[i];
	}
	bench_json_obj(j, "anchors");
	bench_json_dbl(j, "limit_pts", HR_ANCHOR_PTS, 1);
	bench_json_u64(j, "cells", s->nr_cells);
	bench_json_u64(j, "cells_within", within);
	if (worst) {
		bench_json_obj(j, "worst");
		bench_json_str(j, "workload", worst->wl);
		bench_json_dbl(j, "ratio", worst->ratio, BENCH_JSON_G);
		bench_json_dbl(j, "gap_pts", anchor_gap(worst), 4);
		bench_json_str(j, "best_online", hr_col_name[hr_best_online(worst)]);
		bench_json_dbl(j, "iops_vs_best", anchor_iops(worst), 4);
		bench_json_end(j);
	}
	bench_json_bool(j, "met", within == s->nr_cells);
	bench_json_end(j);
}

static void json_cell(const struct hr_cell *c, struct bench_json *j)
{
	unsigned int k;
	const char *name;

	bench_json_obj(j, NULL);
	bench_json_str(j, "workload", c->wl);
	bench_json_dbl(j, "ratio", c->ratio, BENCH_JSON_G);
	bench_json_u64(j, "cap", c->cap);
	bench_json_u64(j, "accesses", c->n);
	for (k = 0; k < HR_NR_COLS; k++)
		bench_json_dbl(j, hr_col_name[k], c->hit[k], 6);
	for (k = 0; k < NR_LIB_COLS; k++) {
		name = hr_col_name[lib_cols[k]];
		bench_json_key(j, "occ_%s", name);
		bench_json_dbl(j, NULL, c->occ[lib_cols[k]], 6);
		bench_json_key(j, "bypass_%s", name);
		bench_json_dbl(j, NULL, c->bypass[lib_cols[k]], 6);
		bench_json_key(j, "bg_share_%s", name);
		bench_json_dbl(j, NULL, c->bg_share[lib_cols[k]], 6);
	}
	for (k = 0; k < NR_LIB_COLS; k++) {
		bench_json_key(j, "setups_%s", hr_col_name[lib_cols[k]]);
		bench_json_dbl(j, NULL, c->setups[lib_cols[k]], 6);
	}
	bench_json_str(j, "best_online", hr_col_name[hr_best_online(c)]);
	bench_json_dbl(j, "best_online_hit", c->hit[hr_best_online(c)], 6);
	bench_json_dbl(j, "best_online_setups", c->setups[hr_best_online(c)], 6);
	bench_json_dbl(j, "lib_default_gap_pts", anchor_gap(c), 4);
	bench_json_dbl(j, "lib_default_iops_vs_best", anchor_iops(c), 4);
	bench_json_end(j);
}

int hr_write_json(const struct hr_study *s, const char *path)
{
	struct bench_json *j = bench_json_new();
	unsigned int i;
	int ret;

	if (!j)
		return -1;
	bench_json_str(j, "bench", "hitratio");
	bench_json_obj(j, "config");
	bench_json_u64(j, "file_ranges", s->file_ranges);
	bench_json_u64(j, "range_size", 2097152);
	bench_json_u64(j, "accesses", s->accesses);
	bench_json_u64(j, "seed", s->seed);
	bench_json_u64(j, "default_threshold_pct", 20);
	bench_json_u64(j, "default_reclaim_batch", 10);
	bench_json_u64(j, "fair_threshold_pct", s->fair_threshold_pct);
	bench_json_u64(j, "fair_reclaim_batch", 1);
	bench_json_end(j);
	bench_json_dbl(j, "seconds", s->seconds, 3);
	bench_json_arr(j, "cells");
	for (i = 0; i < s->nr_cells; i++)
		json_cell(&s->cells[i], j);
	bench_json_end(j);
	bench_json_obj(j, "targets");
	json_targets(s, j, "fair", HR_CLOCK_FAIR, HR_RR_FAIR);
	json_targets(s, j, "default", HR_CLOCK, HR_RR);
	json_anchors(s, j);
	bench_json_end(j);
	ret = bench_json_save(j, path, "bench-hitratio");
	bench_json_free(j);
	return ret ? -1 : 0;
}
