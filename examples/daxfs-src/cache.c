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
 * The default policy: admission control.  A read miss that would evict a
 * mapping is mapped only when the cache's rule admits it, else answered
 * DC_MAP_BYPASS and read with pread() (dfs_map_flags); writes are all
 * pwrite()s (see write_window()).
 */
static void policy_default(struct dc_cache_config *cfg)
{
	cfg->admit = DC_ADMIT_FREQ;
	/*
	 * A setup is the mmap backend's mmap(MAP_FIXED) over the old
	 * mapping and the page faults of its first touches, where a
	 * bypassed read is one pread() of the backing file
	 * (--setup-cost, default DAXFS_SETUP_COST).
	 */
	cfg->admit_setup_cost = (unsigned int)dfs_opt.setup_cost;
	/*
	 * The eviction budget: with this backend a hit saves one
	 * pread() (the data is copied either way) while a setup is an
	 * mmap() over the old mapping, then a page fault on each page
	 * read (as much as about 18 pread()s under fio's random 4 KiB
	 * reads), so where reads spread evenly over more than the
	 * window an eviction that the contest admits by chance is a
	 * loss; at most one per --evict-interval references (0: none).
	 */
	cfg->admit_evict_interval = (unsigned int)dfs_opt.evict_interval;
	dfs_map_flags = DC_MAP_MAY_BYPASS;
}

/*
 * bg-first: every miss mapped.  A miss that takes the free pool below the
 * reclaim threshold, or finds it empty, kicks the background reclaimer
 * before any inline reclaim; a range reclaimed inline is removed before
 * its reuse, one remove() per range; CLOCK victims (the library's default:
 * a second chance for a range hit since the hand passed).
 */
static void policy_bg_first(struct dc_cache_config *cfg)
{
	cfg->flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_REMOVE_ON_INLINE;
	cfg->remove_batch_max = 1;
}

/*
 * inline-first: every miss mapped.  Once no range is free, a miss reclaims
 * an idle one inline and reuses it without a remove() (the new mapping
 * replaces the old), and kicks no background reclaim (docs/design.md,
 * "Allocation order"); round-robin victims.
 */
static void policy_inline_first(struct dc_cache_config *cfg)
{
	cfg->flags = 0;
	cfg->victim = DC_VICTIM_ROUND_ROBIN;
}

/*
 * upstream: every miss mapped, as Linux's FUSE DAX code does it: the
 * background reclaimer kicked on every allocation below the threshold,
 * inline reclaim only from the mapping inode, with a remove() before the
 * reuse, one per range; round-robin victims.
 */
static void policy_upstream(struct dc_cache_config *cfg)
{
	cfg->flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_INLINE_OWN_ONLY |
		     DC_CACHE_REMOVE_ON_INLINE;
	cfg->victim = DC_VICTIM_ROUND_ROBIN;
	cfg->remove_batch_max = 1;
}

/*
 * The values of --policy.  @alias is another name each still takes (the
 * one scripts and benchmark results use); .daxfs-stats shows @name.
 */
static const struct dfs_policy {
	const char *name;
	const char *alias;
	void (*config)(struct dc_cache_config *cfg);
} policies[] = {
	{ "default", NULL, policy_default },
	{ "bg-first", "2019", policy_bg_first },
	{ "inline-first", "seed000", policy_inline_first },
	{ "upstream", NULL, policy_upstream },
};

static const struct dfs_policy *policy_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (!strcmp(name, policies[i].name) ||
		    (policies[i].alias && !strcmp(name, policies[i].alias)))
			return &policies[i];
	return NULL;
}

/* The name of the policy @name (a name or an alias) stands for, or NULL. */
const char *dfs_policy_name(const char *name)
{
	const struct dfs_policy *p = policy_find(name);

	return p ? p->name : NULL;
}

/*
 * The cache is created after the daemonizing fork (daemon_begin()), in the
 * process that serves requests.  (The library starts its threads on first
 * use, so a cache made before the fork would work too; a program that
 * forks once the cache has run must bracket fork() with dc_before_fork()
 * and dc_after_fork_*().)
 */
int dfs_cache_start(void)
{
	struct dc_cache_config cfg;
	struct dc_backend_ops ops;
	int err;

	dc_cache_config_init(&cfg, sizeof(cfg), dfs_opt.window_size);
	cfg.range_shift = dfs_opt.range_shift;
	/*
	 * Every miss is mapped, unless the policy lets admission control
	 * answer DC_MAP_BYPASS (the access is then served without the window).
	 */
	cfg.admit = DC_ADMIT_ALWAYS;
	policy_find(dfs_opt.policy)->config(&cfg);
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
