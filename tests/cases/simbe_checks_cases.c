// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * simbe_checks_cases.c - the simulation backend's own checks, driven by
 * calling its ops directly the way a broken cache would: malformed calls,
 * removes and writebacks that name the wrong mapping, overlapping calls,
 * a gate held past its timeout, and bad configurations and arguments.
 * Each must be refused or counted, since the cache's tests rely on these
 * counters staying zero only when the cache behaves.
 */
#include "dc_test.h"

#include <daxcache/simbe.h>

#include "sim_env.h"

#define RS		(1ull << 16)
#define NR		8ull
#define MS		1000000ull

static struct dc_simbe *mk(struct dc_test *t)
{
	struct dc_simbe_config cfg;
	struct dc_simbe *be = NULL;

	dc_simbe_config_init(&cfg, sizeof(cfg), NR * RS);
	cfg.range_shift = 16;
	cfg.remove_batch_max = 4;
	cfg.gate_timeout_ns = 20 * MS;
	if (dc_simbe_create(&cfg, sizeof(cfg), &be))
		dc_test_fail(t, __FILE__, __LINE__, "dc_simbe_create");
	return be;
}

/* A snapshot of the backend's counters. */
#define sst(be)	sim_be_stats(be)

DC_TEST(simbe_checks_bad_config)
{
	struct dc_simbe_config cfg;
	struct dc_simbe *be = NULL;

	dc_simbe_config_init(&cfg, sizeof(cfg), NR * RS);
	DC_ASSERT_INT_EQ(t, dc_simbe_create(NULL, 0, &be), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_simbe_create(&cfg, sizeof(cfg), NULL), -EINVAL);
	cfg.range_shift = 11;
	DC_ASSERT_INT_EQ(t, dc_simbe_create(&cfg, sizeof(cfg), &be), -EINVAL);
	cfg.range_shift = 41;
	DC_ASSERT_INT_EQ(t, dc_simbe_create(&cfg, sizeof(cfg), &be), -EINVAL);
	cfg.range_shift = 16;
	cfg.window_size = 0;
	DC_ASSERT_INT_EQ(t, dc_simbe_create(&cfg, sizeof(cfg), &be), -EINVAL);
	cfg.window_size = NR * RS + 1;
	DC_ASSERT_INT_EQ(t, dc_simbe_create(&cfg, sizeof(cfg), &be), -EINVAL);
	DC_ASSERT(t, !be);
	dc_simbe_destroy(NULL);
}

/* Malformed calls are refused and counted; nothing is mapped. */
DC_TEST(simbe_checks_malformed_calls)
{
	const struct dc_backend_ops *ops = dc_simbe_ops();
	struct dc_simbe *be = mk(t);
	struct dc_remove_entry e[5];
	struct dc_simbe_stats st;
	unsigned int k;

	DC_RETURN_IF_FAILED(t);
	/* setup: misaligned window, beyond it, zero length, misaligned file
	 * offset, a file range that wraps, no READ flag, unknown flags */
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, 1, RS, DC_MAP_READ), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, NR * RS, RS, DC_MAP_READ), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, 0, 0, DC_MAP_READ), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, 0, 2 * NR * RS, DC_MAP_READ), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 7, 0, RS, DC_MAP_READ), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, UINT64_MAX & ~(RS - 1), 0, 2 * RS,
				       DC_MAP_READ), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, 0, RS, DC_MAP_WRITE), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, 0, RS, DC_MAP_READ | 0x100), -EINVAL);
	/* remove: none, NULL, too many, a malformed entry among good ones */
	memset(e, 0, sizeof(e));
	for (k = 0; k < 5; k++) {
		e[k].ino = 1;
		e[k].win_off = k * RS;
		e[k].len = RS;
		e[k].file_off = k * RS;
	}
	DC_ASSERT_INT_EQ(t, ops->remove(be, e, 0), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->remove(be, NULL, 1), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->remove(be, e, 5), -EINVAL);
	e[1].file_off = 3;
	DC_ASSERT_INT_EQ(t, ops->remove(be, e, 2), -EINVAL);
	/* writeback: misaligned, misaligned file offset */
	DC_ASSERT_INT_EQ(t, ops->writeback(be, 1, 0, RS, RS / 2), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->writeback(be, 1, 5, RS, 0), -EINVAL);
	st = sst(be);
	DC_ASSERT_EQ(t, st.bad_calls, 14);
	DC_ASSERT_EQ(t, st.nr_mapped, 0);
	DC_ASSERT_EQ(t, st.setups_read + st.setups_write, 0);
	dc_simbe_destroy(be);
}

/*
 * Removes and writebacks that name the wrong mapping, and a dirty mapping
 * removed: each counted; reads of a replaced range fail their tag check.
 */
