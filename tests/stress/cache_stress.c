// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cache_stress.c - threads hammer a DAX window cache over the simulation
 * backend while backend calls fail now and then, and a checker verifies the
 * invariants between phases.
 *
 * For each window size (1, 2, 4 and 64 ranges) a cache runs phases, clean
 * ones (random small latencies, no failures) and faulty ones (setup, remove
 * and writeback fail with -EIO at low rates).  In a phase every thread maps
 * (read or write, sometimes NOWAIT), reads through its pin and checks that
 * the backend maps exactly the inode and file range it asked for there and
 * that the content (the tag) is that range's, writes through writable pins,
 * punches holes, evicts its private inodes and takes extra references.
 * After each phase the threads stop and the checker verifies, with the
 * cache quiet: free + mapped == ranges; every mapping reachable through an
 * inode (mapping it again) is what the backend holds at that window range;
 * no window range is reachable from two file ranges; every mapped range is
 * reachable; and the backend saw no overlapping calls, no malformed calls,
 * no remove of something else, no failed tag check, and (in clean phases)
 * no lost write.
 *
 * Usage: cache_stress [-t seconds] [-j threads] [-s seed] [-v]
 * Defaults: 3 s in all (or DC_STRESS_SECONDS), 4 threads, seed from the
 * clock (or DC_STRESS_SEED).  Exit status 0 when no violation was found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <daxcache/cache.h>
#include <daxcache/log.h>
#include <daxcache/simbe.h>
#include <daxcache/thread.h>

#include "../cases/sim_env.h"

#define NSHARED		6u		/* inode ids 1..NSHARED, held by main */
#define NPRIV		2u		/* private inodes per thread */
#define NIDX		16u		/* file ranges used per inode */
#define MAX_THREADS	64u
#define PHASES		4u		/* per window: clean, faulty, clean, faulty */
#define CLEAN_TIMEOUT_NS (300ull * 1000000000ull)	/* bounds: only a hang reaches them */
#define FAULT_TIMEOUT_NS (50ull * 1000000ull)
#define SETTLE_NS	(300ull * 1000000000ull)

static const unsigned int window_sizes[] = { 1, 2, 4, 64 };

struct world {
	struct dc_simbe *be;
	struct dc_cache *cache;
	unsigned int nr;
	uint64_t rs;
	struct dc_inode *shared[NSHARED];
	unsigned int threads;
	bool faults;			/* this phase injects failures */
	atomic_bool stop;
};

struct worker {
	struct world *w;
	pthread_t tid;
	unsigned int id;
	uint64_t rng;
	struct dc_inode *priv[NPRIV];
};

