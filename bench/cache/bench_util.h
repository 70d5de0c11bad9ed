/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_util.h - the cache bench's random draws (its clocks are
 * bench/common/clock.h), failure count,
 * thread teams and interleaved slices.
 */
#ifndef BENCH_CACHE_UTIL_H
#define BENCH_CACHE_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../lib/platform/prng.h"
#include "../common/clock.h"

#define BENCH_SLICES	5	/* slices per cell, interleaved across cells */

/**
 * bench_rand() - next value of the tree's generator (lib/platform/prng.h).
 * @state: the generator; never 0.
 *
 * Return: 64 random bits.
 */
static inline uint64_t bench_rand(uint64_t *state)
{
	return dci_prng_next(state);
}

/**
 * bench_rand_below() - a draw in [0, @n) for @n <= 2^32, without division.
 * @state: the generator.
 * @n: the bound.
 *
 * Return: the draw.
 */
static inline uint64_t bench_rand_below(uint64_t *state, uint64_t n)
{
	return ((bench_rand(state) >> 32) * n) >> 32;
}

/**
 * bench_seed() - a nonzero generator state for thread @id of run @run.
 * @run: distinguishes runs.
 * @id: distinguishes threads.
 *
 * Return: the state.
 */
static inline uint64_t bench_seed(uint64_t run, unsigned int id)
{
	return 0x9e3779b97f4a7c15ull * ((run << 8) + id + 1);
}

/**
 * bench_fail() - report an unexpected result and count it.
 * @fmt: printf format of the message (printed after "FAIL: ").
 *
 * Context: any thread.
 */
void bench_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * bench_failures() - how many times bench_fail() was called.
 *
 * Return: the count.
 */
unsigned long bench_failures(void);

/* What the threads of one timed run share. */
struct bench_team {
	pthread_barrier_t start;
	bool stop;
};

/**
 * struct bench_thread - one thread of a timed run.
 * @team: the run it belongs to.
 * @tid: its pthread.
 * @id: 0 .. threads - 1.
 * @ctx: the section's shared context.
 * @priv: the section's per-thread data, or NULL.
 * @rng: its own generator, seeded by bench_team_run().
 * @ops: operations it did (set by the thread).
 * @ns: nanoseconds it measured for itself (set by bench_thread_end()).
 * @cpu_ns: CPU time it got meanwhile (set by bench_thread_end()).
 * @preempted: involuntary context switches meanwhile (likewise).
 * @slept: voluntary context switches meanwhile (likewise).
 * @t0: when it started measuring.
 * @cpu0: its CPU time then.
 * @preempted0: its involuntary context switches then.
 * @slept0: its voluntary context switches then.
 */
struct bench_thread {
	struct bench_team *team;
	pthread_t tid;
	unsigned int id;
	void *ctx;
	void *priv;
	uint64_t rng;
	uint64_t ops;
	uint64_t ns;
	uint64_t cpu_ns;
	uint64_t preempted;
	uint64_t slept;
	uint64_t t0;
	uint64_t cpu0;
	uint64_t preempted0;
	uint64_t slept0;
};

/**
 * bench_thread_begin() - register with the library, meet the other
 * threads and start the clock.
 * @th: the calling thread.
 */
void bench_thread_begin(struct bench_thread *th);

/**
 * bench_thread_end() - stop the clock, record @ops and how much CPU the
 * thread got, unregister.
 * @th: the calling thread.
 * @ops: operations done.
 */
void bench_thread_end(struct bench_thread *th, uint64_t ops);

/**
 * bench_thread_stopping() - whether the run is over.
 * @th: the calling thread.
 *
 * Return: true once the main thread has raised the stop flag.
 */
static inline bool bench_thread_stopping(const struct bench_thread *th)
{
	return __atomic_load_n(&th->team->stop, __ATOMIC_RELAXED);
}

/**
 * bench_team_run() - run @n threads of @fn for @seconds.
 * @th: @n thread slots; @ctx and @priv are kept, the rest is filled.
 * @n: threads.
 * @fn: the thread function; it gets its struct bench_thread and must call
 *	bench_thread_begin() and bench_thread_end().
 * @seconds: how long to let them run.
 * @seed: seeds the threads' generators.
 *
 * The caller must be a registered thread.  Exits the program if a thread
 * cannot be started.
 *
 * Return: the longest time a thread measured for itself, in ns.
 */
uint64_t bench_team_run(struct bench_thread *th, unsigned int n,
			void *(*fn)(void *), double seconds, uint64_t seed);

/**
 * bench_interleave() - measure @ncells cells for @seconds each, cut into
 * BENCH_SLICES slices; slice s runs the cells in the order s, s+1, ...
 * (mod @ncells), so that a burst of outside load lands on every cell alike.
 * @ncells: cells.
 * @seconds: time per cell.
 * @run: measures cell @cell for @secs and adds to its result.
 * @ctx: passed to @run.
 */
void bench_interleave(unsigned int ncells, double seconds,
		      void (*run)(void *ctx, unsigned int cell,
				  unsigned int slice, double secs),
		      void *ctx);

#endif /* BENCH_CACHE_UTIL_H */
