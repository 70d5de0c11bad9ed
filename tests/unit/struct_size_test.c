// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * struct_size_test.c - structures that travel with their size (see
 * daxcache/daxcache.h and "Structures that can grow" in docs/design.md).
 *
 * "Old callers" are compiled here against truncated copies of the public
 * structures (the first layouts, or the current one less its last member)
 * and pass them with their smaller size; "new callers" against copies with
 * one member more than this library knows.  For every structure a caller
 * fills or has filled (cache config and backend ops, reqq config, ops and
 * stats, slot table config, ops and stats, attr config and stats, mmap
 * backend config, simbe config, fault, mapping and stats, cache stats):
 *
 * - a size below the first layout is refused with -EINVAL;
 * - an old caller's structure is read and written only as far as its size:
 *   every one lives in a heap block of exactly that size (AddressSanitizer
 *   reports any access past it) and, a second time, in front of a canary
 *   that must come back unchanged and that would read as an invalid value
 *   if it were taken for a member;
 * - members past an old caller's size take their defaults (the cache's
 *   admission policy becomes DC_ADMIT_ALWAYS, as before it existed);
 * - a new caller's extra members are accepted when zero (and then the ops
 *   are called as usual) and refused with -E2BIG otherwise; the library
 *   zeroes those it does not know in what it fills;
 * - ops tables are copied: the caller's may be freed after create.
 *
 * Public headers and the shared library only.  Prints "ok ..." per check,
 * "struct-size: N passed, N failed"; exits 1 on a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/daxcache.h>
#include <daxcache/mmap_backend.h>
#include <daxcache/simbe.h>

#include "../cases/sim_env.h"
#include "ok_check.h"

#define RANGE_SHIFT	16
#define RS		(1ull << RANGE_SHIFT)
#define CANARY		0xa5
#define GUARD		64



/* A copy of @len bytes of @src in a heap block of exactly @len bytes. */
static void *exact(const void *src, size_t len)
{
	void *p = malloc(len);

	if (!p) {
		perror("malloc");
		exit(2);
	}
	memcpy(p, src, len);
	return p;
}

/* @len bytes of @src followed by GUARD canary bytes. */
static unsigned char *guarded(const void *src, size_t len)
{
	unsigned char *p = malloc(len + GUARD);

	if (!p) {
		perror("malloc");
		exit(2);
	}
	memset(p, CANARY, len + GUARD);
	if (src)
		memcpy(p, src, len);
	return p;
}

static int canary_intact(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = len; i < len + GUARD; i++)
		if (p[i] != CANARY)
			return 0;
	return 1;
}

/*
 * @what's stats in their first layout, @ver0 bytes, from stats(@obj, buf,
 * size): in front of a canary, the call succeeds, the canary stays intact
 * and, once the bytes are copied to *@st, @cond holds; into a heap block
 * of exactly that size the call succeeds too.  A macro, as below.
 */
#define check_stats_ver0(what, stats, obj, ver0, st, cond) do {	\
	unsigned char *__g = guarded(NULL, (ver0));			\
	void *__x;							\
	int __ret;							\
									\
	__ret = stats((obj), (void *)__g, (ver0));			\
	memcpy((st), __g, (ver0));					\
	check(__ret == 0 && canary_intact(__g, (ver0)) && (cond),	\
	      what " stats of the first layout: counts, canary intact",	\
	      __ret);							\
	free(__g);							\
	__x = malloc(ver0);						\
	__ret = __x ? stats((obj), __x, (ver0)) : -ENOMEM;		\
	check(__ret == 0, what " stats into an exact block", __ret);	\
	free(__x);							\
} while (0)

/*
 * A new caller's config @c (the current one as .cur, one member more as
 * .future) handed to @create (called as create(cfg, size, @objp)): its
 * first @short_size bytes are -EINVAL and make nothing; .future set is
 * -E2BIG; zero, from a heap block of exactly its size, creates *@objp.
 * @what names the structure in the checks.  A macro: each create has its
 * own types.
 */
