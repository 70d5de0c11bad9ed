// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_test.c - checks of the offline simulators: the textbook reference
 * string 1 2 3 4 1 2 5 1 2 3 4 5 (FIFO shows Belady's anomaly on it), and
 * on random traces the properties every correct simulator has: OPT is an
 * upper bound, LRU's hits never fall as the capacity grows (the stack
 * property), and a capacity that holds every key misses only once per key.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "hitratio.h"

static int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);	\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

static uint64_t (*const sims[])(const struct hr_trace *, uint32_t) = {
	hr_sim_lru, hr_sim_opt, hr_sim_clock, hr_sim_clock_cold, hr_sim_fifo,
};
static const char *const names[] = { "lru", "opt", "clock", "clock_cold", "fifo" };
#define NR_SIMS	(sizeof(sims) / sizeof(sims[0]))

static void textbook(void)
{
	static uint32_t ref[] = { 1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5 };
	struct hr_trace t = { .idx = ref, .n = 12, .nr_keys = 6 };
	/* Faults with 3 and 4 frames, as every operating-systems text has them. */
	static const struct {
		uint64_t (*sim)(const struct hr_trace *, uint32_t);
		const char *name;
		uint64_t faults3, faults4;
	} want[] = {
		{ hr_sim_fifo, "fifo", 9, 10 },
		{ hr_sim_lru, "lru", 10, 8 },
		{ hr_sim_opt, "opt", 7, 6 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t f3 = t.n - want[i].sim(&t, 3), f4 = t.n - want[i].sim(&t, 4);

		CHECK(f3 == want[i].faults3, "%s, 3 frames: %" PRIu64 " faults, want %" PRIu64,
		      want[i].name, f3, want[i].faults3);
		CHECK(f4 == want[i].faults4, "%s, 4 frames: %" PRIu64 " faults, want %" PRIu64,
		      want[i].name, f4, want[i].faults4);
	}
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void random_traces(void)
{
	uint64_t seed = 88172645463325252ull;
	unsigned int round;

	for (round = 0; round < 40; round++) {
		uint32_t keys = 2 + (uint32_t)(xorshift(&seed) % 60), cap, k;
		struct hr_trace t = { .n = 1 + xorshift(&seed) % 3000, .nr_keys = keys };
		uint64_t i, distinct = 0, prev_lru = 0;
		uint8_t *seen = calloc(keys, 1);

		t.idx = malloc(t.n * sizeof(*t.idx));
		if (!t.idx || !seen)
			exit(1);
		for (i = 0; i < t.n; i++) {
			/* Half of the draws from a small hot set, to give the policies work. */
			k = (uint32_t)(xorshift(&seed) % (xorshift(&seed) & 1 ? keys : 1 + keys / 8));
			t.idx[i] = k;
			if (!seen[k]) {
				seen[k] = 1;
				distinct++;
			}
		}
		for (cap = 1; cap <= keys + 1; cap++) {
			uint64_t opt = hr_sim_opt(&t, cap), lru = hr_sim_lru(&t, cap);
			unsigned int s;

			CHECK(lru >= prev_lru, "round %u cap %u: lru %" PRIu64 " < %" PRIu64
			      " at cap - 1", round, cap, lru, prev_lru);
			prev_lru = lru;
			for (s = 0; s < NR_SIMS; s++) {
				uint64_t h = sims[s](&t, cap);

				CHECK(h <= opt, "round %u cap %u: %s %" PRIu64 " > opt %" PRIu64,
				      round, cap, names[s], h, opt);
				if (cap >= keys)
					CHECK(h == t.n - distinct, "round %u cap %u: %s %" PRIu64
					      " hits, want %" PRIu64, round, cap, names[s], h,
					      t.n - distinct);
			}
		}
		free(t.idx);
		free(seen);
	}
}

int main(void)
{
	textbook();
	random_traces();
	if (failures) {
		fprintf(stderr, "sim-test: %d failures\n", failures);
		return 1;
	}
	printf("sim-test: all checks passed\n");
	return 0;
}
