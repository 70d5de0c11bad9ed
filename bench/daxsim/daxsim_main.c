// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxsim_main.c - bench-daxsim: the DAX window simulator.  Sweeps
 * workloads x thread counts x window/file ratios x policies (policies
 * interleaved within each ratio), prints a line per point, summaries, the
 * achieved latencies and the targets, and writes JSON and TSV.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/thread.h>

#include "../common/opts.h"
#include "../common/stats.h"
#include "daxsim.h"

#define DEFAULT_FILE_MIB	512
#define DEFAULT_RT_US		30.0
#define DEFAULT_TIME_S		0.5
#define QUICK_TIME_S		0.45
#define QUICK_WARM_S		0.15
#define DEFAULT_SEED		1

static const double quick_ratios[] = { 1.0 / 16, 1.0 / 8, 1.0 / 4, 0.4, 0.5, 1.0, 2.0 };
static const double full_ratios[] = { 1.0 / 16, 1.0 / 8, 1.0 / 4, 0.4, 0.5, 0.75,
				      1.0, 1.5, 2.0 };

/* Parse a comma list, calling @one on each item; 0 or -EINVAL. */
static int each_item(const char *arg, int (*one)(struct dsim_params *p, const char *s),
		     struct dsim_params *p)
{
	char *list = strdup(arg), *save = NULL, *tok;
	int ret = list ? 0 : -ENOMEM;

	for (tok = list ? strtok_r(list, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		ret = one(p, tok);
		if (ret) {
			fprintf(stderr, "bench-daxsim: bad list item '%s'\n", tok);
			break;
		}
	}
	free(list);
	return ret;
}

/* A workload or a policy by name: switched on, or -EINVAL. */
static int add_wl(struct dsim_params *p, const char *s)
{
	enum dsim_wl wl;

	return dsim_wl_parse(s, &wl) ? -EINVAL : (p->wl_on[wl] = true, 0);
}

static int add_policy(struct dsim_params *p, const char *s)
{
	enum dsim_policy pol;

	return dsim_policy_parse(s, &pol) ? -EINVAL : (p->pol_on[pol] = true, 0);
}

static int add_threads(struct dsim_params *p, const char *s)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);
	unsigned int i = 0;

	/* 1..DSIM_MAX_THREADS, each once: they fit in p->threads. */
	if (end == s || *end || !n || n > DSIM_MAX_THREADS)
		return -EINVAL;
	while (i < p->nr_threads && p->threads[i] != n)
		i++;
	if (i == p->nr_threads)
		p->threads[p->nr_threads++] = (unsigned int)n;
	return 0;
}

static int add_ratio(struct dsim_params *p, const char *s)
{
	return bench_ratio_add(s, p->ratios, DSIM_MAX_RATIOS, &p->nr_ratios);
}

static int wl_list(const char *arg, void *p)
{
	return each_item(arg, add_wl, p);
}

static int policy_list(const char *arg, void *p)
{
	return each_item(arg, add_policy, p);
}

static int threads_list(const char *arg, void *p)
{
	return each_item(arg, add_threads, p);
}

static int ratio_list(const char *arg, void *p)
{
	return each_item(arg, add_ratio, p);
}

#define STR(x)		#x
#define XSTR(x)		STR(x)
#define LIST_OPT(n, fn, p, h) \
	{ .name = (n), .arg = "LIST", .type = BENCH_OPT_CALL, .dst = (p), \
	  .call = (fn), .help = (h) }

