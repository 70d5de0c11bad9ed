// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_s3fifo.c - S3-FIFO (J. Yang, Y. Zhang, Z. Qiu, Y. Yue and R. Vinayak,
 * "FIFO Queues are All You Need for Cache Eviction", SOSP 2023), as the
 * paper's description has it:
 *
 * - Three FIFO queues: S, the small one, where new keys enter; M, the main
 *   one; G, a ghost of keys evicted from S (keys only, as many as M's
 *   share of the slots).  Each cached key has a frequency of 0 to 3.
 * - A hit adds one to the key's frequency (at most 3); nothing moves.
 * - A miss found in G enters M (and leaves G), any other enters S, with
 *   frequency 0, after a key is evicted when the cache is full:
 * - Eviction takes from S while S holds at least 10% of the slots, else
 *   from M.  S's tail goes to M's head (frequency cleared) when it was hit
 *   while in S, and is evicted into G otherwise.  M's tail with a non-zero
 *   frequency goes back to M's head with one less, and is evicted when it
 *   is zero.  Both repeat until one key was evicted.
 *
 * The size of S is compared as the paper does, |S| >= 0.1 c, so S holds
 * ceil(c / 10) keys before it gives one up; G holds at most c - ceil(c / 10)
 * keys (none for c = 1) and drops its oldest.
 */
#include "hitratio.h"
#include "sim_list.h"

enum { QS = 1, QM, QG };

#define FREQ_MAX	3

uint64_t hr_sim_s3fifo_log(const struct hr_trace *t, uint32_t cap, struct hr_sim_log *log)
{
	struct sl_node *n = sl_nodes(t->nr_keys);
	uint32_t gcap = cap - (cap + 9) / 10;
	struct sl_queue s, m, g;
	uint64_t i, hits = 0;

	if (!n)
		return UINT64_MAX;
	sl_init(&s, QS);
	sl_init(&m, QM);
	sl_init(&g, QG);
	for (i = 0; i < t->n; i++) {
		uint32_t k = t->idx[i], victim = HR_NO_VICTIM, v;
		uint8_t q = n[k].q;

		if (q == QS || q == QM) {
			hits++;
			if (n[k].bit < FREQ_MAX)
				n[k].bit++;
			goto logged;
		}
		if (q == QG)
			sl_del(n, &g, k);
		while (victim == HR_NO_VICTIM && s.size + m.size == cap) {
			if (10ull * s.size >= cap || !m.size) {
				v = sl_pop(n, &s);
				if (n[v].bit) {
					n[v].bit = 0;
					sl_push(n, &m, v);
					continue;
				}
				victim = v;
				if (gcap) {
					sl_push(n, &g, v);
					if (g.size > gcap)
						sl_pop(n, &g);
				}
			} else {
				v = sl_pop(n, &m);
				if (n[v].bit) {
					n[v].bit--;
					sl_push(n, &m, v);
					continue;
				}
				victim = v;
			}
		}
		n[k].bit = 0;
		sl_push(n, q == QG ? &m : &s, k);
logged:
		hr_sim_note(log, i, q == QS || q == QM, victim);
	}
	free(n);
	return hits;
}

uint64_t hr_sim_s3fifo(const struct hr_trace *t, uint32_t cap)
{
	return hr_sim_s3fifo_log(t, cap, NULL);
}
