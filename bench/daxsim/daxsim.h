/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxsim.h - the DAX window simulator benchmark: what the parts share.
 *
 * The benchmark drives the real cache over the simulation backend (simbe),
 * whose setup and remove busy-wait one round trip each.  A thread reads
 * 4 KiB pages of one file: a DAX hit is a real 4 KiB memcpy from an
 * anonymous mapping that stands for the window; a non-DAX read (the nodax
 * policy, or a bypass answered by dc_map()) busy-waits one round trip and
 * copies 4 KiB from the same memory.
 */
#ifndef BENCH_DAXSIM_H
#define BENCH_DAXSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/clock.h"
#include "workload.h"

#define DSIM_PAGE_SIZE		(1u << DSIM_PAGE_SHIFT)
#define DSIM_RANGE_SHIFT	21	/* 2 MiB, as workload.h's ranges */
#define DSIM_MAX_RATIOS		32
#define DSIM_MAX_THREADS	8
#define DSIM_DRIFT_PCT		5.0	/* achieved latency warning threshold */

/* The policies compared in one run. */
enum dsim_policy {
	DSIM_NODAX,	/* no cache: every read one round trip */
	DSIM_P2019,	/* background first, remove on inline reuse, CLOCK */
	DSIM_SEED000,	/* inline first, no remove, round robin */
	DSIM_UPSTREAM,	/* inline only from own inode, remove on inline, round robin */
	DSIM_DEFAULT,	/* library defaults, DC_MAP_MAY_BYPASS on every map */
	DSIM_SIEVE,	/* the same with DC_VICTIM_SIEVE; only when asked for */
	DSIM_NR_POLICIES
};

/**
 * dsim_policy_name() - the name of a policy.
 * @p: the policy.
 *
 * Context: any.
 * Return: "nodax", "2019", "seed000", "upstream" or "default"; "?".
 */
const char *dsim_policy_name(enum dsim_policy p);

/**
 * dsim_policy_parse() - a policy from its name.
 * @name: as dsim_policy_name() writes it.
 * @out: receives the policy.
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
int dsim_policy_parse(const char *name, enum dsim_policy *out);

struct dc_cache_config;

/**
 * dsim_policy_config() - set @cfg (filled by dc_cache_config_init()) for
 * policy @p, and the flags its dc_map() calls pass.
 * @cfg: the config.
 * @p: the policy (not DSIM_NODAX, which has no cache).
 * @map_flags: receives the dc_map() flags.
 *
 * Context: any.
 */
void dsim_policy_config(struct dc_cache_config *cfg, enum dsim_policy p,
			unsigned int *map_flags);

/**
 * struct dsim_params - what the whole run uses.
 * @file_pages: pages in the file.
 * @file_ranges: 2 MiB ranges in the file.
 * @rt_ns: one round trip (setup, remove call, non-DAX read).
 * @serial_host: the host serves one round trip at a time (a daemon with
 *	one thread on one request queue); else as many as are sent.
 * @time_s: measured seconds per point.
 * @warm_s: the most seconds of warm-up per point.
 * @seed: the workload seed.
 * @quick: shorter points.
 * @ratios: window/file ratios swept, ascending.
 * @nr_ratios: entries of @ratios.
 * @threads: thread counts swept.
 * @nr_threads: entries of @threads.
 * @wl_on: workloads swept.
 * @pol_on: policies compared.
 */
struct dsim_params {
	uint64_t file_pages;
	uint64_t file_ranges;
	uint64_t rt_ns;
	bool serial_host;
	double time_s;
	double warm_s;
	uint64_t seed;
	bool quick;
	double ratios[DSIM_MAX_RATIOS];
	unsigned int nr_ratios;
	unsigned int threads[DSIM_MAX_THREADS];
	unsigned int nr_threads;
	bool wl_on[DSIM_NR_WL];
	bool pol_on[DSIM_NR_POLICIES];
};

