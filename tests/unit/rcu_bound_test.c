// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rcu_bound_test.c - deferred frees stay bounded while a reader holds up
 * the grace period (lib/platform/user/rcu.h: DCI_RCU_PENDING_MAX).
 *
 * A reader thread enters dc_read_lock() and stays there: no grace period
 * can end, so nothing retired from then on can be freed.  A writer thread
 * meanwhile creates trees, inserts intervals, removes them and destroys
 * the trees, over and over, which retires nodes and trees through
 * dci_call_rcu().  Without the bound the queue of deferred frees, and the
 * memory behind it, would grow for as long as the reader stays; with it,
 * the writer's dci_call_rcu() that would queue one more than the bound
 * waits for a grace period instead, so the writer blocks behind the
 * reader.  The test waits for that state (a waiting dci_call_rcu(), counted),
 * checks that exactly the bound is queued and never more was, lets the
 * reader leave, and checks that the writer goes on and that every deferred
 * free runs.  States only: the time limits only turn a hang into a failure.
 *
 * Userspace only (tests/cases run in the kernel too, whose call_rcu() has
 * its own flood protection and no such counter).
 *
 * Exit status 0 when every check passed.
 */
#include "platform.h"

#include <daxcache/itree.h>
#include <daxcache/thread.h>

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "ok_check.h"

/* Intervals per tree and cycle: enough for a few levels and leaf splits. */
#define NR_INTERVALS	200u
/* Only a hang takes this long, even under valgrind on a loaded machine. */
#define WAIT_LIMIT_S	600

static int reader_in, reader_go, writer_stop, writer_done;
static unsigned long writer_cycles;

static unsigned long load(const unsigned long *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static int load_int(const int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_int(int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static void nap(void)
{
	struct timespec ts = { 0, 200 * 1000 };

	nanosleep(&ts, NULL);
}

/* Wait until *@p is @want; false after WAIT_LIMIT_S (a hang). */
static bool wait_int(const int *p, int want, const char *what)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;

	while (load_int(p) != want) {
		if (time(NULL) > end) {
			printf("# timed out waiting for %s\n", what);
			return false;
		}
		nap();
	}
	return true;
}

/* Wait until at least one dci_call_rcu() waited for a grace period. */
static bool wait_throttled(void)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;

	while (!load(&dci_plat_rcu_waits)) {
		if (time(NULL) > end || load_int(&writer_done)) {
			printf("# the writer was never held up\n");
			return false;
		}
		nap();
	}
	return true;
}

static void *reader(void *arg)
{
	(void)arg;
	dc_thread_register();
	dc_read_lock();
	store_int(&reader_in, 1);
	/* Holds up every grace period until told to leave. */
	wait_int(&reader_go, 1, "the reader's release");
	dc_read_unlock();
	dc_thread_unregister();
	return NULL;
}

/* One cycle: a tree filled and emptied (nodes retired), then destroyed. */
static int cycle(void)
{
	static char item;
	struct dc_itree *t;
	unsigned int i;
	int ret;

	ret = dc_itree_create(&t);
	if (ret)
		return ret;
	for (i = 0; i < NR_INTERVALS && !ret; i++)
		ret = dc_itree_insert(t, 10ull * i, 10ull * i + 4, &item);
	for (i = 0; i < NR_INTERVALS && !ret; i++)
		ret = dc_itree_remove(t, 10ull * i, NULL);
	dc_itree_destroy(t);
	return ret;
}

static void *writer(void *arg)
{
	int *err = arg;

	dc_thread_register();
	while (!load_int(&writer_stop) && !*err) {
		*err = cycle();
		__atomic_add_fetch(&writer_cycles, 1, __ATOMIC_RELEASE);
	}
	dc_thread_unregister();
	store_int(&writer_done, 1);
	return NULL;
}

int main(void)
{
	pthread_t rd, wr;
	unsigned long pending, cycles;
	int err = 0;
	bool ok;

	dc_thread_register();
	/* Nothing of an earlier run is pending: the counts start at 0. */
	dc_barrier();
	check(load(&dci_plat_rcu_pending) == 0, "nothing pending at the start",
	      (long)load(&dci_plat_rcu_pending));
	if (pthread_create(&rd, NULL, reader, NULL))
		return 1;
	ok = wait_int(&reader_in, 1, "the reader to enter its section");
	check(ok, "the reader is inside dc_read_lock()", ok);
	if (!ok)
		return 1;
	if (pthread_create(&wr, NULL, writer, &err))
		return 1;

	/* The writer fills the queue up to the bound, then waits. */
	ok = wait_throttled();
	check(ok, "the writer's dci_call_rcu() waits for a grace period", ok);
	pending = load(&dci_plat_rcu_pending);
	check(pending == DCI_RCU_PENDING_MAX,
	      "exactly the bound is queued while the reader holds", (long)pending);
	check(load(&dci_plat_rcu_pending_peak) <= DCI_RCU_PENDING_MAX,
	      "never more than the bound was queued",
	      (long)load(&dci_plat_rcu_pending_peak));
	cycles = load(&writer_cycles);
	check(!load_int(&writer_done), "the writer is held up, not done", cycles);

	/* The reader leaves: the writer goes on, and everything is freed. */
	store_int(&writer_stop, 1);
	store_int(&reader_go, 1);
	pthread_join(rd, NULL);
	pthread_join(wr, NULL);
	check(err == 0, "the writer's tree operations all worked", err);
	check(load(&writer_cycles) > cycles, "the writer finished its cycle",
	      (long)load(&writer_cycles));
	check(load(&dci_plat_rcu_pending_peak) <= DCI_RCU_PENDING_MAX,
	      "never more than the bound was queued, to the end",
	      (long)load(&dci_plat_rcu_pending_peak));
	dc_barrier();
	check(load(&dci_plat_rcu_pending) == 0,
	      "every deferred free ran once the reader left",
	      (long)load(&dci_plat_rcu_pending));
	printf("# %lu writer cycles, %lu waits for a grace period\n",
	       load(&writer_cycles), load(&dci_plat_rcu_waits));
	dc_thread_unregister();
	return ok_summary("rcu-bound");
}
