// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * torture_main.c - the torture test: rounds of many threads against one DAX
 * window cache over the simulation backend with random delays, in the style
 * of rcutorture.
 *
 * Each round picks a window (1..4 ranges, sometimes 8..64), 2..threads+1
 * inodes (main keeps a reference to half of them; the others live only
 * while a thread holds one), the victim policy and the legacy flags in
 * rotation, batch sizes, the backend's delays and, with --faults, whether
 * setup(), remove() and writeback() fail now and then, and so does one of
 * the library's allocations every 10 ms.  The worker threads
 * (torture_roles.c) run for the round's time; then, with every thread
 * stopped and the cache quiet, the invariants are checked: free + mapped
 * == ranges; the backend saw no overlapping, malformed or mismatched call,
 * no failed tag check (and, without failures, no lost write and no removal
 * of an unmapped range) and maps exactly what the cache has mapped; every
 * range is idle (a punch of every inode drops every mapping, no -EBUSY);
 * the library printed no misuse warning.
 *
 * Usage: torture [-t SECONDS] [-j THREADS] [--seed N] [--faults]
 *		  [--watchdog SECONDS] [-v]
 * Defaults: 5 s, 6 threads, a seed from the clock (printed; DC_TEST_SEED
 * also sets it).  Exit status 0 only when every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <daxcache/fault.h>
#include <daxcache/log.h>
#include <daxcache/thread.h>

#include "torture.h"
#include "../cases/sim_env.h"

#define T_SETTLE_NS		(10ull * T_NSEC)

struct t_opts {
	double seconds;
	unsigned int threads;
	uint64_t seed;
	bool faults;
	double watchdog;
};

static const enum t_role role_table[] = {
	T_ROLE_READER, T_ROLE_WRITER, T_ROLE_PUNCHER, T_ROLE_EVICTOR,
	T_ROLE_READER, T_ROLE_WAITER,
};

static struct t_thread workers[T_MAX_THREADS];
static unsigned int nworkers;
static struct t_thread main_th = {
	.role = T_ROLE_MAIN, .cur_op = T_IDLE, .last_op = T_IDLE,
};

static void step(enum t_op s)
{
	t_op_begin(&main_th, s);
}

/* Snapshots of the cache's and the backend's counters. */
#define cstats(rd)	sim_cache_stats((rd)->cache)
#define bstats(rd)	sim_be_stats((rd)->be.sim)

static void set_faults(struct t_round *rd, bool on, uint64_t seed)
{
	static const int err[DC_SIMBE_NR_OPS] = {
		T_SETUP_ERR, T_REMOVE_ERR, T_WRITEBACK_ERR,
	};
	unsigned int op;

	for (op = 0; op < DC_SIMBE_NR_OPS; op++) {
		struct dc_simbe_fault f = {
			.err = err[op], .ppm = 20000, .seed = seed + op,
		};

		dc_simbe_set_fault(rd->be.sim, (enum dc_simbe_op)op, on ? &f : NULL, sizeof(f));
	}
}

/* Wait until no range is in flight and every remove() call has returned. */
static bool settle(struct t_round *rd)
{
	uint64_t end = t_now_ns() + T_SETTLE_NS;
	unsigned int stable = 0;
	struct dc_cache_stats st;
	struct dc_simbe_stats bs;

	for (;;) {
		st = cstats(rd);
		bs = bstats(rd);
		if (st.nr_free + st.nr_mapped == st.nr_ranges &&
		    bs.calls[DC_SIMBE_REMOVE] == st.remove_batches)
			stable++;
		else
			stable = 0;
		if (stable == 3)
			return true;
		if (t_now_ns() > end)
			break;
		usleep(1000);
	}
	t_check(false, "round %u: no quiescence: free %" PRIu64 " + mapped %" PRIu64 " of %" PRIu64 " ranges, remove calls %" PRIu64 " / %" PRIu64,
		rd->number, st.nr_free, st.nr_mapped, st.nr_ranges,
		bs.calls[DC_SIMBE_REMOVE], st.remove_batches);
	return false;
}

/* The backend's protocol-violation counters (sim_be_violation()), all zero. */
static void check_backend(struct t_round *rd, const char *when)
{
	struct dc_simbe_stats bs = bstats(rd);
	const char *what;
	uint64_t v;

	what = sim_be_violation(&bs, rd->faults, &v);
	t_check(!what, "round %u %s: %" PRIu64 " %s", rd->number, when, v,
		what ? what : "");
}

/*
 * With every thread stopped: the gauges, the backend, then no pin left
 * (a punch of each inode drops everything) and every range free.
 */
