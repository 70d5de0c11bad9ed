/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dc_test.h - the macro layer shared test cases are written against.
 *
 * A case is `DC_TEST(name) { ... }`, a function of `struct dc_test *t`.
 * Checks record a failure and return from the current function, so a helper
 * that checks must return void, and its caller should stop when
 * dc_test_failed(t) says so.  The same rule holds in test threads, which
 * makes checks safe everywhere: no longjmp, no assertion that kills a thread.
 *
 * A runner supplies the environment: the userspace runner maps a suite onto
 * cmocka (tests/unit/), the kernel runners onto KTAP (tests/kernel/ktap.c)
 * and, where the kernel has it, KUnit (tests/kernel/kunit.c).  Cases
 * use only this header, the platform header and the public API.
 */
#ifndef DC_TEST_H
#define DC_TEST_H

#include "platform.h"

#include <daxcache/daxcache.h>

struct dc_test {
	const char *name;
	dci_atomic_t failures;
	uint64_t seed;
};

typedef void (*dc_test_fn)(struct dc_test *t);

struct dc_test_case {
	const char *name;
	dc_test_fn fn;
};

struct dc_test_suite {
	const char *name;
	const struct dc_test_case *cases;
};

#ifdef DC_TEST_KUNIT
/* Compiled for the kernel's KUnit: the cases become KUnit suites. */
#include "kunit_cases.h"
#else
#define DC_TEST(fn)	static void fn(struct dc_test *t)
#define DC_CASE(fn)	{ #fn, fn }
/* The runners name the suite with the same declaration. */
#define DC_SUITE(sname, ...)						\
	extern const struct dc_test_suite dc_suite_##sname;		\
	static const struct dc_test_case dc_cases_##sname[] = {		\
		__VA_ARGS__, { NULL, NULL }				\
	};								\
	const struct dc_test_suite dc_suite_##sname = {			\
		#sname, dc_cases_##sname				\
	}
#endif

/* --- provided by the runner's environment ------------------------------ */