/**
 * struct dsim_point - one measured point: its coordinates and results.
 * @wl: workload.
 * @threads: reader threads.
 * @policy: policy.
 * @ratio: the nominal window/file ratio.
 * @window_ranges: ranges in the window (ratio * file ranges, rounded).
 * @ops: reads measured.
 * @warm_ops: reads of the warm-up.
 * @elapsed_s: measured seconds (the longest thread's).
 * @iops: reads per second.
 * @iops_med: the median over the measured slices of each slice's reads per
 *	second: what a burst of outside load during a few slices moves least.
 * @slices: measured slices.
 * @vs: for each policy k of the group, the median over the rounds of
 *	slices (each round runs every policy of the group once, back to back)
 *	of this point's IOPS over k's in the same round; 0 where k was not
 *	measured.
 * @vs_lo: the lower end of a 95% confidence interval of @vs (the order
 *	statistics of the rounds' ratios around their median).
 * @vs_hi: its upper end.
 * @p99_vs: likewise for the p99 latency of each slice: the median over the
 *	rounds of this point's slice p99 over k's.
 * @p99_vs_lo: the lower end of its 95% confidence interval.
 * @p99_vs_hi: its upper end.
 * @p50_us: median read latency.
 * @p99_us: 99th percentile.
 * @p999_us: 99.9th percentile.
 * @max_us: the slowest read.
 * @hit_ratio: reads served from the window without a setup (cache hits / reads).
 * @bypass_ratio: reads dc_map() answered with DC_MAP_BYPASS / reads.
 * @setups_per_kop: backend setups per 1000 reads.
 * @removes_per_kop: backend remove calls (round trips) per 1000 reads.
 * @remove_entries_per_kop: mappings removed per 1000 reads.
 * @writebacks_per_kop: backend writebacks (round trips) per 1000 accesses.
 * @write_ratio: accesses that wrote / accesses (rw75).
 * @inline_per_kop: inline reclaims per 1000 reads.
 * @bg_per_kop: background reclaims per 1000 reads.
 * @bypass_full_per_kop: bypasses per 1000 reads because the candidate lost
 *	to the victim (dc_cache_stats).
 * @bypass_busy_per_kop: bypasses per 1000 reads because no idle range could
 *	be reclaimed.
 * @admits_contested_per_kop: misses per 1000 reads mapped over a victim
 *	they beat.
 * @waits: dc_map() calls that slept for a free range.
 * @errors: dc_map() failures.
 * @setup_ns: achieved mean setup time (0: none).
 * @remove_ns: achieved mean remove call time (0: none).
 * @read_rt_ns: achieved mean non-DAX round trip (0: none).
 * @setup_calls: setups measured.
 * @remove_calls: remove calls measured.
 * @read_rts: non-DAX round trips measured.
 * @setup_ok_pct: percent of setups within DSIM_DRIFT_PCT of the round trip.
 * @remove_ok_pct: likewise for remove calls.
 * @read_rt_ok_pct: likewise for non-DAX round trips.
 * @preempted: involuntary context switches of the readers.
 * @host_max_inflight: the most round trips the host served at once.
 * @cpu_pct: CPU time the readers got, in percent of their measured time
 *	(below 100: the machine was busy and their spins overran).
 */
struct dsim_point {
	enum dsim_wl wl;
	unsigned int threads;
	enum dsim_policy policy;
	double ratio;
	uint64_t window_ranges;
	uint64_t ops;
	uint64_t warm_ops;
	double elapsed_s;
	double iops;
	double iops_med;
	unsigned int slices;
	double vs[DSIM_NR_POLICIES];
	double vs_lo[DSIM_NR_POLICIES];
	double vs_hi[DSIM_NR_POLICIES];
	double p99_vs[DSIM_NR_POLICIES];
	double p99_vs_lo[DSIM_NR_POLICIES];
	double p99_vs_hi[DSIM_NR_POLICIES];
	double p50_us;
	double p99_us;
	double p999_us;
	double max_us;
	double hit_ratio;
	double bypass_ratio;
	double setups_per_kop;
	double removes_per_kop;
	double remove_entries_per_kop;
	double writebacks_per_kop;
	double write_ratio;
	double inline_per_kop;
	double bg_per_kop;
	double bypass_full_per_kop;
	double bypass_busy_per_kop;
	double admits_contested_per_kop;
	uint64_t waits;
	uint64_t errors;
	double setup_ns;
	double remove_ns;
	double read_rt_ns;
	uint64_t setup_calls;
	uint64_t remove_calls;
	uint64_t read_rts;
	double setup_ok_pct;
	double remove_ok_pct;
	double read_rt_ok_pct;
	uint64_t preempted;
	unsigned int host_max_inflight;
	double cpu_pct;
};

/**
 * dsim_window_ranges() - ranges in the window of a point.
 * @p: the run's parameters.
 * @ratio: window/file.
 *
 * Context: any.
 * Return: @ratio times the file's ranges, rounded, at least 1.
 */
uint64_t dsim_window_ranges(const struct dsim_params *p, double ratio);

/**
 * dsim_mem_prepare() - make the simulated memory cover @bytes, written once
 * so that later reads copy real pages.
 * @bytes: the size needed (the largest window or the file).
 *
 * Grows a reserved anonymous mapping lazily: only what a point needs is
 * touched, before the point starts.
 *
 * Context: the main thread.
 * Return: the base of the memory, or NULL (message printed).
 */
char *dsim_mem_prepare(uint64_t bytes);

