// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unregistered_test.c - a thread that never calls dc_thread_register()
 * needs no ceremony: its first call registers it, it maps (misses, hits,
 * inline reclaims), pins, looks up, punches and reads under
 * dc_read_lock() like a registered thread, with no warning, and its exit
 * unregisters it, so that the grace periods of the threads that stay still
 * end.  A thread that unregistered is registered again by its next call.
 * A thread that exits registered is unregistered at its exit: the next
 * thread, which gets its stack and TLS, registers, and a grace period
 * still ends.  Public headers and the shared library only.
 *
 * Prints "unregistered-test: N passed, N failed"; exits 1 on a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <daxcache/daxcache.h>
#include <daxcache/simbe.h>

#include "ok_check.h"

#define RANGE_SHIFT	16
#define NR_RANGES	4

static struct dc_simbe *backend;
static struct dc_cache *cache;
static struct dc_inode *inode;
static atomic_int warnings;

static void count_log(void *priv, int level, const char *msg)
{
	(void)priv;
	(void)level;
	if (strstr(msg, "regist"))
		atomic_fetch_add(&warnings, 1);
}


static void *unregistered(void *arg)
{
	struct dc_cache_stats st;
	struct dc_inode *other;
	struct dc_pin pin;
	int i, ret;
	bool pinned;

	(void)arg;
	/*
	 * Twice the window: every map past the fourth reclaims inline.  The
	 * background reclaimer, kicked once the last free range is taken,
	 * would free ranges too, and a miss after it ran would find one free:
	 * held at its remove gate, it holds at most one idle range (batches
	 * of one) and frees none, so all four reclaims are this thread's.
	 */
	for (i = 0; i < 2 * NR_RANGES; i++) {
		memset(&pin, 0, sizeof(pin));
		ret = dc_map(inode, (uint64_t)i << RANGE_SHIFT, DC_MAP_READ, &pin);
		check(ret == 0, "dc_map (a miss) from a thread that never registered", ret);
		dc_unpin(&pin);
	}
	memset(&st, 0, sizeof(st));
	ret = dc_cache_stats(cache, &st, sizeof(st));
	check(!ret && st.inline_reclaims == NR_RANGES,
	      "the thread's misses reclaimed inline", (long)st.inline_reclaims);
	dc_simbe_gate_open(backend, DC_SIMBE_REMOVE);
	ret = dc_map(inode, (uint64_t)(2 * NR_RANGES - 1) << RANGE_SHIFT, DC_MAP_READ, &pin);
	check(ret == 0, "dc_map (a hit) from a thread that never registered", ret);
	pinned = !ret;
	dc_read_lock();
	dc_read_unlock();
	ret = dc_inode_get(cache, 2, &other);
	check(ret == 0, "dc_inode_get from a thread that never registered", ret);
	if (!ret)
		dc_inode_put(other);
	ret = dc_inode_punch(inode, 0, 1);
	check(ret == 0, "dc_inode_punch from a thread that never registered", ret);
	if (pinned)
		dc_unpin(&pin);
	/* Unregistered, the next call registers the thread again. */
	dc_thread_unregister();
	ret = dc_map(inode, 0, DC_MAP_READ, &pin);
	check(ret == 0, "dc_map after dc_thread_unregister()", ret);
	if (!ret)
		dc_unpin(&pin);
	return NULL;
}

/* Registers, maps and exits without dc_thread_unregister(). */
static void *exits_registered(void *arg)
{
	struct dc_pin pin;
	int ret;

	(void)arg;
	dc_thread_register();
	ret = dc_map(inode, 0, DC_MAP_READ, &pin);
	check(ret == 0, "dc_map from a thread that will exit registered", ret);
	if (!ret)
		dc_unpin(&pin);
	return NULL;
}

/* Registers and unregisters, then waits for a grace period. */
static atomic_int grace_done;

static void *waits_for_grace(void *arg)
{
	(void)arg;
	dc_thread_register();
	dc_thread_unregister();
	dc_synchronize();
	atomic_store(&grace_done, 1);
	return NULL;
}

/*
 * A thread (@fn) exits registered; the next one (on its stack, as glibc
 * reuses it) registers and waits for a grace period, which must end.
 * Waited for with a generous bound: a grace period that never ends is the
 * failure.
 */
static void exit_registered_check(void *(*fn)(void *))
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	pthread_t th;
	int i;

	atomic_store(&grace_done, 0);
	pthread_create(&th, NULL, fn, NULL);
	pthread_join(th, NULL);
	pthread_create(&th, NULL, waits_for_grace, NULL);
	for (i = 0; i < 12000 && !atomic_load(&grace_done); i++)
		nanosleep(&tick, NULL);
	check(atomic_load(&grace_done), "a grace period ends after a thread exited registered",
	      atomic_load(&grace_done));
	if (!atomic_load(&grace_done)) {
		ok_summary("unregistered-test");
		_exit(1);
	}
	pthread_join(th, NULL);
}

int main(void)
{
	struct dc_simbe_config bcfg;
	struct dc_cache_config cfg;
	struct dc_pin pin;
	int ret;

	dc_set_log_fn(count_log, NULL);
	dc_thread_register();
	dc_simbe_config_init(&bcfg, sizeof(bcfg), NR_RANGES << RANGE_SHIFT);
	bcfg.range_shift = RANGE_SHIFT;
	dc_cache_config_init(&cfg, sizeof(cfg), NR_RANGES << RANGE_SHIFT);
	cfg.range_shift = RANGE_SHIFT;
	cfg.admit = DC_ADMIT_ALWAYS;	/* every miss maps, reclaiming */
	cfg.reclaim_batch = 1;		/* one range at most held at the gate */
	if (dc_simbe_create(&bcfg, sizeof(bcfg), &backend) ||
	    dc_cache_create(&cfg, sizeof(cfg), dc_simbe_ops(),
			    sizeof(struct dc_backend_ops), backend, &cache) ||
	    dc_inode_get(cache, 1, &inode)) {
		printf("unregistered-test: setup failed\n");
		return 1;
	}
	ret = dc_map(inode, 0, DC_MAP_READ, &pin);
	check(ret == 0, "dc_map from the registered main thread", ret);
	if (!ret)
		dc_unpin(&pin);
	/* The thread that never registered exits registered by its calls. */
	dc_simbe_gate_close(backend, DC_SIMBE_REMOVE);
	exit_registered_check(unregistered);
	check(atomic_load(&warnings) == 0, "no warning for the thread that never registered",
	      atomic_load(&warnings));
	exit_registered_check(exits_registered);
	dc_inode_put(inode);
	dc_cache_destroy(cache);
	dc_simbe_destroy(backend);
	dc_thread_unregister();
	return ok_summary("unregistered-test");
}
