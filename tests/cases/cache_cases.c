// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cache_cases.c - the DAX window cache against the simulation backend: the
 * contract of include/daxcache/cache.h, one behaviour per case.
 *
 * Each case builds an environment (a simbe, a cache over it, a few inodes)
 * and hands it back to env_finish(), which releases what a failing case left
 * behind and checks the invariants: free + mapped == ranges, every mapping
 * the cache hands out is the one the backend holds at that window range, and
 * every mapping the backend holds is one the cache knows.  Nothing waits on
 * a clock to pass: background work is awaited with a generous bound, and
 * background threads are frozen at a known point with the simbe's gates.
 */
#include "dc_test.h"

#include <daxcache/cache.h>
#include <daxcache/fault.h>
#include <daxcache/simbe.h>

#include "sim_env.h"

#define ENV_INODES	4u		/* ids INO_BASE + 0..3 */
#define ENV_PINS	16u
#define ENV_PROBE_IDX	64u		/* indexes the invariant check probes */
#define INO_BASE	1000u
#define MS		1000000ull

struct env {
	struct dc_cache_config cfg;
	struct dc_simbe_config bcfg;
	struct dc_backend_ops ops;
	struct dc_simbe *be;
	struct dc_cache *cache;
	struct dc_inode *inode[ENV_INODES];
	struct dc_pin pin[ENV_PINS];
	uint64_t rs;
	unsigned int nr;
	bool failures;			/* faults were injected: stale records ok */
};

static inline uint64_t ino_id(unsigned int i)
{
	return INO_BASE + i;
}


/* Snapshots of the cache's and the backend's counters. */
#define cst(e)	sim_cache_stats((e)->cache)
#define sst(e)	sim_be_stats((e)->be)

/* Defaults for a window of @nr ranges of 2 MiB, with a short range wait. */
static void env_init(struct env *e, unsigned int nr)
{
	memset(e, 0, sizeof(*e));
	e->nr = nr;
	dc_cache_config_init(&e->cfg, sizeof(e->cfg), (uint64_t)nr << 21);
	e->cfg.wait_timeout_ns = DC_WAIT_LIMIT_NS;
	dc_simbe_config_init(&e->bcfg, sizeof(e->bcfg), (uint64_t)nr << 21);
	e->ops = *dc_simbe_ops();
}

/* Create the backend, the cache and the inodes.  Returns false on failure. */
static bool env_start(struct dc_test *t, struct env *e)
{
	const char *what;
	unsigned int i;
	int ret;

	e->rs = 1ull << e->cfg.range_shift;
	ret = sim_env_create(&e->cfg, &e->bcfg, &e->ops, &e->be, &e->cache, &what);
	if (ret) {
		dc_test_fail(t, __FILE__, __LINE__, "%s: %d", what, ret);
		return false;
	}
	for (i = 0; i < ENV_INODES; i++) {
		ret = dc_inode_get(e->cache, ino_id(i), &e->inode[i]);
		if (ret) {
			dc_test_fail(t, __FILE__, __LINE__, "dc_inode_get: %d", ret);
			return false;
		}
	}
	return true;
}

/* The environment's inode with id @id, or -1. */
static int env_inode_of(const struct env *e, uint64_t id)
{
	if (id < INO_BASE || id >= INO_BASE + ENV_INODES ||
	    !e->inode[id - INO_BASE])
		return -1;
	return (int)(id - INO_BASE);
}

/*
 * A pin of inode @i at @off: the backend maps exactly that file range at
 * the pin's window range, with the right offset inside it, and the content
 * (the tag) is the right one.
 */
static void check_pin(struct dc_test *t, struct env *e, unsigned int i,
		      uint64_t off, const struct dc_pin *pin)
{
	struct dc_simbe_mapping m;
	uint64_t in = off & (e->rs - 1);

	DC_ASSERT(t, pin->win_off < e->cfg.window_size);
	DC_ASSERT_EQ(t, pin->win_off & (e->rs - 1), in);
	DC_ASSERT_EQ(t, pin->len, e->rs - in);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, pin->win_off, &m, sizeof(m)), 0);
	DC_ASSERT_EQ(t, m.ino, ino_id(i));
	DC_ASSERT_EQ(t, m.file_off, off - in);
	if (pin->writable)
		DC_ASSERT(t, m.flags & DC_MAP_WRITE);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(e->be, pin->win_off, ino_id(i),
					       off), 0);
}

/* Map, check and keep the pin in slot @k. */
static void pin_at(struct dc_test *t, struct env *e, unsigned int k,
		   unsigned int i, uint64_t off, unsigned int flags)
{
	DC_ASSERT(t, k < ENV_PINS);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[i], off, flags, &e->pin[k]), 0);
	check_pin(t, e, i, off, &e->pin[k]);
}

/* Map, check and unpin. */
static void touch(struct dc_test *t, struct env *e, unsigned int i,
		  uint64_t off, unsigned int flags)
{
	struct dc_pin pin;

	DC_ASSERT_INT_EQ(t, dc_map(e->inode[i], off, flags, &pin), 0);
	check_pin(t, e, i, off, &pin);
	dc_unpin(&pin);
}

/* The window range base of a pin. */
static inline uint64_t pin_base(const struct env *e, const struct dc_pin *p)
{
	return p->win_off & ~(e->rs - 1);
}

/*
 * Make a dirty range: map inode @i at @off for writing (in pin slot 0),
 * write it there and unpin.  *@base, where not NULL, is its window range.
 */
static void dirty_at(struct dc_test *t, struct env *e, unsigned int i,
		     uint64_t off, uint64_t *base)
{
	pin_at(t, e, 0, i, off, DC_MAP_WRITE);
	DC_RETURN_IF_FAILED(t);
	if (base)
		*base = pin_base(e, &e->pin[0]);
	DC_ASSERT_INT_EQ(t, dc_simbe_write(e->be, e->pin[0].win_off, ino_id(i),
					   off), 0);
	dc_unpin(&e->pin[0]);
}

/* Log the counters of the cache and the backend: a diagnostic, not a check. */
static void log_counters(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats st = cst(e);
	struct dc_simbe_stats bs = sst(e);

	dc_test_log(t, "%u ranges, %llu free, %llu mapped (backend: %llu): %llu hits, %llu misses, %llu upgrades, %llu inline, %llu bg, %llu removes in %llu calls (backend: %llu, max %llu), %llu writebacks, %llu waits",
		    e->nr, (unsigned long long)st.nr_free,
		    (unsigned long long)st.nr_mapped,
		    (unsigned long long)bs.nr_mapped,
		    (unsigned long long)st.hits,
		    (unsigned long long)st.misses,
		    (unsigned long long)st.upgrades,
		    (unsigned long long)st.inline_reclaims,
		    (unsigned long long)st.bg_reclaims,
		    (unsigned long long)st.removes_sent,
		    (unsigned long long)st.remove_batches,
		    (unsigned long long)bs.calls[DC_SIMBE_REMOVE],
		    (unsigned long long)bs.max_batch,
		    (unsigned long long)st.writebacks,
		    (unsigned long long)st.waits);
}

/*
 * Wait until background work is over: every range is free or mapped, and
 * (without injected failures) the backend maps as many ranges as the cache
 * believes mapped, and every remove() and writeback() call has returned.
 */
static void env_settle(struct dc_test *t, struct env *e)
{
	uint64_t end = dci_now_ns() + DC_WAIT_LIMIT_NS;

	for (;;) {
		struct dc_cache_stats st = cst(e);
		struct dc_simbe_stats bs = sst(e);

		if (sim_env_quiet(&st, &bs, e->failures))
			return;
		if (dci_now_ns() > end) {
			log_counters(t, e);
			dc_test_fail(t, __FILE__, __LINE__, "no quiescence");
			return;
		}
		dc_test_sleep_us(1000);
	}
}

/*
 * Every record of the backend is a mapping the cache knows: mapping that
 * file range again lands on the same window range.  A record the cache does
 * not know may only be on its way out (a remove in flight), or be left by an
 * injected failure.
 */
static void check_records(struct dc_test *t, struct env *e)
{
	uint64_t w;

	for (w = 0; w < e->cfg.window_size; w += e->rs) {
		struct dc_simbe_mapping m;
		struct dc_pin pin;
		bool known = false;
		int i, ret;

		if (dc_simbe_lookup(e->be, w, &m, sizeof(m)))
			continue;
		i = env_inode_of(e, m.ino);
		if (i >= 0) {
			ret = dc_map(e->inode[i], m.file_off,
				     DC_MAP_NOWAIT | DC_MAP_NORECLAIM, &pin);
			if (!ret) {
				check_pin(t, e, (unsigned int)i, m.file_off, &pin);
				known = pin_base(e, &pin) == w;
				dc_unpin(&pin);
				DC_RETURN_IF_FAILED(t);
			} else if (ret != -EAGAIN && !e->failures) {
				DC_ASSERT_INT_EQ(t, ret, 0);
			}
		}
		if (known || e->failures)
			continue;
		/* Unknown to the cache: it must be on its way out. */
		DC_WAIT_FOR(t, !sim_record_still(e->be, w, m.seq));
	}
}

/*
 * Every mapping the cache hands out (probing the first indexes of every
 * inode, without reclaim) is what the backend maps there.
 */
static void check_probe(struct dc_test *t, struct env *e)
{
	unsigned int i;
	uint64_t idx;

	for (i = 0; i < ENV_INODES; i++) {
		if (!e->inode[i])
			continue;
		for (idx = 0; idx < ENV_PROBE_IDX; idx++) {
			uint64_t off = idx * e->rs + (idx * 4099) % e->rs;
			struct dc_pin pin;
			int ret;

			ret = dc_map(e->inode[i], off,
				     DC_MAP_NOWAIT | DC_MAP_NORECLAIM, &pin);
			if (ret == -EAGAIN || (ret && e->failures))
				continue;
			DC_ASSERT_INT_EQ(t, ret, 0);
			check_pin(t, e, i, off, &pin);
			dc_unpin(&pin);
			DC_RETURN_IF_FAILED(t);
		}
	}
}

/* The invariants that hold whenever the cache is quiet. */
static void check_invariants(struct dc_test *t, struct env *e)
{
	struct dc_simbe_stats bs;
	struct dc_cache_stats st;
	const char *what;
	uint64_t n;

	/*
	 * Quiet means free + mapped == all for a while; one sample later the
	 * background reclaimer (kicked by the case) may hold a claimed range
	 * in neither count, so that sum is not asserted again here.
	 */
	env_settle(t, e);
	DC_RETURN_IF_FAILED(t);
	st = cst(e);
	DC_ASSERT_EQ(t, st.nr_ranges, e->nr);
	bs = sst(e);
	what = sim_be_violation(&bs, e->failures, &n);
	if (what) {
		dc_test_fail(t, __FILE__, __LINE__, "%llu %s",
			     (unsigned long long)n, what);
		return;
	}
	if (!e->failures) {
		/*
		 * A range the background reclaimer has claimed has left the
		 * cache's count before its batched remove reaches the backend.
		 */
		DC_WAIT_FOR(t, sst(e).nr_mapped == cst(e).nr_mapped);
		/* The cache counts a call just before or after making it. */
		DC_WAIT_FOR(t, sst(e).calls[DC_SIMBE_WRITEBACK] == cst(e).writebacks);
		DC_WAIT_FOR(t, sst(e).removed_entries == cst(e).removes_sent);
	}
	check_records(t, e);
	DC_RETURN_IF_FAILED(t);
	check_probe(t, e);
	DC_RETURN_IF_FAILED(t);
	/* The probe may have kicked the reclaimer: quiet again, for a while. */
	env_settle(t, e);
}

/*
 * Release what the case left (gates, faults, pins), check the invariants if
 * the case passed, and tear down.  After destroy nothing may stay mapped.
 */
static void env_finish(struct dc_test *t, struct env *e)
{
	unsigned int i;
	bool passed;

	if (e->be) {
		for (i = 0; i < DC_SIMBE_NR_OPS; i++) {
			dc_simbe_gate_open(e->be, (enum dc_simbe_op)i);
			dc_simbe_set_fault(e->be, (enum dc_simbe_op)i, NULL, 0);
		}
	}
	for (i = 0; i < ENV_PINS; i++)
		dc_unpin(&e->pin[i]);
	passed = !dc_test_failed(t);
	if (passed && e->cache)
		check_invariants(t, e);
	for (i = 0; i < ENV_INODES; i++)
		dc_inode_put(e->inode[i]);
	if (e->cache) {
		dc_cache_destroy(e->cache);
		if (passed && !dc_test_failed(t) && !e->failures) {
			struct dc_simbe_stats bs = sst(e);
			const char *what;
			uint64_t n;

			if (bs.nr_mapped)
				dc_test_fail(t, __FILE__, __LINE__,
					     "after destroy: %llu ranges still mapped",
					     (unsigned long long)bs.nr_mapped);
			what = sim_be_violation(&bs, false, &n);
			if (what)
				dc_test_fail(t, __FILE__, __LINE__,
					     "after destroy: %llu %s",
					     (unsigned long long)n, what);
		}
	}
	dc_simbe_destroy(e->be);
}

/* Every case runs its body between these two. */
#define ENV_RUN(t, e, body)	DC_ENV_RUN(env, t, e, body)
#define ENV_CASE(name, nr, body)	DC_ENV_CASE(env, name, nr, body)

/*
 * ENV_RUN_CFG() - run @body in a fresh environment of @nr ranges in a
 * configuration of its own: the arguments after @body are assignments to
 * members of e.cfg, made over env_init()'s defaults before the start.
 * ENV_CASE_CFG() is a case that does only that.
 */
#define ENV_RUN_CFG(t, nr, body, ...) do {				\
	struct env e;							\
									\
	env_init(&e, (nr));						\
	__VA_ARGS__;							\
	ENV_RUN((t), &e, body);						\
} while (0)

#define ENV_CASE_CFG(name, nr, body, ...)				\
DC_TEST(name)								\
{									\
	ENV_RUN_CFG(t, nr, body, __VA_ARGS__);				\
}

/* A start line for test threads: all of them go at once. */
static void start_line(dci_atomic_t *ready, unsigned int n)
{
	unsigned int spins = 0;

	dci_atomic_inc(ready);
	while ((unsigned int)dci_atomic_read(ready) < n) {
		if (++spins % 64 == 0)
			dc_test_sleep_us(1);
		else
			dci_cpu_relax();
	}
}

/* --- configuration ------------------------------------------------------ */

static dci_atomic_t log_lines;

static void count_log(void *priv, int level, const char *msg)
{
	dci_atomic_inc(&log_lines);
}

DC_TEST(cache_config_defaults)
{
	const uint64_t w = 64ull << 21;
	struct dc_cache_config cfg;
	struct dc_cache_stats st;
	struct dc_simbe *be;
	struct dc_cache *c;
	struct dc_simbe_config bcfg;

	memset(&cfg, 0xa5, sizeof(cfg));
	dc_cache_config_init(&cfg, sizeof(cfg), w);
	DC_ASSERT_EQ(t, cfg.window_size, w);
	DC_ASSERT_EQ(t, cfg.range_shift, 21);
	DC_ASSERT_EQ(t, cfg.reclaim_threshold_pct, 20);
	DC_ASSERT_EQ(t, cfg.reclaim_batch, 10);
	DC_ASSERT_EQ(t, cfg.remove_batch_max, 256);
	DC_ASSERT_EQ(t, cfg.victim, DC_VICTIM_CLOCK);
	DC_ASSERT_EQ(t, cfg.flags, 0);
	DC_ASSERT_EQ(t, cfg.wait_timeout_ns, 10000 * MS);

	dc_simbe_config_init(&bcfg, sizeof(bcfg), w);
	DC_ASSERT_INT_EQ(t, dc_simbe_create(&bcfg, sizeof(bcfg), &be), 0);
	DC_ASSERT_INT_EQ(t, dc_cache_create(&cfg, sizeof(cfg), dc_simbe_ops(),
					    sizeof(struct dc_backend_ops), be, &c), 0);
	DC_ASSERT_EQ(t, dc_cache_range_size(c), 2ull << 20);
	DC_ASSERT_INT_EQ(t, dc_cache_stats(c, &st, sizeof(st)), 0);
	DC_ASSERT_EQ(t, st.nr_ranges, 64);
	DC_ASSERT_EQ(t, st.nr_free, 64);
	DC_ASSERT_EQ(t, st.nr_mapped, 0);
	DC_ASSERT_EQ(t, st.nr_inodes, 0);
	DC_ASSERT_EQ(t, st.hits + st.misses + st.removes_sent, 0);
	DC_ASSERT_INT_EQ(t, dc_cache_stats(NULL, &st, sizeof(st)), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_cache_stats(c, NULL, sizeof(st)), -EINVAL);
	dc_cache_destroy(c);
	dc_cache_destroy(NULL);
	dc_simbe_destroy(be);
}

/* Try @cfg with @ops; expect @want, and a log line for each refusal. */
static void try_config(struct dc_test *t, const struct dc_cache_config *cfg,
		       const struct dc_backend_ops *ops, void *priv, int want,
		       const char *what)
{
	struct dc_cache *c = NULL;
	int before = dci_atomic_read(&log_lines);
	int ret = dc_cache_create(cfg, sizeof(*cfg), ops, sizeof(*ops), priv, &c);

	if (ret != want)
		dc_test_fail(t, __FILE__, __LINE__, "%s: got %d, want %d",
			     what, ret, want);
	if (!ret)
		dc_cache_destroy(c);
	else if (dci_atomic_read(&log_lines) == before)
		dc_test_fail(t, __FILE__, __LINE__, "%s: refused without a log line",
			     what);
}

DC_TEST(cache_config_invalid)
{
	const struct dc_backend_ops no_setup = { .remove = dc_simbe_ops()->remove };
	struct dc_simbe_config bcfg;
	struct dc_cache_config good, cfg;
	struct dc_simbe *be;

	dc_simbe_config_init(&bcfg, sizeof(bcfg), 8ull << 21);
	DC_ASSERT_INT_EQ(t, dc_simbe_create(&bcfg, sizeof(bcfg), &be), 0);
	dci_atomic_set(&log_lines, 0);
	dc_set_log_fn(count_log, NULL);
	dc_cache_config_init(&good, sizeof(good), 8ull << 21);

#define BAD(field, value) do {						\
	cfg = good;							\
	cfg.field = (value);						\
	try_config(t, &cfg, dc_simbe_ops(), be, -EINVAL,		\
		   #field " = " #value);				\
} while (0)
	BAD(window_size, 0);
	BAD(window_size, (8ull << 21) + 4096);
	BAD(window_size, 1ull << 20);
	BAD(range_shift, 11);
	BAD(range_shift, 41);
	BAD(range_shift, 0);
	BAD(reclaim_threshold_pct, 101);
	BAD(reclaim_batch, 0);
	BAD(remove_batch_max, 0);
	BAD(victim, (enum dc_victim_policy)(DC_VICTIM_SIEVE + 1));
	BAD(flags, 0x80000000u);
	BAD(flags, 0x10u);
#undef BAD
	try_config(t, &good, NULL, be, -EINVAL, "NULL ops");
	try_config(t, &good, &no_setup, be, -EINVAL, "NULL setup");

	/* The edges of the valid ranges are accepted. */
	cfg = good;
	cfg.range_shift = 12;
	cfg.window_size = 4096;
	try_config(t, &cfg, dc_simbe_ops(), be, 0, "one 4 KiB range");
	cfg.range_shift = 40;
	cfg.window_size = 1ull << 40;
	try_config(t, &cfg, dc_simbe_ops(), be, 0, "one 1 TiB range");
	cfg = good;
	cfg.reclaim_threshold_pct = 100;
	cfg.victim = DC_VICTIM_ROUND_ROBIN;
	cfg.flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_REMOVE_ON_INLINE |
		    DC_CACHE_INLINE_OWN_ONLY | DC_CACHE_WRITEBACK_ALL;
	try_config(t, &cfg, dc_simbe_ops(), be, 0, "threshold 100, all flags");
	cfg = good;
	cfg.reclaim_threshold_pct = 0;
	cfg.reclaim_batch = 1;
	cfg.remove_batch_max = 1;
	cfg.wait_timeout_ns = DC_WAIT_FOREVER;
	try_config(t, &cfg, dc_simbe_ops(), be, 0, "threshold 0, batches 1");
	cfg.remove_batch_max = UINT_MAX;
	try_config(t, &cfg, dc_simbe_ops(), be, 0, "remove_batch_max UINT_MAX");
	dc_set_log_fn(NULL, NULL);
	dc_simbe_destroy(be);
}

