/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * platform.h - the shim contract, userspace flavour.
 *
 * The portable core (lib/core/) includes only this header and core headers.
 * Everything that differs between userspace and the kernel lives here (and
 * in lib/platform/kernel/platform.h): locks, RCU, atomics, the operations
 * refcounts are written over (lib/platform/refcount.h), wait queues,
 * workers, allocation, logging and time.  Names say what they mean, not how
 * they are done.
 *
 * Userspace: liburcu (memb flavour, read side inlined through _LGPL_SOURCE),
 * pthreads and C11 atomics.
 */
#ifndef DCI_PLATFORM_USER_H
#define DCI_PLATFORM_USER_H

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>


/* ------------------------------------------------------------------ */
/* Compiler helpers                                                     */

#define dci_likely(x)		__builtin_expect(!!(x), 1)
#define dci_unlikely(x)		__builtin_expect(!!(x), 0)
#define dci_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define DCI_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define dci_static_assert(c, msg) _Static_assert(c, msg)
/*
 * After a public function's definition: its entry in the shared library's
 * version script, which the build makes from these lines (lib/mksym).  The
 * declaration it expands to only makes the compiler check the name.
 */
#define DCI_EXPORT(sym)		extern __typeof__(sym) sym
/*
 * After an internal helper that test cases call: nothing to do here (the
 * tests link the core's convenience library); the kernel exports it to its
 * test module.
 */
#define DCI_TEST_EXPORT(sym)	extern __typeof__(sym) sym
/*
 * After an internal function of libdaxcache that libdaxcache-sim calls (its
 * log): its entry in libdaxcache.so's private version node (lib/mksym), no
 * part of the ABI, as the kernel exports it to the test module.
 */
#define DCI_PRIVATE_EXPORT(sym)	extern __typeof__(sym) sym
#define dci_prefetch(p)		__builtin_prefetch(p)
#define dci_noinline		__attribute__((__noinline__))
#define dci_cold			__attribute__((__cold__))
#define dci_always_inline	inline __attribute__((__always_inline__))
/*
 * On a large local that the code writes before it reads: not zeroed on
 * each call when the library is built with -ftrivial-auto-var-init.
 */
#if defined(__has_attribute) && __has_attribute(__uninitialized__)
#define dci_uninitialized	__attribute__((__uninitialized__))
#else
#define dci_uninitialized
#endif
/*
 * A global of the library that no other object uses: addressed directly
 * (one instruction), not through the global offset table.
 */
#define DCI_HIDDEN		__attribute__((__visibility__("hidden")))
#define DCI_CACHELINE		64
#define __dc_cacheline_aligned	__attribute__((aligned(DCI_CACHELINE)))

/*
 * A ThreadSanitizer build: the few hot operations written as x86 assembly
 * below are C11 atomics there instead, which TSan sees.
 */
#if defined(__SANITIZE_THREAD__)
#define DCI_PLAT_TSAN		1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DCI_PLAT_TSAN		1
#endif
#endif
#ifndef DCI_PLAT_TSAN
#define DCI_PLAT_TSAN		0
#endif
#if (defined(__x86_64__) || defined(__i386__)) && !DCI_PLAT_TSAN
#define DCI_PLAT_X86_ASM		1
#else
#define DCI_PLAT_X86_ASM		0
#endif

/* ------------------------------------------------------------------ */
/* Plain shared-variable access and ordering (kernel LKMM vocabulary).  */

#define dci_read_once(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define dci_write_once(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define dci_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define dci_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
/*
 * dci_read_once_ne(x, v) - whether @x, read once, differs from @v (of @x's
 * type, 1, 2, 4 or 8 bytes): on x86 one compare with @x in memory, which a
 * compiler never makes of an atomic load and a compare (a hot path's
 * identity checks).
 */
#if DCI_PLAT_X86_ASM
#define dci_read_once_ne(x, v) ({					\
	bool __dc_ne;							\
	__asm__ __volatile__("cmp %2, %1" : "=@ccne"(__dc_ne)		\
			     : "m"(x), "r"((__typeof__(x))(v)));	\
	__dc_ne;							\
})
#else
#define dci_read_once_ne(x, v)	(dci_read_once(x) != (v))
#endif
/*
 * dci_read_racy(x) - read @x (an aligned word) that a writer may be storing
 * with dci_write_once() meanwhile, where the caller copes with either value
 * (the kernel's data_race()).  A plain load, so that the compiler may fold
 * it into the instruction that uses it (a compare with memory), which it
 * never does with an atomic load; under ThreadSanitizer a relaxed atomic
 * load, so that the tool knows the race is meant.
 */
