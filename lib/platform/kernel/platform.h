/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * platform.h - the shim contract, kernel flavour.
 *
 * The portable core (lib/core/) includes only "platform.h" and core headers;
 * the kernel build puts this directory on the include path instead of
 * lib/platform/user/.  Every difference between the two builds lives here,
 * never in lib/core/: the names are the same as in the userspace header and
 * mean the same thing.
 *
 * Kernel mapping: spinlock_t, struct mutex, RCU, atomic_t/atomic64_t, a
 * refcount with refcount_t semantics, wait_queue_head_t, work items,
 * kvmalloc/kvfree behind the same fault-injection hook as userspace,
 * ktime_get_ns() and printk().
 *
 * Licence: LGPL-2.1-or-later like the core and its userspace counterpart,
 * because it is part of the same contract and is compiled into every core
 * object.  It contains no kernel code, only calls into kernel interfaces; the
 * module it ends up in is distributed under the GPL (LGPL-2.1 allows that).
 */
#ifndef DCI_PLATFORM_KERNEL_H
#define DCI_PLATFORM_KERNEL_H

/*
 * Only light kernel headers: core identifiers must not meet kernel macros
 * (<linux/nodemask.h>, which <linux/ktime.h> reaches on 7.3, defines
 * node_set(); the interval tree's node helpers are named itn_*() for that
 * reason, and the core keeps to names of its own).  What needs more lives out of
 * line in the .c files of kshim/.  What differs between kernel series is in
 * compat_kernel.h (container_of() has its own header from 5.16 on).
 */
#include "compat_kernel.h"

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/prefetch.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <asm/current.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Compiler helpers                                                     */

#define dci_likely(x)		likely(x)
#define dci_unlikely(x)		unlikely(x)
#define dci_container_of(ptr, type, member) container_of(ptr, type, member)
#define DCI_ARRAY_SIZE(a)	ARRAY_SIZE(a)
#define dci_static_assert(c, msg) static_assert(c, msg)
/*
 * After a public function's definition: export it to GPL modules, in the
 * symbol namespace DAXCACHE (compat_kernel.h).
 */
#define DCI_EXPORT(sym)		DCI_EXPORT_GPL(sym)
/*
 * After an internal helper's definition: export it to the test module,
 * whose cases call it, in test builds only (namespace DAXCACHE_KSHIM).
 */
#ifdef DCI_TEST_BUILD
#define DCI_TEST_EXPORT(sym)	DCI_EXPORT_NS_GPL(sym, DAXCACHE_KSHIM)
#else
#define DCI_TEST_EXPORT(sym)
#endif
#define dci_prefetch(p)		prefetch(p)
#define dci_noinline		noinline
#define dci_cold			__cold
/* A global of the library that no other object uses (a module's are local). */
#define DCI_HIDDEN
#define dci_always_inline	__always_inline
/*
 * On a large local that the code writes before it reads: kernels built
 * with CONFIG_INIT_STACK_ALL_ZERO would otherwise zero it on every call
 * (a miss's tree path and node pool: hundreds of bytes).
 */
#ifdef __uninitialized
#define dci_uninitialized	__uninitialized
#else
#define dci_uninitialized
#endif
#define DCI_CACHELINE		SMP_CACHE_BYTES
#define __dc_cacheline_aligned	____cacheline_aligned

/* ------------------------------------------------------------------ */
/* Plain shared-variable access and ordering (kernel LKMM vocabulary).  */

#define dci_read_once(x)		READ_ONCE(x)
#define dci_write_once(x, v)	WRITE_ONCE(x, v)
/* Whether @x, read once, differs from @v. */
#define dci_read_once_ne(x, v)	(READ_ONCE(x) != (v))
/* A read whose race with a writer's WRITE_ONCE() the caller copes with. */
#define dci_read_racy(x)		data_race(x)
/* Add one to a counter whose racing increments may lose one (the caller copes). */
#define dci_inc_racy(x)		data_race((x)++)
/* Later accesses stay after the load. */
#define dci_load_acquire(p)	smp_load_acquire(p)
/* Earlier accesses stay before the store. */
#define dci_store_release(p, v)	smp_store_release(p, v)
/* Loads and stores on either side stay there. */
#define dci_smp_mb()		smp_mb()
/* Loads only. */
#define dci_smp_rmb()		smp_rmb()
/* Stores only. */
#define dci_smp_wmb()		smp_wmb()
/* Full ordering after an atomic read-modify-write. */
#define dci_smp_mb__after_atomic() smp_mb__after_atomic()
#define dci_cpu_relax()		cpu_relax()

