// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_opt.c - Belady's OPT, the offline limit: on a miss with every slot
 * taken, evict the key whose next use is furthest away (never used again
 * counts as infinitely far).  Next-use times are precomputed backwards; a
 * max-heap keyed by next use holds one entry per access of a cached key,
 * and entries that no longer match the key's current next use are stale and
 * skipped when they reach the top.
 */
#include <stdlib.h>

#include "hitratio.h"

struct heap_ent {
	uint64_t when;	/* next use; UINT64_MAX: never */
	uint32_t key;
};

struct heap {
	struct heap_ent *e;
	uint64_t n;
};

static void heap_swap(struct heap_ent *a, struct heap_ent *b)
{
	struct heap_ent t = *a;

	*a = *b;
	*b = t;
}

static void heap_push(struct heap *h, uint64_t when, uint32_t key)
{
	uint64_t i = h->n++;

	h->e[i].when = when;
	h->e[i].key = key;
	while (i && h->e[(i - 1) / 2].when < h->e[i].when) {
		heap_swap(&h->e[(i - 1) / 2], &h->e[i]);
		i = (i - 1) / 2;
	}
}

static struct heap_ent heap_pop(struct heap *h)
{
	struct heap_ent top = h->e[0];
	uint64_t i = 0;

	h->e[0] = h->e[--h->n];
	for (;;) {
		uint64_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && h->e[l].when > h->e[m].when)
			m = l;
		if (r < h->n && h->e[r].when > h->e[m].when)
			m = r;
		if (m == i)
			break;
		heap_swap(&h->e[m], &h->e[i]);
		i = m;
	}
	return top;
}

uint64_t hr_sim_opt(const struct hr_trace *t, uint32_t cap)
{
	uint64_t *next = malloc(t->n * sizeof(*next));
	uint64_t *last = malloc(t->nr_keys * sizeof(*last));
	uint64_t *cur = malloc(t->nr_keys * sizeof(*cur));	/* next use of a cached key */
	uint8_t *present = calloc(t->nr_keys, 1);
	struct heap h = { .e = malloc((t->n + 1) * sizeof(*h.e)) };
	uint64_t i, hits = UINT64_MAX;
	uint32_t k, size = 0;

	if (!next || !last || !cur || !present || !h.e)
		goto out;
	for (k = 0; k < t->nr_keys; k++)
		last[k] = UINT64_MAX;
	for (i = t->n; i--; ) {
		next[i] = last[t->idx[i]];
		last[t->idx[i]] = i;
	}
	hits = 0;
	for (i = 0; i < t->n; i++) {
		k = t->idx[i];
		if (present[k]) {
			hits++;
		} else {
			if (size == cap) {
				struct heap_ent v;

				/* The top is live once its time is its key's current one. */
				do {
					v = heap_pop(&h);
				} while (!present[v.key] || cur[v.key] != v.when);
				present[v.key] = 0;
				size--;
			}
			present[k] = 1;
			size++;
		}
		cur[k] = next[i];
		heap_push(&h, next[i], k);
	}
out:
	free(next);
	free(last);
	free(cur);
	free(present);
	free(h.e);
	return hits;
}
