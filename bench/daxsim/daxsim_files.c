// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxsim_files.c - the simulator's result files: JSON (machine, parameters,
 * achieved latencies, points, targets) and TSV (one line per point).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* @s as a JSON string: quotes, backslashes and control characters dropped. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		if (*s != '"' && *s != '\\' && (unsigned char)*s >= 0x20)
			fputc(*s, f);
	fputc('"', f);
}

static void write_params(FILE *f, const struct dsim_params *p)
{
	unsigned int i;
	const char *sep = "";

	fprintf(f, "\"params\":{\"file_mib\":%llu,\"file_ranges\":%llu,\"range_kib\":%u,"
		"\"page_kib\":4,\"rt_us\":%g,\"time_s\":%g,\"warm_s\":%g,\"seed\":%llu,"
		"\"quick\":%s,\"ino\":1,\"scanhot_hot_div\":%u,\"scanhot_scan_pct\":%u,"
		"\"drift_warn_pct\":%g,\"ratios\":[",
		(unsigned long long)(p->file_pages >> (20 - DSIM_PAGE_SHIFT)),
		(unsigned long long)p->file_ranges, 1u << (DSIM_RANGE_SHIFT - 10),
		(double)p->rt_ns / 1000.0, p->time_s, p->warm_s,
		(unsigned long long)p->seed, p->quick ? "true" : "false",
		DSIM_SCANHOT_HOT_DIV, DSIM_SCANHOT_SCAN_PCT, DSIM_DRIFT_PCT);
	for (i = 0; i < p->nr_ratios; i++)
		fprintf(f, "%s%g", i ? "," : "", p->ratios[i]);
	fprintf(f, "],\"threads\":[");
	for (i = 0; i < p->nr_threads; i++)
		fprintf(f, "%s%u", i ? "," : "", p->threads[i]);
	fprintf(f, "],\"workloads\":[");
	for (i = 0; i < DSIM_NR_WL; i++) {
		if (!p->wl_on[i])
			continue;
		fputs(sep, f);
		json_str(f, dsim_wl_name(i));
		sep = ",";
	}
	fprintf(f, "],\"policies\":[");
	sep = "";
	for (i = 0; i < DSIM_NR_POLICIES; i++) {
		if (!p->pol_on[i])
			continue;
		fputs(sep, f);
		json_str(f, dsim_policy_name(i));
		sep = ",";
	}
	fprintf(f, "]}");
}

static void write_achieved(FILE *f, const struct dsim_params *p,
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
	fprintf(f, "\"achieved\":{\"target_us\":%g,\"setup_us\":%.3f,\"setup_calls\":%llu,"
		"\"remove_us\":%.3f,\"remove_calls\":%llu,\"read_rt_us\":%.3f,"
		"\"read_rts\":%llu}",
		(double)p->rt_ns / 1000.0,
		calls[0] ? tot[0] / (double)calls[0] / 1000.0 : 0.0,
		(unsigned long long)calls[0],
		calls[1] ? tot[1] / (double)calls[1] / 1000.0 : 0.0,
		(unsigned long long)calls[1],
		calls[2] ? tot[2] / (double)calls[2] / 1000.0 : 0.0,
		(unsigned long long)calls[2]);
}

