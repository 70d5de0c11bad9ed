/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * torture.h - shared state of the torture test (tests/stress/torture), an
 * rcutorture-style run of many threads against one DAX window cache.
 *
 * torture_main.c: command line, rounds, invariants, summary.
 * torture_roles.c: the worker threads (reader, writer, puncher, evictor,
 *	waiter) and their checks.
 * torture_backend.c: the simulation backend wrapped with random delays and
 *	a check that no pinned range is set up anew or removed.
 * torture_monitor.c: counters, failures, progress lines, the watchdog.
 */
#ifndef DC_TORTURE_H
#define DC_TORTURE_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <daxcache/cache.h>
#include <daxcache/simbe.h>

#define T_MAX_THREADS		64u
#define T_MAX_ERRNO		140u	/* errno values counted one by one */
#define T_NSEC			1000000000ull

/* The errors injected in rounds with failures (--faults). */
#define T_SETUP_ERR		(-EIO)
#define T_REMOVE_ERR		(-ENXIO)
#define T_WRITEBACK_ERR		(-ENOSPC)

/* What a thread is doing, for the op counts and the watchdog's report. */
enum t_op {
	T_OP_READ,		/* map, check, hold, age check, unpin */
	T_OP_WRITE,		/* the same, writable, with a simulated write */
	T_OP_REMAP,		/* a second map of a pinned range */
	T_OP_PUNCH,
	T_OP_EVICT,		/* get an inode, use it, drop every reference */
	T_OP_GET,		/* swap the reference a thread keeps */
	T_OP_PINALL,		/* pin as many ranges as the window has */
	T_OP_WAITFREE,
	T_OP_NR,
	/* The main thread's steps (watched, not counted). */
	T_STEP_SETUP = T_OP_NR,
	T_STEP_RUN,
	T_STEP_JOIN,
	T_STEP_SETTLE,
	T_STEP_CHECK,
	T_STEP_DESTROY,
	T_STEP_NR,
	T_IDLE = -1,
};

enum t_role {
	T_ROLE_READER,
	T_ROLE_WRITER,
	T_ROLE_PUNCHER,
	T_ROLE_EVICTOR,
	T_ROLE_WAITER,
	T_ROLE_MAIN,
};

/* The wrapped backend of one round. */
struct t_backend {
	struct dc_simbe *sim;
	unsigned int nr;		/* window ranges */
	unsigned int shift;		/* range_shift */
	atomic_uint max_delay_us;	/* each call waits 0..this */
	atomic_uint long_delay_ppm;	/* ... or 1..10 ms, this often */
	atomic_uint *pins;		/* pins the test holds, per window range */
};

/* One round: a cache, its backend and its inodes. */
struct t_round {
	unsigned int number;
	struct dc_cache *cache;
	struct t_backend be;
	unsigned int nr;		/* window ranges */
	uint64_t rs;			/* range size */
	unsigned int nidx;		/* file ranges used per inode */
	unsigned int ninodes;		/* ids 1..ninodes */
	unsigned int nstable;		/* ids 1..nstable: main holds a reference */
	struct dc_inode **stable;
	bool faults;			/* failures injected in this round */
	uint64_t map_timeout_ns;	/* the longest bounded wait of a map */
	atomic_bool stop;
};

/* One thread, the main one included: what it does, for the watchdog. */
struct t_thread {
	pthread_t tid;
	unsigned int id;
	enum t_role role;
	uint64_t rng;
	struct t_round *rd;
	struct dc_inode *held;		/* a reference kept across ops */
	uint64_t held_id;
	atomic_int cur_op;		/* enum t_op, T_IDLE between ops */
	atomic_int last_op;		/* the op now or the one before */
	atomic_ullong op_start_ns;
	atomic_ullong nops;
};

/* Counters over the whole run. */
struct t_counters {
	atomic_ullong ops[T_OP_NR];
	atomic_ullong errs[T_OP_NR][T_MAX_ERRNO + 1];	/* by -errno; last: others */
	atomic_ullong checks;
	atomic_ullong failures;
	atomic_ullong bypasses;
	atomic_ullong age_checks;
	atomic_ullong tag_checks;
	atomic_ullong pinall_full;	/* the waiter held every range at once */
	atomic_ullong held_across_reclaim;
	atomic_ullong held_across_punch;
	atomic_ullong held_across_evict;
	/* Bumped as things happen, compared over a pin's life. */
	atomic_ullong ev_reclaim;	/* remove() and replacing setup() calls */
	atomic_ullong ev_punch;
	atomic_ullong ev_evict;
	/* The backend wrapper. */
	atomic_ullong be_calls;
	atomic_ullong be_delay_ns;
	atomic_ullong be_long_delays;
	atomic_ullong log_lines;
	atomic_ullong alloc_failures;	/* library allocations failed on purpose */
	/* The checks with every thread stopped, after each round. */
	atomic_ullong inv_rounds;
	atomic_ullong inv_checks;
	atomic_ullong inv_failures;
};

extern struct t_counters t_cnt;
extern bool t_verbose;

/* torture_monitor.c */
uint64_t t_now_ns(void);
uint64_t t_rnd(uint64_t *s);
uint64_t t_below(uint64_t *s, uint64_t n);
void t_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool t_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void t_count_err(enum t_op op, int err);
const char *t_errname(int err);
const char *t_op_name(int op);
void t_op_begin(struct t_thread *th, enum t_op op);
void t_op_end(struct t_thread *th);
int t_monitor_start(struct t_thread *threads, unsigned int *nthreads,
		    struct t_thread *main_th, uint64_t watchdog_ns);
void t_monitor_set_round(unsigned int number);
void t_monitor_stop(void);
void t_log_fn(void *priv, int level, const char *msg);
void t_print_summary(void);

/* torture_backend.c */
extern const struct dc_backend_ops t_backend_ops;
void t_pin_note(struct t_backend *be, uint64_t win_off);
void t_pin_drop(struct t_backend *be, uint64_t win_off);

/* torture_roles.c */
void *t_worker_main(void *arg);
const char *t_role_name(enum t_role role);

#endif /* DC_TORTURE_H */
