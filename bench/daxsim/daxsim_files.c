// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxsim_files.c - the simulator's result files: JSON (machine, parameters,
 * achieved latencies, points, targets) and TSV (one line per point).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/json.h"
#include "daxsim.h"

long dsim_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? n : 1;
}

void dsim_cpu_model(char *buf, size_t size)
{
	char line[256], *v, *e;
	FILE *f;

	snprintf(buf, size, "unknown");
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		v = strchr(line, ':');
		if (!v)
			break;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		e = v + strlen(v);
		while (e > v && (e[-1] == '\n' || e[-1] == ' '))
			*--e = '\0';
		snprintf(buf, size, "%s", v);
		break;
	}
	fclose(f);
}

static void write_params(struct bench_json *j, const struct dsim_params *p)
{
	unsigned int i;

	bench_json_obj(j, "params");
	bench_json_u64(j, "file_mib", p->file_pages >> (20 - DSIM_PAGE_SHIFT));
	bench_json_u64(j, "file_ranges", p->file_ranges);
	bench_json_u64(j, "range_kib", 1u << (DSIM_RANGE_SHIFT - 10));
	bench_json_u64(j, "page_kib", 4);
	bench_json_dbl(j, "rt_us", (double)p->rt_ns / 1000.0, BENCH_JSON_G);
	bench_json_dbl(j, "time_s", p->time_s, BENCH_JSON_G);
	bench_json_dbl(j, "warm_s", p->warm_s, BENCH_JSON_G);
	bench_json_u64(j, "seed", p->seed);
	bench_json_bool(j, "quick", p->quick);
	bench_json_u64(j, "ino", 1);
	bench_json_u64(j, "scanhot_hot_div", DSIM_SCANHOT_HOT_DIV);
	bench_json_u64(j, "scanhot_scan_pct", DSIM_SCANHOT_SCAN_PCT);
	bench_json_dbl(j, "drift_warn_pct", DSIM_DRIFT_PCT, BENCH_JSON_G);
	bench_json_arr(j, "ratios");
	for (i = 0; i < p->nr_ratios; i++)
		bench_json_dbl(j, NULL, p->ratios[i], BENCH_JSON_G);
	bench_json_end(j);
	bench_json_arr(j, "threads");
	for (i = 0; i < p->nr_threads; i++)
		bench_json_u64(j, NULL, p->threads[i]);
	bench_json_end(j);
	bench_json_arr(j, "workloads");
	for (i = 0; i < DSIM_NR_WL; i++)
		if (p->wl_on[i])
			bench_json_str(j, NULL, dsim_wl_name(i));
	bench_json_end(j);
	bench_json_arr(j, "policies");
	for (i = 0; i < DSIM_NR_POLICIES; i++)
		if (p->pol_on[i])
			bench_json_str(j, NULL, dsim_policy_name(i));
	bench_json_end(j);
	bench_json_end(j);
}

/* The mean of @tot over @calls calls, in us. */
static double mean_us(double tot, uint64_t calls)
{
	return calls ? tot / (double)calls / 1000.0 : 0.0;
}

static void write_achieved(struct bench_json *j, const struct dsim_params *p,
			   const struct dsim_point *pts, size_t n)
{
	double tot[3] = { 0, 0, 0 };
	uint64_t calls[3] = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		tot[0] += pts[i].setup_ns * (double)pts[i].setup_calls;
		calls[0] += pts[i].setup_calls;
		tot[1] += pts[i].remove_ns * (double)pts[i].remove_calls;
		calls[1] += pts[i].remove_calls;
		tot[2] += pts[i].read_rt_ns * (double)pts[i].read_rts;
		calls[2] += pts[i].read_rts;
	}
	bench_json_obj(j, "achieved");
	bench_json_dbl(j, "target_us", (double)p->rt_ns / 1000.0, BENCH_JSON_G);
	bench_json_dbl(j, "setup_us", mean_us(tot[0], calls[0]), 3);
	bench_json_u64(j, "setup_calls", calls[0]);
	bench_json_dbl(j, "remove_us", mean_us(tot[1], calls[1]), 3);
	bench_json_u64(j, "remove_calls", calls[1]);
	bench_json_dbl(j, "read_rt_us", mean_us(tot[2], calls[2]), 3);
	bench_json_u64(j, "read_rts", calls[2]);
	bench_json_end(j);
}

