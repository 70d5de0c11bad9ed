// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault_backend.c - each backend op (setup, remove, writeback) failing with
 * each errno a backend may return, on each path of the cache that calls it,
 * against what include/daxcache/cache.h promises:
 *
 * - setup fails (miss, upgrade, inline reclaim): dc_map() returns that very
 *   errno, the range goes back to the free pool (an upgrade leaves the
 *   read-only mapping in place), and mapping again works;
 * - remove fails (inline reuse with DC_CACHE_REMOVE_ON_INLINE, background
 *   reclaim, punch, evict, destroy): nobody sees the error, the ranges are
 *   still freed and reused (a later setup replaces the stale mapping);
 * - writeback fails (inline reclaim, background reclaim, punch): the mapping
 *   stays, dirty; punch returns the errno; on evict and destroy the mapping
 *   is dropped anyway (the backend then counts the lost write).
 *
 * The errnos: a backend passes on whatever its transport or the kernel says,
 * so the cache must hand back any errno unchanged and treat none specially.
 * The set covers what mmap(2), msync(2) and a virtio-fs request can return
 * (-EIO, -ENOMEM, -EINVAL, -EBADF, -EACCES, -EFAULT), a dead daemon
 * (-ENOTCONN), and the three that mean something else inside this library
 * and so could be mistaken for its own answers: -EAGAIN (DC_MAP_NOWAIT),
 * -EINTR (an interrupted wait) and -ENOSPC (the request queue's "retry").
 */
#include "fault_test.h"

static const int errnos[] = {
	-EIO, -ENOMEM, -ENOSPC, -EINTR, -EAGAIN, -EFAULT, -EINVAL, -ENOTCONN,
	-EBADF, -EACCES,
};

static void fail_every(struct ft_env *e, enum dc_simbe_op op, int err)
{
	struct dc_simbe_fault f = { .err = err, .every = 1 };

	FT_CHECK_INT(dc_simbe_set_fault(e->be, op, &f, sizeof(f)), 0);
}

static void disarm(struct ft_env *e, enum dc_simbe_op op)
{
	FT_CHECK_INT(dc_simbe_set_fault(e->be, op, NULL, 0), 0);
}

/* A mapping of inode @i at index @idx is in the backend, dirty or not. */
static void check_mapped(struct ft_env *e, const struct dc_pin *where,
			 unsigned int i, uint64_t idx, bool dirty)
{
	struct dc_simbe_mapping m;

	FT_CHECK_INT(dc_simbe_lookup(e->be, where->win_off, &m, sizeof(m)), 0);
	FT_CHECK_INT(m.ino, ft_ino(i));
	FT_CHECK_INT(m.file_off, idx * e->rs);
	FT_CHECK_INT(m.dirty, dirty);
}

/* Map inode @i at @idx writable, write through it, unpin; the pin's place. */
static struct dc_pin map_dirty(struct ft_env *e, unsigned int i, uint64_t idx)
{
	struct dc_pin pin;

	memset(&pin, 0, sizeof(pin));
	FT_CHECK_INT(ft_map(e, i, idx * e->rs, DC_MAP_WRITE, &pin), 0);
	FT_CHECK_INT(dc_simbe_write(e->be, pin.win_off, ft_ino(i), idx * e->rs), 0);
	dc_unpin(&pin);
	return pin;
}

/* --- setup ---------------------------------------------------------------- */

static void setup_miss(struct ft_env *e, int err)
{
	struct dc_cache_stats st;
	struct dc_pin pin;

	FT_CHECK_INT(dc_simbe_fail_next(e->be, DC_SIMBE_SETUP, err), 0);
	FT_CHECK_INT(ft_map(e, 0, 5 * e->rs, DC_MAP_WRITE, &pin), err);
	st = ft_cst(e);
	FT_CHECK_INT(st.setup_failures, 1);
	FT_CHECK_INT(st.nr_free, e->nr);
	FT_CHECK_INT(st.nr_mapped, 0);
	FT_CHECK_INT(ft_sst(e).nr_mapped, 0);
	ft_touch(e, 0, 5 * e->rs, DC_MAP_WRITE);
	FT_CHECK_INT(ft_cst(e).misses, 1);
}

static void setup_upgrade(struct ft_env *e, int err)
{
	struct dc_cache_stats before;
	struct dc_simbe_mapping m;
	struct dc_pin pin;

	ft_touch(e, 0, 0, 0);
	before = ft_cst(e);
	FT_CHECK_INT(dc_simbe_fail_next(e->be, DC_SIMBE_SETUP, err), 0);
	FT_CHECK_INT(ft_map(e, 0, 100, DC_MAP_WRITE, &pin), err);
	/* The read-only mapping is still there, unpinned. */
	FT_CHECK_INT(ft_map(e, 0, 200, 0, &pin), 0);
	FT_CHECK(!pin.writable);
	FT_CHECK_INT(dc_simbe_lookup(e->be, pin.win_off, &m, sizeof(m)), 0);
	FT_CHECK(!(m.flags & DC_MAP_WRITE));
	dc_unpin(&pin);
	FT_CHECK_INT(ft_cst(e).misses, before.misses);
	FT_CHECK_INT(ft_cst(e).upgrades, 0);
	/* It can be dropped (no pin leaked), and upgraded later. */
	ft_env_settle(e);
	FT_CHECK_INT(ft_map(e, 0, 300, DC_MAP_WRITE, &pin), 0);
	FT_CHECK(pin.writable);
	dc_unpin(&pin);
	FT_CHECK_INT(ft_cst(e).upgrades, 1);
}

static void setup_inline(struct ft_env *e, int err)
{
	struct dc_cache_stats before, st;
	struct dc_pin pin;

	if (!ft_freeze_reclaimer(e))
		return;
	before = ft_cst(e);
	FT_CHECK_INT(dc_simbe_fail_next(e->be, DC_SIMBE_SETUP, err), 0);
	FT_CHECK_INT(ft_map(e, 0, 10 * e->rs, 0, &pin), err);
	st = ft_cst(e);
	FT_CHECK_INT(st.inline_reclaims, before.inline_reclaims + 1);
	/* The reclaimed range is free again, its old mapping removed. */
	FT_CHECK_INT(st.nr_free, 1);
	FT_CHECK_INT(st.nr_mapped, before.nr_mapped - 1);
	FT_CHECK_INT(ft_sst(e).nr_mapped, st.nr_mapped);
	dc_simbe_gate_open(e->be, DC_SIMBE_WRITEBACK);
	ft_touch(e, 0, 10 * e->rs, 0);
}

/* --- remove --------------------------------------------------------------- */

static void remove_inline(struct ft_env *e, int err)
{
	struct dc_cache_stats before, st;

	if (!ft_freeze_reclaimer(e))
		return;
	before = ft_cst(e);
	FT_CHECK_INT(dc_simbe_fail_next(e->be, DC_SIMBE_REMOVE, err), 0);
	ft_touch(e, 0, 10 * e->rs, 0);
	st = ft_cst(e);
	FT_CHECK_INT(st.inline_reclaims, before.inline_reclaims + 1);
	FT_CHECK_INT(st.remove_failures, 1);
	FT_CHECK_INT(ft_sst(e).injected[DC_SIMBE_REMOVE], 1);
	dc_simbe_gate_open(e->be, DC_SIMBE_WRITEBACK);
}

static void remove_bg(struct ft_env *e, int err)
{
	unsigned int k;

	/* The first remove the reclaimer sends fails. */
	FT_CHECK_INT(dc_simbe_fail_next(e->be, DC_SIMBE_REMOVE, err), 0);
	for (k = 0; k < e->nr; k++)
		ft_touch(e, 0, (uint64_t)k * e->rs, k % 2 ? DC_MAP_WRITE : 0);
	FT_CHECK_INT(dc_wait_free(e->cache, FT_WAIT_NS), 0);
	FT_WAIT(ft_cst(e).remove_failures == 1);
	ft_env_settle(e);
	FT_CHECK(ft_cst(e).bg_reclaims >= 1);
	FT_CHECK_INT(ft_sst(e).injected[DC_SIMBE_REMOVE], 1);
	/* The freed ranges are reused: new mappings replace the stale ones. */
	for (k = 0; k < e->nr; k++)
		ft_touch(e, 1, (uint64_t)k * e->rs, 0);
}

/*
 * Inode @i maps its first three ranges (the second written), and the next
 * remove() fails with @err: the three go in one batch, whatever drops them.
 */
static void arm_remove_of_three(struct ft_env *e, unsigned int i, int err)
{
	unsigned int k;

	for (k = 0; k < 3; k++)
		ft_touch(e, i, (uint64_t)k * e->rs, k == 1 ? DC_MAP_WRITE : 0);
	FT_CHECK_INT(dc_simbe_fail_next(e->be, DC_SIMBE_REMOVE, err), 0);
}

static void remove_punch(struct ft_env *e, int err)
{
	struct dc_cache_stats st;
	unsigned int k;

	arm_remove_of_three(e, 0, err);
	FT_CHECK_INT(dc_inode_punch(e->inode[0], 0, UINT64_MAX), 0);
	st = ft_cst(e);
	FT_CHECK_INT(st.remove_failures, 1);
	FT_CHECK_INT(st.nr_free, e->nr);
	FT_CHECK_INT(st.nr_mapped, 0);
	for (k = 0; k < 3; k++)
		ft_touch(e, 1, (uint64_t)k * e->rs, 0);
	FT_CHECK_INT(ft_cst(e).misses, 6);
}

static void remove_evict(struct ft_env *e, int err)
{
	struct dc_cache_stats st;
	unsigned int k;

	arm_remove_of_three(e, 2, err);
	dc_inode_put(e->inode[2]);
	e->inode[2] = NULL;
	st = ft_cst(e);
	FT_CHECK_INT(st.remove_failures, 1);
	FT_CHECK_INT(st.nr_free, e->nr);
	FT_CHECK_INT(st.nr_inodes, FT_INODES - 1);
	FT_CHECK_INT(dc_inode_get(e->cache, ft_ino(2), &e->inode[2]), 0);
	for (k = 0; k < 3; k++)
		ft_touch(e, 2, (uint64_t)k * e->rs, 0);
	FT_CHECK_INT(ft_cst(e).misses, 6);
}

/* Destroy with an inode still referenced: reported, and evicted anyway. */
static void destroy_with_inode(struct ft_env *e)
{
	unsigned int i;

	for (i = 1; i < FT_INODES; i++) {
		dc_inode_put(e->inode[i]);
		e->inode[i] = NULL;
	}
	e->inode[0] = NULL;		/* the cache's destroy evicts it */
	dc_cache_destroy(e->cache);
	e->cache = NULL;
}

static void remove_destroy(struct ft_env *e, int err)
{
	arm_remove_of_three(e, 0, err);
	destroy_with_inode(e);
	FT_CHECK_INT(ft_sst(e).injected[DC_SIMBE_REMOVE], 1);
	FT_CHECK_INT(ft_sst(e).calls[DC_SIMBE_WRITEBACK], 1);
	FT_CHECK_INT(ft_sst(e).lost_writes, 0);
}

/* --- writeback ------------------------------------------------------------ */

static void writeback_inline(struct ft_env *e, int err)
{
	struct dc_cache_stats before;
	struct dc_pin dirty, busy, pin;

	/* Armed first: the reclaimer starts as soon as the window is full. */
	fail_every(e, DC_SIMBE_WRITEBACK, err);
	dirty = map_dirty(e, 0, 0);
	FT_CHECK_INT(ft_map(e, 1, 0, 0, &busy), 0);
	/* The only idle range cannot be written back, so it cannot go. */
	FT_CHECK_INT(dc_map_timeout(e->inode[1], e->rs, 0, 50 * FT_MS, &pin),
		     -ETIMEDOUT);
	FT_CHECK(ft_cst(e).writeback_failures >= 1);
	FT_CHECK_INT(ft_cst(e).inline_reclaims, 0);
	check_mapped(e, &dirty, 0, 0, true);
	/* Still mapped: a hit. */
	before = ft_cst(e);
	ft_touch(e, 0, 0, 0);
	FT_CHECK_INT(ft_cst(e).misses, before.misses);
	disarm(e, DC_SIMBE_WRITEBACK);
	FT_CHECK_INT(ft_map(e, 1, e->rs, 0, &pin), 0);
	FT_CHECK_INT(pin.win_off & ~(e->rs - 1), dirty.win_off & ~(e->rs - 1));
	dc_unpin(&pin);
	dc_unpin(&busy);
	FT_CHECK_INT(ft_sst(e).lost_writes, 0);
}

/* With no range free: a miss that may not reclaim kicks the reclaimer. */
static bool kick_reclaimer(struct ft_env *e)
{
	struct dc_pin pin;

	FT_CHECK_INT(dc_map(e->inode[1], 1000 * e->rs,
			    DC_MAP_NOWAIT | DC_MAP_NORECLAIM, &pin), -EAGAIN);
	return true;
}

static void writeback_bg(struct ft_env *e, int err)
{
	struct dc_pin pin[3];
	unsigned int k;

	fail_every(e, DC_SIMBE_WRITEBACK, err);
	for (k = 0; k < e->nr; k++)
		pin[k] = map_dirty(e, 0, k);
	/*
	 * The window is full: the reclaimer runs, and frees nothing.  The
	 * kick of the last miss may find the inode's mutex still held by that
	 * miss, so kick again until a writeback was tried.
	 */
	FT_WAIT(kick_reclaimer(e) &&
		ft_sst(e).injected[DC_SIMBE_WRITEBACK] >= 1);
	for (k = 0; k < e->nr; k++)
		check_mapped(e, &pin[k], 0, k, true);
	FT_CHECK_INT(ft_cst(e).bg_reclaims, 0);
	disarm(e, DC_SIMBE_WRITEBACK);
	FT_CHECK_INT(dc_wait_free(e->cache, FT_WAIT_NS), 0);
	ft_env_settle(e);
	FT_CHECK(ft_cst(e).bg_reclaims >= 1);
	FT_CHECK_INT(ft_sst(e).lost_writes, 0);
}

static void writeback_punch(struct ft_env *e, int err)
{
	struct dc_cache_stats st;
	struct dc_pin dirty;

	dirty = map_dirty(e, 0, 0);
	ft_touch(e, 0, e->rs, 0);
	fail_every(e, DC_SIMBE_WRITEBACK, err);
	FT_CHECK_INT(dc_inode_punch(e->inode[0], 0, UINT64_MAX), err);
	st = ft_cst(e);
	FT_CHECK_INT(st.nr_mapped, 1);
	FT_CHECK_INT(st.writeback_failures, 1);
	check_mapped(e, &dirty, 0, 0, true);
	disarm(e, DC_SIMBE_WRITEBACK);
	FT_CHECK_INT(dc_inode_punch(e->inode[0], 0, UINT64_MAX), 0);
	FT_CHECK_INT(ft_cst(e).nr_mapped, 0);
	FT_CHECK_INT(ft_sst(e).lost_writes, 0);
}

static void writeback_evict(struct ft_env *e, int err)
{
	struct dc_cache_stats st;

	map_dirty(e, 2, 0);
	ft_touch(e, 2, e->rs, 0);
	fail_every(e, DC_SIMBE_WRITEBACK, err);
	dc_inode_put(e->inode[2]);
	e->inode[2] = NULL;
	st = ft_cst(e);
	FT_CHECK_INT(st.writeback_failures, 1);
	FT_CHECK_INT(st.nr_free, e->nr);
	FT_CHECK_INT(ft_sst(e).nr_mapped, 0);
	/* Dropped anyway: the dirty data is lost, as documented. */
	FT_CHECK_INT(ft_sst(e).lost_writes, 1);
	disarm(e, DC_SIMBE_WRITEBACK);
	e->faults = true;
}

static void writeback_destroy(struct ft_env *e, int err)
{
	map_dirty(e, 0, 0);
	ft_touch(e, 0, e->rs, 0);
	fail_every(e, DC_SIMBE_WRITEBACK, err);
	destroy_with_inode(e);
	FT_CHECK_INT(ft_sst(e).injected[DC_SIMBE_WRITEBACK], 1);
	FT_CHECK_INT(ft_sst(e).nr_mapped, 0);
	FT_CHECK_INT(ft_sst(e).lost_writes, 1);
	e->faults = true;
}

/* --- the table ------------------------------------------------------------ */

struct bcase {
	const char *op;
	const char *path;
	void (*fn)(struct ft_env *e, int err);
	unsigned int nr;		/* ranges in the window */
	unsigned int threshold_pct;
	unsigned int flags;		/* DC_CACHE_* */
	bool stale;			/* a failed remove leaves stale records */
};

static const struct bcase bcases[] = {
	{ "setup", "miss", setup_miss, 4, 0, 0, false },
	{ "setup", "upgrade", setup_upgrade, 4, 0, 0, false },
	{ "setup", "inline reclaim", setup_inline, 3, 0, 0, false },
	{ "remove", "inline reclaim", remove_inline, 3, 0,
	  DC_CACHE_REMOVE_ON_INLINE, false },
	{ "remove", "background reclaim", remove_bg, 4, 50, 0, true },
	{ "remove", "punch", remove_punch, 4, 0, 0, true },
	{ "remove", "evict", remove_evict, 4, 0, 0, true },
	{ "remove", "destroy", remove_destroy, 4, 0, 0, true },
	{ "writeback", "inline reclaim", writeback_inline, 2, 0, 0, false },
	{ "writeback", "background reclaim", writeback_bg, 3, 0, 0, false },
	{ "writeback", "punch", writeback_punch, 4, 0, 0, false },
	{ "writeback", "evict", writeback_evict, 4, 0, 0, false },
	{ "writeback", "destroy", writeback_destroy, 4, 0, 0, false },
};

unsigned long ft_backend_run(void)
{
	unsigned long cases = 0;
	size_t b, i;

	for (b = 0; b < DCI_ARRAY_SIZE(bcases); b++) {
		const struct bcase *bc = &bcases[b];

		for (i = 0; i < DCI_ARRAY_SIZE(errnos); i++) {
			struct ft_env e;
			unsigned int k;
			int ret;

			snprintf(ft_context, sizeof(ft_context), "%s fails %d on %s",
				 bc->op, errnos[i], bc->path);
			ft_env_init(&e, bc->nr);
			e.cfg.reclaim_threshold_pct = bc->threshold_pct;
			e.cfg.flags = bc->flags;
			e.faults = bc->stale;
			ret = ft_env_start(&e, FT_INODES);
			if (ret) {
				ft_fail(__FILE__, __LINE__, "env: %d", ret);
				continue;
			}
			bc->fn(&e, errnos[i]);
			for (k = 0; k < DC_SIMBE_NR_OPS; k++) {
				dc_simbe_gate_open(e.be, (enum dc_simbe_op)k);
				dc_simbe_set_fault(e.be, (enum dc_simbe_op)k, NULL, 0);
			}
			if (e.cache)
				ft_env_check(&e);
			ft_env_stop(&e);
			cases++;
		}
		printf("fault: backend %-9s fails on %-18s %2zu errnos\n", bc->op,
		       bc->path, DCI_ARRAY_SIZE(errnos));
	}
	printf("fault: %lu backend cases (%zu op/path pairs x %zu errnos)\n",
	       cases, DCI_ARRAY_SIZE(bcases), DCI_ARRAY_SIZE(errnos));
	return cases;
}