#if DCI_PLAT_TSAN
#define dci_read_racy(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#else
#define dci_read_racy(x)		(x)
#endif
/*
 * dci_inc_racy(x) - add one to @x, a 32-bit counter that other threads may
 * increment at the same time, where the caller copes with losing one of
 * two racing increments (readers use dci_read_once()).  On x86 one add to
 * memory, not locked, which a compiler never makes of an atomic load and
 * store; elsewhere, and under ThreadSanitizer, those two.
 */
#if DCI_PLAT_X86_ASM
#define dci_inc_racy(x) do {						\
	_Static_assert(sizeof(x) == 4, "dci_inc_racy: a 32-bit counter");\
	__asm__ __volatile__("addl $1, %0" : "+m"(x));			\
} while (0)
#else
#define dci_inc_racy(x)		dci_write_once(x, dci_read_once(x) + 1)
#endif
#define dci_smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define dci_smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define dci_smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
/* Full ordering after an atomic read-modify-write (free on x86). */
#if defined(__x86_64__) || defined(__i386__)
#define dci_smp_mb__after_atomic() __asm__ __volatile__("" ::: "memory")
#else
#define dci_smp_mb__after_atomic() dci_smp_mb()
#endif
#if defined(__x86_64__) || defined(__i386__)
#define dci_cpu_relax()		__builtin_ia32_pause()
#else
#define dci_cpu_relax()		__asm__ __volatile__("" ::: "memory")
#endif

/* 64-bit atomic counters (statistics, generations). */
typedef struct { _Atomic uint64_t v; } dci_atomic64_t;
#define dci_atomic64_read(a)	atomic_load_explicit(&(a)->v, memory_order_relaxed)
#define dci_atomic64_set(a, x)	atomic_store_explicit(&(a)->v, (x), memory_order_relaxed)
#define dci_atomic64_add(a, x)	((void)atomic_fetch_add_explicit(&(a)->v, (x), memory_order_relaxed))
#define dci_atomic64_inc(a)	dci_atomic64_add(a, 1)

typedef struct { _Atomic int v; } dci_atomic_t;
#define dci_atomic_read(a)	atomic_load_explicit(&(a)->v, memory_order_relaxed)
#define dci_atomic_set(a, x)	atomic_store_explicit(&(a)->v, (x), memory_order_relaxed)
#define dci_atomic_inc(a)	((void)atomic_fetch_add_explicit(&(a)->v, 1, memory_order_relaxed))
#define dci_atomic_dec(a)	((void)atomic_fetch_sub_explicit(&(a)->v, 1, memory_order_relaxed))
/* Whether @a, read as dci_atomic_read(), is not 0: one compare on x86. */
#if DCI_PLAT_X86_ASM
#define dci_atomic_nonzero(a) ({						\
	bool __dc_nz;							\
	__asm__ __volatile__("cmpl $0, %1" : "=@ccne"(__dc_nz)		\
			     : "m"(*(const int *)(const void *)&(a)->v));	\
	__dc_nz;							\
})
#else
#define dci_atomic_nonzero(a)	(dci_atomic_read(a) != 0)
#endif

/* ------------------------------------------------------------------ */
/* Logging and one-time warnings                                        */

enum dci_log_level { DCI_LOG_ERR = 3, DCI_LOG_WARNING = 4, DCI_LOG_INFO = 6, DCI_LOG_DEBUG = 7 };

void dci_plat_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define dci_pr_err(fmt, ...)	dci_plat_log(DCI_LOG_ERR, "daxcache: " fmt, ##__VA_ARGS__)
#define dci_pr_warn(fmt, ...)	dci_plat_log(DCI_LOG_WARNING, "daxcache: " fmt, ##__VA_ARGS__)
#define dci_pr_info(fmt, ...)	dci_plat_log(DCI_LOG_INFO, "daxcache: " fmt, ##__VA_ARGS__)

void dci_plat_warn_note(void);

/*
 * dci_warn_once(cond, fmt, ...) - evaluate @cond; the first time it is true
 * at this call site print a warning.  Returns the truth value of @cond.
 */
#define dci_warn_once(cond, fmt, ...) ({					\
	static bool __dc_warned;					\
	bool __dc_c = !!(cond);						\
	if (dci_unlikely(__dc_c)) {					\
		dci_plat_warn_note();					\
		if (!__atomic_exchange_n(&__dc_warned, true,		\
					 __ATOMIC_RELAXED))		\
			dci_plat_log(DCI_LOG_WARNING,			\
				     "daxcache: WARNING at %s:%d: " fmt,	\
				     __FILE__, __LINE__, ##__VA_ARGS__);	\
	}								\
	__dc_c;								\
})