/* Parse the command line into @p and @out; exits on a bad option. */
static void parse_args(int argc, char **argv, struct dsim_params *p,
		       struct dsim_output *out)
{
	double time_s = DEFAULT_TIME_S, warm_s = 0, rt_us = DEFAULT_RT_US;
	uint64_t file_mib = DEFAULT_FILE_MIB;
	struct bench_opt opts[] = {
		BENCH_OPT_TIME(&time_s, QUICK_TIME_S, "measured seconds per point (default "
			       XSTR(DEFAULT_TIME_S) "; --quick " XSTR(QUICK_TIME_S) ")"),
		{ .name = "warm", .arg = "S", .type = BENCH_OPT_DOUBLE, .dst = &warm_s,
		  .min = 0, .max = 3600,
		  .help = "most seconds of warm-up per point; it stops earlier after\n"
			  "one pass (file pages) of accesses (default time/2; --quick "
			  XSTR(QUICK_WARM_S) ")" },
		BENCH_OPT_QUICK(&p->quick,
				"shorter points over the ratios 1/16,1/8,1/4,0.4,1/2,1,2"),
		LIST_OPT("workload", wl_list, p,
			 "comma list of uniform,zipf0.9,zipf0.99,seq,scanhot,files64,\n"
			 "rw75,shift (default all)"),
		LIST_OPT("policy", policy_list, p,
			 "comma list of nodax,2019,seed000,upstream,default,sieve\n"
			 "(default all but sieve)"),
		LIST_OPT("threads", threads_list, p,
			 "comma list of reader thread counts, 1.." XSTR(DSIM_MAX_THREADS)
			 " (default 1,2)"),
		LIST_OPT("ratio", ratio_list, p,
			 "comma list of window/file ratios, as 0.4 or 1/16\n"
			 "(default 1/16,1/8,1/4,0.4,1/2,3/4,1,3/2,2)"),
		{ .name = "rt-us", .arg = "US", .type = BENCH_OPT_DOUBLE, .dst = &rt_us,
		  .min = 0, .max = 1e6,
		  .help = "one round trip: setup, remove call, non-DAX read (default "
			  XSTR(DEFAULT_RT_US) ")" },
		{ .name = "serial-host", .type = BENCH_OPT_FLAG, .dst = &p->serial_host,
		  .help = "the host serves one round trip at a time (default: all\n"
			  "at once)" },
		{ .name = "file-mib", .arg = "N", .type = BENCH_OPT_U64, .dst = &file_mib,
		  .min = 2, .max = 1u << 20,
		  .help = "file size in MiB, a multiple of 2 (default "
			  XSTR(DEFAULT_FILE_MIB) ")" },
		BENCH_OPT_SEED(&p->seed, "workload seed (default " XSTR(DEFAULT_SEED) ")"),
		BENCH_OPT_JSON(&out->json, "write the results as JSON"),
		{ .name = "tsv", .arg = "FILE", .type = BENCH_OPT_STRING, .dst = &out->tsv,
		  .help = "write one tab-separated line per point" },
		BENCH_OPT_END,
	};
	unsigned int i;
	int ret;

	memset(p, 0, sizeof(*p));
	memset(out, 0, sizeof(*out));
	p->seed = DEFAULT_SEED;
	ret = bench_opts_parse("bench-daxsim", opts, argc, argv);
	if (ret == 1)
		exit(0);
	if (!ret && file_mib % 2) {
		fprintf(stderr, "bench-daxsim: bad --file-mib %llu: not even\n",
			(unsigned long long)file_mib);
		ret = -EINVAL;
	}
	if (ret)
		exit(2);
	if (!bench_opt_seen(opts, "workload"))
		for (i = 0; i < DSIM_NR_WL; i++)
			p->wl_on[i] = true;
	if (!bench_opt_seen(opts, "policy"))
		for (i = 0; i < DSIM_NR_POLICIES; i++)
			p->pol_on[i] = i != DSIM_SIEVE;
	if (!p->nr_threads) {
		p->threads[p->nr_threads++] = 1;
		p->threads[p->nr_threads++] = 2;
	}
	if (!p->nr_ratios) {
		const double *r = p->quick ? quick_ratios : full_ratios;
		unsigned int n = p->quick ? sizeof(quick_ratios) / sizeof(*r) :
				 sizeof(full_ratios) / sizeof(*r);

		memcpy(p->ratios, r, n * sizeof(*r));
		p->nr_ratios = n;
	}
	bench_sort_doubles(p->ratios, p->nr_ratios);
	p->time_s = time_s;
	p->warm_s = bench_opt_seen(opts, "warm") ? warm_s :
		    p->quick ? QUICK_WARM_S : p->time_s / 2;
	p->rt_ns = (uint64_t)(rt_us * 1000.0 + 0.5);
	p->file_pages = file_mib << (20 - DSIM_PAGE_SHIFT);
	p->file_ranges = p->file_pages / DSIM_RANGE_PAGES;
}

