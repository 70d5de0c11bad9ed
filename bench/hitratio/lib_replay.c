// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib_replay.c - replay a trace through the library: a struct dc_cache over
 * the null simulation backend (no latency), one inode per file of the
 * trace (one for most), dc_map() and
 * dc_unpin() per access on the calling thread.  The background reclaimer
 * runs as it does for any user, but each access waits until it has
 * answered every kick, so that two replays of a trace are the same
 * whenever its thread runs; the effective capacity (ranges mapped, as
 * opposed to kept free) is sampled as the replay goes.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>

#include <daxcache/cache.h>
#include <daxcache/simbe.h>

#include "hitratio.h"
#include "workload.h"

#define RANGE_SHIFT	21
#define SAMPLE_EVERY	64	/* accesses between occupancy samples */

/*
 * Wait until the background reclaimer has answered every kick (the
 * bg_pending gauge: 0 once no background work is left while nobody maps).
 */
static int reclaimer_idle(struct dc_cache *cache)
{
	struct dc_cache_stats st;
	int ret;

	for (;;) {
		ret = dc_cache_stats(cache, &st, sizeof(st));
		if (ret || !st.bg_pending)
			return ret;
		sched_yield();
	}
}

int hr_lib_replay(const struct hr_trace *t, uint32_t cap,
		  const struct hr_lib_config *cfg, struct hr_lib_result *out)
{
	uint64_t window = (uint64_t)cap << RANGE_SHIFT, i, samples = 0;
	unsigned int flags = cfg->may_bypass ? DC_MAP_MAY_BYPASS : 0;
	struct dc_simbe_config bcfg;
	struct dc_cache_config ccfg;
	struct dc_cache_stats st;
	struct dc_simbe_stats bst;
	unsigned int nr_files = t->nr_files > 1 ? t->nr_files : 1, f;
	struct dc_inode *inode[DSIM_FILES] = { NULL };
	struct dc_cache *cache = NULL;
	struct dc_simbe *be = NULL;
	double mapped = 0;
	int ret;

	*out = (struct hr_lib_result){ 0 };
	dc_simbe_config_init(&bcfg, sizeof(bcfg), window);
	bcfg.range_shift = RANGE_SHIFT;
	ret = dc_simbe_create(&bcfg, sizeof(bcfg), &be);
	if (ret) {
		fprintf(stderr, "bench-hitratio: dc_simbe_create: %d\n", ret);
		return ret;
	}
	dc_cache_config_init(&ccfg, sizeof(ccfg), window);
	ccfg.range_shift = RANGE_SHIFT;
	ccfg.victim = (enum dc_victim_policy)cfg->victim;
	ccfg.reclaim_threshold_pct = cfg->threshold_pct;
	ccfg.reclaim_batch = cfg->reclaim_batch;
	ret = dc_cache_create(&ccfg, sizeof(ccfg), dc_simbe_ops(),
			      sizeof(struct dc_backend_ops), be, &cache);
	if (ret) {
		fprintf(stderr, "bench-hitratio: dc_cache_create: %d\n", ret);
		goto out;
	}
	if (nr_files > DSIM_FILES) {
		ret = -EINVAL;
		goto out;
	}
	for (f = 0; f < nr_files; f++) {
		ret = dc_inode_get(cache, 1 + f, &inode[f]);
		if (ret) {
			fprintf(stderr, "bench-hitratio: dc_inode_get: %d\n", ret);
			goto out;
		}
	}
	for (i = 0; i < t->n; i++) {
		uint64_t r = t->idx[i];
		struct dc_pin pin;

		f = 0;
		if (nr_files > 1) {
			f = (unsigned int)(r / t->file_ranges);
			if (f >= nr_files)
				f = nr_files - 1;
			r -= (uint64_t)f * t->file_ranges;
		}
		/* At the page the generator drew: stream recognition reads it. */
		ret = dc_map(inode[f], (r << RANGE_SHIFT) + ((uint64_t)(t->page ? t->page[i] : 0) << 12),
			     flags, &pin);
		if (ret == DC_MAP_BYPASS && cfg->may_bypass) {
			out->bypasses++;
		} else if (ret) {
			fprintf(stderr, "bench-hitratio: dc_map of range %u: %d\n",
				t->idx[i], ret);
			goto out;
		}
		/*
		 * The reclaimer answers a kick before the next access, and
		 * before the pin that a kicking miss holds is dropped (so
		 * that the new mapping is never its victim): the replay is
		 * the same however its thread is scheduled.
		 */
		ret = reclaimer_idle(cache);
		if (pin.range) {
			out->maps++;
			dc_unpin(&pin);
		}
		if (ret)
			goto out;
		if (i >= t->n / 2 && !(i % SAMPLE_EVERY)) {
			dc_cache_stats(cache, &st, sizeof(st));
			mapped += (double)st.nr_mapped;
			samples++;
		}
	}
	ret = dc_cache_stats(cache, &st, sizeof(st));
	if (ret)
		goto out;
	out->hits = st.hits;
	out->inline_reclaims = st.inline_reclaims;
	out->bg_reclaims = st.bg_reclaims;
	out->occupancy = samples ? mapped / (double)samples / cap : 0;
	ret = dc_simbe_stats(be, &bst, sizeof(bst));
	if (ret)
		goto out;
	out->setups = bst.calls[DC_SIMBE_SETUP];
out:
	for (f = 0; f < nr_files; f++)
		dc_inode_put(inode[f]);
	dc_cache_destroy(cache);
	dc_simbe_destroy(be);
	return ret;
}