/* 64-bit atomic counters (statistics, generations). */
typedef struct { atomic64_t v; } dci_atomic64_t;
#define dci_atomic64_read(a)	((uint64_t)atomic64_read(&(a)->v))
#define dci_atomic64_set(a, x)	atomic64_set(&(a)->v, (s64)(x))
#define dci_atomic64_add(a, x)	atomic64_add((s64)(x), &(a)->v)
#define dci_atomic64_inc(a)	atomic64_inc(&(a)->v)

typedef struct { atomic_t v; } dci_atomic_t;
#define dci_atomic_read(a)	atomic_read(&(a)->v)
#define dci_atomic_nonzero(a)	(atomic_read(&(a)->v) != 0)
#define dci_atomic_set(a, x)	atomic_set(&(a)->v, (x))
#define dci_atomic_inc(a)	atomic_inc(&(a)->v)
#define dci_atomic_dec(a)	atomic_dec(&(a)->v)

/* ------------------------------------------------------------------ */
/* Logging and one-time warnings                                        */

enum dci_log_level { DCI_LOG_ERR = 3, DCI_LOG_WARNING = 4, DCI_LOG_INFO = 6, DCI_LOG_DEBUG = 7 };

void dci_plat_log(int level, const char *fmt, ...) __printf(2, 3);

#define dci_pr_err(fmt, ...)	dci_plat_log(DCI_LOG_ERR, "daxcache: " fmt, ##__VA_ARGS__)
#define dci_pr_warn(fmt, ...)	dci_plat_log(DCI_LOG_WARNING, "daxcache: " fmt, ##__VA_ARGS__)
#define dci_pr_info(fmt, ...)	dci_plat_log(DCI_LOG_INFO, "daxcache: " fmt, ##__VA_ARGS__)

/* Count one detected misuse (read back with dc_warn_count()). */
void dci_plat_warn_note(void);

/*
 * dci_warn_once(cond, fmt, ...) - evaluate @cond; each time it is true count
 * a warning, and the first time at this call site print one line.  Returns
 * the truth value of @cond.
 *
 * Deliberately not WARN_ONCE(): misuse by a caller must be reported, not
 * turned into a panic on kernels booted with panic_on_warn=1 (the test
 * kernel is, and one shared test case misuses the API on purpose).  So no
 * "WARNING:" banner and no stack trace, as with pr_warn_once().
 */
#define dci_warn_once(cond, fmt, ...) ({					\
	static unsigned long __dc_warned;				\
	bool __dc_c = !!(cond);						\
	if (unlikely(__dc_c)) {						\
		dci_plat_warn_note();					\
		if (!test_and_set_bit(0, &__dc_warned))			\
			dci_plat_log(DCI_LOG_WARNING,			\
				     "daxcache: warning at %s:%d: " fmt,	\
				     __FILE__, __LINE__, ##__VA_ARGS__);	\
	}								\
	__dc_c;								\
})

/* ------------------------------------------------------------------ */
/* Time                                                                 */

static inline uint64_t dci_now_ns(void)
{
	return ktime_get_ns();
}

/*
 * Busy-wait @ns nanoseconds (latency models need accuracy, not sleep).  A
 * loop on the clock rather than ndelay(), which is meant for short and
 * mostly constant delays.
 */
static inline void dci_delay_ns(uint64_t ns)
{
	uint64_t end = dci_now_ns() + ns;

	while (dci_now_ns() < end)
		cpu_relax();
}

/* ------------------------------------------------------------------ */
/* Allocation (with a fault-injection hook for tests)                   */

