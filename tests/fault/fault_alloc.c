// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault_alloc.c - every allocation site of the library made to fail, in
 * every scenario that reaches it, at every call it makes there.
 *
 * A scenario is an operation on a prepared state.  It first runs unarmed,
 * counting the allocations each site makes during the operation alone
 * (dci_fault_site_record()).  Then, for each site it reached and each n up to
 * that count, a fresh state is prepared, the site is armed to fail its n-th
 * allocation, the operation runs and the scenario checks the outcome: a
 * clean -ENOMEM with nothing changed, or, where the library promises to cope
 * (a removal that must not fail), success; and the invariants of the state
 * either way.  The operation then runs again unarmed on the same state and
 * must succeed: the failure corrupted nothing.  LeakSanitizer (the ASan
 * build) or valgrind checks that nothing leaked.
 */
#include "fault_test.h"

#include <daxcache/mmap_backend.h>

#include <stdlib.h>

#include "../unit/mmapbe_create.h"

/* Cases per site and scenario at most (a bound on loops, never reached). */
#define FT_MAX_NTH	400u

/* --- the state a scenario works on --------------------------------------- */

#define TREE_KEYS	300u		/* intervals in the prepared tree */
#define TREE_OPS	24u		/* inserted or removed by one operation */

struct fx {
	struct ft_env env;
	struct dc_pin pins[16];
	unsigned int next_idx;		/* next unmapped index for a miss */
	unsigned int victim;		/* inode index evicted by the op */
	bool have_env;
	/* itree, with a model: model[k] is the item at key k, or NULL */
	struct dc_itree *tree;
	void *model[4 * TREE_KEYS];
	unsigned int round;
	/* simbe and mmap backend creation */
	struct dc_simbe_config bcfg;
};

static void *tree_item(uint64_t k)
{
	return (void *)(uintptr_t)(0x1000 + 8 * k);
}

/* The tree holds exactly what the model says, in order. */
static void tree_check(struct fx *x)
{
	struct dc_itree_entry ent;
	uint64_t k, n = 0, last = 0;
	bool have, first = true;

	for (have = dc_itree_first(x->tree, 0, UINT64_MAX, &ent); have;
	     have = dc_itree_next(x->tree, &ent, UINT64_MAX)) {
		FT_CHECK(ent.start == ent.last);
		FT_CHECK(first || ent.start > last);
		FT_CHECK(ent.start < DCI_ARRAY_SIZE(x->model));
		if (ent.start < DCI_ARRAY_SIZE(x->model))
			FT_CHECK(x->model[ent.start] == ent.item);
		first = false;
		last = ent.start;
		n++;
	}
	for (k = 0; k < DCI_ARRAY_SIZE(x->model); k++) {
		FT_CHECK(dc_itree_lookup(x->tree, k) == x->model[k]);
		n -= x->model[k] != NULL;
	}
	FT_CHECK_INT(n, 0);
}

/* --- scenarios -------------------------------------------------------- */

struct scenario {
	const char *name;
	/* Build the state (unarmed); 0 or -errno (then the test fails). */
	int (*setup)(struct fx *x);
	/* Before each run of the operation (unarmed). */
	void (*prepare)(struct fx *x);
	/* The operation; 0 or -errno. */
	int (*op)(struct fx *x);
	/* Check the state after the operation returned @ret. */
	void (*check)(struct fx *x, int ret);
	void (*teardown)(struct fx *x);
	/*
	 * The errno a failed allocation may give (0: none, it must cope), or
	 * FT_NO_ALLOC: the operation allocates nothing (a dc_map() once the
	 * cache and the inode exist): no site is reached, and with every
	 * site armed at once it still succeeds.
	 */
	int err;
};

#define FT_NO_ALLOC	1

/* A cache of 16 ranges with FT_INODES inodes. */
static int env_setup(struct fx *x)
{
	int ret;

	ft_env_init(&x->env, 16);
	ret = ft_env_start(&x->env, FT_INODES);
	x->have_env = !ret;
	return ret;
}

static void env_teardown(struct fx *x)
{
	unsigned int i;

	for (i = 0; i < DCI_ARRAY_SIZE(x->pins); i++)
		dc_unpin(&x->pins[i]);
	if (x->have_env) {
		ft_env_check(&x->env);
		ft_env_stop(&x->env);
	}
	x->have_env = false;
}

static void env_check(struct fx *x, int ret)
{
	ft_env_check(&x->env);
}