/* --- inodes and arguments ------------------------------------------------ */

static void inode_body(struct dc_test *t, struct env *e)
{
	struct dc_inode *a, *b;
	struct dc_cache_stats st;

	DC_ASSERT_INT_EQ(t, dc_inode_get(NULL, 1, &a), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_inode_get(e->cache, 1, NULL), -EINVAL);
	st = cst(e);
	DC_ASSERT_EQ(t, st.nr_inodes, ENV_INODES);
	/* The same id gives the same inode, with one more reference. */
	DC_ASSERT_INT_EQ(t, dc_inode_get(e->cache, ino_id(0), &a), 0);
	DC_ASSERT(t, a == e->inode[0]);
	DC_ASSERT_EQ(t, dc_inode_id(a), ino_id(0));
	DC_ASSERT_EQ(t, cst(e).nr_inodes, ENV_INODES);
	dc_inode_put(a);
	DC_ASSERT_EQ(t, cst(e).nr_inodes, ENV_INODES);

	DC_ASSERT_INT_EQ(t, dc_inode_get(e->cache, UINT64_MAX, &b), 0);
	DC_ASSERT_EQ(t, dc_inode_id(b), UINT64_MAX);
	DC_ASSERT_EQ(t, cst(e).nr_inodes, ENV_INODES + 1);
	dc_inode_put(b);
	DC_ASSERT_EQ(t, cst(e).nr_inodes, ENV_INODES);
	dc_inode_put(NULL);
}

ENV_CASE(cache_inode_get_put, 8, inode_body)

static void args_body(struct dc_test *t, struct env *e)
{
	struct dc_pin pin;

	memset(&pin, 0, sizeof(pin));
	DC_ASSERT_INT_EQ(t, dc_map(NULL, 0, 0, &pin), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, 0, NULL), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, 0x8000, &pin), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_map_timeout(NULL, 0, 0, 1, &pin), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, 0), -EINVAL);
	/* A zeroed pin and a released pin are ignored. */
	memset(&pin, 0, sizeof(pin));
	dc_unpin(&pin);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, DC_MAP_READ, &pin), 0);
	dc_unpin(&pin);
	dc_unpin(&pin);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 1);
	/* Nothing to wait for while ranges are free. */
	DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, 0), 0);
	DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_FOREVER), 0);
	/* Punching an inode without mappings is fine. */
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[1], 0, UINT64_MAX), 0);
	/* The highest range of the file. */
	touch(t, e, 2, UINT64_MAX, 0);
	touch(t, e, 2, UINT64_MAX - e->rs, DC_MAP_WRITE);
}

ENV_CASE(cache_arguments, 8, args_body)

/*
 * A pin kept as one pointer (dc_pin_stow()) holds its range as the pin
 * did, until dc_unpin_stowed(): the window's one range, held by a miss's
 * pin and by a hit's (a slot pin in userspace), cannot be had by another
 * inode until both are released.
 */
static void stow_body(struct dc_test *t, struct env *e)
{
	struct dc_pin pin;
	void *miss, *hit;
	int i;

	memset(&pin, 0, sizeof(pin));
	DC_ASSERT(t, dc_pin_stow(&pin) == NULL);
	DC_ASSERT(t, dc_pin_stow(NULL) == NULL);
	dc_unpin_stowed(NULL);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, DC_MAP_READ, &pin), 0);
	miss = dc_pin_stow(&pin);
	DC_ASSERT(t, miss != NULL);
	DC_ASSERT(t, dc_pin_stow(&pin) == NULL);
	/* Emptied by the stow: this releases nothing. */
	dc_unpin(&pin);
	/* Hits until the thread's counters are ready for slot pins. */
	for (i = 0; i < 4; i++) {
		DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, DC_MAP_READ, &pin), 0);
		dc_unpin(&pin);
	}
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, DC_MAP_READ, &pin), 0);
	hit = dc_pin_stow(&pin);
	DC_ASSERT(t, hit != NULL);
	DC_ASSERT_EQ(t, cst(e).hits, 5);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[1], 0, DC_MAP_NOWAIT, &pin), -EAGAIN);
	dc_unpin_stowed(miss);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[1], 0, DC_MAP_NOWAIT, &pin), -EAGAIN);
	dc_unpin_stowed(hit);
	/* (It may wait: the reclaimer kicked above may hold the range now.) */
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[1], 0, 0, &pin), 0);
	dc_unpin(&pin);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 1);
}

ENV_CASE(cache_pin_stow, 1, stow_body)

/* --- hits and misses ----------------------------------------------------- */

static void hit_body(struct dc_test *t, struct env *e)
{
	const uint64_t off = 3 * e->rs + 12345;
	struct dc_simbe_mapping m;
	struct dc_cache_stats st;
	struct dc_pin *p = &e->pin[0], *q = &e->pin[1];
	uint64_t gen;

	pin_at(t, e, 0, 0, off, DC_MAP_READ);
	DC_RETURN_IF_FAILED(t);
	st = cst(e);
	DC_ASSERT_EQ(t, st.misses, 1);
	DC_ASSERT_EQ(t, st.hits, 0);
	DC_ASSERT_EQ(t, st.nr_free, e->nr - 1);
	DC_ASSERT_EQ(t, st.nr_mapped, 1);
	DC_ASSERT_EQ(t, p->len, e->rs - 12345);
	DC_ASSERT(t, !p->writable);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, p->win_off, &m, sizeof(m)), 0);
	DC_ASSERT_EQ(t, m.ino, ino_id(0));
	DC_ASSERT_EQ(t, m.file_off, 3 * e->rs);
	DC_ASSERT_EQ(t, m.flags, DC_MAP_READ);
	DC_ASSERT_EQ(t, m.win_off, pin_base(e, p));
	DC_ASSERT_EQ(t, sst(e).calls[DC_SIMBE_SETUP], 1);
	gen = p->gen;

	/* Anywhere in the same range is a hit on the same window range. */
	pin_at(t, e, 1, 0, 3 * e->rs + e->rs - 1, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, pin_base(e, q), pin_base(e, p));
	DC_ASSERT_EQ(t, q->len, 1);
	DC_ASSERT_EQ(t, q->gen, gen);
	dc_unpin(q);
	dc_unpin(p);
	pin_at(t, e, 1, 0, 3 * e->rs, DC_MAP_READ);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, q->len, e->rs);
	DC_ASSERT_EQ(t, q->gen, gen);
	dc_unpin(q);
	st = cst(e);
	DC_ASSERT_EQ(t, st.hits, 2);
	DC_ASSERT_EQ(t, st.misses, 1);
	DC_ASSERT_EQ(t, sst(e).calls[DC_SIMBE_SETUP], 1);

	/* Another index, another inode with the same index: misses. */
	pin_at(t, e, 2, 0, 4 * e->rs, 0);
	pin_at(t, e, 3, 1, 3 * e->rs + 5, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, pin_base(e, &e->pin[2]) != pin_base(e, p));
	DC_ASSERT(t, pin_base(e, &e->pin[3]) != pin_base(e, p));
	DC_ASSERT(t, pin_base(e, &e->pin[3]) != pin_base(e, &e->pin[2]));
	st = cst(e);
	DC_ASSERT_EQ(t, st.misses, 3);
	DC_ASSERT_EQ(t, st.nr_mapped, 3);
	DC_ASSERT_EQ(t, st.nr_free, e->nr - 3);
	DC_ASSERT_EQ(t, st.inline_reclaims + st.bg_reclaims, 0);
	DC_ASSERT_EQ(t, sst(e).calls[DC_SIMBE_REMOVE], 0);
}

ENV_CASE(cache_hit_after_miss, 8, hit_body)

/* Small ranges: offsets inside a 4 KiB range, and many ranges. */
static void small_body(struct dc_test *t, struct env *e)
{
	uint64_t k;

	DC_ASSERT_EQ(t, dc_cache_range_size(e->cache), 4096);
	for (k = 0; k < 200 && !dc_test_failed(t); k++)
		touch(t, e, (unsigned int)(k % ENV_INODES), k * 4096 + k, 0);
	DC_RETURN_IF_FAILED(t);
	for (k = 0; k < 200 && !dc_test_failed(t); k++)
		touch(t, e, (unsigned int)(k % ENV_INODES), k * 4096 + 4095, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).misses, 200);
	DC_ASSERT_EQ(t, cst(e).hits, 200);
}

/*
 * Indexes 0, 64 and 128 share one hit hint (and index 0 of another inode
 * shares its number); with three ranges for four mappings, hints go stale
 * through collisions and through reuse.  Every pin must still be right.
 *
 * The second access of each range is made while the first one's pin is
 * held, so it is a hit whatever the background reclaimer does.  Which path
 * reuses a range is a race: the reclaimer is kicked when the pool empties
 * and may free a range before the next miss would reclaim one inline (it
 * did every time in a 5.10 guest).  With @refill the case makes the
 * reclaimer win: after every access it waits for a free range, so no miss
 * reclaims inline and the reuse is all the reclaimer's.
 */
static void hint_rounds(struct dc_test *t, struct env *e, bool refill)
{
	static const uint64_t idx[] = { 0, 64, 128 };
	unsigned int round, k;
	struct dc_cache_stats st;

	for (round = 0; round < 20 && !dc_test_failed(t); round++) {
		for (k = 0; k < DCI_ARRAY_SIZE(idx) && !dc_test_failed(t); k++) {
			pin_at(t, e, 0, 0, idx[(k + round) % 3] * e->rs + round, 0);
			DC_RETURN_IF_FAILED(t);
			touch(t, e, 0, idx[(k + round) % 3] * e->rs + 7, 0);
			dc_unpin(&e->pin[0]);
			if (refill)
				DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_LIMIT_NS), 0);
		}
		touch(t, e, 1, round, 0);
		if (refill)
			DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_LIMIT_NS), 0);
	}
	DC_RETURN_IF_FAILED(t);
	st = cst(e);
	DC_ASSERT(t, st.hits >= 20 * DCI_ARRAY_SIZE(idx));
	DC_ASSERT(t, st.misses > e->nr);
	if (refill) {
		DC_ASSERT_EQ(t, st.inline_reclaims, 0);
		DC_ASSERT(t, st.bg_reclaims > 0);
	} else {
		DC_ASSERT(t, st.inline_reclaims + st.bg_reclaims > 0);
	}
}

static void hint_body(struct dc_test *t, struct env *e)
{
	hint_rounds(t, e, false);
}

static void hint_bg_body(struct dc_test *t, struct env *e)
{
	hint_rounds(t, e, true);
}

ENV_CASE(cache_hint_collisions, 3, hint_body)
ENV_CASE(cache_hint_collisions_bg_reuse, 3, hint_bg_body)

/*
 * Hints at any index: the leaf edges of the hint table, indexes of
 * different leaves and directory sizes, the last index the table reaches
 * (2^20 - 1: DC_HINT_DIR_MAX leaves of 64) and indexes past it, whose hits
 * go to the tree.  With @nr ranges for the indexes' @ARRAY_SIZE mappings,
 * fewer ranges than indexes evict and remap them every round, so hints go
 * stale at every one of them; with enough ranges the later rounds are all
 * hits, and a punch of each index between rounds makes its hint stale.
 * Every pin is checked against the backend (check_pin()): a hint that
 * named a range no longer mapping its index would fail it.
 */
static const uint64_t hint_far_idx[] = {
	0, 63, 64, 127, 4095, 65535, 65536 + 5, (1ull << 20) - 64,
	(1ull << 20) - 1, 1ull << 20, (1ull << 20) + 64, 1ull << 32,
};

static void hint_far_rounds(struct dc_test *t, struct env *e, bool punch)
{
	const unsigned int n = DCI_ARRAY_SIZE(hint_far_idx);
	unsigned int round, k;
	struct dc_cache_stats st;
	uint64_t off;

	for (round = 0; round < 6 && !dc_test_failed(t); round++) {
		for (k = 0; k < n && !dc_test_failed(t); k++) {
			/* Each round visits them in another order. */
			off = hint_far_idx[(k * 5 + round) % n] * e->rs;
			pin_at(t, e, 0, 0, off + round, 0);
			DC_RETURN_IF_FAILED(t);
			/* Pinned: a hit, through the hint or the tree. */
			touch(t, e, 0, off + e->rs - 1, 0);
			dc_unpin(&e->pin[0]);
			/* Inode 1 at the same index: its own hints. */
			if (e->nr > n)
				touch(t, e, 1, off + 1, 0);
		}
		for (k = 0; punch && k < n && !dc_test_failed(t); k++)
			DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0],
							   hint_far_idx[k] * e->rs,
							   e->rs), 0);
	}
	DC_RETURN_IF_FAILED(t);
	st = cst(e);
	if (e->nr < n) {
		/* Remapped after evictions: more misses than indexes. */
		DC_ASSERT(t, st.hits >= 6 * n);
		DC_ASSERT(t, st.misses > n);
		DC_ASSERT(t, st.inline_reclaims + st.bg_reclaims > 0);
	} else if (punch) {
		/* Every round maps inode 0's anew; inode 1's from the second on are hits. */
		DC_ASSERT_EQ(t, st.misses, 6 * n + n);
		DC_ASSERT_EQ(t, st.hits, 6 * n + 5 * n);
	} else {
		DC_ASSERT_EQ(t, st.misses, 2 * n);
		DC_ASSERT_EQ(t, st.hits, 3 * 6 * n - 2 * n);
	}
}

static void hint_far_evict_body(struct dc_test *t, struct env *e)
{
	hint_far_rounds(t, e, false);
}

static void hint_far_punch_body(struct dc_test *t, struct env *e)
{
	hint_far_rounds(t, e, true);
}

ENV_CASE_CFG(cache_hint_far_evict, 5, hint_far_evict_body,
	     e.cfg.range_shift = 12, e.cfg.window_size = 5 * 4096)
ENV_CASE_CFG(cache_hint_far_keep, 32, hint_far_evict_body,
	     e.cfg.range_shift = 12, e.cfg.window_size = 32 * 4096)
ENV_CASE_CFG(cache_hint_far_punch, 32, hint_far_punch_body,
	     e.cfg.range_shift = 12, e.cfg.window_size = 32 * 4096)

ENV_CASE_CFG(cache_small_ranges, 256, small_body,
	     e.cfg.range_shift = 12, e.cfg.window_size = 256 * 4096)

/* --- racing misses and upgrades -------------------------------------------- */

#define RACE_THREADS	8u
#define RACE_ROUNDS	12u

struct race_ctx {
	struct env *e;
	uint64_t idx;
	unsigned int flags;
	dci_atomic_t ready;
	dci_atomic_t done;
	struct dc_pin pin[RACE_THREADS];
};

static void race_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct race_ctx *c = arg;
	uint64_t off = c->idx * c->e->rs + idx * 100;

	int ret;

	start_line(&c->ready, RACE_THREADS);
	ret = dc_map(c->e->inode[0], off, c->flags, &c->pin[idx]);
	/* Hold the pin until everyone has one (or has failed). */
	start_line(&c->done, RACE_THREADS);
	DC_ASSERT_INT_EQ(t, ret, 0);
	check_pin(t, c->e, 0, off, &c->pin[idx]);
}

static void race_round(struct dc_test *t, struct race_ctx *c)
{
	unsigned int k;

	dci_atomic_set(&c->ready, 0);
	dci_atomic_set(&c->done, 0);
	memset(c->pin, 0, sizeof(c->pin));
	dc_test_run_threads(t, RACE_THREADS, race_thread, c);
	for (k = 0; k < RACE_THREADS; k++) {
		if (!dc_test_failed(t)) {
			DC_ASSERT_EQ(t, pin_base(c->e, &c->pin[k]),
				     pin_base(c->e, &c->pin[0]));
			DC_ASSERT_EQ(t, c->pin[k].gen, c->pin[0].gen);
			if (c->flags & DC_MAP_WRITE)
				DC_ASSERT(t, c->pin[k].writable);
		}
	}
	for (k = 0; k < RACE_THREADS; k++)
		dc_unpin(&c->pin[k]);
}

static void racing_miss_body(struct dc_test *t, struct env *e)
{
	struct race_ctx c = { .e = e };
	struct dc_simbe_stats b0, b1;
	struct dc_cache_stats s0, s1;
	unsigned int r;

	/* Setups take a while, so the racers pile up behind the first. */
	dc_simbe_set_latency(e->be, DC_SIMBE_SETUP, 200000, 0);
	for (r = 0; r < RACE_ROUNDS && !dc_test_failed(t); r++) {
		s0 = cst(e);
		b0 = sst(e);
		c.idx = 10 + r;
		c.flags = r & 1 ? DC_MAP_WRITE : 0;
		race_round(t, &c);
		DC_RETURN_IF_FAILED(t);
		s1 = cst(e);
		b1 = sst(e);
		DC_ASSERT_EQ(t, b1.calls[DC_SIMBE_SETUP] - b0.calls[DC_SIMBE_SETUP], 1);
		DC_ASSERT_EQ(t, s1.misses - s0.misses, 1);
		DC_ASSERT_EQ(t, s1.nr_mapped - s0.nr_mapped, 1);
		/* A write miss is one setup with WRITE, not a setup and an upgrade. */
		if (c.flags & DC_MAP_WRITE)
			DC_ASSERT_EQ(t, b1.setups_write - b0.setups_write, 1);
		DC_ASSERT_EQ(t, s1.upgrades, s0.upgrades);
	}
}

ENV_CASE(cache_racing_misses, 32, racing_miss_body)

static void upgrade_body(struct dc_test *t, struct env *e)
{
	struct race_ctx c = { .e = e };
	struct dc_simbe_mapping m0, m1;
	struct dc_simbe_stats b0, b1;
	struct dc_cache_stats s0, s1;
	unsigned int r;

	/* One upgrade, alone. */
	pin_at(t, e, 0, 0, 5 * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, e->pin[0].win_off, &m0, sizeof(m0)), 0);
	DC_ASSERT_EQ(t, m0.flags, DC_MAP_READ);
	s0 = cst(e);
	b0 = sst(e);
	pin_at(t, e, 1, 0, 5 * e->rs + 7, DC_MAP_WRITE);
	DC_RETURN_IF_FAILED(t);
	s1 = cst(e);
	b1 = sst(e);
	DC_ASSERT(t, e->pin[1].writable);
	DC_ASSERT_EQ(t, pin_base(e, &e->pin[1]), pin_base(e, &e->pin[0]));
	DC_ASSERT_EQ(t, s1.upgrades - s0.upgrades, 1);
	DC_ASSERT_EQ(t, s1.misses, s0.misses);
	DC_ASSERT_EQ(t, b1.calls[DC_SIMBE_SETUP] - b0.calls[DC_SIMBE_SETUP], 1);
	DC_ASSERT_EQ(t, b1.setups_write - b0.setups_write, 1);
	DC_ASSERT_EQ(t, b1.setups_same - b0.setups_same, 1);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, e->pin[1].win_off, &m1, sizeof(m1)), 0);
	DC_ASSERT_EQ(t, m1.flags, DC_MAP_READ | DC_MAP_WRITE);
	DC_ASSERT_EQ(t, m1.seq, m0.seq);
	DC_ASSERT_INT_EQ(t, dc_simbe_write(e->be, e->pin[1].win_off, ino_id(0),
					   5 * e->rs + 7), 0);
	dc_unpin(&e->pin[1]);
	dc_unpin(&e->pin[0]);
	/* Writable now: reads and writes hit without another setup. */
	touch(t, e, 0, 5 * e->rs, 0);
	touch(t, e, 0, 5 * e->rs, DC_MAP_WRITE);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, sst(e).calls[DC_SIMBE_SETUP], b1.calls[DC_SIMBE_SETUP]);
	DC_ASSERT_EQ(t, cst(e).hits - s1.hits, 2);

	/* Several upgraders at once, while a reader holds the mapping. */
	dc_simbe_set_latency(e->be, DC_SIMBE_SETUP, 200000, 0);
	for (r = 0; r < RACE_ROUNDS && !dc_test_failed(t); r++) {
		c.idx = 20 + r;
		pin_at(t, e, 2, 0, c.idx * e->rs, 0);
		DC_RETURN_IF_FAILED(t);
		DC_ASSERT(t, !e->pin[2].writable);
		s0 = cst(e);
		b0 = sst(e);
		c.flags = DC_MAP_WRITE;
		race_round(t, &c);
		DC_RETURN_IF_FAILED(t);
		s1 = cst(e);
		b1 = sst(e);
		DC_ASSERT_EQ(t, pin_base(e, &c.pin[0]), pin_base(e, &e->pin[2]));
		DC_ASSERT_EQ(t, b1.calls[DC_SIMBE_SETUP] - b0.calls[DC_SIMBE_SETUP], 1);
		DC_ASSERT_EQ(t, b1.setups_write - b0.setups_write, 1);
		DC_ASSERT_EQ(t, s1.upgrades - s0.upgrades, 1);
		DC_ASSERT_EQ(t, s1.misses, s0.misses);
		DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(e->be, e->pin[2].win_off,
						       ino_id(0), c.idx * e->rs), 0);
		dc_unpin(&e->pin[2]);
	}
}