/*
 * Whether the hook armed with dci_fault_alloc_fail_nth() fails this
 * allocation, dci_fault_should_fail(): only in test builds (kshim/fault.c,
 * DCI_FAULT_INJECTION: see Kbuild).  The kernel keeps no descriptor per call
 * site (the per-site hooks of <daxcache/fault.h> are userspace's): every
 * site here is NULL.
 */
#include "fault_hook.h"

/*
 * kvmalloc(GFP_KERNEL), zeroed if @zero, unless the hook says this one must
 * fail.  Returns memory aligned to DCI_CACHELINE, or NULL.  Process context.
 */
void *dci_plat_alloc(struct dci_alloc_site *site, size_t size, bool zero);

#define dci_alloc(size)		dci_plat_alloc(NULL, (size), false)
#define dci_zalloc(size)		dci_plat_alloc(NULL, (size), true)
/* kmalloc is cheap at any alignment: the same as dci_alloc(). */
#define dci_alloc_unaligned(size)	dci_plat_alloc(NULL, (size), false)
/* ARCH_KMALLOC_MINALIGN (linux/slab.h) is never less. */
#define DCI_ALLOC_MIN_ALIGN		__alignof__(unsigned long long)
void dci_free(void *p);

/* ------------------------------------------------------------------ */
/* Locks                                                                */

typedef spinlock_t dci_spinlock_t;
typedef struct mutex dci_mutex_t;

#define dci_spin_lock_init(l)	spin_lock_init(l)
#define dci_spin_lock(l)		spin_lock(l)
#define dci_spin_trylock(l)	(spin_trylock(l) != 0)
#define dci_spin_unlock(l)	spin_unlock(l)
#define dci_spin_lock_destroy(l)	do { } while (0)

#define dci_mutex_init(m)	mutex_init(m)
#define dci_mutex_lock(m)	mutex_lock(m)
#define dci_mutex_trylock(m)	(mutex_trylock(m) == 1)
#define dci_mutex_unlock(m)	mutex_unlock(m)
#define dci_mutex_destroy(m)	mutex_destroy(m)

/*
 * Whether lockdep knows that the caller holds @l (a dci_spinlock_t or a
 * dci_mutex_t): for RCU-check conditions and assertions only.  Evaluated
 * only where lockdep is on (PROVE_RCU implies it).
 */
#define dci_lockdep_is_held(l)	lockdep_is_held(l)

/* Functions that return with a lock taken or dropped, for sparse. */
#define __dc_acquires(l)	__acquires(l)
#define __dc_releases(l)	__releases(l)

/* ------------------------------------------------------------------ */
/* RCU                                                                  */

typedef struct rcu_head dci_rcu_head_t;

#ifdef CONFIG_PREEMPT_COUNT
#define dci_rcu_read_lock()		rcu_read_lock()
#define dci_rcu_read_unlock()		rcu_read_unlock()
#else
/*
 * Without a preemption count (5.10's voluntary preemption) a read section
 * leaves no trace the shim could read back: these count the sections on
 * the CPU, which the reader cannot leave before unlocking (kshim/rcu.c).
 */
void dci_plat_rcu_read_lock(void);
void dci_plat_rcu_read_unlock(void);
#define dci_rcu_read_lock()		dci_plat_rcu_read_lock()
#define dci_rcu_read_unlock()		dci_plat_rcu_read_unlock()
#endif
/* Whether the caller is in a read-side section (see kshim/rcu.c). */
bool dci_plat_rcu_read_held(void);
#define dci_rcu_read_held()		dci_plat_rcu_read_held()
/*
 * The core marks its RCU-protected pointers __rcu (the kernel's own; the
 * userspace platform defines it empty), so that sparse sees every access
 * to them go through these macros.  dci_rcu_dereference() is for readers,
 * which must be in a read-side section; _check() for code that may also
 * run under the lock named by @c instead (the writer looking things up);
 * _protected() for the writer, which must hold it.  PROVE_RCU reports any
 * of them used outside what it allows.
 */
