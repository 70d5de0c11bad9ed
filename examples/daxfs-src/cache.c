// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cache.c - the mmap backend's window and the cache over it, configured by
 * --policy.
 */
#include "daxfs.h"

#include <string.h>

struct dc_mmapbe *dfs_be;
struct dc_cache *dfs_cache;
/* The mmap backend's ops, which daxfs's writeback falls back on. */
const struct dc_backend_ops *dfs_be_ops;
/* dc_map() flags of every access: DC_MAP_MAY_BYPASS under the default policy. */
unsigned int dfs_map_flags;

/*
 * The window is reserved before the daemonizing fork, so that a bad size is
 * reported on the terminal; it is only address space, which fork() copies.
 */
int dfs_window_reserve(void)
{
	struct dc_mmapbe_config cfg = {
		.window_size = dfs_opt.window_size,
		.range_shift = dfs_opt.range_shift,
	};
	int err = dc_mmapbe_create(&cfg, sizeof(cfg), &dfs_be);

	if (err)
		fprintf(stderr, "daxfs: mmap backend: %s\n", strerror(-err));
	return err;
}

/*
 * The cache is created after fuse_daemonize(), in the process that serves
 * requests.  (The library starts its threads on first use, so a cache made
 * before the fork would work too; a program that forks once the cache has
 * run must bracket fork() with dc_before_fork() and dc_after_fork_*().)
 */
int dfs_cache_start(void)
{
	struct dc_cache_config cfg;
	struct dc_backend_ops ops;
	int err;

	dc_cache_config_init(&cfg, sizeof(cfg), dfs_opt.window_size);
	cfg.range_shift = dfs_opt.range_shift;
	/*
	 * The older policies map every miss, as they always did; the default
	 * one lets admission control answer DC_MAP_BYPASS (read it directly).
	 */
	cfg.admit = DC_ADMIT_ALWAYS;
	if (!strcmp(dfs_opt.policy, "2019")) {
		/* That code sent one REMOVEMAPPING per range it reclaimed. */
		cfg.flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_REMOVE_ON_INLINE;
		cfg.remove_batch_max = 1;
	} else if (!strcmp(dfs_opt.policy, "seed000")) {
		cfg.flags = 0;
		cfg.victim = DC_VICTIM_ROUND_ROBIN;
	} else if (!strcmp(dfs_opt.policy, "upstream")) {
		/*
		 * Upstream Linux kicks its background reclaimer on every
		 * allocation below the threshold, and sends REMOVEMAPPING on
		 * inline reclaim too, one per range reclaimed.
		 */
		cfg.flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_INLINE_OWN_ONLY |
			    DC_CACHE_REMOVE_ON_INLINE;
		cfg.victim = DC_VICTIM_ROUND_ROBIN;
		cfg.remove_batch_max = 1;
	} else {
		cfg.admit = DC_ADMIT_FREQ;
		/*
		 * A setup is the mmap backend's mmap(MAP_FIXED) over the old
		 * mapping and the page faults of its first touches, where a
		 * bypassed read is one pread() of the backing file
		 * (--setup-cost, default DAXFS_SETUP_COST).
		 */
		cfg.admit_setup_cost = (unsigned int)dfs_opt.setup_cost;
		/*
		 * The eviction budget: with this backend a hit saves one
		 * pread() (the data is copied either way) while a setup is an
		 * mmap() over the old mapping, then a page fault on each page
		 * read (as much as about 18 pread()s under fio's random 4 KiB
		 * reads), so where reads spread evenly over more than the
		 * window an eviction that the contest admits by chance is a
		 * loss; at most one per --evict-interval references (0: none).
		 */
		cfg.admit_evict_interval = (unsigned int)dfs_opt.evict_interval;
		dfs_map_flags = DC_MAP_MAY_BYPASS;
	}
	dfs_be_ops = dc_mmapbe_ops();
	ops = *dfs_be_ops;
	ops.writeback = dfs_pool_writeback;
	err = dc_cache_create(&cfg, sizeof(cfg), &ops, sizeof(ops), dfs_be, &dfs_cache);
	if (err) {
		fprintf(stderr, "daxfs: cache: %s\n", strerror(-err));
		return err;
	}
	return 0;
}
