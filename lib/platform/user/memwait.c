// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memwait.c - userspace implementation of the shim contract's stateless
 * part: allocation, locks and wait queues.  Shared by libdaxcache and
 * libdaxcache-sim, each of which links its own copy (nothing here keeps
 * state, so the copies cannot disagree).
 */
#include "platform.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Allocation                                                           */

/*
 * Cache-line aligned, so that objects declared __dc_cacheline_aligned (the
 * range objects, the statistics stripes) really share no line.
 */
void *dci_plat_alloc(struct dci_alloc_site *site, size_t size, bool zero)
{
	void *p;

	if (dci_fault_should_fail(site))
		return NULL;
	if (posix_memalign(&p, DCI_CACHELINE, size ? size : 1))
		return NULL;
	if (zero)
		memset(p, 0, size);
	return p;
}

void *dci_plat_alloc_unaligned(struct dci_alloc_site *site, size_t size)
{
	if (dci_fault_should_fail(site))
		return NULL;
	return malloc(size ? size : 1);
}

void dci_free(void *p)
{
	free(p);
}

/* ------------------------------------------------------------------ */
/* Locks and wait queues                                                */

/*
 * The lock was held: mark it contended (2), so that whoever drops it wakes
 * a sleeper, and sleep while it stays so.  The exchange that finds it free
 * takes it, still marked contended: one wake too many at worst.
 */
void dci_plat_lock_wait(struct dci_plat_lock *l)
{
	while (atomic_exchange_explicit(&l->word, 2, memory_order_acquire))
		syscall(SYS_futex, &l->word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

/* A contended lock was dropped: wake one sleeper, which takes it or sleeps again. */
void dci_plat_lock_wake(struct dci_plat_lock *l)
{
	syscall(SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* A condition variable whose timed waits run on CLOCK_MONOTONIC. */
void dci_plat_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
}

void dci_waitq_init(struct dci_waitq *wq)
{
	pthread_mutex_init(&wq->lock, NULL);
	dci_plat_cond_init(&wq->cond);
	wq->waiters = 0;
}

void dci_waitq_destroy(struct dci_waitq *wq)
{
	pthread_cond_destroy(&wq->cond);
	pthread_mutex_destroy(&wq->lock);
}

void dci_waitq_wake_all(struct dci_waitq *wq)
{
	pthread_mutex_lock(&wq->lock);
	if (wq->waiters)
		pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}

void dci_plat_waitq_prepare(struct dci_waitq *wq)
{
	pthread_mutex_lock(&wq->lock);
	wq->waiters++;
}

void dci_plat_waitq_finish(struct dci_waitq *wq)
{
	wq->waiters--;
	pthread_mutex_unlock(&wq->lock);
}

int dci_plat_waitq_sleep(struct dci_waitq *wq, uint64_t deadline_ns)
{
	struct timespec ts;

	if (deadline_ns == UINT64_MAX) {
		pthread_cond_wait(&wq->cond, &wq->lock);
		return 0;
	}
	if (dci_now_ns() >= deadline_ns)
		return -ETIMEDOUT;
	ts.tv_sec = (time_t)(deadline_ns / 1000000000ull);
	ts.tv_nsec = (long)(deadline_ns % 1000000000ull);
	if (pthread_cond_timedwait(&wq->cond, &wq->lock, &ts) == ETIMEDOUT)
		return -ETIMEDOUT;
	return 0;
}
