/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sim_list.h - doubly linked queues over dense keys for the offline
 * simulators: one node per key (keys are range indices below nr_keys), each
 * key on at most one queue at a time, the queue it is on recorded in the
 * node.  Head is the newest end, tail the oldest.
 */
#ifndef BENCH_HITRATIO_SIM_LIST_H
#define BENCH_HITRATIO_SIM_LIST_H

#include <stdint.h>
#include <stdlib.h>

#define SL_NIL		UINT32_MAX
#define SL_NONE		0	/* the queue id of a key on no queue */

struct sl_node {
	uint32_t prev, next;	/* prev: towards the tail; next: towards the head */
	uint8_t q;		/* queue id, SL_NONE when on none */
	uint8_t bit;		/* the policy's own mark (visited, frequency) */
};

struct sl_queue {
	uint32_t head, tail, size;
	uint8_t id;
};

static inline struct sl_node *sl_nodes(uint32_t nr_keys)
{
	return calloc(nr_keys ? nr_keys : 1, sizeof(struct sl_node));
}

static inline void sl_init(struct sl_queue *q, uint8_t id)
{
	q->head = SL_NIL;
	q->tail = SL_NIL;
	q->size = 0;
	q->id = id;
}

/* Take @k off @q (it must be on it). */
static inline void sl_del(struct sl_node *n, struct sl_queue *q, uint32_t k)
{
	struct sl_node *x = &n[k];

	if (x->prev != SL_NIL)
		n[x->prev].next = x->next;
	else
		q->tail = x->next;
	if (x->next != SL_NIL)
		n[x->next].prev = x->prev;
	else
		q->head = x->prev;
	x->q = SL_NONE;
	q->size--;
}

/* Put @k (on no queue) at the head of @q. */
static inline void sl_push(struct sl_node *n, struct sl_queue *q, uint32_t k)
{
	struct sl_node *x = &n[k];

	x->next = SL_NIL;
	x->prev = q->head;
	if (q->head != SL_NIL)
		n[q->head].next = k;
	else
		q->tail = k;
	q->head = k;
	x->q = q->id;
	q->size++;
}

/* Take the tail of @q off it and return it (@q must not be empty). */
static inline uint32_t sl_pop(struct sl_node *n, struct sl_queue *q)
{
	uint32_t k = q->tail;

	sl_del(n, q, k);
	return k;
}

#endif /* BENCH_HITRATIO_SIM_LIST_H */
