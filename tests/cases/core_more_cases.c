// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core_more_cases.c - what the other suites leave out: argument checks of
 * the cache, attribute and slot APIs, the refcount's two remaining misuse
 * reports, a delayed worker queued with no delay, and a grace period
 * waited for by a caller.  The same cases run in userspace and in the
 * kernel.
 */
#include "dc_test.h"

#include <daxcache/attr.h>
#include <daxcache/cache.h>
#include <daxcache/simbe.h>
#include <daxcache/slots.h>
#include <daxcache/thread.h>

#define MS	1000000ull

/* Bad arguments are refused, and nothing is created. */
DC_TEST(core_more_bad_arguments)
{
	struct dc_attr_params ap = { .timeout_ns = MS };
	struct dc_cache_config cfg;
	struct dc_cache *c = NULL;
	struct dc_pin pin;

	DC_ASSERT_INT_EQ(t, dc_map(NULL, 0, 0, &pin), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_map_timeout(NULL, 0, 0, MS, &pin), -EINVAL);
	dc_cache_config_init(&cfg, 16ull << 21);
	DC_ASSERT_INT_EQ(t, dc_cache_create(NULL, dc_simbe_ops(), NULL, &c), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_cache_create(&cfg, dc_simbe_ops(), NULL, NULL), -EINVAL);
	/* 2^30 + 1 ranges of 4 KiB: more ranges than the cache can count. */
	cfg.range_shift = 12;
	cfg.window_size = ((1ull << 30) + 1) << 12;
	DC_ASSERT_INT_EQ(t, dc_cache_create(&cfg, dc_simbe_ops(), NULL, &c), -EINVAL);
	DC_ASSERT(t, !c);
	DC_ASSERT_INT_EQ(t, dc_attr_create(&ap, NULL), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_wait_free(NULL, 0), -EINVAL);
}

/* A put with no slot out is reported and changes nothing. */
DC_TEST(core_more_slot_put_unbalanced)
{
	unsigned long warned = dc_warn_count();
	struct dc_slot_table *tbl;
	struct dc_slot_stats st;
	struct dc_slot bogus, *s;

	DC_ASSERT_INT_EQ(t, dc_slot_table_create(1, 2, 0, &tbl), 0);
	dc_slot_put(tbl, &bogus);
	DC_ASSERT(t, dc_warn_count() > warned);
	dc_slot_table_stats(tbl, &st);
	DC_ASSERT_EQ(t, st.allocated, 1);
	DC_ASSERT_EQ(t, st.out, 0);
	/* The table still works. */
	DC_ASSERT_INT_EQ(t, dc_slot_get(tbl, &s), 0);
	DC_ASSERT(t, s != &bogus);
	dc_slot_put(tbl, s);
	DC_ASSERT_INT_EQ(t, dc_slot_table_destroy(tbl), 0);
}

/*
 * dc_refcount_dec_not_one() on a freed (0) count and dc_refcount_dec() to
 * zero are misuse: reported, and the count saturates so that the object is
 * leaked rather than freed twice.
 */
DC_TEST(core_more_refcount_misuse)
{
	unsigned long warned = dc_warn_count();
	dc_refcount_t r;

	dc_refcount_set(&r, 3);
	DC_ASSERT(t, dc_refcount_dec_not_one(&r));
	DC_ASSERT(t, dc_refcount_dec_not_one(&r));
	DC_ASSERT(t, !dc_refcount_dec_not_one(&r));
	DC_ASSERT_INT_EQ(t, dc_refcount_read(&r), 1);
	DC_ASSERT_EQ(t, dc_warn_count(), warned);

	dc_refcount_set(&r, 0);
	DC_ASSERT(t, dc_refcount_dec_not_one(&r));
	DC_ASSERT(t, dc_warn_count() > warned);
	DC_ASSERT(t, dc_refcount_read(&r) < 0);

	warned = dc_warn_count();
	dc_refcount_set(&r, 2);
	dc_refcount_dec(&r);
	DC_ASSERT_INT_EQ(t, dc_refcount_read(&r), 1);
	DC_ASSERT_EQ(t, dc_warn_count(), warned);
	dc_refcount_dec(&r);
	DC_ASSERT(t, dc_warn_count() > warned);
	DC_ASSERT(t, dc_refcount_read(&r) < 0);
	DC_ASSERT(t, !dc_refcount_dec_and_test(&r));
}

struct zw {
	struct dc_worker w;
	dc_atomic_t runs;
};

static void zw_fn(struct dc_worker *w)
{
	struct zw *z = dc_container_of(w, struct zw, w);

	dc_atomic_inc(&z->runs);
}

/* A delayed queue with no delay is a plain queue: the function runs. */
DC_TEST(core_more_worker_zero_delay)
{
	struct zw *z = dc_test_alloc(sizeof(*z));
	unsigned int waited = 0;

	DC_ASSERT(t, z);
	dc_atomic_set(&z->runs, 0);
	DC_ASSERT_INT_EQ(t, dci_worker_start(&z->w, zw_fn, "dc-more"), 0);
	dci_worker_queue_delayed(&z->w, 0);
	/* A bound on the wait (20 s), not a measurement. */
	while (!dc_atomic_read(&z->runs) && ++waited < 20000)
		dc_test_sleep_us(1000);
	dci_worker_stop(&z->w);
	DC_ASSERT_INT_EQ(t, dc_atomic_read(&z->runs), 1);
	dc_test_free(z);
}

/* dc_synchronize() waits for readers; outside a read section it returns. */
DC_TEST(core_more_synchronize)
{
	dc_read_lock();
	dc_read_unlock();
	dc_synchronize();
	dc_barrier();
	DC_ASSERT(t, !dc_rcu_read_held());
}

DC_SUITE(core_more,
	 DC_CASE(core_more_bad_arguments),
	 DC_CASE(core_more_slot_put_unbalanced),
	 DC_CASE(core_more_refcount_misuse),
	 DC_CASE(core_more_worker_zero_delay),
	 DC_CASE(core_more_synchronize));
