/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * prng.h - the tree's one small deterministic generator (xorshift64*, after
 * Vigna), for the simulation backend's fault rules, the shared test cases,
 * the torture and fuzz drivers and the benchmarks: reproducible from a
 * seed, fast, and good enough for picking offsets and failures.  Not for
 * anything that must be unpredictable.  Three keep their own, on purpose:
 * bench/daxsim's traces (xoshiro256**: the published hit-ratio figures come
 * from its sequences), the fuzz replay's --write-seeds (the committed corpus
 * is what it writes) and examples/mmap-window (an example stands alone).
 *
 * Plain C on a uint64_t: included by both platforms' users, in the kernel
 * too.
 */
#ifndef DCI_PLATFORM_PRNG_H
#define DCI_PLATFORM_PRNG_H

#include <stdint.h>

/* A state from any seed (never 0, which would stay 0). */
static inline uint64_t dci_prng_seed(uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;

	return s ? s : 1;
}

/* The next 64 random bits; @s must not be 0. */
static inline uint64_t dci_prng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n) for n > 0 (the bias of % is negligible here); 0 for 0. */
static inline uint64_t dci_prng_below(uint64_t *s, uint64_t n)
{
	return n ? dci_prng_next(s) % n : 0;
}

#endif /* DCI_PLATFORM_PRNG_H */