static void check_round(struct t_round *rd)
{
	struct dc_cache_stats st;
	struct dc_simbe_stats bs;
	unsigned int i;
	uint64_t end;
	int ret;

	step(T_STEP_SETTLE);
	set_faults(rd, false, 0);
	atomic_store(&rd->be.max_delay_us, 0);
	atomic_store(&rd->be.long_delay_ppm, 0);
	if (!settle(rd))
		return;
	step(T_STEP_CHECK);
	check_backend(rd, "after the run");
	st = cstats(rd);
	bs = bstats(rd);
	if (!rd->faults)
		t_check(bs.nr_mapped == st.nr_mapped,
			"round %u: the backend maps %" PRIu64 " ranges, the cache %" PRIu64,
			rd->number, bs.nr_mapped, st.nr_mapped);
	for (i = 1; i <= rd->ninodes; i++) {
		struct dc_inode *inode;

		ret = dc_inode_get(rd->cache, i, &inode);
		if (!t_check(!ret, "round %u: dc_inode_get(%u): %d", rd->number, i, ret))
			continue;
		ret = dc_inode_punch(inode, 0, UINT64_MAX);
		t_check(!ret, "round %u: punch of all of quiet inode %u: %d (%s)%s",
			rd->number, i, ret, t_errname(ret),
			ret == -EBUSY ? ": a pin leaked" : "");
		dc_inode_put(inode);
	}
	/* The reclaimer may be evicting an inode it held last: wait for it. */
	end = t_now_ns() + T_SETTLE_NS;
	do {
		st = cstats(rd);
		if (!st.nr_mapped && st.nr_free == st.nr_ranges &&
		    st.nr_inodes == rd->nstable)
			break;
		usleep(1000);
	} while (t_now_ns() < end);
	t_check(!st.nr_mapped && st.nr_free == st.nr_ranges && st.nr_inodes == rd->nstable,
		"round %u: after punching everything: %" PRIu64 " mapped, %" PRIu64 " free of %" PRIu64 ", %" PRIu64 " inodes (main holds %u)",
		rd->number, st.nr_mapped, st.nr_free, st.nr_ranges, st.nr_inodes,
		rd->nstable);
	bs = bstats(rd);
	if (!rd->faults)
		t_check(!bs.nr_mapped, "round %u: the backend still maps %" PRIu64 " ranges after every mapping was dropped",
			rd->number, bs.nr_mapped);
	check_backend(rd, "after the punches");
}

static void print_round(struct t_round *rd, const struct dc_cache_config *cfg,
			unsigned int delay_us)
{
	struct dc_cache_stats st = cstats(rd);
	struct dc_simbe_stats bs = bstats(rd);

	printf("round %u: %u range%s of %" PRIu64 " KiB, %u inodes (%u held), %s, flags %#x, batches %u/%u, threshold %u%%, delays %u us, %s: hits %" PRIu64 " misses %" PRIu64 " upgrades %" PRIu64 " inline %" PRIu64 " bg %" PRIu64 " removes %" PRIu64 " waits %" PRIu64 " injected %" PRIu64 "\n",
	       rd->number, rd->nr, rd->nr == 1 ? "" : "s", rd->rs >> 10,
	       rd->ninodes, rd->nstable,
	       cfg->victim == DC_VICTIM_CLOCK ? "clock" : "round-robin",
	       cfg->flags, cfg->remove_batch_max, cfg->reclaim_batch,
	       cfg->reclaim_threshold_pct, delay_us,
	       rd->faults ? "failures" : "clean", st.hits, st.misses,
	       st.upgrades, st.inline_reclaims, st.bg_reclaims, st.removes_sent,
	       st.waits, bs.injected[DC_SIMBE_SETUP] + bs.injected[DC_SIMBE_REMOVE] +
	       bs.injected[DC_SIMBE_WRITEBACK]);
}

/*
 * Make one of the library's next allocations fail (-ENOMEM), counting the
 * one the last arming made fail.
 */
static void arm_alloc_failure(uint64_t *rng)
{
	atomic_fetch_add(&t_cnt.alloc_failures, dci_fault_alloc_failed());
	dci_fault_alloc_fail_nth(1 + t_below(rng, 100));
}

static void disarm_alloc_failure(void)
{
	atomic_fetch_add(&t_cnt.alloc_failures, dci_fault_alloc_failed());
	dci_fault_alloc_fail_nth(0);
}