ENV_CASE(cache_upgrade, 64, upgrade_body)

/* --- allocation order ---------------------------------------------------- */

static void pool_first_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats st;
	unsigned int k, j;

	/* Seven of eight ranges: all from the free pool, all different. */
	for (k = 0; k < e->nr - 1; k++)
		pin_at(t, e, k, k % 2, k * e->rs, k % 3 ? 0 : DC_MAP_WRITE);
	DC_RETURN_IF_FAILED(t);
	for (k = 0; k < e->nr - 1; k++)
		for (j = 0; j < k; j++)
			DC_ASSERT(t, pin_base(e, &e->pin[k]) != pin_base(e, &e->pin[j]));
	for (k = 0; k < e->nr - 1; k++)
		dc_unpin(&e->pin[k]);
	st = cst(e);
	DC_ASSERT_EQ(t, st.nr_free, 1);
	DC_ASSERT_EQ(t, st.nr_mapped, e->nr - 1);
	DC_ASSERT_EQ(t, st.misses, e->nr - 1);
	DC_ASSERT_EQ(t, st.inline_reclaims + st.bg_reclaims, 0);
	DC_ASSERT_EQ(t, st.removes_sent + st.removes_skipped, 0);
	DC_ASSERT_EQ(t, sst(e).setups_replacing, 0);
	DC_ASSERT_EQ(t, sst(e).calls[DC_SIMBE_REMOVE], 0);
}

ENV_CASE(cache_alloc_free_pool_first, 8, pool_first_body)

/*
 * Inline reclaim with the background reclaimer frozen in a writeback:
 * window of 3 ranges; A (inode 1, writable, dirty) idle, B and C pinned.
 * The reclaimer takes A and is held at the writeback gate (with inode 1's
 * mutex).  Then B is unpinned and D asks for a range: none is free, so it
 * must reclaim B inline, and reuse it without remove() unless the config
 * says DC_CACHE_REMOVE_ON_INLINE.  @b_inode is B's inode (0 is D's own).
 */
static void inline_scenario(struct dc_test *t, struct env *e,
			    unsigned int b_inode)
{
	bool remove_on_inline = e->cfg.flags & DC_CACHE_REMOVE_ON_INLINE;
	bool own_only = e->cfg.flags & DC_CACHE_INLINE_OWN_ONLY;
	struct dc_simbe_stats b0, b1;
	struct dc_cache_stats s0, s1;
	struct dc_simbe_mapping m;
	uint64_t wa, wb;
	struct dc_pin pin;
	int ret;

	DC_ASSERT_EQ(t, e->nr, 3);
	dirty_at(t, e, 1, 0, &wa);
	DC_RETURN_IF_FAILED(t);
	dc_simbe_gate_close(e->be, DC_SIMBE_WRITEBACK);
	pin_at(t, e, 1, b_inode, 1 * e->rs, 0);
	pin_at(t, e, 2, 0, 2 * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	wb = pin_base(e, &e->pin[1]);
	/* The pool is empty: the reclaimer runs (kick it again to be sure). */
	dc_wait_free(e->cache, MS);
	DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_WRITEBACK) == 1);
	DC_ASSERT_EQ(t, cst(e).nr_free, 0);

	dc_unpin(&e->pin[1]);
	s0 = cst(e);
	b0 = sst(e);
	if (own_only && b_inode != 0) {
		/* B is another inode's: D may not take it, so it waits. */
		ret = dc_map(e->inode[0], 3 * e->rs, DC_MAP_NOWAIT, &pin);
		DC_ASSERT_INT_EQ(t, ret, -EAGAIN);
		ret = dc_map_timeout(e->inode[0], 3 * e->rs, 0, 20 * MS, &pin);
		DC_ASSERT_INT_EQ(t, ret, -ETIMEDOUT);
		DC_ASSERT_EQ(t, cst(e).inline_reclaims, s0.inline_reclaims);
		DC_ASSERT(t, cst(e).waits > s0.waits);
		dc_simbe_gate_open(e->be, DC_SIMBE_WRITEBACK);
		pin_at(t, e, 3, 0, 3 * e->rs, 0);
		DC_RETURN_IF_FAILED(t);
		DC_ASSERT_EQ(t, cst(e).inline_reclaims, s0.inline_reclaims);
		return;
	}
	pin_at(t, e, 3, 0, 3 * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	s1 = cst(e);
	b1 = sst(e);
	DC_ASSERT_EQ(t, pin_base(e, &e->pin[3]), wb);
	DC_ASSERT_EQ(t, s1.inline_reclaims - s0.inline_reclaims, 1);
	DC_ASSERT_EQ(t, s1.misses - s0.misses, 1);
	if (remove_on_inline) {
		DC_ASSERT_EQ(t, b1.calls[DC_SIMBE_REMOVE] - b0.calls[DC_SIMBE_REMOVE], 1);
		DC_ASSERT_EQ(t, b1.removed_entries - b0.removed_entries, 1);
		DC_ASSERT_EQ(t, s1.removes_sent - s0.removes_sent, 1);
		DC_ASSERT_EQ(t, b1.setups_replacing, b0.setups_replacing);
	} else {
		DC_ASSERT_EQ(t, b1.calls[DC_SIMBE_REMOVE], b0.calls[DC_SIMBE_REMOVE]);
		DC_ASSERT_EQ(t, s1.removes_sent, s0.removes_sent);
		DC_ASSERT_EQ(t, s1.removes_skipped - s0.removes_skipped, 1);
		DC_ASSERT_EQ(t, b1.setups_replacing - b0.setups_replacing, 1);
	}
	/* B is gone, and no range is left for it. */
	ret = dc_map(e->inode[b_inode], 1 * e->rs, DC_MAP_NOWAIT, &pin);
	DC_ASSERT_INT_EQ(t, ret, -EAGAIN);

	/* Let the reclaimer finish A: written back, removed, freed. */
	dc_simbe_gate_open(e->be, DC_SIMBE_WRITEBACK);
	DC_WAIT_FOR(t, cst(e).nr_free == 1);
	env_settle(t, e);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, wa, &m, sizeof(m)), -ENOENT);
	DC_WAIT_FOR(t, cst(e).bg_reclaims >= 1);
	s1 = cst(e);
	b1 = sst(e);
	DC_ASSERT_EQ(t, b1.writebacks, 1);
	DC_ASSERT_EQ(t, s1.writebacks, 1);
	DC_ASSERT_EQ(t, b1.lost_writes, 0);
}

/* One inline_scenario() in a fresh 3-range cache: config flags, victim inode. */
struct inline_run {
	unsigned int flags;
	unsigned int victim;	/* 0: the allocating inode's own range; 2: another's */
};

static void inline_runs(struct dc_test *t, const struct inline_run *runs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && !dc_test_failed(t); i++) {
		struct env e;

		env_init(&e, 3);
		e.cfg.flags = runs[i].flags;
		if (env_start(t, &e))
			inline_scenario(t, &e, runs[i].victim);
		env_finish(t, &e);
		if (dc_test_failed(t))
			dc_test_log(t, "in row %u: flags %#x, victim inode %u", i,
				    runs[i].flags, runs[i].victim);
	}
}

DC_TEST(cache_inline_reclaim_no_remove)
{
	static const struct inline_run runs[] = {
		{ 0, 0 }, { 0, 2 }, { DC_CACHE_KICK_BG_FIRST, 0 },
	};

	inline_runs(t, runs, DCI_ARRAY_SIZE(runs));
}

DC_TEST(cache_inline_reclaim_remove_on_inline)
{
	static const struct inline_run runs[] = {
		{ DC_CACHE_REMOVE_ON_INLINE, 0 }, { DC_CACHE_REMOVE_ON_INLINE, 2 },
	};

	inline_runs(t, runs, DCI_ARRAY_SIZE(runs));
}

DC_TEST(cache_inline_own_only)
{
	static const struct inline_run runs[] = {
		{ DC_CACHE_INLINE_OWN_ONLY, 0 }, { DC_CACHE_INLINE_OWN_ONLY, 2 },
	};

	inline_runs(t, runs, DCI_ARRAY_SIZE(runs));
}

/*
 * A file that starts missing in a full window of another file's idle
 * ranges gets the ranges it uses, with no help from the background
 * reclaimer (held at the writeback gate, as a reclaimer that cannot take
 * a busy inode's mutex helps nothing) and without admission control.
 * Window of 4: inode 2's dirty range, the reclaimer's victim, and inode
 * 0's three idle ones.  Inode 1 then reads its ranges 0 and 1 in turn.
 * An inline reclaim that took the missing inode's own ranges first
 * would have it evict one of its two for the other, every access, while
 * inode 0's ranges sat idle.
 */
static void share_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats st;
	unsigned int k, pass;

	for (k = 1; k < 4; k++)
		pin_at(t, e, k, 0, (uint64_t)k * e->rs, 0);
	dirty_at(t, e, 2, 0, NULL);
	DC_RETURN_IF_FAILED(t);
	dc_simbe_gate_close(e->be, DC_SIMBE_WRITEBACK);
	/* Only inode 2's range is idle: the reclaimer takes it, and waits. */
	dc_wait_free(e->cache, MS);
	DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_WRITEBACK) == 1);
	for (k = 1; k < 4; k++)
		dc_unpin(&e->pin[k]);
	DC_ASSERT_EQ(t, cst(e).nr_free, 0);
	for (pass = 0; pass < 3 && !dc_test_failed(t); pass++) {
		st = cst(e);
		touch(t, e, 1, 0, 0);
		touch(t, e, 1, e->rs, 0);
		DC_RETURN_IF_FAILED(t);
		if (pass)
			DC_ASSERT_EQ(t, cst(e).misses - st.misses, 0);
	}
	st = cst(e);
	DC_ASSERT_EQ(t, st.inline_reclaims, 2);
	DC_ASSERT_EQ(t, st.nr_free, 0);
	dc_simbe_gate_open(e->be, DC_SIMBE_WRITEBACK);
	env_settle(t, e);
}

ENV_CASE(cache_inline_new_file_gets_share, 4, share_body)

/* --- background reclaim -------------------------------------------------- */

static void bg_scenario(struct dc_test *t, struct env *e, bool kick)
{
	const unsigned int thr = e->nr * e->cfg.reclaim_threshold_pct / 100;
	struct dc_simbe_stats bs;
	struct dc_cache_stats st;
	unsigned int k;

	/*
	 * Fill the window (@kick), or (!@kick) all of it but the threshold's
	 * ranges and then one more by a miss that cannot reclaim inline;
	 * every third mapping is written to.
	 */
	for (k = 0; k < (kick ? e->nr : e->nr - thr + 1) && !dc_test_failed(t); k++) {
		unsigned int flags = kick || k < e->nr - thr ? 0 : DC_MAP_NORECLAIM;
		struct dc_pin pin;
		uint64_t off = (uint64_t)k * e->rs;
		unsigned int i = k % ENV_INODES;

		if (k % 3) {
			touch(t, e, i, off, flags);
			continue;
		}
		DC_ASSERT_INT_EQ(t, dc_map(e->inode[i], off, DC_MAP_WRITE | flags, &pin), 0);
		dc_simbe_write(e->be, pin.win_off, ino_id(i), off);
		dc_unpin(&pin);
	}
	DC_RETURN_IF_FAILED(t);
	/*
	 * The reclaimer brings the pool back to the threshold: by itself, as
	 * a miss that could not reclaim inline took it below, or (@kick) when
	 * asked by dc_wait_free() after misses that took it empty.
	 */
	if (kick)
		DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_LIMIT_NS), 0);
	DC_WAIT_FOR(t, cst(e).nr_free >= thr);
	env_settle(t, e);
	DC_RETURN_IF_FAILED(t);
	/* The reclaimer counts its ranges after it frees them. */
	DC_WAIT_FOR(t, cst(e).bg_reclaims >= 1 &&
		    cst(e).bg_reclaims == cst(e).removes_sent);
	st = cst(e);
	bs = sst(e);
	log_counters(t, e);
	DC_ASSERT(t, st.nr_free >= thr);
	DC_ASSERT(t, st.nr_free < thr + e->cfg.reclaim_batch);
	DC_ASSERT(t, st.bg_reclaims >= 1);
	/* Background reclaims are removed, inline ones are not. */
	DC_ASSERT_EQ(t, st.removes_sent, st.bg_reclaims);
	DC_ASSERT_EQ(t, st.removes_skipped, st.inline_reclaims);
	DC_ASSERT_EQ(t, bs.removed_entries, st.removes_sent);
	DC_ASSERT_EQ(t, bs.calls[DC_SIMBE_REMOVE], st.remove_batches);
	DC_ASSERT(t, bs.max_batch <= e->cfg.remove_batch_max);
	DC_ASSERT(t, st.remove_batches * e->cfg.remove_batch_max >= st.removes_sent);
	DC_ASSERT_EQ(t, bs.lost_writes, 0);
	DC_ASSERT_EQ(t, st.nr_mapped, bs.nr_mapped);
}

static void bg_kick_body(struct dc_test *t, struct env *e)
{
	bg_scenario(t, e, true);
}

static void bg_self_body(struct dc_test *t, struct env *e)
{
	bg_scenario(t, e, false);
}

DC_TEST(cache_bg_reclaim_batches)
{
	ENV_RUN_CFG(t, 20, bg_kick_body, e.cfg.remove_batch_max = 2);
	DC_RETURN_IF_FAILED(t);
	/* Big batches: one remove() per pass. */
	ENV_RUN_CFG(t, 40, bg_kick_body, e.cfg.reclaim_threshold_pct = 50);
}

/*
 * Nobody waits, yet a miss that cannot reclaim inline took the pool below
 * the threshold: the reclaimer runs.
 */
ENV_CASE(cache_bg_reclaim_threshold, 20, bg_self_body)

/*
 * Seed 000: misses that can reclaim inline spend the free pool without
 * kicking the background reclaimer at its threshold, then reuse idle ranges
 * inline, with no remove() and still no kick; only DC_CACHE_KICK_BG_FIRST
 * (upstream Linux's order) kicks it below the threshold.
 */
static void no_threshold_kick_body(struct dc_test *t, struct env *e)
{
	bool kick_first = e->cfg.flags & DC_CACHE_KICK_BG_FIRST;
	struct dc_cache_stats st;
	unsigned int k;

	for (k = 0; k < 2 * e->nr && !dc_test_failed(t); k++) {
		touch(t, e, k % ENV_INODES, (uint64_t)k * e->rs, 0);
		if (k + 1 == e->nr && !kick_first) {
			/* The window is full, and nothing kicked the reclaimer. */
			env_settle(t, e);
			st = cst(e);
			DC_ASSERT_EQ(t, st.nr_free, 0);
			DC_ASSERT_EQ(t, st.bg_passes, 0);
		}
	}
	DC_RETURN_IF_FAILED(t);
	env_settle(t, e);
	st = cst(e);
	log_counters(t, e);
	DC_ASSERT_EQ(t, st.misses, 2 * e->nr);
	if (kick_first) {
		DC_ASSERT(t, st.bg_passes >= 1);
		DC_ASSERT(t, st.bg_reclaims >= 1);
		return;
	}
	DC_ASSERT_EQ(t, st.bg_passes, 0);
	DC_ASSERT_EQ(t, st.bg_reclaims, 0);
	DC_ASSERT_EQ(t, st.inline_reclaims, e->nr);
	DC_ASSERT_EQ(t, st.removes_skipped, e->nr);
	DC_ASSERT_EQ(t, st.removes_sent, 0);
}

DC_TEST(cache_inline_no_threshold_kick)
{
	ENV_RUN_CFG(t, 8, no_threshold_kick_body, e.cfg.reclaim_threshold_pct = 50);
	DC_RETURN_IF_FAILED(t);
	ENV_RUN_CFG(t, 8, no_threshold_kick_body, e.cfg.reclaim_threshold_pct = 50,
		    e.cfg.flags = DC_CACHE_KICK_BG_FIRST);
}

/*
 * The stats say whether background work is left: @bg_pending counts from
 * the kick, made inside the dc_map() that took the pool below the
 * threshold, until the run that answers it ends.  A test that waits for
 * quiet waits for it to fall to 0 (env_settle()), not for readings that
 * hold still for a while: a reclaimer kicked but not yet running leaves
 * every other gauge still until it starts.
 */
static void bg_pending_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats st;
	unsigned int k;

	DC_ASSERT_EQ(t, cst(e).bg_pending, 0);
	/* The reclaimer's remove() waits at the gate: its run cannot end. */
	dc_simbe_gate_close(e->be, DC_SIMBE_REMOVE);
	/* Misses that cannot reclaim inline: below the threshold they kick. */
	for (k = 0; k < e->nr - 1; k++)
		touch(t, e, k % ENV_INODES, (uint64_t)k * e->rs, DC_MAP_NORECLAIM);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, cst(e).bg_pending >= 1);
	DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_REMOVE) == 1);
	st = cst(e);
	DC_ASSERT(t, st.bg_pending >= 1);
	DC_ASSERT(t, st.nr_free + st.nr_mapped < st.nr_ranges);
	dc_simbe_gate_open(e->be, DC_SIMBE_REMOVE);
	env_settle(t, e);
	st = cst(e);
	DC_ASSERT_EQ(t, st.bg_pending, 0);
	DC_ASSERT(t, st.bg_reclaims >= 1);
	DC_ASSERT(t, st.nr_free >= e->nr / 2);
	DC_ASSERT_EQ(t, st.nr_free + st.nr_mapped, st.nr_ranges);
	/* Asked again with nothing to do: answered all the same. */
	DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_LIMIT_NS), 0);
	env_settle(t, e);
	DC_ASSERT_EQ(t, cst(e).bg_pending, 0);
}

ENV_CASE_CFG(cache_bg_pending, 4, bg_pending_body,
	     e.cfg.reclaim_threshold_pct = 50)

/* --- writeback ----------------------------------------------------------- */

static void writeback_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_stats bs;
	uint64_t gen;

	DC_ASSERT_EQ(t, e->nr, 1);
	pin_at(t, e, 0, 0, 0, DC_MAP_WRITE);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, e->pin[0].writable);
	DC_ASSERT_INT_EQ(t, dc_simbe_write(e->be, e->pin[0].win_off, ino_id(0), 0), 0);
	gen = e->pin[0].gen;
	dc_unpin(&e->pin[0]);
	/* The only range is reclaimed (inline or not): written back first. */
	pin_at(t, e, 1, 1, e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, e->pin[1].gen != gen);
	gen = e->pin[1].gen;
	bs = sst(e);
	DC_ASSERT_EQ(t, bs.writebacks, 1);
	DC_ASSERT_EQ(t, bs.lost_writes, 0);
	DC_ASSERT_EQ(t, cst(e).writebacks, 1);
	dc_unpin(&e->pin[1]);
	/* A read-only mapping needs none. */
	pin_at(t, e, 2, 1, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, e->pin[2].gen != gen);
	dc_unpin(&e->pin[2]);
	env_settle(t, e);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, sst(e).writebacks, 1);
	DC_ASSERT_EQ(t, sst(e).calls[DC_SIMBE_WRITEBACK], 1);
	DC_ASSERT_EQ(t, cst(e).writebacks, 1);
}

ENV_CASE(cache_writeback_before_reclaim, 1, writeback_body)

/* --- backend failures ----------------------------------------------------- */