/* ------------------------------------------------------------------ */
/* Time                                                                 */

static inline uint64_t dci_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Busy-wait @ns nanoseconds (latency models need accuracy, not sleep). */
static inline void dci_delay_ns(uint64_t ns)
{
	uint64_t end = dci_now_ns() + ns;

	while (dci_now_ns() < end)
		dci_cpu_relax();
}

/* ------------------------------------------------------------------ */
/* Copies to and from a window mapping                                  */

/*
 * A build whose copies a sanitizer checks (it does not see inside assembly)
 * or whose target is not x86-64 copies with memcpy().
 */
#if defined(__SANITIZE_ADDRESS__)
#define DCI_PLAT_ASAN		1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DCI_PLAT_ASAN		1
#endif
#endif
#ifndef DCI_PLAT_ASAN
#define DCI_PLAT_ASAN		0
#endif
#if DCI_PLAT_X86_ASM && defined(__x86_64__) && !DCI_PLAT_ASAN
#define DCI_PLAT_COPY_ASM	1
#else
#define DCI_PLAT_COPY_ASM	0
#endif

/* Set once by dci_plat_window_copy_init(): the CPU has fast string moves. */
extern bool dci_plat_fast_string;
void dci_plat_window_copy_init(void);

/*
 * Copy @len bytes between a window mapping and a caller's buffer.  On an
 * x86-64 CPU with fast string moves (ERMS) one rep movsb, as the kernel
 * copies; elsewhere memcpy().  glibc's memcpy() moves a few KiB with
 * 512-bit registers where the CPU has them: a server thread that uses them
 * carries that register state through every context switch from then on,
 * and its first such load after a switch may stall.  On this project's
 * test machine (a PVM guest) that load took a quarter of daxfs's samples
 * while it served 4 KiB reads from the window, rep movsb 3%.
 * dci_plat_window_copy_init() runs before the first copy (the mmap
 * backend's create calls it).
 */
static inline void dci_plat_window_copy(void *dst, const void *src, size_t len)
{
#if DCI_PLAT_COPY_ASM
	if (dci_likely(dci_plat_fast_string)) {
		__asm__ __volatile__("rep movsb"
				     : "+D"(dst), "+S"(src), "+c"(len)
				     : : "memory");
		return;
	}
#endif
	memcpy(dst, src, len);
}

/* ------------------------------------------------------------------ */
/* Allocation (with a fault-injection hook for tests)                   */

/*
 * Each dci_alloc()/dci_zalloc() call site owns a descriptor, and a pointer to
 * it goes into the ELF section "dci_alloc_sites" (pointers, not the
 * descriptors: an array of 8-byte pointers has no padding whatever a
 * sanitizer adds around globals).  The linker gathers the section from
 * every object linked in, so the fault-injection API of <daxcache/fault.h>
 * can list every site at run time, count the calls from each one and make
 * a chosen one fail.
 */
struct dci_alloc_site {
	const char *file;
	const char *func;
	unsigned int line;
	_Atomic unsigned long calls;	/* while recording */
	_Atomic unsigned long failures;	/* failed on purpose */
};

/*
 * The section's name, spelled once: the attribute takes it as a string,
 * fault.c the linker's bounds of it (__start_ and __stop_ the name).
 */
#define DCI_ALLOC_SITES		dci_alloc_sites
#define DCI_ALLOC_STR_(x)	#x
#define DCI_ALLOC_STR(x)	DCI_ALLOC_STR_(x)
#define DCI_ALLOC_PASTE_(a, b)	a##b
#define DCI_ALLOC_PASTE(a, b)	DCI_ALLOC_PASTE_(a, b)
#define DCI_ALLOC_SITES_START	DCI_ALLOC_PASTE(__start_, DCI_ALLOC_SITES)
#define DCI_ALLOC_SITES_STOP	DCI_ALLOC_PASTE(__stop_, DCI_ALLOC_SITES)

/* Returns memory aligned to DCI_CACHELINE, or NULL. */
void *dci_plat_alloc(struct dci_alloc_site *site, size_t size, bool zero);
/* What dci_plat_alloc_unaligned() memory is aligned to, at least. */
#define DCI_ALLOC_MIN_ALIGN	__alignof__(max_align_t)
/*
 * Returns memory aligned to DCI_ALLOC_MIN_ALIGN (malloc's), or NULL:
 * cheaper than dci_plat_alloc(), whose posix_memalign() costs glibc
 * hundreds of instructions.  Freed with dci_free() like the rest.
 */
void *dci_plat_alloc_unaligned(struct dci_alloc_site *site, size_t size);