/* dc_cache_create() and dc_cache_destroy() */

static int simbe_setup(struct fx *x)
{
	dc_simbe_config_init(&x->bcfg, sizeof(x->bcfg), 16ull << 16);
	x->bcfg.range_shift = 16;
	return dc_simbe_create(&x->bcfg, sizeof(x->bcfg), &x->env.be);
}

static void simbe_teardown(struct fx *x)
{
	dc_simbe_destroy(x->env.be);
	x->env.be = NULL;
}

static int cache_create_op(struct fx *x)
{
	struct dc_cache_config cfg;
	struct dc_cache *c;
	int ret;

	dc_cache_config_init(&cfg, sizeof(cfg), 16ull << 16);
	cfg.range_shift = 16;
	ret = dc_cache_create(&cfg, sizeof(cfg), dc_simbe_ops(),
			      sizeof(struct dc_backend_ops), x->env.be, &c);
	if (ret)
		return ret;
	/* A cache that was created works (and these allocate too). */
	ret = sim_map_once(c, 1, 0, 0);
	dc_cache_destroy(c);
	return ret;
}

static void cache_create_check(struct fx *x, int ret)
{
	struct dc_simbe_stats bs;

	memset(&bs, 0, sizeof(bs));
	dc_simbe_stats(x->env.be, &bs, sizeof(bs));
	FT_CHECK_INT(bs.nr_mapped, 0);
	FT_CHECK_INT(bs.overlaps + bs.bad_calls + bs.remove_mismatches, 0);
}

/* dc_inode_get() of a new inode, and its put */

static int inode_get_op(struct fx *x)
{
	struct dc_cache_stats before = ft_cst(&x->env);
	struct dc_inode *inode = NULL;
	struct dc_pin pin;
	int ret;

	ret = dc_inode_get(x->env.cache, 77, &inode);
	if (ret) {
		FT_CHECK_INT(ft_cst(&x->env).nr_inodes, before.nr_inodes);
		return ret;
	}
	FT_CHECK_INT(dc_inode_id(inode), 77);
	FT_CHECK_INT(ft_cst(&x->env).nr_inodes, before.nr_inodes + 1);
	/* The inode works: its tree was set up. */
	ret = dc_map(inode, 0, 0, &pin);
	if (!ret)
		dc_unpin(&pin);
	dc_inode_put(inode);
	FT_CHECK_INT(ft_cst(&x->env).nr_inodes, before.nr_inodes);
	return ret;
}

/* A miss (read or write): a new mapping from the free pool. */

/*
 * A miss at range index @first + the next one.  Past index 63 the miss
 * also grows the inode's hint directory and allocates a leaf (at index 64,
 * whose directory of 2 entries one mapping allows): a failure there keeps
 * no hint and the map succeeds.
 */
static int miss_op_at(struct fx *x, uint64_t first, unsigned int flags)
{
	struct dc_cache_stats before = ft_cst(&x->env);
	struct dc_cache_stats after;
	uint64_t off = (first + x->next_idx) * x->env.rs + 123;
	int ret;

	ret = ft_map(&x->env, 0, off, flags, &x->pins[0]);
	after = ft_cst(&x->env);
	if (ret) {
		/* Nothing changed: the range went back to the pool. */
		FT_CHECK_INT(after.nr_free, before.nr_free);
		FT_CHECK_INT(after.nr_mapped, before.nr_mapped);
		FT_CHECK_INT(after.misses, before.misses);
		return ret;
	}
	x->next_idx++;
	FT_CHECK_INT(after.nr_mapped, before.nr_mapped + 1);
	FT_CHECK_INT(x->pins[0].writable, !!(flags & DC_MAP_WRITE));
	dc_unpin(&x->pins[0]);
	return 0;
}

static int miss_read_op(struct fx *x)
{
	return miss_op_at(x, 0, 0);
}

static int miss_write_op(struct fx *x)
{
	return miss_op_at(x, 0, DC_MAP_WRITE);
}

static int miss_far_op(struct fx *x)
{
	return miss_op_at(x, 64, 0);
}

/* An upgrade: a write to a read-only mapping. */

static void upgrade_prepare(struct fx *x)
{
	ft_touch(&x->env, 1, (uint64_t)x->next_idx * x->env.rs, 0);
}