static void print_params(const struct dsim_params *p)
{
	char model[128];
	unsigned int i;

	dsim_cpu_model(model, sizeof(model));
	printf("daxsim: file %llu MiB (%llu ranges of 2 MiB, 4 KiB reads), round trip %.2f us "
	       "(setup, remove call, non-DAX read), seed %llu\n",
	       (unsigned long long)(p->file_pages >> (20 - DSIM_PAGE_SHIFT)),
	       (unsigned long long)p->file_ranges, (double)p->rt_ns / 1000.0,
	       (unsigned long long)p->seed);
	printf("daxsim: %.2f s per point after a warm-up of one pass or %.2f s; "
	       "%ld CPUs (%s)\n", p->time_s, p->warm_s, dsim_cpus(), model);
	printf("daxsim: ratios");
	for (i = 0; i < p->nr_ratios; i++)
		printf(" %g", p->ratios[i]);
	printf("; threads");
	for (i = 0; i < p->nr_threads; i++)
		printf(" %u", p->threads[i]);
	printf("; the default policy passes DC_MAP_MAY_BYPASS\n");
	printf("daxsim: the host serves %s\n\n",
	       p->serial_host ? "one round trip at a time" : "round trips in parallel");
}

int main(int argc, char **argv)
{
	struct dsim_params p;
	struct dsim_output out;
	struct dsim_point *pts;
	size_t n = 0, max;
	unsigned int w, t, r, k, g;
	uint64_t errors = 0;
	int ret, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv, &p, &out);
	max = (size_t)DSIM_NR_WL * p.nr_threads * p.nr_ratios * DSIM_NR_POLICIES;
	pts = calloc(max, sizeof(*pts));
	if (!pts) {
		fprintf(stderr, "bench-daxsim: out of memory\n");
		return 1;
	}
	dc_thread_register();
	print_params(&p);
	dsim_print_header();
	for (w = 0; w < DSIM_NR_WL; w++) {
		if (!p.wl_on[w])
			continue;
		for (t = 0; t < p.nr_threads; t++)
		for (r = 0; r < p.nr_ratios; r++) {
			/* The policies of one ratio, measured side by side. */
			g = 0;
			for (k = 0; k < DSIM_NR_POLICIES; k++) {
				if (!p.pol_on[k])
					continue;
				pts[n + g].wl = w;
				pts[n + g].threads = p.threads[t];
				pts[n + g].policy = k;
				pts[n + g].ratio = p.ratios[r];
				g++;
			}
			ret = dsim_run_group(&p, &pts[n], g);
			if (ret) {
				fprintf(stderr, "FAIL: %s %u thr ratio %g: %d\n",
					dsim_wl_name(w), p.threads[t], p.ratios[r], ret);
				memset(&pts[n], 0, g * sizeof(pts[0]));
				failed = 1;
				continue;
			}
			for (k = 0; k < g; k++) {
				errors += pts[n + k].errors;
				dsim_print_point(&pts[n + k]);
			}
			n += g;
		}
	}
	dsim_mem_release();
	dsim_print_summaries(&p, pts, n);
	dsim_print_achieved(&p, pts, n);
	dsim_print_targets(&p, pts, n);
	if (dsim_write_files(&p, pts, n, &out))
		failed = 1;
	if (errors) {
		fprintf(stderr, "FAIL: %llu errors (dc_map() failures or bad backend calls)\n",
			(unsigned long long)errors);
		failed = 1;
	}
	free(pts);
	dc_thread_unregister();
	return failed;
}
