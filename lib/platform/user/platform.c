// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * platform.c - userspace implementation of the shim contract's stateful
 * part: logging, per-thread counters, workers, window copies, fork, RCU
 * registration (allocation, locks and wait queues are in memwait.c).
 */
/* The USDT probes' semaphores are defined here (trace.h). */
#define DCI_TRACE_DEFINE_SEMAPHORES
#include "platform.h"

#include <signal.h>
#include <stdlib.h>

#include <daxcache/log.h>
#include <daxcache/thread.h>

#if DCI_PLAT_COPY_ASM
#include <cpuid.h>
#endif

#if DCI_PLAT_TSAN
char dci_rcu_tsan_gp;
char dci_rcu_tsan_barrier;
#endif

/* ------------------------------------------------------------------ */
/* Deferred frees (rcu.h)                                               */

unsigned long dci_plat_rcu_pending;
unsigned long dci_plat_rcu_pending_peak;
unsigned long dci_plat_rcu_waits;

/* What liburcu's callback thread runs for every dci_call_rcu() it queued. */
void dci_plat_rcu_callback(struct rcu_head *head)
{
	dci_rcu_head_t *h = dci_container_of(head, dci_rcu_head_t, head);

#if DCI_PLAT_TSAN
	__tsan_acquire(h);
	__tsan_acquire(&dci_rcu_tsan_gp);
#endif
	/* @h may be freed by its callback: not touched after it. */
	h->fn(h);
	__atomic_sub_fetch(&dci_plat_rcu_pending, 1, __ATOMIC_RELEASE);
#if DCI_PLAT_TSAN
	/* What the callback did happens before dci_rcu_barrier() returns. */
	__tsan_release(&dci_rcu_tsan_barrier);
#endif
}

/*
 * dci_call_rcu() found DCI_RCU_PENDING_MAX callbacks queued: run this one
 * here, a grace period from now, instead of queueing one more.
 */
void dci_plat_rcu_run_now(dci_rcu_head_t *h)
{
	__atomic_add_fetch(&dci_plat_rcu_waits, 1, __ATOMIC_RELAXED);
	dci_synchronize_rcu();
	h->fn(h);
}

/* ------------------------------------------------------------------ */
/* Logging                                                              */

static _Atomic unsigned long dci_warnings;
static dc_log_fn_t dci_log_hook;
static void *dci_log_hook_priv;

void dci_plat_log(int level, const char *fmt, ...)
{
	dc_log_fn_t hook = __atomic_load_n(&dci_log_hook, __ATOMIC_ACQUIRE);
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (hook)
		hook(dci_log_hook_priv, level, buf);
	else
		fprintf(stderr, "%s\n", buf);
}
/* libdaxcache-sim logs through it: one hook for both libraries. */
DCI_PRIVATE_EXPORT(dci_plat_log);

void dc_set_log_fn(dc_log_fn_t fn, void *priv)
{
	dci_log_hook_priv = priv;
	__atomic_store_n(&dci_log_hook, fn, __ATOMIC_RELEASE);
}
DCI_EXPORT(dc_set_log_fn);

void dci_plat_warn_note(void)
{
	atomic_fetch_add_explicit(&dci_warnings, 1, memory_order_relaxed);
}

unsigned long dc_warn_count(void)
{
	return atomic_load_explicit(&dci_warnings, memory_order_relaxed);
}
DCI_EXPORT(dc_warn_count);

void dci_plat_refcount_warn(dci_refcount_t *r, const char *what,
			    struct dci_plat_refcount_site *site)
{
	/* Saturate so that the object is never freed (leak rather than UAF). */
	dci_plat_refs_set(r, DCI_REFCOUNT_SATURATED);
	dci_plat_warn_note();
	/* Once per place that misused a count, as dci_warn_once() per site. */
	if (!__atomic_exchange_n(&site->warned, 1, __ATOMIC_RELAXED))
		dci_plat_log(DCI_LOG_WARNING, "daxcache: WARNING: refcount_t: %s at %s:%u",
			     what, site->file, site->line);
}

