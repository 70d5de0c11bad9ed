// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * misuse_cases.c - calls a careless caller makes: bad arguments to the
 * cache, attribute and slot APIs, a slot put twice, and the refcount's
 * misuse reports.  Each is refused or reported, never a crash.  The same
 * cases run in userspace and in the kernel.
 */
#include "dc_test.h"

#include <daxcache/attr.h>
#include <daxcache/cache.h>
#include <daxcache/simbe.h>
#include <daxcache/slots.h>
#include <daxcache/thread.h>

#define MS	1000000ull

/*
 * Sized structures, in the kernel build too (tests/unit/struct-size covers
 * every one in userspace): a config of its first layout
 * is read only that far (the canary after it would be an unknown admit
 * policy), a shorter one is refused, a longer one only if the rest is zero;
 * stats are written only as far as the caller's size.
 */
DC_TEST(misuse_struct_sizes)
{
	struct {
		struct dc_cache_config cfg;
		uint64_t extra;
	} big;
	struct dc_cache_stats st;
	struct dc_simbe_config bcfg;
	struct dc_simbe *be;
	struct dc_cache *c = NULL;
	unsigned char *p = (unsigned char *)&big;
	size_t i;

	dc_simbe_config_init(&bcfg, sizeof(bcfg), 4ull << 21);
	DC_ASSERT_INT_EQ(t, dc_simbe_create(&bcfg, sizeof(bcfg), &be), 0);
	memset(&big, 0xa5, sizeof(big));
	DC_ASSERT_INT_EQ(t, dc_cache_config_init(&big.cfg, DC_CACHE_CONFIG_SIZE_VER0,
						 4ull << 21), 0);
	for (i = DC_CACHE_CONFIG_SIZE_VER0; i < sizeof(big); i++)
		DC_ASSERT_EQ(t, p[i], 0xa5);
	DC_ASSERT_INT_EQ(t, dc_cache_create(&big.cfg, DC_CACHE_CONFIG_SIZE_VER0 - 1,
					    dc_simbe_ops(), DC_BACKEND_OPS_SIZE_VER0,
					    be, &c), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_cache_create(&big.cfg, sizeof(big), dc_simbe_ops(),
					    DC_BACKEND_OPS_SIZE_VER0, be, &c), -E2BIG);
	DC_ASSERT(t, !c);
	DC_ASSERT_INT_EQ(t, dc_cache_create(&big.cfg, DC_CACHE_CONFIG_SIZE_VER0,
					    dc_simbe_ops(), DC_BACKEND_OPS_SIZE_VER0,
					    be, &c), 0);
	memset(&st, 0xa5, sizeof(st));
	DC_ASSERT_INT_EQ(t, dc_cache_stats(c, &st, DC_CACHE_STATS_SIZE_VER0), 0);
	DC_ASSERT_EQ(t, st.nr_ranges, 4);
	DC_ASSERT_EQ(t, st.bypasses, 0xa5a5a5a5a5a5a5a5ull);
	DC_ASSERT_INT_EQ(t, dc_cache_stats(c, &st, DC_CACHE_STATS_SIZE_VER0 - 1),
			 -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_cache_destroy(c), 0);
	dc_cache_config_init(&big.cfg, sizeof(big), 4ull << 21);
	DC_ASSERT_EQ(t, big.extra, 0);
	DC_ASSERT_INT_EQ(t, dc_cache_create(&big.cfg, sizeof(big), dc_simbe_ops(),
					    DC_BACKEND_OPS_SIZE_VER0, be, &c), 0);
	DC_ASSERT_INT_EQ(t, dc_cache_destroy(c), 0);
	dc_simbe_destroy(be);
}

/* Bad arguments are refused, and nothing is created. */
DC_TEST(misuse_bad_arguments)
{
	struct dc_attr_config ap = { .timeout_ns = MS };
	struct dc_cache_config cfg;
	struct dc_cache *c = NULL;
	struct dc_pin pin;

	DC_ASSERT_INT_EQ(t, dc_map(NULL, 0, 0, &pin), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_map_timeout(NULL, 0, 0, MS, &pin), -EINVAL);
	dc_cache_config_init(&cfg, sizeof(cfg), 16ull << 21);
	DC_ASSERT_INT_EQ(t, dc_cache_create(NULL, 0, dc_simbe_ops(),
					    sizeof(struct dc_backend_ops), NULL, &c), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_cache_create(&cfg, sizeof(cfg), dc_simbe_ops(),
					    sizeof(struct dc_backend_ops), NULL, NULL), -EINVAL);
	/* 2^30 + 1 ranges of 4 KiB: more ranges than the cache can count. */
	cfg.range_shift = 12;
	cfg.window_size = ((1ull << 30) + 1) << 12;
	DC_ASSERT_INT_EQ(t, dc_cache_create(&cfg, sizeof(cfg), dc_simbe_ops(),
					    sizeof(struct dc_backend_ops), NULL, &c), -EINVAL);
	DC_ASSERT(t, !c);
	DC_ASSERT_INT_EQ(t, dc_attr_create(&ap, sizeof(ap), NULL), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_wait_free(NULL, 0), -EINVAL);
}

