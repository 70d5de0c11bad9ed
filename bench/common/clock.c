// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock.c - the benchmarks' clocks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#endif
#include <errno.h>
#include <time.h>
#include <sys/resource.h>

#include "clock.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t bench_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t bench_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void bench_sleep_for(double seconds)
{
	uint64_t end = bench_now_ns() + (uint64_t)(seconds * 1e9);
	struct timespec ts = {
		.tv_sec = (time_t)(end / 1000000000ull),
		.tv_nsec = (long)(end % 1000000000ull),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

void bench_thread_switches(uint64_t *preempted, uint64_t *slept)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru)) {
		*preempted = 0;
		*slept = 0;
		return;
	}
	*preempted = (uint64_t)ru.ru_nivcsw;
	*slept = (uint64_t)ru.ru_nvcsw;
}