/**
 * dsim_mem_release() - unmap the simulated memory.
 *
 * Context: the main thread, no point running.
 */
void dsim_mem_release(void);

/**
 * dsim_run_group() - measure points that differ only in policy.
 * @p: the run's parameters.
 * @pts: coordinates in (wl, threads, policy, ratio; the same wl, threads
 *	and ratio for all); results out.
 * @n: entries of @pts.
 *
 * Each point warms up, then the points are measured in interleaved slices.
 *
 * Context: the main thread, registered with dc_thread_register().
 * Return: 0, or -errno when the points could not be set up.
 */
int dsim_run_group(const struct dsim_params *p, struct dsim_point *pts,
		   unsigned int n);

/**
 * dsim_spin_until() - busy-wait until CLOCK_MONOTONIC reaches @deadline.
 * @deadline: the time, from bench_now_ns().
 *
 * Waits of more than a millisecond sleep for all but the last 200 us, which
 * are spun, so that short waits are exact and long ones do not burn a CPU.
 *
 * Context: any.
 */
void dsim_spin_until(uint64_t deadline);

/**
 * dsim_cpus() - CPUs online.
 *
 * Context: any.
 * Return: the count.
 */
long dsim_cpus(void);

/**
 * dsim_cpu_model() - the CPU model name from /proc/cpuinfo.
 * @buf: receives it ("unknown" when not found).
 * @size: bytes of @buf.
 *
 * Context: any.
 */
void dsim_cpu_model(char *buf, size_t size);

/**
 * struct dsim_output - where the results go.
 * @json: the JSON file, or NULL.
 * @tsv: the TSV file, or NULL.
 */
struct dsim_output {
	const char *json;
	const char *tsv;
};

/**
 * dsim_print_header() - the per-point table's header line, on stdout.
 *
 * Context: any.
 */
void dsim_print_header(void);

/**
 * dsim_print_point() - one line of the per-point table, on stdout.
 * @pt: the point.
 *
 * Context: any.
 */
void dsim_print_point(const struct dsim_point *pt);

/**
 * dsim_print_summaries() - for each workload and thread count, a table of
 * IOPS and p99 by ratio and policy.
 * @p: the run's parameters.
 * @pts: the points.
 * @n: entries of @pts.
 *
 * Context: any.
 */
void dsim_print_summaries(const struct dsim_params *p,
			  const struct dsim_point *pts, size_t n);

/**
 * dsim_print_achieved() - the achieved latencies of the whole run against
 * the round trip, with a warning when they drift.
 * @p: the run's parameters.
 * @pts: the points.
 * @n: entries of @pts.
 *
 * Context: any.
 * Return: the number of points whose achieved latency drifted.
 */
unsigned int dsim_print_achieved(const struct dsim_params *p,
				 const struct dsim_point *pts, size_t n);

/* How a target compares its value with its limit. */
enum dsim_cmp { DSIM_GE, DSIM_LE, DSIM_LT };

/* Whether a target was met. */
enum dsim_met { DSIM_NOT_MEASURED = -1, DSIM_NOT_MET = 0, DSIM_MET = 1 };

/**
 * struct dsim_target - one reported target.
 * @what: what is compared, e.g. "seed000/2019 IOPS".
 * @wl: the workload it is read at.
 * @threads: the thread count it is read at.
 * @ratio: the window/file ratio it is read at.
 * @value: the measured quotient.
 * @limit: the bound.
 * @cmp: how @value must relate to @limit.
 * @met: the verdict.
 * @ci_lo: for the every-point targets, the lower end of the 95% confidence
 *	interval of the ratio paired by round (of IOPS: @value's own; of p99:
 *	the median over the rounds of the slices' p99 ratio), else 0.
 * @ci_hi: its upper end (else 0).
 */
struct dsim_target {
	char what[64];
	enum dsim_wl wl;
	unsigned int threads;
	double ratio;
	double value;
	double limit;
	double ci_lo;
	double ci_hi;
	enum dsim_cmp cmp;
	enum dsim_met met;
};

#define DSIM_MAX_TARGETS	(7 + 2 * DSIM_MAX_RATIOS)

/* Default against the others at every point: IOPS and p99 bounds. */
#define DSIM_NW_IOPS		0.97	/* of the best other DAX policy, and of nodax */
#define DSIM_NW_P99		1.1	/* times the best other DAX policy's p99 */