#define dci_rcu_dereference(p)		rcu_dereference(p)
#define dci_rcu_dereference_check(p, c)	rcu_dereference_check(p, c)
#define dci_rcu_dereference_protected(p, c) rcu_dereference_protected(p, c)
#define dci_rcu_assign_pointer(p, v)	rcu_assign_pointer(p, v)
#define dci_rcu_init_pointer(p, v)	RCU_INIT_POINTER(p, v)
#define dci_rcu_access_pointer(p)	rcu_access_pointer(p)
#define dci_call_rcu(head, fn)		call_rcu((head), (fn))
#define dci_synchronize_rcu()		synchronize_rcu()
#define dci_rcu_barrier()		rcu_barrier()

/* ------------------------------------------------------------------ */
/* Reference counts: the count and the operations on it that the       */
/* state machine of lib/platform/refcount.h is written over.           */
/*
 * Why not refcount_t itself: its reports are WARN_ONCE(), and a kernel
 * booted with panic_on_warn=1 (the test kernel; many fleets) panics on the
 * first one.  The library reports caller misuse such as a put after the
 * last one (iocomp) and keeps going, and one shared test case relies on
 * exactly that.  So the same state machine is written over atomic_t and
 * reports through dci_plat_refcount_warn(), which counts into
 * dc_warn_count() and prints the first misuse at each place that uses a
 * refcount operation (refcount_t's own reports go by the kind of misuse).
 */

typedef struct { atomic_t refs; } dci_refcount_t;

/*
 * Macros rather than inline functions: the state machine then compiles to
 * exactly what it did when it called atomic_t's operations itself.
 */
#define dci_plat_refs_read(r)		atomic_read(&(r)->refs)
#define dci_plat_refs_read_acquire(r)	atomic_read_acquire(&(r)->refs)
#define dci_plat_refs_zero_acquire(r)	(!atomic_read_acquire(&(r)->refs))
#define dci_plat_refs_set(r, n)		atomic_set(&(r)->refs, (n))
#define dci_plat_refs_set_release(r, n)	atomic_set_release(&(r)->refs, (n))
#define dci_plat_refs_fetch_inc_relaxed(r) atomic_fetch_inc_relaxed(&(r)->refs)
#define dci_plat_refs_fetch_dec_release(r) atomic_fetch_dec_release(&(r)->refs)
/* Release only: the last one's acquire follows, as refcount_dec_and_test(). */
#define dci_plat_refs_fetch_dec_put(r)	atomic_fetch_dec_release(&(r)->refs)
/* The acquire of the last put: from the control dependency on the count. */
#define dci_plat_refs_acquire_last()	smp_acquire__after_ctrl_dep()
#define dci_plat_refs_dec_above_zero(r)	(atomic_dec_return_release(&(r)->refs) > 0)
#define dci_plat_refs_cmpxchg_weak_acquire(r, old, new)			\
	atomic_try_cmpxchg_acquire(&(r)->refs, (old), (new))
#define dci_plat_refs_cmpxchg_weak_release(r, old, new)			\
	atomic_try_cmpxchg_release(&(r)->refs, (old), (new))
/* The winner's later writes stay after it: a control dependency. */
#define dci_plat_refs_cmpxchg_claim(r, old, new)			\
	atomic_try_cmpxchg_release(&(r)->refs, (old), (new))

/* The state machine itself, the same in userspace. */
#include "refcount.h"

/* The one small deterministic generator (lib/platform/prng.h). */
#include "prng.h"

/* ------------------------------------------------------------------ */
/* Wait queues: a wait_queue_head_t; sleeps are killable.              */

struct dci_waitq {
	wait_queue_head_t head;
};

void dci_waitq_init(struct dci_waitq *wq);
void dci_waitq_destroy(struct dci_waitq *wq);
void dci_waitq_wake_all(struct dci_waitq *wq);

/* One sleeper, for the macro below (kshim/waitq.c). */
struct dci_plat_sleep {
	struct dci_waitq *wq;
	struct wait_queue_entry entry;
	long left;		/* jiffies, or MAX_SCHEDULE_TIMEOUT */
	uint64_t deadline;	/* dci_now_ns() at which the wait times out */
	bool killable;
};

