/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_run.c - reader and writer threads for one point of the itree bench.
 *
 * The threads register with RCU, meet the main thread at a barrier and run
 * until it raises the stop flag; each times itself.  Every thread draws
 * from its own generator (lib/platform/prng.h) seeded from the config's
 * seed, so each index is asked the same queries and pays the same few
 * cycles per draw.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <daxcache/thread.h>

#include "../../lib/platform/prng.h"
#include "bench_run.h"

#define READ_BATCH	256	/* lookups between looks at the stop flag */

struct run_shared {
	const struct bench_config *cfg;
	pthread_barrier_t start;
	bool stop;
};

/* One reader or writer thread; ops and failures count its own calls. */
struct worker {
	struct run_shared *sh;
	pthread_t tid;
	uint64_t rng;
	uint64_t ops;
	uint64_t failures;
	uint64_t ns;
	uint64_t cpu_ns;	/* readers: on a CPU, of those @ns */
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* A draw in [0, @n) for @n <= 2^32: scale the top 32 bits, no division. */
static uint64_t draw_below(uint64_t *state, uint64_t n)
{
	return ((dci_prng_next(state) >> 32) * n) >> 32;
}

static bool stopping(const struct run_shared *sh)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}

static void *reader_main(void *arg)
{
	struct worker *w = arg;
	const struct bench_config *cfg = w->sh->cfg;
	void *(*lookup)(void *index, uint64_t point) = cfg->target->lookup;
	void *index = cfg->index;
	uint64_t n = cfg->n, rng = w->rng, ops = 0, bad = 0, t0, c0, s;
	int i;

	dc_thread_register();
	pthread_barrier_wait(&w->sh->start);
	t0 = now_ns();
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	do {
		for (i = 0; i < READ_BATCH; i++) {
			s = draw_below(&rng, n) * BENCH_STRIDE;
			bad += lookup(index, s) != bench_item(s);
		}
		ops += READ_BATCH;
	} while (!stopping(w->sh));
	w->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->ns = now_ns() - t0;
	w->ops = ops;
	w->failures = bad;
	dc_thread_unregister();
	return NULL;
}

static void sleep_until(uint64_t when)
{
	struct timespec ts = {
		.tv_sec = (time_t)(when / 1000000000u),
		.tv_nsec = (long)(when % 1000000000u),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/*
 * The paced writer keeps to a schedule from its start: BENCH_PACED_TICK
 * ticks a second, rate / ticks pairs at each.  After a late wake-up it
 * catches up without sleeping, so its mean rate is the target one while
 * it can keep up.  Ticks rather than one sleep a pair: 10,000 wake-ups a
 * second on a machine with few CPUs would measure the scheduler (each one
 * can preempt a reader) rather than what the writer's changes cost them.
 */
static void *writer_main(void *arg)
{
	struct worker *w = arg;
	const struct bench_config *cfg = w->sh->cfg;
	bool paced = cfg->writer == BENCH_WRITER_PACED;
	const uint64_t period = 1000000000u / BENCH_PACED_TICK;
	const unsigned int per_tick = BENCH_PACED_RATE / BENCH_PACED_TICK;
	uint64_t rng = w->rng, ops = 0, bad = 0, t0, due;
	unsigned int i;

	dc_thread_register();
	pthread_barrier_wait(&w->sh->start);
	t0 = now_ns();
	due = t0;
	while (!stopping(w->sh)) {
		for (i = 0; i < (paced ? per_tick : 1); i++) {
			bad += cfg->target->update(cfg->index,
						   draw_below(&rng, cfg->n)) != 0;
			ops++;
		}
		if (paced) {
			due += period;
			if (due > now_ns())
				sleep_until(due);
		}
	}
	w->ns = now_ns() - t0;
	w->ops = ops;
	w->failures = bad;
	dc_thread_unregister();
	return NULL;
}

static void start_thread(struct worker *w, void *(*fn)(void *))
{
	int err = pthread_create(&w->tid, NULL, fn, w);

	if (err) {
		fprintf(stderr, "bench_itree: pthread_create: %s\n",
			strerror(err));
		exit(1);
	}
}


void bench_run(const struct bench_config *cfg, struct bench_result *res)
{
	unsigned int nthreads = cfg->readers + (cfg->writer != BENCH_NOWRITER), i;
	struct run_shared sh = { .cfg = cfg, .stop = false };
	struct worker *w = calloc(nthreads, sizeof(*w)), *wr;

	if (!w) {
		fprintf(stderr, "bench_itree: out of memory\n");
		exit(1);
	}
	pthread_barrier_init(&sh.start, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		w[i].sh = &sh;
		/* odd times a small nonzero count: never 0 */
		w[i].rng = 0x9e3779b97f4a7c15ull * ((cfg->seed << 8) + i + 1);
		start_thread(&w[i], i < cfg->readers ? reader_main
						     : writer_main);
	}
	pthread_barrier_wait(&sh.start);
	sleep_until(now_ns() + (uint64_t)(cfg->seconds * 1e9));
	__atomic_store_n(&sh.stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < nthreads; i++)
		pthread_join(w[i].tid, NULL);
	pthread_barrier_destroy(&sh.start);

	for (i = 0; i < cfg->readers; i++) {
		res->reader_ns += w[i].ns;
		res->reader_cpu_ns += w[i].cpu_ns;
		res->lookups += w[i].ops;
		res->mismatches += w[i].failures;
	}
	if (cfg->writer != BENCH_NOWRITER) {
		wr = &w[cfg->readers];
		res->writer_ns += wr->ns;
		res->updates += wr->ops;
		res->update_errors += wr->failures;
	}
	free(w);
}
