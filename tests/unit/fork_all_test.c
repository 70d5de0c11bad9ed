// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fork_all_test.c - the contract of include/daxcache/thread.h for a child
 * forked without dc_before_fork() while the library's threads ran, checked
 * for every exported function of libdaxcache and libdaxcache-sim, each in a
 * child of its own: the call returns what the contract says (-ECHILD for
 * what creates or uses, at once for what destroys or undoes, as usual for
 * what touches only the caller's memory), and the child then exits.
 *
 * The parent sets up one of everything and makes the library's threads
 * exist (the background reclaimer has run, RCU callbacks were queued) before
 * the forks.  A child that hangs is ended by alarm() in the child
 * (BOUND_S, generous: only a hang reaches it), which the parent reports.
 *
 *   fork-all-test            run every case
 *   fork-all-test NAME...    run those
 *   fork-all-test --list     print the names of the functions covered
 *                            (tests/unit/fork-all-check compares them with
 *                            the headers, so that a new export needs a case)
 * Prints "fork-all-test: N passed, N failed" and exits 1 on any failure.
 * Public headers and the shared libraries only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <daxcache/daxcache.h>
#include <daxcache/mmap_backend.h>
#include <daxcache/simbe.h>

#include "mmapbe_create.h"
#include "tmpfile.h"

#define RANGE_SHIFT	16			/* 64 KiB ranges */
#define RANGE		(1ull << RANGE_SHIFT)
#define NR_WINDOW	8			/* ranges in the window */
#define NR_FILE		32			/* ranges in the file */
#define INO		7
#define BOUND_S		120			/* turns a hang into a failure */

/* What the parent made before the forks: the children use it. */
static struct {
	int fd;
	struct dc_mmapbe *be;
	struct dc_cache *cache;
	struct dc_inode *inode;
	struct dc_pin pin;		/* held across the fork */
	struct dc_itree *tree;		/* holds [0, 9] -> &tree_item */
	struct dc_slot_table *slots;
	struct dc_slot *slot;		/* held across the fork */
	struct dc_reqq *reqq;
	struct dc_reqq_req req;
	struct dc_attr *attr;
	struct dc_iocomp *ioc;
	struct dc_simbe *sim;
} fx;
static int tree_item;

#define FAIL(...) do {							\
	fprintf(stderr, "fork-all-test[%d]: %s:%d: ", (int)getpid(),	\
		__FILE__, __LINE__);					\
	fprintf(stderr, __VA_ARGS__);					\
	fputc('\n', stderr);						\
	return -1;							\
} while (0)
#define CHECK(cond, ...) do { if (!(cond)) FAIL(__VA_ARGS__); } while (0)
/* An int-returning call must give exactly @want. */
#define EXPECT(call, want) do {						\
	long long got_ = (long long)(call);				\
	if (got_ != (long long)(want))					\
		FAIL("%s gave %lld, the contract says %s", #call, got_, #want); \
} while (0)

static unsigned char pattern(uint64_t off)
{
	return (unsigned char)(off * 131 + (off >> 16) * 7 + 1);
}

static int reqq_submit_op(struct dc_reqq_req *req, void *priv)
{
	(void)req;
	(void)priv;
	return 0;			/* accepted; completed later (never) */
}

static void ioc_done(struct dc_iocomp *ioc, void *data)
{
	(void)ioc;
	(void)data;
}