static int upgrade_op(struct fx *x)
{
	int ret = ft_map(&x->env, 1, (uint64_t)x->next_idx * x->env.rs,
			 DC_MAP_WRITE, &x->pins[0]);

	if (!ret) {
		FT_CHECK(x->pins[0].writable);
		dc_unpin(&x->pins[0]);
		x->next_idx++;
	}
	return ret;
}

/*
 * Inline reclaim: the window is full, and the miss takes one of its own
 * inode's idle mappings.  The background reclaimer is frozen first, at the
 * writeback of another inode's writable mapping (oldest, so its victim),
 * so that it neither frees a range nor allocates meanwhile.
 */
static int inline_setup(struct fx *x)
{
	int ret;

	ft_env_init(&x->env, 6);
	ret = ft_env_start(&x->env, FT_INODES);
	x->have_env = !ret;
	if (ret)
		return ret;
	x->next_idx = x->env.nr - 1;
	return ft_freeze_reclaimer(&x->env) ? 0 : -ETIMEDOUT;
}

static int inline_op(struct fx *x)
{
	struct dc_cache_stats before = ft_cst(&x->env), after;
	int ret;

	FT_CHECK_INT(before.nr_free, 0);
	ret = ft_map(&x->env, 0, (uint64_t)x->next_idx * x->env.rs, 0,
		     &x->pins[0]);
	after = ft_cst(&x->env);
	FT_CHECK_INT(after.inline_reclaims, before.inline_reclaims + 1);
	if (ret) {
		/* The reclaimed range went back to the pool, its old mapping removed. */
		FT_CHECK_INT(after.nr_free, 1);
		FT_CHECK_INT(after.nr_mapped, before.nr_mapped - 1);
		return ret;
	}
	dc_unpin(&x->pins[0]);
	x->next_idx++;
	FT_CHECK_INT(after.nr_mapped, before.nr_mapped);
	return 0;
}

/* After a failure a range is free; use it up so the rerun reclaims inline. */
static void inline_check(struct fx *x, int ret)
{
	struct dc_simbe_stats bs = ft_sst(&x->env);
	struct dc_cache_stats st = ft_cst(&x->env);

	FT_CHECK_INT(bs.overlaps + bs.bad_calls + bs.remove_mismatches +
		     bs.lost_writes, 0);
	FT_CHECK_INT(bs.nr_mapped, st.nr_mapped);	/* the frozen one in both */
	if (ret)
		ft_touch(&x->env, 1, 0, 0);
}

/*
 * The reclaimer was held at the writeback gate: once it opens, its pass
 * goes on (the written-back range and others claimed, removed, then free
 * at the pass's one flush).  Wait for that flush (no range was free) before
 * the teardown's checks, which a pass in flight would fail.
 */
static void inline_teardown(struct fx *x)
{
	dc_simbe_gate_open(x->env.be, DC_SIMBE_WRITEBACK);
	FT_CHECK_INT(dc_wait_free(x->env.cache, FT_WAIT_NS), 0);
	env_teardown(x);
}

/*
 * Background reclaim: every range mapped and pinned (so the reclaimer,
 * kicked on the way, finds nothing), then all unpinned and the reclaimer
 * kicked: it frees ranges up to the threshold, removing them from the trees.
 */
static int bg_setup(struct fx *x)
{
	int ret;

	ft_env_init(&x->env, 8);
	x->env.cfg.reclaim_threshold_pct = 50;
	x->env.cfg.reclaim_batch = 2;
	ret = ft_env_start(&x->env, FT_INODES);
	x->have_env = !ret;
	return ret;
}

static void bg_prepare(struct fx *x)
{
	unsigned int k;

	for (k = 0; k < x->env.nr; k++)
		FT_CHECK_INT(ft_map(&x->env, k % 2, (uint64_t)(k / 2) * x->env.rs,
				    k % 3 ? 0 : DC_MAP_WRITE, &x->pins[k]), 0);
	ft_env_settle(&x->env);
}

static int bg_op(struct fx *x)
{
	unsigned int k;
	int ret;

	for (k = 0; k < x->env.nr; k++)
		dc_unpin(&x->pins[k]);
	ret = dc_wait_free(x->env.cache, FT_WAIT_NS);
	FT_CHECK_INT(ret, 0);
	FT_WAIT(ft_cst(&x->env).nr_free >= x->env.nr / 2);
	ft_env_settle(&x->env);
	return ret;
}

/* Punch: drop an inode's mappings (it may not fail for lack of memory). */

