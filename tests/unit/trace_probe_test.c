// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trace_probe_test.c - fires every USDT probe of libdaxcache once at least,
 * with arguments known in advance, for tests/unit/trace-probes, which
 * attaches to the probes of the installed library and reads them back (and
 * README's "Tracing" shows the same run under perf).  Public headers and
 * the shared library only; a backend of its own that maps nothing.
 *
 * On a window of two 2 MiB ranges, admission control on:
 *   inode 41043: a miss whose setup fails with -EIO (miss ret=-5,
 *     backend_fail op=0 err=-5);
 *   inode 41041: a write miss of index 0 (miss flags=3), a read miss of
 *     index 1 (flags=1); both flagged DC_MAP_MAY_BYPASS, which never kicks
 *     the background reclaimer, so both stay mapped and idle;
 *   inode 41042: index 5, flagged, missed until it is mapped: the first
 *     miss is bypassed (bypass reason 0), the later ones contest a victim
 *     of inode 41041 (admit ... verdict) until one wins, which reclaims the
 *     victim inline (reclaim bg=0 ino=41041);
 *   inode 41042 pins index 5 and index 6 (a plain miss that reclaims the
 *     other range inline), then inode 41044 misses with every range pinned
 *     and waits 1 ms in vain (wait ino=41044 ret=-110);
 *   inode 41042's last put evicts its two ranges (evict ranges=2 ret=0):
 *     the waiter kicked the background reclaimer, so its pins are held
 *     until that run has ended (bg_pending 0), which finds them pinned;
 *     were it to run after the unpins, it could take them first.
 *
 * Prints one "ok"/"not ok" line per step and a summary; exits 1 on a
 * failure.  The waits depend on no timing: a wait with every range pinned
 * ends by its timeout whatever the machine does.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <daxcache/daxcache.h>

#include "ok_check.h"

#define RANGE		(2ull << 20)
#define INO_A		41041u
#define INO_B		41042u
#define INO_FAIL	41043u
#define INO_WAIT	41044u

static int be_setup(void *priv, uint64_t ino, uint64_t file_off,
		    uint64_t win_off, uint64_t len, unsigned int flags)
{
	(void)priv, (void)file_off, (void)win_off, (void)len, (void)flags;
	return ino == INO_FAIL ? -EIO : 0;
}

static int be_writeback(void *priv, uint64_t ino, uint64_t file_off,
			uint64_t len, uint64_t win_off)
{
	(void)priv, (void)ino, (void)file_off, (void)len, (void)win_off;
	return 0;
}

static void quiet_log(void *priv, int level, const char *msg)
{
	(void)priv, (void)level, (void)msg;
}

/* Until no background reclaim is pending: 0, or -ETIMEDOUT after 10 s. */
static int reclaimer_idle(struct dc_cache *cache)
{
	const struct timespec ms = { .tv_nsec = 1000000 };
	struct dc_cache_stats st;
	int i;

	for (i = 0; i < 10000; i++) {
		if (dc_cache_stats(cache, &st, sizeof(st)))
			return -EINVAL;
		if (!st.bg_pending)
			return 0;
		nanosleep(&ms, NULL);
	}
	return -ETIMEDOUT;
}

int main(void)
{
	struct dc_backend_ops ops = {
		.setup = be_setup,
		.writeback = be_writeback,
	};
	struct dc_cache_config cfg;
	struct dc_inode *a, *b, *f, *w;
	struct dc_pin pin, p5, p6;
	struct dc_cache *cache;
	int ret, tries;

	/* The failed setup is logged: expected, and not this test's output. */
	dc_set_log_fn(quiet_log, NULL);
	dc_cache_config_init(&cfg, sizeof(cfg), 2 * RANGE);
	cfg.admit = DC_ADMIT_FREQ;
	ret = dc_cache_create(&cfg, sizeof(cfg), &ops, sizeof(ops), NULL, &cache);
	check(ret == 0, "dc_cache_create", ret);
	if (ret)
		return ok_summary("trace-probe-test");
	check(!dc_inode_get(cache, INO_A, &a) && !dc_inode_get(cache, INO_B, &b) &&
	      !dc_inode_get(cache, INO_FAIL, &f) && !dc_inode_get(cache, INO_WAIT, &w),
	      "dc_inode_get x4", 0);

	ret = dc_map(f, 0, 0, &pin);
	check(ret == -EIO, "a failed setup: -EIO", ret);

	ret = dc_map(a, 0, DC_MAP_WRITE | DC_MAP_MAY_BYPASS, &pin);
	check(ret == 0, "inode 41041 index 0 mapped for writing", ret);
	if (!ret)
		dc_unpin(&pin);
	ret = dc_map(a, RANGE, DC_MAP_MAY_BYPASS, &pin);
	check(ret == 0, "inode 41041 index 1 mapped", ret);
	if (!ret)
		dc_unpin(&pin);

	ret = dc_map(b, 5 * RANGE, DC_MAP_MAY_BYPASS, &pin);
	check(ret == DC_MAP_BYPASS, "inode 41042 index 5: first miss bypassed", ret);
	for (tries = 1; ret == DC_MAP_BYPASS && tries < 64; tries++)
		ret = dc_map(b, 5 * RANGE, DC_MAP_MAY_BYPASS, &pin);
	check(ret == 0, "inode 41042 index 5 admitted over a victim (tries)", tries);
	if (!ret)
		dc_unpin(&pin);

	ret = dc_map(b, 5 * RANGE, 0, &p5);
	check(ret == 0, "inode 41042 index 5 pinned", ret);
	ret = dc_map(b, 6 * RANGE, 0, &p6);
	check(ret == 0, "inode 41042 index 6 pinned (inline reclaim)", ret);
	ret = dc_map_timeout(w, 0, 0, 1000000, &pin);
	check(ret == -ETIMEDOUT, "inode 41044 waits with every range pinned", ret);
	ret = reclaimer_idle(cache);
	check(ret == 0, "the reclaimer the wait kicked has finished", ret);
	dc_unpin(&p6);
	dc_unpin(&p5);

	dc_inode_put(w);
	dc_inode_put(f);
	dc_inode_put(a);
	dc_inode_put(b);
	dc_cache_destroy(cache);
	return ok_summary("trace-probe-test");
}
