// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_hitratio.c - the hit-ratio study: for each workload one trace of
 * 2 MiB range indices (one thread's accesses from bench/daxsim's
 * generators), replayed identically through the library's CLOCK and
 * round-robin victim policies and its default policy (CLOCK with
 * admission, DC_MAP_MAY_BYPASS), each under the default config and under a
 * fair one that keeps at most one range free, and through offline exact
 * LRU, Belady's OPT, textbook CLOCK, FIFO, ARC, 2Q, S3-FIFO and SIEVE, at
 * every window/file ratio.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <daxcache/cache.h>
#include <daxcache/thread.h>

#include "../common/opts.h"
#include "hitratio.h"
#include "study.h"
#include "workload.h"

static const double default_ratios[] = { 1.0 / 16, 1.0 / 8, 1.0 / 4, 0.4, 1.0 / 2, 1, 2 };
#define NR_DEFAULT_RATIOS	(sizeof(default_ratios) / sizeof(default_ratios[0]))
#define MAX_RATIOS		16

#define DEFAULT_ACCESSES	(1u << 17)
#define QUICK_ACCESSES		(1u << 15)

struct opts {
	uint32_t file_ranges;
	uint64_t accesses;
	uint64_t seed;
	const char *json;
	const char *tsv;
	const char *workloads;
	double ratio[MAX_RATIOS];
	unsigned int nr_ratios;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define STR(x)		#x
#define XSTR(x)		STR(x)

/* --ratio: a comma list of window/file ratios, each once; 0 or -EINVAL. */
static int ratio_list(const char *arg, void *p)
{
	struct opts *o = p;
	char buf[256], *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	o->nr_ratios = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (bench_ratio_add(tok, o->ratio, MAX_RATIOS, &o->nr_ratios))
			return -EINVAL;
	return o->nr_ratios ? 0 : -EINVAL;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	uint64_t file_ranges = 256;
	struct bench_opt opts[] = {
		BENCH_OPT_QUICK(NULL, "32768 accesses per trace instead of 131072"),
		{ .name = "accesses", .arg = "N", .type = BENCH_OPT_U64,
		  .dst = &o->accesses, .min = 1, .max = 1ull << 30,
		  .on_quick = true, .quick = QUICK_ACCESSES,
		  .help = "accesses (4 KiB pages) per trace" },
		{ .name = "file-ranges", .arg = "N", .type = BENCH_OPT_U64,
		  .dst = &file_ranges, .min = 1, .max = 1u << 20,
		  .help = "file size in 2 MiB ranges (default 256)" },
		BENCH_OPT_SEED(&o->seed, "generator seed (default 1)"),
		{ .name = "workloads", .arg = "LIST", .type = BENCH_OPT_STRING,
		  .dst = &o->workloads,
		  .help = "comma-separated, of uniform zipf0.9 zipf0.99 seq scanhot\n"
			  "files64 shift (default: all; rw75's writes are not\n"
			  "replayed, so it is not a trace here)" },
		{ .name = "ratio", .arg = "LIST", .type = BENCH_OPT_CALL, .dst = o,
		  .call = ratio_list,
		  .help = "comma list of window/file ratios, as 0.4 or 1/16\n"
			  "(default 1/16,1/8,1/4,0.4,1/2,1,2; at most "
			  XSTR(MAX_RATIOS) ")" },
		BENCH_OPT_JSON(&o->json, "write the study as JSON"),
		{ .name = "tsv", .arg = "FILE", .type = BENCH_OPT_STRING, .dst = &o->tsv,
		  .help = "write one tab-separated line per cell, with a header" },
		BENCH_OPT_END,
	};

	*o = (struct opts){ .accesses = DEFAULT_ACCESSES, .seed = 1 };
	bench_opts_main("bench-hitratio", opts, argc, argv);
	if (!o->nr_ratios) {
		memcpy(o->ratio, default_ratios, sizeof(default_ratios));
		o->nr_ratios = NR_DEFAULT_RATIOS;
	}
	o->file_ranges = (uint32_t)file_ranges;
	return 0;
}

/* Which workloads to run, in enum order, from a comma-separated list. */
static int pick_workloads(const char *list, int on[DSIM_NR_WL])
{
	char buf[256], *tok, *save = NULL;
	enum dsim_wl wl;
	int i;

	for (i = 0; i < DSIM_NR_WL; i++)
		on[i] = !list && i != DSIM_RW75;
	if (!list)
		return 0;
	if (strlen(list) >= sizeof(buf))
		return -1;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (dsim_wl_parse(tok, &wl) || wl == DSIM_RW75) {
			fprintf(stderr, "bench-hitratio: unknown workload '%s'\n", tok);
			return -1;
		}
		on[wl] = 1;
	}
	return 0;
}

