// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxsim_policy.c - the policies the simulator compares, as cache configs.
 */
#include <errno.h>
#include <string.h>

#include <daxcache/cache.h>

#include "../common/opts.h"
#include "daxsim.h"

static const char *const policy_names[DSIM_NR_POLICIES] = {
	[DSIM_NODAX] = "nodax",
	[DSIM_P2019] = "2019",
	[DSIM_SEED000] = "seed000",
	[DSIM_UPSTREAM] = "upstream",
	[DSIM_DEFAULT] = "default",
	[DSIM_SIEVE] = "sieve",
};

BENCH_NAMED_ENUM(enum dsim_policy, policy_names, DSIM_NR_POLICIES,
		 dsim_policy_name, dsim_policy_parse)

void dsim_policy_config(struct dc_cache_config *cfg, enum dsim_policy p,
			unsigned int *map_flags)
{
	*map_flags = 0;
	switch (p) {
	case DSIM_P2019:
		/*
		 * Kick the background reclaimer first; remove before inline
		 * reuse, and, as that code did, one REMOVEMAPPING per range
		 * reclaimed (the library would batch them).
		 */
		cfg->flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_REMOVE_ON_INLINE;
		cfg->victim = DC_VICTIM_CLOCK;
		cfg->remove_batch_max = 1;
		break;
	case DSIM_SEED000:
		/* Inline reclaim first, reuse without a remove. */
		cfg->flags = 0;
		cfg->victim = DC_VICTIM_ROUND_ROBIN;
		break;
	case DSIM_UPSTREAM:
		/*
		 * Linux: the background reclaimer kicked on every allocation
		 * below the threshold, round robin, inline only from the own
		 * inode, with a remove, one per range reclaimed.
		 */
		cfg->flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_INLINE_OWN_ONLY |
			     DC_CACHE_REMOVE_ON_INLINE;
		cfg->victim = DC_VICTIM_ROUND_ROBIN;
		cfg->remove_batch_max = 1;
		break;
	case DSIM_DEFAULT:
		/* The library's defaults; the caller can read without the window. */
		*map_flags = DC_MAP_MAY_BYPASS;
		break;
	case DSIM_SIEVE:
		/* The defaults but the victim policy: SIEVE's order. */
		*map_flags = DC_MAP_MAY_BYPASS;
		cfg->victim = DC_VICTIM_SIEVE;
		break;
	default:
		break;
	}
}
