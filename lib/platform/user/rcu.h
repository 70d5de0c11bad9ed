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
#ifndef DC_PLATFORM_USER_RCU_H
#define DC_PLATFORM_USER_RCU_H

#include <urcu/urcu-memb.h>

#if defined(__SANITIZE_THREAD__)
#define DC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DC_TSAN 1
#endif
#endif

/*
 * __rcu marks a pointer that readers load under RCU.  It is for sparse in
 * the kernel build and means nothing here (liburcu defines it empty; so do
 * we if it did not); the kernel's own name, so that the kernel's tools
 * (sparse, checkpatch) know it.  Such a pointer is read with one of the
 * dereference macros and written with dc_rcu_assign_pointer() (or
 * dc_rcu_init_pointer() while no reader can reach it).
 *
 * The conditions @c of dc_rcu_dereference_check() and
 * dc_rcu_dereference_protected() name the lock that makes an access outside
 * a read-side section legitimate; the kernel's PROVE_RCU checks them.
 * Userspace has no such checker: they are type-checked, never evaluated,
 * and the macros compile to exactly what they would without them.
 */
#ifndef __rcu
#define __rcu
#endif
#define dc_rcu_dereference(p)		__atomic_load_n(&(p), __ATOMIC_CONSUME)
#define dc_rcu_dereference_check(p, c)	((void)sizeof(c), dc_rcu_dereference(p))
/* The writer's plain load: it is the only one that changes the pointer. */
#define dc_rcu_dereference_protected(p, c) ((void)sizeof(c), (p))
#define dc_rcu_assign_pointer(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define dc_rcu_init_pointer(p, v)	((void)((p) = (v)))
#define dc_rcu_access_pointer(p)	__atomic_load_n(&(p), __ATOMIC_RELAXED)
#define dc_rcu_read_lock()		urcu_memb_read_lock()
#define dc_rcu_read_held()		urcu_memb_read_ongoing()
#ifndef DC_TSAN
#define dc_rcu_barrier()		urcu_memb_barrier()
#endif

/*
 * Set once call_rcu() has been used: liburcu's callback thread exists from
 * then on, and a fork without dc_before_fork() leaves the child without it.
 */
extern bool dci_plat_rcu_used;

static inline void dc_rcu_note_used(void)
{
	if (__builtin_expect(!__atomic_load_n(&dci_plat_rcu_used, __ATOMIC_RELAXED), 0))
		__atomic_store_n(&dci_plat_rcu_used, true, __ATOMIC_RELAXED);
}

#ifndef DC_TSAN

typedef struct rcu_head dc_rcu_head_t;

#define dc_rcu_read_unlock()		urcu_memb_read_unlock()

static inline void dc_call_rcu(struct rcu_head *head, void (*fn)(struct rcu_head *head))
{
	dc_rcu_note_used();
	urcu_memb_call_rcu(head, fn);
}
#define dc_synchronize_rcu()		urcu_memb_synchronize_rcu()

#else /* DC_TSAN */

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

/* The tokens; their addresses are all that matters (platform.c). */
extern char dci_rcu_tsan_gp;
extern char dci_rcu_tsan_barrier;

typedef struct dc_rcu_head {
	struct rcu_head head;
	void (*fn)(struct dc_rcu_head *h);
} dc_rcu_head_t;

static inline void dc_rcu_read_unlock(void)
{
	__tsan_release(&dci_rcu_tsan_gp);
	urcu_memb_read_unlock();
}

static inline void dc_rcu_tsan_callback(struct rcu_head *head)
{
	dc_rcu_head_t *h = (dc_rcu_head_t *)head;

	__tsan_acquire(h);
	__tsan_acquire(&dci_rcu_tsan_gp);
	h->fn(h);
	/* What the callback did happens before dc_rcu_barrier() returns. */
	__tsan_release(&dci_rcu_tsan_barrier);
}

static inline void dc_call_rcu(dc_rcu_head_t *h, void (*fn)(dc_rcu_head_t *h))
{
	dc_rcu_note_used();
	h->fn = fn;
	/* liburcu's callback queue hands @h over without TSan seeing it. */
	__tsan_release(h);
	urcu_memb_call_rcu(&h->head, dc_rcu_tsan_callback);
}

/* Every callback queued before it has run, as liburcu's own barrier. */
static inline void dc_rcu_barrier(void)
{
	urcu_memb_barrier();
	__tsan_acquire(&dci_rcu_tsan_barrier);
}

static inline void dc_synchronize_rcu(void)
{
	urcu_memb_synchronize_rcu();
	__tsan_acquire(&dci_rcu_tsan_gp);
}

#endif /* DC_TSAN */

#endif /* DC_PLATFORM_USER_RCU_H */