void dci_plat_sleep_begin(struct dci_plat_sleep *s, struct dci_waitq *wq,
			  uint64_t timeout_ns, bool killable);
int dci_plat_sleep_prepare(struct dci_plat_sleep *s);
void dci_plat_sleep(struct dci_plat_sleep *s);
void dci_plat_sleep_end(struct dci_plat_sleep *s);

/*
 * dci_waitq_wait_timeout(wq, cond, timeout_ns) - sleep until @cond is true or
 * @timeout_ns passes (UINT64_MAX: no timeout).  Wakers change the state the
 * condition reads and then call dci_waitq_wake_all().
 *
 * The loop of wait_event_killable_timeout(): the task is queued and marked
 * sleeping before @cond is tested, so a wake-up between the test and the
 * sleep is not lost.  Killable, as the design asks of every wait in the
 * kernel: a fatal signal ends it with -EINTR (not -ERESTARTSYS, which the
 * core cannot name and userspace never returns).  Process context only.
 * Returns 0 when the condition became true, -ETIMEDOUT or -EINTR otherwise.
 */
#define __dc_waitq_wait(wq, cond, timeout_ns, killable) ({		\
	struct dci_plat_sleep __dc_s;					\
	int __dc_ret;							\
	dci_plat_sleep_begin(&__dc_s, (wq), (timeout_ns), (killable));	\
	for (;;) {							\
		int __dc_sig = dci_plat_sleep_prepare(&__dc_s);		\
		__dc_ret = 0;						\
		if (cond)						\
			break;						\
		__dc_ret = __dc_sig ? __dc_sig : -ETIMEDOUT;		\
		if (__dc_sig || !__dc_s.left)				\
			break;						\
		dci_plat_sleep(&__dc_s);					\
	}								\
	dci_plat_sleep_end(&__dc_s);					\
	__dc_ret;							\
})

#define dci_waitq_wait_timeout(wq, cond, timeout_ns)			\
	__dc_waitq_wait(wq, cond, timeout_ns, true)

/*
 * dci_waitq_wait_uninterruptible(wq, cond) - sleep until @cond is true, deaf
 * to signals: for the few waits that must not end early (an eviction waiting
 * for pins), which would otherwise spin once a fatal signal is pending.
 */
#define dci_waitq_wait_uninterruptible(wq, cond)				\
	((void)__dc_waitq_wait(wq, cond, UINT64_MAX, false))

/* The same with a bound: 0 when @cond became true, else -ETIMEDOUT. */
#define dci_waitq_wait_uninterruptible_timeout(wq, cond, timeout_ns)	\
	__dc_waitq_wait(wq, cond, timeout_ns, false)

/* ------------------------------------------------------------------ */
/* Per-CPU counters (statistics): a set of @n 64-bit counters, each CPU */
/* adding to its own copy with this_cpu_add() (one unlocked instruction */
/* on x86, safe against preemption and interrupts); reading sums the    */
/* copies of every possible CPU.  Counts of a CPU that goes offline     */
/* stay in its copy, so nothing is lost.                                */

struct dci_pcounters {
	u64 __percpu *p;
	unsigned int n;
};

/* 0, or -ENOMEM.  Process context (kshim/alloc.c). */
int dci_pcounters_init(struct dci_pcounters *pc, unsigned int n);
/* Nobody adds any more.  Process context. */
void dci_pcounters_destroy(struct dci_pcounters *pc);
/* Add every CPU's count of each counter to @sum[0..n). */
void dci_pcounters_sum(const struct dci_pcounters *pc, uint64_t *sum);

/* Add @v to counter @i of @pc for the calling CPU.  Any context. */
static inline void dci_pcounter_add(struct dci_pcounters *pc, unsigned int i,
				   uint64_t v)
{
	this_cpu_add(pc->p[i], v);
}

/*
 * For a hot path: a copy of what it needs of a set, the per-CPU pointer.
 * dci_pcounter_ref_ready() says whether the caller may call into the
 * library and add with dci_pcounter_ref_add() (the userspace build tests
 * both in one compare): always, in the kernel.
 */