/* Totals over the run. */
static atomic_ullong n_ops, n_maps, n_map_eio, n_map_eagain, n_map_timeout;
static atomic_ullong n_punches, n_punch_busy, n_punch_err, n_evictions;
static atomic_ullong n_tag_checks, n_writes, n_violations, n_log_lines;
static bool verbose;

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void violation(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&n_violations, 1) >= 30)
		return;
	fputs("VIOLATION: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void count_log(void *priv, int level, const char *msg)
{
	if (atomic_fetch_add(&n_log_lines, 1) < 5 || verbose)
		fprintf(stderr, "log: %s\n", msg);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return rnd(s) % n;
}

static uint64_t priv_id(unsigned int thread, unsigned int k)
{
	return 100000 + thread * NPRIV + k;
}

/* The pin of @id at @off must show exactly that file range. */
static void check_pin(struct world *w, uint64_t id, uint64_t off,
		      const struct dc_pin *pin, const char *when)
{
	struct dc_simbe_mapping m;
	uint64_t in = off & (w->rs - 1);
	int ret;

	atomic_fetch_add(&n_tag_checks, 1);
	if (pin->win_off >= (uint64_t)w->nr * w->rs ||
	    (pin->win_off & (w->rs - 1)) != in || pin->len != w->rs - in) {
		violation("%s: pin of ino %" PRIu64 " off %#" PRIx64 " has win_off %#" PRIx64 " len %#" PRIx64,
			  when, id, off, pin->win_off, pin->len);
		return;
	}
	ret = dc_simbe_lookup(w->be, pin->win_off, &m, sizeof(m));
	if (ret || m.ino != id || m.file_off != off - in) {
		violation("%s: pin of ino %" PRIu64 " off %#" PRIx64 " at %#" PRIx64 ": backend has %s ino %" PRIu64 " off %#" PRIx64,
			  when, id, off, pin->win_off, ret ? "nothing" : "",
			  ret ? 0 : m.ino, ret ? 0 : m.file_off);
		return;
	}
	if (pin->writable && !(m.flags & DC_MAP_WRITE))
		violation("%s: writable pin on a read-only mapping", when);
	ret = dc_simbe_check_tag(w->be, pin->win_off, id, off);
	if (ret)
		violation("%s: tag check of ino %" PRIu64 " off %#" PRIx64 ": %d",
			  when, id, off, ret);
}

/* A map that should have worked: say what the cache and backend look like. */
static void map_violation(struct world *w, uint64_t id, uint64_t off,
			  unsigned int flags, int ret)
{
	struct dc_cache_stats st;
	struct dc_simbe_mapping m;
	char where[160] = "";
	unsigned int r;
	int len = 0;

	dc_cache_stats(w->cache, &st, sizeof(st));
	for (r = 0; r < w->nr && r < 4; r++) {
		if (dc_simbe_lookup(w->be, r * w->rs, &m, sizeof(m)))
			len += snprintf(where + len, sizeof(where) - len, " [%u: -]", r);
		else
			len += snprintf(where + len, sizeof(where) - len,
					" [%u: ino %" PRIu64 " idx %" PRIu64 "%s]", r, m.ino,
					m.file_off / w->rs, m.flags & DC_MAP_WRITE ? " w" : "");
	}
	violation("dc_map(ino %" PRIu64 ", %#" PRIx64 ", %#x) on %u ranges, %s phase: %d; cache: free %" PRIu64 " mapped %" PRIu64 " waits %" PRIu64 "; backend:%s",
		  id, off, flags, w->nr, w->faults ? "faulty" : "clean", ret,
		  st.nr_free, st.nr_mapped, st.waits, where);
}

static void do_map(struct worker *wk, struct dc_inode *inode, uint64_t id)
{
	struct world *w = wk->w;
	uint64_t idx = below(&wk->rng, NIDX);
	uint64_t off = idx * w->rs + below(&wk->rng, w->rs);
	unsigned int flags = below(&wk->rng, 4) ? 0 : DC_MAP_WRITE;
	struct dc_pin pin;
	int ret;

	if (!below(&wk->rng, 8))
		flags |= DC_MAP_NOWAIT;
	ret = dc_map_timeout(inode, off, flags,
			     w->faults ? FAULT_TIMEOUT_NS : CLEAN_TIMEOUT_NS, &pin);
	atomic_fetch_add(&n_maps, 1);
	if (ret) {
		if (ret == -EAGAIN && (flags & DC_MAP_NOWAIT))
			atomic_fetch_add(&n_map_eagain, 1);
		else if (ret == -EIO && w->faults)
			atomic_fetch_add(&n_map_eio, 1);
		else if (ret == -ETIMEDOUT && w->faults)
			atomic_fetch_add(&n_map_timeout, 1);
		else
			map_violation(w, id, off, flags, ret);
		return;
	}
	check_pin(w, id, off, &pin, "map");
	if (flags & DC_MAP_WRITE) {
		if (!pin.writable)
			violation("write map gave a read-only pin");
		else if ((ret = dc_simbe_write(w->be, pin.win_off, id, off)))
			violation("write through pin: %d", ret);
		else
			atomic_fetch_add(&n_writes, 1);
	}
	/* Sometimes read a while; the mapping must not change meanwhile. */
	if (!below(&wk->rng, 4)) {
		uint64_t end = now_ns() + below(&wk->rng, 20000);

		while (now_ns() < end)
			;
		check_pin(w, id, off, &pin, "before unpin");
	}
	dc_unpin(&pin);
}

/* Two pins at once (only where the window has room for everyone's). */
static void do_double(struct worker *wk)
{
	struct world *w = wk->w;
	unsigned int i = (unsigned int)below(&wk->rng, NSHARED);
	uint64_t a = below(&wk->rng, NIDX), b = (a + 1) % NIDX;
	struct dc_pin pa, pb;
	int ret;

	ret = dc_map_timeout(w->shared[i], a * w->rs, 0,
			     w->faults ? FAULT_TIMEOUT_NS : CLEAN_TIMEOUT_NS, &pa);
	if (ret) {
		if (!w->faults)
			violation("double: first map %d", ret);
		return;
	}
	ret = dc_map_timeout(w->shared[i], b * w->rs + 1, DC_MAP_WRITE,
			     w->faults ? FAULT_TIMEOUT_NS : CLEAN_TIMEOUT_NS, &pb);
	if (!ret) {
		check_pin(w, i + 1, b * w->rs + 1, &pb, "double");
		if (pb.win_off / w->rs == pa.win_off / w->rs)
			violation("two file ranges pinned at one window range");
		dc_unpin(&pb);
	} else if (!w->faults) {
		violation("double: second map %d", ret);
	}
	check_pin(w, i + 1, a * w->rs, &pa, "double");
	dc_unpin(&pa);
}

static void do_punch(struct worker *wk, struct dc_inode *inode)
{
	struct world *w = wk->w;
	uint64_t off = below(&wk->rng, NIDX) * w->rs + below(&wk->rng, w->rs);
	uint64_t len = below(&wk->rng, 4) ? below(&wk->rng, 3 * w->rs) + 1 : UINT64_MAX;
	int ret = dc_inode_punch(inode, off, len);

	atomic_fetch_add(&n_punches, 1);
	if (ret == -EBUSY)
		atomic_fetch_add(&n_punch_busy, 1);
	else if (ret && w->faults)
		atomic_fetch_add(&n_punch_err, 1);
	else if (ret)
		violation("punch: %d", ret);
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct world *w = wk->w;

	dc_thread_register();
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		unsigned int op = (unsigned int)below(&wk->rng, 100);
		unsigned int i = (unsigned int)below(&wk->rng, NSHARED);
		unsigned int k = (unsigned int)below(&wk->rng, NPRIV);
		struct dc_inode *x;
		int ret;

		atomic_fetch_add(&n_ops, 1);
		if (op < 55) {
			do_map(wk, w->shared[i], i + 1);
		} else if (op < 70) {
			do_map(wk, wk->priv[k], priv_id(wk->id, k));
		} else if (op < 76) {
			do_punch(wk, w->shared[i]);
		} else if (op < 80) {
			do_punch(wk, wk->priv[k]);
		} else if (op < 85) {
			/* Evict a private inode and start it again. */
			dc_inode_put(wk->priv[k]);
			wk->priv[k] = NULL;
			atomic_fetch_add(&n_evictions, 1);
			ret = dc_inode_get(w->cache, priv_id(wk->id, k), &wk->priv[k]);
			if (ret) {
				violation("dc_inode_get: %d", ret);
				break;
			}
		} else if (op < 90) {
			/* An extra reference to a shared inode. */
			ret = dc_inode_get(w->cache, i + 1, &x);
			if (ret || x != w->shared[i])
				violation("dc_inode_get of a live inode: %d", ret);
			else
				dc_inode_put(x);
		} else if (op < 95) {
			if (w->nr >= 2 * w->threads)
				do_double(wk);
			else
				do_map(wk, w->shared[i], i + 1);
		} else {
			ret = dc_wait_free(w->cache, 1000000);
			if (ret && ret != -ETIMEDOUT)
				violation("dc_wait_free: %d", ret);
		}
	}
	dc_thread_unregister();
	return NULL;
}