/* ------------------------------------------------------------------ */
/* Per-thread counters                                                  */

#define DCI_PCOUNT_IDS	(DCI_PCOUNT_CHUNK * DCI_PCOUNT_CHUNKS)

__thread struct dci_plat_pcount_last dci_plat_pcount_last
	__attribute__((tls_model("initial-exec")));
/* The calling thread's id + 1; 0: none yet. */
static __thread unsigned int pcount_id;
/* Taken ids, one bit each; no lock, so that a fork never inherits it held. */
static _Atomic uint64_t pcount_ids[DCI_PCOUNT_IDS / 64];
static pthread_key_t pcount_key;
static bool pcount_key_ok;
static pthread_once_t pcount_once = PTHREAD_ONCE_INIT;
static _Atomic uint64_t pcount_seq;
/*
 * One more than the highest id ever taken: the pin slots' scan stops
 * there (dci_pin_slots_hold()).  Raised before the id's first use.
 */
static _Atomic unsigned int pcount_id_end;

/*
 * A thread exits: its id goes back.  Its counts stay in each set's block
 * for that id (the release orders its last adds before the next owner's).
 */
static void pcount_id_put(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg - 1;

	atomic_fetch_and_explicit(&pcount_ids[id / 64], ~(1ull << (id % 64)),
				  memory_order_release);
	pcount_id = 0;
	dci_plat_pcount_last.seq = 0;
	dci_plat_pcount_last.block = NULL;
}

static void pcount_key_init(void)
{
	pcount_key_ok = !pthread_key_create(&pcount_key, pcount_id_put);
}

/* The calling thread's id + 1, taken now if it has none; 0 if none is left. */
static unsigned int pcount_id_get(void)
{
	unsigned int w, b;

	if (dci_likely(pcount_id))
		return pcount_id;
	pthread_once(&pcount_once, pcount_key_init);
	if (!pcount_key_ok)
		return 0;
	for (w = 0; w < DCI_ARRAY_SIZE(pcount_ids) && !pcount_id; w++) {
		uint64_t v = atomic_load_explicit(&pcount_ids[w], memory_order_relaxed);

		while (~v) {
			b = (unsigned int)__builtin_ctzll(~v);
			/* Acquire: after the last adds of the id's previous owner. */
			if (atomic_compare_exchange_weak_explicit(&pcount_ids[w], &v,
					v | (1ull << b), memory_order_acquire,
					memory_order_relaxed)) {
				unsigned int end = atomic_load_explicit(&pcount_id_end,
									memory_order_relaxed);

				pcount_id = w * 64 + b + 1;
				while (end < pcount_id &&
				       !atomic_compare_exchange_weak_explicit(&pcount_id_end,
						&end, pcount_id, memory_order_release,
						memory_order_relaxed))
					;
				break;
			}
		}
	}
	if (pcount_id &&
	    pthread_setspecific(pcount_key, (void *)(uintptr_t)pcount_id)) {
		pcount_id_put((void *)(uintptr_t)pcount_id);
		return 0;
	}
	return pcount_id;
}

static char *pcount_chunk_alloc(const struct dci_pcounters *pc)
{
	return dci_zalloc(pc->stride * DCI_PCOUNT_CHUNK);
}