static int fixture(const char *dir)
{
	static const struct dc_reqq_ops rops = { .submit = reqq_submit_op };
	struct dc_slot_table_config scfg = { .min_slots = 1, .max_slots = 2 };
	struct dc_reqq_config rcfg = { 0 };
	struct dc_attr_config acfg = { .timeout_ns = 1000000000ull,
				       .rule = DC_ATTR_RULE_TIMEOUT };
	struct dc_simbe_config sim_cfg;
	struct dc_cache_config cfg;
	struct dc_cache_stats st;
	unsigned char buf[4096];
	uint64_t off, i, r;
	void *old;
	int ret;

	fx.fd = tmpfile_unlinked(dir, "fork-all-test");
	CHECK(fx.fd >= 0, "temporary file in %s: %s", dir, strerror(errno));
	for (off = 0; off < NR_FILE * RANGE; off += sizeof(buf)) {
		for (i = 0; i < sizeof(buf); i++)
			buf[i] = pattern(off + i);
		CHECK(write(fx.fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf), "write");
	}
	CHECK(mmapbe_create(NR_WINDOW * RANGE, RANGE_SHIFT, &fx.be) == 0, "mmapbe");
	CHECK(dc_mmapbe_add_file(fx.be, INO, fx.fd) == 0, "add_file");
	dc_cache_config_init(&cfg, sizeof(cfg), NR_WINDOW * RANGE);
	cfg.range_shift = RANGE_SHIFT;
	cfg.admit = DC_ADMIT_ALWAYS;
	CHECK(dc_cache_create(&cfg, sizeof(cfg), dc_mmapbe_ops(),
			      sizeof(struct dc_backend_ops), fx.be, &fx.cache) == 0,
	      "cache_create");
	CHECK(dc_inode_get(fx.cache, INO, &fx.inode) == 0, "inode_get");
	/* Fill the window, then wait for the reclaimer to free a range. */
	for (r = 0;; r++) {
		memset(&st, 0, sizeof(st));
		dc_cache_stats(fx.cache, &st, sizeof(st));
		if (r >= NR_FILE && !st.nr_free)
			break;
		ret = dc_map(fx.inode, (r % NR_FILE) * RANGE, DC_MAP_READ, &fx.pin);
		CHECK(ret == 0, "map range %llu: %d", (unsigned long long)r, ret);
		dc_unpin(&fx.pin);
	}
	ret = dc_wait_free(fx.cache, (uint64_t)BOUND_S * 1000000000ull);
	CHECK(ret == 0, "the background reclaimer never freed a range (%d)", ret);
	CHECK(dc_map(fx.inode, 0, DC_MAP_READ, &fx.pin) == 0, "map held");

	CHECK(dc_itree_create(&fx.tree) == 0, "itree_create");
	CHECK(dc_itree_insert(fx.tree, 100, 109, &tree_item) == 0, "insert");
	CHECK(dc_itree_remove(fx.tree, 100, &old) == 0, "remove");	/* call_rcu */
	CHECK(dc_itree_insert(fx.tree, 0, 9, &tree_item) == 0, "insert");
	CHECK(dc_slot_table_create(&scfg, sizeof(scfg), NULL, 0, NULL,
				   &fx.slots) == 0, "slot_table_create");
	CHECK(dc_slot_get(fx.slots, &fx.slot) == 0, "slot_get");
	CHECK(dc_reqq_create(&rcfg, sizeof(rcfg), &rops, sizeof(rops), NULL,
			     &fx.reqq) == 0, "reqq_create");
	dc_reqq_req_init(&fx.req, NULL, 0);
	CHECK(dc_attr_create(&acfg, sizeof(acfg), &fx.attr) == 0, "attr_create");
	CHECK(dc_iocomp_alloc(ioc_done, NULL, &fx.ioc) == 0, "iocomp_alloc");
	CHECK(dc_simbe_config_init(&sim_cfg, sizeof(sim_cfg), NR_WINDOW * RANGE) == 0,
	      "simbe_config_init");
	sim_cfg.range_shift = RANGE_SHIFT;
	CHECK(dc_simbe_create(&sim_cfg, sizeof(sim_cfg), &fx.sim) == 0, "simbe_create");
	/* The deferred frees so far have run: no callback is in flight. */
	dc_barrier();
	return 0;
}

/* ------------------------------------------------------------------ */
/* The cases: each runs in a child of its own.                          */