/*
 * Whether the hooks of <daxcache/fault.h> fail this allocation from @site,
 * dci_fault_should_fail(): only in test builds (fault.c, compiled with
 * DCI_FAULT_INJECTION); the installed library never fails an allocation on
 * purpose.
 */
#include "fault_hook.h"

#define dci_plat_site_here(call) ({					\
	static struct dci_alloc_site __dc_site = {			\
		.file = __FILE__, .func = __func__, .line = __LINE__,	\
	};								\
	static struct dci_alloc_site *const __dc_site_ref		\
		__attribute__((used, section(DCI_ALLOC_STR(DCI_ALLOC_SITES)))) = \
		&__dc_site;						\
	(void)__dc_site_ref;						\
	call;								\
})
#define dci_plat_alloc_here(size, zero)					\
	dci_plat_site_here(dci_plat_alloc(&__dc_site, (size), (zero)))

#define dci_alloc(size)		dci_plat_alloc_here((size), false)
#define dci_zalloc(size)		dci_plat_alloc_here((size), true)
/* Not zeroed, DCI_ALLOC_MIN_ALIGN aligned: see dci_plat_alloc_unaligned(). */
#define dci_alloc_unaligned(size)					\
	dci_plat_site_here(dci_plat_alloc_unaligned(&__dc_site, (size)))
void dci_free(void *p);

/* ------------------------------------------------------------------ */
/* Locks                                                                */

/*
 * The core's spinlocks and mutexes: one futex word each, 0 free, 1 held,
 * 2 held with a thread asleep on it (or about to be).  Taking a free lock
 * is one compare-and-swap and dropping it one exchange, inline: a miss
 * takes two locks, and glibc's pthread_mutex_lock()/unlock() cost some 60
 * instructions a pair more.  A thread that finds the lock held sleeps in
 * the kernel (dci_plat_lock_wait()), as it would in a pthread mutex: a
 * spinlock's holder may be preempted here, so nothing spins.  The acquire
 * and release orderings are the happens-before that ThreadSanitizer sees.
 */
struct dci_plat_lock {
	atomic_int word;
};

typedef struct dci_plat_lock dci_spinlock_t;
typedef struct dci_plat_lock dci_mutex_t;

void dci_plat_lock_wait(struct dci_plat_lock *l);
void dci_plat_lock_wake(struct dci_plat_lock *l);
void dci_plat_cond_init(pthread_cond_t *cond);

static inline void dci_plat_lock_init(struct dci_plat_lock *l)
{
	atomic_init(&l->word, 0);
}

static inline bool dci_plat_trylock(struct dci_plat_lock *l)
{
	int free = 0;

	return atomic_compare_exchange_strong_explicit(&l->word, &free, 1,
						       memory_order_acquire,
						       memory_order_relaxed);
}

static inline void dci_plat_lock(struct dci_plat_lock *l)
{
	if (dci_unlikely(!dci_plat_trylock(l)))
		dci_plat_lock_wait(l);
}

static inline void dci_plat_unlock(struct dci_plat_lock *l)
{
	if (dci_unlikely(atomic_exchange_explicit(&l->word, 0,
						 memory_order_release) == 2))
		dci_plat_lock_wake(l);
}

#define dci_spin_lock_init(l)	dci_plat_lock_init(l)
#define dci_spin_lock(l)		dci_plat_lock(l)
#define dci_spin_trylock(l)	dci_plat_trylock(l)
#define dci_spin_unlock(l)	dci_plat_unlock(l)
#define dci_spin_lock_destroy(l)	((void)(l))

#define dci_mutex_init(m)	dci_plat_lock_init(m)
#define dci_mutex_lock(m)	dci_plat_lock(m)
#define dci_mutex_trylock(m)	dci_plat_trylock(m)
#define dci_mutex_unlock(m)	dci_plat_unlock(m)
#define dci_mutex_destroy(m)	((void)(m))

/*
 * Whether the lock validator knows that the caller holds @l: for the
 * conditions of the RCU checks (rcu.h) and assertions only, never for
 * control flow.  Userspace has no validator: always true.
 */
#define dci_lockdep_is_held(l)	((void)(l), true)

/*
 * A function that returns with @l held it did not hold on entry, or the
 * reverse: for sparse's lock-context check in the kernel build.
 */
#define __dc_acquires(l)
#define __dc_releases(l)

/* ------------------------------------------------------------------ */
/* RCU                                                                  */

#include "rcu.h"

/* ------------------------------------------------------------------ */
/* Reference counts: the count and the operations on it that the       */
/* state machine of lib/platform/refcount.h is written over, as C11    */
/* atomics, and as single x86 instructions on the hot paths.           */