/* Snapshots of the cache's and the backend's counters. */
#define cstats(w)	sim_cache_stats((w)->cache)
#define bstats(w)	sim_be_stats((w)->be)

/*
 * Wait until the reclaimer answered every kick, every range is free or
 * mapped and every remove() returned (the workers have stopped).
 */
static bool settle(struct world *w)
{
	uint64_t end = now_ns() + SETTLE_NS;

	for (;;) {
		struct dc_cache_stats st = cstats(w);
		struct dc_simbe_stats bs = bstats(w);

		if (sim_env_quiet(&st, &bs, true))
			return true;
		if (now_ns() > end) {
			violation("no quiescence: free %" PRIu64 " + mapped %" PRIu64 " of %" PRIu64 ", removes %" PRIu64 "/%" PRIu64,
				  st.nr_free, st.nr_mapped, st.nr_ranges,
				  bs.calls[DC_SIMBE_REMOVE], st.remove_batches);
			return false;
		}
		usleep(1000);
	}
}

struct probe {
	struct dc_inode *inode;
	uint64_t id;
};

/*
 * With the cache quiet: map every file range of every live inode again
 * (without reclaim, keeping the pins so that nothing moves meanwhile).  Each
 * pin must show what it asked for, no window range may come back twice, and
 * the pinned ranges must be all the mapped ones.
 */