/* Creating or using: -ECHILD. */
static int t_cache_create(void)
{
	struct dc_cache_config cfg;
	struct dc_cache *c = NULL;

	dc_cache_config_init(&cfg, sizeof(cfg), NR_WINDOW * RANGE);
	cfg.range_shift = RANGE_SHIFT;
	EXPECT(dc_cache_create(&cfg, sizeof(cfg), dc_mmapbe_ops(),
			       sizeof(struct dc_backend_ops), fx.be, &c), -ECHILD);
	return 0;
}

static int t_inode_get(void)
{
	struct dc_inode *i;

	EXPECT(dc_inode_get(fx.cache, INO, &i), -ECHILD);
	return 0;
}

static int t_map(void)
{
	struct dc_pin pin;

	/* Range 0 is mapped and pinned: a hit, refused all the same. */
	EXPECT(dc_map(fx.inode, 0, DC_MAP_READ, &pin), -ECHILD);
	return 0;
}

static int t_map_timeout(void)
{
	struct dc_pin pin;

	EXPECT(dc_map_timeout(fx.inode, 5 * RANGE, DC_MAP_READ, 1000000, &pin),
	       -ECHILD);
	return 0;
}

static int t_wait_free(void)
{
	EXPECT(dc_wait_free(fx.cache, 0), -ECHILD);
	return 0;
}

static int t_inode_punch(void)
{
	EXPECT(dc_inode_punch(fx.inode, 0, NR_FILE * RANGE), -ECHILD);
	return 0;
}

static int t_cache_stats(void)
{
	struct dc_cache_stats st;

	EXPECT(dc_cache_stats(fx.cache, &st, sizeof(st)), -ECHILD);
	return 0;
}

static int t_thread_register(void)
{
	EXPECT(dc_thread_register(), -ECHILD);
	return 0;
}

static int t_itree_create(void)
{
	struct dc_itree *t;

	EXPECT(dc_itree_create(&t), -ECHILD);
	return 0;
}

static int t_itree_insert(void)
{
	EXPECT(dc_itree_insert(fx.tree, 20, 29, &tree_item), -ECHILD);
	return 0;
}

static int t_itree_remove(void)
{
	void *old;

	EXPECT(dc_itree_remove(fx.tree, 0, &old), -ECHILD);
	return 0;
}

static int t_slot_table_create(void)
{
	struct dc_slot_table_config scfg = { .min_slots = 1, .max_slots = 2 };
	struct dc_slot_table *t;

	EXPECT(dc_slot_table_create(&scfg, sizeof(scfg), NULL, 0, NULL, &t), -ECHILD);
	return 0;
}

static int t_slot_get(void)
{
	struct dc_slot *s;

	EXPECT(dc_slot_get(fx.slots, &s), -ECHILD);
	return 0;
}

static int t_slot_get_timeout(void)
{
	struct dc_slot *s;

	EXPECT(dc_slot_get_timeout(fx.slots, 1000000, &s), -ECHILD);
	return 0;
}

static int t_slot_tryget(void)
{
	struct dc_slot *s;

	EXPECT(dc_slot_tryget(fx.slots, &s), -ECHILD);
	return 0;
}

static int t_slot_table_stats(void)
{
	struct dc_slot_table_stats st;

	EXPECT(dc_slot_table_stats(fx.slots, &st, sizeof(st)), -ECHILD);
	return 0;
}

static int t_reqq_create(void)
{
	static const struct dc_reqq_ops rops = { .submit = reqq_submit_op };
	struct dc_reqq_config rcfg = { 0 };
	struct dc_reqq *q;

	EXPECT(dc_reqq_create(&rcfg, sizeof(rcfg), &rops, sizeof(rops), NULL, &q),
	       -ECHILD);
	return 0;
}

static int t_reqq_submit(void)
{
	EXPECT(dc_reqq_submit(fx.reqq, &fx.req), -ECHILD);
	return 0;
}

static int t_reqq_drain(void)
{
	EXPECT(dc_reqq_drain(fx.reqq, 1000000), -ECHILD);
	return 0;
}

