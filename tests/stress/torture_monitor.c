// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * torture_monitor.c - the torture test's counters and failure reports, and
 * the monitor thread: a progress line every second, and a watchdog that
 * aborts the run (after printing what every thread was doing) when one
 * operation has lasted longer than the watchdog time or when no operation
 * at all has completed for that long.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/platform/prng.h"
#include "torture.h"

#define T_FAIL_PRINT_MAX	40

struct t_counters t_cnt;
bool t_verbose;

uint64_t t_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * T_NSEC + (uint64_t)ts.tv_nsec;
}

/* The tree's one generator (lib/platform/prng.h); the state must not be 0. */
uint64_t t_rnd(uint64_t *s)
{
	return dci_prng_next(s);
}

uint64_t t_below(uint64_t *s, uint64_t n)
{
	return dci_prng_below(s, n);
}

static void vfail(const char *fmt, va_list ap)
{
	if (atomic_fetch_add(&t_cnt.failures, 1) >= T_FAIL_PRINT_MAX)
		return;
	flockfile(stderr);
	fputs("FAIL: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void t_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(fmt, ap);
	va_end(ap);
}

/* Count a check; report it (and count a failure) unless @ok. */
bool t_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add_explicit(&t_cnt.checks, 1, memory_order_relaxed);
	if (ok)
		return true;
	va_start(ap, fmt);
	vfail(fmt, ap);
	va_end(ap);
	return false;
}

void t_count_err(enum t_op op, int err)
{
	unsigned int e = err < 0 && (unsigned int)-err < T_MAX_ERRNO ?
			 (unsigned int)-err : T_MAX_ERRNO;

	atomic_fetch_add_explicit(&t_cnt.errs[op][e], 1, memory_order_relaxed);
}

const char *t_errname(int err)
{
	const char *name = err < 0 ? strerrorname_np(-err) : NULL;

	return name ? name : "E?";
}

static const char *const op_names[T_STEP_NR] = {
	[T_OP_READ] = "read",
	[T_OP_WRITE] = "write",
	[T_OP_REMAP] = "remap",
	[T_OP_PUNCH] = "punch",
	[T_OP_EVICT] = "evict",
	[T_OP_GET] = "get",
	[T_OP_PINALL] = "pin-all",
	[T_OP_WAITFREE] = "wait-free",
	[T_STEP_SETUP] = "round setup",
	[T_STEP_RUN] = "round run",
	[T_STEP_JOIN] = "join",
	[T_STEP_SETTLE] = "settle",
	[T_STEP_CHECK] = "invariant check",
	[T_STEP_DESTROY] = "destroy",
};

const char *t_op_name(int op)
{
	return op >= 0 && op < T_STEP_NR ? op_names[op] : "idle";
}

void t_op_begin(struct t_thread *th, enum t_op op)
{
	atomic_store_explicit(&th->op_start_ns, t_now_ns(), memory_order_relaxed);
	atomic_store_explicit(&th->last_op, (int)op, memory_order_relaxed);
	atomic_store_explicit(&th->cur_op, (int)op, memory_order_release);
	if (op < T_OP_NR)
		atomic_fetch_add_explicit(&t_cnt.ops[op], 1, memory_order_relaxed);
}

void t_op_end(struct t_thread *th)
{
	atomic_store_explicit(&th->cur_op, T_IDLE, memory_order_release);
	atomic_fetch_add_explicit(&th->nops, 1, memory_order_relaxed);
}

void t_log_fn(void *priv, int level, const char *msg)
{
	(void)priv;
	if (atomic_fetch_add(&t_cnt.log_lines, 1) < 5 || t_verbose)
		fprintf(stderr, "log(%d): %s\n", level, msg);
}

/* --- the monitor thread ---------------------------------------------------- */

static struct {
	pthread_t tid;
	struct t_thread *threads;
	unsigned int *nthreads;
	struct t_thread *main_th;
	uint64_t watchdog_ns;
	atomic_bool stop;
	atomic_uint round;
	uint64_t start_ns;
} mon;