static void check_world(struct world *w, struct worker *wks)
{
	unsigned int ninodes = NSHARED + w->threads * NPRIV, n = 0, i, k;
	struct probe *pr = calloc(ninodes, sizeof(*pr));
	struct dc_pin *pins = calloc((size_t)ninodes * NIDX, sizeof(*pins));
	unsigned char *seen = calloc(w->nr, 1);
	unsigned int distinct = 0, npins = 0;
	struct dc_cache_stats st;
	uint64_t end;

	if (!pr || !pins || !seen) {
		violation("checker: out of memory");
		goto out;
	}
	for (i = 0; i < NSHARED; i++)
		pr[n++] = (struct probe){ w->shared[i], i + 1 };
	for (i = 0; i < w->threads; i++)
		for (k = 0; k < NPRIV; k++)
			pr[n++] = (struct probe){ wks[i].priv[k], priv_id(i, k) };
	for (i = 0; i < n; i++) {
		uint64_t idx;

		for (idx = 0; idx < NIDX; idx++) {
			struct dc_pin *p = &pins[npins];
			uint64_t off = idx * w->rs;
			int ret;

			ret = dc_map(pr[i].inode, off,
				     DC_MAP_NOWAIT | DC_MAP_NORECLAIM, p);
			if (ret == -EAGAIN)
				continue;
			if (ret) {
				violation("checker: map of ino %" PRIu64 " idx %" PRIu64 ": %d",
					  pr[i].id, idx, ret);
				continue;
			}
			npins++;
			check_pin(w, pr[i].id, off, p, "checker");
			if (p->win_off / w->rs >= w->nr)
				continue;
			if (seen[p->win_off / w->rs]++)
				violation("window range %" PRIu64 " reached from two file ranges (ino %" PRIu64 " idx %" PRIu64 ")",
					  p->win_off / w->rs, pr[i].id, idx);
			else
				distinct++;
		}
	}
	/* Everything mapped is pinned now; the reclaimer cannot move it. */
	end = now_ns() + SETTLE_NS;
	for (;;) {
		st = cstats(w);
		if (st.nr_free + st.nr_mapped == st.nr_ranges &&
		    st.nr_mapped == distinct)
			break;
		if (now_ns() > end) {
			violation("checker: %u ranges reachable, cache has free %" PRIu64 " + mapped %" PRIu64 " of %" PRIu64,
				  distinct, st.nr_free, st.nr_mapped, st.nr_ranges);
			break;
		}
		usleep(1000);
	}
	for (i = 0; i < npins; i++)
		dc_unpin(&pins[i]);
out:
	free(seen);
	free(pins);
	free(pr);
}