typedef u64 __percpu *dci_pcounter_ref_t;

static inline dci_pcounter_ref_t dci_pcounter_ref(const struct dci_pcounters *pc)
{
	return pc->p;
}

static inline bool dci_pcounter_ref_ready(dci_pcounter_ref_t ref)
{
	return true;
}

/* Add @v to counter @i of the set: dci_pcounter_add(). */
static inline void dci_pcounter_ref_add(dci_pcounter_ref_t ref, unsigned int i,
				       uint64_t v)
{
	this_cpu_add(ref[i], v);
}

/* ------------------------------------------------------------------ */
/* Pin slots: none in the kernel.  Every pin is counted in its range,  */
/* because a pin may be held across a fault's I/O (the fault sleeps    */
/* with it, and its task may migrate): a per-CPU slot would have to    */
/* follow the task, and a per-task slot would be a pointer the         */
/* reclaimer cannot find without walking every task.  The core tests   */
/* DCI_PLAT_PIN_SLOTS, so the slot code compiles away.                  */

#define DCI_PLAT_PIN_SLOTS	0

typedef uintptr_t dci_pin_slot_t;

static __always_inline dci_pin_slot_t *dci_pin_slot_first(dci_pcounter_ref_t ref)
{
	return NULL;
}

static __always_inline bool dci_pin_slot_free(const dci_pin_slot_t *slot)
{
	return false;
}

static __always_inline void dci_pin_slot_publish(dci_pin_slot_t *slot, const void *p)
{
}

static __always_inline dci_pin_slot_t *dci_pin_slot_take_more(dci_pin_slot_t *first,
							    const void *p)
{
	return NULL;
}

static __always_inline void dci_pcounter_slot_add(dci_pcounter_ref_t ref,
						 dci_pin_slot_t *first,
						 unsigned int i, uint64_t v)
{
	this_cpu_add(ref[i], v);
}

static inline const void *dci_pin_slot_drop(dci_pin_slot_t *slot)
{
	return NULL;
}

static inline bool dci_pin_slots_hold(const struct dci_pcounters *pc,
				      const void *p)
{
	return false;
}

/* ------------------------------------------------------------------ */
/* The calling thread, as an address no other live thread shares: the  */
/* current task (an interrupt handler runs as the task it interrupted, */
/* which is nesting on that task's stack).                             */

static inline const void *dci_thread_self(void)
{
	return current;
}

/* ------------------------------------------------------------------ */
/* Workers: a function run in process context when queued (a work     */
/* item on the unbound system workqueue).  Queueing a queued worker    */
/* does nothing; the function may queue its own worker again.          */
/* dci_worker_stop() waits for a running call and drops a pending one. */
/* dci_worker_queue_delayed() runs it no earlier than the delay from now */
/* (rounded up to jiffies), unless it is already queued (then nothing); */
/* dci_worker_queue() on a delayed worker makes it run now.              */

struct dci_worker {
	struct delayed_work work;
	spinlock_t lock;		/* orders queueing against stopping */
	bool stopped;
	void (*fn)(struct dci_worker *w);
};

int dci_worker_start(struct dci_worker *w, void (*fn)(struct dci_worker *w),
		     const char *name);
void dci_worker_queue(struct dci_worker *w);
void dci_worker_queue_delayed(struct dci_worker *w, uint64_t delay_ns);
void dci_worker_stop(struct dci_worker *w);

/* ------------------------------------------------------------------ */
/* Callers: every kernel context may call in (RCU needs no             */
/* registration) and a module is never forked.                         */

static inline int dci_caller_check(const char *fn)
{
	return 0;
}

static inline int dci_fork_check(const char *fn)
{
	return 0;
}

static inline bool dci_caller_ok(void)
{
	return true;
}

/* ------------------------------------------------------------------ */
/* Trace points (trace events of system daxcache): dci_trace_*()        */

#include "trace.h"

#endif /* DCI_PLATFORM_KERNEL_H */