static void punch_prepare(struct fx *x)
{
	unsigned int k;

	for (k = 0; k < 6; k++)
		ft_touch(&x->env, 1, (uint64_t)k * x->env.rs, k % 2 ? DC_MAP_WRITE : 0);
	ft_touch(&x->env, 0, 0, 0);
}

static int punch_op(struct fx *x)
{
	struct dc_cache_stats before = ft_cst(&x->env);
	int ret = dc_inode_punch(x->env.inode[1], 0, UINT64_MAX);
	struct dc_cache_stats after = ft_cst(&x->env);

	FT_CHECK_INT(after.nr_mapped, before.nr_mapped - 6);
	FT_CHECK_INT(after.nr_free, before.nr_free + 6);
	FT_CHECK_INT(ft_sst(&x->env).nr_mapped, after.nr_mapped);
	return ret;
}

/* Evict: the last put of an inode with mappings. */

static int evict_setup(struct fx *x)
{
	int ret;

	ft_env_init(&x->env, 16);
	ret = ft_env_start(&x->env, FT_INODES - 1);
	x->have_env = !ret;
	return ret;
}

static void evict_prepare(struct fx *x)
{
	unsigned int k;

	FT_CHECK_INT(dc_inode_get(x->env.cache, ft_ino(2), &x->env.inode[2]), 0);
	for (k = 0; k < 5; k++)
		ft_touch(&x->env, 2, (uint64_t)k * x->env.rs, k % 2 ? DC_MAP_WRITE : 0);
}

static int evict_op(struct fx *x)
{
	struct dc_cache_stats before = ft_cst(&x->env), after;

	dc_inode_put(x->env.inode[2]);
	x->env.inode[2] = NULL;
	after = ft_cst(&x->env);
	FT_CHECK_INT(after.nr_inodes, before.nr_inodes - 1);
	FT_CHECK_INT(after.nr_mapped, before.nr_mapped - 5);
	FT_CHECK_INT(ft_sst(&x->env).nr_mapped, after.nr_mapped);
	return 0;
}

/* The interval tree: create, insert, remove, against a model. */

static int tree_create_op(struct fx *x)
{
	struct dc_itree *t;
	int ret = dc_itree_create(&t);

	if (ret)
		return ret;
	ret = dc_itree_insert(t, 1, 1, tree_item(1));
	FT_CHECK(dc_itree_lookup(t, 1) == (ret ? NULL : tree_item(1)));
	dc_itree_destroy(t);
	return ret;
}

/* A tree of TREE_KEYS intervals at keys 4k + 1, in a scrambled order. */
static int tree_setup(struct fx *x)
{
	unsigned int i;
	int ret;

	memset(x->model, 0, sizeof(x->model));
	ret = dc_itree_create(&x->tree);
	if (ret)
		return ret;
	for (i = 0; i < TREE_KEYS; i++) {
		uint64_t k = 4 * ((i * 37u) % TREE_KEYS) + 1;

		ret = dc_itree_insert(x->tree, k, k, tree_item(k));
		if (ret)
			return ret;
		x->model[k] = tree_item(k);
	}
	x->round = 0;
	return 0;
}

static void tree_teardown(struct fx *x)
{
	if (!x->tree)
		return;
	tree_check(x);
	dc_itree_destroy(x->tree);
	x->tree = NULL;
}

/*
 * Insert TREE_OPS new intervals, each into a full region of the tree (keys
 * 4k + 2 next to existing ones, then 4k + 3 the next round); each insert
 * that fails must leave the tree as it was.
 */
static int tree_insert_op(struct fx *x)
{
	unsigned int i, base = 2 + x->round++ % 2;
	int ret, first_err = 0;

	for (i = 0; i < TREE_OPS; i++) {
		uint64_t k = 4 * ((i * 53u + x->round * 7u) % TREE_KEYS) + base;

		if (x->model[k])
			continue;
		ret = dc_itree_insert(x->tree, k, k, tree_item(k));
		if (!ret)
			x->model[k] = tree_item(k);
		else if (!first_err)
			first_err = ret;
		FT_CHECK(dc_itree_lookup(x->tree, k) == x->model[k]);
	}
	return first_err;
}