#define check_new_config(what, create, c, short_size, objp) do {	\
	void *__x;							\
	int __ret;							\
									\
	__ret = create(&(c).cur, (short_size), (objp));			\
	check(__ret == -EINVAL && !*(objp),				\
	      what " config cut short: -EINVAL", __ret);			\
	(c).future = 1;							\
	__ret = create(&(c).cur, sizeof(c), (objp));			\
	check(__ret == -E2BIG,						\
	      "new " what " config asking for more: -E2BIG", __ret);	\
	(c).future = 0;							\
	__x = exact(&(c), sizeof(c));					\
	__ret = create(__x, sizeof(c), (objp));				\
	free(__x);							\
	check(__ret == 0, "new " what " config, extra member zero", __ret); \
} while (0)

/* --- a backend that counts its calls --------------------------------------- */

static int setups, removes, writebacks;

static int t_setup(void *priv, uint64_t ino, uint64_t file_off,
		   uint64_t win_off, uint64_t len, unsigned int flags)
{
	(void)priv; (void)ino; (void)file_off; (void)win_off; (void)len;
	(void)flags;
	setups++;
	return 0;
}

static int t_remove(void *priv, const struct dc_remove_entry *e, unsigned int n)
{
	(void)priv; (void)e;
	removes += (int)n;
	return 0;
}

static int t_writeback(void *priv, uint64_t ino, uint64_t file_off,
		       uint64_t len, uint64_t win_off)
{
	(void)priv; (void)ino; (void)file_off; (void)len; (void)win_off;
	writebacks++;
	return 0;
}

/* --- old and new callers' copies of the structures ------------------------- */

/* struct dc_cache_config as first published: no admit. */
struct old_cache_config {
	uint64_t window_size;
	unsigned int range_shift;
	unsigned int reclaim_threshold_pct;
	unsigned int reclaim_batch;
	unsigned int remove_batch_max;
	enum dc_victim_policy victim;
	unsigned int flags;
	uint64_t wait_timeout_ns;
};

struct new_cache_config {
	struct dc_cache_config cur;
	uint64_t future;
};

/* struct dc_cache_stats as first published: up to nr_inodes. */
struct old_cache_stats {
	uint64_t v[18];
};

struct new_cache_stats {
	struct dc_cache_stats cur;
	uint64_t future[2];
};

/* struct dc_backend_ops less its last op: below the first layout. */
struct short_backend_ops {
	int (*setup)(void *, uint64_t, uint64_t, uint64_t, uint64_t,
		     unsigned int);
	int (*remove)(void *, const struct dc_remove_entry *, unsigned int);
};

struct new_backend_ops {
	struct dc_backend_ops cur;
	int (*future)(void *priv);
};

static int t_future(void *priv)
{
	(void)priv;
	return 0;
}

/* A cache of @nr ranges; returns create's answer. */
static int cache_new(const void *cfg, size_t cfg_size, const void *ops,
		     size_t ops_size, struct dc_cache **out)
{
	return dc_cache_create(cfg, cfg_size, ops, ops_size, NULL, out);
}

/*
 * Miss one range of each of three inodes, held open, with DC_MAP_MAY_BYPASS
 * in a window of two ranges: the third miss must evict.  Returns the
 * bypasses counted, or -1.
 */
static int bypasses_of(struct dc_cache *c)
{
	struct dc_inode *in[3] = { NULL, NULL, NULL };
	struct dc_cache_stats st;
	struct dc_pin pin;
	int i, ret = 0;

	for (i = 0; i < 3 && !ret; i++) {
		ret = dc_inode_get(c, (uint64_t)i + 1, &in[i]);
		if (!ret)
			ret = dc_map(in[i], (uint64_t)(i * 5) * RS,
				     DC_MAP_MAY_BYPASS, &pin);
		if (ret == 0)
			dc_unpin(&pin);
		if (ret == DC_MAP_BYPASS)
			ret = 0;
	}
	if (!ret)
		ret = dc_cache_stats(c, &st, sizeof(st));
	for (i = 0; i < 3; i++)
		dc_inode_put(in[i]);
	return ret ? -1 : (int)st.bypasses;
}

