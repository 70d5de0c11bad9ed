// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_arc.c - ARC, Adaptive Replacement Cache (N. Megiddo and D. S. Modha,
 * "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST 2003), as the
 * paper's description has it, with c = cap:
 *
 * - T1 holds keys seen once recently, T2 keys seen at least twice, both in
 *   LRU order and together the cache (|T1| + |T2| <= c); B1 and B2 are
 *   their ghosts (keys only) with |T1| + |B1| <= c and the four together
 *   at most 2c.  p is the target size of T1.
 * - A hit in T1 or T2 moves the key to the MRU end of T2.
 * - A miss found in B1 grows p by max(1, |B2| / |B1|) (at most c), found in
 *   B2 shrinks it by max(1, |B1| / |B2|) (at least 0); either makes room
 *   with REPLACE and brings the key to the MRU end of T2.
 * - Any other miss: when |T1| + |B1| = c, drop B1's LRU key and REPLACE if
 *   |T1| < c, else evict T1's LRU key outright (no ghost); otherwise, once
 *   the lists hold c keys, drop B2's LRU key if they hold 2c, and REPLACE.
 *   The key goes to the MRU end of T1.
 * - REPLACE evicts T1's LRU key to B1 when T1 is not empty and either
 *   |T1| > p, or |T1| = p and the missed key was in B2; else T2's LRU key
 *   to B2.
 *
 * p is kept an integer: the quotients are rounded down (the paper's are
 * real; with an integer p its test |T1| = p means what it says).
 */
#include "hitratio.h"
#include "sim_list.h"

enum { T1 = 1, T2, B1, B2 };

struct arc {
	struct sl_node *n;
	struct sl_queue t1, t2, b1, b2;
	uint32_t c, p;
};

/* REPLACE: evict one cached key into its ghost; return it. */
static uint32_t arc_replace(struct arc *a, int in_b2)
{
	uint32_t v;

	if (a->t1.size && (a->t1.size > a->p || (in_b2 && a->t1.size == a->p))) {
		v = sl_pop(a->n, &a->t1);
		sl_push(a->n, &a->b1, v);
	} else if (a->t2.size) {
		v = sl_pop(a->n, &a->t2);
		sl_push(a->n, &a->b2, v);
	} else {
		/* Not reached when the cache is full (see the paper); be safe. */
		v = sl_pop(a->n, &a->t1);
		sl_push(a->n, &a->b1, v);
	}
	return v;
}

static uint32_t max1(uint32_t num, uint32_t den)
{
	uint32_t q = den ? num / den : 1;

	return q > 1 ? q : 1;
}

uint64_t hr_sim_arc_log(const struct hr_trace *t, uint32_t cap, struct hr_sim_log *log)
{
	struct arc a = { .n = sl_nodes(t->nr_keys), .c = cap };
	uint64_t i, hits = 0;

	if (!a.n)
		return UINT64_MAX;
	sl_init(&a.t1, T1);
	sl_init(&a.t2, T2);
	sl_init(&a.b1, B1);
	sl_init(&a.b2, B2);
	for (i = 0; i < t->n; i++) {
		uint32_t k = t->idx[i], victim = HR_NO_VICTIM, d;
		uint8_t q = a.n[k].q;

		if (q == T1 || q == T2) {
			hits++;
			sl_del(a.n, q == T1 ? &a.t1 : &a.t2, k);
			sl_push(a.n, &a.t2, k);
		} else if (q == B1) {
			d = max1(a.b2.size, a.b1.size);
			a.p = a.p + d > a.c ? a.c : a.p + d;
			victim = arc_replace(&a, 0);
			sl_del(a.n, &a.b1, k);
			sl_push(a.n, &a.t2, k);
		} else if (q == B2) {
			d = max1(a.b1.size, a.b2.size);
			a.p = a.p > d ? a.p - d : 0;
			victim = arc_replace(&a, 1);
			sl_del(a.n, &a.b2, k);
			sl_push(a.n, &a.t2, k);
		} else {
			uint32_t l1 = a.t1.size + a.b1.size;
			uint32_t all = l1 + a.t2.size + a.b2.size;

			if (l1 == a.c) {
				if (a.t1.size < a.c) {
					sl_pop(a.n, &a.b1);
					victim = arc_replace(&a, 0);
				} else {
					victim = sl_pop(a.n, &a.t1);
				}
			} else if (all >= a.c) {
				if (all == 2 * a.c)
					sl_pop(a.n, &a.b2);
				victim = arc_replace(&a, 0);
			}
			sl_push(a.n, &a.t1, k);
		}
		hr_sim_note(log, i, q == T1 || q == T2, victim);
	}
	free(a.n);
	return hits;
}

uint64_t hr_sim_arc(const struct hr_trace *t, uint32_t cap)
{
	return hr_sim_arc_log(t, cap, NULL);
}