/* Remove TREE_OPS intervals: removal never fails. */
static int tree_remove_op(struct fx *x)
{
	unsigned int i, done = 0;

	for (i = 0; i < DCI_ARRAY_SIZE(x->model) && done < TREE_OPS; i++) {
		uint64_t k = (i * 97u + x->round * 13u) % DCI_ARRAY_SIZE(x->model);
		void *item = NULL;

		if (!x->model[k])
			continue;
		FT_CHECK_INT(dc_itree_remove(x->tree, k, &item), 0);
		FT_CHECK(item == x->model[k]);
		x->model[k] = NULL;
		FT_CHECK(!dc_itree_lookup(x->tree, k));
		done++;
	}
	x->round++;
	return 0;
}

static void tree_check_ret(struct fx *x, int ret)
{
	tree_check(x);
}

/* The request queue: create, a few requests through a synchronous device. */

struct fdev {
	struct dc_reqq *q;
	unsigned int ended;
};

struct freq {
	struct dc_reqq_req r;
	struct fdev *dev;
};

static int fdev_submit(struct dc_reqq_req *req, void *priv)
{
	struct fdev *d = priv;

	dc_reqq_complete(d->q, req, 0);
	return 0;
}

static void freq_end(struct dc_reqq_req *req, int status)
{
	struct freq *f = dci_container_of(req, struct freq, r);

	FT_CHECK_INT(status, 0);
	f->dev->ended++;
}

static const struct dc_reqq_ops fdev_ops = { .submit = fdev_submit };

static int reqq_op_flags(unsigned int flags)
{
	struct dc_reqq_config cfg = { .flags = flags };
	struct fdev d = { 0 };
	struct freq f[3];
	unsigned int i;
	int ret;

	ret = dc_reqq_create(&cfg, sizeof(cfg), &fdev_ops, sizeof(fdev_ops),
			     &d, &d.q);
	if (ret) {
		FT_CHECK(!d.q);
		return ret;
	}
	for (i = 0; i < DCI_ARRAY_SIZE(f); i++) {
		f[i].dev = &d;
		dc_reqq_req_init(&f[i].r, freq_end, 0);
		FT_CHECK_INT(dc_reqq_submit(d.q, &f[i].r), 0);
	}
	FT_CHECK_INT(dc_reqq_drain(d.q, FT_WAIT_NS), 0);
	FT_CHECK_INT(d.ended, DCI_ARRAY_SIZE(f));
	dc_reqq_destroy(d.q);
	return 0;
}

static int reqq_op(struct fx *x)
{
	return reqq_op_flags(0);
}

static int reqq_timer_op(struct fx *x)
{
	return reqq_op_flags(DC_REQQ_TIMER_RETRY);
}

/*
 * Slot tables: created with two slots, then four taken without waiting
 * (two allocated on demand: a failure there is -EAGAIN, and counted).
 */
static int slots_op(struct fx *x)
{
	struct dc_slot_table_config cfg = {
		.min_slots = 2, .max_slots = 8, .slot_size = 256,
	};
	struct dc_slot_table *tbl;
	struct dc_slot *s[4];
	struct dc_slot_table_stats st;
	unsigned int i, got = 0;
	int ret, err = 0;

	ret = dc_slot_table_create(&cfg, sizeof(cfg), NULL, 0, NULL, &tbl);
	if (ret) {
		FT_CHECK(!tbl);
		return ret;
	}
	for (i = 0; i < DCI_ARRAY_SIZE(s); i++) {
		ret = dc_slot_tryget(tbl, &s[got]);
		if (!ret)
			got++;
		else if (!err)
			err = ret;
	}
	dc_slot_table_stats(tbl, &st, sizeof(st));
	FT_CHECK_INT(st.out, got);
	FT_CHECK_INT(st.alloc_failures, DCI_ARRAY_SIZE(s) - got);
	if (err)
		FT_CHECK_INT(err, -EAGAIN);
	for (i = 0; i < got; i++)
		dc_slot_put(tbl, s[i]);
	FT_CHECK_INT(dc_slot_table_destroy(tbl), 0);
	/* -EAGAIN is the documented answer: report it as the allocation's. */
	return err ? -ENOMEM : 0;
}

/* With no slot out, an allocation failure of dc_slot_get() is -ENOMEM. */
static int slots_empty_op(struct fx *x)
{
	struct dc_slot_table_config cfg = { .max_slots = 4 };
	struct dc_slot_table *tbl;
	struct dc_slot *s;
	int ret;

	ret = dc_slot_table_create(&cfg, sizeof(cfg), NULL, 0, NULL, &tbl);
	if (ret)
		return ret;
	ret = dc_slot_get(tbl, &s);
	if (!ret)
		dc_slot_put(tbl, s);
	FT_CHECK_INT(dc_slot_table_destroy(tbl), 0);
	return ret;
}

