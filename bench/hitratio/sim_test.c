// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_test.c - checks of the offline simulators: the textbook reference
 * string 1 2 3 4 1 2 5 1 2 3 4 5 (FIFO shows Belady's anomaly on it), a
 * worked example for each of ARC, 2Q, S3-FIFO and SIEVE (a short trace whose
 * hits and evictions were derived by hand from the paper's description of
 * the policy, step by step in the comments), and on random traces the
 * properties every correct simulator has: OPT is an upper bound, LRU's hits
 * never fall as the capacity grows (the stack property), and a capacity
 * that holds every key misses only once per key.
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
	hr_sim_arc, hr_sim_2q, hr_sim_s3fifo, hr_sim_sieve, hr_sim_clock_own,
};
static const char *const names[] = {
	"lru", "opt", "clock", "clock_cold", "fifo", "arc", "2q", "s3fifo", "sieve",
	"clock_own",
};
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

/*
 * Run @sim over @keys (letters: A is key 0) with @cap slots and compare each
 * access with @outcome ('H' hit, 'M' miss) and the key it evicted with
 * @victims ('-' none).
 */
static void worked(const char *name,
		   uint64_t (*sim)(const struct hr_trace *, uint32_t, struct hr_sim_log *),
		   uint32_t cap, const char *keys, const char *outcome, const char *victims)
{
	uint32_t idx[64], victim[64];
	uint8_t hit[64];
	struct hr_sim_log log = { .hit = hit, .victim = victim };
	struct hr_trace t = { .idx = idx, .nr_keys = 26 };
	uint64_t i, hits, want = 0;

	for (t.n = 0; keys[t.n]; t.n++)
		idx[t.n] = (uint32_t)(keys[t.n] - 'A');
	hits = sim(&t, cap, &log);
	for (i = 0; i < t.n; i++) {
		char v = victim[i] == HR_NO_VICTIM ? '-' : (char)('A' + victim[i]);

		want += outcome[i] == 'H';
		CHECK((hit[i] ? 'H' : 'M') == outcome[i], "%s: access %" PRIu64 " (%c): %s, want %s",
		      name, i + 1, keys[i], hit[i] ? "hit" : "miss",
		      outcome[i] == 'H' ? "hit" : "miss");
		CHECK(v == victims[i], "%s: access %" PRIu64 " (%c) evicted %c, want %c", name,
		      i + 1, keys[i], v, victims[i]);
	}
	CHECK(hits == want, "%s: %" PRIu64 " hits, want %" PRIu64, name, hits, want);
	/* The plain entry point counts the same. */
	CHECK(sim(&t, cap, NULL) == hits, "%s: without a log, another count", name);
}

