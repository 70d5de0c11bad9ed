/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/thread.h - registering caller threads with the library's RCU.
 *
 * In userspace libdaxcache uses liburcu's memb flavour: every thread that
 * calls into the library (looks up, maps, iterates) must be registered
 * first, and unregistered before it exits.  Threads the library creates
 * itself (the background reclaimer) register themselves.
 *
 * In the kernel build these calls do nothing.
 */
#ifndef DAXCACHE_THREAD_H
#define DAXCACHE_THREAD_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * dc_thread_register() - make the calling thread known to the library.
 *
 * Call once per thread before its first call into libdaxcache.  Calling it
 * again from a registered thread only counts a nesting level.
 *
 * Context: any thread; not from a signal handler.
 * Return: 0.
 */
int dc_thread_register(void);

/**
 * dc_thread_unregister() - undo dc_thread_register().
 *
 * The thread must not be inside dc_read_lock() and must not hold any pin.
 * The last unregister of a nesting really unregisters the thread.
 *
 * Context: a registered thread, outside any read-side section.
 * Return: 0, or -EINVAL if the thread was not registered.
 */
int dc_thread_unregister(void);

/**
 * dc_read_lock() - enter a read-side critical section.
 *
 * Lookups and iterations of the interval tree must run between
 * dc_read_lock() and dc_read_unlock().  Sections nest and never block.
 *
 * Context: a registered thread.  Must not sleep until dc_read_unlock().
 */
void dc_read_lock(void);

/**
 * dc_read_unlock() - leave a read-side critical section.
 *
 * Context: a registered thread inside dc_read_lock().
 */
void dc_read_unlock(void);

/**
 * dc_synchronize() - wait until every read-side section that was running
 * when it was called has ended.
 *
 * Context: a registered thread outside any read-side section; sleeps.
 */
void dc_synchronize(void);

/**
 * dc_barrier() - wait until every deferred free queued so far has run.
 *
 * Call before unloading code or checking memory for leaks.
 *
 * Context: a registered thread outside any read-side section; sleeps.
 */
void dc_barrier(void);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_THREAD_H */
