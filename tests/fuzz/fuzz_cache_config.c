// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_cache_config.c - odd cache configs: each field is decoded from the
 * input, mostly valid, sometimes just outside its range.  The harness
 * predicts from the documented rules whether dc_cache_create() must refuse
 * it (-EINVAL, and no cache), and keeps windows small (at most 8 ranges) so
 * that an input stays fast.
 */
#include "fuzz_cache.h"

#include <errno.h>
#include <string.h>

#define MAX_ATTEMPTS	4

static const unsigned int shifts[] = { 12, 13, 16, 21, 11, 41, 0, 40 };

/* Decode one config; returns true if the documented rules accept it. */
static bool decode(struct fz_in *in, struct fz_world *w)
{
	struct dc_cache_config *c = &w->cfg;
	uint8_t a = fz_u8(in), b = fz_u8(in), t = fz_u8(in), f = fz_u8(in);
	unsigned int shift = shifts[a % 8], nr = (a >> 3) % 9;
	bool ok = true;

	dc_cache_config_init(c, sizeof(*c), 0);
	c->range_shift = shift;
	if (shift < 12 || shift > 40) {
		ok = false;
		shift = 12;	/* for the window size only */
	}
	c->window_size = (uint64_t)nr << shift;
	if (!nr)
		ok = false;
	if (a & 0x80) {
		/* Not a multiple of the range size. */
		c->window_size += 1ull << (shift - 1 - (b & 3));
		ok = false;
	}
	c->reclaim_threshold_pct = t <= 200 ? t / 2 : t;
	if (c->reclaim_threshold_pct > 100)
		ok = false;
	c->reclaim_batch = b % 5;
	c->remove_batch_max = (b >> 3) % 6 == 5 ? 256 : (b >> 3) % 6;
	if (!c->reclaim_batch || !c->remove_batch_max)
		ok = false;
	c->victim = (enum dc_victim_policy)((f & 3) == 3 ? 3 + (f >> 7) : (f & 3));
	if (c->victim > DC_VICTIM_SIEVE)
		ok = false;
	c->flags = (f >> 2) & 7;
	if ((f & 0xe0) == 0xe0) {
		/* A bit above the known ones. */
		c->flags |= (DC_CACHE_WRITEBACK_ALL << 1) << ((f >> 2) & 7);
		ok = false;
	} else if (f & 0x20) {
		c->flags |= DC_CACHE_WRITEBACK_ALL;
	}
	c->wait_timeout_ns = 1000000;	/* every blocking map says its own */
	/* The backend ops: what is absent, and two bad tables. */
	w->ops = *dc_simbe_ops();
	switch ((b >> 6) & 3) {
	case 1:
		w->ops.remove = NULL;
		break;
	case 2:
		w->ops.writeback = NULL;
		break;
	case 3:
		if (t & 1) {
			w->ops.setup = NULL;
			ok = false;
		} else {
			w->ops.remove = NULL;
			w->ops.writeback = NULL;
		}
		break;
	default:
		break;
	}
	w->nr = nr;
	return ok;
}

static void refused(struct fz_world *w, const struct dc_backend_ops *ops)
{
	struct dc_cache *c = (struct dc_cache *)w;
	int ret = dc_cache_create(&w->cfg, sizeof(w->cfg), ops, sizeof(*ops), NULL, &c);

	FZ_CHECK(ret == -EINVAL && c == (struct dc_cache *)w,
		 "bad config (window %#llx shift %u thr %u batch %u rmax %u victim %d flags %#x) gave %d",
		 (unsigned long long)w->cfg.window_size, w->cfg.range_shift,
		 w->cfg.reclaim_threshold_pct, w->cfg.reclaim_batch,
		 w->cfg.remove_batch_max, (int)w->cfg.victim, w->cfg.flags, ret);
}

void fz_cache_create(struct fz_in *in, struct fz_world *w)
{
	struct dc_simbe_config sc;
	unsigned int i;
	bool ok = false;
	int ret;

	for (i = 0; i < MAX_ATTEMPTS && !ok; i++) {
		ok = decode(in, w);
		if (!ok)
			refused(w, &w->ops);
	}
	if (!ok) {
		dc_cache_config_init(&w->cfg, sizeof(w->cfg), 4ull << 12);
		w->cfg.range_shift = 12;
		w->cfg.wait_timeout_ns = 1000000;
		w->ops = *dc_simbe_ops();
		w->nr = 4;
	}
	/* A NULL table is refused whatever the config. */
	refused(w, NULL);
	w->rs = 1ull << w->cfg.range_shift;
	dc_simbe_config_init(&sc, sizeof(sc), w->cfg.window_size);
	sc.range_shift = w->cfg.range_shift;
	sc.remove_batch_max = w->cfg.remove_batch_max;
	ret = dc_simbe_create(&sc, sizeof(sc), &w->be);
	FZ_CHECK(!ret, "simbe create: %d", ret);
	ret = dc_cache_create(&w->cfg, sizeof(w->cfg), &w->ops, sizeof(w->ops), w->be, &w->cache);
	FZ_CHECK(!ret, "create (window %#llx shift %u): %d",
		 (unsigned long long)w->cfg.window_size, w->cfg.range_shift, ret);
	FZ_CHECK(dc_cache_range_size(w->cache) == w->rs, "range size %#llx",
		 (unsigned long long)dc_cache_range_size(w->cache));
	for (i = 0; i < FZ_NINO; i++) {
		memset(w->unmapped[i], 1, sizeof(w->unmapped[i]));
		w->id[i] = i == 3 ? UINT64_MAX : i;
	}
}
