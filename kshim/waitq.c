// SPDX-License-Identifier: GPL-2.0-only
/*
 * waitq.c - the shim's wait queues: a wait_queue_head_t, and the steps of
 * the killable sleep that dci_waitq_wait_timeout() loops over.  Out of line
 * so that core files need not see <linux/sched.h>.
 */
#include "platform.h"

#include <linux/export.h>
#include <linux/sched.h>

#include "kshim.h"

void dci_waitq_init(struct dci_waitq *wq)
{
	init_waitqueue_head(&wq->head);
}
DCI_TEST_EXPORT(dci_waitq_init);

void dci_waitq_destroy(struct dci_waitq *wq)
{
}
DCI_TEST_EXPORT(dci_waitq_destroy);

void dci_waitq_wake_all(struct dci_waitq *wq)
{
	wake_up_all(&wq->head);
}
DCI_TEST_EXPORT(dci_waitq_wake_all);

/* A relative timeout as jiffies for schedule_timeout(): rounded up, capped. */
static long dci_ns_to_jiffies(uint64_t ns)
{
	u64 j;

	if (ns == UINT64_MAX)
		return MAX_SCHEDULE_TIMEOUT;
	if (!ns)
		return 0;
	if (ns > U64_MAX - TICK_NSEC)
		return MAX_SCHEDULE_TIMEOUT - 1;
	/*
	 * Rounded up, plus one: the first tick of a sleep may come at once,
	 * so n jiffies can be less than n ticks of time (as msleep() adds
	 * one).  A wait with a timeout waits at least that long.
	 */
	j = nsecs_to_jiffies64(ns + TICK_NSEC - 1) + 1;
	return j >= MAX_SCHEDULE_TIMEOUT ? MAX_SCHEDULE_TIMEOUT - 1 : (long)j;
}

/**
 * dci_plat_sleep_begin() - start waiting on @wq.
 * @s: the sleeper, on the caller's stack.
 * @wq: the wait queue.
 * @timeout_ns: how long at most; UINT64_MAX for no limit.
 * @killable: whether a fatal signal ends the wait (-EINTR).
 *
 * Context: process context; the caller may sleep.
 */
void dci_plat_sleep_begin(struct dci_plat_sleep *s, struct dci_waitq *wq,
			  uint64_t timeout_ns, bool killable)
{
	uint64_t now = dci_now_ns();

	might_sleep();
	s->wq = wq;
	s->killable = killable;
	s->left = dci_ns_to_jiffies(timeout_ns);
	/* Saturating: a timeout past the clock's range never ends by it. */
	s->deadline = timeout_ns >= U64_MAX - now ? U64_MAX : now + timeout_ns;
	init_wait_entry(&s->entry, 0);
}
DCI_TEST_EXPORT(dci_plat_sleep_begin);

/**
 * dci_plat_sleep_prepare() - queue the task and mark it sleeping (killable or
 * uninterruptible, as begun),
 * before the caller tests its condition.
 * @s: the sleeper.
 *
 * Return: 0, or -EINTR when a fatal signal is pending.
 */
int dci_plat_sleep_prepare(struct dci_plat_sleep *s)
{
	return prepare_to_wait_event(&s->wq->head, &s->entry,
				     s->killable ? TASK_KILLABLE : TASK_UNINTERRUPTIBLE) ?
	       -EINTR : 0;
}
DCI_TEST_EXPORT(dci_plat_sleep_prepare);

/**
 * dci_plat_sleep() - sleep until woken, killed or out of time.
 * @s: the sleeper; @s->left is updated to the time that is left.
 *
 * The time is the clock's, dci_now_ns(), not only the jiffies'.  Jiffies
 * can run ahead of the clock (seen under qemu on a loaded host: a 20 ms
 * wait that timed out after 17 ms by the clock, although the count was
 * rounded up plus one), so when they run out before the deadline, the
 * rest is slept again: a timeout is a lower bound by the clock callers
 * measure with.
 */
void dci_plat_sleep(struct dci_plat_sleep *s)
{
	uint64_t now;

	s->left = schedule_timeout(s->left);
	if (s->left || s->deadline == U64_MAX)
		return;
	now = dci_now_ns();
	if (now < s->deadline)
		s->left = dci_ns_to_jiffies(s->deadline - now);
}
DCI_TEST_EXPORT(dci_plat_sleep);

/**
 * dci_plat_sleep_end() - leave the wait queue, running again.
 * @s: the sleeper.
 */
void dci_plat_sleep_end(struct dci_plat_sleep *s)
{
	finish_wait(&s->wq->head, &s->entry);
}
DCI_TEST_EXPORT(dci_plat_sleep_end);
