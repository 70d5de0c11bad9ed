// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxsim_run.c - measuring a group of points that differ only in policy
 * (one workload, thread count and ratio).  Each policy gets a cell: a cache
 * over its own simulation backend and its reader states.  Every cell warms
 * up (one pass over the file's pages, or the warm-up time), then the
 * measured time is cut into slices of about DSIM_SLICE_S (at least
 * DSIM_SLICES), and slice s runs the cells in the order s, s+1, ... so that
 * a burst of outside load lands on every policy alike: the shorter the
 * slices, the more evenly a busy machine's load is shared.  Each slice's
 * IOPS and p99 are kept in round order: for a median that a few slices
 * under a burst cannot move, and for each pair of policies the median
 * over the rounds of the ratio of their two slices of a round, with a 95%
 * confidence interval (struct dsim_point @vs, @p99_vs).  Each access is
 * timed into a latency histogram.  A write (rw75) through
 * the window maps with DC_MAP_WRITE and dirties the range (the backend
 * then owes a writeback, a round trip, before the range is reclaimed); a
 * write without the window costs a round trip, as a read does.  The pages
 * of a many-files workload go to one inode per file; a shift workload
 * moves its hot set before the middle slice.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#endif
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <daxcache/cache.h>
#include <daxcache/simbe.h>
#include <daxcache/thread.h>

#include "../common/lat_hist.h"
#include "../common/stats.h"
#include "daxsim.h"

#define DSIM_INO	1
#define DSIM_SLICES	5
#define DSIM_SLICE_S	0.02
#define DSIM_SLICES_MAX	1000

struct cell;

/* One reader: its generator and what it measured, kept across slices. */
struct reader {
	pthread_t tid;
	unsigned int id;
	struct cell *cell;
	struct dsim_gen gen;
	struct lat_hist hist;
	char *buf;
	uint64_t ops;
	uint64_t warm_ops;
	uint64_t writes;
	uint64_t bypasses;
	uint64_t errors;
	uint64_t rt_ns;
	uint64_t rts;
	uint64_t rts_over;	/* round trips more than DSIM_DRIFT_PCT over */
	uint64_t ns;		/* measured time, all slices */
	uint64_t cpu_ns;	/* CPU time it got meanwhile */
	uint64_t preempted;
};

/* The counters a cell sums over its measured slices. */
struct counts {
	uint64_t hits;
	uint64_t setups, setup_ns, setups_over;
	uint64_t removes, remove_ns, removes_over;
	uint64_t removes_sent;
	uint64_t writebacks;
	uint64_t inline_reclaims, bg_reclaims;
	uint64_t waits;
	uint64_t bypasses, bypass_full, bypass_busy, admits_contested;
};

/* One policy of the group. */
struct cell {
	const struct dsim_params *p;
	struct dsim_point *pt;
	struct dc_simbe *be;		/* NULL for nodax */
	struct dc_cache *cache;
	struct dc_inode *inode[DSIM_FILES];	/* one per file of the workload */
	unsigned int nr_inodes;
	unsigned int map_flags;
	char *mem;
	struct reader *rd;
	struct counts sum;
	double *slice_iops;		/* each measured slice's IOPS */
	double *slice_p99;		/* and its p99 latency, in ns */
	struct lat_hist *hsum;		/* all readers' latencies so far */
	struct lat_hist *hprev;		/* hsum at the end of the last slice */
	unsigned int nr_slices;
	struct dc_backend_ops ops;	/* simbe's, timed call by call */
	uint64_t over_ns;		/* a round trip longer than this overran */
	uint64_t setups_over;		/* timed calls that overran (atomic) */
	uint64_t removes_over;
	uint64_t anomalies;
	unsigned int in_host;		/* round trips being served (atomic) */
	unsigned int host_max;		/* the most at once (atomic) */
	/* The current run of the readers: */
	bool warming;
	uint64_t deadline;		/* warm-up only */
	pthread_barrier_t go;
	int stop;
	int first_error;
};

static uint64_t thread_preemptions(void)
{
	uint64_t preempted, slept;

	bench_thread_switches(&preempted, &slept);
	return preempted;
}

/*
 * A host that serves one round trip at a time: a call waits here for the
 * ones ahead of it, and its round trip is timed from when it is served.
 */
static pthread_mutex_t serial_host = PTHREAD_MUTEX_INITIALIZER;

static void host_enter(struct cell *cl)
{
	unsigned int n, max;

	if (cl->p->serial_host)
		pthread_mutex_lock(&serial_host);
	n = __atomic_add_fetch(&cl->in_host, 1, __ATOMIC_RELAXED);
	max = __atomic_load_n(&cl->host_max, __ATOMIC_RELAXED);
	while (n > max &&
	       !__atomic_compare_exchange_n(&cl->host_max, &max, n, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void host_leave(struct cell *cl)
{
	__atomic_sub_fetch(&cl->in_host, 1, __ATOMIC_RELAXED);
	if (cl->p->serial_host)
		pthread_mutex_unlock(&serial_host);
}

/* An access without the window: one round trip, then the copy. */
static void read_direct(struct reader *r, uint64_t page, bool write)
{
	uint64_t s, e;

	host_enter(r->cell);
	s = bench_now_ns();
	dsim_spin_until(s + r->cell->p->rt_ns);
	e = bench_now_ns();
	host_leave(r->cell);
	r->rt_ns += e - s;
	r->rts++;
	if (e - s > r->cell->over_ns)
		r->rts_over++;
	if (write)
		memcpy(r->cell->mem + (page << DSIM_PAGE_SHIFT), r->buf, DSIM_PAGE_SIZE);
	else
		memcpy(r->buf, r->cell->mem + (page << DSIM_PAGE_SHIFT), DSIM_PAGE_SIZE);
}

static void read_page(struct reader *r, uint64_t page)
{
	struct cell *cl = r->cell;
	bool write = r->gen.write;
	unsigned int file;
	uint64_t off;
	struct dc_pin pin;
	int ret, zero = 0;

	r->writes += write;
	if (!cl->cache) {
		read_direct(r, page, write);
	} else {
		dsim_gen_file(&r->gen, page, &file, &off);
		off <<= DSIM_PAGE_SHIFT;
		ret = dc_map(cl->inode[file], off, cl->map_flags | (write ? DC_MAP_WRITE : 0),
			     &pin);
		if (ret == 0 && write) {
			/* A write through the window: the range is dirty now. */
			memcpy(cl->mem + pin.win_off, r->buf, DSIM_PAGE_SIZE);
			ret = dc_simbe_write(cl->be, pin.win_off, DSIM_INO + file, off);
			dc_unpin(&pin);
			if (ret) {
				r->errors++;
				__atomic_compare_exchange_n(&cl->first_error, &zero, ret, false,
							    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			}
		} else if (ret == 0) {
			/* A DAX hit: copy from the window. */
			memcpy(r->buf, cl->mem + pin.win_off, DSIM_PAGE_SIZE);
			dc_unpin(&pin);
		} else if (ret == DC_MAP_BYPASS) {
			r->bypasses++;
			read_direct(r, page, write);
		} else {
			r->errors++;
			__atomic_compare_exchange_n(&cl->first_error, &zero, ret, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		}
	}
	/* The copy must happen: its destination escapes. */
	__asm__ __volatile__("" : : "r"(r->buf) : "memory");
}

static void warm(struct reader *r)
{
	struct cell *cl = r->cell;
	uint64_t pass = cl->p->file_pages / cl->pt->threads;

	while (r->warm_ops < pass &&
	       ((r->warm_ops & 63) || bench_now_ns() < cl->deadline)) {
		read_page(r, dsim_gen_next(&r->gen));
		r->warm_ops++;
	}
	/* Only measured reads count (errors do, always). */
	r->bypasses = 0;
	r->writes = 0;
	r->rt_ns = 0;
	r->rts = 0;
	r->rts_over = 0;
}

static void measure(struct reader *r)
{
	struct cell *cl = r->cell;
	uint64_t t0, t, t2, cpu0;
	uint64_t pre0;

	pre0 = thread_preemptions();
	cpu0 = bench_cpu_ns();
	t0 = bench_now_ns();
	t = t0;
	while (!__atomic_load_n(&cl->stop, __ATOMIC_RELAXED)) {
		read_page(r, dsim_gen_next(&r->gen));
		t2 = bench_now_ns();
		lat_hist_add(&r->hist, t2 - t);
		r->ops++;
		t = t2;
	}
	r->ns += t - t0;
	r->cpu_ns += bench_cpu_ns() - cpu0;
	r->preempted += thread_preemptions() - pre0;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	dc_thread_register();
	pthread_barrier_wait(&r->cell->go);
	if (r->cell->warming)
		warm(r);
	else
		measure(r);
	dc_thread_unregister();
	return NULL;
}

/* The backend's own checks: anything here is a cache bug. */
static uint64_t simbe_anomalies(const struct dc_simbe_stats *s)
{
	return s->remove_mismatches + s->remove_unmapped + s->writeback_mismatches +
	       s->lost_writes + s->overlaps + s->bad_calls + s->tag_failures +
	       s->gate_timeouts;
}

static void read_counts(struct cell *cl, struct counts *c)
{
	struct dc_cache_stats cs;
	struct dc_simbe_stats bs;

	memset(c, 0, sizeof(*c));
	if (!cl->cache)
		return;
	memset(&cs, 0, sizeof(cs));
	memset(&bs, 0, sizeof(bs));
	dc_cache_stats(cl->cache, &cs, sizeof(cs));
	dc_simbe_stats(cl->be, &bs, sizeof(bs));
	c->hits = cs.hits;
	c->setups = bs.calls[DC_SIMBE_SETUP];
	c->setups_over = __atomic_load_n(&cl->setups_over, __ATOMIC_RELAXED);
	c->removes_over = __atomic_load_n(&cl->removes_over, __ATOMIC_RELAXED);
	c->setup_ns = bs.total_ns[DC_SIMBE_SETUP];
	c->removes = bs.calls[DC_SIMBE_REMOVE];
	c->remove_ns = bs.total_ns[DC_SIMBE_REMOVE];
	c->removes_sent = cs.removes_sent;
	c->writebacks = bs.calls[DC_SIMBE_WRITEBACK];
	c->inline_reclaims = cs.inline_reclaims;
	c->bg_reclaims = cs.bg_reclaims;
	c->waits = cs.waits;
	c->bypasses = cs.bypasses;
	c->bypass_full = cs.bypass_full;
	c->bypass_busy = cs.bypass_busy;
	c->admits_contested = cs.admits_contested;
	cl->anomalies = simbe_anomalies(&bs);
}

static void add_delta(struct counts *sum, const struct counts *a,
		      const struct counts *b)
{
	sum->hits += b->hits - a->hits;
	sum->setups += b->setups - a->setups;
	sum->setups_over += b->setups_over - a->setups_over;
	sum->removes_over += b->removes_over - a->removes_over;
	sum->setup_ns += b->setup_ns - a->setup_ns;
	sum->removes += b->removes - a->removes;
	sum->remove_ns += b->remove_ns - a->remove_ns;
	sum->removes_sent += b->removes_sent - a->removes_sent;
	sum->writebacks += b->writebacks - a->writebacks;
	sum->inline_reclaims += b->inline_reclaims - a->inline_reclaims;
	sum->bg_reclaims += b->bg_reclaims - a->bg_reclaims;
	sum->waits += b->waits - a->waits;
	sum->bypasses += b->bypasses - a->bypasses;
	sum->bypass_full += b->bypass_full - a->bypass_full;
	sum->bypass_busy += b->bypass_busy - a->bypass_busy;
	sum->admits_contested += b->admits_contested - a->admits_contested;
}

static void sleep_s(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	/* nanosleep() answers -1 with errno EINTR when a signal cut it short. */
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * The p99 latency of the slice that just ended: the readers' histograms
 * now, less what they held at the end of the last slice (0: no reads).
 */
static double slice_p99(struct cell *cl)
{
	struct lat_hist *now = cl->hsum, *prev = cl->hprev;
	unsigned int i, b;
	double v;

	memset(now, 0, sizeof(*now));
	for (i = 0; i < cl->pt->threads; i++)
		lat_hist_merge(now, &cl->rd[i].hist);
	/* prev becomes the slice's own counts (its max: the run's so far). */
	for (b = 0; b < LAT_HIST_BUCKETS; b++)
		prev->count[b] = now->count[b] - prev->count[b];
	prev->n = now->n - prev->n;
	prev->max = now->max;
	v = (double)lat_hist_percentile(prev, 99.0);
	*prev = *now;
	return v;
}

/* Run the cell's readers once: a warm-up, or a measured slice of @secs. */
static void run_cell(struct cell *cl, bool warming, double secs)
{
	unsigned int i, n = cl->pt->threads;
	uint64_t ops0[DSIM_MAX_THREADS], ns0[DSIM_MAX_THREADS], ops = 0, ns = 0;
	struct counts a, b;
	int ret;

	for (i = 0; i < n; i++) {
		ops0[i] = cl->rd[i].ops;
		ns0[i] = cl->rd[i].ns;
	}
	cl->warming = warming;
	cl->stop = 0;
	cl->deadline = bench_now_ns() + (uint64_t)(cl->p->warm_s * 1e9);
	pthread_barrier_init(&cl->go, NULL, n + 1);
	for (i = 0; i < n; i++) {
		ret = pthread_create(&cl->rd[i].tid, NULL, reader_main, &cl->rd[i]);
		if (ret) {
			/* The barrier counts every reader: no way to go on. */
			fprintf(stderr, "daxsim: starting a reader: %s\n", strerror(ret));
			exit(1);
		}
	}
	read_counts(cl, &a);
	pthread_barrier_wait(&cl->go);
	if (!warming) {
		sleep_s(secs);
		__atomic_store_n(&cl->stop, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < n; i++)
		pthread_join(cl->rd[i].tid, NULL);
	pthread_barrier_destroy(&cl->go);
	if (!warming) {
		read_counts(cl, &b);
		add_delta(&cl->sum, &a, &b);
		/* This slice's IOPS: all reads over the longest reader's time. */
		for (i = 0; i < n; i++) {
			ops += cl->rd[i].ops - ops0[i];
			if (cl->rd[i].ns - ns0[i] > ns)
				ns = cl->rd[i].ns - ns0[i];
		}
		/* In round order (0: no time measured), for the paired ratios. */
		if (cl->slice_iops) {
			cl->slice_p99[cl->nr_slices] = slice_p99(cl);
			cl->slice_iops[cl->nr_slices++] = ns ? (double)ops * 1e9 / (double)ns :
							       0.0;
		}
	}
}

/*
 * The simbe ops, each call timed as the cache sees it, to count those that
 * overran the round trip (simbe only sums the time).
 */
static void count_call(struct cell *cl, uint64_t *over, uint64_t t0)
{
	if (bench_now_ns() - t0 > cl->over_ns)
		__atomic_fetch_add(over, 1, __ATOMIC_RELAXED);
}

static int timed_setup(void *priv, uint64_t ino, uint64_t file_off,
		       uint64_t win_off, uint64_t len, unsigned int flags)
{
	struct cell *cl = priv;
	uint64_t t0;
	int ret;

	host_enter(cl);
	t0 = bench_now_ns();
	ret = dc_simbe_ops()->setup(cl->be, ino, file_off, win_off, len, flags);
	count_call(cl, &cl->setups_over, t0);
	host_leave(cl);
	return ret;
}

static int timed_remove(void *priv, const struct dc_remove_entry *e,
			unsigned int n)
{
	struct cell *cl = priv;
	uint64_t t0;
	int ret;

	host_enter(cl);
	t0 = bench_now_ns();
	ret = dc_simbe_ops()->remove(cl->be, e, n);
	count_call(cl, &cl->removes_over, t0);
	host_leave(cl);
	return ret;
}

static int timed_writeback(void *priv, uint64_t ino, uint64_t file_off,
			   uint64_t len, uint64_t win_off)
{
	struct cell *cl = priv;
	int ret;

	host_enter(cl);
	ret = dc_simbe_ops()->writeback(cl->be, ino, file_off, len, win_off);
	host_leave(cl);
	return ret;
}

static int cell_create(const struct dsim_params *p, struct dsim_point *pt,
		       char *mem, struct cell *cl)
{
	uint64_t wsize = pt->window_ranges << DSIM_RANGE_SHIFT;
	struct dc_simbe_config bcfg;
	struct dc_cache_config cfg;
	unsigned int i;
	int ret;

	memset(cl, 0, sizeof(*cl));
	cl->p = p;
	cl->pt = pt;
	cl->mem = mem;
	cl->over_ns = p->rt_ns + (uint64_t)((double)p->rt_ns * DSIM_DRIFT_PCT / 100.0);
	cl->rd = calloc(pt->threads, sizeof(*cl->rd));
	if (!cl->rd)
		return -ENOMEM;
	for (i = 0; i < pt->threads; i++) {
		cl->rd[i].id = i;
		cl->rd[i].cell = cl;
		cl->rd[i].buf = aligned_alloc(DSIM_PAGE_SIZE, DSIM_PAGE_SIZE);
		if (!cl->rd[i].buf)
			return -ENOMEM;
		ret = dsim_gen_init(&cl->rd[i].gen, pt->wl, p->file_pages, i,
				    pt->threads, p->seed);
		if (ret)
			return ret;
	}
	if (pt->policy == DSIM_NODAX)
		return 0;
	dc_simbe_config_init(&bcfg, sizeof(bcfg), wsize);
	bcfg.range_shift = DSIM_RANGE_SHIFT;
	bcfg.latency_ns[DC_SIMBE_SETUP] = p->rt_ns;
	bcfg.latency_ns[DC_SIMBE_REMOVE] = p->rt_ns;
	bcfg.latency_ns[DC_SIMBE_WRITEBACK] = p->rt_ns;
	ret = dc_simbe_create(&bcfg, sizeof(bcfg), &cl->be);
	if (ret) {
		fprintf(stderr, "daxsim: dc_simbe_create: %d\n", ret);
		return ret;
	}
	dc_cache_config_init(&cfg, sizeof(cfg), wsize);
	cfg.range_shift = DSIM_RANGE_SHIFT;
	dsim_policy_config(&cfg, pt->policy, &cl->map_flags);
	cl->ops = *dc_simbe_ops();
	cl->ops.setup = timed_setup;
	cl->ops.remove = timed_remove;
	cl->ops.writeback = timed_writeback;
	ret = dc_cache_create(&cfg, sizeof(cfg), &cl->ops, sizeof(cl->ops), cl, &cl->cache);
	if (ret) {
		fprintf(stderr, "daxsim: dc_cache_create: %d\n", ret);
		return ret;
	}
	for (i = 0; i < cl->rd[0].gen.nr_files; i++) {
		ret = dc_inode_get(cl->cache, DSIM_INO + i, &cl->inode[i]);
		if (ret) {
			fprintf(stderr, "daxsim: dc_inode_get: %d\n", ret);
			return ret;
		}
		cl->nr_inodes++;
	}
	return 0;
}

static void cell_destroy(struct cell *cl)
{
	unsigned int i;

	for (i = 0; i < cl->nr_inodes; i++)
		dc_inode_put(cl->inode[i]);
	if (cl->cache)
		dc_cache_destroy(cl->cache);
	if (cl->be)
		dc_simbe_destroy(cl->be);
	if (cl->rd) {
		for (i = 0; i < cl->pt->threads; i++) {
			dsim_gen_fini(&cl->rd[i].gen);
			free(cl->rd[i].buf);
		}
	}
	free(cl->rd);
	free(cl->slice_iops);
	free(cl->slice_p99);
	free(cl->hsum);
	free(cl->hprev);
	memset(cl, 0, sizeof(*cl));
}

static double per_kop(uint64_t n, uint64_t ops)
{
	return ops ? 1000.0 * (double)n / (double)ops : 0.0;
}

/* Percent of @n calls that did not overrun, @over of them did. */
static double within_pct(uint64_t over, uint64_t n)
{
	return n ? 100.0 * (double)(n - (over < n ? over : n)) / (double)n : 0.0;
}

static double mean_ns(uint64_t total, uint64_t n)
{
	return n ? (double)total / (double)n : 0.0;
}

/* The median of the slices' IOPS > 0 of @cl, in a copy (the order stays). */
static double slices_median(const struct cell *cl)
{
	double *v = calloc(cl->nr_slices ? cl->nr_slices : 1, sizeof(*v));
	unsigned int i, k = 0;
	double m;

	if (!v)
		return 0.0;
	for (i = 0; i < cl->nr_slices; i++)
		if (cl->slice_iops[i] > 0)
			v[k++] = cl->slice_iops[i];
	m = bench_median(v, k);
	free(v);
	return m;
}

/* @a's point against @b's: IOPS and p99 paired by round. */
static void pair_cells(const struct cell *a, const struct cell *b)
{
	unsigned int n = a->nr_slices < b->nr_slices ? a->nr_slices : b->nr_slices;
	struct dsim_point *pt = a->pt;
	enum dsim_policy k = b->pt->policy;

	bench_paired_median(a->slice_iops, b->slice_iops, n, &pt->vs[k], &pt->vs_lo[k],
		      &pt->vs_hi[k]);
	bench_paired_median(a->slice_p99, b->slice_p99, n, &pt->p99_vs[k], &pt->p99_vs_lo[k],
		      &pt->p99_vs_hi[k]);
}

/* Fill the cell's point from its readers and summed counters. */
static void collect(struct cell *cl)
{
	struct dsim_point *pt = cl->pt;
	uint64_t ns = 0, byp = 0, rt_ns = 0, rts = 0, wall = 0, cpu = 0, over = 0, wr = 0;
	const struct counts *s = &cl->sum;
	struct lat_hist *h;
	unsigned int i;

	h = calloc(1, sizeof(*h));
	for (i = 0; i < pt->threads; i++) {
		struct reader *r = &cl->rd[i];

		if (h)
			lat_hist_merge(h, &r->hist);
		pt->ops += r->ops;
		pt->warm_ops += r->warm_ops;
		pt->errors += r->errors;
		pt->preempted += r->preempted;
		byp += r->bypasses;
		wr += r->writes;
		rt_ns += r->rt_ns;
		rts += r->rts;
		over += r->rts_over;
		wall += r->ns;
		cpu += r->cpu_ns;
		if (r->ns > ns)
			ns = r->ns;
	}
	pt->host_max_inflight = cl->host_max;
	pt->elapsed_s = (double)ns / 1e9;
	pt->cpu_pct = wall ? 100.0 * (double)cpu / (double)wall : 0.0;
	pt->iops = ns ? (double)pt->ops / pt->elapsed_s : 0.0;
	pt->iops_med = slices_median(cl);
	pt->slices = cl->nr_slices;
	if (h) {
		pt->p50_us = (double)lat_hist_percentile(h, 50.0) / 1000.0;
		pt->p99_us = (double)lat_hist_percentile(h, 99.0) / 1000.0;
		pt->p999_us = (double)lat_hist_percentile(h, 99.9) / 1000.0;
		pt->max_us = (double)h->max / 1000.0;
		free(h);
	}
	pt->hit_ratio = pt->ops ? (double)s->hits / (double)pt->ops : 0.0;
	pt->bypass_ratio = pt->ops ? (double)byp / (double)pt->ops : 0.0;
	pt->setup_calls = s->setups;
	pt->remove_calls = s->removes;
	pt->setups_per_kop = per_kop(s->setups, pt->ops);
	pt->removes_per_kop = per_kop(s->removes, pt->ops);
	pt->remove_entries_per_kop = per_kop(s->removes_sent, pt->ops);
	pt->writebacks_per_kop = per_kop(s->writebacks, pt->ops);
	pt->write_ratio = pt->ops ? (double)wr / (double)pt->ops : 0.0;
	pt->inline_per_kop = per_kop(s->inline_reclaims, pt->ops);
	pt->bg_per_kop = per_kop(s->bg_reclaims, pt->ops);
	pt->waits = s->waits;
	pt->bypass_full_per_kop = per_kop(s->bypass_full, pt->ops);
	pt->bypass_busy_per_kop = per_kop(s->bypass_busy, pt->ops);
	pt->admits_contested_per_kop = per_kop(s->admits_contested, pt->ops);
	pt->setup_ns = mean_ns(s->setup_ns, s->setups);
	pt->remove_ns = mean_ns(s->remove_ns, s->removes);
	pt->read_rts = rts;
	pt->read_rt_ns = mean_ns(rt_ns, rts);
	pt->setup_ok_pct = within_pct(s->setups_over, s->setups);
	pt->remove_ok_pct = within_pct(s->removes_over, s->removes);
	pt->read_rt_ok_pct = within_pct(over, rts);
	if (cl->first_error)
		fprintf(stderr, "FAIL: %s %u thr %s ratio %g: %llu dc_map() errors, first %d\n",
			dsim_wl_name(pt->wl), pt->threads, dsim_policy_name(pt->policy),
			pt->ratio, (unsigned long long)pt->errors, cl->first_error);
	/* The library's count of DC_MAP_BYPASS answers must be ours. */
	if (s->bypasses != byp) {
		fprintf(stderr, "FAIL: %s %u thr %s ratio %g: dc_cache_stats() counts %llu "
			"bypasses, the readers got %llu\n", dsim_wl_name(pt->wl),
			pt->threads, dsim_policy_name(pt->policy), pt->ratio,
			(unsigned long long)s->bypasses, (unsigned long long)byp);
		pt->errors++;
	}
	if (cl->anomalies) {
		fprintf(stderr, "FAIL: %s %u thr %s ratio %g: the backend saw %llu bad calls\n",
			dsim_wl_name(pt->wl), pt->threads, dsim_policy_name(pt->policy),
			pt->ratio, (unsigned long long)cl->anomalies);
		pt->errors += cl->anomalies;
	}
}

int dsim_run_group(const struct dsim_params *p, struct dsim_point *pts,
		   unsigned int n)
{
	uint64_t bytes, file_bytes = p->file_pages << DSIM_PAGE_SHIFT;
	struct cell *cells;
	unsigned int i, s, k, slices;
	char *mem;
	int ret = 0;

	if (!n)
		return 0;
	slices = DSIM_SLICES;
	if (p->time_s / DSIM_SLICE_S > slices)
		slices = p->time_s / DSIM_SLICE_S > DSIM_SLICES_MAX ? DSIM_SLICES_MAX :
			 (unsigned int)(p->time_s / DSIM_SLICE_S);
	for (i = 0; i < n; i++)
		pts[i].window_ranges = dsim_window_ranges(p, pts[i].ratio);
	bytes = pts[0].window_ranges << DSIM_RANGE_SHIFT;
	mem = dsim_mem_prepare(bytes > file_bytes ? bytes : file_bytes);
	if (!mem)
		return -ENOMEM;
	cells = calloc(n, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		ret = cell_create(p, &pts[i], mem, &cells[i]);
		if (!ret) {
			cells[i].slice_iops = calloc(slices, sizeof(double));
			cells[i].slice_p99 = calloc(slices, sizeof(double));
			cells[i].hsum = calloc(1, sizeof(*cells[i].hsum));
			cells[i].hprev = calloc(1, sizeof(*cells[i].hprev));
			if (!cells[i].slice_iops || !cells[i].slice_p99 || !cells[i].hsum ||
			    !cells[i].hprev)
				ret = -ENOMEM;
		}
	}
	if (!ret) {
		for (i = 0; i < n; i++)
			run_cell(&cells[i], true, 0.0);
		for (s = 0; s < slices; s++) {
			/* A shift workload moves its hot set midway. */
			if (s == slices / 2)
				for (i = 0; i < n; i++)
					for (k = 0; k < pts[i].threads; k++)
						dsim_gen_shift(&cells[i].rd[k].gen);
			for (i = 0; i < n; i++)
				run_cell(&cells[(s + i) % n], false,
					 p->time_s / slices);
		}
		for (i = 0; i < n; i++)
			collect(&cells[i]);
		for (i = 0; i < n; i++)
			for (k = 0; k < n; k++)
				pair_cells(&cells[i], &cells[k]);
	}
	for (i = 0; i < n; i++)
		if (cells[i].pt)
			cell_destroy(&cells[i]);
	free(cells);
	return ret;
}
