// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_mem.c - section 0: bytes of library metadata per window range,
 * per mapped range and per inode, from what the allocator really handed
 * out.
 *
 * Measured as the growth of the heap in use (glibc's mallinfo2(): bytes
 * in use in every arena, plus mmapped chunks), so it counts every
 * allocation the library makes through dci_alloc() at its real size, with
 * the allocator's own headers and the alignment padding of its
 * cache-line-aligned blocks, not sizeof() of anything.  One thread, RCU
 * callbacks waited for (dc_barrier()) before each reading.
 *
 * - per window range: two caches of different sizes; the difference over
 *   the difference in ranges (the fixed part of a cache is shown apart);
 * - per mapped range: an inode maps M ranges in order (full tree leaves)
 *   and, in another inode, in a random order (leaves about 3/4 full);
 * - per inode: K inodes with one mapping each (its struct, its tree and
 *   that mapping's leaf).
 */
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include <daxcache/thread.h>

#include "bench_cache.h"
#include "bench_util.h"
#include "null_backend.h"

#define MEM_SMALL	4096u		/* ranges */
#define MEM_BIG		65536u
#define MEM_MAPPED	16384u		/* mappings per inode */
#define MEM_INODES	1024u

static int64_t heap_in_use(void)
{
	struct mallinfo2 mi;

	dc_barrier();
	mi = mallinfo2();
	return (int64_t)(mi.uordblks + mi.hblkhd);
}

static void map_range(struct dc_inode *inode, uint64_t index)
{
	struct dc_pin pin;
	int ret = dc_map(inode, index << BENCH_RANGE_SHIFT, 0, &pin);

	if (ret) {
		bench_fail("mem: dc_map of index %" PRIu64 ": %d", index, ret);
		return;
	}
	dc_unpin(&pin);
}

static double cache_bytes(unsigned int nr, struct dc_cache **out)
{
	int64_t before = heap_in_use();

	*out = bench_cache_new(nr, 0, &null_backend_ops, NULL);
	return (double)(heap_in_use() - before);
}

/* Bytes per mapping of @m mappings of one new inode, in order or not. */
static double mapped_bytes(struct dc_cache *c, uint64_t ino, bool shuffled,
			   struct dc_inode **out)
{
	uint64_t *order = malloc(MEM_MAPPED * sizeof(*order)), seed = 42, tmp;
	struct dc_inode *inode;
	int64_t before, after;
	unsigned int i, j;

	if (!order) {
		fprintf(stderr, "bench_cache: out of memory\n");
		exit(1);
	}
	for (i = 0; i < MEM_MAPPED; i++)
		order[i] = i;
	for (i = MEM_MAPPED - 1; shuffled && i > 0; i--) {
		j = (unsigned int)bench_rand_below(&seed, i + 1);
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	before = heap_in_use() - (int64_t)(MEM_MAPPED * sizeof(*order));
	inode = bench_inode_get(c, ino);
	for (i = 0; i < MEM_MAPPED; i++)
		map_range(inode, order[i]);
	free(order);
	after = heap_in_use();
	*out = inode;
	/* The inode itself is counted per inode below. */
	return (double)(after - before) / MEM_MAPPED;
}

void bench_mem(const struct bench_opts *o, struct bench_json *j)
{
	double small, big, per_range, fixed, seq, rnd, per_inode;
	struct dc_inode *a, *b, **many;
	struct dc_cache *cs, *cb;
	struct dc_cache_stats st;
	int64_t before;
	unsigned int i;

	printf("== 0. memory: bytes of library metadata, from the heap in use (mallinfo2) ==\n"
	       "   window range: caches of %u and %u ranges; mapped range: %u mappings of one\n"
	       "   inode in order and in a random order; inode: %u inodes of one mapping each\n\n",
	       MEM_SMALL, MEM_BIG, MEM_MAPPED, MEM_INODES);
	small = cache_bytes(MEM_SMALL, &cs);
	big = cache_bytes(MEM_BIG, &cb);
	per_range = (big - small) / (MEM_BIG - MEM_SMALL);
	fixed = small - per_range * MEM_SMALL;
	bench_cache_done(cs, "mem small cache");

	seq = mapped_bytes(cb, 1, false, &a);
	rnd = mapped_bytes(cb, 2, true, &b);

	many = calloc(MEM_INODES, sizeof(*many));
	if (!many) {
		fprintf(stderr, "bench_cache: out of memory\n");
		exit(1);
	}
	before = heap_in_use() - (int64_t)(MEM_INODES * sizeof(*many));
	for (i = 0; i < MEM_INODES; i++) {
		many[i] = bench_inode_get(cb, 100 + i);
		map_range(many[i], 2 * MEM_MAPPED + i);
	}
	per_inode = (double)(heap_in_use() - before) / MEM_INODES;
	bench_stats(cb, &st);
	if (st.nr_mapped != 2 * MEM_MAPPED + MEM_INODES || st.inline_reclaims ||
	    st.bg_reclaims)
		bench_fail("mem: %" PRIu64 " mapped, %" PRIu64 " reclaims; expected %u and none",
			   st.nr_mapped, st.inline_reclaims + st.bg_reclaims,
			   2 * MEM_MAPPED + MEM_INODES);
	for (i = 0; i < MEM_INODES; i++)
		dc_inode_put(many[i]);
	free(many);
	dc_inode_put(a);
	dc_inode_put(b);
	bench_cache_done(cb, "mem big cache");

	printf("%-44s %10.1f\n", "bytes per window range", per_range);
	printf("%-44s %10.0f\n", "bytes per cache, fixed part", fixed);
	printf("%-44s %10.1f\n", "bytes per mapped range, mapped in order", seq);
	printf("%-44s %10.1f\n", "bytes per mapped range, in a random order", rnd);
	printf("%-44s %10.1f\n", "bytes per inode with one mapping",
	       per_inode);
	printf("%-44s %10.1f\n", "window + mapped range (random order)",
	       per_range + rnd);
	printf("goal: at most 64 bytes per range: window range %s, mapped range %s\n",
	       per_range <= 64 ? "met" : "NOT met",
	       seq <= 64 && rnd <= 64 ? "met" : "NOT met");
	printf("   (a window range is a range object of one cache line, so that hits on\n"
	       "   different ranges share no line, and admission state)\n");
	printf("goal: window + mapped range at most 128 bytes: %s\n\n",
	       per_range + rnd <= 128 ? "met" : "NOT met");
	bench_json_addf(j, per_range, "mem/window_range_bytes");
	bench_json_addf(j, fixed, "mem/cache_fixed_bytes");
	bench_json_addf(j, seq, "mem/mapped_range_bytes/in_order");
	bench_json_addf(j, rnd, "mem/mapped_range_bytes/random");
	bench_json_addf(j, per_inode, "mem/inode_bytes");
	fflush(stdout);
	(void)o;
}