static uint64_t total_ops(void)
{
	uint64_t n = 0;
	unsigned int op;

	for (op = 0; op < T_OP_NR; op++)
		n += atomic_load_explicit(&t_cnt.ops[op], memory_order_relaxed);
	return n;
}

/* Operations finished, by every thread; the watchdog wants these to move. */
static uint64_t completed_ops(void)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < *mon.nthreads; i++)
		n += atomic_load_explicit(&mon.threads[i].nops, memory_order_relaxed);
	return n;
}

static void dump_thread(const struct t_thread *th, uint64_t now)
{
	bool busy = atomic_load(&th->cur_op) != T_IDLE;
	uint64_t start = atomic_load(&th->op_start_ns);

	fprintf(stderr, "  thread %2u %-8s %s %s, started %.3f s ago; %llu ops done\n",
		th->id, t_role_name(th->role), busy ? "in" : "idle after",
		t_op_name(atomic_load(&th->last_op)), start ? (now - start) / 1e9 : 0.0,
		(unsigned long long)atomic_load(&th->nops));
}

static void __attribute__((noreturn)) watchdog_fire(const char *why)
{
	uint64_t now = t_now_ns();
	unsigned int i, n = *mon.nthreads;

	fprintf(stderr, "WATCHDOG: %s (round %u, %.1f s into the run); threads:\n",
		why, atomic_load(&mon.round), (now - mon.start_ns) / 1e9);
	dump_thread(mon.main_th, now);
	for (i = 0; i < n; i++)
		dump_thread(&mon.threads[i], now);
	fprintf(stderr, "torture: %llu ops, %llu checks, %llu failures + watchdog: ABORT\n",
		(unsigned long long)total_ops(),
		(unsigned long long)atomic_load(&t_cnt.checks),
		(unsigned long long)atomic_load(&t_cnt.failures));
	fflush(NULL);
	abort();
}

static void watch_one(const struct t_thread *th, uint64_t now)
{
	int op = atomic_load_explicit(&th->cur_op, memory_order_acquire);
	uint64_t start = atomic_load_explicit(&th->op_start_ns, memory_order_relaxed);
	char why[128];

	if (op == T_IDLE || !start || now < start || now - start < mon.watchdog_ns)
		return;
	snprintf(why, sizeof(why), "thread %u stuck in %s for %.1f s", th->id,
		 t_op_name(op), (now - start) / 1e9);
	watchdog_fire(why);
}

static void *monitor_main(void *arg)
{
	uint64_t last_ops = 0, last_progress, next_print, now;
	unsigned int i;

	(void)arg;
	last_progress = next_print = t_now_ns();
	next_print += T_NSEC;
	while (!atomic_load(&mon.stop)) {
		uint64_t ops = total_ops(), done = completed_ops();
		int main_op;

		usleep(20000);
		now = t_now_ns();
		main_op = atomic_load(&mon.main_th->cur_op);
		if (done != last_ops || main_op != T_STEP_RUN) {
			last_ops = done;
			last_progress = now;
		} else if (now - last_progress > mon.watchdog_ns) {
			watchdog_fire("no operation completed");
		}
		watch_one(mon.main_th, now);
		for (i = 0; i < *mon.nthreads; i++)
			watch_one(&mon.threads[i], now);
		if (now >= next_print) {
			next_print += T_NSEC;
			printf("[%6.1f s] round %u: %llu ops, %llu checks, %llu failures; read %llu write %llu punch %llu evict %llu pin-all %llu\n",
			       (now - mon.start_ns) / 1e9, atomic_load(&mon.round),
			       (unsigned long long)ops,
			       (unsigned long long)atomic_load(&t_cnt.checks),
			       (unsigned long long)atomic_load(&t_cnt.failures),
			       (unsigned long long)atomic_load(&t_cnt.ops[T_OP_READ]),
			       (unsigned long long)atomic_load(&t_cnt.ops[T_OP_WRITE]),
			       (unsigned long long)atomic_load(&t_cnt.ops[T_OP_PUNCH]),
			       (unsigned long long)atomic_load(&t_cnt.ops[T_OP_EVICT]),
			       (unsigned long long)atomic_load(&t_cnt.ops[T_OP_PINALL]));
		}
	}
	return NULL;
}