static void setup_fail_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_mapping m;
	struct dc_cache_stats st;
	struct dc_pin pin;

	DC_ASSERT_INT_EQ(t, dc_simbe_fail_next(e->be, DC_SIMBE_SETUP, -EIO), 0);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, 0, &pin), -EIO);
	st = cst(e);
	DC_ASSERT_EQ(t, st.setup_failures, 1);
	DC_ASSERT_EQ(t, st.nr_free, e->nr);
	DC_ASSERT_EQ(t, st.nr_mapped, 0);
	DC_ASSERT_EQ(t, sst(e).nr_mapped, 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_fail_next(e->be, DC_SIMBE_SETUP, -ENOSPC), 0);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, DC_MAP_WRITE, &pin), -ENOSPC);
	DC_ASSERT_EQ(t, cst(e).nr_free, e->nr);
	/* The next try sets it up. */
	touch(t, e, 0, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).setup_failures, 2);

	/* A failed upgrade keeps the read-only mapping and its readers. */
	pin_at(t, e, 0, 0, e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_simbe_fail_next(e->be, DC_SIMBE_SETUP, -EIO), 0);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], e->rs, DC_MAP_WRITE, &pin), -EIO);
	check_pin(t, e, 0, e->rs, &e->pin[0]);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, e->pin[0].win_off, &m, sizeof(m)), 0);
	DC_ASSERT_EQ(t, m.flags, DC_MAP_READ);
	pin_at(t, e, 1, 0, e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, !e->pin[1].writable);
	DC_ASSERT_EQ(t, pin_base(e, &e->pin[1]), pin_base(e, &e->pin[0]));
	dc_unpin(&e->pin[1]);
	pin_at(t, e, 1, 0, e->rs, DC_MAP_WRITE);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, e->pin[1].writable);
	DC_ASSERT_EQ(t, pin_base(e, &e->pin[1]), pin_base(e, &e->pin[0]));
	st = cst(e);
	DC_ASSERT_EQ(t, st.setup_failures, 3);
	DC_ASSERT_EQ(t, st.nr_mapped, 2);
	DC_ASSERT_EQ(t, st.nr_free, e->nr - 2);
}

ENV_CASE(cache_setup_failure, 8, setup_fail_body)

/* A failed setup of a reused range: the range goes back to the pool. */
static void setup_fail_reuse_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats st;
	struct dc_pin pin;
	unsigned int k;

	e->failures = true;		/* the old mapping may stay behind */
	for (k = 0; k < 20 && !dc_test_failed(t); k++) {
		touch(t, e, k % 2, k * e->rs, k % 3 ? 0 : DC_MAP_WRITE);
		DC_RETURN_IF_FAILED(t);
		DC_ASSERT_INT_EQ(t, dc_simbe_fail_next(e->be, DC_SIMBE_SETUP, -EIO), 0);
		DC_ASSERT_INT_EQ(t, dc_map(e->inode[2], k * e->rs, 0, &pin), -EIO);
		env_settle(t, e);	/* the reclaimer may be at work */
		DC_RETURN_IF_FAILED(t);
		st = cst(e);
		DC_ASSERT_EQ(t, st.nr_free + st.nr_mapped, e->nr);
	}
	DC_RETURN_IF_FAILED(t);
	touch(t, e, 2, 0, 0);
	touch(t, e, 0, 0, 0);
	DC_ASSERT_EQ(t, cst(e).setup_failures, 20);
}

DC_TEST(cache_setup_failure_on_reuse)
{
	ENV_RUN_CFG(t, 1, setup_fail_reuse_body, (void)0);
	DC_RETURN_IF_FAILED(t);
	ENV_RUN_CFG(t, 2, setup_fail_reuse_body, (void)0);
}

static void remove_fail_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_fault f = { .err = -EIO, .every = 1 };
	struct dc_cache_stats st;
	unsigned int k;

	e->failures = true;		/* failed removes leave mappings behind */
	for (k = 0; k < 4; k++)
		touch(t, e, 0, k * e->rs, k == 1 ? DC_MAP_WRITE : 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_simbe_fail_next(e->be, DC_SIMBE_REMOVE, -EIO), 0);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, UINT64_MAX), 0);
	st = cst(e);
	DC_ASSERT_EQ(t, st.remove_failures, 1);
	DC_ASSERT_EQ(t, st.remove_batches, 1);
	DC_ASSERT_EQ(t, st.nr_free, e->nr);
	DC_ASSERT_EQ(t, st.nr_mapped, 0);
	/* The ranges are reused: mapping again is a miss that works. */
	for (k = 0; k < 4; k++)
		touch(t, e, 0, k * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).misses, 8);

	/* Background reclaim with every remove() failing. */
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(e->be, DC_SIMBE_REMOVE, &f, sizeof(f)), 0);
	for (k = 0; k < 2 * e->nr; k++)
		touch(t, e, 1, k * e->rs, k % 4 ? 0 : DC_MAP_WRITE);
	DC_RETURN_IF_FAILED(t);
	/* The reclaimer frees ranges although their removes fail. */
	DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_LIMIT_NS), 0);
	env_settle(t, e);
	DC_RETURN_IF_FAILED(t);
	DC_WAIT_FOR(t, cst(e).bg_reclaims >= 1);
	st = cst(e);
	DC_ASSERT(t, st.remove_failures >= 2);
	DC_ASSERT_EQ(t, st.remove_failures, sst(e).injected[DC_SIMBE_REMOVE]);
	DC_ASSERT_EQ(t, st.nr_free + st.nr_mapped, e->nr);
	dc_simbe_set_fault(e->be, DC_SIMBE_REMOVE, NULL, 0);
	for (k = 0; k < 2 * e->nr; k++)
		touch(t, e, 2, k * e->rs, 0);
}

ENV_CASE(cache_remove_failure, 8, remove_fail_body)

static void writeback_fail_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_fault f = { .err = -EIO, .every = 1 };
	struct dc_simbe_mapping m;
	struct dc_cache_stats s0;
	struct dc_pin pin;
	uint64_t wa;
	int ret;

	DC_ASSERT_EQ(t, e->nr, 2);
	dirty_at(t, e, 0, 0, &wa);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(e->be, DC_SIMBE_WRITEBACK, &f, sizeof(f)), 0);
	pin_at(t, e, 1, 1, 0, 0);
	DC_RETURN_IF_FAILED(t);
	/* The only idle range cannot be written back, so it cannot go. */
	ret = dc_map_timeout(e->inode[1], e->rs, 0, 50 * MS, &pin);
	if (ret != -ETIMEDOUT && ret != -EIO) {
		dc_unpin(&pin);
		DC_ASSERT_INT_EQ(t, ret, -ETIMEDOUT);
	}
	DC_ASSERT(t, cst(e).writeback_failures >= 1);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, wa, &m, sizeof(m)), 0);
	DC_ASSERT_EQ(t, m.ino, ino_id(0));
	DC_ASSERT(t, m.dirty);
	/* Still mapped, still a hit. */
	s0 = cst(e);
	pin_at(t, e, 0, 0, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, pin_base(e, &e->pin[0]), wa);
	DC_ASSERT_EQ(t, cst(e).misses, s0.misses);
	dc_unpin(&e->pin[0]);
	/* Once writeback works the range is reclaimed. */
	dc_simbe_set_fault(e->be, DC_SIMBE_WRITEBACK, NULL, 0);
	pin_at(t, e, 2, 1, e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, pin_base(e, &e->pin[2]), wa);
	DC_ASSERT_EQ(t, sst(e).lost_writes, 0);
	DC_ASSERT(t, sst(e).writebacks >= 1);
}

ENV_CASE(cache_writeback_failure, 2, writeback_fail_body)

/*
 * DC_CACHE_WRITEBACK_ALL (a kernel filesystem drops the range from its page
 * tables there): read-only mappings are written back before they go too,
 * and one whose writeback fails stays mapped.
 */
static void writeback_all_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_fault f = { .err = -EBUSY, .every = 1 };
	struct dc_pin pin;
	uint64_t wa;
	int ret;

	DC_ASSERT_EQ(t, e->nr, 1);
	/*
	 * Writeback refused from the start: the first map's miss took the
	 * last free range and kicked the background reclaimer, which may run
	 * late (a loaded machine) and would reclaim the range the moment it
	 * is unpinned if its writeback still worked.
	 */
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(e->be, DC_SIMBE_WRITEBACK, &f, sizeof(f)), 0);
	pin_at(t, e, 0, 0, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, !e->pin[0].writable);
	wa = pin_base(e, &e->pin[0]);
	dc_unpin(&e->pin[0]);
	/* Refused: the read-only range stays, the map times out. */
	ret = dc_map_timeout(e->inode[1], 0, 0, 50 * MS, &pin);
	if (ret != -ETIMEDOUT && ret != -EBUSY) {
		dc_unpin(&pin);
		DC_ASSERT_INT_EQ(t, ret, -ETIMEDOUT);
	}
	DC_ASSERT(t, cst(e).writeback_failures >= 1);
	pin_at(t, e, 0, 0, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, pin_base(e, &e->pin[0]), wa);
	dc_unpin(&e->pin[0]);
	/* Accepted: reclaimed after its writeback. */
	dc_simbe_set_fault(e->be, DC_SIMBE_WRITEBACK, NULL, 0);
	pin_at(t, e, 1, 1, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, pin_base(e, &e->pin[1]), wa);
	DC_ASSERT(t, sst(e).writebacks >= 1);
	dc_unpin(&e->pin[1]);
	env_settle(t, e);
}

ENV_CASE_CFG(cache_writeback_all, 1, writeback_all_body,
	     e.cfg.flags = DC_CACHE_WRITEBACK_ALL)

/* --- punch and evict --------------------------------------------------------- */

static void punch_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_stats b0, b1;
	struct dc_cache_stats s0, s1;
	struct dc_simbe_mapping m;
	uint64_t w[6];
	unsigned int k;

	for (k = 0; k < 6; k++) {
		pin_at(t, e, k, 0, k * e->rs + 1, k == 4 ? DC_MAP_WRITE : 0);
		DC_RETURN_IF_FAILED(t);
		w[k] = pin_base(e, &e->pin[k]);
	}
	DC_ASSERT_INT_EQ(t, dc_simbe_write(e->be, e->pin[4].win_off, ino_id(0),
					   4 * e->rs + 1), 0);
	for (k = 0; k < 6; k++)
		if (k != 2)
			dc_unpin(&e->pin[k]);
	pin_at(t, e, 6, 1, 2 * e->rs, 0);	/* another inode, same index */
	DC_RETURN_IF_FAILED(t);
	dc_unpin(&e->pin[6]);

	/* [1.x, 4.0) overlaps ranges 1, 2, 3; 2 is pinned. */
	s0 = cst(e);
	b0 = sst(e);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], e->rs + 100,
					   3 * e->rs - 100), -EBUSY);
	s1 = cst(e);
	b1 = sst(e);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, w[1], &m, sizeof(m)), -ENOENT);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, w[3], &m, sizeof(m)), -ENOENT);
	check_pin(t, e, 0, 2 * e->rs + 1, &e->pin[2]);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, w[0], &m, sizeof(m)), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, w[4], &m, sizeof(m)), 0);
	DC_ASSERT_EQ(t, s1.removes_sent - s0.removes_sent, 2);
	DC_ASSERT_EQ(t, s1.remove_batches - s0.remove_batches, 1);
	DC_ASSERT_EQ(t, b1.removed_entries - b0.removed_entries, 2);
	DC_ASSERT_EQ(t, s1.nr_mapped, 5);
	DC_ASSERT_EQ(t, s1.nr_free, e->nr - 5);
	dc_unpin(&e->pin[2]);

	/* One byte of the dirty range: written back, then removed. */
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 4 * e->rs + 7, 1), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, w[4], &m, sizeof(m)), -ENOENT);
	DC_ASSERT_EQ(t, sst(e).writebacks, 1);
	DC_ASSERT_EQ(t, sst(e).lost_writes, 0);
	/* From range 1 to the end of the file (the length overflows). */
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], e->rs, UINT64_MAX), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, w[2], &m, sizeof(m)), -ENOENT);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, w[5], &m, sizeof(m)), -ENOENT);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, w[0], &m, sizeof(m)), 0);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, 1), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, w[0], &m, sizeof(m)), -ENOENT);
	s1 = cst(e);
	DC_ASSERT_EQ(t, s1.nr_mapped, 1);
	DC_ASSERT_EQ(t, s1.nr_free, e->nr - 1);
	/* The other inode kept its mapping. */
	s0 = cst(e);
	touch(t, e, 1, 2 * e->rs, 0);
	DC_ASSERT_EQ(t, cst(e).misses, s0.misses);
	/* And punched ranges are misses again. */
	touch(t, e, 0, 3 * e->rs, 0);
	DC_ASSERT_EQ(t, cst(e).misses, s0.misses + 1);
}

ENV_CASE(cache_punch, 8, punch_body)

static void evict_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_stats b0, b1;
	struct dc_cache_stats s0, s1;
	struct dc_inode *x, *y;
	struct dc_pin pin;
	unsigned int k;

	DC_ASSERT_INT_EQ(t, dc_inode_get(e->cache, 77, &x), 0);
	for (k = 0; k < 10; k++) {
		DC_ASSERT_INT_EQ(t, dc_map(x, k * e->rs, k == 3 ? DC_MAP_WRITE : 0,
					   &pin), 0);
		if (k == 3)
			dc_simbe_write(e->be, pin.win_off, 77, k * e->rs);
		dc_unpin(&pin);
	}
	DC_ASSERT_INT_EQ(t, dc_inode_get(e->cache, 77, &y), 0);
	DC_ASSERT(t, x == y);
	DC_ASSERT_EQ(t, cst(e).nr_inodes, ENV_INODES + 1);
	dc_inode_put(y);
	DC_ASSERT_EQ(t, sst(e).nr_mapped, 10);
	DC_ASSERT_EQ(t, cst(e).nr_inodes, ENV_INODES + 1);

	s0 = cst(e);
	b0 = sst(e);
	dc_inode_put(x);
	s1 = cst(e);
	b1 = sst(e);
	DC_ASSERT_EQ(t, s1.nr_inodes, ENV_INODES);
	DC_ASSERT_EQ(t, b1.nr_mapped, 0);
	DC_ASSERT_EQ(t, b1.removed_entries - b0.removed_entries, 10);
	DC_ASSERT_EQ(t, b1.calls[DC_SIMBE_REMOVE] - b0.calls[DC_SIMBE_REMOVE], 3);
	DC_ASSERT(t, b1.max_batch <= 4);
	DC_ASSERT_EQ(t, b1.writebacks - b0.writebacks, 1);
	DC_ASSERT_EQ(t, b1.lost_writes, 0);
	DC_ASSERT_EQ(t, s1.removes_sent - s0.removes_sent, 10);
	DC_ASSERT_EQ(t, s1.remove_batches - s0.remove_batches, 3);
	DC_ASSERT_EQ(t, s1.nr_free, e->nr);
	DC_ASSERT_EQ(t, s1.nr_mapped, 0);

	/* A new inode with the same id starts empty. */
	DC_ASSERT_INT_EQ(t, dc_inode_get(e->cache, 77, &x), 0);
	DC_ASSERT_INT_EQ(t, dc_map(x, 0, 0, &pin), 0);
	dc_unpin(&pin);
	DC_ASSERT_EQ(t, cst(e).misses, s1.misses + 1);
	dc_inode_put(x);
	DC_ASSERT_EQ(t, sst(e).nr_mapped, 0);
}

ENV_CASE_CFG(cache_evict_on_last_put, 16, evict_body,
	     e.cfg.remove_batch_max = 4)

/*
 * The sequence whose trace events tests/kernel/init reads back from the
 * kernel's trace buffer, and tests/unit/trace-probes from the USDT probes
 * (README, "Tracing"): inode TRACE_INO misses index 0 for writing and
 * writes it, misses index 1 in a window of one range, which reclaims
 * index 0 inline with a writeback, and its last put evicts its one range.
 * Keep the three in step.
 *
 * The first miss takes the window's only free range and so kicks the
 * background reclaimer.  Were its run to come after the unpin, it would
 * reclaim index 0 itself, and then index 1 after the second miss took the
 * freed range (two reclaims, an eviction of nothing: seen under qemu).
 * So each pin is held until that run has ended (bg_pending back to 0): it
 * finds nothing idle, and nothing kicks it again, since an inline reclaim
 * takes nothing from the free pool.
 */
#define TRACE_INO	41041u

static void trace_scenario_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats s;
	struct dc_inode *x;
	struct dc_pin pin;

	DC_ASSERT_INT_EQ(t, dc_inode_get(e->cache, TRACE_INO, &x), 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_map(x, 0, DC_MAP_WRITE, &pin), 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_simbe_write(e->be, pin.win_off, TRACE_INO, 0), 0);
	env_settle(t, e);
	dc_unpin(&pin);
	DC_ASSERT_INT_EQ(t, dc_map(x, e->rs, 0, &pin), 0);
	DC_RETURN_IF_FAILED(t);
	env_settle(t, e);
	dc_unpin(&pin);
	dc_inode_put(x);
	s = cst(e);
	DC_ASSERT_EQ(t, s.misses, 2);
	DC_ASSERT_EQ(t, s.inline_reclaims, 1);
	DC_ASSERT_EQ(t, s.bg_reclaims, 0);
	DC_ASSERT_EQ(t, s.writebacks, 1);
	DC_ASSERT_EQ(t, sst(e).nr_mapped, 0);
}

ENV_CASE(cache_trace_scenario, 1, trace_scenario_body)

/* The last put while another thread holds a pin: reported, and waits. */
struct put_ctx {
	struct env *e;
	struct dc_inode *x;
	dci_atomic_t pinned;
	struct dc_pin pin;
	unsigned long warns;		/* dc_warn_count() before the put */
};

static void put_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct put_ctx *c = arg;
	unsigned int i;
	int ret;

	if (idx == 0) {
		ret = dc_map(c->x, 5, 0, &c->pin);
		dci_atomic_set(&c->pinned, ret ? -1 : 1);
		DC_ASSERT_INT_EQ(t, ret, 0);
		/*
		 * Hold the pin until the eviction has called it a misuse
		 * (after its 100 ms grace for transient pins); 30 s at most.
		 */
		for (i = 0; i < 3000 && dc_warn_count() == c->warns &&
			    !dci_atomic_read(&log_lines); i++)
			dc_test_sleep_us(10000);
		/* The put has not taken the mapping from under the pin. */
		ret = dc_simbe_check_tag(c->e->be, c->pin.win_off, 88, 5);
		dc_unpin(&c->pin);
		DC_ASSERT_INT_EQ(t, ret, 0);
		return;
	}
	while (!dci_atomic_read(&c->pinned))
		dc_test_sleep_us(100);
	dc_inode_put(c->x);
}

static void put_pinned_body(struct dc_test *t, struct env *e)
{
	struct put_ctx c = { .e = e };
	unsigned long warns = dc_warn_count();
	int lines;

	dci_atomic_set(&c.pinned, 0);
	c.warns = warns;
	DC_ASSERT_INT_EQ(t, dc_inode_get(e->cache, 88, &c.x), 0);
	dci_atomic_set(&log_lines, 0);
	dc_set_log_fn(count_log, NULL);
	dc_test_run_threads(t, 2, put_thread, &c);
	lines = dci_atomic_read(&log_lines);
	dc_set_log_fn(NULL, NULL);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, dc_warn_count() > warns || lines > 0);
	DC_ASSERT_EQ(t, sst(e).nr_mapped, 0);
	DC_ASSERT_EQ(t, cst(e).nr_inodes, ENV_INODES);
}

ENV_CASE(cache_put_with_pin_waits, 8, put_pinned_body)

/*
 * An eviction leaves the evicted inode's tree as it is (cache_reclaim.c,
 * claim_dead()): when a pin makes it pass again, the ranges an earlier
 * pass freed may be another inode's by then, even at the same index, and
 * must be left alone.  In a window of three (never empty, so that the
 * background reclaimer stays idle), X maps indexes 0 and 1; thread 0 pins
 * X's 1, thread 1 drops X's last reference; once X's 0 is free, thread 0
 * maps inode 0's index 0 into it (the free stack hands out the range freed
 * last) and then lets X's pin go.
 */
struct reuse_ctx {
	struct env *e;
	struct dc_inode *x;
	uint64_t x0;			/* the window range of X's index 0 */
	dci_atomic_t pinned;
};

static void evict_reuse_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct reuse_ctx *c = arg;
	struct env *e = c->e;
	struct dc_pin pin;
	int ret;

	if (idx == 1) {
		while (!dci_atomic_read(&c->pinned))
			dc_test_sleep_us(100);
		dc_inode_put(c->x);
		return;
	}
	ret = dc_map(c->x, e->rs, 0, &pin);
	dci_atomic_set(&c->pinned, 1);
	DC_ASSERT_INT_EQ(t, ret, 0);
	/* The first pass freed X's index 0, and waits for this pin. */
	DC_WAIT_FOR(t, cst(e).nr_free == 2);
	pin_at(t, e, 0, 0, 0, 0);
	DC_ASSERT_EQ(t, pin_base(e, &e->pin[0]), c->x0);
	dc_unpin(&e->pin[0]);
	dc_unpin(&pin);
}

