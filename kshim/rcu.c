// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcu.c - <daxcache/thread.h> in the kernel: kernel RCU needs no thread
 * registration, and the read side and grace periods are the kernel's own.
 */
#include "platform.h"

#include <linux/sched.h>

#include <daxcache/thread.h>

/**
 * dc_plat_rcu_read_held() - whether the caller is in an RCU reader.
 *
 * Exact with lockdep.  Without it, or once lockdep has turned itself off
 * after a report (rcu_read_lock_held() then answers true for everyone):
 * the preemptible-RCU nesting depth, or preemption disabled (which also
 * holds off a grace period).
 *
 * Context: any.
 * Return: true if a grace period cannot end under the caller.
 */
bool dc_plat_rcu_read_held(void)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	if (debug_lockdep_rcu_enabled())
		return rcu_read_lock_held();
#endif
	return rcu_preempt_depth() > 0 || !preemptible();
}

int dc_thread_register(void)
{
	return 0;
}

int dc_thread_unregister(void)
{
	return 0;
}

/* A module is never forked: nothing to prepare. */
void dc_before_fork(void)
{
}

void dc_after_fork_parent(void)
{
}

void dc_after_fork_child(void)
{
}

void dc_read_lock(void)
	__acquires(RCU)
{
	rcu_read_lock();
}

void dc_read_unlock(void)
	__releases(RCU)
{
	rcu_read_unlock();
}

void dc_synchronize(void)
{
	synchronize_rcu();
}

void dc_barrier(void)
{
	rcu_barrier();
}
