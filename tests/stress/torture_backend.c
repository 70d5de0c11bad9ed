// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * torture_backend.c - the simulation backend with random delays, and a check
 * from the backend's side that no pinned range is reused.
 *
 * Each call first waits a random time (0..max_delay_us, spinning for short
 * waits and sleeping for longer ones; now and then 1..10 ms) and then calls
 * the simbe op, so that the cache's locks are held for varied times.
 *
 * The test threads count, per window range, the pins they hold (after
 * dc_map() returned and before dc_unpin()).  A remove() of a range with
 * such a pin, or a setup() that puts another file range there, is a range
 * reused under a pin: a failure, caught when it happens.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdatomic.h>
#include <time.h>

#include "torture.h"

/* Per-thread generator for the delays (library threads call us too). */
static _Thread_local uint64_t delay_rng;
static atomic_ullong delay_seeds = 0x9e3779b97f4a7c15ull;

static void backend_delay(struct t_backend *be)
{
	unsigned int max_us = atomic_load_explicit(&be->max_delay_us, memory_order_relaxed);
	unsigned int ppm = atomic_load_explicit(&be->long_delay_ppm, memory_order_relaxed);
	uint64_t us, start;

	if (!delay_rng)
		delay_rng = atomic_fetch_add(&delay_seeds, 0x632be59bd9b4e019ull) | 1;
	atomic_fetch_add_explicit(&t_cnt.be_calls, 1, memory_order_relaxed);
	if (ppm && t_below(&delay_rng, 1000000) < ppm) {
		us = 1000 + t_below(&delay_rng, 9000);
		atomic_fetch_add_explicit(&t_cnt.be_long_delays, 1, memory_order_relaxed);
	} else if (max_us) {
		us = t_below(&delay_rng, max_us + 1);
	} else {
		return;
	}
	start = t_now_ns();
	if (us < 50) {
		while (t_now_ns() - start < us * 1000)
			;
	} else {
		struct timespec ts = {
			.tv_sec = (time_t)(us / 1000000),
			.tv_nsec = (long)(us % 1000000) * 1000,
		};

		nanosleep(&ts, NULL);
	}
	atomic_fetch_add_explicit(&t_cnt.be_delay_ns, t_now_ns() - start,
				  memory_order_relaxed);
}

static unsigned int range_of(const struct t_backend *be, uint64_t win_off)
{
	return (unsigned int)(win_off >> be->shift);
}

void t_pin_note(struct t_backend *be, uint64_t win_off)
{
	atomic_fetch_add(&be->pins[range_of(be, win_off)], 1);
}

void t_pin_drop(struct t_backend *be, uint64_t win_off)
{
	atomic_fetch_sub(&be->pins[range_of(be, win_off)], 1);
}

/* Whether the test holds a pin on the window range at @win_off now. */
static bool pinned(struct t_backend *be, uint64_t win_off)
{
	if (win_off >> be->shift >= be->nr)
		return false;		/* simbe counts it as a bad call */
	return atomic_load(&be->pins[range_of(be, win_off)]) != 0;
}

static int t_setup(void *priv, uint64_t ino, uint64_t file_off, uint64_t win_off,
		   uint64_t len, unsigned int flags)
{
	struct t_backend *be = priv;
	struct dc_simbe_mapping m;

	backend_delay(be);
	if (!dc_simbe_lookup(be->sim, win_off, &m, sizeof(m)) &&
	    (m.ino != ino || m.file_off != file_off)) {
		/* Inline reuse: the old mapping goes without a remove. */
		atomic_fetch_add(&t_cnt.ev_reclaim, 1);
		t_check(!pinned(be, win_off),
			"setup of ino %" PRIu64 " off %#" PRIx64 " over window range %" PRIu64 " (ino %" PRIu64 " off %#" PRIx64 ") while a test thread pins it",
			ino, file_off, win_off >> be->shift, m.ino, m.file_off);
	}
	return dc_simbe_ops()->setup(be->sim, ino, file_off, win_off, len, flags);
}

static int t_remove(void *priv, const struct dc_remove_entry *entries,
		    unsigned int n)
{
	struct t_backend *be = priv;
	unsigned int i;

	backend_delay(be);
	atomic_fetch_add(&t_cnt.ev_reclaim, 1);
	for (i = 0; entries && i < n; i++)
		t_check(!pinned(be, entries[i].win_off),
			"remove of ino %" PRIu64 " off %#" PRIx64 " at window range %" PRIu64 " while a test thread pins it",
			entries[i].ino, entries[i].file_off,
			entries[i].win_off >> be->shift);
	return dc_simbe_ops()->remove(be->sim, entries, n);
}

static int t_writeback(void *priv, uint64_t ino, uint64_t file_off,
		       uint64_t len, uint64_t win_off)
{
	struct t_backend *be = priv;

	backend_delay(be);
	t_check(!pinned(be, win_off),
		"writeback of ino %" PRIu64 " off %#" PRIx64 " at window range %" PRIu64 " while a test thread pins it",
		ino, file_off, win_off >> be->shift);
	return dc_simbe_ops()->writeback(be->sim, ino, file_off, len, win_off);
}

const struct dc_backend_ops t_backend_ops = {
	.setup = t_setup,
	.remove = t_remove,
	.writeback = t_writeback,
};
