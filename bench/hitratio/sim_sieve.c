// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_sieve.c - SIEVE (Y. Zhang, J. Yang, Y. Yue, Y. Vigfusson and K. V.
 * Rashmi, "SIEVE is Simpler than LRU: an Efficient Turn-Key Eviction
 * Algorithm for Web Caches", NSDI 2024), as the paper's description has it:
 *
 * - One FIFO queue: new keys enter at its head with the visited bit clear;
 *   a hit sets the key's bit and moves nothing.
 * - The hand starts at the tail (the oldest key).  To evict, it moves from
 *   where it is towards the head, clearing set bits, wrapping to the tail
 *   past the head, and evicts the first key whose bit is clear; it then
 *   rests on the key after it (towards the head; none: the tail next time).
 *
 * Unlike CLOCK, a key that survives stays where it is among older keys,
 * and a new key is not placed where the hand just was: it waits at the head
 * until the hand has gone through every key older than it.
 */
#include "hitratio.h"
#include "sim_list.h"

enum { QUEUE = 1 };

uint64_t hr_sim_sieve_log(const struct hr_trace *t, uint32_t cap, struct hr_sim_log *log)
{
	struct sl_node *n = sl_nodes(t->nr_keys);
	uint32_t hand = SL_NIL;
	struct sl_queue q;
	uint64_t i, hits = 0;

	if (!n)
		return UINT64_MAX;
	sl_init(&q, QUEUE);
	for (i = 0; i < t->n; i++) {
		uint32_t k = t->idx[i], victim = HR_NO_VICTIM, o;
		int hit = n[k].q == QUEUE;

		if (hit) {
			hits++;
			n[k].bit = 1;
		} else {
			if (q.size == cap) {
				o = hand != SL_NIL ? hand : q.tail;
				while (n[o].bit) {
					n[o].bit = 0;
					o = n[o].next != SL_NIL ? n[o].next : q.tail;
				}
				hand = n[o].next;
				sl_del(n, &q, o);
				victim = o;
			}
			n[k].bit = 0;
			sl_push(n, &q, k);
		}
		hr_sim_note(log, i, hit, victim);
	}
	free(n);
	return hits;
}

uint64_t hr_sim_sieve(const struct hr_trace *t, uint32_t cap)
{
	return hr_sim_sieve_log(t, cap, NULL);
}