static void write_point(FILE *f, const struct dsim_point *pt)
{
	fprintf(f, "{\"workload\":");
	json_str(f, dsim_wl_name(pt->wl));
	fprintf(f, ",\"threads\":%u,\"policy\":", pt->threads);
	json_str(f, dsim_policy_name(pt->policy));
	fprintf(f, ",\"ratio\":%g,\"window_ranges\":%llu,\"iops\":%.1f,\"iops_med\":%.1f,"
		"\"slices\":%u,\"p50_us\":%.3f,\"p99_us\":%.3f,"
		"\"p999_us\":%.3f,\"max_us\":%.3f,\"hit_ratio\":%.5f,"
		"\"bypass_ratio\":%.5f,\"setups_per_kop\":%.3f,\"removes_per_kop\":%.3f,"
		"\"remove_entries_per_kop\":%.3f,\"inline_reclaims_per_kop\":%.3f,"
		"\"bg_reclaims_per_kop\":%.3f,\"bypass_full_per_kop\":%.3f,"
		"\"bypass_busy_per_kop\":%.3f,\"admits_contested_per_kop\":%.3f,"
		"\"writebacks_per_kop\":%.3f,\"write_ratio\":%.5f,"
		"\"waits\":%llu,\"errors\":%llu,"
		"\"ops\":%llu,\"warm_ops\":%llu,\"elapsed_s\":%.4f,"
		"\"setup_us\":%.3f,\"remove_us\":%.3f,\"read_rt_us\":%.3f,"
		"\"setup_ok_pct\":%.2f,\"remove_ok_pct\":%.2f,\"read_rt_ok_pct\":%.2f,"
		"\"preempted\":%llu,\"cpu_pct\":%.1f}",
		pt->ratio, (unsigned long long)pt->window_ranges, pt->iops, pt->iops_med,
		pt->slices, pt->p50_us,
		pt->p99_us, pt->p999_us, pt->max_us, pt->hit_ratio, pt->bypass_ratio,
		pt->setups_per_kop, pt->removes_per_kop, pt->remove_entries_per_kop,
		pt->inline_per_kop, pt->bg_per_kop, pt->bypass_full_per_kop,
		pt->bypass_busy_per_kop, pt->admits_contested_per_kop,
		pt->writebacks_per_kop, pt->write_ratio,
		(unsigned long long)pt->waits,
		(unsigned long long)pt->errors, (unsigned long long)pt->ops,
		(unsigned long long)pt->warm_ops, pt->elapsed_s,
		pt->setup_ns / 1000.0, pt->remove_ns / 1000.0, pt->read_rt_ns / 1000.0,
		pt->setup_ok_pct, pt->remove_ok_pct, pt->read_rt_ok_pct,
		(unsigned long long)pt->preempted, pt->cpu_pct);
}

static void write_targets(FILE *f, const struct dsim_params *p,
			  const struct dsim_point *pts, size_t n)
{
	static const char *const cmp[] = { ">=", "<=", "<" };
	struct dsim_target t[DSIM_MAX_TARGETS];
	unsigned int k, i;

	k = dsim_targets_eval(p, pts, n, t);
	fprintf(f, "\"targets\":[");
	for (i = 0; i < k; i++) {
		fprintf(f, "%s{\"what\":", i ? ",\n" : "\n");
		json_str(f, t[i].what);
		fprintf(f, ",\"workload\":\"%s\",\"threads\":%u,\"ratio\":%g,"
			"\"value\":%.4f,\"cmp\":\"%s\",\"limit\":%g,\"met\":%s}",
			dsim_wl_name(t[i].wl), t[i].threads, t[i].ratio, t[i].value, cmp[t[i].cmp], t[i].limit,
			t[i].met == DSIM_MET ? "true" :
			t[i].met == DSIM_NOT_MET ? "false" : "null");
	}
	fprintf(f, "]");
}

static int write_json(const char *path, const struct dsim_params *p,
		      const struct dsim_point *pts, size_t n)
{
	char model[128];
	FILE *f;
	size_t i;

	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "daxsim: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	dsim_cpu_model(model, sizeof(model));
	fprintf(f, "{\"bench\":\"daxsim\",\"machine\":{\"cpus\":%ld,\"model\":",
		dsim_cpus());
	json_str(f, model);
	fprintf(f, "},\n");
	write_params(f, p);
	fprintf(f, ",\n");
	write_achieved(f, p, pts, n);
	fprintf(f, ",\n\"points\":[");
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", f);
		write_point(f, &pts[i]);
	}
	fprintf(f, "],\n");
	write_targets(f, p, pts, n);
	fprintf(f, "}\n");
	if (fclose(f)) {
		fprintf(stderr, "daxsim: writing %s: %s\n", path, strerror(errno));
		return -EIO;
	}
	return 0;
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
