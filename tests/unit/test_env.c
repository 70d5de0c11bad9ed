// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_env.c - the userspace environment of the shared test cases:
 * logging, failure records, memory and threads (pthreads).
 */
#include "dc_test.h"

#include <stdlib.h>
#include <sched.h>
#include <unistd.h>

void dc_test_log(struct dc_test *t, const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", t->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void dc_test_fail(struct dc_test *t, const char *file, int line,
		  const char *fmt, ...)
{
	va_list ap;

	dci_atomic_inc(&t->failures);
	printf("# %s: FAILED at %s:%d: ", t->name, file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void *dc_test_alloc(size_t size)
{
	return calloc(1, size);
}

void dc_test_free(void *p)
{
	free(p);
}

struct dc_test_thread {
	pthread_t tid;
	struct dc_test *t;
	dc_test_thread_fn fn;
	void *arg;
	unsigned int idx;
};

static void *thread_main(void *p)
{
	struct dc_test_thread *th = p;

	dc_thread_register();
	th->fn(th->t, th->arg, th->idx);
	dc_thread_unregister();
	return NULL;
}

int dc_test_thread_start(struct dc_test *t, dc_test_thread_fn fn, void *arg,
			 unsigned int idx, struct dc_test_thread **out)
{
	struct dc_test_thread *th = malloc(sizeof(*th));
	int ret;

	if (!th) {
		dc_test_fail(t, __FILE__, __LINE__, "no memory for a thread");
		return -ENOMEM;
	}
	*th = (struct dc_test_thread){ .t = t, .fn = fn, .arg = arg, .idx = idx };
	ret = -pthread_create(&th->tid, NULL, thread_main, th);
	if (ret) {
		dc_test_fail(t, __FILE__, __LINE__, "pthread_create: %d", ret);
		free(th);
		return ret;
	}
	*out = th;
	return 0;
}

void dc_test_thread_join(struct dc_test_thread *th)
{
	pthread_join(th->tid, NULL);
	free(th);
}

void dc_test_sleep_us(unsigned int us)
{
	if (us)
		usleep(us);
	else
		sched_yield();
}

unsigned int dc_test_scale(void)
{
	const char *env = getenv("DC_TEST_SCALE");
	unsigned long v = env ? strtoul(env, NULL, 0) : 1;

	return v ? (unsigned int)v : 1;
}

unsigned int dc_test_slowdown(void)
{
	return 1;
}
