// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault_env.c - the fault-injection test's cache environment: a cache over
 * the simulation backend, and the invariants checked after every case.
 */
#include "fault_test.h"

#include <stdlib.h>
#include <unistd.h>

unsigned long ft_failures;
char ft_context[256];

void ft_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	ft_failures++;
	fprintf(stderr, "FAIL %s:%d [%s]: ", file, line, ft_context);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (ft_failures > 50) {
		fprintf(stderr, "fault: too many failures, giving up\n");
		exit(1);
	}
}

void ft_sleep_us(unsigned int us)
{
	usleep(us);
}

void ft_env_init(struct ft_env *e, unsigned int nr)
{
	memset(e, 0, sizeof(*e));
	e->nr = nr;
	dc_cache_config_init(&e->cfg, sizeof(e->cfg), (uint64_t)nr << 16);
	e->cfg.range_shift = 16;
	e->cfg.reclaim_threshold_pct = 0;	/* background reclaim at 0 free */
	e->cfg.wait_timeout_ns = FT_WAIT_NS;
	dc_simbe_config_init(&e->bcfg, sizeof(e->bcfg), e->cfg.window_size);
	e->ops = *dc_simbe_ops();
}

int ft_env_start(struct ft_env *e, unsigned int nr_inodes)
{
	const char *what;
	unsigned int i;
	int ret;

	e->rs = 1ull << e->cfg.range_shift;
	ret = sim_env_create(&e->cfg, &e->bcfg, &e->ops, &e->be, &e->cache, &what);
	if (ret)
		return ret;
	for (i = 0; i < nr_inodes && i < FT_INODES; i++) {
		ret = dc_inode_get(e->cache, ft_ino(i), &e->inode[i]);
		if (ret) {
			ft_env_stop(e);
			return ret;
		}
	}
	return 0;
}

void ft_env_settle(struct ft_env *e)
{
	uint64_t end = dci_now_ns() + FT_WAIT_NS;

	for (;;) {
		struct dc_cache_stats st = ft_cst(e);
		struct dc_simbe_stats bs = ft_sst(e);

		if (sim_env_quiet(&st, &bs, e->faults) &&
		    bs.calls[DC_SIMBE_WRITEBACK] == st.writebacks)
			return;
		if (dci_now_ns() > end) {
			ft_fail(__FILE__, __LINE__,
				"no quiescence: free %llu + mapped %llu of %llu, backend maps %llu",
				(unsigned long long)st.nr_free,
				(unsigned long long)st.nr_mapped,
				(unsigned long long)st.nr_ranges,
				(unsigned long long)bs.nr_mapped);
			return;
		}
		ft_sleep_us(500);
	}
}

static int env_inode_of(const struct ft_env *e, uint64_t id)
{
	if (id < FT_INO_BASE || id >= FT_INO_BASE + FT_INODES ||
	    !e->inode[id - FT_INO_BASE])
		return -1;
	return (int)(id - FT_INO_BASE);
}

/*
 * Check a pin of inode @i at @off: the backend maps that file range at the
 * pin's window range, writable if the pin is, with the right content.
 */
static void check_pin(struct ft_env *e, unsigned int i, uint64_t off,
		      const struct dc_pin *pin)
{
	struct dc_simbe_mapping m;
	uint64_t in = off & (e->rs - 1);

	FT_CHECK(pin->win_off < e->cfg.window_size);
	FT_CHECK_INT(pin->win_off & (e->rs - 1), in);
	FT_CHECK_INT(pin->len, e->rs - in);
	FT_CHECK_INT(dc_simbe_lookup(e->be, pin->win_off, &m, sizeof(m)), 0);
	FT_CHECK_INT(m.ino, ft_ino(i));
	FT_CHECK_INT(m.file_off, off - in);
	if (pin->writable)
		FT_CHECK(m.flags & DC_MAP_WRITE);
	FT_CHECK_INT(dc_simbe_check_tag(e->be, pin->win_off, ft_ino(i), off), 0);
}

int ft_map(struct ft_env *e, unsigned int i, uint64_t off, unsigned int flags,
	   struct dc_pin *pin)
{
	int ret = dc_map(e->inode[i], off, flags, pin);

	if (!ret)
		check_pin(e, i, off, pin);
	return ret;
}

void ft_touch(struct ft_env *e, unsigned int i, uint64_t off, unsigned int flags)
{
	struct dc_pin pin;

	FT_CHECK_INT(ft_map(e, i, off, flags, &pin), 0);
	dc_unpin(&pin);
}

/*
 * The oldest mapping, inode 2's and writable, is the background
 * reclaimer's victim, and its writeback is held at the gate, so the
 * reclaimer frees nothing; the others are inode 0's, idle.  The fill maps
 * with DC_MAP_NORECLAIM because only a miss that cannot reclaim inline
 * kicks the reclaimer when the free pool falls below its threshold.
 */