static void evict_reuse_body(struct dc_test *t, struct env *e)
{
	struct reuse_ctx c = { .e = e };
	struct dc_cache_stats s0, s1;
	struct dc_pin pin;
	unsigned int k;

	dci_atomic_set(&c.pinned, 0);
	DC_ASSERT_INT_EQ(t, dc_inode_get(e->cache, 91, &c.x), 0);
	for (k = 0; k < 2; k++) {
		DC_ASSERT_INT_EQ(t, dc_map(c.x, (uint64_t)k * e->rs, 0, &pin), 0);
		if (!k)
			c.x0 = pin_base(e, &pin);
		dc_unpin(&pin);
	}
	DC_RETURN_IF_FAILED(t);
	dc_set_log_fn(count_log, NULL);
	dc_test_run_threads(t, 2, evict_reuse_thread, &c);
	dc_set_log_fn(NULL, NULL);
	DC_RETURN_IF_FAILED(t);
	env_settle(t, e);
	s0 = cst(e);
	DC_ASSERT_EQ(t, s0.nr_mapped, 1);
	DC_ASSERT_EQ(t, s0.nr_free, 2);
	DC_ASSERT_EQ(t, sst(e).nr_mapped, 1);
	/* Inode 0's mapping survived the eviction's second pass: a hit. */
	touch(t, e, 0, 0, 0);
	s1 = cst(e);
	DC_ASSERT_EQ(t, s1.hits - s0.hits, 1);
	DC_ASSERT_EQ(t, s1.misses, s0.misses);
}

ENV_CASE(cache_evict_pinned_reuse, 3, evict_reuse_body)

/*
 * A simbe and a default cache of @nr ranges over it, outside an environment
 * (for the cases of dc_cache_destroy(), which env_finish() would repeat).
 * Records a failure when they cannot be made.
 */
static void bare_create(struct dc_test *t, unsigned int nr,
			struct dc_simbe **be, struct dc_cache **c)
{
	struct dc_simbe_config bcfg;
	struct dc_cache_config cfg;
	const char *what;
	int ret;

	dc_cache_config_init(&cfg, sizeof(cfg), (uint64_t)nr << 21);
	dc_simbe_config_init(&bcfg, sizeof(bcfg), (uint64_t)nr << 21);
	ret = sim_env_create(&cfg, &bcfg, dc_simbe_ops(), be, c, &what);
	if (ret)
		dc_test_fail(t, __FILE__, __LINE__, "%s: %d", what, ret);
}

/* dc_cache_destroy() with inodes still referenced: evicted anyway. */
DC_TEST(cache_destroy_live_inodes)
{
	struct dc_simbe_stats bs;
	struct dc_inode *x, *y;
	struct dc_simbe *be;
	struct dc_cache *c;
	struct dc_pin pin;
	unsigned int k;
	int lines;

	bare_create(t, 8, &be, &c);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_inode_get(c, 1, &x), 0);
	DC_ASSERT_INT_EQ(t, dc_inode_get(c, 2, &y), 0);
	for (k = 0; k < 3; k++) {
		if (!dc_map(x, k << 21, DC_MAP_WRITE, &pin)) {
			dc_simbe_write(be, pin.win_off, 1, k << 21);
			dc_unpin(&pin);
		}
		if (!dc_map(y, k << 21, 0, &pin))
			dc_unpin(&pin);
	}
	dci_atomic_set(&log_lines, 0);
	dc_set_log_fn(count_log, NULL);
	dc_cache_destroy(c);
	lines = dci_atomic_read(&log_lines);
	dc_set_log_fn(NULL, NULL);
	bs = sst(&(struct env){ .be = be });
	dc_simbe_destroy(be);
	DC_ASSERT(t, lines > 0);
	DC_ASSERT_EQ(t, bs.calls[DC_SIMBE_SETUP], 6);
	DC_ASSERT_EQ(t, bs.nr_mapped, 0);
	DC_ASSERT_EQ(t, bs.removed_entries, 6);
	DC_ASSERT_EQ(t, bs.writebacks, 3);
	DC_ASSERT_EQ(t, bs.lost_writes, 0);
	DC_ASSERT_EQ(t, bs.remove_mismatches + bs.remove_unmapped, 0);
}

/* --- waiting for ranges --------------------------------------------------- */

static void nowait_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats s0;
	struct dc_pin pin;
	unsigned int tries;
	int ret;

	pin_at(t, e, 0, 0, 0, 0);
	pin_at(t, e, 1, 1, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).nr_free, 0);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], e->rs, DC_MAP_NOWAIT, &pin), -EAGAIN);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], e->rs, DC_MAP_NORECLAIM, &pin), -EAGAIN);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[2], e->rs, DC_MAP_NORECLAIM | DC_MAP_NOWAIT |
				   DC_MAP_WRITE, &pin), -EAGAIN);
	DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, 10 * MS), -ETIMEDOUT);
	/* Hits do not need a free range. */
	touch(t, e, 0, 0, DC_MAP_NOWAIT | DC_MAP_NORECLAIM);
	DC_RETURN_IF_FAILED(t);

	/* An idle range: NORECLAIM still will not take it, the reclaimer will. */
	s0 = cst(e);
	dc_unpin(&e->pin[1]);
	for (tries = 0; tries < 3; tries++) {
		ret = dc_map(e->inode[0], e->rs, DC_MAP_NORECLAIM, &e->pin[2]);
		if (ret != -EAGAIN)
			break;
		DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_LIMIT_NS), 0);
	}
	DC_ASSERT_INT_EQ(t, ret, 0);
	check_pin(t, e, 0, e->rs, &e->pin[2]);
	DC_ASSERT_EQ(t, cst(e).inline_reclaims, s0.inline_reclaims);
	/* Counted by the reclaimer after it frees: wait for it. */
	DC_WAIT_FOR(t, cst(e).bg_reclaims > s0.bg_reclaims);
}

ENV_CASE(cache_nowait_noreclaim, 2, nowait_body)

/*
 * Every range pinned: a waiter sleeps until it times out, and the
 * reclaimer it kicks does not wake it to kick again (they once woke each
 * other for the whole wait, a busy loop).  Its passes are bounded by the
 * waiter's kicks and one pass still pending from the pins, whatever the
 * machine's speed; hundreds of milliseconds of ping-pong would be far more.
 */
static void all_pinned_sleep_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats s0, s1;
	struct dc_pin pin;
	unsigned int k;

	for (k = 0; k < e->nr; k++)
		pin_at(t, e, k, 0, k * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	s0 = cst(e);
	DC_ASSERT_INT_EQ(t, dc_map_timeout(e->inode[1], 0, 0, 200 * MS, &pin),
			 -ETIMEDOUT);
	DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, 200 * MS), -ETIMEDOUT);
	s1 = cst(e);
	dc_test_log(t, "reclaimer passes during 400 ms of waits: %llu",
		    (unsigned long long)(s1.bg_passes - s0.bg_passes));
	DC_ASSERT_EQ(t, s1.waits, s0.waits + 1);
	DC_ASSERT(t, s1.bg_passes - s0.bg_passes <= 8);
	DC_ASSERT_EQ(t, s1.bg_reclaims, s0.bg_reclaims);
	DC_ASSERT_EQ(t, s1.nr_waiting, 0);
	for (k = 0; k < e->nr; k++)
		dc_unpin(&e->pin[k]);
}

ENV_CASE(cache_all_pinned_waiter_sleeps, 2, all_pinned_sleep_body)

/*
 * The one range is pinned and a miss waits for it, asleep; the unpin must
 * wake it: nothing else will (the reclaimer has found nothing and stopped,
 * and there is no free range to come).  Unpinned only once the waiter
 * sleeps (nr_waiting counts it after its last look), so no look of its own
 * can find the range idle: without the unpin's wake-up it would sleep
 * until its bound and fail.
 */
struct unpin_wake_ctx {
	struct env *e;
	dci_atomic_t done;
	int ret;
};

static void unpin_wake_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct unpin_wake_ctx *u = arg;
	struct env *e = u->e;
	struct dc_pin pin;

	if (idx == 0) {
		u->ret = dc_map(e->inode[1], 0, 0, &pin);
		if (!u->ret) {
			check_pin(t, e, 1, 0, &pin);
			dc_unpin(&pin);
		}
		dci_atomic_set(&u->done, 1);
		return;
	}
	DC_WAIT_FOR(t, cst(e).nr_waiting == 1);
	/* Still asleep: nothing but the unpin can end its wait. */
	DC_ASSERT(t, !dci_atomic_read(&u->done));
	dc_unpin(&e->pin[0]);
}

static void unpin_wakes_body(struct dc_test *t, struct env *e)
{
	struct unpin_wake_ctx u = { .e = e };
	struct dc_cache_stats s0;

	dci_atomic_set(&u.done, 0);
	pin_at(t, e, 0, 0, 0, 0);
	DC_RETURN_IF_FAILED(t);
	s0 = cst(e);
	dc_test_run_threads(t, 2, unpin_wake_thread, &u);
	DC_ASSERT_INT_EQ(t, u.ret, 0);
	DC_ASSERT_EQ(t, cst(e).waits, s0.waits + 1);
	DC_ASSERT_EQ(t, cst(e).nr_waiting, 0);
}

ENV_CASE(cache_unpin_wakes_waiter, 1, unpin_wakes_body)

/* A thread that pins every range and asks for one more gets -ETIMEDOUT. */
static void self_pin_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats s0;
	struct dc_pin pin;
	unsigned int k;

	for (k = 0; k < e->nr; k++)
		pin_at(t, e, k, 0, k * e->rs, k ? 0 : DC_MAP_WRITE);
	DC_RETURN_IF_FAILED(t);
	s0 = cst(e);
	DC_ASSERT_INT_EQ(t, dc_map_timeout(e->inode[0], 100 * e->rs, 0, 20 * MS,
					   &pin), -ETIMEDOUT);
	DC_ASSERT_INT_EQ(t, dc_map_timeout(e->inode[1], 0, DC_MAP_WRITE, 0, &pin),
			 -ETIMEDOUT);
	/* The config's bound (e->cfg.wait_timeout_ns is short here). */
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 101 * e->rs, 0, &pin), -ETIMEDOUT);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 102 * e->rs, DC_MAP_NOWAIT, &pin),
			 -EAGAIN);
	DC_ASSERT(t, cst(e).waits > s0.waits);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, e->nr);
	/* Own pins can still be hit, and upgraded. */
	touch(t, e, 0, e->nr > 1 ? e->rs : 0, DC_MAP_WRITE);
	DC_RETURN_IF_FAILED(t);
	dc_unpin(&e->pin[e->nr - 1]);
	touch(t, e, 0, 100 * e->rs, 0);
}

DC_TEST(cache_self_pinned_timeout)
{
	ENV_RUN_CFG(t, 1, self_pin_body, e.cfg.wait_timeout_ns = 30 * MS);
	DC_RETURN_IF_FAILED(t);
	ENV_RUN_CFG(t, 3, self_pin_body, e.cfg.wait_timeout_ns = 30 * MS);
}

/* --- forward progress ------------------------------------------------------ */

#define FP_THREADS	8u

struct fp_ctx {
	struct env *e;
	unsigned int iters;
	dci_atomic_t ready;
	dci_atomic64_t done;
};

static void fp_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct fp_ctx *c = arg;
	struct env *e = c->e;
	unsigned int i = idx % ENV_INODES, k;

	start_line(&c->ready, FP_THREADS);
	for (k = 0; k < c->iters && !dc_test_failed(t); k++) {
		uint64_t off = (idx * 1000ull + k % 5) * e->rs + k;
		unsigned int flags = k % 3 ? 0 : DC_MAP_WRITE;
		struct dc_pin pin;
		int ret;

		ret = dc_map(e->inode[i], off, flags, &pin);
		DC_ASSERT_INT_EQ(t, ret, 0);
		check_pin(t, e, i, off, &pin);
		if (flags & DC_MAP_WRITE && !dc_test_failed(t))
			DC_ASSERT_INT_EQ(t, dc_simbe_write(e->be, pin.win_off,
							   ino_id(i), off), 0);
		dc_unpin(&pin);
		dci_atomic64_inc(&c->done);
	}
}

static void fp_body(struct dc_test *t, struct env *e)
{
	struct fp_ctx c = { .e = e, .iters = 100 * dc_test_scale() };

	dci_atomic_set(&c.ready, 0);
	dci_atomic64_set(&c.done, 0);
	dc_test_run_threads(t, FP_THREADS, fp_thread, &c);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, dci_atomic64_read(&c.done), (uint64_t)FP_THREADS * c.iters);
	log_counters(t, e);
}

/* (env_init()'s wait_timeout_ns, DC_WAIT_LIMIT_NS: only a hang times out.) */
DC_TEST(cache_forward_progress_one_range)
{
	ENV_RUN_CFG(t, 1, fp_body, (void)0);
	DC_RETURN_IF_FAILED(t);
	ENV_RUN_CFG(t, 2, fp_body,
		    e.cfg.flags = DC_CACHE_KICK_BG_FIRST | DC_CACHE_REMOVE_ON_INLINE,
		    e.cfg.victim = DC_VICTIM_ROUND_ROBIN);
	DC_RETURN_IF_FAILED(t);
	ENV_RUN_CFG(t, 1, fp_body, e.cfg.flags = DC_CACHE_INLINE_OWN_ONLY);
}

/*
 * One range, CLOCK, inline reclaim only from the mapping inode: a map from
 * another inode depends on the background reclaimer alone, which must get
 * past the accessed bit of the idle range (second chance, not no chance).
 */
static void second_chance_body(struct dc_test *t, struct env *e)
{
	unsigned int round;

	for (round = 0; round < 4 && !dc_test_failed(t); round++) {
		unsigned int i = round % 2, j = 1 - i;

		touch(t, e, i, round * e->rs, 0);
		touch(t, e, i, round * e->rs, 0);	/* a hit: accessed */
		DC_RETURN_IF_FAILED(t);
		DC_ASSERT_INT_EQ(t, dc_map_timeout(e->inode[j], round * e->rs + 1, 0,
						   DC_WAIT_LIMIT_NS, &e->pin[0]), 0);
		check_pin(t, e, j, round * e->rs + 1, &e->pin[0]);
		dc_unpin(&e->pin[0]);
	}
}

ENV_CASE_CFG(cache_bg_reclaim_second_chance, 1, second_chance_body,
	     e.cfg.flags = DC_CACHE_INLINE_OWN_ONLY)

/* --- victim policies ------------------------------------------------------- */

/*
 * Four ranges, one reclaimed per pass: A, B, C idle (A set up first), A and
 * C hit since.  D takes the last free range and the reclaimer frees one.
 */
static void victim_body(struct dc_test *t, struct env *e)
{
	bool rr = e->cfg.victim == DC_VICTIM_ROUND_ROBIN;
	struct dc_simbe_mapping m;
	struct dc_cache_stats s0;
	uint64_t w[3];
	unsigned int k, round;

	DC_ASSERT_EQ(t, e->nr, 4);
	for (k = 0; k < 3; k++) {
		pin_at(t, e, k, 0, k * e->rs, 0);
		DC_RETURN_IF_FAILED(t);
		w[k] = pin_base(e, &e->pin[k]);
		dc_unpin(&e->pin[k]);
	}
	s0 = cst(e);
	touch(t, e, 0, 0, 0);
	touch(t, e, 0, 2 * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).hits, s0.hits + 2);
	DC_ASSERT_EQ(t, cst(e).nr_free, 1);

	for (round = 0; round < (rr ? 3u : 1u); round++) {
		unsigned int victim = rr ? round : 1;

		pin_at(t, e, 4 + round, 1, round * e->rs, 0);
		DC_RETURN_IF_FAILED(t);
		DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_LIMIT_NS), 0);
		env_settle(t, e);
		DC_RETURN_IF_FAILED(t);
		DC_ASSERT_EQ(t, cst(e).nr_free, 1);
		for (k = 0; k < 3; k++) {
			int want = k < round || k == victim ? -ENOENT : 0;

			if (rr && k < round)
				continue;	/* reused by the pins of the rounds */
			DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, w[k], &m, sizeof(m)), want);
		}
	}
	DC_ASSERT_EQ(t, cst(e).inline_reclaims, 0);
}

ENV_CASE_CFG(cache_victim_clock, 4, victim_body,
	     e.cfg.reclaim_batch = 1)

ENV_CASE_CFG(cache_victim_round_robin, 4, victim_body,
	     e.cfg.reclaim_batch = 1, e.cfg.victim = DC_VICTIM_ROUND_ROBIN)

/* Which of the window ranges @w[0..@n) the backend maps: bit k for w[k]. */
static unsigned int mapped_mask(struct env *e, const uint64_t *w, unsigned int n)
{
	struct dc_simbe_mapping m;
	unsigned int k, mask = 0;

	for (k = 0; k < n; k++)
		if (!dc_simbe_lookup(e->be, w[k], &m, sizeof(m)))
			mask |= 1u << k;
	return mask;
}

/*
 * Where a new mapping joins the order, four ranges, one reclaimed per pass.
 * A (pinned throughout), B, C mapped in inode 0; C hit.  D and E are inode
 * 1's, so that the reclaimer's trylock of inode 0's mutex never meets a
 * miss of the test's holding it (a pass that fails it moves on: the hand
 * would clear C's bit and take C).  D takes the last free range:
 * the pass passes A (pinned) and takes B (idle, not hit), under every
 * policy, and the hand stops at C.  Then C and D are hit and pinned, and E
 * takes the last free range while everything is pinned: that pass finds
 * nothing.  Unpinned, with C and D hit, A and E not, the next pass takes
 * what the policy puts first from the hand: SIEVE passes the visited C
 * and D (old to new) and takes E, the newest, at the end it reached (A,
 * older and not hit either, stays); CLOCK put E just behind the hand, so
 * it passes C, D and wraps to A; round-robin takes C.
 */
static void victim_order_body(struct dc_test *t, struct env *e)
{
	unsigned int want = e->cfg.victim == DC_VICTIM_SIEVE ? 4 :
			    e->cfg.victim == DC_VICTIM_CLOCK ? 0 : 2;
	uint64_t w[5];
	unsigned int k;

	DC_ASSERT_EQ(t, e->nr, 4);
	for (k = 0; k < 3; k++) {
		pin_at(t, e, k, 0, k * e->rs, 0);
		DC_RETURN_IF_FAILED(t);
		w[k] = pin_base(e, &e->pin[k]);
		if (k)
			dc_unpin(&e->pin[k]);
	}
	touch(t, e, 0, 2 * e->rs, 0);
	pin_at(t, e, 3, 1, 3 * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	w[3] = pin_base(e, &e->pin[3]);
	DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_LIMIT_NS), 0);
	env_settle(t, e);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).nr_free, 1);
	/* A, C and D mapped: B went. */
	DC_ASSERT_EQ(t, mapped_mask(e, w, 4), 0xdu);

	/* C and D hit and pinned (A still is): E's pass finds nothing. */
	dc_unpin(&e->pin[3]);
	pin_at(t, e, 3, 1, 3 * e->rs, 0);
	pin_at(t, e, 2, 0, 2 * e->rs, 0);
	pin_at(t, e, 4, 1, 4 * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	w[4] = pin_base(e, &e->pin[4]);
	env_settle(t, e);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).nr_free, 0);
	for (k = 0; k < 5; k++)
		if (k != 1)
			dc_unpin(&e->pin[k]);
	/* Nothing free: the wait kicks the reclaimer, whose pass takes one. */
	DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_LIMIT_NS), 0);
	env_settle(t, e);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).nr_free, 1);
	/* B's range is E's: A, C, D, E but the victim. */
	DC_ASSERT_EQ(t, w[4], w[1]);
	DC_ASSERT_EQ(t, mapped_mask(e, w, 5) & ~2u, 0x1du & ~(1u << want));
	DC_ASSERT_EQ(t, cst(e).inline_reclaims, 0);
}

ENV_CASE_CFG(cache_victim_sieve, 4, victim_order_body,
	     e.cfg.reclaim_batch = 1, e.cfg.victim = DC_VICTIM_SIEVE)

ENV_CASE_CFG(cache_victim_clock_order, 4, victim_order_body,
	     e.cfg.reclaim_batch = 1)

ENV_CASE_CFG(cache_victim_round_robin_order, 4, victim_order_body,
	     e.cfg.reclaim_batch = 1, e.cfg.victim = DC_VICTIM_ROUND_ROBIN)