typedef struct { _Atomic int refs; } dci_refcount_t;

static inline int dci_plat_refs_read(const dci_refcount_t *r)
{
	return atomic_load_explicit(&((dci_refcount_t *)r)->refs,
				    memory_order_relaxed);
}

static inline int dci_plat_refs_read_acquire(const dci_refcount_t *r)
{
	return atomic_load_explicit(&((dci_refcount_t *)r)->refs,
				    memory_order_acquire);
}

/*
 * Whether the count is 0, read with acquire: on x86 one compare with
 * memory (x86 loads are acquire loads; later loads in the caller are the
 * volatile compares of dci_read_once_ne(), which stay after it).
 */
static inline bool dci_plat_refs_zero_acquire(const dci_refcount_t *r)
{
#if DCI_PLAT_X86_ASM
	bool zero;

	__asm__ __volatile__("cmpl $0, %1" : "=@cce"(zero) : "m"(r->refs));
	return zero;
#else
	return !atomic_load_explicit(&((dci_refcount_t *)r)->refs,
				     memory_order_acquire);
#endif
}

static inline void dci_plat_refs_set(dci_refcount_t *r, int n)
{
	atomic_store_explicit(&r->refs, n, memory_order_relaxed);
}

static inline void dci_plat_refs_set_release(dci_refcount_t *r, int n)
{
	atomic_store_explicit(&r->refs, n, memory_order_release);
}

static inline int dci_plat_refs_fetch_inc_relaxed(dci_refcount_t *r)
{
	return atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
}

static inline int dci_plat_refs_fetch_dec_release(dci_refcount_t *r)
{
	return atomic_fetch_sub_explicit(&r->refs, 1, memory_order_release);
}

/*
 * acq_rel rather than release plus a fence on the last one: the same
 * instruction on x86, and ThreadSanitizer understands it.
 */
static inline int dci_plat_refs_fetch_dec_put(dci_refcount_t *r)
{
	return atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel);
}

/* The acquire of the last put: dci_plat_refs_fetch_dec_put() made it. */
static inline void dci_plat_refs_acquire_last(void)
{
}

/* On x86 one locked decrement and its flags. */
static inline bool dci_plat_refs_dec_above_zero(dci_refcount_t *r)
{
#if DCI_PLAT_X86_ASM
	bool above;

	/* A locked instruction is a full barrier: release and more. */
	__asm__ __volatile__("lock decl %0" : "+m"(*(int *)(void *)&r->refs),
			     "=@ccg"(above) : : "memory");
	return above;
#else
	return atomic_fetch_sub_explicit(&r->refs, 1, memory_order_release) > 1;
#endif
}

static inline bool dci_plat_refs_cmpxchg_weak_acquire(dci_refcount_t *r,
						      int *old, int new)
{
	return atomic_compare_exchange_weak_explicit(&r->refs, old, new,
			memory_order_acquire, memory_order_relaxed);
}

static inline bool dci_plat_refs_cmpxchg_weak_release(dci_refcount_t *r,
						      int *old, int new)
{
	return atomic_compare_exchange_weak_explicit(&r->refs, old, new,
			memory_order_release, memory_order_relaxed);
}

/*
 * Acquire too: the winner goes on to rewrite the object, which must come
 * after what the last unpinner read of it (the kernel gets this from the
 * control dependency; C11 needs it said).
 */
static inline bool dci_plat_refs_cmpxchg_claim(dci_refcount_t *r, int *old,
					       int new)
{
	return atomic_compare_exchange_strong_explicit(&r->refs, old, new,
			memory_order_acq_rel, memory_order_relaxed);
}

/* The state machine itself, the same in the kernel. */
#include "refcount.h"

/* The one small deterministic generator (lib/platform/prng.h). */
#include "prng.h"

/* ------------------------------------------------------------------ */
/* Wait queues: a condition re-checked under an internal lock.          */

struct dci_waitq {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long waiters;
};

void dci_waitq_init(struct dci_waitq *wq);
void dci_waitq_destroy(struct dci_waitq *wq);
void dci_waitq_wake_all(struct dci_waitq *wq);
/* internal helpers for the macros below */
void dci_plat_waitq_prepare(struct dci_waitq *wq);
void dci_plat_waitq_finish(struct dci_waitq *wq);
int dci_plat_waitq_sleep(struct dci_waitq *wq, uint64_t deadline_ns);

/*
 * dci_waitq_wait_timeout(wq, cond, timeout_ns) - sleep until @cond is true or
 * @timeout_ns passes (UINT64_MAX, or anything that would end past the
 * clock's range: no timeout).  Wakers change the state the condition reads
 * and then call dci_waitq_wake_all().
 * Returns 0 when the condition became true, -ETIMEDOUT otherwise.
 */
