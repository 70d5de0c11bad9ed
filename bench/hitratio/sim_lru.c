// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_lru.c - exact LRU: a table from key to node (keys are dense range
 * indices below nr_keys, so the table is a perfect hash) and a doubly linked
 * recency list, most recent at the head.
 */
#include <stdlib.h>

#include "hitratio.h"

#define NIL	UINT32_MAX

struct lru_node {
	uint32_t prev, next;
	uint8_t present;
};

struct lru {
	struct lru_node *node;
	uint32_t head, tail;	/* most and least recently used */
	uint32_t size;
};

static void lru_unlink(struct lru *l, uint32_t k)
{
	struct lru_node *n = &l->node[k];

	if (n->prev != NIL)
		l->node[n->prev].next = n->next;
	else
		l->head = n->next;
	if (n->next != NIL)
		l->node[n->next].prev = n->prev;
	else
		l->tail = n->prev;
}

static void lru_push_head(struct lru *l, uint32_t k)
{
	struct lru_node *n = &l->node[k];

	n->prev = NIL;
	n->next = l->head;
	if (l->head != NIL)
		l->node[l->head].prev = k;
	else
		l->tail = k;
	l->head = k;
}

uint64_t hr_sim_lru(const struct hr_trace *t, uint32_t cap)
{
	struct lru l = { .head = NIL, .tail = NIL };
	uint64_t i, hits = 0;

	l.node = calloc(t->nr_keys, sizeof(*l.node));
	if (!l.node)
		return UINT64_MAX;
	for (i = 0; i < t->n; i++) {
		uint32_t k = t->idx[i];

		if (l.node[k].present) {
			hits++;
			lru_unlink(&l, k);
		} else {
			if (l.size == cap) {
				uint32_t victim = l.tail;

				lru_unlink(&l, victim);
				l.node[victim].present = 0;
				l.size--;
			}
			l.node[k].present = 1;
			l.size++;
		}
		lru_push_head(&l, k);
	}
	free(l.node);
	return hits;
}