/* A generator state for (seed, round, stream): unrelated for any two. */
static uint64_t mix(uint64_t seed, uint64_t round, uint64_t stream)
{
	uint64_t z = seed;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		/* splitmix64's finalizer, once per input word */
		z += 0x9e3779b97f4a7c15ull + (i == 1 ? round : i == 2 ? stream : 0);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
	}
	return z;
}

static int run_round(const struct t_opts *o, unsigned int number, uint64_t round_ns)
{
	static const unsigned int delays[] = { 0, 2, 20, 200 };
	static const unsigned int thresholds[] = { 0, 20, 50, 100 };
	uint64_t rng = mix(o->seed, number, 0) | 1;
	struct t_round rd = { .number = number };
	struct dc_simbe_config bcfg;
	struct dc_cache_config cfg;
	unsigned int combo, delay_us, i, started = 0;
	unsigned long warns = dc_warn_count();
	uint64_t end, checks, failures;
	int ret;

	step(T_STEP_SETUP);
	t_monitor_set_round(number);
	rd.nr = 1 + (unsigned int)t_below(&rng, 4);
	if (!t_below(&rng, 5))
		rd.nr = 8u << t_below(&rng, 4);
	dc_cache_config_init(&cfg, sizeof(cfg), 0);
	cfg.range_shift = t_below(&rng, 2) ? 21 : 12;
	cfg.window_size = (uint64_t)rd.nr << cfg.range_shift;
	/* Victim policy and legacy flags in rotation, from a seeded start. */
	combo = (unsigned int)((o->seed + number) % 24);
	/* CLOCK, round-robin or SIEVE. */
	cfg.victim = (enum dc_victim_policy)(combo % 3);
	cfg.flags = combo / 3;
	cfg.remove_batch_max = 1 + (unsigned int)t_below(&rng, 8);
	cfg.reclaim_batch = 1 + (unsigned int)t_below(&rng, 10);
	cfg.reclaim_threshold_pct = thresholds[t_below(&rng, 4)];
	rd.rs = 1ull << cfg.range_shift;
	rd.nidx = 2 * rd.nr + 2;
	rd.ninodes = 2 + (unsigned int)t_below(&rng, o->threads);
	rd.nstable = rd.ninodes / 2;
	rd.faults = o->faults && (number & 1);
	rd.map_timeout_ns = 20000000;
	delay_us = delays[t_below(&rng, 4)];

	dc_simbe_config_init(&bcfg, sizeof(bcfg), cfg.window_size);
	bcfg.range_shift = cfg.range_shift;
	bcfg.remove_batch_max = cfg.remove_batch_max;
	ret = dc_simbe_create(&bcfg, sizeof(bcfg), &rd.be.sim);
	if (!t_check(!ret, "round %u: dc_simbe_create: %d", number, ret))
		return ret;
	rd.be.nr = rd.nr;
	rd.be.shift = cfg.range_shift;
	rd.be.pins = calloc(rd.nr, sizeof(*rd.be.pins));
	rd.stable = calloc(rd.nstable ? rd.nstable : 1, sizeof(*rd.stable));
	ret = rd.be.pins && rd.stable ? 0 : -ENOMEM;
	if (!ret)
		ret = dc_cache_create(&cfg, sizeof(cfg), &t_backend_ops,
				      sizeof(t_backend_ops), &rd.be, &rd.cache);
	if (!t_check(!ret, "round %u: dc_cache_create: %d", number, ret))
		goto out_free;
	for (i = 0; i < rd.nstable && !ret; i++) {
		ret = dc_inode_get(rd.cache, i + 1, &rd.stable[i]);
		t_check(!ret, "round %u: dc_inode_get: %d", number, ret);
	}
	atomic_store(&rd.be.max_delay_us, delay_us);
	atomic_store(&rd.be.long_delay_ppm, delay_us ? 1000 : 0);
	set_faults(&rd, rd.faults, mix(o->seed, number, 1));

	step(T_STEP_RUN);
	for (i = 0; i < nworkers && !ret; i++) {
		struct t_thread *th = &workers[i];

		th->rd = &rd;
		th->rng = mix(o->seed, number, 2 + i) | 1;
		ret = -pthread_create(&th->tid, NULL, t_worker_main, th);
		if (t_check(!ret, "round %u: pthread_create: %d", number, ret))
			started++;
	}
	end = t_now_ns() + round_ns;
	while (t_now_ns() < end) {
		usleep(10000);
		if (rd.faults)
			arm_alloc_failure(&rng);
	}
	step(T_STEP_JOIN);
	if (rd.faults)
		disarm_alloc_failure();
	atomic_store(&rd.stop, true);
	for (i = 0; i < started; i++)
		pthread_join(workers[i].tid, NULL);

	checks = atomic_load(&t_cnt.checks);
	failures = atomic_load(&t_cnt.failures);
	check_round(&rd);
	print_round(&rd, &cfg, delay_us);
	t_check(dc_warn_count() == warns, "round %u: the library printed %lu misuse warnings",
		number, dc_warn_count() - warns);
	step(T_STEP_DESTROY);
	for (i = 0; i < rd.nstable; i++)
		dc_inode_put(rd.stable[i]);
	dc_cache_destroy(rd.cache);
	check_backend(&rd, "after destroy");
	/* Nothing else runs now: every check since is an invariant's. */
	atomic_fetch_add(&t_cnt.inv_rounds, 1);
	atomic_fetch_add(&t_cnt.inv_checks, atomic_load(&t_cnt.checks) - checks);
	atomic_fetch_add(&t_cnt.inv_failures, atomic_load(&t_cnt.failures) - failures);
out_free:
	dc_simbe_destroy(rd.be.sim);
	free(rd.stable);
	free(rd.be.pins);
	t_op_end(&main_th);
	return ret;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-t SECONDS] [-j THREADS] [--seed N] [--faults] [--watchdog SECONDS] [-v]\n"
		"  default: -t 5 -j 6, seed from the clock (or DC_TEST_SEED)\n"
		"  long run: %s -t 600 -j 16\n", prog, prog);
	exit(2);
}