#define dci_waitq_wait_timeout(wq, cond, timeout_ns) ({			\
	uint64_t __dc_to = (timeout_ns), __dc_now = dci_now_ns();	\
	/* Saturating: a timeout past the end of time is none. */	\
	uint64_t __dc_dl = __dc_to >= UINT64_MAX - __dc_now ? UINT64_MAX :	\
			   __dc_now + __dc_to;				\
	int __dc_ret = 0;						\
	dci_plat_waitq_prepare(wq);					\
	while (!(cond)) {						\
		__dc_ret = dci_plat_waitq_sleep((wq), __dc_dl);		\
		if (__dc_ret) {						\
			if (cond)					\
				__dc_ret = 0;				\
			break;						\
		}							\
	}								\
	dci_plat_waitq_finish(wq);					\
	__dc_ret;							\
})

/*
 * dci_waitq_wait_uninterruptible(wq, cond) - sleep until @cond is true, for
 * waits that must not end early (in the kernel: deaf to signals).
 */
#define dci_waitq_wait_uninterruptible(wq, cond)				\
	((void)dci_waitq_wait_timeout(wq, cond, UINT64_MAX))

/* The same with a bound: 0 when @cond became true, else -ETIMEDOUT. */
#define dci_waitq_wait_uninterruptible_timeout(wq, cond, timeout_ns)	\
	dci_waitq_wait_timeout(wq, cond, timeout_ns)

/* ------------------------------------------------------------------ */
/* Per-thread counters (statistics): a set of @n 64-bit counters that   */
/* each thread adds to in memory of its own, without a locked           */
/* instruction; reading sums every thread's (per CPU in the kernel).    */
/*                                                                      */
/* A thread gets a small id at its first add (and gives it back when it */
/* exits: a pthread key's destructor); every set keeps a block of       */
/* counters per id, so a thread that exits leaves its counts in the     */
/* block, and the next thread given its id goes on adding to them.      */
/* Each thread remembers the last set it added to, so an add is two     */
/* compares and a plain add.  Threads past the ids there are (or whose  */
/* block could not be allocated) add atomically to one shared block.    */

/* Each block (whole cache lines) starts with an unused word and the    */
/* id's pin slots (below), then the counters: a thread's block pointer  */
/* (dci_plat_pcount_last.block) is its first slot, one word into a     */
/* line, so that no slot ever starts a cache line.                      */

#define DCI_PLAT_PIN_SLOTS	4	/* per thread and set */
/* Words of a block before the counters: the unused one and the slots. */
#define DCI_PCOUNT_HEAD		(1 + DCI_PLAT_PIN_SLOTS)

#define DCI_PCOUNT_CHUNK		64	/* ids per block of blocks */
#define DCI_PCOUNT_CHUNKS	256	/* so up to 16384 live threads */

struct dci_pcounters {
	uint64_t seq;			/* unique to this set, never 0 */
	unsigned int n;
	size_t stride;			/* bytes per id, whole cache lines */
	_Atomic uint64_t *shared;	/* threads without a block */
	pthread_mutex_t lock;		/* allocating chunks */
	char *_Atomic chunk[DCI_PCOUNT_CHUNKS];
};

struct dci_plat_pcount_last {
	uint64_t seq;
	_Atomic uint64_t *block;	/* the block's first slot; counters after */
};

extern __thread struct dci_plat_pcount_last dci_plat_pcount_last
	__attribute__((tls_model("initial-exec")));
void dci_plat_pcounter_add_slow(struct dci_pcounters *pc, unsigned int i,
				uint64_t v);

/* 0, or -ENOMEM.  Process context. */
int dci_pcounters_init(struct dci_pcounters *pc, unsigned int n);
/* Nobody adds any more. */
void dci_pcounters_destroy(struct dci_pcounters *pc);
/* Add every thread's count of each counter to @sum[0..n). */
void dci_pcounters_sum(const struct dci_pcounters *pc, uint64_t *sum);

/*
 * Add @v to a counter of the calling thread's block: one writer, so a plain
 * add; atomic only so that the summing reader may look.  On x86 one add to
 * memory, as the kernel's this_cpu_add() (an aligned 8-byte store is seen
 * whole).
 */
static inline void dci_plat_pcount_bump(_Atomic uint64_t *p, uint64_t v)
{
#if DCI_PLAT_X86_ASM && defined(__x86_64__)
	__asm__("addq %1, %0" : "+m"(*(uint64_t *)(void *)p) : "er"(v));
#else
	atomic_store_explicit(p, atomic_load_explicit(p, memory_order_relaxed) + v,
			      memory_order_relaxed);
#endif
}

