/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcu.h - the RCU part of the userspace platform: liburcu's memb flavour,
 * with its read side inlined (_LGPL_SOURCE), included by platform.h only.
 *
 * Pointers are published and read with C11 release stores and consume
 * loads (an acquire on every compiler we build with, free on x86), which
 * is what rcu_assign_pointer()/rcu_dereference() promise, spelled so that
 * ThreadSanitizer understands it.
 *
 * ThreadSanitizer cannot see a grace period: liburcu's memb flavour orders
 * readers against the updater with membarrier() and compiler barriers,
 * which TSan does not model, so it would report every free after a grace
 * period as a race with the readers that used the object before.  Under
 * TSan (and only there) the read side releases a token on unlock and the
 * end of every grace period (synchronize, and each call_rcu callback)
 * acquires it: exactly the happens-before edge liburcu guarantees, no more.
 * Likewise call_rcu's lock-free queue hands each head to liburcu's thread
 * unseen: the head is released when queued and acquired by the callback.
 * A reader still inside its section when the object is freed is not
 * covered by the edge, so TSan still reports a real grace-period bug.
 */
#ifndef DCI_PLATFORM_USER_RCU_H
#define DCI_PLATFORM_USER_RCU_H

#include <urcu/urcu-memb.h>

/* Included by platform.h only, which says whether this is a TSan build. */
#ifndef DCI_PLAT_TSAN
#error "rcu.h is included through platform.h"
#endif

/*
 * __rcu marks a pointer that readers load under RCU.  It is for sparse in
 * the kernel build and means nothing here (liburcu defines it empty; so do
 * we if it did not); the kernel's own name, so that the kernel's tools
 * (sparse, checkpatch) know it.  Such a pointer is read with one of the
 * dereference macros and written with dci_rcu_assign_pointer() (or
 * dci_rcu_init_pointer() while no reader can reach it).
 *
 * The conditions @c of dci_rcu_dereference_check() and
 * dci_rcu_dereference_protected() name the lock that makes an access outside
 * a read-side section legitimate; the kernel's PROVE_RCU checks them.
 * Userspace has no such checker: they are type-checked, never evaluated,
 * and the macros compile to exactly what they would without them.
 */
#ifndef __rcu
#define __rcu
#endif
#define dci_rcu_dereference(p)		__atomic_load_n(&(p), __ATOMIC_CONSUME)
#define dci_rcu_dereference_check(p, c)	((void)sizeof(c), dci_rcu_dereference(p))
/* The writer's plain load: it is the only one that changes the pointer. */
#define dci_rcu_dereference_protected(p, c) ((void)sizeof(c), (p))
#define dci_rcu_assign_pointer(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define dci_rcu_init_pointer(p, v)	((void)((p) = (v)))
#define dci_rcu_access_pointer(p)	__atomic_load_n(&(p), __ATOMIC_RELAXED)
#define dci_rcu_read_lock()		urcu_memb_read_lock()
#define dci_rcu_read_held()		urcu_memb_read_ongoing()
#if !DCI_PLAT_TSAN
#define dci_rcu_barrier()		urcu_memb_barrier()
#endif

/*
 * Set once call_rcu() has been used: liburcu's callback thread exists from
 * then on, and a fork without dc_before_fork() leaves the child without it.
 */
extern bool dci_plat_rcu_used;

static inline void dci_rcu_note_used(void)
{
	if (__builtin_expect(!__atomic_load_n(&dci_plat_rcu_used, __ATOMIC_RELAXED), 0))
		__atomic_store_n(&dci_plat_rcu_used, true, __ATOMIC_RELAXED);
}