/* One point's numbers: name, value, decimals (BENCH_JSON_G: %g). */
#define POINT_FIELDS(pt, X) \
	X("ratio", (pt)->ratio, BENCH_JSON_G) \
	X("window_ranges", (double)(pt)->window_ranges, 0) \
	X("iops", (pt)->iops, 1) \
	X("iops_med", (pt)->iops_med, 1) \
	X("slices", (pt)->slices, 0) \
	X("p50_us", (pt)->p50_us, 3) \
	X("p99_us", (pt)->p99_us, 3) \
	X("p999_us", (pt)->p999_us, 3) \
	X("max_us", (pt)->max_us, 3) \
	X("hit_ratio", (pt)->hit_ratio, 5) \
	X("bypass_ratio", (pt)->bypass_ratio, 5) \
	X("setups_per_kop", (pt)->setups_per_kop, 3) \
	X("removes_per_kop", (pt)->removes_per_kop, 3) \
	X("remove_entries_per_kop", (pt)->remove_entries_per_kop, 3) \
	X("inline_reclaims_per_kop", (pt)->inline_per_kop, 3) \
	X("bg_reclaims_per_kop", (pt)->bg_per_kop, 3) \
	X("bypass_full_per_kop", (pt)->bypass_full_per_kop, 3) \
	X("bypass_busy_per_kop", (pt)->bypass_busy_per_kop, 3) \
	X("admits_contested_per_kop", (pt)->admits_contested_per_kop, 3) \
	X("writebacks_per_kop", (pt)->writebacks_per_kop, 3) \
	X("write_ratio", (pt)->write_ratio, 5) \
	X("elapsed_s", (pt)->elapsed_s, 4) \
	X("setup_us", (pt)->setup_ns / 1000.0, 3) \
	X("remove_us", (pt)->remove_ns / 1000.0, 3) \
	X("read_rt_us", (pt)->read_rt_ns / 1000.0, 3) \
	X("setup_ok_pct", (pt)->setup_ok_pct, 2) \
	X("remove_ok_pct", (pt)->remove_ok_pct, 2) \
	X("read_rt_ok_pct", (pt)->read_rt_ok_pct, 2) \
	X("cpu_pct", (pt)->cpu_pct, 1)

/* Object @name: @v of each policy whose @has is positive, by policy name. */
static void json_per_policy(struct bench_json *j, const char *name,
			    const double *v, const double *has)
{
	unsigned int k;

	bench_json_obj(j, name);
	for (k = 0; k < DSIM_NR_POLICIES; k++)
		if (has[k] > 0)
			bench_json_dbl(j, dsim_policy_name(k), v[k], 4);
	bench_json_end(j);
}

static void write_point(struct bench_json *j, const struct dsim_point *pt)
{
	bench_json_obj(j, NULL);
	bench_json_str(j, "workload", dsim_wl_name(pt->wl));
	bench_json_u64(j, "threads", pt->threads);
	bench_json_str(j, "policy", dsim_policy_name(pt->policy));
#define X(name, v, dec)	bench_json_dbl(j, name, v, dec);
	POINT_FIELDS(pt, X)
#undef X
	bench_json_u64(j, "waits", pt->waits);
	bench_json_u64(j, "errors", pt->errors);
	bench_json_u64(j, "ops", pt->ops);
	bench_json_u64(j, "warm_ops", pt->warm_ops);
	bench_json_u64(j, "preempted", pt->preempted);
	bench_json_u64(j, "host_max_inflight", pt->host_max_inflight);
	/*
	 * Its IOPS over each other policy's, paired by round (dsim_point
	 * @vs), with the ends of their 95% confidence intervals; then the
	 * same for the p99 of its slices.
	 */
	json_per_policy(j, "vs", pt->vs, pt->vs);
	json_per_policy(j, "vs_lo", pt->vs_lo, pt->vs);
	json_per_policy(j, "vs_hi", pt->vs_hi, pt->vs);
	json_per_policy(j, "p99_vs", pt->p99_vs, pt->p99_vs);
	json_per_policy(j, "p99_vs_lo", pt->p99_vs_lo, pt->p99_vs);
	json_per_policy(j, "p99_vs_hi", pt->p99_vs_hi, pt->p99_vs);
	bench_json_end(j);
}