static int t_reqq_stats(void)
{
	struct dc_reqq_stats st;

	EXPECT(dc_reqq_stats(fx.reqq, &st, sizeof(st)), -ECHILD);
	return 0;
}

static int t_attr_create(void)
{
	struct dc_attr_config acfg = { .timeout_ns = 1, .rule = DC_ATTR_RULE_TIMEOUT };
	struct dc_attr *a;

	EXPECT(dc_attr_create(&acfg, sizeof(acfg), &a), -ECHILD);
	return 0;
}

static int t_attr_refresh(void)
{
	struct dc_attr_values v = { .size = 1 };

	EXPECT(dc_attr_refresh(fx.attr, &v, 0, 1), -ECHILD);
	return 0;
}

static int t_attr_stats(void)
{
	struct dc_attr_stats st;

	EXPECT(dc_attr_stats(fx.attr, &st, sizeof(st)), -ECHILD);
	return 0;
}

static int t_iocomp_alloc(void)
{
	struct dc_iocomp *ioc;

	EXPECT(dc_iocomp_alloc(ioc_done, NULL, &ioc), -ECHILD);
	return 0;
}

static int t_mmapbe_create(void)
{
	struct dc_mmapbe *be;

	EXPECT(mmapbe_create(NR_WINDOW * RANGE, RANGE_SHIFT, &be), -ECHILD);
	return 0;
}

static int t_mmapbe_add_file(void)
{
	EXPECT(dc_mmapbe_add_file(fx.be, INO + 1, fx.fd), -ECHILD);
	return 0;
}

static int t_mmapbe_remove_file(void)
{
	EXPECT(dc_mmapbe_remove_file(fx.be, INO), -ECHILD);
	return 0;
}

static int t_mmapbe_read(void)
{
	unsigned char b;

	EXPECT(dc_mmapbe_read(fx.be, &fx.pin, 0, &b, 1), -ECHILD);
	return 0;
}

static int t_mmapbe_write(void)
{
	unsigned char b = 0;

	EXPECT(dc_mmapbe_write(fx.be, &fx.pin, 0, &b, 1), -ECHILD);
	return 0;
}

/* Functions that cannot fail and would lock or wait: they return at once. */
static int t_attr_read_check(void)
{
	uint64_t ver;

	/* "Refresh", and the refresh is refused. */
	CHECK(dc_attr_read_check(fx.attr, 0, 1, 1, &ver), "read_check: no refresh");
	return 0;
}

static int t_attr_get(void)
{
	struct dc_attr_values v;

	CHECK(!dc_attr_get(fx.attr, &v, 1), "attr_get: valid");
	return 0;
}

static int t_attr_version(void)
{
	EXPECT(dc_attr_version(fx.attr), 0);
	return 0;
}

static int t_attr_note_write(void)
{
	dc_attr_note_write(fx.attr, 10, DC_ATTR_MTIME_UNKNOWN, 1);
	return 0;
}

static int t_attr_expire(void)
{
	dc_attr_expire(fx.attr);
	return 0;
}

static int t_reqq_complete(void)
{
	dc_reqq_complete(fx.reqq, &fx.req, 0);
	return 0;
}

static int t_reqq_shutdown(void)
{
	dc_reqq_shutdown(fx.reqq);
	return 0;
}

static int t_slot_put(void)
{
	dc_slot_put(fx.slots, fx.slot);
	return 0;
}

static int t_unpin(void)
{
	dc_unpin(&fx.pin);
	return 0;
}

static int t_inode_put(void)
{
	dc_inode_put(fx.inode);
	return 0;
}

static int t_synchronize(void)
{
	dc_synchronize();
	return 0;
}

static int t_barrier(void)
{
	dc_barrier();
	return 0;
}

static int t_before_fork(void)
{
	/* The three fork calls do nothing here: no grandchild is made. */
	dc_before_fork();
	dc_after_fork_parent();
	return 0;
}

static int t_after_fork_parent(void)
{
	dc_after_fork_parent();
	return 0;
}