/**
 * struct dsim_nw - the default policy at one point against the others.
 * @d: the default's point.
 * @best: the other DAX policy (2019, seed000, upstream) that @d trails most
 *	there (the smallest @d->vs), or NULL.
 * @nd: the nodax point, or NULL.
 * @v_best: @d's IOPS over @best's, paired by round (@d->vs; 0 without
 *	@best).
 * @best_lo: the lower end of the 95% confidence interval of @v_best.
 * @best_hi: its upper end.
 * @v_nd: @d's IOPS over @nd's, likewise (0 without @nd).
 * @nd_lo: the lower end of the 95% confidence interval of @v_nd.
 * @nd_hi: its upper end.
 * @v_p99: @d's p99 over @best's (0 without @best).
 * @p99_lo: the lower end of the 95% confidence interval of the median over
 *	the rounds of @d's slice p99 over @best's (@d->p99_vs).
 * @p99_hi: its upper end.
 * @margin: the smallest of @v_best / DSIM_NW_IOPS, @v_nd / DSIM_NW_IOPS and
 *	DSIM_NW_P99 / @v_p99 (those measured): at least 1 when the point
 *	meets the rule.
 * @hi: the smallest of @best_hi / DSIM_NW_IOPS and @nd_hi / DSIM_NW_IOPS:
 *	below 1, an IOPS bound is missed beyond the noise of the run (as the
 *	p99 bound is when @p99_lo is above DSIM_NW_P99).
 */
struct dsim_nw {
	const struct dsim_point *d;
	const struct dsim_point *best;
	const struct dsim_point *nd;
	double v_best;
	double best_lo;
	double best_hi;
	double v_nd;
	double nd_lo;
	double nd_hi;
	double v_p99;
	double p99_lo;
	double p99_hi;
	double margin;
	double hi;
};

/**
 * dsim_nw_eval() - the default policy against the others at every point:
 * at least DSIM_NW_IOPS of the IOPS of the best other DAX policy and of
 * nodax, and a p99 at most DSIM_NW_P99 times the best other's.  IOPS are
 * compared round by round (struct dsim_point @vs): the policies of a point
 * run in rounds of slices, one slice each back to back, so a round's load
 * weighs on all of them alike.
 * @pts: the points.
 * @n: entries of @pts.
 * @worst: receives the point of the smallest margin (zeroed when none).
 * @met: receives the points that meet the rule.
 *
 * Context: any.
 * Return: the points compared (default points with nodax or another DAX
 * policy measured beside them).
 */
unsigned int dsim_nw_eval(const struct dsim_point *pts, size_t n,
			  struct dsim_nw *worst, unsigned int *met);

/**
 * dsim_find_point() - the measured point of a configuration.
 * @pts: the points.
 * @n: entries of @pts.
 * @wl: its workload.
 * @threads: its reader threads.
 * @pol: its policy.
 * @ratio: its window/file ratio.
 *
 * Context: any.
 * Return: the point, or NULL when it is not in @pts or did no operations.
 */
const struct dsim_point *dsim_find_point(const struct dsim_point *pts, size_t n,
					 enum dsim_wl wl, unsigned int threads,
					 enum dsim_policy pol, double ratio);

/**
 * dsim_targets_eval() - evaluate the targets on uniform, 1 thread points.
 * @p: the run's parameters.
 * @pts: the points.
 * @n: entries of @pts.
 * @t: receives the targets, at most DSIM_MAX_TARGETS.
 *
 * The targets (reported, never asserted): at ratio 0.4 seed000 has at
 * least 1.87x the IOPS of 2019 and at most 0.56x its p99; at ratio 0.25
 * (working set 4x the window) 2019 and upstream fall below nodax; default
 * keeps at least 0.95x nodax's IOPS at every ratio, and 5x from ratio 1 on.
 * The last three cover every point of the run, one bound of dsim_nw_eval()'s
 * rule each, read at the point where it is worst: the default's IOPS at
 * least DSIM_NW_IOPS times the best other DAX policy's and nodax's, its p99
 * at most DSIM_NW_P99 times that best policy's; all three met when every
 * point meets the rule.
 *
 * Context: any.
 * Return: the number of targets written.
 */
unsigned int dsim_targets_eval(const struct dsim_params *p,
			       const struct dsim_point *pts, size_t n,
			       struct dsim_target *t);

/**
 * dsim_print_targets() - the "targets" block: each target, its ratio and
 * met / NOT met (or not measured).
 * @p: the run's parameters.
 * @pts: the points.
 * @n: entries of @pts.
 *
 * Context: any.
 */
void dsim_print_targets(const struct dsim_params *p,
			const struct dsim_point *pts, size_t n);

/**
 * dsim_write_files() - the JSON and TSV files.
 * @p: the run's parameters.
 * @pts: the points.
 * @n: entries of @pts.
 * @out: the file names.
 *
 * Context: any.
 * Return: 0, or -errno (message printed).
 */
int dsim_write_files(const struct dsim_params *p, const struct dsim_point *pts,
		     size_t n, const struct dsim_output *out);

#endif /* BENCH_DAXSIM_H */