/* A put with no slot out is reported and changes nothing. */
DC_TEST(misuse_slot_put_unbalanced)
{
	unsigned long warned = dc_warn_count();
	struct dc_slot_table *tbl;
	struct dc_slot_table_stats st;
	struct dc_slot bogus, *s;

	struct dc_slot_table_config cfg = { .min_slots = 1, .max_slots = 2 };

	DC_ASSERT_INT_EQ(t, dc_slot_table_create(&cfg, sizeof(cfg), NULL, 0,
						 NULL, &tbl), 0);
	dc_slot_put(tbl, &bogus);
	DC_ASSERT(t, dc_warn_count() > warned);
	dc_slot_table_stats(tbl, &st, sizeof(st));
	DC_ASSERT_EQ(t, st.allocated, 1);
	DC_ASSERT_EQ(t, st.out, 0);
	/* The table still works. */
	DC_ASSERT_INT_EQ(t, dc_slot_get(tbl, &s), 0);
	DC_ASSERT(t, s != &bogus);
	dc_slot_put(tbl, s);
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(tbl), 0);
}

/*
 * dci_refcount_dec_not_one() on a freed (0) count and dci_refcount_dec() (or
 * dci_refcount_dec_fast()) to zero are misuse: reported, and the count
 * saturates so that the object is leaked rather than freed twice.
 */
DC_TEST(misuse_refcount)
{
	unsigned long warned = dc_warn_count();
	dci_refcount_t r;

	dci_refcount_set(&r, 3);
	DC_ASSERT(t, dci_refcount_dec_not_one(&r));
	DC_ASSERT(t, dci_refcount_dec_not_one(&r));
	DC_ASSERT(t, !dci_refcount_dec_not_one(&r));
	DC_ASSERT_INT_EQ(t, dci_refcount_read(&r), 1);
	DC_ASSERT_EQ(t, dc_warn_count(), warned);

	dci_refcount_set(&r, 0);
	DC_ASSERT(t, dci_refcount_dec_not_one(&r));
	DC_ASSERT(t, dc_warn_count() > warned);
	DC_ASSERT(t, dci_refcount_read(&r) < 0);

	warned = dc_warn_count();
	dci_refcount_set(&r, 2);
	dci_refcount_dec(&r);
	DC_ASSERT_INT_EQ(t, dci_refcount_read(&r), 1);
	DC_ASSERT_EQ(t, dc_warn_count(), warned);
	dci_refcount_dec(&r);
	DC_ASSERT(t, dc_warn_count() > warned);
	DC_ASSERT(t, dci_refcount_read(&r) < 0);
	DC_ASSERT(t, !dci_refcount_dec_and_test(&r));

	/* The hot path's decrement: false from 1 down, reported apart. */
	warned = dc_warn_count();
	dci_refcount_set(&r, 2);
	DC_ASSERT(t, dci_refcount_dec_fast(&r));
	DC_ASSERT_INT_EQ(t, dci_refcount_read(&r), 1);
	DC_ASSERT(t, !dci_refcount_dec_fast(&r));
	DC_ASSERT_INT_EQ(t, dci_refcount_read(&r), 0);
	DC_ASSERT_EQ(t, dc_warn_count(), warned);
	dci_refcount_dec_report(&r);
	DC_ASSERT(t, dc_warn_count() > warned);
	DC_ASSERT(t, dci_refcount_read(&r) < 0);
	DC_ASSERT(t, !dci_refcount_dec_fast(&r));
}

DC_SUITE(misuse,
	 DC_CASE(misuse_struct_sizes),
	 DC_CASE(misuse_bad_arguments),
	 DC_CASE(misuse_slot_put_unbalanced),
	 DC_CASE(misuse_refcount));