static int make_trace(enum dsim_wl wl, const struct opts *o, struct hr_trace *t)
{
	struct dsim_gen g;
	uint64_t i;
	int ret;

	ret = dsim_gen_init(&g, wl, (uint64_t)o->file_ranges * DSIM_RANGE_PAGES, 0, 1, o->seed);
	if (ret)
		return ret;
	t->idx = malloc(o->accesses * sizeof(*t->idx));
	t->page = malloc(o->accesses * sizeof(*t->page));
	if (!t->idx || !t->page) {
		free(t->idx);
		free(t->page);
		dsim_gen_fini(&g);
		return -ENOMEM;
	}
	t->n = o->accesses;
	t->nr_keys = o->file_ranges;
	t->nr_files = g.nr_files;
	t->file_ranges = (uint32_t)g.file_ranges;
	for (i = 0; i < t->n; i++) {
		/* A shift workload moves its hot set midway through the trace. */
		if (i == t->n / 2)
			dsim_gen_shift(&g);
		uint64_t pg = dsim_gen_next(&g);

		t->idx[i] = (uint32_t)(pg / DSIM_RANGE_PAGES);
		t->page[i] = (uint16_t)(pg % DSIM_RANGE_PAGES);
	}
	dsim_gen_fini(&g);
	return 0;
}

/* The library columns: victim policy, admission, config. */
static const struct {
	enum hr_col col;
	int victim;
	int bypass;
	int fair;
} lib_cols[] = {
	{ HR_CLOCK, DC_VICTIM_CLOCK, 0, 0 },
	{ HR_RR, DC_VICTIM_ROUND_ROBIN, 0, 0 },
	{ HR_LIBDEF, DC_VICTIM_CLOCK, 1, 0 },
	{ HR_CLOCK_FAIR, DC_VICTIM_CLOCK, 0, 1 },
	{ HR_RR_FAIR, DC_VICTIM_ROUND_ROBIN, 0, 1 },
	{ HR_LIBDEF_FAIR, DC_VICTIM_CLOCK, 1, 1 },
	{ HR_LSIEVE, DC_VICTIM_SIEVE, 0, 0 },
	{ HR_LSIEVE_ADMIT, DC_VICTIM_SIEVE, 1, 0 },
};

/* Every column of one cell. */
static int run_cell(const struct hr_trace *t, uint32_t cap, unsigned int fair_pct,
		    struct hr_cell *c)
{
	static uint64_t (*const sims[])(const struct hr_trace *, uint32_t) = {
		[HR_LRU] = hr_sim_lru,
		[HR_OPT] = hr_sim_opt,
		[HR_TCLOCK] = hr_sim_clock,
		[HR_TCLOCK_COLD] = hr_sim_clock_cold,
		[HR_FIFO] = hr_sim_fifo,
		[HR_ARC] = hr_sim_arc,
		[HR_2Q] = hr_sim_2q,
		[HR_S3FIFO] = hr_sim_s3fifo,
		[HR_SIEVE] = hr_sim_sieve,
	};
	struct dc_cache_config def;
	double n = (double)t->n;
	unsigned int i;
	uint64_t h;
	int ret;

