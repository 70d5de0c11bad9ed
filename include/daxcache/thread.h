/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/thread.h - registering caller threads with the library's RCU,
 * and forking a process that uses the library.
 *
 * In userspace libdaxcache uses liburcu's memb flavour, whose readers must
 * be registered.  A thread needs no ceremony for that: its first call into
 * the library (dc_map(), dc_inode_get(), dc_read_lock(), ...) registers
 * it, off the hit path, and the thread is unregistered when it exits.  The
 * one rule left: a thread must not exit inside dc_read_lock() or while it
 * holds a pin.  dc_thread_register() and dc_thread_unregister() remain, as
 * optional calls: a thread may register ahead of its first call (so that
 * the first call does not pay for it, or to see -ENOMEM there rather than
 * from the call), and a thread that stays alive but leaves the library for
 * good may unregister (its next call registers it again).  Only a
 * registration that cannot be made refuses a call: -ENOMEM (no thread-exit
 * hook), logged once per thread; dc_read_lock(), which cannot fail, then
 * only logs.  Threads the library creates itself (the background reclaimer,
 * a request queue's retry worker) register themselves.
 *
 * Fork: the library starts its threads when they are first needed (the
 * first miss that kicks the reclaimer, the first full request queue), not
 * when a cache or queue is created.  A program that creates its cache and
 * then daemonizes (fork() and the parent exits, as fuse_daemonize() does)
 * before its first request therefore just works in the child.  A program
 * that forks (without exec) once the library has run must bracket fork()
 * with dc_before_fork(), then dc_after_fork_parent() in the parent and
 * dc_after_fork_child() in the child, called from the forking thread; they
 * park the library's threads and liburcu's call_rcu threads and start them
 * again on demand on either side.  They are not installed as
 * pthread_atfork() handlers, which liburcu advises against.  A child forked
 * without them while a library thread or liburcu's callback thread existed
 * cannot trust the library's state (a lock held by a thread that is gone,
 * callbacks nobody runs): the library notices it, logs one error, and no
 * entry point of the child hangs.  Such a child may destroy what it
 * inherited and exit; it cannot use the library any more:
 *
 *  - what creates or uses returns -ECHILD: every function that returns an
 *    int error (dc_thread_register(), dc_cache_create(), dc_inode_get(),
 *    dc_map(), dc_wait_free(), dc_*_stats(), dc_itree_create(),
 *    dc_itree_insert(), dc_itree_remove(), dc_slot_table_create(),
 *    dc_slot_get(), dc_reqq_submit(), dc_attr_refresh(), dc_iocomp_alloc(),
 *    dc_mmapbe_create(), dc_mmapbe_read(), ...), except those below;
 *  - what destroys or undoes returns at once and leaves the object, its
 *    memory, mapping and descriptors to the process's exit:
 *    dc_cache_destroy(), dc_slot_table_destroy() and dc_thread_unregister()
 *    return 0; dc_itree_destroy(), dc_reqq_destroy(), dc_attr_destroy(),
 *    dc_mmapbe_destroy(), dc_inode_put() and dc_slot_put() do nothing;
 *    dc_unpin() drops the pin and wakes nobody;
 *  - the other functions that would lock or wait do nothing:
 *    dc_synchronize(), dc_barrier(), dc_before_fork(),
 *    dc_after_fork_parent(), dc_after_fork_child(), dc_reqq_complete()
 *    (the request's end is never called), dc_reqq_shutdown(),
 *    dc_attr_note_write(), dc_attr_expire(); dc_attr_read_check() says a
 *    refresh is needed, dc_attr_get() that nothing is valid (zeroed values),
 *    dc_attr_version() returns 0;
 *  - what touches only the caller's memory or fixed fields, or reads
 *    without a lock, works as usual: dc_cache_config_init(),
 *    dc_reqq_req_init(), dc_iocomp_init(), dc_iocomp_get(), dc_iocomp_put(),
 *    dc_iocomp_pending(), dc_inode_id(), dc_cache_range_size(),
 *    dc_mmapbe_ops(), dc_mmapbe_window(), dc_set_log_fn(), dc_warn_count(),
 *    dc_read_lock(), dc_read_unlock() and the interval tree's lookups
 *    (dc_itree_lookup(), dc_itree_lookup_entry(), dc_itree_first(),
 *    dc_itree_next(), dc_itree_count());
 *  - libdaxcache-sim (daxcache/simbe.h) has no threads and does not know of
 *    the fork: its functions work as usual on a backend that no thread was
 *    calling when the process forked.
 *
 * In the kernel build these calls do nothing (and dc_map() needs no
 * registration).
 */
#ifndef DAXCACHE_THREAD_H
#define DAXCACHE_THREAD_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * dc_thread_register() - make the calling thread known to the library now.
 *
 * Description:
 * Optional: the first call that needs it registers a thread anyway.  Call
 * it to have the registration done (and its -ENOMEM seen) before the
 * thread's first call into libdaxcache.  Calling it again from a registered
 * thread only counts a nesting level.  A thread that exits registered is
 * unregistered at its exit (a read-side section it left open ends then,
 * with a warning), so that it never stalls the grace periods of the
 * threads that stay.  An application that uses liburcu's memb flavour
 * itself registers its threads with liburcu first: the library's
 * registration of such a thread then only counts, and its unregister
 * leaves liburcu's registration to the application.
 *
 * Context: any thread; not from a signal handler.
 * Return: 0; -ECHILD in a child forked without dc_before_fork() while the
 * library's threads ran (see above); -ENOMEM if the thread's exit hook
 * cannot be set.
 */
int dc_thread_register(void);

/**
 * dc_thread_unregister() - undo a registration, made by a call or by
 * dc_thread_register().
 *
 * Description:
 * Optional: a thread is unregistered at its exit anyway.  The thread must
 * not be inside dc_read_lock() and must not hold any pin.  The last
 * unregister of a nesting really unregisters the thread; its next call into
 * the library registers it again.
 *
 * Context: a registered thread, outside any read-side section.
 * Return: 0, or -EINVAL if the thread was not registered.  In a child
 * forked without dc_before_fork() (see above): 0, doing nothing.
 */
int dc_thread_unregister(void);

/**
 * dc_read_lock() - enter a read-side critical section.
 *
 * Description:
 * Lookups and iterations of the interval tree must run between
 * dc_read_lock() and dc_read_unlock().  Sections nest and never block.
 *
 * Context: any thread (registered by its first section if it was not).
 * Must not sleep until dc_read_unlock().
 * Return: nothing.
 */
void dc_read_lock(void);

/**
 * dc_read_unlock() - leave a read-side critical section.
 *
 * Context: a thread inside dc_read_lock().
 * Return: nothing.
 */
void dc_read_unlock(void);

/**
 * dc_synchronize() - wait until every read-side section that was running
 * when it was called has ended.
 *
 * Context: any thread outside any read-side section; sleeps.
 * Return: nothing.  In a child forked without dc_before_fork() (see
 * above) it returns at once.
 */
void dc_synchronize(void);

/**
 * dc_barrier() - wait until every deferred free queued so far has run.
 *
 * Description:
 * Call before unloading code or checking memory for leaks.  When it
 * returns, liburcu's callback thread holds nothing of the barrier itself
 * either (unless the application made call_rcu threads of its own), so that
 * a fork right after it leaves the child nothing unreachable.
 *
 * Context: any thread outside any read-side section; sleeps.
 * Return: nothing.  In a child forked without dc_before_fork() (see
 * above) it returns at once.
 */
void dc_barrier(void);

/**
 * dc_before_fork() - prepare the library for a fork() of this process.
 *
 * Description:
 * Parks the library's own threads (each finishes the call it is running;
 * pending work stays pending) and liburcu's call_rcu threads, and takes
 * the lock that the two dc_after_fork_*() calls release.  Call it right
 * before fork(), and exactly one of the two after it.  No other thread may
 * be inside the library meanwhile: a thread that holds a lock or a pin, or
 * is inside dc_read_lock(), when fork() runs does not exist in the child.
 *
 * Context: a thread holding no pin and outside any read-side section;
 * sleeps (it waits for running library work to finish).
 * Return: nothing.  In a child forked without dc_before_fork() (see
 * above) it, and the two dc_after_fork_*(), do nothing.
 */
void dc_before_fork(void);

/**
 * dc_after_fork_parent() - resume the library in the parent after fork().
 *
 * Description:
 * Releases what dc_before_fork() took; threads with pending work start
 * again, the others when they are next needed.
 *
 * Context: the thread that called dc_before_fork(), in the parent.
 * Return: nothing.
 */
void dc_after_fork_parent(void);

/**
 * dc_after_fork_child() - make the library work in the child after fork().
 *
 * Description:
 * Gives the child its own call_rcu thread and starts the library's threads
 * again on demand: caches and queues created before the fork keep working
 * in the child.
 *
 * Context: the thread that called dc_before_fork(), in the child (the
 * child's only thread).
 * Return: nothing.
 */
void dc_after_fork_child(void);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_THREAD_H */
