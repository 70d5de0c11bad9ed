/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * noop_target.h - a map and unpin that do no work, for the hit bench's
 * reference column: what its loop costs by itself, and how well two threads
 * that share nothing scale on this machine.
 */
#ifndef BENCH_CACHE_NOOP_TARGET_H
#define BENCH_CACHE_NOOP_TARGET_H

#include <stdint.h>

/**
 * struct noop_pin - what noop_map() hands back.
 * @win_off: the window offset looked up.
 * @slot: private.
 */
struct noop_pin {
	uint64_t win_off;
	const uint64_t *slot;
};

/**
 * noop_map() - "pin" @win[@k]: read it, nothing else.
 * @win: window offsets.
 * @k: which one.
 * @pin: receives it.
 *
 * Return: 0.
 */
int noop_map(const uint64_t *win, unsigned int k, struct noop_pin *pin);

/**
 * noop_unpin() - forget a pin.
 * @pin: the pin.
 */
void noop_unpin(struct noop_pin *pin);

#endif /* BENCH_CACHE_NOOP_TARGET_H */