static void worked_examples(void)
{
	/*
	 * ARC, c = 2, p = 0; lists LRU..MRU.
	 *  1 A miss: T1 [A].            2 A hit in T1: T2 [A].
	 *  3 B miss: T1 [B] (|T1|+|B1| = 1, the lists hold 1 < c).
	 *  4 C miss: the lists hold 2 = c: REPLACE, |T1| 1 > p 0: B to B1.
	 *    T1 [C] T2 [A] B1 [B].
	 *  5 B in B1: p = 0 + max(1, 0/1) = 1; REPLACE: |T1| 1 is not > p:
	 *    A from T2 to B2; B to T2.  T1 [C] T2 [B] B2 [A].
	 *  6 A in B2: p = 1 - max(1, 0/1) = 0; REPLACE: |T1| 1 > 0: C to B1;
	 *    A to T2.  T2 [B A] B1 [C].
	 *  7 C in B1: p = 1; REPLACE: T1 empty: B from T2 to B2; C to T2.
	 *    T2 [A C] B2 [B].
	 *  8 D miss: |T1|+|B1| = 0, the lists hold 3 >= c: REPLACE, T1 empty:
	 *    A to B2.  T1 [D] T2 [C] B2 [B A].
	 *  9 E miss: the lists hold 4 = 2c: B leaves B2; REPLACE, |T1| 1 is
	 *    not > p 1: C to B2.  T1 [D E] B2 [A C].
	 */
	worked("arc", hr_sim_arc_log, 2, "AABCBACDE", "MHMMMMMMM", "---BACBAC");
	/*
	 * ARC, c = 2: case IV A, both ways.
	 *  1 A, 2 B miss: T1 [A B].
	 *  3 C miss: |T1|+|B1| = 2 = c and |T1| = c: A is evicted outright
	 *    (no ghost).  T1 [B C].
	 *  4 A miss (in no list): the same, B goes.  T1 [C A].
	 *  5 C hit: T1 [A] T2 [C].
	 *  6 B miss: |T1|+|B1| = 1, the lists hold 2: REPLACE, |T1| 1 > p 0:
	 *    A to B1.  T1 [B] T2 [C] B1 [A].
	 *  7 D miss: |T1|+|B1| = 2 = c, |T1| < c: A leaves B1; REPLACE: B to
	 *    B1.  T1 [D] B1 [B].
	 *  8 A miss (in no list): B leaves B1; REPLACE: D to B1.
	 */
	worked("arc (case IV A)", hr_sim_arc_log, 2, "ABCACBDA", "MMMMHMMM", "--AB-ABD");
	/*
	 * 2Q, 4 slots: Kin 1, Kout 2; queues tail..head.
	 *  1-4 A B C D miss: A1in [A B C D].   5 A hit in A1in: nothing moves.
	 *  6 E miss: full, |A1in| 4 > Kin: A out to A1out [A]; A1in [B C D E].
	 *  7 A in A1out: B out (A1out [B]); A to Am [A].
	 *  8 B in A1out: C out (A1out [C]); Am [A B].  A1in [D E].
	 *  9 A hit in Am: Am [B A].
	 * 10 F miss: D out, A1out [C D].  A1in [E F].
	 * 11 G miss: E out, A1out [C D E] is longer than Kout: C dropped.
	 * 12 C miss (forgotten): F out, D dropped; A1out [E F]; A1in [G C].
	 * 13 E in A1out: G out, A1out [F G]; Am [B A E]; A1in [C].
	 * 14 D miss: |A1in| 1 is not > Kin: Am's tail B goes, not remembered.
	 *    A1in [C D].
	 * 15 B miss (not in A1out): C out of A1in, A1out [G C].
	 */
	worked("2q", hr_sim_2q_log, 4, "ABCDAEABAFGCEDB", "MMMMHMMMHMMMMMM",
	       "-----ABC-DEFGBC");
	/*
	 * S3-FIFO, 4 slots: S gives up keys while 10|S| >= 4 (one key), G holds
	 * 4 - 1 = 3; queues tail..head, frequencies in ().
	 *  1 A, 2 B miss: S [A B].   3 A hit: A(1).   4 C, 5 D miss: S [A B C D].
	 *  6 E miss: S's tail A(1) moves to M [A] (cleared); S's tail B(0) is
	 *    evicted to G [B].  S [C D E].
	 *  7 B in G: S's tail C(0) evicted, G [C]; B to M [A B].  S [D E].
	 *  8 D hit: D(1).   9 A hit: A(1).
	 * 10 F miss: D(1) moves to M [A B D]; E(0) evicted, G [C E]; S [F].
	 * 11 G miss: F(0) evicted, G [C E F].  S [G].
	 * 12 C in G: G(0) evicted, G [E F G]; C to M [A B D C].  S empty.
	 * 13 H miss: S is below its share: M's tail A(1) goes back to M's head
	 *    as A(0); B(0) is evicted.  S [H].
	 */
	worked("s3fifo", hr_sim_s3fifo_log, 4, "ABACDEBDAFGCH", "MMHMMMMHHMMMM",
	       "-----BC--EFGB");
	/*
	 * SIEVE, 3 slots; queue tail..head, visited keys marked *.
	 *  1-3 A B C miss: [A B C].   4 A hit: [A* B C].
	 *  5 D miss: the hand starts at the tail: A* cleared, B evicted; the
	 *    hand rests on C.  [A C D].
	 *  6 B miss: C evicted at the hand, which moves to D.  [A D B].
	 *  7 E miss: D evicted; hand on B.  [A B E].
	 *  8 A hit: [A* B E].
	 *  9 C miss: B evicted; hand on E.  [A* E C].
	 * 10 E hit, 11 C hit: [A* E* C*].
	 * 12 D miss: E* and C* cleared, the hand wraps to the tail, A* cleared,
	 *    then E is evicted (A, the oldest, stays at the tail).  [A C D].
	 */
	worked("sieve", hr_sim_sieve_log, 3, "ABCADBEACECD", "MMMHMMMHMHHM",
	       "----BCD-B--E");
}

/*
 * CLOCK with victims from the own file first, against window-wide CLOCK
 * (both with the bit clear on load): files {A, B} and {C, D}, 3 slots.
 *  1-3 A C B miss: frames [A C B], every bit clear.
 *  4 D miss: its file has C cached: C is evicted (the own walk), where the
 *    window-wide hand, at the first frame, evicts A.
 *  5 A: a hit for own-first; a miss window-wide (C goes, at the hand).
 *  6 C miss: own-first evicts D (its file's only key); window-wide B.
 * Own-first: 1 hit; window-wide: none.
 */
static void own_file_first(void)
{
	static uint32_t ref[] = { 0, 2, 1, 3, 0, 2 };
	struct hr_trace t = { .idx = ref, .n = 6, .nr_keys = 4, .nr_files = 2,
			      .file_ranges = 2 };
	uint64_t own = hr_sim_clock_own(&t, 3), wide = hr_sim_clock_cold(&t, 3);

	CHECK(own == 1, "clock_own: %" PRIu64 " hits, want 1", own);
	CHECK(wide == 0, "clock_cold: %" PRIu64 " hits, want 0", wide);
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
	worked_examples();
	own_file_first();
	random_traces();
	printf("sim-test: %d failures\n", failures);
	return failures ? 1 : 0;
}
