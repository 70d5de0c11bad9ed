// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_2q.c - full 2Q (T. Johnson and D. Shasha, "2Q: A Low Overhead High
 * Performance Buffer Management Replacement Algorithm", VLDB 1994), as the
 * paper's description has it:
 *
 * - A1in: FIFO of keys on their first reference, at most Kin before it
 *   gives up slots; A1out: FIFO ghost (keys only) of what left A1in, at
 *   most Kout; Am: LRU of keys referenced again after they left A1in.
 * - A hit in Am moves the key to its head; a hit in A1in changes nothing
 *   (correlated references of a first use do not make a key hot).
 * - A miss found in A1out goes to the head of Am; any other miss to the
 *   head of A1in.  Either first reclaims a slot when the cache is full: the
 *   tail of A1in (its key to the head of A1out, whose tail is dropped when
 *   it is longer than Kout) if A1in holds more than Kin keys, else the tail
 *   of Am (not remembered).
 *
 * Kin = 25% and Kout = 50% of the slots (the paper's tuning), each at least
 * one.  With Am empty while A1in holds at most Kin keys (a cache of one or
 * two slots) the tail of A1in goes, as above.
 */
#include "hitratio.h"
#include "sim_list.h"

enum { A1IN = 1, A1OUT, AM };

uint64_t hr_sim_2q_log(const struct hr_trace *t, uint32_t cap, struct hr_sim_log *log)
{
	struct sl_node *n = sl_nodes(t->nr_keys);
	struct sl_queue in, out, am;
	uint32_t kin = cap / 4 ? cap / 4 : 1, kout = cap / 2 ? cap / 2 : 1;
	uint64_t i, hits = 0;

	if (!n)
		return UINT64_MAX;
	sl_init(&in, A1IN);
	sl_init(&out, A1OUT);
	sl_init(&am, AM);
	for (i = 0; i < t->n; i++) {
		uint32_t k = t->idx[i], victim = HR_NO_VICTIM;
		uint8_t q = n[k].q;

		if (q == AM) {
			hits++;
			sl_del(n, &am, k);
			sl_push(n, &am, k);
		} else if (q == A1IN) {
			hits++;
		} else {
			if (q == A1OUT)
				sl_del(n, &out, k);
			if (in.size + am.size == cap) {
				if (in.size > kin || !am.size) {
					victim = sl_pop(n, &in);
					sl_push(n, &out, victim);
					if (out.size > kout)
						sl_pop(n, &out);
				} else {
					victim = sl_pop(n, &am);
				}
			}
			sl_push(n, q == A1OUT ? &am : &in, k);
		}
		hr_sim_note(log, i, q == AM || q == A1IN, victim);
	}
	free(n);
	return hits;
}

uint64_t hr_sim_2q(const struct hr_trace *t, uint32_t cap)
{
	return hr_sim_2q_log(t, cap, NULL);
}
