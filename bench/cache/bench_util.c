// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_util.c - the cache bench's failure count, thread teams and
 * interleaved slices.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <daxcache/thread.h>

#include "bench_util.h"

static unsigned long failures;

void bench_fail(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "FAIL: %s\n", buf);
	__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
}

unsigned long bench_failures(void)
{
	return __atomic_load_n(&failures, __ATOMIC_RELAXED);
}

/* The calling thread's CPU time and context switches so far. */
static void thread_usage(uint64_t *cpu_ns, uint64_t *preempted, uint64_t *slept)
{
	*cpu_ns = bench_cpu_ns();
	bench_thread_switches(preempted, slept);
}

void bench_thread_begin(struct bench_thread *th)
{
	dc_thread_register();
	pthread_barrier_wait(&th->team->start);
	thread_usage(&th->cpu0, &th->preempted0, &th->slept0);
	th->t0 = bench_now_ns();
}

void bench_thread_end(struct bench_thread *th, uint64_t ops)
{
	uint64_t cpu, preempted, slept;

	th->ns = bench_now_ns() - th->t0;
	thread_usage(&cpu, &preempted, &slept);
	th->cpu_ns = cpu - th->cpu0;
	th->preempted = preempted - th->preempted0;
	th->slept = slept - th->slept0;
	th->ops = ops;
	dc_thread_unregister();
}

uint64_t bench_team_run(struct bench_thread *th, unsigned int n,
			void *(*fn)(void *), double seconds, uint64_t seed)
{
	struct bench_team team = { .stop = false };
	uint64_t longest = 0;
	unsigned int i;
	int err;

	pthread_barrier_init(&team.start, NULL, n + 1);
	for (i = 0; i < n; i++) {
		th[i].team = &team;
		th[i].id = i;
		th[i].rng = bench_seed(seed, i);
		th[i].ops = 0;
		th[i].ns = 0;
		th[i].cpu_ns = 0;
		th[i].preempted = 0;
		th[i].slept = 0;
		err = pthread_create(&th[i].tid, NULL, fn, &th[i]);
		if (err) {
			fprintf(stderr, "bench_cache: pthread_create: %s\n",
				strerror(err));
			exit(1);
		}
	}
	pthread_barrier_wait(&team.start);
	bench_sleep_for(seconds);
	__atomic_store_n(&team.stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++) {
		pthread_join(th[i].tid, NULL);
		if (th[i].ns > longest)
			longest = th[i].ns;
	}
	pthread_barrier_destroy(&team.start);
	return longest;
}

void bench_interleave(unsigned int ncells, double seconds,
		      void (*run)(void *ctx, unsigned int cell,
				  unsigned int slice, double secs),
		      void *ctx)
{
	unsigned int slice, i;

	for (slice = 0; slice < BENCH_SLICES; slice++)
		for (i = 0; i < ncells; i++)
			run(ctx, (slice + i) % ncells, slice,
			    seconds / BENCH_SLICES);
}