int dci_pcounters_init(struct dci_pcounters *pc, unsigned int n)
{
	unsigned int i;

	memset(pc, 0, sizeof(*pc));
	pc->seq = atomic_fetch_add(&pcount_seq, 1) + 1;
	pc->n = n;
	pc->stride = ((DCI_PCOUNT_HEAD + n) * sizeof(uint64_t) + DCI_CACHELINE - 1) &
		     ~(size_t)(DCI_CACHELINE - 1);
	pc->shared = dci_zalloc(n * sizeof(*pc->shared));
	/* The first ids' blocks now: most programs never need another. */
	pc->chunk[0] = pcount_chunk_alloc(pc);
	if (!pc->shared || !pc->chunk[0]) {
		dci_free(pc->shared);
		dci_free(pc->chunk[0]);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		atomic_init(&pc->shared[i], 0);
	pthread_mutex_init(&pc->lock, NULL);
	return 0;
}

void dci_pcounters_destroy(struct dci_pcounters *pc)
{
	unsigned int i;

	for (i = 0; i < DCI_PCOUNT_CHUNKS; i++)
		dci_free(atomic_load_explicit(&pc->chunk[i], memory_order_relaxed));
	dci_free(pc->shared);
	pthread_mutex_destroy(&pc->lock);
}

/*
 * The calling thread's block of @pc, allocated now if need be, as its first
 * pin slot (past the unused word: see DCI_PCOUNT_HEAD); or NULL.
 */
static _Atomic uint64_t *pcount_block(struct dci_pcounters *pc)
{
	unsigned int id = pcount_id_get();
	char *ch;

	if (!id--)
		return NULL;
	ch = atomic_load_explicit(&pc->chunk[id / DCI_PCOUNT_CHUNK],
				  memory_order_acquire);
	if (!ch) {
		pthread_mutex_lock(&pc->lock);
		ch = atomic_load_explicit(&pc->chunk[id / DCI_PCOUNT_CHUNK],
					  memory_order_relaxed);
		if (!ch) {
			ch = pcount_chunk_alloc(pc);
			atomic_store_explicit(&pc->chunk[id / DCI_PCOUNT_CHUNK], ch,
					      memory_order_release);
		}
		pthread_mutex_unlock(&pc->lock);
		if (!ch)
			return NULL;
	}
	return (_Atomic uint64_t *)(void *)(ch + (id % DCI_PCOUNT_CHUNK) * pc->stride) + 1;
}

void dci_plat_pcounter_add_slow(struct dci_pcounters *pc, unsigned int i,
				uint64_t v)
{
	_Atomic uint64_t *b = pcount_block(pc);

	if (!b) {
		atomic_fetch_add_explicit(&pc->shared[i], v, memory_order_relaxed);
		return;
	}
	/*
	 * Only a thread that may call in is remembered: dci_pcounter_ready()
	 * stands for dci_caller_ok() too (the flag's clearers forget it).
	 */
	if (dci_plat_caller_ok) {
		dci_plat_pcount_last.block = b;
		dci_plat_pcount_last.seq = pc->seq;
	}
	dci_plat_pcount_bump(&b[DCI_PLAT_PIN_SLOTS + i], v);
}

void dci_pcounters_sum(const struct dci_pcounters *pc, uint64_t *sum)
{
	const _Atomic uint64_t *b;
	unsigned int c, t, i;
	char *ch;

	for (c = 0; c < DCI_PCOUNT_CHUNKS; c++) {
		ch = atomic_load_explicit(&((struct dci_pcounters *)pc)->chunk[c],
					  memory_order_acquire);
		for (t = 0; ch && t < DCI_PCOUNT_CHUNK; t++) {
			b = (const _Atomic uint64_t *)(const void *)(ch + t * pc->stride);
			for (i = 0; i < pc->n; i++)
				sum[i] += atomic_load_explicit(&b[DCI_PCOUNT_HEAD + i],
							       memory_order_relaxed);
		}
	}
	for (i = 0; i < pc->n; i++)
		sum[i] += atomic_load_explicit(&pc->shared[i], memory_order_relaxed);
}

bool dci_pin_slots_hold(const struct dci_pcounters *pc, const void *p)
{
	/*
	 * Acquire: an id's thread raised the end before its first pin, and a
	 * slot it published before the caller's barrier is seen.
	 */
	unsigned int end = atomic_load_explicit(&pcount_id_end, memory_order_acquire);
	const dci_pin_slot_t *s;
	unsigned int id, i;
	char *ch = NULL;

	for (id = 0; id < end; id++) {
		if (id % DCI_PCOUNT_CHUNK == 0) {
			ch = atomic_load_explicit(&((struct dci_pcounters *)pc)->chunk[id / DCI_PCOUNT_CHUNK],
						  memory_order_acquire);
			if (!ch) {
				id += DCI_PCOUNT_CHUNK - 1;
				continue;
			}
		}
		s = (const dci_pin_slot_t *)(const void *)(ch + (id % DCI_PCOUNT_CHUNK) * pc->stride) + 1;
		/* Acquire: the holder's reads come before an empty slot. */
		for (i = 0; i < DCI_PLAT_PIN_SLOTS; i++)
			if (atomic_load_explicit((dci_pin_slot_t *)&s[i],
						 memory_order_acquire) == (uintptr_t)p)
				return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Workers                                                              */

/*
 * Every prepared worker is on one list, so that dc_before_fork() can park
 * their threads.  A thread starts at the first queue (not at
 * dci_worker_start()) and again at the first queue after a fork, parent or
 * child; while a fork is being prepared a queue only marks the work
 * pending.
 */
static pthread_mutex_t workers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dci_worker *workers;
static bool workers_frozen;		/* between dc_before_fork() and after */

static void *worker_main(void *arg)
{
	struct dci_worker *w = arg;

	dc_thread_register();
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->pending && !w->stop && !w->park)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop || w->park)
			break;
		if (w->deadline_ns && dci_now_ns() < w->deadline_ns) {
			struct timespec ts = {
				.tv_sec = (time_t)(w->deadline_ns / 1000000000ull),
				.tv_nsec = (long)(w->deadline_ns % 1000000000ull),
			};

			/* Woken early by a queue, a stop or nothing: re-check. */
			pthread_cond_timedwait(&w->cond, &w->lock, &ts);
			continue;
		}
		w->pending = false;
		w->deadline_ns = 0;
		pthread_mutex_unlock(&w->lock);
		w->fn(w);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	dc_thread_unregister();
	return NULL;
}

/*
 * Start @w's thread, with every signal blocked (the program's signals are
 * the program's).  Called with w->lock held.  A failure is logged and
 * leaves the work pending: the next queue tries again.
 */
static void worker_spawn(struct dci_worker *w)
{
	sigset_t all, old;
	int ret;

	if (w->running || w->stop || dci_read_once(workers_frozen) ||
	    dci_read_once(dci_plat_fork_broken))
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		dci_pr_err("cannot start thread %s: %s", w->name, strerror(ret));
		return;
	}
	pthread_setname_np(w->thread, w->name);
	w->running = true;
}