static void cache_cases(void)
{
	const struct dc_backend_ops ops = {
		.setup = t_setup, .remove = t_remove, .writeback = t_writeback,
	};
	struct old_cache_config old;
	struct new_cache_config neu;
	struct dc_cache_config cur;
	struct dc_backend_ops *heap_ops;
	struct dc_cache *c = NULL;
	unsigned char *g;
	void *x;
	int ret;

	check(sizeof(old) == DC_CACHE_CONFIG_SIZE_VER0,
	      "the old config is DC_CACHE_CONFIG_SIZE_VER0 bytes", (long)sizeof(old));

	/* config_init writes exactly the caller's size. */
	g = guarded(NULL, sizeof(old));
	ret = dc_cache_config_init((void *)g, sizeof(old), 2 * RS);
	memcpy(&old, g, sizeof(old));
	check(ret == 0 && canary_intact(g, sizeof(old)),
	      "config_init of an old config: canary intact", ret);
	check(old.window_size == 2 * RS && old.range_shift == 21 &&
	      old.reclaim_batch == 10, "config_init of an old config: defaults", ret);
	free(g);
	x = exact(&old, sizeof(old));
	ret = dc_cache_config_init(x, sizeof(old), 2 * RS);
	check(ret == 0, "config_init of an exact old config", ret);
	free(x);
	g = guarded(NULL, sizeof(old));
	ret = dc_cache_config_init((void *)g, sizeof(old) - 1, 2 * RS);
	check(ret == -EINVAL && g[0] == CANARY,
	      "config_init below the first layout: -EINVAL, nothing written", ret);
	free(g);
	memset(&neu, CANARY, sizeof(neu));
	ret = dc_cache_config_init(&neu.cur, sizeof(neu), 2 * RS);
	check(ret == 0 && neu.future == 0 && neu.cur.admit == DC_ADMIT_FREQ,
	      "config_init of a new config zeroes the member it does not know", ret);

	/* An old config creates a cache, read only as far as its size. */
	old.range_shift = RANGE_SHIFT;
	g = guarded(&old, sizeof(old));
	ret = cache_new(g, sizeof(old), &ops, sizeof(ops), &c);
	check(ret == 0, "create from an old config before a canary", ret);
	if (!ret) {
		/* Members past the old size are defaults: admit is ALWAYS. */
		ret = bypasses_of(c);
		check(ret == 0, "old config: no admission control (DC_ADMIT_ALWAYS)",
		      ret);
		dc_cache_destroy(c);
	}
	free(g);
	x = exact(&old, sizeof(old));
	ret = cache_new(x, sizeof(old), &ops, sizeof(ops), &c);
	check(ret == 0, "create from an exact old config", ret);
	if (!ret)
		dc_cache_destroy(c);
	free(x);
	ret = cache_new(&old, sizeof(old) - sizeof(uint64_t), &ops, sizeof(ops), &c);
	check(ret == -EINVAL, "create from a config below its first layout", ret);
	ret = cache_new(&old, 0, &ops, sizeof(ops), &c);
	check(ret == -EINVAL, "create from a config of size 0", ret);

	/* The current config gets what it asks for: DC_ADMIT_FREQ. */
	dc_cache_config_init(&cur, sizeof(cur), 2 * RS);
	cur.range_shift = RANGE_SHIFT;
	ret = cache_new(&cur, sizeof(cur), &ops, sizeof(ops), &c);
	check(ret == 0, "create from the current config", ret);
	if (!ret) {
		ret = bypasses_of(c);
		check(ret > 0, "current config: admission control bypasses", ret);
		dc_cache_destroy(c);
	}

	/* A new caller: extra members must be zero. */
	neu.cur.range_shift = RANGE_SHIFT;
	ret = cache_new(&neu, sizeof(neu), &ops, sizeof(ops), &c);
	check(ret == 0, "create from a new config with its extra member zero", ret);
	if (!ret)
		dc_cache_destroy(c);
	neu.future = 1;
	ret = cache_new(&neu, sizeof(neu), &ops, sizeof(ops), &c);
	check(ret == -E2BIG, "create from a new config asking for more: -E2BIG", ret);

	/* Ops: too short, exact, new with a zero or a set extra op. */
	{
		struct short_backend_ops sh = { .setup = t_setup, .remove = t_remove };
		struct new_backend_ops nops = { .cur = ops };

		ret = cache_new(&cur, sizeof(cur), &sh, sizeof(sh), &c);
		check(ret == -EINVAL, "create with ops below their first layout", ret);
		x = exact(&ops, DC_BACKEND_OPS_SIZE_VER0);
		ret = cache_new(&cur, sizeof(cur), x, DC_BACKEND_OPS_SIZE_VER0, &c);
		check(ret == 0, "create with exact first-layout ops", ret);
		if (!ret)
			dc_cache_destroy(c);
		free(x);
		ret = cache_new(&cur, sizeof(cur), &nops, sizeof(nops), &c);
		check(ret == 0, "create with new ops, extra op NULL", ret);
		if (!ret) {
			setups = 0;
			writebacks = 0;
			ret = sim_map_once(c, 7, 0, DC_MAP_WRITE);
			check(ret == 0 && setups == 1 && writebacks > 0,
			      "new ops: setup and writeback called", setups);
			dc_cache_destroy(c);
		}
		nops.future = t_future;
		ret = cache_new(&cur, sizeof(cur), &nops, sizeof(nops), &c);
		check(ret == -E2BIG, "create with new ops setting an unknown op: -E2BIG",
		      ret);
	}

	/* The ops table is copied: the caller's may go away. */
	heap_ops = exact(&ops, sizeof(ops));
	ret = cache_new(&cur, sizeof(cur), heap_ops, sizeof(*heap_ops), &c);
	free(heap_ops);
	check(ret == 0, "create with an ops table freed right after", ret);
	if (!ret) {
		setups = 0;
		ret = sim_map_once(c, 9, 0, 0);
		check(ret == 0 && setups == 1, "freed ops table: setup still called",
		      setups);
		dc_cache_destroy(c);
	}

	/* Stats: an old caller's, a new caller's, one below the first layout. */
	ret = cache_new(&cur, sizeof(cur), &ops, sizeof(ops), &c);
	if (ret) {
		check(0, "create for the stats checks", ret);
		return;
	}
	{
		struct old_cache_stats ost;
		struct new_cache_stats nst;
		struct dc_cache_stats full;

		check(sizeof(ost) == DC_CACHE_STATS_SIZE_VER0,
		      "the old stats are DC_CACHE_STATS_SIZE_VER0 bytes",
		      (long)sizeof(ost));
		dc_cache_stats(c, &full, sizeof(full));
		/* nr_ranges in its place. */
		check_stats_ver0("cache", dc_cache_stats, c, sizeof(ost), &ost,
				 ost.v[14] == 2 && ost.v[14] == full.nr_ranges);
		g = guarded(NULL, DC_CACHE_STATS_SIZE_VER0);
		ret = dc_cache_stats(c, (void *)g, DC_CACHE_STATS_SIZE_VER0 - 1);
		check(ret == -EINVAL && g[0] == CANARY,
		      "stats below the first layout: -EINVAL, nothing written", ret);
		free(g);
		memset(&nst, CANARY, sizeof(nst));
		ret = dc_cache_stats(c, &nst.cur, sizeof(nst));
		check(ret == 0 && !nst.future[0] && !nst.future[1] &&
		      nst.cur.nr_ranges == 2,
		      "stats into new stats: unknown members zeroed", ret);
	}
	dc_cache_destroy(c);
}