/* Print one diagnostic line (prefixed as the runner's format wants). */
void dc_test_log(struct dc_test *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record a failure at @file:@line. */
void dc_test_fail(struct dc_test *t, const char *file, int line,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Test memory: large blocks are fine (the kernel uses vmalloc). */
void *dc_test_alloc(size_t size);
void dc_test_free(void *p);

typedef void (*dc_test_thread_fn)(struct dc_test *t, void *arg, unsigned int idx);

/*
 * The environment's threads (pthreads, kthreads), for dc_test_run_threads():
 * dc_test_thread_start() starts @fn(@t, @arg, @idx) on a new thread
 * registered with the library's RCU and sets *@out, or records in @t why it
 * could not and returns -errno; dc_test_thread_join() waits for a started
 * thread to return and frees it.
 */
struct dc_test_thread;
int dc_test_thread_start(struct dc_test *t, dc_test_thread_fn fn, void *arg,
			 unsigned int idx, struct dc_test_thread **out);
void dc_test_thread_join(struct dc_test_thread *th);

/* Sleep or yield for about @us microseconds. */
void dc_test_sleep_us(unsigned int us);

/* A scale factor for iteration counts: 1 normally, larger for long runs. */
unsigned int dc_test_scale(void);

/*
 * How much slower than native this environment runs: 1 in userspace, more
 * for the kernel suite, which boots under CPU emulation.  Heavy cases divide
 * their work by it.
 */
unsigned int dc_test_slowdown(void);

/*
 * Run @fn in @n threads at once and wait for all of them.  Each thread is
 * registered with the library's RCU.  Returns 0 or -errno if the threads
 * could not be started (which also records a failure); those that were
 * started are joined either way.
 */
static inline int dc_test_run_threads(struct dc_test *t, unsigned int n,
				      dc_test_thread_fn fn, void *arg)
{
	struct dc_test_thread **th = dc_test_alloc(n * sizeof(*th));
	unsigned int i, started;
	int ret = 0;

	if (!th) {
		dc_test_fail(t, __FILE__, __LINE__, "no memory for threads");
		return -ENOMEM;
	}
	for (started = 0; started < n; started++) {
		ret = dc_test_thread_start(t, fn, arg, started, &th[started]);
		if (ret)
			break;
	}
	for (i = 0; i < started; i++)
		dc_test_thread_join(th[i]);
	dc_test_free(th);
	return ret;
}

/* --- checks ------------------------------------------------------------ */

/* The bound of DC_WAIT_FOR(): only a hang reaches it, even on a loaded machine. */
#define DC_WAIT_LIMIT_NS	(300ull * 1000000000ull)

/*
 * DC_WAIT_FOR() - wait for @cond, a state another thread brings about.  The
 * bound turns a hang into a failure; it is not a measurement.  Returns from
 * the calling case on failure.
 */
#define DC_WAIT_FOR(t, cond) do {					\
	uint64_t __end = dci_now_ns() + DC_WAIT_LIMIT_NS;		\
	while (!(cond)) {						\
		if (dci_now_ns() > __end) {				\
			dc_test_fail((t), __FILE__, __LINE__,		\
				     "timed out waiting for %s", #cond);\
			return;						\
		}							\
		dc_test_sleep_us(200);					\
	}								\
} while (0)

static inline bool dc_test_failed(struct dc_test *t)
{
	return dci_atomic_read(&t->failures) != 0;
}

#define DC_ASSERT(t, cond) do {						\
	if (dci_unlikely(!(cond))) {					\
		dc_test_fail((t), __FILE__, __LINE__, "%s", #cond);	\
		return;							\
	}								\
} while (0)

/*
 * @a == @b, compared and printed as @type with @fmt, the failure naming
 * them as written (@as, @bs: the callers' #a and #b, taken before their
 * macros expand).  The two below.
 */
#define DC_ASSERT_EQ_AS(t, type, fmt, a, b, as, bs) do {		\
	type __a = (type)(a), __b = (type)(b);				\
	if (dci_unlikely(__a != __b)) {					\
		dc_test_fail((t), __FILE__, __LINE__,			\
			     "%s == %s: " fmt " != " fmt, as, bs, __a, __b); \
		return;							\
	}								\
} while (0)

#define DC_ASSERT_EQ(t, a, b)						\
	DC_ASSERT_EQ_AS(t, unsigned long long, "%llu", a, b, #a, #b)
#define DC_ASSERT_INT_EQ(t, a, b)					\
	DC_ASSERT_EQ_AS(t, long long, "%lld", a, b, #a, #b)

/* Stop the current function if a helper it called has failed. */
#define DC_RETURN_IF_FAILED(t) do {					\
	if (dc_test_failed(t))						\
		return;							\
} while (0)

/*
 * A suite's environment: `struct ENV` with ENV_init(e, nr) (defaults for
 * @nr ranges), bool ENV_start(t, e) and ENV_finish(t, e) (checks, then
 * tears down what start made, whether it succeeded or not).
 * DC_ENV_RUN() runs @body(t, e) between the two; DC_ENV_CASE() is a case
 * that does so in a fresh environment with the defaults for @nr.
 */
#define DC_ENV_RUN(ENV, t, e, body) do {				\
	if (ENV##_start((t), (e)))					\
		body((t), (e));						\
	ENV##_finish((t), (e));						\
} while (0)

#define DC_ENV_CASE(ENV, name, nr, body)				\
DC_TEST(name)								\
{									\
	struct ENV e;							\
									\
	ENV##_init(&e, (nr));						\
	DC_ENV_RUN(ENV, t, &e, body);					\
}

/* --- the tree's small deterministic PRNG (lib/platform/prng.h) ---------- */

struct dc_test_rng {
	uint64_t s;
};

static inline void dc_test_rng_init(struct dc_test_rng *r, uint64_t seed)
{
	r->s = dci_prng_seed(seed);
}

static inline uint64_t dc_test_rand(struct dc_test_rng *r)
{
	return dci_prng_next(&r->s);
}

/* Uniform in [0, n) (n > 0), bias negligible for test purposes. */
static inline uint64_t dc_test_below(struct dc_test_rng *r, uint64_t n)
{
	return dc_test_rand(r) % n;
}

#endif /* DC_TEST_H */