	dc_cache_config_init(&def, sizeof(def), 1);
	for (i = 0; i < sizeof(sims) / sizeof(sims[0]); i++) {
		h = sims[i](t, cap);
		if (h == UINT64_MAX)
			return -ENOMEM;
		c->hit[i] = (double)h / n;
		c->setups[i] = 1.0 - c->hit[i];	/* every miss is mapped */
	}
	for (i = 0; i < sizeof(lib_cols) / sizeof(lib_cols[0]); i++) {
		struct hr_lib_config cfg = {
			.victim = lib_cols[i].victim,
			.may_bypass = lib_cols[i].bypass,
			.threshold_pct = lib_cols[i].fair ? fair_pct : def.reclaim_threshold_pct,
			.reclaim_batch = lib_cols[i].fair ? 1 : def.reclaim_batch,
		};
		struct hr_lib_result r;
		enum hr_col col = lib_cols[i].col;
		uint64_t reclaims;

		ret = hr_lib_replay(t, cap, &cfg, &r);
		if (ret)
			return ret;
		reclaims = r.inline_reclaims + r.bg_reclaims;
		c->hit[col] = (double)r.hits / n;
		c->occ[col] = r.occupancy;
		c->bypass[col] = (double)r.bypasses / n;
		c->setups[col] = (double)r.setups / n;
		c->bg_share[col] = reclaims ? (double)r.bg_reclaims / (double)reclaims : 0;
	}
	/* LRU given the capacity the default config's CLOCK really used. */
	h = hr_sim_lru(t, c->occ[HR_CLOCK] > 0 ?
		       (uint32_t)fmax(1, lround(c->occ[HR_CLOCK] * cap)) : cap);
	if (h == UINT64_MAX)
		return -ENOMEM;
	c->hit[HR_LRU_OCC] = (double)h / n;
	/* The library's victim order over the trace's files, offline. */
	h = hr_sim_clock_own(t, cap);
	if (h == UINT64_MAX)
		return -ENOMEM;
	c->hit[HR_TCLOCK_OWN] = (double)h / n;
	c->setups[HR_TCLOCK_OWN] = 1.0 - c->hit[HR_TCLOCK_OWN];
	return 0;
}

int main(int argc, char **argv)
{
	struct hr_study s = { 0 };
	int on[DSIM_NR_WL], wl, ret = 0;
	double t0 = now_s();
	struct opts o;
	unsigned int k;

	if (parse_args(argc, argv, &o) || pick_workloads(o.workloads, on))
		return 2;
	dc_thread_register();
	s.file_ranges = o.file_ranges;
	s.accesses = o.accesses;
	s.seed = o.seed;
	/* Threshold 0 still means one range: the reclaimer keeps one free. */
	s.fair_threshold_pct = 0;
	s.cells = calloc(DSIM_NR_WL * o.nr_ratios, sizeof(*s.cells));
	if (!s.cells)
		return 1;
	for (wl = 0; wl < DSIM_NR_WL; wl++) {
		struct hr_trace t;

		if (!on[wl])
			continue;
		ret = make_trace((enum dsim_wl)wl, &o, &t);
		if (ret) {
			fprintf(stderr, "bench-hitratio: trace %s: %d\n",
				dsim_wl_name((enum dsim_wl)wl), ret);
			return 1;
		}
		for (k = 0; k < o.nr_ratios; k++) {
			struct hr_cell *c = &s.cells[s.nr_cells++];
			double cap = lround(o.ratio[k] * o.file_ranges);

			c->wl = dsim_wl_name((enum dsim_wl)wl);
			c->ratio = o.ratio[k];
			c->cap = cap < 1 ? 1 : (uint32_t)cap;
			c->n = t.n;
			ret = run_cell(&t, c->cap, s.fair_threshold_pct, c);
			if (ret) {
				fprintf(stderr, "bench-hitratio: %s at ratio %.4g: %d\n",
					c->wl, c->ratio, ret);
				return 1;
			}
		}
		free(t.idx);
		free(t.page);
	}
	s.seconds = now_s() - t0;
	hr_print_table(&s, stdout);
	if (o.tsv && hr_write_tsv(&s, o.tsv))
		ret = 1;
	if (o.json && hr_write_json(&s, o.json))
		ret = 1;
	free(s.cells);
	dc_thread_unregister();
	return ret;
}
