// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcu.c - <daxcache/thread.h> in the kernel: kernel RCU needs no thread
 * registration, and the read side and grace periods are the kernel's own.
 */
#include "platform.h"

#include <linux/export.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/sched.h>

#include <daxcache/thread.h>

#include "kshim.h"

#ifndef CONFIG_PREEMPT_COUNT
/*
 * Read sections entered through the shim on each CPU.  A reader stays on
 * its CPU until it unlocks: it may not sleep, and a kernel without a
 * preemption count does not preempt it.  An interrupt's sections nest
 * inside the interrupted one's and end before it resumes.  The two
 * functions below exist only on such kernels.
 */
static DEFINE_PER_CPU(unsigned int, dci_rcu_depth);

/**
 * dci_plat_rcu_read_lock() - rcu_read_lock(), counted for
 * dci_plat_rcu_read_held() on kernels without a preemption count.
 *
 * Context: any.
 */
void dci_plat_rcu_read_lock(void)
	__acquires(RCU)
{
	rcu_read_lock();
	this_cpu_inc(dci_rcu_depth);
}
DCI_TEST_EXPORT(dci_plat_rcu_read_lock);

/**
 * dci_plat_rcu_read_unlock() - rcu_read_unlock() of a section entered with
 * dci_plat_rcu_read_lock().
 *
 * Context: the read section.
 */
void dci_plat_rcu_read_unlock(void)
	__releases(RCU)
{
	this_cpu_dec(dci_rcu_depth);
	rcu_read_unlock();
}
DCI_TEST_EXPORT(dci_plat_rcu_read_unlock);
#endif

/**
 * dci_plat_rcu_read_held() - whether the caller is in an RCU reader.
 *
 * Description:
 * Exact with lockdep.  Without it, or once lockdep has turned itself off
 * after a report (rcu_read_lock_held() then answers true for everyone):
 * the preemptible-RCU nesting depth, or preemption disabled (which also
 * holds off a grace period).  Without a preemption count (5.10), where
 * neither can be read: the sections entered through the shim on this CPU,
 * interrupt context, or interrupts disabled.
 *
 * Context: any.
 * Return: true if a grace period cannot end under the caller.
 */
bool dci_plat_rcu_read_held(void)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	if (debug_lockdep_rcu_enabled())
		return rcu_read_lock_held();
#endif
#ifdef CONFIG_PREEMPT_COUNT
	return rcu_preempt_depth() > 0 || !preemptible();
#else
	return this_cpu_read(dci_rcu_depth) > 0 || in_interrupt() || irqs_disabled();
#endif
}
DCI_TEST_EXPORT(dci_plat_rcu_read_held);

int dc_thread_register(void)
{
	return 0;
}
DCI_EXPORT(dc_thread_register);

int dc_thread_unregister(void)
{
	return 0;
}
DCI_EXPORT(dc_thread_unregister);

/* A module is never forked: nothing to prepare. */
void dc_before_fork(void)
{
}
DCI_EXPORT(dc_before_fork);

void dc_after_fork_parent(void)
{
}
DCI_EXPORT(dc_after_fork_parent);

void dc_after_fork_child(void)
{
}
DCI_EXPORT(dc_after_fork_child);

void dc_read_lock(void)
	__acquires(RCU)
{
	dci_rcu_read_lock();
}
DCI_EXPORT(dc_read_lock);

void dc_read_unlock(void)
	__releases(RCU)
{
	dci_rcu_read_unlock();
}
DCI_EXPORT(dc_read_unlock);

void dc_synchronize(void)
{
	synchronize_rcu();
}
DCI_EXPORT(dc_synchronize);

void dc_barrier(void)
{
	rcu_barrier();
}
DCI_EXPORT(dc_barrier);
