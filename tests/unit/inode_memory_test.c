// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * inode_memory_test.c - what an inode costs does not depend on how far
 * into its file it maps.  An inode with one mapping near the start of its
 * file and one with a mapping at index 2^20 - 1 take about the same heap:
 * a mapping's links live in its range object and the cache's mapping
 * table (a hint directory that grew with the largest index once took 128
 * KiB more for the far mapping).  Measured with mallinfo2() (the heap in
 * use, each allocation at its real size); under a sanitizer or valgrind,
 * whose allocators mallinfo2() does not see, only the maps and hits are
 * checked (the plain build checks the sizes).
 * Public headers and the shared library only.
 */
#include "config.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/daxcache.h>
#include <daxcache/simbe.h>

#include "ok_check.h"

#define RANGE_SHIFT	16
#define NR_RANGES	16
#define FAR_INDEX	((1ull << 20) - 1)
/* More than two inodes' structs could differ by. */
#define SLACK		4096

static int64_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (int64_t)mi.uordblks + (int64_t)mi.hblkhd;
}

/* Whether mallinfo2() sees this process's allocations. */
static bool heap_visible(void)
{
	int64_t before = heap_in_use();
	/* volatile: the compiler may not drop the allocation. */
	char *volatile p = malloc(1 << 16);
	bool seen;

	if (!p)
		return false;
	seen = heap_in_use() - before >= (1 << 16);
	free(p);
	return seen;
}

/*
 * Heap taken by a new inode @ino with one mapping at @index (pinned, then
 * unpinned: the mapping stays), which *@out keeps.
 */
static int64_t one_mapping(struct dc_cache *cache, uint64_t ino, uint64_t index,
			   struct dc_inode **out)
{
	int64_t before = heap_in_use();
	struct dc_pin pin;
	int ret;

	ret = dc_inode_get(cache, ino, out);
	check(ret == 0, "dc_inode_get", ret);
	if (ret)
		return 0;
	ret = dc_map(*out, index << RANGE_SHIFT, DC_MAP_READ, &pin);
	check(ret == 0, "dc_map", ret);
	if (ret)
		return 0;
	dc_unpin(&pin);
	/* A hit, through whatever the miss left for it. */
	ret = dc_map(*out, index << RANGE_SHIFT, DC_MAP_READ, &pin);
	check(ret == 0 && pin.len == (1u << RANGE_SHIFT), "the mapping hits", ret);
	if (!ret)
		dc_unpin(&pin);
	return heap_in_use() - before;
}

int main(void)
{
	struct dc_simbe_config bcfg;
	struct dc_cache_config cfg;
	struct dc_inode *near, *far, *near2;
	int64_t near_bytes, far_bytes, near2_bytes;
	struct dc_cache_stats st;
	struct dc_simbe *be;
	struct dc_cache *cache;
	bool visible;

	visible = heap_visible();
	dc_simbe_config_init(&bcfg, sizeof(bcfg), NR_RANGES << RANGE_SHIFT);
	bcfg.range_shift = RANGE_SHIFT;
	dc_cache_config_init(&cfg, sizeof(cfg), NR_RANGES << RANGE_SHIFT);
	cfg.range_shift = RANGE_SHIFT;
	if (dc_simbe_create(&bcfg, sizeof(bcfg), &be) ||
	    dc_cache_create(&cfg, sizeof(cfg), dc_simbe_ops(),
			    sizeof(struct dc_backend_ops), be, &cache)) {
		printf("inode-memory: setup failed\n");
		return 1;
	}
	/* The first inode's costs include whatever the cache allocates once. */
	near_bytes = one_mapping(cache, 1, 0, &near);
	near2_bytes = one_mapping(cache, 2, 100, &near2);
	far_bytes = one_mapping(cache, 3, FAR_INDEX, &far);
	printf("# heap per inode with one mapping: index 0 %" PRId64 " (the first), index 100 %"
	       PRId64 ", index %llu %" PRId64 " bytes\n", near_bytes, near2_bytes,
	       (unsigned long long)FAR_INDEX, far_bytes);
	if (visible)
		check(far_bytes <= near2_bytes + SLACK,
		      "an inode mapping its index 2^20 - 1 takes no more than one mapping index 100",
		      (long)(far_bytes - near2_bytes));
	else
		printf("# mallinfo2() does not see this allocator (a sanitizer or valgrind): sizes not checked\n");
	memset(&st, 0, sizeof(st));
	check(!dc_cache_stats(cache, &st, sizeof(st)) && st.hits == 3 && st.misses == 3,
	      "three misses and three hits", (long)st.hits);
	dc_inode_put(near);
	dc_inode_put(near2);
	dc_inode_put(far);
	dc_cache_destroy(cache);
	dc_simbe_destroy(be);
	return ok_summary("inode-memory");
}