/* Add @v to counter @i of @pc for the calling thread.  Any context. */
static inline void dci_pcounter_add(struct dci_pcounters *pc, unsigned int i,
				   uint64_t v)
{
	if (dci_likely(dci_plat_pcount_last.seq == pc->seq)) {
		dci_plat_pcount_bump(&dci_plat_pcount_last.block[DCI_PLAT_PIN_SLOTS + i], v);
		return;
	}
	dci_plat_pcounter_add_slow(pc, i, v);
}

/*
 * For a hot path: a copy of what it needs of a set (dci_pcounter_ref()),
 * kept where it looks anyway, to ask dci_pcounter_ref_ready() whether the
 * calling thread may call into the library (dci_caller_ok()) and can add to
 * the set with dci_pcounter_ref_add(), both in one compare; if not, it
 * takes its slow way (there: dci_caller_check(), then dci_pcounter_add()).
 * Only a thread that dci_caller_ok() passes is ever ready; it stays so while
 * it adds to no other set.
 */
typedef uint64_t dci_pcounter_ref_t;

static inline dci_pcounter_ref_t dci_pcounter_ref(const struct dci_pcounters *pc)
{
	return pc->seq;
}

static inline bool dci_pcounter_ref_ready(dci_pcounter_ref_t ref)
{
	return dci_plat_pcount_last.seq == ref;
}

/* Add @v to counter @i of the set, which dci_pcounter_ref_ready() said the thread is. */
static inline void dci_pcounter_ref_add(dci_pcounter_ref_t ref, unsigned int i,
				       uint64_t v)
{
	(void)ref;
	dci_plat_pcount_bump(&dci_plat_pcount_last.block[DCI_PLAT_PIN_SLOTS + i], v);
}

/* ------------------------------------------------------------------ */
/* Pin slots (hazard pointers): the first DCI_PLAT_PIN_SLOTS words of     */
/* each id's block of a set hold what that id's thread pins, one object */
/* a slot (NULL: free).  Only the thread that owns the id fills a slot  */
/* (dci_pin_slot_publish()), and a pin's slot is emptied by whoever drops */
/* the pin (dci_pin_slot_drop()), any thread; so a pin outlives the      */
/* thread that took it, and the next owner of the id finds the slot     */
/* taken and uses another.  A thread that holds no pin leaves every     */
/* slot of its id empty.  A reclaimer that took an object's count to 0  */
/* then asks whether a slot names it (dci_pin_slots_hold(), after a     */
/* full barrier): every slot published before that barrier is seen,     */
/* and a pin published after it sees the count at 0 (see cache_map.c).  */

typedef _Atomic(uintptr_t) dci_pin_slot_t;

/*
 * The calling thread's first pin slot in the set @ref, which
 * dci_pcounter_ref_ready() said the thread counts into.  No slot starts a
 * cache line (a pointer to an object that does is never a slot's).
 */
static dci_always_inline dci_pin_slot_t *dci_pin_slot_first(dci_pcounter_ref_t ref)
{
	(void)ref;
	return (dci_pin_slot_t *)(void *)dci_plat_pcount_last.block;
}

/*
 * Whether @slot, the calling thread's, is free: only its thread fills it.
 * On x86 one compare with memory (as dci_read_once_ne()).
 */
static dci_always_inline bool dci_pin_slot_free(const dci_pin_slot_t *slot)
{
#if DCI_PLAT_X86_ASM && defined(__x86_64__)
	bool zero;

	__asm__ __volatile__("cmpq $0, %1" : "=@cce"(zero) : "m"(*slot));
	return zero;
#else
	return !atomic_load_explicit((dci_pin_slot_t *)slot, memory_order_relaxed);
#endif
}

/*
 * Publish @p in @slot, a free one of the calling thread's, then a full
 * barrier (one xchg on x86): what the caller reads next is ordered after
 * the publication.
 */
static dci_always_inline void dci_pin_slot_publish(dci_pin_slot_t *slot, const void *p)
{
	atomic_exchange_explicit(slot, (uintptr_t)p, memory_order_seq_cst);
}

/*
 * The same in the first free one of the calling thread's other slots past
 * @first (dci_pin_slot_first()): returns it, or NULL when every slot is taken.
 */
static dci_always_inline dci_pin_slot_t *dci_pin_slot_take_more(dci_pin_slot_t *first,
							     const void *p)
{
	unsigned int i;

	for (i = 1; i < DCI_PLAT_PIN_SLOTS; i++) {
		if (dci_pin_slot_free(&first[i])) {
			dci_pin_slot_publish(&first[i], p);
			return &first[i];
		}
	}
	return NULL;
}