static void write_targets(struct bench_json *j, const struct dsim_params *p,
			  const struct dsim_point *pts, size_t n)
{
	static const char *const cmp[] = { ">=", "<=", "<" };
	struct dsim_target t[DSIM_MAX_TARGETS];
	unsigned int k, i;

	k = dsim_targets_eval(p, pts, n, t);
	bench_json_arr(j, "targets");
	for (i = 0; i < k; i++) {
		bench_json_obj(j, NULL);
		bench_json_str(j, "what", t[i].what);
		bench_json_str(j, "workload", dsim_wl_name(t[i].wl));
		bench_json_u64(j, "threads", t[i].threads);
		bench_json_dbl(j, "ratio", t[i].ratio, BENCH_JSON_G);
		bench_json_dbl(j, "value", t[i].value, 4);
		bench_json_str(j, "cmp", cmp[t[i].cmp]);
		bench_json_dbl(j, "limit", t[i].limit, BENCH_JSON_G);
		if (t[i].ci_hi > 0) {
			bench_json_dbl(j, "ci_lo", t[i].ci_lo, 4);
			bench_json_dbl(j, "ci_hi", t[i].ci_hi, 4);
		}
		if (t[i].met == DSIM_MET || t[i].met == DSIM_NOT_MET)
			bench_json_bool(j, "met", t[i].met == DSIM_MET);
		else
			bench_json_null(j, "met");
		bench_json_end(j);
	}
	bench_json_end(j);
}

static int write_json(const char *path, const struct dsim_params *p,
		      const struct dsim_point *pts, size_t n)
{
	struct bench_json *j = bench_json_new();
	char model[128];
	size_t i;
	int ret;

	if (!j)
		return -ENOMEM;
	dsim_cpu_model(model, sizeof(model));
	bench_json_str(j, "bench", "daxsim");
	bench_json_obj(j, "machine");
	bench_json_num(j, "cpus", (double)dsim_cpus());
	bench_json_str(j, "model", model);
	bench_json_end(j);
	write_params(j, p);
	write_achieved(j, p, pts, n);
	bench_json_arr(j, "points");
	for (i = 0; i < n; i++)
		write_point(j, &pts[i]);
	bench_json_end(j);
	write_targets(j, p, pts, n);
	ret = bench_json_save(j, path, "daxsim");
	bench_json_free(j);
	return ret;
}

static int write_tsv(const char *path, const struct dsim_point *pts, size_t n)
{
	FILE *f;
	size_t i;

	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "daxsim: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "workload\tthreads\tpolicy\tratio\tiops\tp50_us\tp99_us\tp999_us\t"
		"hit_ratio\tbypass_ratio\tsetups_per_kop\tremoves_per_kop\n");
	for (i = 0; i < n; i++)
		fprintf(f, "%s\t%u\t%s\t%g\t%.1f\t%.3f\t%.3f\t%.3f\t%.5f\t%.5f\t%.3f\t%.3f\n",
			dsim_wl_name(pts[i].wl), pts[i].threads,
			dsim_policy_name(pts[i].policy), pts[i].ratio, pts[i].iops,
			pts[i].p50_us, pts[i].p99_us, pts[i].p999_us,
			pts[i].hit_ratio, pts[i].bypass_ratio,
			pts[i].setups_per_kop, pts[i].removes_per_kop);
	if (fclose(f)) {
		fprintf(stderr, "daxsim: writing %s: %s\n", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

int dsim_write_files(const struct dsim_params *p, const struct dsim_point *pts,
		     size_t n, const struct dsim_output *out)
{
	int ret = 0, r;

	if (out->json) {
		r = write_json(out->json, p, pts, n);
		if (r)
			ret = r;
	}
	if (out->tsv) {
		r = write_tsv(out->tsv, pts, n);
		if (r)
			ret = r;
	}
	return ret;
}
