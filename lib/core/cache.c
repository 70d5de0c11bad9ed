// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache.c - the cache's lifetime and its statistics (the inode table is
 * cache_inode.c).
 *
 * Owns: the cache object (configuration defaults and checks, creation and
 * destruction, which stops the reclaimer and empties the inode table) and
 * the statistics, summed on read.
 *
 * The top layer (see cache_types.h): it calls admission control, the
 * reclaimer and eviction, the pool and the inode table; no cache file calls
 * it.
 *
 * Locks: the pool spinlock, briefly, for the free and mapped counts of
 * dc_cache_stats() and destroy's orphan list.
 *
 * Callers: the API (<daxcache/cache.h>).
 */
#include "cache_admit.h"
#include "cache_inode.h"
#include "cache_pool.h"
#include "cache_reclaim.h"
#include "cache_victim.h"
#include "struct_size.h"

#define DCI_DEFAULT_RANGE_SHIFT		21
#define DCI_DEFAULT_THRESHOLD_PCT	20
#define DCI_DEFAULT_RECLAIM_BATCH	10
#define DCI_DEFAULT_REMOVE_BATCH_MAX	256
#define DCI_DEFAULT_WAIT_NS		(10ull * 1000000000ull)
#define DCI_MIN_RANGE_SHIFT		12
#define DCI_MAX_RANGE_SHIFT		40
#define DCI_KNOWN_FLAGS	(DC_CACHE_KICK_BG_FIRST | DC_CACHE_REMOVE_ON_INLINE | \
			 DC_CACHE_INLINE_OWN_ONLY | DC_CACHE_WRITEBACK_ALL)

int dc_cache_config_init(struct dc_cache_config *cfg, size_t size,
			 uint64_t window_size)
{
	struct dc_cache_config def;

	memset(&def, 0, sizeof(def));
	def.window_size = window_size;
	def.range_shift = DCI_DEFAULT_RANGE_SHIFT;
	def.reclaim_threshold_pct = DCI_DEFAULT_THRESHOLD_PCT;
	def.reclaim_batch = DCI_DEFAULT_RECLAIM_BATCH;
	def.remove_batch_max = DCI_DEFAULT_REMOVE_BATCH_MAX;
	def.victim = DC_VICTIM_CLOCK;
	def.wait_timeout_ns = DCI_DEFAULT_WAIT_NS;
	def.admit = DC_ADMIT_FREQ;
	def.admit_setup_cost = DC_ADMIT_SETUP_COST_DEFAULT;
	return sized_copy_out(cfg, size, &def, sizeof(def),
			      DC_CACHE_CONFIG_SIZE_VER0);
}
DCI_EXPORT(dc_cache_config_init);

/* The victim policies (struct dci_victim_ops) by cfg.victim, one line each. */
static const struct dci_victim_ops *const victim_policies[] = {
	[DC_VICTIM_CLOCK] = &dci_victim_clock,
	[DC_VICTIM_ROUND_ROBIN] = &dci_victim_round_robin,
	[DC_VICTIM_SIEVE] = &dci_victim_sieve,
};

/* Free what dc_cache_create() allocates, set up or not (zeroed if not). */
static void cache_free(struct dc_cache *c)
{
	dci_admit_fini(c);
	dci_reclaim_fini(c);
	dci_maptab_fini(c);
	dci_pool_free(c->ranges);
	dci_pcounters_destroy(&c->stats);
	dci_free(c);
}

/* Say why a config is refused, and refuse it. */
static int config_invalid(const char *why)
{
	dci_pr_err("dc_cache_create: invalid config: %s", why);
	return -EINVAL;
}

static int config_check(const struct dc_cache_config *cfg,
			const struct dc_backend_ops *ops)
{
	uint64_t nr;

	if (!ops || !ops->setup)
		return config_invalid("backend ops or their setup op missing");
	if (cfg->range_shift < DCI_MIN_RANGE_SHIFT || cfg->range_shift > DCI_MAX_RANGE_SHIFT)
		return config_invalid("range_shift outside 12..40");
	if (!cfg->window_size)
		return config_invalid("window_size is 0: no ranges");
	if (cfg->window_size & ((1ull << cfg->range_shift) - 1))
		return config_invalid("window_size is not a multiple of the range size");
	nr = cfg->window_size >> cfg->range_shift;
	if (nr > (1u << 30))
		return config_invalid("more than 2^30 ranges");
	if (cfg->reclaim_threshold_pct > 100)
		return config_invalid("reclaim_threshold_pct over 100");
	if (!cfg->reclaim_batch)
		return config_invalid("reclaim_batch is 0");
	if (!cfg->remove_batch_max)
		return config_invalid("remove_batch_max is 0");
	if ((unsigned int)cfg->victim >= DCI_ARRAY_SIZE(victim_policies) ||
	    !victim_policies[cfg->victim])
		return config_invalid("unknown victim policy");
	if (cfg->flags & ~DCI_KNOWN_FLAGS)
		return config_invalid("unknown flags");
	if (cfg->admit != DC_ADMIT_ALWAYS && cfg->admit != DC_ADMIT_FREQ)
		return config_invalid("unknown admit policy");
	if (cfg->admit_setup_cost > DC_ADMIT_SETUP_COST_MAX)
		return config_invalid("admit_setup_cost above DC_ADMIT_SETUP_COST_MAX");
	return 0;
}