/*
 * Deferred frees are counted, and bounded.  Every object the core retires
 * waits in liburcu's callback queue for a grace period; a reader that does
 * not leave its section (a thread descheduled for long on a loaded host,
 * or under valgrind, which runs one thread at a time and may leave one
 * waiting for very long) holds up every grace period, and a writer that
 * goes on retiring would grow that queue, and the memory behind it,
 * without bound.  So past DCI_RCU_PENDING_MAX callbacks queued and not yet
 * run, dci_call_rcu() does what the callback thread would: it waits for a
 * grace period (dci_synchronize_rcu()) and runs the callback itself.  The
 * writer is then held up by the reader, as the reader holds up the frees,
 * and memory stays bounded.  The kernel's call_rcu() has its own flood
 * protection; the kernel platform's dci_call_rcu() is the kernel's.
 *
 * So dci_call_rcu() may sleep: its callers are writers, which may, never a
 * read-side section nor a callback (see lib/core: no callback queues
 * another, and no reader takes a lock, so a writer may wait holding one).
 * Each callback frees a bounded amount (a node, an inode, a list of at
 * most ITREE_RETIRING_MAX + 1 nodes, a tree and what it keeps).
 */
#define DCI_RCU_PENDING_MAX	10000

/*
 * Callbacks queued and not yet run, the most there ever were, and how many
 * times dci_call_rcu() found DCI_RCU_PENDING_MAX queued and waited instead
 * (tests/unit/rcu_bound_test.c reads them).
 */
extern unsigned long dci_plat_rcu_pending;
extern unsigned long dci_plat_rcu_pending_peak;
extern unsigned long dci_plat_rcu_waits;

typedef struct dci_rcu_head {
	struct rcu_head head;
	void (*fn)(struct dci_rcu_head *h);
} dci_rcu_head_t;

void dci_plat_rcu_callback(struct rcu_head *head);
void dci_plat_rcu_run_now(dci_rcu_head_t *h);

#if !DCI_PLAT_TSAN

#define dci_rcu_read_unlock()		urcu_memb_read_unlock()
#define dci_synchronize_rcu()		urcu_memb_synchronize_rcu()
#define dci_plat_rcu_tsan_queue(h)	((void)(h))

#else /* DCI_PLAT_TSAN */

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

/* The tokens; their addresses are all that matters (platform.c). */
extern char dci_rcu_tsan_gp;
extern char dci_rcu_tsan_barrier;

static inline void dci_rcu_read_unlock(void)
{
	__tsan_release(&dci_rcu_tsan_gp);
	urcu_memb_read_unlock();
}

/* liburcu's callback queue hands @h over without TSan seeing it. */
#define dci_plat_rcu_tsan_queue(h)	__tsan_release(h)

/* Every callback queued before it has run, as liburcu's own barrier. */
static inline void dci_rcu_barrier(void)
{
	urcu_memb_barrier();
	__tsan_acquire(&dci_rcu_tsan_barrier);
}

static inline void dci_synchronize_rcu(void)
{
	urcu_memb_synchronize_rcu();
	__tsan_acquire(&dci_rcu_tsan_gp);
}

#endif /* DCI_PLAT_TSAN */

/*
 * Run @fn(@h) after a grace period: queued for liburcu's callback thread,
 * or, with DCI_RCU_PENDING_MAX already queued, here once one has passed.
 * Context: may sleep; outside any read-side section, not from a callback.
 */
static inline void dci_call_rcu(dci_rcu_head_t *h, void (*fn)(dci_rcu_head_t *h))
{
	unsigned long n, peak;

	dci_rcu_note_used();
	h->fn = fn;
	n = __atomic_add_fetch(&dci_plat_rcu_pending, 1, __ATOMIC_RELAXED);
	if (__builtin_expect(n > DCI_RCU_PENDING_MAX, 0)) {
		__atomic_sub_fetch(&dci_plat_rcu_pending, 1, __ATOMIC_RELAXED);
		dci_plat_rcu_run_now(h);
		return;
	}
	peak = __atomic_load_n(&dci_plat_rcu_pending_peak, __ATOMIC_RELAXED);
	while (__builtin_expect(n > peak, 0) &&
	       !__atomic_compare_exchange_n(&dci_plat_rcu_pending_peak, &peak, n,
					    true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	dci_plat_rcu_tsan_queue(h);
	urcu_memb_call_rcu(&h->head, dci_plat_rcu_callback);
}

#endif /* DCI_PLATFORM_USER_RCU_H */
