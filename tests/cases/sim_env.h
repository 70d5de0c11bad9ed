/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sim_env.h - a cache over the simulation backend, the way the cache's
 * suites (cache_cases.c, admit_cases.c) and the fault-injection test
 * (tests/fault/fault_env.c) build one: snapshots of both sides' counters,
 * the creation of the pair from one cache configuration, and the quiet
 * state they wait for before checking invariants.
 *
 * Each environment keeps its own structure (its own inodes, pins and
 * failure bookkeeping); what is here is what they would otherwise each
 * write again.  Kernel-compatible: only the platform header and the public
 * API, since the cases are compiled into the kernel test modules too.
 */
#ifndef DC_SIM_ENV_H
#define DC_SIM_ENV_H

#include "platform.h"

#include <daxcache/cache.h>
#include <daxcache/simbe.h>

/*
 * A backend that accepts every call and does nothing, where only the
 * cache's own work counts (the inode table's cases; the in-kernel
 * benchmark, bench/kernel/bench.c, has tests/cases on its path too).
 */
static inline int sim_null_setup(void *priv, uint64_t ino, uint64_t file_off,
				 uint64_t win_off, uint64_t len,
				 unsigned int flags)
{
	return 0;
}

static inline int sim_null_remove(void *priv,
				  const struct dc_remove_entry *entries,
				  unsigned int n)
{
	return 0;
}

static inline const struct dc_backend_ops *sim_null_ops(void)
{
	static const struct dc_backend_ops ops = {
		.setup = sim_null_setup,
		.remove = sim_null_remove,
	};

	return &ops;
}

/* A snapshot of the cache's counters (zero where the cache is NULL). */
static inline struct dc_cache_stats sim_cache_stats(const struct dc_cache *c)
{
	struct dc_cache_stats st;

	memset(&st, 0, sizeof(st));
	dc_cache_stats(c, &st, sizeof(st));
	return st;
}

/* A snapshot of the backend's counters (zero where it is NULL). */
static inline struct dc_simbe_stats sim_be_stats(const struct dc_simbe *be)
{
	struct dc_simbe_stats st;

	memset(&st, 0, sizeof(st));
	dc_simbe_stats(be, &st, sizeof(st));
	return st;
}

/*
 * Create a simbe shaped like @cfg (its window, range size and remove batch
 * limit copied into @bcfg) and a cache of @cfg over it with @ops.  On
 * failure nothing is left: *@be and *@cache are NULL and *@what names the
 * call that failed.  Returns 0 or that call's -errno.
 */
static inline int sim_env_create(const struct dc_cache_config *cfg,
				 struct dc_simbe_config *bcfg,
				 const struct dc_backend_ops *ops,
				 struct dc_simbe **be, struct dc_cache **cache,
				 const char **what)
{
	int ret;

	*cache = NULL;
	bcfg->window_size = cfg->window_size;
	bcfg->range_shift = cfg->range_shift;
	bcfg->remove_batch_max = cfg->remove_batch_max;
	*what = "dc_simbe_create";
	ret = dc_simbe_create(bcfg, sizeof(*bcfg), be);
	if (ret) {
		*be = NULL;
		return ret;
	}
	*what = "dc_cache_create";
	ret = dc_cache_create(cfg, sizeof(*cfg), ops, sizeof(*ops), *be, cache);
	if (ret) {
		dc_simbe_destroy(*be);
		*be = NULL;
		*cache = NULL;
	}
	return ret;
}

/*
 * Whether the pair is quiet, from one sample taken (cache first) while the
 * test maps nothing: the background reclaimer answered every kick, every
 * range is free or mapped, every remove() call the cache made returned, and
 * (unless @stale_ok, when injected failures may leave records the cache
 * dropped) the backend maps as many ranges as the cache believes mapped.
 * Nothing changes a quiet pair until the test calls the cache again.
 */
static inline bool sim_env_quiet(const struct dc_cache_stats *st,
				 const struct dc_simbe_stats *bs, bool stale_ok)
{
	return !st->bg_pending &&
	       st->nr_free + st->nr_mapped == st->nr_ranges &&
	       bs->calls[DC_SIMBE_REMOVE] == st->remove_batches &&
	       (stale_ok || bs->nr_mapped == st->nr_mapped);
}

/*
 * One use of @cache: get inode @ino, map @off with @flags, unpin, put.
 * Returns 0 or the -errno of the step that failed.
 */
static inline int sim_map_once(struct dc_cache *cache, uint64_t ino,
			       uint64_t off, unsigned int flags)
{
	struct dc_inode *in;
	struct dc_pin pin;
	int ret;

	ret = dc_inode_get(cache, ino, &in);
	if (ret)
		return ret;
	ret = dc_map(in, off, flags, &pin);
	if (!ret)
		dc_unpin(&pin);
	dc_inode_put(in);
	return ret;
}

/*
 * The first protocol violation the backend counted in @bs, or NULL: what
 * the counter counts, and in *@count how many.  Those that a failure
 * injected into the pair (@faults) may cause are not looked at then: lost
 * writes and removes of unmapped ranges.
 */
static inline const char *sim_be_violation(const struct dc_simbe_stats *bs,
					   bool faults, uint64_t *count)
{
	static const struct {
		size_t off;
		bool with_faults;	/* stays zero even with injected failures */
		const char *what;
	} counters[] = {
		{ offsetof(struct dc_simbe_stats, overlaps), true,
		  "backend calls overlapped on a window range" },
		{ offsetof(struct dc_simbe_stats, bad_calls), true,
		  "malformed backend calls" },
		{ offsetof(struct dc_simbe_stats, remove_mismatches), true,
		  "removes of a range mapping something else" },
		{ offsetof(struct dc_simbe_stats, writeback_mismatches), true,
		  "writebacks of a range not mapping that" },
		{ offsetof(struct dc_simbe_stats, tag_failures), true,
		  "failed tag checks or writes" },
		{ offsetof(struct dc_simbe_stats, gate_timeouts), true,
		  "gate timeouts" },
		{ offsetof(struct dc_simbe_stats, lost_writes), false,
		  "writes lost without any failure" },
		{ offsetof(struct dc_simbe_stats, remove_unmapped), false,
		  "removes of unmapped ranges without any failure" },
	};
	size_t i;

	for (i = 0; i < DCI_ARRAY_SIZE(counters); i++) {
		if (faults && !counters[i].with_faults)
			continue;
		memcpy(count, (const char *)bs + counters[i].off, sizeof(*count));
		if (*count)
			return counters[i].what;
	}
	return NULL;
}

/* Whether window range @w of @be still holds the record of setup @seq. */
static inline bool sim_record_still(struct dc_simbe *be, uint64_t w,
				    uint64_t seq)
{
	struct dc_simbe_mapping m;

	return !dc_simbe_lookup(be, w, &m, sizeof(m)) && m.seq == seq;
}

#endif /* DC_SIM_ENV_H */