static void worker_init_sync(struct dci_worker *w)
{
	pthread_mutex_init(&w->lock, NULL);
	dci_plat_cond_init(&w->cond);
}

int dci_worker_start(struct dci_worker *w, void (*fn)(struct dci_worker *w),
		     const char *name)
{
	worker_init_sync(w);
	w->pending = false;
	w->stop = false;
	w->running = false;
	w->park = false;
	w->deadline_ns = 0;
	w->fn = fn;
	w->name = name;
	pthread_mutex_lock(&workers_lock);
	w->next = workers;
	workers = w;
	pthread_mutex_unlock(&workers_lock);
	return 0;
}

void dci_worker_queue(struct dci_worker *w)
{
	pthread_mutex_lock(&w->lock);
	if (!w->stop && (!w->pending || w->deadline_ns)) {
		/* Queued, or a delayed run brought forward. */
		w->pending = true;
		w->deadline_ns = 0;
		pthread_cond_signal(&w->cond);
	}
	worker_spawn(w);
	pthread_mutex_unlock(&w->lock);
}

void dci_worker_queue_delayed(struct dci_worker *w, uint64_t delay_ns)
{
	if (!delay_ns) {
		dci_worker_queue(w);
		return;
	}
	pthread_mutex_lock(&w->lock);
	if (!w->pending && !w->stop) {
		uint64_t now = dci_now_ns();

		w->pending = true;
		/* Saturating: 0 would mean "now". */
		w->deadline_ns = delay_ns >= UINT64_MAX - now ? UINT64_MAX : now + delay_ns;
		pthread_cond_signal(&w->cond);
	}
	worker_spawn(w);
	pthread_mutex_unlock(&w->lock);
}