/* --- pins hold ----------------------------------------------------------------- */

static void pin_stable_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_mapping m0, m;
	unsigned int k;

	pin_at(t, e, 0, 0, 7, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, e->pin[0].win_off, &m0, sizeof(m0)), 0);
	for (k = 0; k < 50 && !dc_test_failed(t); k++) {
		touch(t, e, 1 + k % 2, k * e->rs, k % 2 ? DC_MAP_WRITE : 0);
		DC_RETURN_IF_FAILED(t);
		check_pin(t, e, 0, 7, &e->pin[0]);
		DC_ASSERT_INT_EQ(t, dc_simbe_lookup(e->be, e->pin[0].win_off, &m, sizeof(m)), 0);
		DC_ASSERT_EQ(t, m.seq, m0.seq);
	}
	DC_WAIT_FOR(t, cst(e).inline_reclaims + cst(e).bg_reclaims >= 49);
}

ENV_CASE(cache_pin_blocks_reclaim, 2, pin_stable_body)

/* --- allocation failures ------------------------------------------------------- */

static void enomem_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats st;
	struct dc_inode *x;
	struct dc_pin pin;
	unsigned long nth;
	int ret = -ENOMEM;

	e->failures = true;		/* a failed miss may leave a mapping */
	for (nth = 1; nth < 100; nth++) {
		dci_fault_alloc_fail_nth(nth);
		ret = dc_inode_get(e->cache, 555, &x);
		dci_fault_alloc_fail_nth(0);
		if (!ret)
			break;
		DC_ASSERT_INT_EQ(t, ret, -ENOMEM);
		DC_ASSERT_EQ(t, cst(e).nr_inodes, ENV_INODES);
	}
	DC_ASSERT_INT_EQ(t, ret, 0);
	DC_ASSERT_EQ(t, dc_inode_id(x), 555);
	for (nth = 1; nth < 100; nth++) {
		dci_fault_alloc_fail_nth(nth);
		ret = dc_map(x, nth * e->rs, DC_MAP_WRITE, &pin);
		dci_fault_alloc_fail_nth(0);
		if (!ret)
			break;
		DC_ASSERT_INT_EQ(t, ret, -ENOMEM);
		st = cst(e);
		DC_ASSERT_EQ(t, st.nr_free, e->nr);
		DC_ASSERT_EQ(t, st.nr_mapped, 0);
	}
	if (ret) {
		dc_inode_put(x);
		DC_ASSERT_INT_EQ(t, ret, 0);
	}
	ret = dc_simbe_check_tag(e->be, pin.win_off, 555, nth * e->rs);
	dc_unpin(&pin);
	dc_inode_put(x);
	DC_ASSERT_INT_EQ(t, ret, 0);
	DC_ASSERT_EQ(t, cst(e).nr_free, e->nr);
}

ENV_CASE(cache_alloc_failures, 8, enomem_body)

/* dc_cache_create() with each of its allocations failing in turn. */
DC_TEST(cache_create_enomem)
{
	struct dc_simbe_config bcfg;
	struct dc_cache_config cfg;
	struct dc_simbe *be;
	struct dc_cache *c = NULL;
	unsigned long nth;
	int ret = -ENOMEM;

	dc_cache_config_init(&cfg, sizeof(cfg), 16ull << 21);
	dc_simbe_config_init(&bcfg, sizeof(bcfg), 16ull << 21);
	DC_ASSERT_INT_EQ(t, dc_simbe_create(&bcfg, sizeof(bcfg), &be), 0);
	for (nth = 1; nth < 200; nth++) {
		dci_fault_alloc_fail_nth(nth);
		ret = dc_cache_create(&cfg, sizeof(cfg), dc_simbe_ops(),
				      sizeof(struct dc_backend_ops), be, &c);
		dci_fault_alloc_fail_nth(0);
		if (!ret)
			break;
		if (ret != -ENOMEM)
			break;
	}
	if (!ret)
		dc_cache_destroy(c);
	dc_simbe_destroy(be);
	DC_ASSERT_INT_EQ(t, ret, 0);
	DC_ASSERT(t, nth > 1);
}

/* --- counters ------------------------------------------------------------------ */

static void stats_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats st;
	size_t part = DC_CACHE_STATS_SIZE_VER0;

	touch(t, e, 0, 0, 0);
	touch(t, e, 0, 0, 0);
	DC_RETURN_IF_FAILED(t);
	/* An older caller knows fewer members: the rest is not touched. */
	memset(&st, 0xa5, sizeof(st));
	DC_ASSERT_INT_EQ(t, dc_cache_stats(e->cache, &st, part), 0);
	DC_ASSERT_EQ(t, st.hits, 1);
	DC_ASSERT_EQ(t, st.misses, 1);
	DC_ASSERT_EQ(t, st.nr_ranges, e->nr);
	DC_ASSERT_EQ(t, st.bypasses, 0xa5a5a5a5a5a5a5a5ull);
	DC_ASSERT_EQ(t, st.bypass_write, 0xa5a5a5a5a5a5a5a5ull);
	/* Below the first layout: refused, nothing written. */
	memset(&st, 0xa5, sizeof(st));
	DC_ASSERT_INT_EQ(t, dc_cache_stats(e->cache, &st, part - 1), -EINVAL);
	DC_ASSERT_EQ(t, st.hits, 0xa5a5a5a5a5a5a5a5ull);
	DC_ASSERT_INT_EQ(t, dc_cache_stats(e->cache, &st, sizeof(st)), 0);
	DC_ASSERT_EQ(t, st.nr_ranges, e->nr);
	DC_ASSERT_EQ(t, st.nr_mapped, 1);
}

ENV_CASE(cache_stats_size, 8, stats_body)

/* --- what the header promises at the edges -------------------------------------- */

/*
 * A failed dc_map() leaves an empty pin: its public fields zero, and
 * dc_unpin() on it does nothing (it used to find the caller's garbage).
 */
static void check_empty_pin(struct dc_test *t, struct env *e, struct dc_pin *pin)
{
	struct dc_cache_stats s0 = cst(e);

	DC_ASSERT_EQ(t, pin->win_off, 0);
	DC_ASSERT_EQ(t, pin->len, 0);
	DC_ASSERT(t, !pin->writable);
	DC_ASSERT_EQ(t, pin->gen, 0);
	dc_unpin(pin);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, s0.nr_mapped);
}

/* Fill @pin with what an uninitialised stack variable might hold. */
static struct dc_pin *garbage(struct dc_pin *pin)
{
	memset(pin, 0xa5, sizeof(*pin));
	return pin;
}

static void map_error_body(struct dc_test *t, struct env *e)
{
	struct dc_pin pin;

	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, 0x8000, garbage(&pin)), -EINVAL);
	check_empty_pin(t, e, &pin);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_map(NULL, 0, 0, garbage(&pin)), -EINVAL);
	check_empty_pin(t, e, &pin);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_map_timeout(NULL, 0, 0, 1, garbage(&pin)), -EINVAL);
	check_empty_pin(t, e, &pin);
	DC_RETURN_IF_FAILED(t);

	/* A failed setup on a miss, and on an upgrade (a hit). */
	DC_ASSERT_INT_EQ(t, dc_simbe_fail_next(e->be, DC_SIMBE_SETUP, -EIO), 0);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, 0, garbage(&pin)), -EIO);
	check_empty_pin(t, e, &pin);
	DC_RETURN_IF_FAILED(t);
	pin_at(t, e, 0, 0, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_simbe_fail_next(e->be, DC_SIMBE_SETUP, -EIO), 0);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 0, DC_MAP_WRITE, garbage(&pin)), -EIO);
	check_empty_pin(t, e, &pin);
	DC_RETURN_IF_FAILED(t);

	/* Every range pinned: -EAGAIN, -ETIMEDOUT, and a bypass. */
	pin_at(t, e, 1, 1, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[2], 0, DC_MAP_NOWAIT, garbage(&pin)), -EAGAIN);
	check_empty_pin(t, e, &pin);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[2], 0, DC_MAP_NORECLAIM, garbage(&pin)), -EAGAIN);
	check_empty_pin(t, e, &pin);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_map_timeout(e->inode[2], 0, 0, 1 * MS, garbage(&pin)),
			 -ETIMEDOUT);
	check_empty_pin(t, e, &pin);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[2], 0, DC_MAP_MAY_BYPASS, garbage(&pin)),
			 DC_MAP_BYPASS);
	check_empty_pin(t, e, &pin);
}

ENV_CASE(cache_map_error_empty_pin, 2, map_error_body)

/*
 * A backend op that answers a positive number has broken its contract (0 or
 * -errno): the cache takes it for -EIO and says so, rather than handing the
 * number on (a setup's 1 read as DC_MAP_BYPASS).
 */
enum { POS_NONE, POS_SETUP, POS_WRITEBACK, POS_REMOVE };
static dci_atomic_t positive_op;
static dci_atomic_t positive_lines;

static int pos_setup(void *priv, uint64_t ino, uint64_t file_off,
		     uint64_t win_off, uint64_t len, unsigned int flags)
{
	if (dci_atomic_read(&positive_op) == POS_SETUP)
		return 1;
	return dc_simbe_ops()->setup(priv, ino, file_off, win_off, len, flags);
}

static int pos_writeback(void *priv, uint64_t ino, uint64_t file_off,
			 uint64_t len, uint64_t win_off)
{
	int ret = dc_simbe_ops()->writeback(priv, ino, file_off, len, win_off);

	if (!ret && dci_atomic_read(&positive_op) == POS_WRITEBACK)
		return 1;
	return ret;
}

static int pos_remove(void *priv, const struct dc_remove_entry *entries,
		      unsigned int n)
{
	int ret = dc_simbe_ops()->remove(priv, entries, n);

	if (!ret && dci_atomic_read(&positive_op) == POS_REMOVE)
		return 2;
	return ret;
}

static void count_positive(void *priv, int level, const char *msg)
{
	if (strstr(msg, "positive"))
		dci_atomic_inc(&positive_lines);
}

static void positive_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats s0;
	struct dc_pin pin;
	int ret;

	/* A miss, with and without DC_MAP_MAY_BYPASS. */
	dci_atomic_set(&positive_op, POS_SETUP);
	ret = dc_map(e->inode[0], 0, 0, &pin);
	if (!ret)
		dc_unpin(&pin);
	DC_ASSERT_INT_EQ(t, ret, -EIO);
	ret = dc_map(e->inode[0], 0, DC_MAP_WRITE | DC_MAP_MAY_BYPASS, &pin);
	if (!ret)
		dc_unpin(&pin);
	DC_ASSERT_INT_EQ(t, ret, -EIO);
	DC_ASSERT_EQ(t, cst(e).setup_failures, 2);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 0);
	/* An upgrade. */
	dci_atomic_set(&positive_op, POS_NONE);
	touch(t, e, 0, 0, 0);
	DC_RETURN_IF_FAILED(t);
	dci_atomic_set(&positive_op, POS_SETUP);
	ret = dc_map(e->inode[0], 0, DC_MAP_WRITE, &pin);
	if (!ret)
		dc_unpin(&pin);
	DC_ASSERT_INT_EQ(t, ret, -EIO);
	dci_atomic_set(&positive_op, POS_NONE);

	/* A writeback before a punch: the error punch returns. */
	dirty_at(t, e, 1, 0, NULL);
	DC_RETURN_IF_FAILED(t);
	dci_atomic_set(&positive_op, POS_WRITEBACK);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[1], 0, UINT64_MAX), -EIO);
	DC_ASSERT_EQ(t, cst(e).writeback_failures, 1);
	dci_atomic_set(&positive_op, POS_NONE);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[1], 0, UINT64_MAX), 0);

	/* A remove: counted as failed (the ranges are reused anyway). */
	s0 = cst(e);
	dci_atomic_set(&positive_op, POS_REMOVE);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, UINT64_MAX), 0);
	dci_atomic_set(&positive_op, POS_NONE);
	DC_ASSERT_EQ(t, cst(e).remove_failures, s0.remove_failures + 1);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 0);
	/* Each op's broken answer was reported. */
	DC_ASSERT(t, dci_atomic_read(&positive_lines) >= 3);
}

DC_TEST(cache_backend_positive_return)
{
	struct env e;

	dci_atomic_set(&positive_op, POS_NONE);
	dci_atomic_set(&positive_lines, 0);
	dc_set_log_fn(count_positive, NULL);
	env_init(&e, 4);
	/* Under admission control, where DC_MAP_BYPASS can be an answer. */
	e.cfg.admit = DC_ADMIT_FREQ;
	e.ops.setup = pos_setup;
	e.ops.writeback = pos_writeback;
	e.ops.remove = pos_remove;
	ENV_RUN(t, &e, positive_body);
	dc_set_log_fn(NULL, NULL);
	dci_atomic_set(&positive_op, POS_NONE);
}

/* The setup that makes a mapping writable is a setup: the generation moves. */
static void gen_upgrade_body(struct dc_test *t, struct env *e)
{
	struct dc_pin *ro = &e->pin[0], *rw = &e->pin[1], *again = &e->pin[2];

	pin_at(t, e, 0, 0, 5, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, !ro->writable);
	pin_at(t, e, 1, 0, 7, DC_MAP_WRITE);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).upgrades, 1);
	DC_ASSERT(t, rw->writable);
	DC_ASSERT_EQ(t, pin_base(e, rw), pin_base(e, ro));
	DC_ASSERT(t, rw->gen != ro->gen);
	/* Later pins of the upgraded mapping see its generation. */
	pin_at(t, e, 2, 0, 9, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT(t, again->writable);
	DC_ASSERT_EQ(t, again->gen, rw->gen);
	/* And a new mapping in the same window range has another one. */
	dc_unpin(ro);
	dc_unpin(rw);
	dc_unpin(again);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, UINT64_MAX), 0);
	pin_at(t, e, 0, 1, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, pin_base(e, ro), pin_base(e, rw));
	DC_ASSERT(t, ro->gen != rw->gen);
}

ENV_CASE(cache_gen_changes_on_upgrade, 1, gen_upgrade_body)

/*
 * Punch with a pinned range and a range whose writeback fails: the
 * writeback error is what the caller hears (a pin is no data loss).
 */
static void punch_wb_wins_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_fault f = { .err = -EIO, .every = 1 };
	unsigned int k;

	for (k = 0; k < 4; k++) {
		pin_at(t, e, k, 0, k * e->rs, k == 2 ? DC_MAP_WRITE : 0);
		DC_RETURN_IF_FAILED(t);
	}
	DC_ASSERT_INT_EQ(t, dc_simbe_write(e->be, e->pin[2].win_off, ino_id(0),
					   2 * e->rs), 0);
	for (k = 1; k < 4; k++)
		dc_unpin(&e->pin[k]);
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(e->be, DC_SIMBE_WRITEBACK, &f, sizeof(f)), 0);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, UINT64_MAX), -EIO);
	/* The pinned one and the dirty one stay; the others are gone. */
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 2);
	check_pin(t, e, 0, 0, &e->pin[0]);
	dc_unpin(&e->pin[0]);
	dc_simbe_set_fault(e->be, DC_SIMBE_WRITEBACK, NULL, 0);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, UINT64_MAX), 0);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 0);
	DC_ASSERT_EQ(t, sst(e).lost_writes, 0);
}

ENV_CASE(cache_punch_writeback_error_wins, 8, punch_wb_wins_body)

/*
 * Batches of one, and one range of 64 whose writeback always fails: the
 * punch walks the inode once, so that range is written back once, not once
 * per batch.
 */
static void punch_linear_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_fault f = { .err = -EIO, .every = 1 };
	struct dc_simbe_stats b0, b1;
	unsigned int k;

	for (k = 0; k < 64; k++) {
		pin_at(t, e, 0, 0, k * e->rs, k == 0 ? DC_MAP_WRITE : 0);
		DC_RETURN_IF_FAILED(t);
		if (k == 0)
			DC_ASSERT_INT_EQ(t, dc_simbe_write(e->be, e->pin[0].win_off,
							   ino_id(0), 0), 0);
		dc_unpin(&e->pin[0]);
	}
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 64);
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(e->be, DC_SIMBE_WRITEBACK, &f, sizeof(f)), 0);
	b0 = sst(e);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, UINT64_MAX), -EIO);
	b1 = sst(e);
	DC_ASSERT_EQ(t, b1.calls[DC_SIMBE_WRITEBACK] - b0.calls[DC_SIMBE_WRITEBACK], 1);
	DC_ASSERT_EQ(t, b1.calls[DC_SIMBE_REMOVE] - b0.calls[DC_SIMBE_REMOVE], 63);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 1);
	dc_simbe_set_fault(e->be, DC_SIMBE_WRITEBACK, NULL, 0);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, UINT64_MAX), 0);
	DC_ASSERT_EQ(t, sst(e).lost_writes, 0);
}

/* One range stays free: the background reclaimer is never kicked. */
ENV_CASE_CFG(cache_punch_linear, 65, punch_linear_body,
	     e.cfg.reclaim_threshold_pct = 0, e.cfg.remove_batch_max = 1)

/* Whether @off of inode @i is mapped: a map that hits, or a miss that maps it. */
static bool span_mapped(struct dc_test *t, struct env *e, unsigned int i,
			uint64_t off)
{
	uint64_t hits = cst(e).hits;

	pin_at(t, e, 15, i, off, 0);
	dc_unpin(&e->pin[15]);
	return cst(e).hits == hits + 1;
}

#define SPAN_MAPS	40u
#define SPAN_CUT	10u		/* the punch starts at this mapping's index */

static uint64_t span_idx(unsigned int k)
{
	/* Scattered, below 64 and far past it. */
	return k * 37 + (k % 3) * 1000;
}

static bool span_pinned(unsigned int k)
{
	return k % 6 == 5;
}

/*
 * A punch drops exactly the unpinned mappings of its span, whichever way
 * it walks: around the inode's ring (a span wider than its mappings, in
 * batches of 3, with pinned mappings left in the ring to be passed once
 * each), or index by index (a narrow span).  Another inode's mappings, in
 * the same table, stay.
 */
static void punch_span_body(struct dc_test *t, struct env *e)
{
	uint64_t cut = span_idx(SPAN_CUT), wb0;
	unsigned int k, np = 0;

	for (k = 0; k < 4; k++) {
		pin_at(t, e, 14, 1, k * e->rs, 0);
		dc_unpin(&e->pin[14]);
	}
	for (k = 0; k < SPAN_MAPS; k++) {
		pin_at(t, e, span_pinned(k) ? np : 14, 0, span_idx(k) * e->rs,
		       span_pinned(k) ? DC_MAP_WRITE : 0);
		DC_RETURN_IF_FAILED(t);
		if (span_pinned(k))
			np++;
		else
			dc_unpin(&e->pin[14]);
	}
	DC_ASSERT_EQ(t, cst(e).nr_mapped, SPAN_MAPS + 4);
	wb0 = sst(e).calls[DC_SIMBE_WRITEBACK];
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], cut * e->rs, UINT64_MAX), -EBUSY);
	/* The pinned ones are passed once each: no writeback of theirs is tried. */
	DC_ASSERT_EQ(t, sst(e).calls[DC_SIMBE_WRITEBACK], wb0);
	for (k = 0; k < np; k++)
		dc_unpin(&e->pin[k]);
	for (k = 0; k < SPAN_MAPS; k++)
		DC_ASSERT_EQ(t, span_mapped(t, e, 0, span_idx(k) * e->rs),
			     span_idx(k) < cut || span_pinned(k));
	for (k = 0; k < 4; k++)
		DC_ASSERT(t, span_mapped(t, e, 1, k * e->rs));
	/* Narrow: indexes 1 and 2 of inode 1's four. */
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[1], e->rs, 2 * e->rs), 0);
	for (k = 0; k < 4; k++)
		DC_ASSERT_EQ(t, span_mapped(t, e, 1, k * e->rs), k == 0 || k == 3);
}

ENV_CASE_CFG(cache_punch_span_walks, 48, punch_span_body,
	     e.cfg.reclaim_threshold_pct = 0, e.cfg.remove_batch_max = 3)

/*
 * Two punches of one inode's whole span at once, in batches of one, each
 * held at its first remove until both are there: each walks the ring with
 * its own mark while the other moves ranges too, and each ends; between
 * them they drop every unpinned mapping once (one remove each), and both
 * report the pinned ones.
 */
#define TWOPUNCH_MAPS	16u

struct twopunch_ctx {
	struct env *e;
	int ret[2];
};