/* --- reqq -------------------------------------------------------------------- */

struct new_reqq_config {
	struct dc_reqq_config cur;
	uint64_t future;
};

struct new_reqq_ops {
	struct dc_reqq_ops cur;
	void *future;
};

/* dc_reqq_stats less its last member. */
struct short_reqq_stats {
	uint64_t v[8];
};

struct new_reqq_stats {
	struct dc_reqq_stats cur;
	uint64_t future;
};

static struct dc_reqq *the_q;
static int submits, ends;

static int t_submit(struct dc_reqq_req *req, void *priv)
{
	(void)priv;
	submits++;
	dc_reqq_complete(the_q, req, 0);
	return 0;
}

static void t_end(struct dc_reqq_req *req, int status)
{
	(void)req;
	if (!status)
		ends++;
}

static void reqq_cases(void)
{
	struct dc_reqq_config cfg = { 0 };
	struct new_reqq_config ncfg = { .cur = { 0 } };
	struct dc_reqq_ops ops = { .submit = t_submit };
	struct new_reqq_ops nops = { .cur = ops };
	struct short_reqq_stats sst;
	struct new_reqq_stats nst;
	struct dc_reqq_stats st;
	struct dc_reqq_req req;
	void *x;
	int ret;

	ret = dc_reqq_create(&cfg, offsetof(struct dc_reqq_config, retry_delay_ns),
			     &ops, sizeof(ops), NULL, &the_q);
	check(ret == -EINVAL && !the_q, "reqq config less its last member: -EINVAL",
	      ret);
	ret = dc_reqq_create(&cfg, sizeof(cfg), &ops, 0, NULL, &the_q);
	check(ret == -EINVAL, "reqq ops of size 0: -EINVAL", ret);
	ncfg.future = 3;
	ret = dc_reqq_create(&ncfg.cur, sizeof(ncfg), &ops, sizeof(ops), NULL, &the_q);
	check(ret == -E2BIG, "new reqq config asking for more: -E2BIG", ret);
	nops.future = &nops;
	ret = dc_reqq_create(&cfg, sizeof(cfg), &nops.cur, sizeof(nops), NULL, &the_q);
	check(ret == -E2BIG, "new reqq ops setting an unknown op: -E2BIG", ret);
	ncfg.future = 0;
	nops.future = NULL;
	x = exact(&nops, sizeof(nops));
	ret = dc_reqq_create(&ncfg.cur, sizeof(ncfg), x, sizeof(nops), NULL, &the_q);
	free(x);
	check(ret == 0, "new reqq config and ops, extra members zero, ops freed", ret);
	if (ret)
		return;
	dc_reqq_req_init(&req, t_end, 0);
	ret = dc_reqq_submit(the_q, &req);
	check(ret == 0 && submits == 1 && ends == 1,
	      "reqq: submit op called, request ended", submits);

	check_stats_ver0("reqq", dc_reqq_stats, the_q, DC_REQQ_STATS_SIZE_VER0, &st,
			 st.submitted == 1 && st.completed == 1);
	memset(&sst, CANARY, sizeof(sst));
	ret = dc_reqq_stats(the_q, (void *)&sst, sizeof(sst));
	check(ret == -EINVAL && sst.v[0] == 0xa5a5a5a5a5a5a5a5ull,
	      "reqq stats less the last member: -EINVAL, nothing written", ret);
	memset(&nst, CANARY, sizeof(nst));
	ret = dc_reqq_stats(the_q, &nst.cur, sizeof(nst));
	check(ret == 0 && nst.future == 0 && nst.cur.submitted == 1,
	      "reqq stats into new stats: unknown member zeroed", ret);
	dc_reqq_destroy(the_q);
}

