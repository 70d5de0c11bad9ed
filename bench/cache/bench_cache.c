// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_cache.c - the DAX window cache side by side with the kernel's
 * approach, in one run: memory per range, the hit path (1 and 2 threads, against a per-inode
 * rwlock + rbtree + refcount), its scaling by what two threads share, the miss path (with and without inline
 * reclaim), and reclaim throughput under churn for the four
 * inline/background x remove/no-remove policies.
 *
 * usage: bench-cache [--time SEC] [--quick] [--latency-us US] [--json PATH]
 *
 * Exits 1 if any dc_* call failed unexpectedly, a pin named the wrong
 * mapping, or the cache's counters contradicted what was done; the JSON
 * file is then not written.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <daxcache/log.h>
#include <daxcache/thread.h>

#include "bench_cache.h"
#include "bench_util.h"
#include "../common/json.h"
#include "../common/opts.h"

#define DEFAULT_SECONDS		2.5
#define QUICK_SECONDS		0.05
#define DEFAULT_LATENCY_US	30.0

#define STR(x)			#x
#define XSTR(x)			STR(x)

static int parse_options(int argc, char **argv, struct bench_opts *o)
{
	double us = DEFAULT_LATENCY_US;
	struct bench_opt opts[] = {
		BENCH_OPT_TIME(&o->seconds, QUICK_SECONDS, "measuring time per cell (default "
			       XSTR(DEFAULT_SECONDS) ": about a minute in all)"),
		BENCH_OPT_QUICK(NULL, "a smoke run: --time " XSTR(QUICK_SECONDS)
				" unless given"),
		{ .name = "latency-us", .arg = "US", .type = BENCH_OPT_DOUBLE,
		  .dst = &us, .min = 0, .max = 1e6,
		  .help = "churn backend busy-wait per setup and remove call (default "
			  XSTR(DEFAULT_LATENCY_US) ")" },
		{ .name = "section", .arg = "NAME", .type = BENCH_OPT_STRING,
		  .dst = &o->section,
		  .help = "run only this section: mem, hit, share, miss, parmiss or churn" },
		BENCH_OPT_JSON(&o->json, "results file (default bench/results/cache.json)"),
		BENCH_OPT_END,
	};

	o->seconds = DEFAULT_SECONDS;
	o->json = "bench/results/cache.json";
	o->section = NULL;
	bench_opts_main("bench-cache", opts, argc, argv);
	o->latency_ns = (uint64_t)(us * 1e3);
	return 0;
}

/* Refuse at once a results path whose directory cannot be written. */
static int check_json_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX] = ".";
	size_t len;

	if (slash) {
		len = slash == path ? 1 : (size_t)(slash - path);
		if (len >= sizeof(dir)) {
			fprintf(stderr, "bench_cache: results path too long\n");
			return -1;
		}
		memcpy(dir, path, len);
		dir[len] = '\0';
	}
	if (access(dir, W_OK)) {
		fprintf(stderr, "bench_cache: cannot write results to %s: %s: %s\n",
			path, dir, strerror(errno));
		return -1;
	}
	return 0;
}

static void print_notes(const struct bench_opts *o, long cpus)
{
	printf("notes:\n"
	       "- every cell runs %.2f s in %d slices interleaved with the other cells of its\n"
	       "  section (order rotated per slice), so outside load lands on all cells alike;\n"
	       "  ratios compare numbers from this run only.\n", o->seconds,
	       BENCH_SLICES);
	printf("- %ld CPUs online; threads are not pinned and the machine may be shared.\n",
	       cpus);
	if (cpus <= 2)
		printf("  OVERSUBSCRIBED: the 2-thread cells use every CPU; the cache's background\n"
		       "  reclaimer and liburcu's call_rcu thread must share them.  In churn, the\n"
		       "  backend busy-waits, so with 2 mapping threads plus a busy reclaimer there\n"
		       "  are more runnable threads than CPUs: 2-thread maps/s and p99 include time\n"
		       "  spent descheduled, and bg-first policies are penalized for it.\n"
		       "  The cpu%% columns say how much CPU the measured threads really got:\n"
		       "  well below 100%% means they shared their CPUs with something else, or\n"
		       "  (churn, sleeps/s) slept: on an inode mutex (a claim, or a writeback\n"
		       "  of an inline victim), or for another thread's setup of the same range.\n");
	printf("- hit ns/op is thread-time per pin (the latency one thread sees); Mops/s is\n"
	       "  pins per second of wall time summed over the threads.\n"
	       "- kernel_rwlock models one shared rwlock per inode; the kernel's read path\n"
	       "  takes two (the inode lock in read_iter and i_dmap_sem in iomap_begin), and\n"
	       "  holds the lock across refcount_inc, which here follows the unlock (same\n"
	       "  atomic operations, shorter critical section): a lower bound on its cost.\n"
	       "- churn latency is per backend call, not per entry: a batched remove of 10\n"
	       "  ranges costs as much as a remove of one.\n");
}

/* The sections, in the order they run. */
static const struct {
	const char *name;
	void (*run)(const struct bench_opts *o, struct bench_json *j);
} sections[] = {
	{ "mem", bench_mem },
	{ "hit", bench_hit },
	{ "share", bench_share },
	{ "miss", bench_miss },
	{ "parmiss", bench_parmiss },
	{ "churn", bench_churn },
};

/* Whether @name is a section's (or NULL: all of them). */
static bool section_known(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(sections) / sizeof(sections[0]); i++)
		if (!strcmp(name, sections[i].name))
			return true;
	return !name;
}

int main(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long warnings;
	struct bench_opts o;
	struct bench_json *j;
	uint64_t t0;
	size_t i;
	int ret = 0;

	if (parse_options(argc, argv, &o) || check_json_dir(o.json))
		return 2;
	if (!section_known(o.section)) {
		fprintf(stderr, "bench_cache: no section %s\n", o.section);
		return 2;
	}
	j = bench_json_new();
	if (!j) {
		fprintf(stderr, "bench_cache: out of memory\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	dc_thread_register();
	t0 = bench_now_ns();
	printf("libdaxcache cache bench: %.2f s per cell, %d interleaved slices, %ld CPUs\n\n",
	       o.seconds, BENCH_SLICES, cpus);
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (!o.section || !strcmp(o.section, sections[i].name))
			sections[i].run(&o, j);
	dc_barrier();
	print_notes(&o, cpus);
	bench_json_addf(j, o.seconds, "meta/seconds_per_cell");
	bench_json_addf(j, BENCH_SLICES, "meta/slices");
	bench_json_addf(j, (double)cpus, "meta/cpus");
	warnings = dc_warn_count();
	if (warnings)
		bench_fail("the library reported %lu warnings", warnings);
	printf("\ntotal %.1f s\n", (bench_now_ns() - t0) / 1e9);
	if (bench_failures()) {
		fprintf(stderr, "bench_cache: FAILED: %lu unexpected results; no JSON written\n",
			bench_failures());
		ret = 1;
	} else if (bench_json_save(j, o.json, "bench_cache")) {
		ret = 1;
	}
	dc_thread_unregister();
	bench_json_free(j);
	return ret;
}
