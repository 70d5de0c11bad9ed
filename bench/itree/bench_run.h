/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_run.h - timing one configuration of the itree bench.
 */
#ifndef BENCH_ITREE_RUN_H
#define BENCH_ITREE_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "bench_target.h"

/**
 * enum bench_writer - what updates the index while the readers run.
 * @BENCH_NOWRITER: nothing.
 * @BENCH_WRITER_PACED: one writer thread doing BENCH_PACED_RATE insert +
 *	remove pairs a second (the cache's realistic rate of changes to one
 *	tree), paced by the clock in BENCH_PACED_TICK ticks a second.
 * @BENCH_WRITER: one writer thread doing them back to back.
 * @BENCH_NWRITERS: how many modes there are.
 */
enum bench_writer {
	BENCH_NOWRITER,
	BENCH_WRITER_PACED,
	BENCH_WRITER,
	BENCH_NWRITERS
};

#define BENCH_PACED_RATE	10000	/* pairs per second */
#define BENCH_PACED_TICK	1000	/* writer wake-ups per second */

/**
 * bench_writer_name() - the table and JSON name of a writer mode.
 * @w: the mode.
 *
 * Return: "nowriter", "writer10k" or "writer".
 */
static inline const char *bench_writer_name(enum bench_writer w)
{
	return w == BENCH_NOWRITER ? "nowriter" :
	       w == BENCH_WRITER_PACED ? "writer10k" : "writer";
}

/**
 * struct bench_config - one measured point.
 * @target: the index type.
 * @index: an index built by @target with @n resident intervals.
 * @n: resident intervals, at most UINT32_MAX.
 * @readers: reader threads.
 * @writer: what updates the index meanwhile.
 * @seconds: how long the threads run.
 * @seed: picks the threads' query sequences; equal seeds, equal queries.
 */
struct bench_config {
	const struct bench_target *target;
	void *index;
	uint64_t n;
	unsigned int readers;
	enum bench_writer writer;
	double seconds;
	uint64_t seed;
};

/**
 * struct bench_result - counters summed over every run of one point.
 * @reader_ns: thread-nanoseconds spent by all readers.
 * @reader_cpu_ns: of those, the nanoseconds they ran on a CPU.
 * @lookups: lookups done by all readers.
 * @mismatches: lookups that did not return the expected item.
 * @writer_ns: nanoseconds the writer ran (0 without writer).
 * @updates: insert+remove pairs done by the writer.
 * @update_errors: updates that returned an error.
 */
struct bench_result {
	uint64_t reader_ns;
	uint64_t reader_cpu_ns;
	uint64_t lookups;
	uint64_t mismatches;
	uint64_t writer_ns;
	uint64_t updates;
	uint64_t update_errors;
};

/**
 * bench_result_add() - add the counters of @more to @res.
 * @res: the sums.
 * @more: one run's counters.
 */
static inline void bench_result_add(struct bench_result *res,
				    const struct bench_result *more)
{
	res->reader_ns += more->reader_ns;
	res->reader_cpu_ns += more->reader_cpu_ns;
	res->lookups += more->lookups;
	res->mismatches += more->mismatches;
	res->writer_ns += more->writer_ns;
	res->updates += more->updates;
	res->update_errors += more->update_errors;
}

/**
 * bench_ns_per_op() - reader thread-nanoseconds per lookup.
 * @res: the counters.
 *
 * This is the latency one reader sees, time spent descheduled included.
 *
 * Return: ns per lookup.
 */
static inline double bench_ns_per_op(const struct bench_result *res)
{
	return res->lookups ? (double)res->reader_ns / (double)res->lookups : 0;
}

/**
 * bench_cpu_ns_per_op() - reader CPU nanoseconds per lookup.
 * @res: the counters.
 *
 * The time spent descheduled left out: what a lookup costs the reader's
 * CPU, which other load on a machine with few CPUs moves much less.
 *
 * Return: CPU ns per lookup.
 */
static inline double bench_cpu_ns_per_op(const struct bench_result *res)
{
	return res->lookups ? (double)res->reader_cpu_ns / (double)res->lookups : 0;
}

/**
 * bench_updates_per_s() - the writer's insert+remove pairs per second.
 * @res: the counters.
 *
 * Return: the rate, 0 without writer.
 */
static inline double bench_updates_per_s(const struct bench_result *res)
{
	return res->writer_ns ?
	       (double)res->updates * 1e9 / (double)res->writer_ns : 0;
}

/**
 * bench_run() - run @cfg's threads for @cfg->seconds; add what they did
 * to @res.
 * @cfg: the point to measure.
 * @res: the counters to add to.
 *
 * The calling thread must be registered with dc_thread_register().  Exits
 * the program if a thread cannot be started.
 */
void bench_run(const struct bench_config *cfg, struct bench_result *res);

#endif /* BENCH_ITREE_RUN_H */