static int t_after_fork_child(void)
{
	dc_after_fork_child();
	return 0;
}

/* Destroying: returns at once (0 where it returns a value), leaking. */
static int t_cache_destroy(void)
{
	dc_unpin(&fx.pin);
	dc_inode_put(fx.inode);
	EXPECT(dc_cache_destroy(fx.cache), 0);
	return 0;
}

static int t_itree_destroy(void)
{
	dc_itree_destroy(fx.tree);
	/* What the destroy would have queued: nothing to wait for. */
	dc_barrier();
	return 0;
}

static int t_slot_table_destroy(void)
{
	EXPECT(dc_slot_table_destroy(fx.slots), 0);
	return 0;
}

static int t_reqq_destroy(void)
{
	dc_reqq_destroy(fx.reqq);
	return 0;
}

static int t_attr_destroy(void)
{
	dc_attr_destroy(fx.attr);
	return 0;
}

static int t_mmapbe_destroy(void)
{
	dc_mmapbe_destroy(fx.be);
	return 0;
}

static int t_thread_unregister(void)
{
	EXPECT(dc_thread_unregister(), 0);
	return 0;
}

/* Everything at once, the way a child cleans up before it exits. */
static int t_cleanup(void)
{
	dc_unpin(&fx.pin);
	dc_inode_put(fx.inode);
	EXPECT(dc_cache_destroy(fx.cache), 0);
	dc_mmapbe_destroy(fx.be);
	dc_itree_destroy(fx.tree);
	dc_slot_put(fx.slots, fx.slot);
	EXPECT(dc_slot_table_destroy(fx.slots), 0);
	dc_reqq_destroy(fx.reqq);
	dc_attr_destroy(fx.attr);
	dc_iocomp_put(fx.ioc);
	dc_barrier();
	EXPECT(dc_thread_unregister(), 0);
	return 0;
}

/* Touching only the caller's memory or fixed fields: as in any process. */
static int t_cache_config_init(void)
{
	struct dc_cache_config cfg;

	EXPECT(dc_cache_config_init(&cfg, sizeof(cfg), NR_WINDOW * RANGE), 0);
	return 0;
}

static int t_cache_range_size(void)
{
	EXPECT(dc_cache_range_size(fx.cache), RANGE);
	return 0;
}

static int t_inode_id(void)
{
	EXPECT(dc_inode_id(fx.inode), INO);
	return 0;
}

static int t_read_lock(void)
{
	dc_read_lock();
	CHECK(dc_itree_lookup(fx.tree, 5) == &tree_item, "lookup under read lock");
	dc_read_unlock();
	return 0;
}

static int t_itree_lookup(void)
{
	dc_read_lock();
	CHECK(dc_itree_lookup(fx.tree, 5) == &tree_item, "lookup 5");
	CHECK(!dc_itree_lookup(fx.tree, 50), "lookup 50");
	dc_read_unlock();
	return 0;
}

static int t_itree_lookup_entry(void)
{
	struct dc_itree_entry e;

	dc_read_lock();
	CHECK(dc_itree_lookup_entry(fx.tree, 9, &e) && e.start == 0, "entry of 9");
	dc_read_unlock();
	return 0;
}

static int t_itree_first_next(void)
{
	struct dc_itree_entry e;

	dc_read_lock();
	CHECK(dc_itree_first(fx.tree, 0, 1000, &e) && e.item == &tree_item, "first");
	CHECK(!dc_itree_next(fx.tree, &e, 1000), "next");
	dc_read_unlock();
	return 0;
}

static int t_itree_count(void)
{
	EXPECT(dc_itree_count(fx.tree), 1);
	return 0;
}

static int t_reqq_req_init(void)
{
	struct dc_reqq_req req;

	dc_reqq_req_init(&req, NULL, 0);
	return 0;
}

