// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench.c - daxcache_bench.ko: the hit, write hit and miss paths of
 * daxcache.ko against a replica of fs/fuse/dax.c's approach
 * (fuse_replica.c), side by side in one booted kernel.  Not part of
 * daxcache.ko; bench/kernel/run builds it, boots it with 1 and 2 CPUs and
 * prints the table.
 *
 * The benchmark runs when the module is loaded, prints one line per cell
 * and fails the load (-EIO) on any unexpected result.  Cells:
 *
 *   hit:  threads (one per online CPU, up to all of them) map and unpin the
 *         HIT_RANGES mapped ranges of one shared inode in turn: dc_map() +
 *         dc_unpin() against the replica's down_read + interval tree
 *         lookup + refcount_inc + up_read, then refcount_dec;
 *   whit: the same with DC_MAP_WRITE, on an inode (in a cache of its
 *         own) whose ranges the setup mapped writable, so that every timed
 *         map hits; against the replica's write hit: the same lookup and
 *         its test that the mapping is writable (fs/fuse/dax.c tests it on
 *         every hit, so the replica's read hit pays for it too);
 *   miss: each thread maps MISS_ROUND new ranges of a fresh inode of its
 *         own, from free ranges (the window holds four times what all the
 *         threads map in a round, so nothing is ever reclaimed), then puts
 *         the inode, which drops them (timed apart, not in the ns/op).
 *         Both backends' setup does nothing.
 *   parmiss: misses in parallel within a file: each thread maps new
 *         ranges of its own block of ONE inode, the library's against
 *         the replica's, beside the library with an inode per thread;
 *         every setup sleeps @parmiss_us (usleep_range(): a round trip
 *         is a wait).  Reported as misses per second of all threads:
 *         with a setup that sleeps, TCG's speed hardly matters.
 *
 * Each cell runs @rounds times @slice_ms for each of the two, alternating
 * which goes first, and reports nanoseconds per operation per thread (all
 * threads' time over all their operations).  Under qemu's TCG only the
 * ratios mean anything.
 */
#define pr_fmt(fmt) "daxcache_bench: " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include <daxcache/cache.h>
#include <daxcache/thread.h>

#include "compat_kernel.h"
#include "fuse_replica.h"
/* sim_null_ops(), the backend of the cells (tests/cases is on the path). */
#include "sim_env.h"

#define BENCH_SHIFT	21		/* 2 MiB ranges, fuse's FUSE_DAX_SHIFT */
#define HIT_RANGES	16		/* mapped ranges the hit cells cycle over */
#define MISS_ROUND	256		/* new ranges per thread per miss round */
#define BATCH		64		/* operations between two clock reads */
#define MAX_THREADS	8

static unsigned int slice_ms = 200;
module_param(slice_ms, uint, 0444);
MODULE_PARM_DESC(slice_ms, "milliseconds per measuring slice (default 200)");

static unsigned int rounds = 5;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "slices per cell and implementation (default 5)");

static unsigned int parmiss_us = 200;
module_param(parmiss_us, uint, 0444);
MODULE_PARM_DESC(parmiss_us, "parmiss cells: microseconds each setup sleeps (default 200; 0: no such cells)");

enum bench_impl { IMPL_DC, IMPL_FUSE, NR_IMPLS };
enum bench_path { PATH_HIT, PATH_WHIT, PATH_MISS, NR_PATHS };

static const char *const path_name[NR_PATHS] = { "hit", "whit", "miss" };

/* What the threads of a slice share. */
struct bench_slice {
	enum bench_impl impl;
	enum bench_path path;
	unsigned int nthreads;
	atomic_t ready;			/* threads at the start line */
	struct dc_cache *cache;		/* the miss cells' cache */
	struct dc_inode *dc_hit;	/* the hit cells' inode */
	struct dc_inode *dc_whit;	/* the whit cells' inode, writable */
	struct fr_window *fr_win;	/* the miss cells' replica window */
	struct fr_inode *fr_hit;	/* the hit cells' replica inode */
	struct fr_inode *fr_whit;	/* the whit cells' one, writable */
	atomic64_t next_ino;		/* fresh inode ids of the miss cells */
	u64 dc_ops[NR_PATHS];		/* the library's timed operations */
};

struct bench_thread {
	struct bench_slice *s;
	struct completion done;
	u64 ns, ops;			/* measured time and operations */
	u64 evict_ns, evicted;		/* miss: time spent dropping inodes */
	int err;
};

/*
 * The hit cells' loop, inlined with constant @flags: the hit and whit
 * loops differ by the flag they pass, nothing else.
 */
static __always_inline int hit_dc_loop(struct dc_inode *inode,
				       unsigned int flags, u64 end, u64 *ops)
{
	struct dc_pin pin;
	unsigned int i;
	u64 n = 0;
	int ret;

	do {
		for (i = 0; i < BATCH; i++) {
			ret = dc_map(inode, (u64)(i % HIT_RANGES) << BENCH_SHIFT,
				     flags, &pin);
			if (ret) {
				pr_err("%s: dc_map: %d\n", flags ? "whit" : "hit",
				       ret);
				return -EIO;
			}
			dc_unpin(&pin);
		}
		n += BATCH;
	} while (ktime_get_ns() < end);
	*ops = n;
	return 0;
}

static int hit_dc(struct bench_slice *s, u64 end, u64 *ops)
{
	if (s->path == PATH_WHIT)
		return hit_dc_loop(s->dc_whit, DC_MAP_WRITE, end, ops);
	return hit_dc_loop(s->dc_hit, 0, end, ops);
}

/* The replica's, inlined with constant @write as hit_dc_loop(). */
static __always_inline int hit_fuse_loop(struct fr_inode *fi, bool write,
					 u64 end, u64 *ops)
{
	struct fr_map *m;
	unsigned int i;
	u64 n = 0;
	int ret;

	do {
		for (i = 0; i < BATCH; i++) {
			ret = fr_map(fi, i % HIT_RANGES, write, &m);
			if (ret) {
				pr_err("%s: fr_map: %d\n", write ? "whit" : "hit",
				       ret);
				return -EIO;
			}
			fr_unpin(m);
		}
		n += BATCH;
	} while (ktime_get_ns() < end);
	*ops = n;
	return 0;
}

static int hit_fuse(struct bench_slice *s, u64 end, u64 *ops)
{
	if (s->path == PATH_WHIT)
		return hit_fuse_loop(s->fr_whit, true, end, ops);
	return hit_fuse_loop(s->fr_hit, false, end, ops);
}

/* One miss round of the library: MISS_ROUND new ranges of a fresh inode. */
static int miss_dc_round(struct bench_thread *bt, u64 *map_ns)
{
	struct bench_slice *s = bt->s;
	struct dc_inode *inode;
	struct dc_pin pin;
	unsigned int i;
	u64 t0, t1;
	int ret;

	ret = dc_inode_get(s->cache, atomic64_inc_return(&s->next_ino), &inode);
	if (ret) {
		pr_err("miss: dc_inode_get: %d\n", ret);
		return -EIO;
	}
	t0 = ktime_get_ns();
	for (i = 0; i < MISS_ROUND; i++) {
		ret = dc_map(inode, (u64)i << BENCH_SHIFT, 0, &pin);
		if (ret) {
			pr_err("miss: dc_map: %d\n", ret);
			dc_inode_put(inode);
			return -EIO;
		}
		dc_unpin(&pin);
	}
	t1 = ktime_get_ns();
	dc_inode_put(inode);
	bt->evict_ns += ktime_get_ns() - t1;
	bt->evicted += MISS_ROUND;
	*map_ns = t1 - t0;
	return 0;
}

/* The same round in the replica. */
static int miss_fuse_round(struct bench_thread *bt, u64 *map_ns)
{
	struct fr_inode *fi = fr_inode_create(bt->s->fr_win);
	struct fr_map *m;
	unsigned int i, n;
	u64 t0, t1;
	int ret;

	if (!fi)
		return -ENOMEM;
	t0 = ktime_get_ns();
	for (i = 0; i < MISS_ROUND; i++) {
		ret = fr_map(fi, i, false, &m);
		if (ret) {
			pr_err("miss: fr_map: %d\n", ret);
			fr_inode_destroy(fi);
			return -EIO;
		}
		fr_unpin(m);
	}
	t1 = ktime_get_ns();
	n = fr_inode_evict(fi);
	fr_inode_destroy(fi);
	bt->evict_ns += ktime_get_ns() - t1;
	bt->evicted += n;
	if (n != MISS_ROUND) {
		pr_err("miss: the replica dropped %u mappings, not %u\n", n,
		       MISS_ROUND);
		return -EIO;
	}
	*map_ns = t1 - t0;
	return 0;
}

static int miss_loop(struct bench_thread *bt, u64 end)
{
	u64 ns;
	int ret;

	do {
		if (bt->s->impl == IMPL_DC)
			ret = miss_dc_round(bt, &ns);
		else
			ret = miss_fuse_round(bt, &ns);
		if (ret)
			return ret;
		bt->ns += ns;
		bt->ops += MISS_ROUND;
	} while (ktime_get_ns() < end);
	return 0;
}

/*
 * A benchmark kthread's start: register as a caller, then wait until all
 * @n threads of the slice are at the line (@ready counts them: they start
 * together, each on a CPU of its own).  *@start is when it went; returns
 * when the slice ends.
 */
static u64 bench_start_line(atomic_t *ready, unsigned int n, u64 *start)
{
	dc_thread_register();
	atomic_inc(ready);
	while (atomic_read(ready) < n) {
		cpu_relax();
		cond_resched();
	}
	*start = ktime_get_ns();
	return *start + (u64)slice_ms * NSEC_PER_MSEC;
}

static int bench_thread_main(void *arg)
{
	struct bench_thread *bt = arg;
	struct bench_slice *s = bt->s;
	u64 start, end;

	end = bench_start_line(&s->ready, s->nthreads, &start);
	if (s->path == PATH_MISS) {
		bt->err = miss_loop(bt, end);
	} else {
		bt->err = s->impl == IMPL_DC ? hit_dc(s, end, &bt->ops) :
					       hit_fuse(s, end, &bt->ops);
		bt->ns = ktime_get_ns() - start;
	}
	dc_thread_unregister();
	kthread_complete_and_exit(&bt->done, 0);
}

struct bench_sum {
	u64 ns, ops, evict_ns, evicted;
};

/*
 * Start thread i of @n on the i-th online CPU, running @fn(@arg(i)), named
 * @name/i.  Returns how many started (a failure is logged and the rest
 * not started); *@err gets the failure's error.
 */
static unsigned int bench_kthreads_start(unsigned int n, int (*fn)(void *),
					 void *(*arg)(void *base, unsigned int i),
					 void *base, const char *name, int *err)
{
	unsigned int i, cpu = cpumask_first(cpu_online_mask);

	for (i = 0; i < n; i++, cpu = cpumask_next(cpu, cpu_online_mask)) {
		struct task_struct *task;

		task = kthread_create(fn, arg(base, i), "%s/%u", name, i);
		if (IS_ERR(task)) {
			*err = PTR_ERR(task);
			pr_err("kthread_create: %d\n", *err);
			break;
		}
		kthread_bind(task, cpu);
		wake_up_process(task);
	}
	return i;
}

static void *bench_thread_arg(void *base, unsigned int i)
{
	return (struct bench_thread *)base + i;
}

/* One slice of @impl on @path with @n threads, one per online CPU. */
static int bench_slice_run(struct bench_slice *s, enum bench_impl impl,
			   enum bench_path path, unsigned int n,
			   struct bench_sum *sum)
{
	struct bench_thread *bt;
	unsigned int i, started = 0;
	int ret = 0;

	bt = kcalloc(n, sizeof(*bt), GFP_KERNEL);
	if (!bt)
		return -ENOMEM;
	s->impl = impl;
	s->path = path;
	s->nthreads = n;
	atomic_set(&s->ready, 0);
	for (i = 0; i < n; i++) {
		bt[i].s = s;
		init_completion(&bt[i].done);
	}
	started = bench_kthreads_start(n, bench_thread_main, bench_thread_arg, bt,
				       "dc_bench", &ret);
	/* A thread that could not start: let the others past the start line. */
	atomic_add(n - started, &s->ready);
	for (i = 0; i < started; i++) {
		wait_for_completion(&bt[i].done);
		if (bt[i].err && !ret)
			ret = bt[i].err;
		sum->ns += bt[i].ns;
		sum->ops += bt[i].ops;
		sum->evict_ns += bt[i].evict_ns;
		sum->evicted += bt[i].evicted;
	}
	kfree(bt);
	return ret;
}

/* @a / @b with one decimal, as "N.D" (printk has no floating point). */
static void fmt_ratio(char *buf, size_t len, u64 a, u64 b, unsigned int scale)
{
	u64 q = b ? div64_u64(a * scale, b) : 0;

	if (scale == 100)
		snprintf(buf, len, "%llu.%02llu", div_u64(q, 100), q % 100);
	else
		snprintf(buf, len, "%llu.%llu", div_u64(q, 10), q % 10);
}

static int bench_cell(struct bench_slice *s, enum bench_path path,
		      unsigned int n)
{
	struct bench_sum sum[NR_IMPLS] = { 0 };
	char dc_ns[24], fuse_ns[24], ratio[24], dc_ev[24], fuse_ev[24];
	unsigned int r;
	int ret;

	for (r = 0; r < rounds; r++) {
		enum bench_impl first = r % 2 ? IMPL_FUSE : IMPL_DC;

		ret = bench_slice_run(s, first, path, n, &sum[first]);
		if (!ret)
			ret = bench_slice_run(s, !first, path, n, &sum[!first]);
		if (ret)
			return ret;
	}
	if (!sum[IMPL_DC].ops || !sum[IMPL_FUSE].ops)
		return -EIO;
	s->dc_ops[path] += sum[IMPL_DC].ops;
	fmt_ratio(dc_ns, sizeof(dc_ns), sum[IMPL_DC].ns, sum[IMPL_DC].ops, 10);
	fmt_ratio(fuse_ns, sizeof(fuse_ns), sum[IMPL_FUSE].ns,
		  sum[IMPL_FUSE].ops, 10);
	/* fuse/dc of the ns per op: above 1 means the library is faster. */
	fmt_ratio(ratio, sizeof(ratio), div64_u64(sum[IMPL_FUSE].ns * 1000,
						  sum[IMPL_FUSE].ops),
		  div64_u64(sum[IMPL_DC].ns * 1000, sum[IMPL_DC].ops), 100);
	if (path == PATH_MISS) {
		fmt_ratio(dc_ev, sizeof(dc_ev), sum[IMPL_DC].evict_ns,
			  sum[IMPL_DC].evicted, 10);
		fmt_ratio(fuse_ev, sizeof(fuse_ev), sum[IMPL_FUSE].evict_ns,
			  sum[IMPL_FUSE].evicted, 10);
		pr_info("%s threads=%u dc_ns=%s fuse_ns=%s fuse/dc=%s dc_ops=%llu fuse_ops=%llu dc_evict_ns=%s fuse_evict_ns=%s\n",
			path_name[path], n, dc_ns, fuse_ns, ratio,
			sum[IMPL_DC].ops, sum[IMPL_FUSE].ops, dc_ev, fuse_ev);
	} else {
		pr_info("%s threads=%u dc_ns=%s fuse_ns=%s fuse/dc=%s dc_ops=%llu fuse_ops=%llu\n",
			path_name[path], n, dc_ns, fuse_ns, ratio,
			sum[IMPL_DC].ops, sum[IMPL_FUSE].ops);
	}
	return 0;
}

/*
 * A hit cell's inode in both, its HIT_RANGES ranges mapped (writable if
 * @write: the whit cells must only hit, never upgrade).
 */
static int bench_hit_setup(struct dc_cache *c, struct fr_window *w, bool write,
			   struct dc_inode **dc, struct fr_inode **fr)
{
	struct fr_map *m;
	struct dc_pin pin;
	unsigned int i;
	int ret;

	ret = dc_inode_get(c, 1, dc);
	if (ret)
		return ret;
	*fr = fr_inode_create(w);
	if (!*fr)
		return -ENOMEM;
	for (i = 0; i < HIT_RANGES; i++) {
		ret = dc_map(*dc, (u64)i << BENCH_SHIFT,
			     write ? DC_MAP_WRITE : 0, &pin);
		if (ret)
			return ret;
		dc_unpin(&pin);
		ret = fr_map(*fr, i, write, &m);
		if (ret)
			return ret;
		fr_unpin(m);
	}
	return 0;
}

static int bench_cache_new(unsigned int nr_ranges, struct dc_cache **out)
{
	struct dc_cache_config cfg;

	dc_cache_config_init(&cfg, sizeof(cfg), (u64)nr_ranges << BENCH_SHIFT);
	cfg.range_shift = BENCH_SHIFT;
	return dc_cache_create(&cfg, sizeof(cfg), sim_null_ops(),
			       sizeof(struct dc_backend_ops), NULL, out);
}

/*
 * The library's counters must show the cells did what they claim: every
 * timed operation a hit or a miss as expected (@hits and @misses of them,
 * none an upgrade), nothing reclaimed, nobody waiting.
 */
static int bench_check(struct dc_cache *c, const char *what, u64 hits,
		       u64 misses)
{
	struct dc_cache_stats st;
	int ret = dc_cache_stats(c, &st, sizeof(st));

	if (ret)
		return ret;
	if (st.inline_reclaims || st.bg_reclaims || st.waits || st.upgrades ||
	    st.hits != hits || st.misses != misses) {
		pr_err("%s cache: hits %llu (of %llu) misses %llu (of %llu) upgrades %llu inline reclaims %llu bg reclaims %llu waits %llu\n",
		       what, st.hits, hits, st.misses, misses, st.upgrades,
		       st.inline_reclaims, st.bg_reclaims, st.waits);
		return -EIO;
	}
	return 0;
}

/* --- parmiss: misses in parallel within a file ----------------------------- */

#define PM_BLOCK	1024		/* indexes per thread: no slice maps more */

enum pm_mode { PM_DC_ONE, PM_DC_OWN, PM_FUSE_ONE, NR_PM_MODES };

static const char *const pm_name[NR_PM_MODES] = { "dc_one", "dc_own", "fuse_one" };

struct pm_slice {
	enum pm_mode mode;
	unsigned int nthreads;
	atomic_t ready;
	struct dc_cache *cache;
	struct fr_window *win;
	struct dc_inode *dc[MAX_THREADS];	/* [0] the shared one */
	struct fr_inode *fr;
	u64 next_ino;
};

struct pm_thread {
	struct pm_slice *s;
	unsigned int k;
	struct completion done;
	u64 ns, ops;
	int err;
};

static void pm_sleep(void)
{
	usleep_range(parmiss_us, parmiss_us + parmiss_us / 8 + 1);
}

static int pm_setup(void *priv, u64 ino, u64 file_off, u64 win_off, u64 len,
		    unsigned int flags)
{
	pm_sleep();
	return 0;
}

static int pm_remove(void *priv, const struct dc_remove_entry *e, unsigned int n)
{
	return 0;
}

static const struct dc_backend_ops pm_ops = {
	.setup = pm_setup,
	.remove = pm_remove,
};

/* Thread k maps new indexes of its block until the slice ends. */
static int pm_thread_main(void *arg)
{
	struct pm_thread *pt = arg;
	struct pm_slice *s = pt->s;
	struct dc_inode *inode = s->dc[s->mode == PM_DC_OWN ? pt->k : 0];
	u64 first = (u64)pt->k * PM_BLOCK, start, end, i;
	struct dc_pin pin;
	struct fr_map *m;

	end = bench_start_line(&s->ready, s->nthreads, &start);
	for (i = 0; i < PM_BLOCK && ktime_get_ns() < end; i++) {
		if (s->mode == PM_FUSE_ONE) {
			pt->err = fr_map(s->fr, first + i, false, &m);
			if (pt->err)
				break;
			fr_unpin(m);
		} else {
			pt->err = dc_map(inode, (first + i) << BENCH_SHIFT, 0, &pin);
			if (pt->err)
				break;
			dc_unpin(&pin);
		}
	}
	if (pt->err)
		pr_err("parmiss %s: map: %d\n", pm_name[s->mode], pt->err);
	pt->ops = i;
	pt->ns = ktime_get_ns() - start;
	dc_thread_unregister();
	kthread_complete_and_exit(&pt->done, 0);
}

/* Fresh inodes for a slice of @s->mode; dropped by pm_inodes_put(). */
static int pm_inodes_get(struct pm_slice *s)
{
	unsigned int i, n = s->mode == PM_DC_OWN ? s->nthreads : 1;
	int ret;

	if (s->mode == PM_FUSE_ONE) {
		s->fr = fr_inode_create(s->win);
		return s->fr ? 0 : -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ret = dc_inode_get(s->cache, ++s->next_ino, &s->dc[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void pm_inodes_put(struct pm_slice *s)
{
	unsigned int i;

	fr_inode_destroy(s->fr);
	s->fr = NULL;
	for (i = 0; i < MAX_THREADS; i++) {
		dc_inode_put(s->dc[i]);
		s->dc[i] = NULL;
	}
}

static void *pm_thread_arg(void *base, unsigned int i)
{
	return (struct pm_thread *)base + i;
}

/* One slice of @mode with @n threads; adds the misses and the longest time. */
static int pm_slice_run(struct pm_slice *s, enum pm_mode mode, unsigned int n,
			u64 *ops, u64 *ns)
{
	struct pm_thread *pt;
	unsigned int i, started = 0;
	u64 longest = 0;
	int ret;

	pt = kcalloc(n, sizeof(*pt), GFP_KERNEL);
	if (!pt)
		return -ENOMEM;
	s->mode = mode;
	s->nthreads = n;
	atomic_set(&s->ready, 0);
	for (i = 0; i < n; i++) {
		pt[i].s = s;
		pt[i].k = i;
		init_completion(&pt[i].done);
	}
	ret = pm_inodes_get(s);
	if (!ret)
		started = bench_kthreads_start(n, pm_thread_main, pm_thread_arg, pt,
					       "dc_pm", &ret);
	atomic_add(n - started, &s->ready);
	for (i = 0; i < started; i++) {
		wait_for_completion(&pt[i].done);
		if (pt[i].err && !ret)
			ret = pt[i].err;
		*ops += pt[i].ops;
		longest = max(longest, pt[i].ns);
	}
	*ns += longest;
	pm_inodes_put(s);
	kfree(pt);
	return ret;
}

/* Misses per second, whole. */
static u64 pm_rate(u64 ops, u64 ns)
{
	return ns ? div64_u64(ops * NSEC_PER_SEC, ns) : 0;
}

static int pm_cell(struct pm_slice *s, unsigned int n)
{
	u64 ops[NR_PM_MODES] = { 0 }, ns[NR_PM_MODES] = { 0 }, rate[NR_PM_MODES];
	char one_own[24], dc_fuse[24];
	unsigned int r, m, mode;
	int ret;

	for (r = 0; r < rounds; r++) {
		for (m = 0; m < NR_PM_MODES; m++) {
			/* Each round starts with another of the three. */
			mode = (m + r) % NR_PM_MODES;
			ret = pm_slice_run(s, mode, n, &ops[mode], &ns[mode]);
			if (ret)
				return ret;
		}
	}
	for (m = 0; m < NR_PM_MODES; m++)
		rate[m] = pm_rate(ops[m], ns[m]);
	fmt_ratio(one_own, sizeof(one_own), rate[PM_DC_ONE], rate[PM_DC_OWN], 100);
	fmt_ratio(dc_fuse, sizeof(dc_fuse), rate[PM_DC_ONE], rate[PM_FUSE_ONE], 100);
	pr_info("parmiss threads=%u setup_us=%u dc_one=%llu dc_own=%llu fuse_one=%llu one/own=%s dc/fuse=%s\n",
		n, parmiss_us, rate[PM_DC_ONE], rate[PM_DC_OWN],
		rate[PM_FUSE_ONE], one_own, dc_fuse);
	return 0;
}

/* The cells for 1, 2, 4... threads, up to one per CPU. */
static int pm_cells(unsigned int ncpus)
{
	struct dc_cache_config cfg;
	struct dc_cache_stats st;
	struct pm_slice *s;
	unsigned int n;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	dc_cache_config_init(&cfg, sizeof(cfg), (u64)(MAX_THREADS * PM_BLOCK) << BENCH_SHIFT);
	cfg.range_shift = BENCH_SHIFT;
	ret = dc_cache_create(&cfg, sizeof(cfg), &pm_ops, sizeof(pm_ops), NULL, &s->cache);
	if (ret)
		goto out;
	s->win = fr_window_create(MAX_THREADS * PM_BLOCK);
	if (!s->win) {
		ret = -ENOMEM;
		goto out;
	}
	fr_window_set_setup(s->win, pm_sleep);
	for (n = 1; !ret && n <= ncpus; n *= 2)
		ret = pm_cell(s, n);
	if (!ret)
		ret = dc_cache_stats(s->cache, &st, sizeof(st));
	/* Only misses, and nobody waited: no two threads miss one index. */
	if (!ret && (st.hits || st.waits || st.inline_reclaims || st.bg_reclaims)) {
		pr_err("parmiss cache: hits %llu waits %llu inline reclaims %llu bg reclaims %llu\n",
		       st.hits, st.waits, st.inline_reclaims, st.bg_reclaims);
		ret = -EIO;
	}
out:
	if (s->cache && dc_cache_destroy(s->cache))
		ret = ret ? : -EBUSY;
	fr_window_destroy(s->win);
	kfree(s);
	return ret;
}

static int __init daxcache_bench_init(void)
{
	unsigned int ncpus = min_t(unsigned int, num_online_cpus(), MAX_THREADS);
	unsigned int miss_ranges = 4 * MISS_ROUND * ncpus, n;
	struct fr_window *hit_win = NULL, *whit_win = NULL;
	struct dc_cache *hit_cache = NULL, *whit_cache = NULL;
	struct bench_slice *s;
	bool busy;
	int ret;

	if (!slice_ms || !rounds)
		return -EINVAL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	dc_thread_register();
	pr_info("cpus=%u slice_ms=%u rounds=%u hit_ranges=%u miss_round=%u range_shift=%u\n",
		num_online_cpus(), slice_ms, rounds, HIT_RANGES, MISS_ROUND,
		BENCH_SHIFT);
	ret = bench_cache_new(4 * HIT_RANGES, &hit_cache);
	/* Its own cache: its counters then say the whit cells only hit. */
	if (!ret)
		ret = bench_cache_new(4 * HIT_RANGES, &whit_cache);
	if (!ret)
		ret = bench_cache_new(miss_ranges, &s->cache);
	if (ret)
		goto out;
	hit_win = fr_window_create(4 * HIT_RANGES);
	whit_win = fr_window_create(4 * HIT_RANGES);
	s->fr_win = fr_window_create(miss_ranges);
	if (!hit_win || !whit_win || !s->fr_win) {
		ret = -ENOMEM;
		goto out;
	}
	ret = bench_hit_setup(hit_cache, hit_win, false, &s->dc_hit, &s->fr_hit);
	if (!ret)
		ret = bench_hit_setup(whit_cache, whit_win, true, &s->dc_whit,
				      &s->fr_whit);
	for (n = 1; !ret && n <= ncpus; n++)
		ret = bench_cell(s, PATH_HIT, n);
	for (n = 1; !ret && n <= ncpus; n++)
		ret = bench_cell(s, PATH_WHIT, n);
	for (n = 1; !ret && n <= ncpus; n++)
		ret = bench_cell(s, PATH_MISS, n);
	if (!ret)
		ret = bench_check(hit_cache, "hit", s->dc_ops[PATH_HIT], HIT_RANGES);
	if (!ret)
		ret = bench_check(whit_cache, "whit", s->dc_ops[PATH_WHIT],
				  HIT_RANGES);
	if (!ret)
		ret = bench_check(s->cache, "miss", 0, s->dc_ops[PATH_MISS]);
	if (!ret && parmiss_us)
		ret = pm_cells(ncpus);
out:
	fr_inode_destroy(s->fr_hit);
	fr_inode_destroy(s->fr_whit);
	dc_inode_put(s->dc_hit);
	dc_inode_put(s->dc_whit);
	/* Every cache, even after one that is still busy. */
	busy = dc_cache_destroy(hit_cache) != 0;
	busy |= dc_cache_destroy(whit_cache) != 0;
	busy |= dc_cache_destroy(s->cache) != 0;
	if (busy)
		ret = ret ? : -EBUSY;
	fr_window_destroy(hit_win);
	fr_window_destroy(whit_win);
	fr_window_destroy(s->fr_win);
	dc_thread_unregister();
	kfree(s);
	if (ret) {
		pr_err("failed: %d\n", ret);
		return ret < 0 ? ret : -EIO;
	}
	pr_info("done\n");
	/* Nothing stays loaded: the results are in the log. */
	return 0;
}

static void __exit daxcache_bench_exit(void)
{
}

module_init(daxcache_bench_init);
module_exit(daxcache_bench_exit);

MODULE_DESCRIPTION("libdaxcache: in-kernel benchmark against fs/fuse/dax.c's approach");
MODULE_LICENSE("GPL");
DCI_IMPORT_NS(DAXCACHE);