static int attr_op(struct fx *x)
{
	struct dc_attr_config p = { .timeout_ns = 1000 * FT_MS,
				    .rule = DC_ATTR_RULE_TIMEOUT };
	struct dc_attr_values v = { .size = 4096 };
	struct dc_attr *a;
	int ret = dc_attr_create(&p, sizeof(p), &a);

	if (ret) {
		FT_CHECK(!a);
		return ret;
	}
	FT_CHECK_INT(dc_attr_refresh(a, &v, dc_attr_version(a), dci_now_ns()), 0);
	dc_attr_destroy(a);
	return 0;
}

static void iocomp_done(struct dc_iocomp *ioc, void *data)
{
	(*(unsigned int *)data)++;
}

static int iocomp_op(struct fx *x)
{
	unsigned int done = 0;
	struct dc_iocomp *ioc;
	int ret = dc_iocomp_alloc(iocomp_done, &done, &ioc);

	if (ret)
		return ret;
	dc_iocomp_get(ioc);
	dc_iocomp_put(ioc);
	FT_CHECK_INT(done, 0);
	dc_iocomp_put(ioc);
	FT_CHECK_INT(done, 1);
	return 0;
}

static int simbe_create_op(struct fx *x)
{
	struct dc_simbe_config cfg;
	struct dc_simbe *be;
	int ret;

	dc_simbe_config_init(&cfg, sizeof(cfg), 64ull << 21);
	ret = dc_simbe_create(&cfg, sizeof(cfg), &be);
	if (ret)
		return ret;
	FT_CHECK_INT(dc_simbe_nr_ranges(be), 64);
	dc_simbe_destroy(be);
	return 0;
}

/*
 * The mmap backend: create it and register nine files, so that its file
 * table is allocated and then grown once (8 -> 16 entries).
 */
static int mmapbe_create_op(struct fx *x)
{
	struct dc_mmapbe *be;
	FILE *f = tmpfile();
	int ret, i;

	(void)x;
	if (!f)
		return -errno;
	ret = mmapbe_create(16ull << 16, 16, &be);
	if (ret)
		goto out;
	for (i = 0; i < 9 && !ret; i++)
		ret = dc_mmapbe_add_file(be, 100 + i, fileno(f));
	if (!ret)
		FT_CHECK_INT(dc_mmapbe_add_file(be, 100, fileno(f)), -EEXIST);
	dc_mmapbe_destroy(be);
out:
	fclose(f);
	return ret;
}

static const struct scenario scenarios[] = {
	{ "cache create/destroy", simbe_setup, NULL, cache_create_op,
	  cache_create_check, simbe_teardown, -ENOMEM },
	{ "inode get", env_setup, NULL, inode_get_op, env_check, env_teardown,
	  -ENOMEM },
	{ "map miss (read)", env_setup, NULL, miss_read_op, env_check,
	  env_teardown, FT_NO_ALLOC },
	{ "map miss (write)", env_setup, NULL, miss_write_op, env_check,
	  env_teardown, FT_NO_ALLOC },
	{ "map miss (index 64)", env_setup, NULL, miss_far_op, env_check,
	  env_teardown, FT_NO_ALLOC },
	{ "map upgrade", env_setup, upgrade_prepare, upgrade_op, env_check,
	  env_teardown, FT_NO_ALLOC },
	{ "map inline reclaim", inline_setup, NULL, inline_op, inline_check,
	  inline_teardown, FT_NO_ALLOC },
	{ "background reclaim", bg_setup, bg_prepare, bg_op, env_check,
	  env_teardown, 0 },
	{ "punch", env_setup, punch_prepare, punch_op, env_check,
	  env_teardown, 0 },
	{ "evict", evict_setup, evict_prepare, evict_op, env_check,
	  env_teardown, 0 },
	{ "itree create", NULL, NULL, tree_create_op, NULL, NULL, -ENOMEM },
	{ "itree insert", tree_setup, NULL, tree_insert_op, tree_check_ret,
	  tree_teardown, -ENOMEM },
	{ "itree remove", tree_setup, NULL, tree_remove_op, tree_check_ret,
	  tree_teardown, 0 },
	{ "reqq create", NULL, NULL, reqq_op, NULL, NULL, -ENOMEM },
	{ "reqq create (timer retry)", NULL, NULL, reqq_timer_op, NULL, NULL,
	  -ENOMEM },
	{ "slots create/tryget", NULL, NULL, slots_op, NULL, NULL, -ENOMEM },
	{ "slots get (none out)", NULL, NULL, slots_empty_op, NULL, NULL,
	  -ENOMEM },
	{ "attr create", NULL, NULL, attr_op, NULL, NULL, -ENOMEM },
	{ "iocomp alloc", NULL, NULL, iocomp_op, NULL, NULL, -ENOMEM },
	{ "simbe create", NULL, NULL, simbe_create_op, NULL, NULL, -ENOMEM },
	{ "mmap backend create", NULL, NULL, mmapbe_create_op, NULL, NULL,
	  -ENOMEM },
};

