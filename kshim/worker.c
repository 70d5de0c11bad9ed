// SPDX-License-Identifier: GPL-2.0-only
/*
 * worker.c - the shim's workers: a delayed work item on the unbound system
 * workqueue (dci_unbound_wq, compat_kernel.h), queued with no delay unless
 * asked for one, and a stop flag that queueing checks under a lock so that
 * nothing is queued once dci_worker_stop() has begun.
 */
#include "platform.h"

#include <linux/export.h>

#include "kshim.h"

static void dci_worker_run(struct work_struct *work)
{
	struct dci_worker *w = container_of(to_delayed_work(work),
					   struct dci_worker, work);

	w->fn(w);
}

/**
 * dci_worker_start() - set up a worker.
 * @w: the worker.
 * @fn: what it runs each time it is queued, in process context.
 * @name: a name for it (unused: work items run on shared kernel threads).
 *
 * Context: any.
 * Return: 0.
 */
int dci_worker_start(struct dci_worker *w, void (*fn)(struct dci_worker *w),
		     const char *name)
{
	INIT_DELAYED_WORK(&w->work, dci_worker_run);
	spin_lock_init(&w->lock);
	w->stopped = false;
	w->fn = fn;
	return 0;
}
DCI_TEST_EXPORT(dci_worker_start);

/**
 * dci_worker_queue() - have @w's function run (again) soon.
 * @w: the worker.
 *
 * Does nothing when the worker is already queued to run now or is being
 * stopped; a delayed run still waiting for its timer is brought forward.
 *
 * Context: any; never sleeps.
 */
void dci_worker_queue(struct dci_worker *w)
{
	unsigned long flags;

	spin_lock_irqsave(&w->lock, flags);
	if (!w->stopped)
		mod_delayed_work(dci_unbound_wq, &w->work, 0);
	spin_unlock_irqrestore(&w->lock, flags);
}
DCI_TEST_EXPORT(dci_worker_queue);

/**
 * dci_worker_queue_delayed() - have @w's function run after a delay.
 * @w: the worker.
 * @delay_ns: the least time before it runs, rounded up to whole jiffies,
 *	plus one.
 *
 * Does nothing when the worker is already queued (delayed or not) or is
 * being stopped.
 *
 * Context: any; never sleeps.
 */
void dci_worker_queue_delayed(struct dci_worker *w, uint64_t delay_ns)
{
	u64 us = div_u64(delay_ns + NSEC_PER_USEC - 1, NSEC_PER_USEC);
	unsigned long flags, j;

	/*
	 * One jiffy more than the rounded-up count: the first tick may come
	 * at once, so n jiffies can be less than n ticks of time.
	 */
	j = delay_ns ? usecs_to_jiffies(min_t(u64, us, UINT_MAX - 1)) + 1 : 0;
	spin_lock_irqsave(&w->lock, flags);
	if (!w->stopped)
		queue_delayed_work(dci_unbound_wq, &w->work, j);
	spin_unlock_irqrestore(&w->lock, flags);
}
DCI_TEST_EXPORT(dci_worker_queue_delayed);

/**
 * dci_worker_stop() - stop a worker for good.
 * @w: the worker.
 *
 * Drops a pending run and waits for a running one, including one that
 * queues itself again.
 *
 * Context: process context, not from the worker's own function; sleeps.
 */
void dci_worker_stop(struct dci_worker *w)
{
	spin_lock_irq(&w->lock);
	w->stopped = true;
	spin_unlock_irq(&w->lock);
	cancel_delayed_work_sync(&w->work);
}
DCI_TEST_EXPORT(dci_worker_stop);