static void twopunch_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct twopunch_ctx *c = arg;
	struct env *e = c->e;

	if (idx < 2) {
		c->ret[idx] = dc_inode_punch(e->inode[0], 0, UINT64_MAX);
		return;
	}
	DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_REMOVE) == 2);
	dc_simbe_gate_open(e->be, DC_SIMBE_REMOVE);
}

static void twopunch_body(struct dc_test *t, struct env *e)
{
	struct twopunch_ctx c = { .e = e };
	unsigned int k, np = 0;
	uint64_t rm0;

	for (k = 0; k < TWOPUNCH_MAPS; k++) {
		bool pin = k % 4 == 1;

		pin_at(t, e, pin ? np : 14, 0, 3 * k * e->rs, 0);
		DC_RETURN_IF_FAILED(t);
		if (pin)
			np++;
		else
			dc_unpin(&e->pin[14]);
	}
	rm0 = sst(e).removed_entries;
	dc_simbe_gate_close(e->be, DC_SIMBE_REMOVE);
	dc_test_run_threads(t, 3, twopunch_thread, &c);
	DC_ASSERT_INT_EQ(t, c.ret[0], -EBUSY);
	DC_ASSERT_INT_EQ(t, c.ret[1], -EBUSY);
	DC_ASSERT_EQ(t, sst(e).removed_entries - rm0, TWOPUNCH_MAPS - np);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, np);
	for (k = 0; k < np; k++)
		dc_unpin(&e->pin[k]);
	for (k = 0; k < TWOPUNCH_MAPS; k++)
		DC_ASSERT_EQ(t, span_mapped(t, e, 0, 3 * k * e->rs), k % 4 == 1);
}

ENV_CASE_CFG(cache_punch_two_at_once, 24, twopunch_body,
	     e.cfg.reclaim_threshold_pct = 0, e.cfg.remove_batch_max = 1)

/*
 * remove_batch_max above the number of ranges is capped, not allocated.
 * One range stays free (threshold 0): the background reclaimer is never
 * kicked, so the punch's remove() is the only one (with the window full,
 * a reclaimer pass could send its own between the two samples).
 */
static void batch_cap_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_stats b0, b1;
	unsigned int k;

	for (k = 0; k < e->nr - 1; k++)
		touch(t, e, 0, k * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	b0 = sst(e);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, UINT64_MAX), 0);
	b1 = sst(e);
	DC_ASSERT_EQ(t, b1.calls[DC_SIMBE_REMOVE] - b0.calls[DC_SIMBE_REMOVE], 1);
	DC_ASSERT_EQ(t, b1.removed_entries - b0.removed_entries, e->nr - 1);
	/* Background reclaim batches too. */
	for (k = 0; k < 3 * e->nr; k++)
		touch(t, e, 1, k * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_wait_free(e->cache, DC_WAIT_LIMIT_NS), 0);
}

ENV_CASE_CFG(cache_remove_batch_max_capped, 8, batch_cap_body,
	     e.cfg.reclaim_threshold_pct = 0, e.cfg.remove_batch_max = UINT_MAX)

/*
 * Failed setups are logged, but a backend that keeps failing does not flood
 * the log: the 1st, 2nd, 4th, 8th... failure of a cache are.
 */
static dci_atomic_t setup_lines;

static void count_setup(void *priv, int level, const char *msg)
{
	if (strstr(msg, "setup"))
		dci_atomic_inc(&setup_lines);
}

static void setup_log_body(struct dc_test *t, struct env *e)
{
	struct dc_simbe_fault f = { .err = -EIO, .every = 1 };
	struct dc_pin pin;
	unsigned int k;

	dci_atomic_set(&setup_lines, 0);
	dc_set_log_fn(count_setup, NULL);
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(e->be, DC_SIMBE_SETUP, &f, sizeof(f)), 0);
	for (k = 0; k < 100; k++) {
		if (dc_map(e->inode[k % 2], k * e->rs, 0, &pin) != -EIO) {
			dc_unpin(&pin);
			dc_test_fail(t, __FILE__, __LINE__, "setup %u did not fail", k);
			break;
		}
	}
	dc_simbe_set_fault(e->be, DC_SIMBE_SETUP, NULL, 0);
	dc_set_log_fn(NULL, NULL);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).setup_failures, 100);
	/* 1, 2, 4, 8, 16, 32, 64. */
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&setup_lines), 7);
}

ENV_CASE(cache_setup_failure_logged, 4, setup_log_body)

/*
 * dc_cache_destroy() with a pin still held: it reports, gives up waiting
 * after DC_DESTROY_PIN_TIMEOUT_NS and returns -EBUSY, leaving the pinned
 * mapping alone and the cache allocated, so that the late dc_unpin() is
 * harmless; a second destroy after it frees everything.
 */
static dci_atomic_t destroy_lines;

static void count_destroy(void *priv, int level, const char *msg)
{
	if (strstr(msg, "still pinned"))
		dci_atomic_inc(&destroy_lines);
}

DC_TEST(cache_destroy_with_pin_returns)
{
	struct dc_simbe_stats bs;
	struct dc_inode *x;
	struct dc_simbe *be;
	struct dc_cache *c;
	struct dc_pin pin, other;
	unsigned long warns;
	int ret;

	bare_create(t, 4, &be, &c);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_inode_get(c, 1, &x), 0);
	DC_ASSERT_INT_EQ(t, dc_map(x, 0, DC_MAP_WRITE, &pin), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_write(be, pin.win_off, 1, 0), 0);
	DC_ASSERT_INT_EQ(t, dc_map(x, 1ull << 21, 0, &other), 0);
	dc_unpin(&other);
	/* No put: a last put would wait for the pin (see dc_inode_put()). */
	dci_atomic_set(&destroy_lines, 0);
	dc_set_log_fn(count_destroy, NULL);
	warns = dc_warn_count();
	ret = dc_cache_destroy(c);
	dc_set_log_fn(NULL, NULL);
	DC_ASSERT_INT_EQ(t, ret, -EBUSY);
	DC_ASSERT_INT_EQ(t, dci_atomic_read(&destroy_lines), 1);
	DC_ASSERT(t, dc_warn_count() > warns);
	/* The idle mapping went; the pinned one is left as it was. */
	bs = sst(&(struct env){ .be = be });
	DC_ASSERT_EQ(t, bs.nr_mapped, 1);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, pin.win_off, 1, 0), 0);
	dc_unpin(&pin);
	/* Now it can finish: written back, removed, freed. */
	DC_ASSERT_INT_EQ(t, dc_cache_destroy(c), 0);
	bs = sst(&(struct env){ .be = be });
	dc_simbe_destroy(be);
	DC_ASSERT_EQ(t, bs.nr_mapped, 0);
	DC_ASSERT_EQ(t, bs.lost_writes, 0);
	DC_ASSERT_EQ(t, bs.writebacks, 1);
	DC_ASSERT_EQ(t, bs.remove_mismatches + bs.remove_unmapped, 0);
	DC_ASSERT_EQ(t, dci_atomic_read(&destroy_lines), 1);
}

/* --- everything at once, a little ------------------------------------------------ */

#define MIX_THREADS	4u

struct mix_ctx {
	struct env *e;
	unsigned int ops;
	dci_atomic_t ready;
};

static void mix_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct mix_ctx *c = arg;
	struct env *e = c->e;
	struct dc_test_rng rng;
	struct dc_inode *own = NULL;
	unsigned int k;

	dc_test_rng_init(&rng, t->seed + idx);
	start_line(&c->ready, MIX_THREADS);
	for (k = 0; k < c->ops && !dc_test_failed(t); k++) {
		unsigned int op = (unsigned int)dc_test_below(&rng, 100);
		unsigned int i = (unsigned int)dc_test_below(&rng, ENV_INODES);
		uint64_t off = dc_test_below(&rng, 12) * e->rs +
			       dc_test_below(&rng, e->rs);
		struct dc_pin pin;
		int ret;

		if (op < 80) {
			unsigned int flags = op < 20 ? DC_MAP_WRITE : 0;

			ret = dc_map(e->inode[i], off, flags, &pin);
			DC_ASSERT_INT_EQ(t, ret, 0);
			check_pin(t, e, i, off, &pin);
			if (flags && !dc_test_failed(t))
				DC_ASSERT_INT_EQ(t, dc_simbe_write(e->be, pin.win_off,
								   ino_id(i), off), 0);
			dc_unpin(&pin);
		} else if (op < 88) {
			ret = dc_inode_punch(e->inode[i], off, dc_test_below(&rng, 3 * e->rs) + 1);
			DC_ASSERT(t, ret == 0 || ret == -EBUSY);
		} else {
			/* A private inode that comes and goes. */
			if (!own) {
				DC_ASSERT_INT_EQ(t, dc_inode_get(e->cache, 9000 + idx, &own), 0);
			}
			ret = dc_map(own, off, op & 1 ? DC_MAP_WRITE : 0, &pin);
			DC_ASSERT_INT_EQ(t, ret, 0);
			ret = dc_simbe_check_tag(e->be, pin.win_off, 9000 + idx, off);
			dc_unpin(&pin);
			DC_ASSERT_INT_EQ(t, ret, 0);
			if (op > 96) {
				dc_inode_put(own);
				own = NULL;
			}
		}
	}
	dc_inode_put(own);
}

static void mix_body(struct dc_test *t, struct env *e)
{
	struct mix_ctx c = { .e = e,
			      .ops = 3000 * dc_test_scale() / dc_test_slowdown() };

	dc_simbe_set_latency(e->be, DC_SIMBE_SETUP, 2000, 0);
	dc_simbe_set_latency(e->be, DC_SIMBE_REMOVE, 2000, 500);
	dci_atomic_set(&c.ready, 0);
	dc_test_run_threads(t, MIX_THREADS, mix_thread, &c);
	DC_RETURN_IF_FAILED(t);
	log_counters(t, e);
	/*
	 * The private inodes are gone once the reclaimer has dropped any
	 * passing reference it held when their last put came (then it evicts).
	 */
	DC_WAIT_FOR(t, cst(e).nr_inodes == ENV_INODES);
}

DC_TEST(cache_threads_mixed)
{
	static const unsigned int sizes[] = { 1, 2, 4, 16 };
	unsigned int k;

	for (k = 0; k < DCI_ARRAY_SIZE(sizes) && !dc_test_failed(t); k++) {
		ENV_RUN_CFG(t, sizes[k], mix_body,
			    e.cfg.victim = k & 1 ? DC_VICTIM_ROUND_ROBIN : DC_VICTIM_CLOCK,
			    e.cfg.remove_batch_max = 3);
		if (dc_test_failed(t))
			dc_test_log(t, "in row %u: %u ranges, %s victims", k, sizes[k],
				    k & 1 ? "round-robin" : "clock");
	}
}

/* --- the simulation backend itself -------------------------------------------------- */

DC_TEST(cache_simbe_model)
{
	const struct dc_backend_ops *ops = dc_simbe_ops();
	struct dc_simbe_fault f = { .err = -EIO, .every = 3 };
	struct dc_remove_entry ent[2];
	struct dc_simbe_config cfg;
	struct dc_simbe_mapping m;
	struct dc_simbe_stats st;
	struct dc_simbe *be;
	unsigned int k, fails;
	int ret;

	dc_simbe_config_init(&cfg, sizeof(cfg), 4 * 4096);
	cfg.range_shift = 12;
	cfg.remove_batch_max = 2;
	DC_ASSERT_INT_EQ(t, dc_simbe_create(&cfg, sizeof(cfg), &be), 0);
	DC_ASSERT_EQ(t, dc_simbe_nr_ranges(be), 4);
	DC_ASSERT_EQ(t, dc_simbe_range_size(be), 4096);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 0, &m, sizeof(m)), -ENOENT);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 4 * 4096, &m, sizeof(m)), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 7, 8192, 4096, 4096, DC_MAP_READ), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 4096 + 5, &m, sizeof(m)), 0);
	DC_ASSERT_EQ(t, m.ino, 7);
	DC_ASSERT_EQ(t, m.file_off, 8192);
	DC_ASSERT_EQ(t, m.win_off, 4096);
	DC_ASSERT_EQ(t, m.seq, 1);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, 4096 + 5, 7, 8192 + 5), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, 4096 + 5, 7, 8192 + 6), -ESTALE);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, 4096, 8, 8192), -ESTALE);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, 0, 7, 8192), -ENOENT);
	DC_ASSERT_INT_EQ(t, dc_simbe_write(be, 4096, 7, 8192), -EROFS);
	/* Upgrade: same content, writable. */
	DC_ASSERT_INT_EQ(t, ops->setup(be, 7, 8192, 4096, 4096,
				       DC_MAP_READ | DC_MAP_WRITE), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 4096, &m, sizeof(m)), 0);
	DC_ASSERT_EQ(t, m.seq, 1);
	DC_ASSERT_EQ(t, m.setup_seq, 2);
	DC_ASSERT_INT_EQ(t, dc_simbe_write(be, 4096 + 1, 7, 8192 + 1), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 4096, &m, sizeof(m)), 0);
	DC_ASSERT(t, m.dirty);
	DC_ASSERT_INT_EQ(t, ops->writeback(be, 7, 8192, 4096, 4096), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 4096, &m, sizeof(m)), 0);
	DC_ASSERT(t, !m.dirty);
	/* Replacing a dirty mapping loses the write. */
	DC_ASSERT_INT_EQ(t, dc_simbe_write(be, 4096, 7, 8192), 0);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 9, 0, 4096, 4096, DC_MAP_READ), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, 4096, 9, 0), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(be, 4096, 7, 8192), -ESTALE);
	/* Removes: matching, mismatching, unmapped; batch limit. */
	ent[0] = (struct dc_remove_entry){ .ino = 9, .file_off = 0, .win_off = 4096, .len = 4096 };
	ent[1] = (struct dc_remove_entry){ .ino = 9, .file_off = 0, .win_off = 8192, .len = 4096 };
	DC_ASSERT_INT_EQ(t, ops->setup(be, 3, 0, 8192, 4096, DC_MAP_READ), 0);
	DC_ASSERT_INT_EQ(t, ops->remove(be, ent, 2), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 4096, &m, sizeof(m)), -ENOENT);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 8192, &m, sizeof(m)), -ENOENT);
	DC_ASSERT_INT_EQ(t, ops->remove(be, ent, 1), 0);
	DC_ASSERT_INT_EQ(t, ops->remove(be, ent, 3), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 3, 0, 100, 4096, DC_MAP_READ), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->setup(be, 3, 0, 3 * 4096, 8192, DC_MAP_READ), -EINVAL);
	DC_ASSERT_INT_EQ(t, ops->writeback(be, 3, 0, 4096, 0), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_stats(be, &st, sizeof(st)), 0);
	DC_ASSERT_EQ(t, st.calls[DC_SIMBE_SETUP], 6);
	DC_ASSERT_EQ(t, st.setups_read, 3);
	DC_ASSERT_EQ(t, st.setups_write, 1);
	DC_ASSERT_EQ(t, st.setups_same, 1);
	DC_ASSERT_EQ(t, st.setups_replacing, 1);
	DC_ASSERT_EQ(t, st.lost_writes, 1);
	DC_ASSERT_EQ(t, st.remove_mismatches, 1);
	DC_ASSERT_EQ(t, st.remove_unmapped, 1);
	DC_ASSERT_EQ(t, st.removed_entries, 3);
	DC_ASSERT_EQ(t, st.max_batch, 2);
	DC_ASSERT_EQ(t, st.bad_calls, 3);
	DC_ASSERT_EQ(t, st.writeback_mismatches, 1);
	DC_ASSERT_EQ(t, st.writebacks, 2);
	DC_ASSERT_EQ(t, st.nr_mapped, 0);
	DC_ASSERT_EQ(t, st.tag_failures, 5);

	/* Faults: every third call; the next call; by probability. */
	dc_simbe_reset_stats(be);
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(be, DC_SIMBE_SETUP, &f, sizeof(f)), 0);
	for (k = 0, fails = 0; k < 9; k++) {
		ret = ops->setup(be, 1, 0, 0, 4096, DC_MAP_READ);
		DC_ASSERT(t, ret == 0 || ret == -EIO);
		fails += ret != 0;
		DC_ASSERT_EQ(t, ret != 0, k % 3 == 2);
	}
	DC_ASSERT_EQ(t, fails, 3);
	DC_ASSERT_INT_EQ(t, dc_simbe_fail_next(be, DC_SIMBE_REMOVE, -ENOSPC), 0);
	ent[0] = (struct dc_remove_entry){ .ino = 1, .file_off = 0, .win_off = 0, .len = 4096 };
	DC_ASSERT_INT_EQ(t, ops->remove(be, ent, 1), -ENOSPC);
	DC_ASSERT_INT_EQ(t, dc_simbe_lookup(be, 0, &m, sizeof(m)), 0);
	DC_ASSERT_INT_EQ(t, ops->remove(be, ent, 1), 0);
	f = (struct dc_simbe_fault){ .ppm = 250000, .seed = 42 };
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(be, DC_SIMBE_WRITEBACK, &f, sizeof(f)), 0);
	for (k = 0, fails = 0; k < 1000; k++)
		fails += ops->writeback(be, 1, 0, 4096, 0) != 0;
	DC_ASSERT(t, fails > 150 && fails < 350);
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(be, DC_SIMBE_WRITEBACK, NULL, 0), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(be, DC_SIMBE_NR_OPS, NULL, 0), -EINVAL);
	f.err = 5;
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(be, DC_SIMBE_SETUP, &f, sizeof(f)), -EINVAL);
	DC_ASSERT_INT_EQ(t, dc_simbe_set_fault(be, DC_SIMBE_SETUP, NULL, 0), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_stats(be, &st, sizeof(st)), 0);
	DC_ASSERT_EQ(t, st.injected[DC_SIMBE_SETUP], 3);
	DC_ASSERT_EQ(t, st.injected[DC_SIMBE_REMOVE], 1);
	DC_ASSERT_EQ(t, st.injected[DC_SIMBE_WRITEBACK], fails);

	/* Latency: the calls take at least as long as the model says. */
	dc_simbe_set_latency(be, DC_SIMBE_SETUP, 50000, 0);
	dc_simbe_reset_stats(be);
	for (k = 0; k < 10; k++)
		DC_ASSERT_INT_EQ(t, ops->setup(be, 1, 0, 0, 4096, DC_MAP_READ), 0);
	DC_ASSERT_INT_EQ(t, dc_simbe_stats(be, &st, sizeof(st)), 0);
	DC_ASSERT(t, dc_simbe_avg_ns(&st, DC_SIMBE_SETUP) >= 50000);
	dc_simbe_destroy(be);
}

/*
 * Statistics are counted per thread (per CPU in the kernel) and summed on
 * read: what threads counted must survive their exit, round after round of
 * new threads (which may take the exited ones' places), and a new cache
 * must not inherit counts, nor have its counts go elsewhere.
 */
#define SX_THREADS	4
#define SX_ROUNDS	6
#define SX_HITS		300

static void sx_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct env *e = arg;
	unsigned int k;

	for (k = 0; k < SX_HITS && !dc_test_failed(t); k++)
		touch(t, e, 0, (idx % 2) * e->rs + k, 0);
}

static void stats_exit_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats st;
	unsigned int round;

	touch(t, e, 0, 0, 0);
	touch(t, e, 0, e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	for (round = 1; round <= SX_ROUNDS; round++) {
		dc_test_run_threads(t, SX_THREADS, sx_thread, e);
		DC_RETURN_IF_FAILED(t);
		st = cst(e);
		DC_ASSERT_EQ(t, st.hits, (uint64_t)round * SX_THREADS * SX_HITS);
		DC_ASSERT_EQ(t, st.misses, 2);
	}
	/* And this thread's own. */
	touch(t, e, 0, 5, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).hits, (uint64_t)SX_ROUNDS * SX_THREADS * SX_HITS + 1);
}

static void stats_fresh_body(struct dc_test *t, struct env *e)
{
	struct dc_cache_stats st;

	st = cst(e);
	DC_ASSERT_EQ(t, st.hits, 0);
	DC_ASSERT_EQ(t, st.misses, 0);
	touch(t, e, 0, 0, 0);
	touch(t, e, 0, 1, 0);
	DC_RETURN_IF_FAILED(t);
	st = cst(e);
	DC_ASSERT_EQ(t, st.hits, 1);
	DC_ASSERT_EQ(t, st.misses, 1);
}

DC_TEST(cache_stats_threads_exit)
{
	struct env e;

	env_init(&e, 4);
	ENV_RUN(t, &e, stats_exit_body);
	if (dc_test_failed(t))
		return;
	/* A cache made after that one is gone (often at its address). */
	env_init(&e, 4);
	ENV_RUN(t, &e, stats_fresh_body);
}