/*
 * dci_pcounter_ref_add() for a thread that holds @first, its first slot in
 * the set @ref: the counters follow the slots in the same block.
 */
static dci_always_inline void dci_pcounter_slot_add(dci_pcounter_ref_t ref,
						  dci_pin_slot_t *first,
						  unsigned int i, uint64_t v)
{
	(void)ref;
	dci_plat_pcount_bump(&((_Atomic uint64_t *)(void *)first)[DCI_PLAT_PIN_SLOTS + i], v);
}

/*
 * Empty @slot, with a full barrier (release for what the pin's holder
 * read before; ordered before the caller's next loads), and return what it
 * held (NULL: it was empty, a misuse).  Any thread.
 */
static inline const void *dci_pin_slot_drop(dci_pin_slot_t *slot)
{
	return (const void *)atomic_exchange_explicit(slot, 0,
						      memory_order_seq_cst);
}

/*
 * Whether a slot of any thread's block of @pc names @p now.  The caller
 * issued a full barrier since it took @p's count to 0.  Any context.
 */
bool dci_pin_slots_hold(const struct dci_pcounters *pc, const void *p);

/* ------------------------------------------------------------------ */
/* The calling thread, as an address no other live thread shares.      */

static inline const void *dci_thread_self(void)
{
	return &dci_plat_pcount_last;
}

/* ------------------------------------------------------------------ */
/* Workers: a function run on a library thread when queued.             */
/* Queueing a queued worker does nothing; the function may queue its   */
/* own worker again.  dci_worker_stop() waits for a running call and     */
/* drops a pending one.  dci_worker_queue_delayed() runs it no earlier   */
/* than the delay from now, unless it is already queued (then nothing);  */
/* dci_worker_queue() on a delayed worker makes it run now.               */
/* dci_worker_start() only prepares: the thread starts at the first      */
/* queue, so that a cache made before a daemonizing fork works in the   */
/* child.  dc_before_fork() parks every thread; they start again when   */
/* queued after the fork (platform.c).                                  */

struct dci_worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* on CLOCK_MONOTONIC */
	bool pending;
	bool stop;
	bool running;			/* the thread exists */
	bool park;			/* the thread is asked to exit, keeping pending */
	uint64_t deadline_ns;		/* when pending: not before (0: now) */
	void (*fn)(struct dci_worker *w);
	const char *name;
	struct dci_worker *next;		/* on the list of all workers */
};

int dci_worker_start(struct dci_worker *w, void (*fn)(struct dci_worker *w),
		     const char *name);
void dci_worker_queue(struct dci_worker *w);
void dci_worker_queue_delayed(struct dci_worker *w, uint64_t delay_ns);
void dci_worker_stop(struct dci_worker *w);

/* ------------------------------------------------------------------ */
/* Callers: registered threads and forked children.                    */

extern __thread unsigned int dci_plat_thread_depth
	__attribute__((tls_model("initial-exec")));
/*
 * The calling thread is registered and this process is not a child forked
 * without dc_before_fork(): one flag, so that the hit path tests one word.
 * Set by the first registration, cleared by the last unregistration and,
 * for the forking thread (a child's only one), when the child is marked.
 */
extern __thread bool dci_plat_caller_ok
	__attribute__((tls_model("initial-exec")));
extern bool dci_plat_fork_broken;
int dci_plat_fork_refuse(const char *fn);
int dci_plat_caller_refuse(const char *fn);

/*
 * dci_caller_check() - 0 if the calling thread may use the library here
 * (a thread that never registered is registered now), else a logged
 * -errno: -ECHILD in a child forked while the library's threads ran
 * without dc_before_fork() (once per process), -ENOMEM if the thread
 * could not be registered.  @fn names the entry point.
 */
static inline int dci_caller_check(const char *fn)
{
	if (dci_likely(dci_plat_caller_ok))
		return 0;
	return dci_plat_caller_refuse(fn);
}

/* dci_caller_ok() - whether dci_caller_check() would pass; silent. */
static inline bool dci_caller_ok(void)
{
	return dci_plat_caller_ok;
}

/* dci_fork_check() - the fork half of dci_caller_check(), for any thread. */
static inline int dci_fork_check(const char *fn)
{
	if (dci_unlikely(dci_read_once(dci_plat_fork_broken)))
		return dci_plat_fork_refuse(fn);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Trace points (USDT probes): dci_trace_*()                            */

#include "trace.h"

#endif /* DCI_PLATFORM_USER_H */