static int t_iocomp(void)
{
	struct dc_iocomp ioc;

	dc_iocomp_init(&ioc, ioc_done, NULL);
	dc_iocomp_get(&ioc);
	EXPECT(dc_iocomp_pending(&ioc), 2);
	dc_iocomp_put(&ioc);
	dc_iocomp_put(&ioc);
	EXPECT(dc_iocomp_pending(&ioc), 0);
	dc_iocomp_put(fx.ioc);
	return 0;
}

static int t_mmapbe_ops_window(void)
{
	CHECK(dc_mmapbe_ops() != NULL, "mmapbe_ops");
	CHECK(dc_mmapbe_window(fx.be) != NULL, "mmapbe_window");
	return 0;
}

static void quiet_log(void *priv, int level, const char *msg);

static int t_log(void)
{
	unsigned long w = dc_warn_count();

	dc_set_log_fn(quiet_log, NULL);
	EXPECT(dc_warn_count(), w);
	return 0;
}

/* Touches nothing: works as in any process. */
static int t_version(void)
{
	EXPECT(dc_version(), DC_VERSION);
	return 0;
}

/* libdaxcache-sim has no threads: as in any process, on a quiet backend. */
static int t_simbe(void)
{
	struct dc_simbe_config cfg;
	struct dc_simbe_stats st;
	struct dc_simbe *be;

	EXPECT(dc_simbe_config_init(&cfg, sizeof(cfg), NR_WINDOW * RANGE), 0);
	cfg.range_shift = RANGE_SHIFT;
	EXPECT(dc_simbe_create(&cfg, sizeof(cfg), &be), 0);
	dc_simbe_destroy(be);
	CHECK(dc_simbe_ops() != NULL, "simbe_ops");
	EXPECT(dc_simbe_range_size(fx.sim), RANGE);
	EXPECT(dc_simbe_nr_ranges(fx.sim), NR_WINDOW);
	dc_simbe_set_latency(fx.sim, DC_SIMBE_SETUP, 0, 0);
	EXPECT(dc_simbe_set_fault(fx.sim, DC_SIMBE_SETUP, NULL, 0), 0);
	EXPECT(dc_simbe_fail_next(fx.sim, DC_SIMBE_SETUP, 0), 0);
	EXPECT(dc_simbe_lookup(fx.sim, 0, NULL, 0), -ENOENT);
	CHECK(dc_simbe_check_tag(fx.sim, 0, INO, 0) != -ECHILD, "check_tag");
	CHECK(dc_simbe_write(fx.sim, 0, INO, 0) != -ECHILD, "write");
	dc_simbe_gate_close(fx.sim, DC_SIMBE_SETUP);
	EXPECT(dc_simbe_gate_waiters(fx.sim, DC_SIMBE_SETUP), 0);
	dc_simbe_gate_open(fx.sim, DC_SIMBE_SETUP);
	EXPECT(dc_simbe_stats(fx.sim, &st, sizeof(st)), 0);
	dc_simbe_reset_stats(fx.sim);
	dc_simbe_destroy(fx.sim);
	return 0;
}

/*
 * Each case and the exported functions it covers (space-separated), which
 * --list prints for tests/unit/fork-all-check.
 */