/* --- the driver ----------------------------------------------------------- */

static unsigned long site_calls(unsigned int idx)
{
	struct dci_fault_site s;

	return dci_fault_site_get(idx, &s) ? 0 : s.calls;
}

static unsigned long site_failures(unsigned int idx)
{
	struct dci_fault_site s;

	return dci_fault_site_get(idx, &s) ? 0 : s.failures;
}

/* Wait for deferred frees and background work, so that counts are exact. */
static void quiesce(void)
{
	dc_barrier();
}

static bool scen_setup(const struct scenario *sc, struct fx *x)
{
	int ret;

	memset(x, 0, sizeof(*x));
	ret = sc->setup ? sc->setup(x) : 0;
	if (ret) {
		ft_fail(__FILE__, __LINE__, "setup: %d", ret);
		return false;
	}
	return true;
}

static void scen_teardown(const struct scenario *sc, struct fx *x)
{
	if (sc->teardown)
		sc->teardown(x);
	quiesce();
}

/* One run of the operation, unarmed; fills @calls with each site's count. */
static void run_unarmed(const struct scenario *sc, struct fx *x,
			unsigned long *calls, unsigned int nr_sites)
{
	unsigned int i;
	int ret;

	if (sc->prepare)
		sc->prepare(x);
	quiesce();
	for (i = 0; i < nr_sites; i++)
		calls[i] = site_calls(i);
	ret = sc->op(x);
	quiesce();
	for (i = 0; i < nr_sites; i++)
		calls[i] = site_calls(i) - calls[i];
	FT_CHECK_INT(ret, 0);
	if (sc->check)
		sc->check(x, ret);
}

/*
 * Site @idx fails its @nth allocation during the operation.  Returns
 * whether the failure happened (false: the operation allocates fewer
 * times there than that).
 */
static bool run_armed(const struct scenario *sc, unsigned int idx,
		      unsigned long nth, unsigned int nr_sites)
{
	unsigned long fails, calls[64];
	struct fx *x = calloc(1, sizeof(*x));
	bool fired;
	int ret;

	if (!x) {
		ft_fail(__FILE__, __LINE__, "out of memory");
		return false;
	}
	if (!scen_setup(sc, x)) {
		scen_teardown(sc, x);
		free(x);
		return false;
	}
	if (sc->prepare)
		sc->prepare(x);
	quiesce();
	fails = site_failures(idx);
	FT_CHECK_INT(dci_fault_site_fail_nth(idx, nth), 0);
	ret = sc->op(x);
	dci_fault_site_fail_nth(idx, 0);
	quiesce();
	fired = site_failures(idx) != fails;
	if (fired) {
		FT_CHECK_INT(site_failures(idx), fails + 1);
		FT_CHECK_INT(dci_fault_alloc_last_site(), idx);
		if (ret)
			FT_CHECK_INT(ret, sc->err < 0 ? sc->err : 0);
	} else {
		FT_CHECK_INT(ret, 0);
	}
	if (sc->check)
		sc->check(x, ret);
	/* The same operation again, unarmed: it works. */
	run_unarmed(sc, x, calls, nr_sites < 64 ? nr_sites : 64);
	scen_teardown(sc, x);
	free(x);
	return fired;
}

/*
 * An FT_NO_ALLOC scenario's operation allocated nothing unarmed (@calls); now
 * every site is armed to fail its next allocation at once, and the
 * operation must still succeed, with no failure fired.  Returns 1 (the
 * case run).
 */