DC_TEST(simbe_checks_mismatches)
{
	const struct dc_backend_ops *ops = dc_simbe_ops();
	struct dc_simbe *be = mk(t);
	struct dc_remove_entry e = { .ino = 2, .file_off = 0, .win_off = 0, .len = RS };
	struct dc_simbe_mapping m;
	struct dc_simbe_stats st;

	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, 0, RS, DC_MAP_READ | DC_MAP_WRITE), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_write(be, 10, 1, 10), 0);
	/* The reader asked for another file or offset: -ESTALE, counted. */
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, 10, 2, 10), -ESTALE);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, 10, 1, 11), -ESTALE);
	DC_ASSERT_INT_EQ(t, dc_simbe_write(be, 10, 2, 10), -ESTALE);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, RS, 1, 0), -ENOENT);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, NR * RS, 1, 0), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_simbe_write(be, NR * RS, 1, 0), -EINVAL);
	/* A writeback of something the range does not map; of an unmapped one. */
	DC_ASSERT_INT_EQ(t, ops->writeback(be, 2, 0, RS, 0), 0);
	DC_ASSERT_INT_EQ(t, ops->writeback(be, 1, 0, RS, RS), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 0, &m, sizeof(m)), 0);
	DC_ASSERT(t, m.dirty);
	/* A remove naming inode 2: a mismatch, and the dirty data is lost. */
	DC_ASSERT_INT_EQ(t, ops->remove(be, &e, 1), 0);
	DC_ASSERT_INT_EQ(t, ops->remove(be, &e, 1), 0);
	st = sst(be);
	/* Every failed check or write counts: the 3 stale, 1 unmapped, 2 outside. */
	DC_ASSERT_EQ(t, st.tag_failures, 6);
	DC_ASSERT_EQ(t, st.writeback_mismatches, 2);
	DC_ASSERT_EQ(t, st.writebacks, 2);
	DC_ASSERT_EQ(t, st.remove_mismatches, 1);
	DC_ASSERT_EQ(t, st.remove_unmapped, 1);
	DC_ASSERT_EQ(t, st.lost_writes, 1);
	DC_ASSERT_EQ(t, st.nr_mapped, 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 0, NULL, 0), -ENOENT);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, NR * RS, &m, sizeof(m)), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(NULL, 0, &m, sizeof(m)), -EINVAL);
	dc_simbe_reset_stats(be);
	DC_ASSERT_EQ(t, sst(be).lost_writes, 0);
	dc_simbe_destroy(be);
}

/* A call held at a closed gate past its timeout goes on, and is counted. */
DC_TEST(simbe_checks_gate_timeout)
{
	const struct dc_backend_ops *ops = dc_simbe_ops();
	struct dc_simbe *be = mk(t);

	DC_RETURN_IF_FAILED(t);
	dc_simbe_gate_close(be, DC_SIMBE_SETUP);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, 0, RS, DC_MAP_READ), 0);
	DC_ASSERT_EQ(t, sst(be).gate_timeouts, 1);
	dc_simbe_gate_open(be, DC_SIMBE_SETUP);
	/* Bad ops are ignored. */
	dc_simbe_gate_close(be, DC_SIMBE_NR_OPS);
	dc_simbe_gate_open(be, DC_SIMBE_NR_OPS);
	DC_ASSERT_EQ(t, dc_simbe_gate_waiters(be, DC_SIMBE_NR_OPS), 0);
	dc_simbe_set_latency(be, DC_SIMBE_NR_OPS, 1, 1);
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(NULL, DC_SIMBE_SETUP, NULL, 0), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_simbe_fail_next(be, DC_SIMBE_SETUP, 5), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_simbe_stats(be, NULL, 0), -EINVAL);
	dc_simbe_destroy(be);
}

/* A probability over one million fails every call; the draws are seeded. */
DC_TEST(simbe_checks_fault_rules)
{
	const struct dc_backend_ops *ops = dc_simbe_ops();
	struct dc_simbe_fault f = { .err = -EIO, .ppm = 2000000, .seed = 0 };
	struct dc_simbe *be = mk(t);
	unsigned int k;

	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(be, DC_SIMBE_SETUP, &f, sizeof(f)), 0);
	for (k = 0; k < 8; k++)
		DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, 0, RS, DC_MAP_READ), -EIO);
	DC_ASSERT_EQ(t, sst(be).injected[DC_SIMBE_SETUP], 8);
	/* No rule armed: the fault is off, the call works. */
	f = (struct dc_simbe_fault){ .err = -EIO };
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(be, DC_SIMBE_SETUP, &f, sizeof(f)), 0);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, 0, RS, DC_MAP_READ), 0);
	dc_simbe_destroy(be);
}

DC_SUITE(simbe_checks,
	 DC_CASE(simbe_checks_bad_config),
	 DC_CASE(simbe_checks_malformed_calls),
	 DC_CASE(simbe_checks_mismatches),
	 DC_CASE(simbe_checks_gate_timeout),
	 DC_CASE(simbe_checks_fault_rules));