/* Make @w's thread exit and wait for it; @stop drops the pending work too. */
static void worker_end_thread(struct dci_worker *w, bool stop)
{
	bool running;

	pthread_mutex_lock(&w->lock);
	if (stop)
		w->stop = true;
	else
		w->park = true;
	pthread_cond_signal(&w->cond);
	running = w->running;
	pthread_mutex_unlock(&w->lock);
	if (running)
		pthread_join(w->thread, NULL);
	pthread_mutex_lock(&w->lock);
	w->running = false;
	w->park = false;
	pthread_mutex_unlock(&w->lock);
}

void dci_worker_stop(struct dci_worker *w)
{
	struct dci_worker **p;

	/* Off the list first: a fork being prepared must not wait for it. */
	pthread_mutex_lock(&workers_lock);
	for (p = &workers; *p && *p != w; p = &(*p)->next)
		;
	if (*p)
		*p = w->next;
	pthread_mutex_unlock(&workers_lock);
	worker_end_thread(w, true);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
}

/* ------------------------------------------------------------------ */
/* Window copies                                                        */

bool dci_plat_fast_string;
static pthread_once_t fast_string_once = PTHREAD_ONCE_INIT;

static void fast_string_probe(void)
{
#if DCI_PLAT_COPY_ASM
	unsigned int a, b, c, d;

	/* CPUID leaf 7, subleaf 0: EBX bit 9 is ERMS. */
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
		dci_plat_fast_string = b & (1u << 9);
#endif
}

void dci_plat_window_copy_init(void)
{
	pthread_once(&fast_string_once, fast_string_probe);
}

/* ------------------------------------------------------------------ */
/* Fork                                                                 */

bool dci_plat_rcu_used;
bool dci_plat_fork_broken;
static bool fork_prepared;		/* dc_before_fork() ran, fork pending */
static pthread_once_t fork_watch_once = PTHREAD_ONCE_INIT;

/*
 * The only pthread_atfork() handler: in a child forked without
 * dc_before_fork() while a library thread or liburcu's callback thread
 * existed, the library's state cannot be trusted (a thread that is gone may
 * have held a lock, queued callbacks will never run): note it, and every
 * entry point refuses with -ECHILD instead of hanging.  It only reads and
 * writes flags, which is all a child of a threaded process may do.
 */
static void fork_watch_child(void)
{
	struct dci_worker *w;
	bool threads = dci_read_once(dci_plat_rcu_used);

	if (fork_prepared)
		return;
	/* Unlocked: the child has one thread, and a torn list is a parent bug. */
	for (w = workers; w && !threads; w = w->next)
		threads = w->running;
	if (threads) {
		dci_write_once(dci_plat_fork_broken, true);
		dci_plat_caller_ok = false;
		dci_plat_pcount_last.seq = 0;	/* see dci_pcounter_ready() */
	}
}

static void fork_watch_install(void)
{
	pthread_atfork(NULL, NULL, fork_watch_child);
}

/* Installed by the first registration: any program that can use the library. */
static void fork_watch(void)
{
	pthread_once(&fork_watch_once, fork_watch_install);
}

int dci_plat_fork_refuse(const char *fn)
{
	static bool said;

	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		dci_pr_err("%s: this process was forked while the library's threads ran, without dc_before_fork(); refusing (-ECHILD), or leaking what is destroyed, rather than hanging",
			  fn);
	return -ECHILD;
}

void dc_before_fork(void)
{
	struct dci_worker *w;

	/* liburcu would wait for its callback thread, gone in this child. */
	if (dci_fork_check(__func__))
		return;
	fork_watch();
	pthread_mutex_lock(&workers_lock);
	dci_write_once(workers_frozen, true);
	for (w = workers; w; w = w->next)
		worker_end_thread(w, false);
	urcu_memb_call_rcu_before_fork();
	fork_prepared = true;
	/* workers_lock stays held until after the fork. */
}
DCI_EXPORT(dc_before_fork);