/* --- slot table ---------------------------------------------------------------- */

struct new_slot_config {
	struct dc_slot_table_config cur;
	uint64_t future;
};

struct new_slot_ops {
	struct dc_slot_table_ops cur;
	void *future;
};

/* struct dc_slot_table_ops less fini. */
struct short_slot_ops {
	int (*init)(struct dc_slot *slot, void *priv);
};

static int inits, finis;

static int t_init(struct dc_slot *s, void *priv)
{
	(void)s; (void)priv;
	inits++;
	return 0;
}

static void t_fini(struct dc_slot *s, void *priv)
{
	(void)s; (void)priv;
	finis++;
}

static void slot_cases(void)
{
	struct dc_slot_table_config cfg = { .min_slots = 1, .max_slots = 2 };
	struct new_slot_config ncfg = { .cur = cfg };
	struct dc_slot_table_ops ops = { .init = t_init, .fini = t_fini };
	struct new_slot_ops nops = { .cur = ops };
	struct short_slot_ops sops = { .init = t_init };
	struct dc_slot_table_stats st;
	struct dc_slot_table *tbl = NULL;
	struct dc_slot *s;
	void *x;
	int ret;

	ret = dc_slot_table_create(&cfg, offsetof(struct dc_slot_table_config, slot_size),
				   NULL, 0, NULL, &tbl);
	check(ret == -EINVAL && !tbl, "slot config less its last member: -EINVAL", ret);
	ret = dc_slot_table_create(&cfg, sizeof(cfg), (void *)&sops, sizeof(sops),
				   NULL, &tbl);
	check(ret == -EINVAL, "slot ops less fini: -EINVAL", ret);
	ncfg.future = 1;
	ret = dc_slot_table_create(&ncfg.cur, sizeof(ncfg), NULL, 0, NULL, &tbl);
	check(ret == -E2BIG, "new slot config asking for more: -E2BIG", ret);
	nops.future = &nops;
	ret = dc_slot_table_create(&cfg, sizeof(cfg), &nops.cur, sizeof(nops), NULL,
				   &tbl);
	check(ret == -E2BIG, "new slot ops setting an unknown op: -E2BIG", ret);
	ncfg.future = 0;
	nops.future = NULL;
	x = exact(&nops, sizeof(nops));
	ret = dc_slot_table_create(&ncfg.cur, sizeof(ncfg), x, sizeof(nops), NULL,
				   &tbl);
	free(x);
	check(ret == 0 && inits == 1, "new slot config and ops, ops freed: init called",
	      ret);
	if (ret)
		return;
	if (!dc_slot_get(tbl, &s))
		dc_slot_put(tbl, s);
	/* (The first layout has no tail padding: the canary starts at its end.) */
	check_stats_ver0("slot", dc_slot_table_stats, tbl,
			 DC_SLOT_TABLE_STATS_SIZE_VER0, &st,
			 st.allocated == 1 && st.max_backlog == 0);
	ret = dc_slot_table_stats(tbl, &st, DC_SLOT_TABLE_STATS_SIZE_VER0 - 1);
	check(ret == -EINVAL, "slot stats below the first layout: -EINVAL", ret);
	ret = dc_slot_table_destroy(tbl);
	check(ret == 0 && finis == 1, "slot table destroyed through the copied fini",
	      finis);
}

