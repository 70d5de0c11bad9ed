/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * latency_backend.h - a backend that models a slow device: each setup and
 * each remove call busy-waits (or sleeps: lat_backend_set_sleep()) a fixed
 * time (per call, whatever the batch size), as a round trip to a virtio-fs
 * daemon would take.
 *
 * It also keeps what each window range maps, so that a caller can check
 * that a pin names the mapping it asked for, and it counts calls that
 * contradict the cache's contract (bad arguments, a remove of something
 * the range does not map).
 */
#ifndef BENCH_CACHE_LATENCY_BACKEND_H
#define BENCH_CACHE_LATENCY_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include <daxcache/cache.h>

struct lat_backend;

/**
 * struct lat_backend_counts - what the backend saw.
 * @setups: setup calls.
 * @setup_ns: time spent in setup calls.
 * @removes: remove calls.
 * @remove_entries: entries in all remove calls.
 * @remove_ns: time spent in remove calls.
 * @bad_calls: calls with arguments outside the window or misaligned.
 * @stale_removes: remove entries for a mapping the range no longer had.
 * @pin_mismatches: pins checked with lat_backend_check() that named a
 *	window range mapping something else.
 */
struct lat_backend_counts {
	uint64_t setups;
	uint64_t setup_ns;
	uint64_t removes;
	uint64_t remove_entries;
	uint64_t remove_ns;
	uint64_t bad_calls;
	uint64_t stale_removes;
	uint64_t pin_mismatches;
};

/* The ops; priv is the struct lat_backend. */
extern const struct dc_backend_ops lat_backend_ops;

/**
 * lat_backend_set_sleep() - make each setup and remove sleep its time
 * (nanosleep) instead of busy-waiting: a round trip to the host is a wait,
 * in which the CPU serves other threads.
 * @b: the backend.
 * @sleep: true to sleep, false (the default) to busy-wait.
 */
void lat_backend_set_sleep(struct lat_backend *b, bool sleep);

/**
 * lat_backend_create() - a backend for a window of @nr_ranges ranges.
 * @setup_ns: busy-wait per setup call.
 * @remove_ns: busy-wait per remove call.
 * @nr_ranges: ranges in the window.
 * @range_shift: log2 of the range size.
 *
 * Return: the backend, or NULL if out of memory.
 */
struct lat_backend *lat_backend_create(uint64_t setup_ns, uint64_t remove_ns,
				       unsigned int nr_ranges,
				       unsigned int range_shift);

/**
 * lat_backend_destroy() - free a backend.
 * @b: the backend, or NULL.
 */
void lat_backend_destroy(struct lat_backend *b);

/**
 * lat_backend_check() - whether window offset @win_off maps range @index of
 * inode @ino, as a pin on it promises; a mismatch is counted.
 * @b: the backend.
 * @ino: inode id.
 * @index: file range index.
 * @win_off: the pin's window offset.
 *
 * Context: while holding the pin.
 * Return: true if it does.
 */
bool lat_backend_check(struct lat_backend *b, uint64_t ino, uint64_t index,
		       uint64_t win_off);

/**
 * lat_backend_counts() - read the counters.
 * @b: the backend.
 * @out: receives them.
 */
void lat_backend_counts(struct lat_backend *b, struct lat_backend_counts *out);

#endif /* BENCH_CACHE_LATENCY_BACKEND_H */