/* --- misses in parallel within an inode ---------------------------------- */

/*
 * A miss holds no lock across the backend's setup: while one thread's
 * setup of inode 0's range 0 is held at the backend, another thread's miss
 * of range 1 of the same inode reaches the backend too (its mutex was
 * serialising them), and a write upgrade of range 2 does as well.  @k: the
 * miss's range (thread k), the last thread opens the gate once all three
 * are at it.
 */
struct par_ctx {
	struct env *e;
	int ret[3];
	struct dc_pin pin[3];
};

static void par_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct par_ctx *c = arg;
	struct env *e = c->e;

	switch (idx) {
	case 0:
	case 1:
		/* One after the other: each finds the other's setup held. */
		DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_SETUP) == idx);
		c->ret[idx] = dc_map(e->inode[0], idx * e->rs, 0, &c->pin[idx]);
		break;
	case 2:
		DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_SETUP) == 2);
		/* A pinned read-only mapping made writable: its setup. */
		c->ret[2] = dc_map(e->inode[0], 2 * e->rs, DC_MAP_WRITE, &c->pin[2]);
		break;
	default:
		DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_SETUP) == 3);
		dc_simbe_gate_open(e->be, DC_SIMBE_SETUP);
		break;
	}
}

static void par_body(struct dc_test *t, struct env *e)
{
	struct par_ctx c = { .e = e };
	struct dc_simbe_stats b0;
	unsigned int k;

	/* Range 2 mapped read-only and idle, for the upgrade. */
	touch(t, e, 0, 2 * e->rs, 0);
	DC_RETURN_IF_FAILED(t);
	b0 = sst(e);
	dc_simbe_gate_close(e->be, DC_SIMBE_SETUP);
	dc_test_run_threads(t, 4, par_thread, &c);
	for (k = 0; k < 3; k++) {
		DC_ASSERT_INT_EQ(t, c.ret[k], 0);
		if (!c.ret[k])
			check_pin(t, e, 0, k * e->rs, &c.pin[k]);
	}
	DC_ASSERT(t, c.pin[2].writable);
	DC_ASSERT_EQ(t, sst(e).calls[DC_SIMBE_SETUP] - b0.calls[DC_SIMBE_SETUP], 3);
	DC_ASSERT_EQ(t, cst(e).misses, 3);
	DC_ASSERT_EQ(t, cst(e).upgrades, 1);
	for (k = 0; k < 3; k++)
		dc_unpin(&c.pin[k]);
}

ENV_CASE(cache_miss_parallel_in_inode, 4, par_body)

/*
 * A second miss of a range whose setup is in flight waits for that setup
 * (asleep: the gauge says so) and pins its mapping: one setup, not two;
 * under DC_MAP_NOWAIT it does not wait.  With @fail, the first setup fails:
 * the waiter then sets the range up itself.
 */
struct same_ctx {
	struct env *e;
	bool fail;
	int ret[2];
	struct dc_pin pin[2];
};

static void same_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct same_ctx *c = arg;
	struct env *e = c->e;
	struct dc_pin pin;

	switch (idx) {
	case 0:
		c->ret[0] = dc_map(e->inode[0], 5, 0, &c->pin[0]);
		break;
	case 1:
		DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_SETUP) == 1);
		DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], 7, DC_MAP_NOWAIT, &pin), -EAGAIN);
		c->ret[1] = dc_map(e->inode[0], 9, 0, &c->pin[1]);
		break;
	default:
		DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_SETUP) == 1);
		DC_WAIT_FOR(t, cst(e).nr_waiting == 1);
		/* Still one setup at the gate: the waiter did not start its own. */
		DC_ASSERT_EQ(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_SETUP), 1);
		dc_simbe_gate_open(e->be, DC_SIMBE_SETUP);
		break;
	}
}

static void same_run(struct dc_test *t, struct env *e, bool fail)
{
	struct same_ctx c = { .e = e, .fail = fail };
	struct dc_simbe_stats b0 = sst(e);
	struct dc_cache_stats s0 = cst(e);

	if (fail)
		DC_ASSERT_INT_EQ(t, dc_simbe_fail_next(e->be, DC_SIMBE_SETUP, -EIO), 0);
	dc_simbe_gate_close(e->be, DC_SIMBE_SETUP);
	dc_test_run_threads(t, 3, same_thread, &c);
	DC_ASSERT_INT_EQ(t, c.ret[0], fail ? -EIO : 0);
	DC_ASSERT_INT_EQ(t, c.ret[1], 0);
	DC_RETURN_IF_FAILED(t);
	check_pin(t, e, 0, 9, &c.pin[1]);
	DC_ASSERT_EQ(t, sst(e).calls[DC_SIMBE_SETUP] - b0.calls[DC_SIMBE_SETUP],
		     fail ? 2 : 1);
	DC_ASSERT_EQ(t, cst(e).misses - s0.misses, 1);
	DC_ASSERT_EQ(t, cst(e).waits - s0.waits, 1);
	if (!fail) {
		check_pin(t, e, 0, 5, &c.pin[0]);
		DC_ASSERT_EQ(t, pin_base(e, &c.pin[0]), pin_base(e, &c.pin[1]));
		DC_ASSERT_EQ(t, cst(e).hits - s0.hits, 1);
	}
	dc_unpin(&c.pin[0]);
	dc_unpin(&c.pin[1]);
}

static void same_body(struct dc_test *t, struct env *e)
{
	same_run(t, e, false);
	DC_RETURN_IF_FAILED(t);
	e->failures = true;
	/* Another range, its setup failing this time. */
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, e->rs), 0);
	same_run(t, e, true);
}

ENV_CASE(cache_miss_same_range_waits, 4, same_body)

/*
 * A punch that meets a setup in flight in its range waits for it, and
 * treats its mapping as if the miss had finished first: here pinned by the
 * miss's caller until the punch is over, so the punch says -EBUSY and the
 * mapping stays; once unpinned, a punch drops it.
 */
struct punchset_ctx {
	struct env *e;
	dci_atomic_t punched;
	int map_ret, punch_ret;
};

static void punchset_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct punchset_ctx *c = arg;
	struct env *e = c->e;
	struct dc_pin pin;

	switch (idx) {
	case 0:
		c->map_ret = dc_map(e->inode[0], e->rs + 3, 0, &pin);
		if (c->map_ret)
			break;
		DC_WAIT_FOR(t, dci_atomic_read(&c->punched));
		check_pin(t, e, 0, e->rs + 3, &pin);
		dc_unpin(&pin);
		break;
	case 1:
		DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_SETUP) == 1);
		c->punch_ret = dc_inode_punch(e->inode[0], 0, 4 * e->rs);
		dci_atomic_set(&c->punched, 1);
		break;
	default:
		DC_WAIT_FOR(t, dc_simbe_gate_waiters(e->be, DC_SIMBE_SETUP) == 1);
		DC_WAIT_FOR(t, cst(e).nr_waiting == 1);
		dc_simbe_gate_open(e->be, DC_SIMBE_SETUP);
		break;
	}
}

static void punchset_body(struct dc_test *t, struct env *e)
{
	struct punchset_ctx c = { .e = e };
	struct dc_simbe_mapping m;
	uint64_t win = 0;

	dci_atomic_set(&c.punched, 0);
	/* Range 0 idle: the punch drops it either way. */
	touch(t, e, 0, 0, 0);
	DC_RETURN_IF_FAILED(t);
	dc_simbe_gate_close(e->be, DC_SIMBE_SETUP);
	dc_test_run_threads(t, 3, punchset_thread, &c);
	DC_ASSERT_INT_EQ(t, c.map_ret, 0);
	DC_ASSERT_INT_EQ(t, c.punch_ret, -EBUSY);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 1);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, 4 * e->rs), 0);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 0);
	for (win = 0; win < e->cfg.window_size; win += e->rs)
		DC_ASSERT(t, dc_simbe_lookup(e->be, win, &m, sizeof(m)) != 0 ||
			  m.ino != ino_id(0));
}

ENV_CASE(cache_punch_waits_for_setup, 4, punchset_body)

/* --- pins in slots and counted pins -------------------------------------- */

/*
 * One thread holds more pins than it has slots (userspace keeps
 * DCI_PLAT_PIN_SLOTS a thread; the kernel counts every pin): every one of
 * them holds its mapping against inline reclaim and a punch.  The window
 * has one range more than the pins: the free one keeps the pool above the
 * reclaim threshold until every mapping is pinned, so that no background
 * pass can take an idle range before its pin, which would then miss.
 */
#define MANY_PINS	6u

static void many_held_body(struct dc_test *t, struct env *e)
{
	struct dc_pin pin = { 0 };
	unsigned int k;

	/* Mapped and idle, so that each pin below is a hit. */
	for (k = 0; k < MANY_PINS; k++)
		touch(t, e, 0, k * e->rs, 0);
	DC_ASSERT_EQ(t, cst(e).nr_free, 1);
	for (k = 0; k < MANY_PINS; k++)
		pin_at(t, e, k, 0, k * e->rs + k, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).hits, MANY_PINS);
	/* The last free range, pinned too: no mapping is idle now. */
	pin_at(t, e, MANY_PINS, 1, 0, 0);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, MANY_PINS + 1);
	/* A miss finds no victim. */
	DC_ASSERT_INT_EQ(t, dc_map(e->inode[1], e->rs, DC_MAP_NOWAIT, &pin), -EAGAIN);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, MANY_PINS * e->rs), -EBUSY);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, MANY_PINS + 1);
	for (k = 0; k < MANY_PINS; k++)
		check_pin(t, e, 0, k * e->rs + k, &e->pin[k]);
	DC_RETURN_IF_FAILED(t);
	/*
	 * Dropped in another order than taken: each holds only its own.  The
	 * background reclaimer, kicked by the last pin, may take the idle
	 * ones before the punch does: either way they go.
	 */
	for (k = 0; k < MANY_PINS; k += 2)
		dc_unpin(&e->pin[k]);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, MANY_PINS * e->rs), -EBUSY);
	DC_WAIT_FOR(t, cst(e).nr_mapped == MANY_PINS / 2 + 1);
	for (k = 1; k < MANY_PINS; k += 2)
		check_pin(t, e, 0, k * e->rs + k, &e->pin[k]);
	for (k = 1; k < MANY_PINS; k += 2)
		dc_unpin(&e->pin[k]);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, MANY_PINS * e->rs), 0);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 1);
	dc_unpin(&e->pin[MANY_PINS]);
}

ENV_CASE(cache_pin_many_held, MANY_PINS + 1, many_held_body)

/*
 * A pin taken by a thread that has exited holds its mapping until another
 * thread drops it, while a thread that comes after it (maybe given the
 * same per-thread state) takes and drops pins of its own; once dropped, it
 * holds nothing.
 */
struct gone_ctx {
	struct env *e;
	struct dc_pin pin;
	int ret;
};

static void gone_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct gone_ctx *c = arg;
	struct dc_pin pin;
	unsigned int k;

	if (idx == 0) {
		/*
		 * A hit, kept past the thread's end; after a first one
		 * dropped, so that the thread's per-thread state is set up
		 * (the slots' block: the first call of a thread takes the
		 * general way, and counts its pin).
		 */
		c->ret = dc_map(c->e->inode[0], 5, 0, &c->pin);
		if (c->ret)
			return;
		dc_unpin(&c->pin);
		c->ret = dc_map(c->e->inode[0], 7, 0, &c->pin);
		return;
	}
	/* Later: pins of its own, more than a thread's slots, all dropped. */
	for (k = 0; k < MANY_PINS && !dc_test_failed(t); k++) {
		DC_ASSERT_INT_EQ(t, dc_map(c->e->inode[1], k * c->e->rs, 0, &pin), 0);
		check_pin(t, c->e, 1, k * c->e->rs, &pin);
		dc_unpin(&pin);
		DC_ASSERT_INT_EQ(t, dc_map(c->e->inode[0], 9, 0, &pin), 0);
		check_pin(t, c->e, 0, 9, &pin);
		dc_unpin(&pin);
	}
}

static void gone_body(struct dc_test *t, struct env *e)
{
	struct gone_ctx c = { .e = e };
	struct gone_ctx later = { .e = e };

	touch(t, e, 0, 0, 0);
	DC_RETURN_IF_FAILED(t);
	dc_test_run_threads(t, 1, gone_thread, &c);
	DC_ASSERT_INT_EQ(t, c.ret, 0);
	DC_RETURN_IF_FAILED(t);
	check_pin(t, e, 0, 7, &c.pin);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, e->rs), -EBUSY);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 1);
	/* Threads 0 (returns at once) and 1 (the later pins), gone too. */
	dc_test_run_threads(t, 2, gone_thread, &later);
	if (later.ret == 0)
		dc_unpin(&later.pin);
	DC_RETURN_IF_FAILED(t);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, e->rs), -EBUSY);
	check_pin(t, e, 0, 7, &c.pin);
	DC_RETURN_IF_FAILED(t);
	/* Dropped here: it holds nothing any more. */
	dc_unpin(&c.pin);
	DC_ASSERT(t, c.pin.range == NULL);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[0], 0, e->rs), 0);
	DC_ASSERT_INT_EQ(t, dc_inode_punch(e->inode[1], 0, MANY_PINS * e->rs), 0);
	DC_ASSERT_EQ(t, cst(e).nr_mapped, 0);
}

ENV_CASE(cache_pin_of_gone_thread, 2 * MANY_PINS, gone_body)

/*
 * Two threads hit one range while a third punches it and maps another
 * inode's ranges, which reuse its window range: no pin ever reads another
 * mapping's data (the simbe's tag), and the punches that found no pin
 * dropped the mapping.
 */
#define REMAP_ROUNDS	3000u

struct remap_ctx {
	struct env *e;
	dci_atomic_t ready;
	dci_atomic_t stop;
	dci_atomic_t punched;
	dci_atomic_t pinned;
};

static void remap_thread(struct dc_test *t, void *arg, unsigned int idx)
{
	struct remap_ctx *c = arg;
	struct env *e = c->e;
	const uint64_t hot = 2 * e->rs + 64;
	struct dc_pin pin;
	unsigned int r, k, n = 0;
	int ret;

	start_line(&c->ready, 3);
	if (idx < 2) {
		while (!dci_atomic_read(&c->stop) && !dc_test_failed(t)) {
			DC_ASSERT_INT_EQ(t, dc_map(e->inode[0], hot, 0, &pin), 0);
			/* Twice, a moment apart: the pin must hold in between. */
			DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(e->be, pin.win_off,
							       ino_id(0), hot), 0);
			for (k = 0; k < 16; k++)
				dci_cpu_relax();
			DC_ASSERT_INT_EQ(t, dc_simbe_check_tag(e->be, pin.win_off,
							       ino_id(0), hot), 0);
			dc_unpin(&pin);
			dci_atomic_inc(&c->pinned);
			/* Now and then a pause, for the punches' sake. */
			if (++n % 128 == 0)
				dc_test_sleep_us(1);
			for (k = 0; k < 8; k++)
				dci_cpu_relax();
		}
		return;
	}
	for (r = 0; r < REMAP_ROUNDS && !dc_test_failed(t); r++) {
		/* A few tries: the hitters keep the range pinned most of the time. */
		for (k = 0; k < 16; k++) {
			ret = dc_inode_punch(e->inode[0], 2 * e->rs, e->rs);
			if (ret != -EBUSY)
				break;
			dci_cpu_relax();
		}
		if (ret == 0)
			dci_atomic_inc(&c->punched);
		else
			DC_ASSERT_INT_EQ(t, ret, -EBUSY);
		/* Another inode's mapping, most likely in the range just freed. */
		ret = dc_map(e->inode[1], (r % 8) * e->rs, 0, &pin);
		DC_ASSERT_INT_EQ(t, ret, 0);
		if (ret)
			break;
		check_pin(t, e, 1, (r % 8) * e->rs, &pin);
		dc_unpin(&pin);
		if (r % 64 == 0)
			dc_test_sleep_us(1);
	}
	dci_atomic_set(&c->stop, 1);
}

static void remap_body(struct dc_test *t, struct env *e)
{
	struct remap_ctx c = { .e = e };

	dci_atomic_set(&c.ready, 0);
	dci_atomic_set(&c.stop, 0);
	dci_atomic_set(&c.punched, 0);
	dci_atomic_set(&c.pinned, 0);
	dc_test_run_threads(t, 3, remap_thread, &c);
	dc_test_log(t, "%d punches dropped the hot range, %d pins checked",
		    dci_atomic_read(&c.punched), dci_atomic_read(&c.pinned));
	DC_ASSERT_EQ(t, sst(e).tag_failures, 0);
	DC_ASSERT(t, dci_atomic_read(&c.punched) > 0);
}

ENV_CASE(cache_pin_vs_punch_remap, 4, remap_body)

DC_SUITE(cache,
	 DC_CASE(cache_simbe_model),
	 DC_CASE(cache_config_defaults),
	 DC_CASE(cache_config_invalid),
	 DC_CASE(cache_inode_get_put),
	 DC_CASE(cache_arguments),
	 DC_CASE(cache_pin_stow),
	 DC_CASE(cache_hit_after_miss),
	 DC_CASE(cache_small_ranges),
	 DC_CASE(cache_hint_collisions),
	 DC_CASE(cache_hint_collisions_bg_reuse),
	 DC_CASE(cache_hint_far_evict),
	 DC_CASE(cache_hint_far_keep),
	 DC_CASE(cache_hint_far_punch),
	 DC_CASE(cache_racing_misses),
	 DC_CASE(cache_upgrade),
	 DC_CASE(cache_alloc_free_pool_first),
	 DC_CASE(cache_inline_reclaim_no_remove),
	 DC_CASE(cache_inline_reclaim_remove_on_inline),
	 DC_CASE(cache_inline_own_only),
	 DC_CASE(cache_inline_new_file_gets_share),
	 DC_CASE(cache_bg_reclaim_batches),
	 DC_CASE(cache_bg_reclaim_threshold),
	 DC_CASE(cache_inline_no_threshold_kick),
	 DC_CASE(cache_bg_pending),
	 DC_CASE(cache_writeback_before_reclaim),
	 DC_CASE(cache_setup_failure),
	 DC_CASE(cache_setup_failure_on_reuse),
	 DC_CASE(cache_remove_failure),
	 DC_CASE(cache_writeback_failure),
	 DC_CASE(cache_writeback_all),
	 DC_CASE(cache_punch),
	 DC_CASE(cache_evict_on_last_put),
	 DC_CASE(cache_trace_scenario),
	 DC_CASE(cache_put_with_pin_waits),
	 DC_CASE(cache_evict_pinned_reuse),
	 DC_CASE(cache_destroy_live_inodes),
	 DC_CASE(cache_nowait_noreclaim),
	 DC_CASE(cache_all_pinned_waiter_sleeps),
	 DC_CASE(cache_unpin_wakes_waiter),
	 DC_CASE(cache_self_pinned_timeout),
	 DC_CASE(cache_forward_progress_one_range),
	 DC_CASE(cache_bg_reclaim_second_chance),
	 DC_CASE(cache_victim_clock),
	 DC_CASE(cache_victim_round_robin),
	 DC_CASE(cache_victim_sieve),
	 DC_CASE(cache_victim_clock_order),
	 DC_CASE(cache_victim_round_robin_order),
	 DC_CASE(cache_pin_blocks_reclaim),
	 DC_CASE(cache_alloc_failures),
	 DC_CASE(cache_create_enomem),
	 DC_CASE(cache_stats_size),
	 DC_CASE(cache_threads_mixed),
	 DC_CASE(cache_map_error_empty_pin),
	 DC_CASE(cache_backend_positive_return),
	 DC_CASE(cache_setup_failure_logged),
	 DC_CASE(cache_gen_changes_on_upgrade),
	 DC_CASE(cache_punch_writeback_error_wins),
	 DC_CASE(cache_punch_linear),
	 DC_CASE(cache_punch_span_walks),
	 DC_CASE(cache_punch_two_at_once),
	 DC_CASE(cache_remove_batch_max_capped),
	 DC_CASE(cache_destroy_with_pin_returns),
	 DC_CASE(cache_stats_threads_exit),
	 DC_CASE(cache_miss_parallel_in_inode),
	 DC_CASE(cache_miss_same_range_waits),
	 DC_CASE(cache_punch_waits_for_setup),
	 DC_CASE(cache_pin_many_held),
	 DC_CASE(cache_pin_of_gone_thread),
	 DC_CASE(cache_pin_vs_punch_remap));