static unsigned long run_no_alloc(const struct scenario *sc,
				  const unsigned long *calls,
				  unsigned int nr_sites)
{
	unsigned long fails = 0, calls_after[64];
	struct fx *x;
	unsigned int i;
	int ret;

	for (i = 0; i < nr_sites; i++)
		if (calls[i])
			ft_fail(__FILE__, __LINE__, "%s allocated %lu times at site %u after create",
				sc->name, calls[i], i);
	x = calloc(1, sizeof(*x));
	if (!x || !scen_setup(sc, x)) {
		ft_fail(__FILE__, __LINE__, "%s: no state", sc->name);
		free(x);
		return 0;
	}
	if (sc->prepare)
		sc->prepare(x);
	quiesce();
	for (i = 0; i < nr_sites; i++) {
		fails += site_failures(i);
		FT_CHECK_INT(dci_fault_site_fail_nth(i, 1), 0);
	}
	ret = sc->op(x);
	for (i = 0; i < nr_sites; i++)
		dci_fault_site_fail_nth(i, 0);
	quiesce();
	for (i = 0; i < nr_sites; i++)
		fails -= site_failures(i);
	FT_CHECK_INT(ret, 0);
	FT_CHECK_INT(fails, 0);
	if (sc->check)
		sc->check(x, ret);
	run_unarmed(sc, x, calls_after, nr_sites);
	scen_teardown(sc, x);
	free(x);
	return 1;
}

static void print_sites(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct dci_fault_site s;
		const char *f;

		if (dci_fault_site_get(i, &s))
			continue;
		f = strstr(s.file, "lib/");
		printf("  site %2u: %s:%u %s(): %lu allocations, %lu failed\n",
		       i, f ? f : s.file, s.line, s.func, s.calls, s.failures);
	}
}

unsigned long ft_alloc_run(void)
{
	unsigned int nr_sites = dci_fault_site_count(), i, reached = 0, failed = 0;
	unsigned long *calls = calloc(nr_sites + 1, sizeof(*calls));
	unsigned long cases = 0, nth;
	size_t s;

	/*
	 * Every userspace build links allocation sites: none found means the
	 * section's bounds name another section, and no site could fail.
	 */
	if (!calls || !nr_sites || nr_sites > 64) {
		ft_fail(__FILE__, __LINE__, "%u sites: %s", nr_sites,
			nr_sites ? "raise the driver's limit" :
			"the section's bounds are not found");
		free(calls);
		return 0;
	}
	dci_fault_site_record(true);
	for (s = 0; s < DCI_ARRAY_SIZE(scenarios); s++) {
		const struct scenario *sc = &scenarios[s];
		struct fx *x = calloc(1, sizeof(*x));
		unsigned long sc_cases = 0;

		snprintf(ft_context, sizeof(ft_context), "%s, unarmed", sc->name);
		if (!x || !scen_setup(sc, x)) {
			free(x);
			continue;
		}
		run_unarmed(sc, x, calls, nr_sites);
		scen_teardown(sc, x);
		free(x);
		if (sc->err == FT_NO_ALLOC)
			sc_cases += run_no_alloc(sc, calls, nr_sites);
		for (i = 0; i < nr_sites; i++) {
			for (nth = 1; nth <= calls[i] && nth <= FT_MAX_NTH; nth++) {
				snprintf(ft_context, sizeof(ft_context),
					 "%s, site %u, allocation %lu", sc->name,
					 i, nth);
				if (!run_armed(sc, i, nth, nr_sites))
					break;
				sc_cases++;
			}
		}
		printf("fault: scenario %-26s %4lu failure cases\n", sc->name,
		       sc_cases);
		cases += sc_cases;
	}
	dci_fault_site_record(false);
	snprintf(ft_context, sizeof(ft_context), "allocation sites");
	for (i = 0; i < nr_sites; i++) {
		struct dci_fault_site st;

		FT_CHECK_INT(dci_fault_site_get(i, &st), 0);
		reached += st.calls > 0;
		failed += st.failures > 0;
		if (!st.calls || !st.failures)
			ft_fail(__FILE__, __LINE__,
				"site %s:%u %s() %s", st.file, st.line, st.func,
				st.calls ? "never failed" : "never reached");
	}
	FT_CHECK_INT(dci_fault_site_get(nr_sites, &(struct dci_fault_site){ 0 }),
		     -ENOENT);
	printf("fault: %u allocation sites, %u reached, %u failed, %lu failure cases\n",
	       nr_sites, reached, failed, cases);
	print_sites(nr_sites);
	free(calls);
	return cases;
}
