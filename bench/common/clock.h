/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock.h - the benchmarks' clocks: wall time, the calling thread's CPU time
 * and its context switches.
 */
#ifndef BENCH_COMMON_CLOCK_H
#define BENCH_COMMON_CLOCK_H

#include <stdint.h>

/**
 * bench_now_ns() - CLOCK_MONOTONIC in nanoseconds.
 *
 * Context: any.
 * Return: the time.
 */
uint64_t bench_now_ns(void);

/**
 * bench_cpu_ns() - CPU time the calling thread has had, in nanoseconds.
 *
 * Context: any.
 * Return: the time.
 */
uint64_t bench_cpu_ns(void);

/**
 * bench_sleep_for() - sleep @seconds of CLOCK_MONOTONIC, through signals.
 * @seconds: how long.
 *
 * Context: any thread that may sleep.
 */
void bench_sleep_for(double seconds);

/**
 * bench_thread_switches() - the calling thread's context switches so far.
 * @preempted: involuntary ones (it was descheduled while runnable).
 * @slept: voluntary ones (it blocked).
 *
 * Both are 0 where the system cannot tell.
 *
 * Context: any.
 */
void bench_thread_switches(uint64_t *preempted, uint64_t *slept);

#endif /* BENCH_COMMON_CLOCK_H */