static void set_faults(struct world *w, bool on, uint64_t seed)
{
	static const unsigned int ppm[DC_SIMBE_NR_OPS] = { 10000, 20000, 20000 };
	unsigned int op;

	for (op = 0; op < DC_SIMBE_NR_OPS; op++) {
		struct dc_simbe_fault f = {
			.err = -EIO, .ppm = ppm[op], .seed = seed + op,
		};

		dc_simbe_set_fault(w->be, (enum dc_simbe_op)op, on ? &f : NULL, sizeof(f));
	}
}

static void set_latencies(struct world *w, uint64_t *rng, bool on)
{
	dc_simbe_set_latency(w->be, DC_SIMBE_SETUP, on ? below(rng, 20000) : 0, 0);
	dc_simbe_set_latency(w->be, DC_SIMBE_REMOVE, on ? below(rng, 10000) : 0,
			     on ? below(rng, 2000) : 0);
	dc_simbe_set_latency(w->be, DC_SIMBE_WRITEBACK, on ? below(rng, 20000) : 0, 0);
}

/* One window size: a cache, PHASES phases, the checks, teardown. */
static int run_window(unsigned int nr, unsigned int threads, uint64_t phase_ns,
		      uint64_t seed)
{
	struct dc_simbe_config bcfg;
	struct dc_cache_config cfg;
	struct world w = { .nr = nr, .threads = threads };
	struct worker *wks = calloc(threads, sizeof(*wks));
	struct dc_simbe_stats b0, b1;
	struct dc_cache_stats st;
	uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	unsigned int phase, i, k;
	uint64_t end;
	int ret;

	if (!wks)
		return -ENOMEM;
	dc_cache_config_init(&cfg, sizeof(cfg), (uint64_t)nr << 21);
	/* CLOCK, round-robin or SIEVE. */
	cfg.victim = (enum dc_victim_policy)below(&rng, 3);
	cfg.flags = (unsigned int)below(&rng, 8);
	cfg.remove_batch_max = 1 + (unsigned int)below(&rng, 8);
	cfg.reclaim_batch = 1 + (unsigned int)below(&rng, 10);
	dc_simbe_config_init(&bcfg, sizeof(bcfg), cfg.window_size);
	bcfg.remove_batch_max = cfg.remove_batch_max;
	ret = dc_simbe_create(&bcfg, sizeof(bcfg), &w.be);
	if (!ret)
		ret = dc_cache_create(&cfg, sizeof(cfg), dc_simbe_ops(),
				      sizeof(struct dc_backend_ops), w.be, &w.cache);
	if (ret) {
		violation("create (%u ranges): %d", nr, ret);
		dc_simbe_destroy(w.be);
		free(wks);
		return ret;
	}
	w.rs = dc_cache_range_size(w.cache);
	for (i = 0; i < NSHARED && !ret; i++)
		ret = dc_inode_get(w.cache, i + 1, &w.shared[i]);
	for (i = 0; i < threads && !ret; i++) {
		wks[i].w = &w;
		wks[i].id = i;
		wks[i].rng = seed * 0x9e3779b97f4a7c15ull + i + 1;
		for (k = 0; k < NPRIV && !ret; k++)
			ret = dc_inode_get(w.cache, priv_id(i, k), &wks[i].priv[k]);
	}
	if (ret)
		violation("dc_inode_get: %d", ret);
	printf("window %2u ranges: victim %s, flags %#x, remove batch %u, reclaim batch %u\n",
	       nr, cfg.victim == DC_VICTIM_CLOCK ? "clock" : "round-robin",
	       cfg.flags, cfg.remove_batch_max, cfg.reclaim_batch);

	for (phase = 0; phase < PHASES && !ret; phase++) {
		w.faults = phase & 1;
		set_latencies(&w, &rng, below(&rng, 2));
		set_faults(&w, w.faults, seed + phase);
		b0 = bstats(&w);
		atomic_store(&w.stop, false);
		for (i = 0; i < threads; i++) {
			ret = -pthread_create(&wks[i].tid, NULL, worker_main, &wks[i]);
			if (ret) {
				violation("pthread_create: %d", ret);
				break;
			}
		}
		end = now_ns() + phase_ns;
		while (now_ns() < end)
			usleep(1000);
		atomic_store(&w.stop, true);
		while (i--)
			pthread_join(wks[i].tid, NULL);

		/* Quiet now: check. */
		set_faults(&w, false, 0);
		set_latencies(&w, &rng, false);
		if (settle(&w))
			check_world(&w, wks);
		b1 = bstats(&w);
		if (b1.overlaps != b0.overlaps)
			violation("%" PRIu64 " backend calls overlapped on a window range",
				  b1.overlaps - b0.overlaps);
		if (b1.bad_calls != b0.bad_calls)
			violation("%" PRIu64 " malformed backend calls", b1.bad_calls - b0.bad_calls);
		if (b1.remove_mismatches != b0.remove_mismatches)
			violation("%" PRIu64 " removes of a range mapping something else",
				  b1.remove_mismatches - b0.remove_mismatches);
		if (b1.writeback_mismatches != b0.writeback_mismatches)
			violation("%" PRIu64 " writebacks of a range not mapping that",
				  b1.writeback_mismatches - b0.writeback_mismatches);
		if (b1.tag_failures != b0.tag_failures)
			violation("%" PRIu64 " failed tag checks", b1.tag_failures - b0.tag_failures);
		if (!w.faults && b1.lost_writes != b0.lost_writes)
			violation("%" PRIu64 " writes lost without any failure",
				  b1.lost_writes - b0.lost_writes);
		if (!w.faults && b1.remove_unmapped != b0.remove_unmapped)
			violation("%" PRIu64 " removes of unmapped ranges without any failure",
				  b1.remove_unmapped - b0.remove_unmapped);
		st = cstats(&w);
		if (verbose)
			printf("  phase %u (%s): free %" PRIu64 " mapped %" PRIu64 ", hits %" PRIu64 ", misses %" PRIu64 ", inline %" PRIu64 ", bg %" PRIu64 "\n",
			       phase, w.faults ? "faults" : "clean", st.nr_free,
			       st.nr_mapped, st.hits, st.misses,
			       st.inline_reclaims, st.bg_reclaims);
	}

	/* Everything goes: every inode evicted, every range free. */
	for (i = 0; i < threads; i++)
		for (k = 0; k < NPRIV; k++)
			dc_inode_put(wks[i].priv[k]);
	for (i = 0; i < NSHARED; i++)
		dc_inode_put(w.shared[i]);
	/*
	 * The reclaimer may hold a passing reference to an inode, and then
	 * the eviction is its own: wait for it.
	 */
	end = now_ns() + SETTLE_NS;
	do {
		st = cstats(&w);
		if (!st.nr_inodes && !st.nr_mapped && st.nr_free == nr)
			break;
		usleep(1000);
	} while (now_ns() < end);
	if (st.nr_inodes || st.nr_mapped || st.nr_free != nr)
		violation("after the last puts: %" PRIu64 " inodes, %" PRIu64 " mapped, %" PRIu64 " free of %u",
			  st.nr_inodes, st.nr_mapped, st.nr_free, nr);
	b1 = bstats(&w);
	printf("  hits %" PRIu64 ", misses %" PRIu64 ", upgrades %" PRIu64 ", inline %" PRIu64 ", bg %" PRIu64 ", removes %" PRIu64 " in %" PRIu64 " calls, waits %" PRIu64 "\n"
	       "  injected: setup %" PRIu64 ", remove %" PRIu64 ", writeback %" PRIu64 "; cache saw setup %" PRIu64 ", remove %" PRIu64 ", writeback %" PRIu64 " failures\n"
	       "  avg ns: setup %" PRIu64 ", remove %" PRIu64 ", writeback %" PRIu64 "\n",
	       st.hits, st.misses, st.upgrades, st.inline_reclaims,
	       st.bg_reclaims, st.removes_sent, st.remove_batches, st.waits,
	       b1.injected[DC_SIMBE_SETUP], b1.injected[DC_SIMBE_REMOVE],
	       b1.injected[DC_SIMBE_WRITEBACK], st.setup_failures,
	       st.remove_failures, st.writeback_failures,
	       dc_simbe_avg_ns(&b1, DC_SIMBE_SETUP),
	       dc_simbe_avg_ns(&b1, DC_SIMBE_REMOVE),
	       dc_simbe_avg_ns(&b1, DC_SIMBE_WRITEBACK));
	dc_cache_destroy(w.cache);
	b1 = bstats(&w);
	if (b1.overlaps || b1.bad_calls || b1.remove_mismatches)
		violation("after destroy: %" PRIu64 " overlaps, %" PRIu64 " malformed, %" PRIu64 " mismatched removes",
			  b1.overlaps, b1.bad_calls, b1.remove_mismatches);
	dc_simbe_destroy(w.be);
	free(wks);
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-t seconds] [-j threads] [-s seed] [-v]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *env = getenv("DC_STRESS_SECONDS");
	double seconds = env ? strtod(env, NULL) : 3.0;
	unsigned int threads = 4, i;
	uint64_t seed, phase_ns, start;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	env = getenv("DC_STRESS_SEED");
	seed = env ? strtoull(env, NULL, 0) : now_ns();
	while ((opt = getopt(argc, argv, "t:j:s:v")) != -1) {
		switch (opt) {
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		case 'j':
			threads = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (seconds <= 0 || threads < 1 || threads > MAX_THREADS)
		usage(argv[0]);
	phase_ns = (uint64_t)(seconds * 1e9 / (PHASES * (sizeof(window_sizes) /
							 sizeof(window_sizes[0]))));
	printf("cache_stress: %.1f s, %u threads, seed %" PRIu64 "\n", seconds,
	       threads, seed);
	dc_set_log_fn(count_log, NULL);
	dc_thread_register();
	start = now_ns();
	for (i = 0; i < sizeof(window_sizes) / sizeof(window_sizes[0]); i++)
		run_window(window_sizes[i], threads, phase_ns, seed + i);
	dc_thread_unregister();
	dc_set_log_fn(NULL, NULL);
	printf("ops %llu: maps %llu (EIO %llu, EAGAIN %llu, ETIMEDOUT %llu), tag checks %llu, writes %llu,\n"
	       "punches %llu (EBUSY %llu, errors %llu), evictions %llu, library log lines %llu, %.1f s\n",
	       (unsigned long long)n_ops, (unsigned long long)n_maps,
	       (unsigned long long)n_map_eio, (unsigned long long)n_map_eagain,
	       (unsigned long long)n_map_timeout,
	       (unsigned long long)n_tag_checks, (unsigned long long)n_writes,
	       (unsigned long long)n_punches, (unsigned long long)n_punch_busy,
	       (unsigned long long)n_punch_err, (unsigned long long)n_evictions,
	       (unsigned long long)n_log_lines, (now_ns() - start) / 1e9);
	if (n_violations) {
		printf("FAILED: %llu violation(s) (seed %" PRIu64 ")\n",
		       (unsigned long long)n_violations, seed);
		return 1;
	}
	printf("OK\n");
	return 0;
}