/* --- attr ---------------------------------------------------------------------- */

struct new_attr_config {
	struct dc_attr_config cur;
	uint64_t future;
};

struct short_attr_stats {
	uint64_t v[6];
};

static void attr_cases(void)
{
	struct new_attr_config ncfg = { .cur = { .timeout_ns = 1000 } };
	struct short_attr_stats sst;
	struct dc_attr_stats st;
	struct dc_attr *a = NULL;
	uint64_t ver;
	int ret;

	/* Cut short: less its last member. */
	check_new_config("attr", dc_attr_create, ncfg,
			 offsetof(struct dc_attr_config, data), &a);
	if (!a)
		return;
	check(dc_attr_read_check(a, 0, 1, 0, &ver), "attr: first read asks", 0);
	check_stats_ver0("attr", dc_attr_stats, a, DC_ATTR_STATS_SIZE_VER0, &st,
			 st.checks == 1);
	memset(&sst, CANARY, sizeof(sst));
	ret = dc_attr_stats(a, (void *)&sst, sizeof(sst));
	check(ret == -EINVAL && sst.v[0] == 0xa5a5a5a5a5a5a5a5ull,
	      "attr stats less the last member: -EINVAL, nothing written", ret);
	dc_attr_destroy(a);
}

/* --- mmap backend and simbe ------------------------------------------------------ */

struct new_mmapbe_config {
	struct dc_mmapbe_config cur;
	uint64_t future;
};

struct new_simbe_config {
	struct dc_simbe_config cur;
	uint64_t future;
};