static const struct fcase {
	const char *name;
	int (*fn)(void);
	const char *covers;
} cases[] = {
	{ "cache_create", t_cache_create, "dc_cache_create" },
	{ "inode_get", t_inode_get, "dc_inode_get" },
	{ "map", t_map, "dc_map" },
	{ "map_timeout", t_map_timeout, "dc_map_timeout" },
	{ "wait_free", t_wait_free, "dc_wait_free" },
	{ "inode_punch", t_inode_punch, "dc_inode_punch" },
	{ "cache_stats", t_cache_stats, "dc_cache_stats" },
	{ "thread_register", t_thread_register, "dc_thread_register" },
	{ "itree_create", t_itree_create, "dc_itree_create" },
	{ "itree_insert", t_itree_insert, "dc_itree_insert" },
	{ "itree_remove", t_itree_remove, "dc_itree_remove" },
	{ "slot_table_create", t_slot_table_create, "dc_slot_table_create" },
	{ "slot_get", t_slot_get, "dc_slot_get" },
	{ "slot_get_timeout", t_slot_get_timeout, "dc_slot_get_timeout" },
	{ "slot_tryget", t_slot_tryget, "dc_slot_tryget" },
	{ "slot_table_stats", t_slot_table_stats, "dc_slot_table_stats" },
	{ "reqq_create", t_reqq_create, "dc_reqq_create" },
	{ "reqq_submit", t_reqq_submit, "dc_reqq_submit" },
	{ "reqq_drain", t_reqq_drain, "dc_reqq_drain" },
	{ "reqq_stats", t_reqq_stats, "dc_reqq_stats" },
	{ "attr_create", t_attr_create, "dc_attr_create" },
	{ "attr_refresh", t_attr_refresh, "dc_attr_refresh" },
	{ "attr_stats", t_attr_stats, "dc_attr_stats" },
	{ "iocomp_alloc", t_iocomp_alloc, "dc_iocomp_alloc" },
	{ "mmapbe_create", t_mmapbe_create, "dc_mmapbe_create" },
	{ "mmapbe_add_file", t_mmapbe_add_file, "dc_mmapbe_add_file" },
	{ "mmapbe_remove_file", t_mmapbe_remove_file, "dc_mmapbe_remove_file" },
	{ "mmapbe_read", t_mmapbe_read, "dc_mmapbe_read" },
	{ "mmapbe_write", t_mmapbe_write, "dc_mmapbe_write" },
	{ "attr_read_check", t_attr_read_check, "dc_attr_read_check" },
	{ "attr_get", t_attr_get, "dc_attr_get" },
	{ "attr_version", t_attr_version, "dc_attr_version" },
	{ "attr_note_write", t_attr_note_write, "dc_attr_note_write" },
	{ "attr_expire", t_attr_expire, "dc_attr_expire" },
	{ "reqq_complete", t_reqq_complete, "dc_reqq_complete" },
	{ "reqq_shutdown", t_reqq_shutdown, "dc_reqq_shutdown" },
	{ "slot_put", t_slot_put, "dc_slot_put" },
	{ "unpin", t_unpin, "dc_unpin" },
	{ "inode_put", t_inode_put, "dc_inode_put" },
	{ "synchronize", t_synchronize, "dc_synchronize" },
	{ "barrier", t_barrier, "dc_barrier" },
	{ "before_fork", t_before_fork, "dc_before_fork" },
	{ "after_fork_parent", t_after_fork_parent, "dc_after_fork_parent" },
	{ "after_fork_child", t_after_fork_child, "dc_after_fork_child" },
	{ "cache_destroy", t_cache_destroy, "dc_cache_destroy" },
	{ "itree_destroy", t_itree_destroy, "dc_itree_destroy" },
	{ "slot_table_destroy", t_slot_table_destroy, "dc_slot_table_destroy" },
	{ "reqq_destroy", t_reqq_destroy, "dc_reqq_destroy" },
	{ "attr_destroy", t_attr_destroy, "dc_attr_destroy" },
	{ "mmapbe_destroy", t_mmapbe_destroy, "dc_mmapbe_destroy" },
	{ "thread_unregister", t_thread_unregister, "dc_thread_unregister" },
	{ "cleanup", t_cleanup, "" },
	{ "cache_config_init", t_cache_config_init, "dc_cache_config_init" },
	{ "cache_range_size", t_cache_range_size, "dc_cache_range_size" },
	{ "inode_id", t_inode_id, "dc_inode_id" },
	{ "read_lock", t_read_lock, "dc_read_lock dc_read_unlock" },
	{ "itree_lookup", t_itree_lookup, "dc_itree_lookup" },
	{ "itree_lookup_entry", t_itree_lookup_entry, "dc_itree_lookup_entry" },
	{ "itree_first_next", t_itree_first_next, "dc_itree_first dc_itree_next" },
	{ "itree_count", t_itree_count, "dc_itree_count" },
	{ "reqq_req_init", t_reqq_req_init, "dc_reqq_req_init" },
	{ "iocomp", t_iocomp,
	  "dc_iocomp_init dc_iocomp_get dc_iocomp_put dc_iocomp_pending" },
	{ "mmapbe_ops_window", t_mmapbe_ops_window, "dc_mmapbe_ops dc_mmapbe_window" },
	{ "log", t_log, "dc_set_log_fn dc_warn_count" },
	{ "version", t_version, "dc_version" },
	{ "simbe", t_simbe,
	  "dc_simbe_config_init dc_simbe_create dc_simbe_destroy dc_simbe_ops "
	  "dc_simbe_range_size dc_simbe_nr_ranges dc_simbe_set_latency "
	  "dc_simbe_set_fault dc_simbe_fail_next dc_simbe_lookup "
	  "dc_simbe_check_tag dc_simbe_write dc_simbe_gate_close "
	  "dc_simbe_gate_open dc_simbe_gate_waiters dc_simbe_stats "
	  "dc_simbe_reset_stats" },
};