/* After a fork, parent or child: start the threads that have work. */
static void fork_resume(void)
{
	struct dci_worker *w;

	fork_prepared = false;
	dci_write_once(workers_frozen, false);
	for (w = workers; w; w = w->next) {
		pthread_mutex_lock(&w->lock);
		if (w->pending)
			worker_spawn(w);
		pthread_mutex_unlock(&w->lock);
	}
	pthread_mutex_unlock(&workers_lock);
}

void dc_after_fork_parent(void)
{
	if (dci_fork_check(__func__))
		return;
	urcu_memb_call_rcu_after_fork_parent();
	fork_resume();
}
DCI_EXPORT(dc_after_fork_parent);

void dc_after_fork_child(void)
{
	if (dci_fork_check(__func__))
		return;
	urcu_memb_call_rcu_after_fork_child();
	fork_resume();
}
DCI_EXPORT(dc_after_fork_child);

/* ------------------------------------------------------------------ */
/* RCU thread registration                                              */

/* Registration nesting depth of the calling thread. */
__thread unsigned int dci_plat_thread_depth __attribute__((tls_model("initial-exec")));
__thread bool dci_plat_caller_ok __attribute__((tls_model("initial-exec")));

/*
 * A thread that has not registered is registered by its first call that
 * needs it (the slow path of dci_caller_check(), dc_read_lock()), and
 * unregistered at its exit by reg_exit(): callers need no ceremony, and
 * the hit path still tests one thread-local flag.  Only a registration
 * that cannot be made refuses: -ENOMEM (no thread-exit hook), logged once
 * per thread.
 */
static __thread bool implicit_failed_said;

static int register_implicitly(const char *fn)
{
	int ret = dc_thread_register();

	/* -ECHILD was logged by dci_plat_fork_refuse(). */
	if (dci_unlikely(ret == -ENOMEM) && !implicit_failed_said) {
		implicit_failed_said = true;
		dci_pr_warn("%s: the calling thread could not be registered: %d", fn, ret);
	}
	return ret;
}

/* dci_caller_check() found the flag clear: say why (or 0 if all is well). */
int dci_plat_caller_refuse(const char *fn)
{
	if (dci_unlikely(dci_read_once(dci_plat_fork_broken)))
		return dci_plat_fork_refuse(fn);
	if (!dci_plat_thread_depth)
		return register_implicitly(fn);
	return 0;
}

/*
 * A thread that exits registered would stay in liburcu's registry, and its
 * reader state with it, in memory the next thread's TLS reuses: that
 * thread's registration then links the same node twice and the next grace
 * period (a dc_synchronize(), the frees behind call_rcu(),
 * dc_cache_destroy()) loops forever.  So a registration sets this key, and
 * its destructor unregisters a thread that exits registered.
 */
static pthread_key_t reg_key;
static bool reg_key_ok;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
/*
 * Whether the calling thread's liburcu registration is the library's.  An
 * application that uses liburcu's memb flavour itself may have registered
 * the thread already: registering again would trip liburcu's assertion,
 * so the library's registration then only counts, and leaves liburcu's to
 * the application (register with liburcu first, unregister from it last).
 */
static __thread bool reg_own;

static void reg_exit(void *arg)
{
	(void)arg;
	if (!dci_plat_thread_depth || !reg_own)
		return;
	if (urcu_memb_read_ongoing()) {
		dci_pr_warn("a thread exited inside dc_read_lock(): its read-side section ends at its exit");
		while (urcu_memb_read_ongoing())
			urcu_memb_read_unlock();
	}
	dci_plat_thread_depth = 1;
	dc_thread_unregister();
}

static void reg_key_init(void)
{
	reg_key_ok = !pthread_key_create(&reg_key, reg_exit);
}

