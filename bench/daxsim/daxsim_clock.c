// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxsim_clock.c - the clock, the busy-wait and the simulated memory.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* mremap */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include "daxsim.h"

#define SPIN_SLEEP_MIN_NS	1000000ull	/* sleep only in waits over 1 ms */
#define SPIN_TAIL_NS		200000ull	/* ... and spin their last 200 us */

/* --- clock and busy-wait ---------------------------------------------------- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

void dsim_spin_until(uint64_t deadline)
{
	uint64_t now = bench_now_ns();
	struct timespec ts;

	if (now + SPIN_SLEEP_MIN_NS < deadline) {
		uint64_t wake = deadline - SPIN_TAIL_NS;

		ts.tv_sec = (time_t)(wake / 1000000000ull);
		ts.tv_nsec = (long)(wake % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	while (bench_now_ns() < deadline)
		cpu_relax();
}

/* --- the simulated memory ---------------------------------------------------- */

static char *mem_base;
static uint64_t mem_size;	/* mapped */
static uint64_t mem_touched;	/* written once, from the start */

char *dsim_mem_prepare(uint64_t bytes)
{
	void *m;

	if (bytes > mem_size) {
		if (mem_base)
			m = mremap(mem_base, mem_size, bytes, MREMAP_MAYMOVE);
		else
			m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			fprintf(stderr, "daxsim: mapping %llu bytes: %s\n",
				(unsigned long long)bytes, strerror(errno));
			return NULL;
		}
		mem_base = m;
		mem_size = bytes;
	}
	if (bytes > mem_touched) {
		/* Real pages, not the shared zero page, for the copies to read. */
		memset(mem_base + mem_touched, 0x5a, bytes - mem_touched);
		mem_touched = bytes;
	}
	return mem_base;
}

void dsim_mem_release(void)
{
	if (mem_base)
		munmap(mem_base, mem_size);
	mem_base = NULL;
	mem_size = 0;
	mem_touched = 0;
}

uint64_t dsim_window_ranges(const struct dsim_params *p, double ratio)
{
	double r = ratio * (double)p->file_ranges + 0.5;

	return r < 1.0 ? 1 : (uint64_t)r;
}