#define NR_CASES	(sizeof(cases) / sizeof(cases[0]))

/*
 * Fork, run @c in the child under alarm(), and wait for its end: nothing
 * in the child handles SIGALRM, so a hang ends it too.
 */
static int run_case(const struct fcase *c)
{
	int status;
	pid_t pid, got;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "fork-all-test: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		/* A hang ends in SIGALRM, which the parent reports. */
		alarm(BOUND_S);
		_exit(c->fn() ? 1 : 0);
	}
	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (got != pid) {
		fprintf(stderr, "fork-all-test: %s: waitpid: %s\n", c->name, strerror(errno));
		return -1;
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
		fprintf(stderr, "fork-all-test: %s: the child hung (no exit in %d s)\n",
			c->name, BOUND_S);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "fork-all-test: %s: the child ended with status %#x\n",
			c->name, status);
		return -1;
	}
	return 0;
}

static void quiet_log(void *priv, int level, const char *msg)
{
	(void)priv;
	(void)level;
	/* The refusals are expected: keep them, marked. */
	fprintf(stderr, "fork-all-test[%d]: library says: %s\n", (int)getpid(), msg);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int passed = 0, failed = 0, i;
	size_t t;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (t = 0; t < NR_CASES; t++)
			if (*cases[t].covers)
				printf("%s\n", cases[t].covers);
		return 0;
	}
	dc_set_log_fn(quiet_log, NULL);
	dc_thread_register();
	if (fixture(dir)) {
		printf("fork-all-test: the setup failed\n");
		return 1;
	}
	for (t = 0; t < NR_CASES; t++) {
		bool run = argc < 2;

		for (i = 1; i < argc; i++)
			run |= !strcmp(argv[i], cases[t].name);
		if (!run)
			continue;
		if (run_case(&cases[t])) {
			printf("not ok %s\n", cases[t].name);
			failed++;
		} else {
			printf("ok %s\n", cases[t].name);
			passed++;
		}
		fflush(stdout);
	}
	/* The parent is untouched: it still maps, and cleans up. */
	dc_unpin(&fx.pin);
	if (dc_map(fx.inode, 0, DC_MAP_READ, &fx.pin)) {
		printf("not ok parent\n");
		failed++;
	}
	dc_unpin(&fx.pin);
	dc_inode_put(fx.inode);
	dc_cache_destroy(fx.cache);
	dc_mmapbe_destroy(fx.be);
	close(fx.fd);
	dc_itree_destroy(fx.tree);
	dc_slot_put(fx.slots, fx.slot);
	dc_slot_table_destroy(fx.slots);
	dc_reqq_destroy(fx.reqq);
	dc_attr_destroy(fx.attr);
	dc_iocomp_put(fx.ioc);
	dc_simbe_destroy(fx.sim);
	dc_barrier();
	dc_thread_unregister();
	printf("fork-all-test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