bool ft_freeze_reclaimer(struct ft_env *e)
{
	unsigned int k;

	dc_simbe_gate_close(e->be, DC_SIMBE_WRITEBACK);
	ft_touch(e, 2, 0, DC_MAP_WRITE | DC_MAP_NORECLAIM);
	for (k = 0; k + 1 < e->nr; k++)
		ft_touch(e, 0, (uint64_t)k * e->rs, DC_MAP_NORECLAIM);
	return FT_WAIT(dc_simbe_gate_waiters(e->be, DC_SIMBE_WRITEBACK) == 1);
}

/*
 * Every record of the backend that names a live inode of ours is a mapping
 * the cache knows: a non-blocking, non-reclaiming map of it is a hit on the
 * same window range.  Or the record is on its way out (the reclaimer claimed
 * it and its remove comes), and then it goes.  With injected backend
 * failures a stale record may stay (a failed remove).
 */
static void check_record(struct ft_env *e, uint64_t w,
			 const struct dc_simbe_mapping *m, unsigned int i)
{
	uint64_t end = dci_now_ns() + FT_WAIT_NS;

	while (sim_record_still(e->be, w, m->seq)) {
		struct dc_cache_stats before = ft_cst(e);
		struct dc_pin pin;
		int ret;

		ret = dc_map(e->inode[i], m->file_off,
			     DC_MAP_NOWAIT | DC_MAP_NORECLAIM, &pin);
		if (!ret) {
			bool hit = ft_cst(e).misses == before.misses &&
				   (pin.win_off & ~(e->rs - 1)) == w;

			if (hit)
				check_pin(e, i, m->file_off, &pin);
			dc_unpin(&pin);
			if (hit)
				return;
		} else if (ret != -EAGAIN) {
			ft_fail(__FILE__, __LINE__, "dc_map: %d", ret);
			return;
		}
		if (e->faults)
			return;
		if (dci_now_ns() > end) {
			ft_fail(__FILE__, __LINE__,
				"backend maps inode %llu offset %llu at %llu; the cache does not know it",
				(unsigned long long)m->ino,
				(unsigned long long)m->file_off,
				(unsigned long long)w);
			return;
		}
		ft_sleep_us(500);
	}
}

static void check_records(struct ft_env *e)
{
	uint64_t w;

	for (w = 0; w < e->cfg.window_size; w += e->rs) {
		struct dc_simbe_mapping m;
		int i;

		if (dc_simbe_lookup(e->be, w, &m, sizeof(m)))
			continue;
		i = env_inode_of(e, m.ino);
		if (i >= 0)
			check_record(e, w, &m, (unsigned int)i);
	}
}

void ft_env_check(struct ft_env *e)
{
	struct dc_simbe_stats bs;
	struct dc_cache_stats st;
	unsigned long nr_inodes = 0;
	const char *what;
	unsigned int i;
	uint64_t n;

	ft_env_settle(e);
	st = ft_cst(e);
	bs = ft_sst(e);
	FT_CHECK_INT(st.nr_ranges, e->nr);
	FT_CHECK_INT(st.nr_free + st.nr_mapped, st.nr_ranges);
	for (i = 0; i < FT_INODES; i++)
		nr_inodes += e->inode[i] != NULL;
	FT_CHECK(st.nr_inodes >= nr_inodes);
	what = sim_be_violation(&bs, e->faults, &n);
	if (what)
		ft_fail(__FILE__, __LINE__, "%llu %s", (unsigned long long)n, what);
	if (!e->faults)
		FT_CHECK_INT(bs.nr_mapped, st.nr_mapped);
	check_records(e);
}

void ft_env_stop(struct ft_env *e)
{
	unsigned int i;

	for (i = 0; i < FT_INODES; i++) {
		dc_inode_put(e->inode[i]);
		e->inode[i] = NULL;
	}
	if (e->cache) {
		dc_cache_destroy(e->cache);
		e->cache = NULL;
		if (!e->faults) {
			struct dc_simbe_stats bs = ft_sst(e);

			FT_CHECK_INT(bs.nr_mapped, 0);
			FT_CHECK_INT(bs.lost_writes, 0);
			FT_CHECK_INT(bs.remove_unmapped, 0);
		}
	}
	if (e->be) {
		struct dc_simbe_stats bs = ft_sst(e);

		FT_CHECK_INT(bs.overlaps, 0);
		FT_CHECK_INT(bs.bad_calls, 0);
		FT_CHECK_INT(bs.remove_mismatches, 0);
		dc_simbe_destroy(e->be);
		e->be = NULL;
	}
}