/*
 * Copy the caller's config and ops, of the sizes it was compiled with, into
 * @cfg and @ops as this library knows them (see struct_size.h).
 */
static int config_copy_in(struct dc_cache_config *cfg,
			  const struct dc_cache_config *ucfg, size_t cfg_size,
			  struct dc_backend_ops *ops,
			  const struct dc_backend_ops *uops, size_t ops_size)
{
	int ret;

	ret = sized_copy_in(cfg, sizeof(*cfg), ucfg, cfg_size,
			    DC_CACHE_CONFIG_SIZE_VER0);
	if (ret == -EINVAL)
		return config_invalid("config size below its first layout");
	if (ret) {
		dci_pr_err("dc_cache_create: config of %zu bytes sets members this library does not know (it has %zu)",
			  cfg_size, sizeof(*cfg));
		return ret;
	}
	/* 0: the caller's layout ends before it, or it asks for the default. */
	if (!cfg->admit_setup_cost)
		cfg->admit_setup_cost = DC_ADMIT_SETUP_COST_DEFAULT;
	if (!uops)
		return config_invalid("backend ops or their setup op missing");
	ret = sized_copy_in(ops, sizeof(*ops), uops, ops_size,
			    DC_BACKEND_OPS_SIZE_VER0);
	if (ret == -EINVAL)
		return config_invalid("backend ops size below its first layout");
	if (ret)
		dci_pr_err("dc_cache_create: backend ops of %zu bytes set ops this library does not know (it has %zu)",
			  ops_size, sizeof(*ops));
	return ret;
}

int dc_cache_create(const struct dc_cache_config *ucfg,
		    size_t cfg_size,
		    const struct dc_backend_ops *uops,
		    size_t ops_size, void *priv,
		    struct dc_cache **out)
{
	const struct dc_cache_config *cfg;
	struct dc_cache_config kcfg;
	struct dc_backend_ops kops;
	struct dc_cache *c;
	int ret;

	if (!ucfg || !out)
		return -EINVAL;
	ret = dci_fork_check(__func__);
	if (ret)
		return ret;
	ret = config_copy_in(&kcfg, ucfg, cfg_size, &kops, uops, ops_size);
	if (ret)
		return ret;
	cfg = &kcfg;
	ret = config_check(cfg, &kops);
	if (ret)
		return ret;
	c = dci_zalloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	ret = dci_pcounters_init(&c->stats, DCI_STAT_NR);
	if (ret) {
		dci_free(c);
		return ret;
	}
	c->cfg = *cfg;
	c->victim = victim_policies[cfg->victim];
	c->ops_copy = kops;
	c->ops = &c->ops_copy;
	c->priv = priv;
	c->range_size = 1ull << cfg->range_shift;
	c->nr_ranges = (unsigned int)(cfg->window_size >> cfg->range_shift);
	/* No batch holds more than every range: the arrays need no more. */
	if (c->cfg.remove_batch_max > c->nr_ranges)
		c->cfg.remove_batch_max = c->nr_ranges;
	c->threshold = (unsigned int)(((uint64_t)c->nr_ranges *
				       cfg->reclaim_threshold_pct) / 100);
	if (!c->threshold)
		c->threshold = 1;
	c->ranges = dci_pool_alloc(c->nr_ranges);
	ret = dci_reclaim_init(c);
	if (!c->ranges || ret) {
		ret = -ENOMEM;
		goto fail_free;
	}
	ret = dci_admit_init(c);
	if (!ret)
		ret = dci_maptab_init(c);
	if (ret)
		goto fail_free;
	dci_pool_init(c);
	ret = dci_inode_table_init(c);
	if (ret)
		goto fail_locks;
	ret = dci_pool_reclaimer_start(c, dci_reclaimer_fn);
	if (ret)
		goto fail_table;
	*out = c;
	return 0;

fail_table:
	dci_inode_table_fini(c);
fail_locks:
	dci_pool_fini(c);
fail_free:
	cache_free(c);
	return ret;
}
DCI_EXPORT(dc_cache_create);