static void backend_cases(void)
{
	struct new_mmapbe_config mc = {
		.cur = { .window_size = 4 * RS, .range_shift = RANGE_SHIFT },
	};
	struct new_simbe_config sc;
	struct dc_simbe_fault f = { .err = -EIO, .next = 1 };
	struct dc_simbe_mapping m;
	struct dc_simbe_stats sst;
	struct dc_mmapbe *mbe = NULL;
	struct dc_simbe *sbe = NULL;
	struct dc_cache *c = NULL;
	struct dc_cache_config cfg;
	struct dc_inode *in;
	struct dc_pin pin;
	unsigned char *g;
	void *x;
	int ret;

	check_new_config("mmapbe", dc_mmapbe_create, mc,
			 offsetof(struct dc_mmapbe_config, range_shift), &mbe);
	dc_mmapbe_destroy(mbe);
	mbe = NULL;
	x = exact(&mc, DC_MMAPBE_CONFIG_SIZE_VER0);
	ret = dc_mmapbe_create(x, DC_MMAPBE_CONFIG_SIZE_VER0, &mbe);
	free(x);
	check(ret == 0, "mmapbe from an exact first-layout config", ret);
	dc_mmapbe_destroy(mbe);

	memset(&sc, CANARY, sizeof(sc));
	ret = dc_simbe_config_init(&sc.cur, sizeof(sc), 4 * RS);
	check(ret == 0 && sc.future == 0, "simbe config_init of a new config", ret);
	sc.cur.range_shift = RANGE_SHIFT;
	/* Cut short: below its first layout. */
	check_new_config("simbe", dc_simbe_create, sc,
			 DC_SIMBE_CONFIG_SIZE_VER0 - 1, &sbe);
	if (!sbe)
		return;
	ret = dc_simbe_set_fault(sbe, DC_SIMBE_SETUP, &f,
				 offsetof(struct dc_simbe_fault, seed));
	check(ret == -EINVAL, "simbe fault less its last member: -EINVAL", ret);
	x = exact(&f, sizeof(f));
	ret = dc_simbe_set_fault(sbe, DC_SIMBE_SETUP, x, sizeof(f));
	free(x);
	check(ret == 0, "simbe fault from an exact block", ret);

	dc_cache_config_init(&cfg, sizeof(cfg), 4 * RS);
	cfg.range_shift = RANGE_SHIFT;
	ret = dc_cache_create(&cfg, sizeof(cfg), dc_simbe_ops(),
			      DC_BACKEND_OPS_SIZE_VER0, sbe, &c);
	check(ret == 0, "cache over simbe", ret);
	if (!ret && !dc_inode_get(c, 1, &in)) {
		ret = dc_map(in, 0, 0, &pin);
		check(ret == -EIO, "the armed fault fails the first setup", ret);
		ret = dc_map(in, 0, 0, &pin);
		check(ret == 0, "the second setup maps", ret);
		if (!ret) {
			g = guarded(NULL, DC_SIMBE_MAPPING_SIZE_VER0);
			ret = dc_simbe_lookup(sbe, pin.win_off, (void *)g,
					      DC_SIMBE_MAPPING_SIZE_VER0);
			memcpy(&m, g, sizeof(m));
			check(ret == 0 && canary_intact(g, DC_SIMBE_MAPPING_SIZE_VER0) &&
			      m.ino == 1, "simbe lookup of the first layout", ret);
			free(g);
			ret = dc_simbe_lookup(sbe, pin.win_off, &m,
					      DC_SIMBE_MAPPING_SIZE_VER0 - 1);
			check(ret == -EINVAL, "simbe lookup below the first layout", ret);
			dc_unpin(&pin);
		}
		dc_inode_put(in);
	}
	dc_cache_destroy(c);
	check_stats_ver0("simbe", dc_simbe_stats, sbe, DC_SIMBE_STATS_SIZE_VER0,
			 &sst, sst.injected[DC_SIMBE_SETUP] == 1);
	ret = dc_simbe_stats(sbe, &sst, DC_SIMBE_STATS_SIZE_VER0 - 1);
	check(ret == -EINVAL, "simbe stats below the first layout", ret);
	dc_simbe_destroy(sbe);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	dc_thread_register();
	cache_cases();
	reqq_cases();
	slot_cases();
	attr_cases();
	backend_cases();
	dc_thread_unregister();
	return ok_summary("struct-size");
}