int dc_thread_register(void)
{
	if (dci_unlikely(dci_read_once(dci_plat_fork_broken)))
		return dci_plat_fork_refuse(__func__);
	if (!dci_plat_thread_depth) {
		reg_own = !URCU_TLS(urcu_memb_reader).registered;
		pthread_once(&reg_once, reg_key_init);
		if (reg_own && (!reg_key_ok || pthread_setspecific(reg_key, &reg_key))) {
			dci_pr_err("dc_thread_register: no thread-exit hook: -ENOMEM");
			return -ENOMEM;
		}
		fork_watch();
		if (reg_own)
			urcu_memb_register_thread();
	}
	dci_plat_thread_depth++;
	dci_plat_caller_ok = true;
	return 0;
}
DCI_EXPORT(dc_thread_register);

int dc_thread_unregister(void)
{
	if (!dci_plat_thread_depth)
		return -EINVAL;
	/* liburcu's registry lock may be held by a thread gone in this child. */
	if (dci_unlikely(dci_read_once(dci_plat_fork_broken)))
		return 0;
	if (!--dci_plat_thread_depth) {
		dci_plat_caller_ok = false;
		dci_plat_pcount_last.seq = 0;	/* see dci_pcounter_ready() */
		if (reg_own) {
			urcu_memb_unregister_thread();
			pthread_setspecific(reg_key, NULL);
			reg_own = false;
		}
	}
	return 0;
}
DCI_EXPORT(dc_thread_unregister);

void dc_read_lock(void)
{
	if (dci_unlikely(!dci_plat_thread_depth))
		register_implicitly(__func__);
	dci_rcu_read_lock();
}
DCI_EXPORT(dc_read_lock);

void dc_read_unlock(void)
{
	dci_rcu_read_unlock();
}
DCI_EXPORT(dc_read_unlock);

void dc_synchronize(void)
{
	if (dci_fork_check(__func__))
		return;
	dci_synchronize_rcu();
}
DCI_EXPORT(dc_synchronize);

/*
 * urcu_memb_barrier() returns once its callback on each call_rcu thread
 * has counted down, but that callback goes on to drop its reference to the
 * barrier's bookkeeping and free it (two small blocks, liburcu's): a fork
 * right then leaves the blocks to a thread the child does not have, and
 * nothing in the child points to them any more (valgrind: "definitely
 * lost").  So dc_barrier() also waits for a callback of its own, queued
 * behind the barrier's on the caller's call_rcu thread (the only one,
 * unless the application made more): it runs only once the barrier's
 * callback has returned, and it allocates nothing, so that when
 * dc_barrier() returns no call_rcu thread holds anything of it.
 */
static struct {
	pthread_mutex_t lock;		/* one fence in flight */
	pthread_mutex_t done_lock;
	pthread_cond_t done_cond;
	bool done;
	struct rcu_head head;
} fence = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.done_lock = PTHREAD_MUTEX_INITIALIZER,
	.done_cond = PTHREAD_COND_INITIALIZER,
};

static void fence_cb(struct rcu_head *head)
{
	(void)head;
	pthread_mutex_lock(&fence.done_lock);
	fence.done = true;
	pthread_cond_signal(&fence.done_cond);
	pthread_mutex_unlock(&fence.done_lock);
}

void dc_barrier(void)
{
	if (dci_fork_check(__func__))
		return;
	dci_rcu_barrier();
	/* No call_rcu() yet: no callback thread, and none to start here. */
	if (!dci_read_once(dci_plat_rcu_used))
		return;
	pthread_mutex_lock(&fence.lock);
	fence.done = false;
	urcu_memb_call_rcu(&fence.head, fence_cb);
	pthread_mutex_lock(&fence.done_lock);
	while (!fence.done)
		pthread_cond_wait(&fence.done_cond, &fence.done_lock);
	pthread_mutex_unlock(&fence.done_lock);
	pthread_mutex_unlock(&fence.lock);
}
DCI_EXPORT(dc_barrier);