static void parse(int argc, char **argv, struct t_opts *o)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "faults", no_argument, NULL, 'f' },
		{ "watchdog", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("DC_TEST_SEED");
	int opt;

	o->seconds = 5.0;
	o->threads = 6;
	o->seed = env ? strtoull(env, NULL, 0) : t_now_ns();
	o->faults = false;
	o->watchdog = 20.0;
	while ((opt = getopt_long(argc, argv, "t:j:s:fw:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			o->seconds = strtod(optarg, NULL);
			break;
		case 'j':
			o->threads = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 's':
			o->seed = strtoull(optarg, NULL, 0);
			break;
		case 'f':
			o->faults = true;
			break;
		case 'w':
			o->watchdog = strtod(optarg, NULL);
			break;
		case 'v':
			t_verbose = true;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc || !(o->seconds > 0) || !(o->watchdog > 0) ||
	    o->threads < 1 || o->threads > T_MAX_THREADS)
		usage(argv[0]);
}

int main(int argc, char **argv)
{
	struct t_opts o;
	uint64_t start, total_ns, round_ns;
	unsigned int number = 0, i;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse(argc, argv, &o);
	total_ns = (uint64_t)(o.seconds * 1e9);
	/* About five rounds for a short run, rounds of 3 s for a long one. */
	round_ns = total_ns / 5;
	if (round_ns < T_NSEC / 4)
		round_ns = T_NSEC / 4;
	if (round_ns > 3 * T_NSEC)
		round_ns = 3 * T_NSEC;
	printf("torture: seed %" PRIu64 " (replay: --seed %" PRIu64 "), %.1f s, %u threads, failures %s, watchdog %.0f s\n",
	       o.seed, o.seed, o.seconds, o.threads, o.faults ? "injected" : "off",
	       o.watchdog);
	nworkers = o.threads;
	for (i = 0; i < nworkers; i++) {
		workers[i].id = i;
		workers[i].role = role_table[i % (sizeof(role_table) / sizeof(role_table[0]))];
		atomic_store(&workers[i].cur_op, T_IDLE);
		atomic_store(&workers[i].last_op, T_IDLE);
	}
	main_th.id = nworkers;
	dc_set_log_fn(t_log_fn, NULL);
	dc_thread_register();
	ret = t_monitor_start(workers, &nworkers, &main_th,
			      (uint64_t)(o.watchdog * 1e9));
	if (ret) {
		fprintf(stderr, "torture: cannot start the monitor: %d\n", ret);
		return 1;
	}
	start = t_now_ns();
	do {
		ret = run_round(&o, number++, round_ns);
	} while (!ret && t_now_ns() - start + round_ns / 2 < total_ns);
	t_monitor_stop();
	dc_thread_unregister();
	dc_set_log_fn(NULL, NULL);
	printf("rounds %u in %.1f s (seed %" PRIu64 ")\n", number,
	       (t_now_ns() - start) / 1e9, o.seed);
	t_print_summary();
	return atomic_load(&t_cnt.failures) ? 1 : 0;
}