int t_monitor_start(struct t_thread *threads, unsigned int *nthreads,
		    struct t_thread *main_th, uint64_t watchdog_ns)
{
	mon.threads = threads;
	mon.nthreads = nthreads;
	mon.main_th = main_th;
	mon.watchdog_ns = watchdog_ns;
	mon.start_ns = t_now_ns();
	atomic_store(&mon.stop, false);
	return -pthread_create(&mon.tid, NULL, monitor_main, NULL);
}

void t_monitor_set_round(unsigned int number)
{
	atomic_store(&mon.round, number);
}

void t_monitor_stop(void)
{
	atomic_store(&mon.stop, true);
	pthread_join(mon.tid, NULL);
}

/* --- the summary ----------------------------------------------------------- */

void t_print_summary(void)
{
	unsigned int op, e;

	printf("per-op counts:");
	for (op = 0; op < T_OP_NR; op++)
		printf(" %s %llu", t_op_name((int)op),
		       (unsigned long long)atomic_load(&t_cnt.ops[op]));
	printf("\nerrors by errno (expected ones included):\n");
	for (op = 0; op < T_OP_NR; op++) {
		bool any = false;

		for (e = 1; e <= T_MAX_ERRNO; e++) {
			unsigned long long n = atomic_load(&t_cnt.errs[op][e]);

			if (!n)
				continue;
			if (!any)
				printf("  %-9s", t_op_name((int)op));
			any = true;
			printf(" %s %llu", e < T_MAX_ERRNO ? t_errname(-(int)e) : "other", n);
		}
		if (any)
			putchar('\n');
	}
	printf("bypass answers %llu; tag checks %llu; age checks %llu; waiter held every range %llu times\n",
	       (unsigned long long)atomic_load(&t_cnt.bypasses),
	       (unsigned long long)atomic_load(&t_cnt.tag_checks),
	       (unsigned long long)atomic_load(&t_cnt.age_checks),
	       (unsigned long long)atomic_load(&t_cnt.pinall_full));
	printf("pins held while a reclaim ran %llu, while a punch ran %llu, while an evict ran %llu\n",
	       (unsigned long long)atomic_load(&t_cnt.held_across_reclaim),
	       (unsigned long long)atomic_load(&t_cnt.held_across_punch),
	       (unsigned long long)atomic_load(&t_cnt.held_across_evict));
	printf("invariants after %llu rounds: %llu checks, %llu failed\n",
	       (unsigned long long)atomic_load(&t_cnt.inv_rounds),
	       (unsigned long long)atomic_load(&t_cnt.inv_checks),
	       (unsigned long long)atomic_load(&t_cnt.inv_failures));
	printf("library allocations failed on purpose %llu\n",
	       (unsigned long long)atomic_load(&t_cnt.alloc_failures));
	printf("backend calls %llu, delayed %.3f s in all, long delays %llu; library log lines %llu\n",
	       (unsigned long long)atomic_load(&t_cnt.be_calls),
	       atomic_load(&t_cnt.be_delay_ns) / 1e9,
	       (unsigned long long)atomic_load(&t_cnt.be_long_delays),
	       (unsigned long long)atomic_load(&t_cnt.log_lines));
	printf("torture operations run: %llu\n", (unsigned long long)total_ops());
	printf("torture: %llu ops, %llu checks, %llu failures\n",
	       (unsigned long long)total_ops(),
	       (unsigned long long)atomic_load(&t_cnt.checks),
	       (unsigned long long)atomic_load(&t_cnt.failures));
}
