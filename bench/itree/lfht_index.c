/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lfht_index.c - exact-start index on liburcu's rculfhash, memb flavour.
 *
 * _LGPL_SOURCE inlines the read-side lock, as libdaxcache's platform layer
 * does, so the comparison with the interval tree is like for like.
 */
#define _LGPL_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <urcu/urcu-memb.h>
#include <urcu/rculfhash.h>

#include "lfht_index.h"

struct lfht_entry {
	struct cds_lfht_node node;
	uint64_t start;
	void *item;
	struct rcu_head rcu;
};

struct lfht_index {
	struct cds_lfht *ht;
};

/*
 * Fibonacci hashing, folded: the table picks buckets from the low bits, and
 * the bench's starts are all multiples of four, so the well-mixed high half
 * of the product is folded into the low half.
 */
static unsigned long hash_start(uint64_t start)
{
	uint64_t h = start * 0x9e3779b97f4a7c15ull;

	return (unsigned long)(h ^ (h >> 32));
}

static struct lfht_entry *to_entry(struct cds_lfht_node *node)
{
	return caa_container_of(node, struct lfht_entry, node);
}

static int match_start(struct cds_lfht_node *node, const void *key)
{
	return to_entry(node)->start == *(const uint64_t *)key;
}

static void free_entry(struct rcu_head *head)
{
	free(caa_container_of(head, struct lfht_entry, rcu));
}

struct lfht_index *lfht_index_create(uint64_t expected)
{
	struct lfht_index *idx = malloc(sizeof(*idx));
	unsigned long buckets = 1;

	if (!idx)
		return NULL;
	while (buckets < expected)
		buckets <<= 1;
	idx->ht = cds_lfht_new_flavor(buckets, 1, 0,
				      CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING,
				      &urcu_memb_flavor, NULL);
	if (!idx->ht) {
		free(idx);
		return NULL;
	}
	return idx;
}

void lfht_index_destroy(struct lfht_index *idx)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	/* Not cds_lfht_for_each_entry: it applies container_of to NULL. */
	urcu_memb_read_lock();
	cds_lfht_for_each(idx->ht, &iter, node)
		if (!cds_lfht_del(idx->ht, node))
			urcu_memb_call_rcu(&to_entry(node)->rcu, free_entry);
	urcu_memb_read_unlock();
	if (cds_lfht_destroy(idx->ht, NULL))
		fprintf(stderr, "lfht_index: table not empty, leaking it\n");
	free(idx);
	urcu_memb_barrier();
}

int lfht_index_add(struct lfht_index *idx, uint64_t start, void *item)
{
	struct lfht_entry *e = malloc(sizeof(*e));
	struct cds_lfht_node *got;

	if (!e)
		return -ENOMEM;
	cds_lfht_node_init(&e->node);
	e->start = start;
	e->item = item;
	urcu_memb_read_lock();
	got = cds_lfht_add_unique(idx->ht, hash_start(start), match_start,
				  &start, &e->node);
	urcu_memb_read_unlock();
	if (got != &e->node) {
		free(e);
		return -EEXIST;
	}
	return 0;
}

int lfht_index_del(struct lfht_index *idx, uint64_t start)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	int ret = -ENOENT;

	urcu_memb_read_lock();
	cds_lfht_lookup(idx->ht, hash_start(start), match_start, &start,
			&iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node && !cds_lfht_del(idx->ht, node)) {
		urcu_memb_call_rcu(&to_entry(node)->rcu, free_entry);
		ret = 0;
	}
	urcu_memb_read_unlock();
	return ret;
}

void *lfht_index_lookup(struct lfht_index *idx, uint64_t start)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	void *item = NULL;

	urcu_memb_read_lock();
	cds_lfht_lookup(idx->ht, hash_start(start), match_start, &start,
			&iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node)
		item = to_entry(node)->item;
	urcu_memb_read_unlock();
	return item;
}