/* Count the pins still held on @c's ranges (destroy only: nothing moves). */
static unsigned int pins_held(struct dc_cache *c)
{
	unsigned int i, n = 0;

	for (i = 0; i < c->nr_ranges; i++)
		if (dci_refcount_read(&c->ranges[i].ref) > 1 ||
		    dci_range_slot_pinned(c, &c->ranges[i]))
			n++;
	return n;
}

int dc_cache_destroy(struct dc_cache *c)
{
	struct dc_inode *inode;
	unsigned long bucket = 0;

	/*
	 * In a child forked unprepared the reclaimer and the call_rcu thread
	 * are gone and a lock may be held: the cache is left to the exit.
	 */
	if (!c || dci_fork_check(__func__))
		return 0;
	/*
	 * Bound every wait for pins from now on, an eviction the reclaimer
	 * is running included (woken to see the deadline), so that pins
	 * never hold up destroy for longer than the documented grace.
	 */
	dci_reclaim_set_deadline(c, dci_now_ns() + DC_DESTROY_PIN_TIMEOUT_NS);
	if (!c->destroying) {
		c->destroying = true;
		dci_pool_reclaimer_stop(c);
		dci_reclaim_evict_deferred(c);
		/* Inodes still referenced: each is reported, then evicted. */
		while ((inode = dci_inode_table_unhash_next(c, &bucket)))
			dci_inode_evict(inode);
	}
	/*
	 * Inodes whose eviction gave up on pins, now or at an earlier call:
	 * once more (the deadline has passed for those of this call, so they
	 * get one pass; pins dropped meanwhile let them go).
	 */
	if (dci_reclaim_evict_orphans(c)) {
		/*
		 * The orphans keep their pinned mappings, and the cache stays
		 * allocated: a dc_unpin() may still come, and it touches the
		 * range and the cache.  A misuse: counted for dc_warn_count(),
		 * and said by every call that finds it.
		 */
		dci_plat_warn_note();
		dci_pr_err("%s: %u mappings still pinned after %llu ms; the cache is left allocated until %s() is called again after their dc_unpin()",
			  __func__, pins_held(c),
			  (unsigned long long)(DC_DESTROY_PIN_TIMEOUT_NS / 1000000),
			  __func__);
		return -EBUSY;
	}
	/* Inodes and tree nodes are freed through RCU callbacks. */
	dci_rcu_barrier();
	dci_warn_once(dci_pool_nr_free(c) != c->nr_ranges, "ranges lost: %u free of %u",
		     dci_pool_nr_free(c), c->nr_ranges);
	dci_inode_table_fini(c);
	dci_pool_fini(c);
	cache_free(c);
	return 0;
}
DCI_EXPORT(dc_cache_destroy);

uint64_t dc_cache_range_size(const struct dc_cache *c)
{
	return c->range_size;
}
DCI_EXPORT(dc_cache_range_size);

/* Where each counter goes in struct dc_cache_stats. */
static const unsigned short stat_member[DCI_STAT_NR] = {
#define DCI_STAT_MEMBER(name, member) \
	[DCI_STAT_##name] = offsetof(struct dc_cache_stats, member),
	DCI_CACHE_COUNTERS(DCI_STAT_MEMBER)
#undef DCI_STAT_MEMBER
};

int dc_cache_stats(const struct dc_cache *cc, struct dc_cache_stats *st,
		   size_t size)
{
	struct dc_cache *c = (struct dc_cache *)cc;
	uint64_t sum[DCI_STAT_NR] = { 0 };
	struct dc_cache_stats full;
	unsigned int nr_free, nr_mapped, i;
	uint64_t kicks, answered;

	if (!c || !st || size < DC_CACHE_STATS_SIZE_VER0)
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	/* First: once no kick waits, the gauges below hold still. */
	kicks = dci_pool_kicks(c);
	dci_smp_mb();
	answered = dci_pool_kicks_answered(c);
	dci_pcounters_sum(&c->stats, sum);
	memset(&full, 0, sizeof(full));
	full.bg_pending = answered < kicks ? kicks - answered : 0;
	for (i = 0; i < DCI_STAT_NR; i++)
		memcpy((char *)&full + stat_member[i], &sum[i], sizeof(sum[i]));
	full.bypasses = full.bypass_full + full.bypass_busy + full.bypass_write;
	full.nr_waiting = dci_pool_nr_sleeping(c);
	full.nr_ranges = c->nr_ranges;
	dci_pool_counts(c, &nr_free, &nr_mapped);
	full.nr_free = nr_free;
	full.nr_mapped = nr_mapped;
	full.nr_inodes = dci_itab_nr_inodes(c);
	return sized_copy_out(st, size, &full, sizeof(full),
			      DC_CACHE_STATS_SIZE_VER0);
}
DCI_EXPORT(dc_cache_stats);
