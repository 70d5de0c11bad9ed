// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_env.c - the kernel environment of the shared test cases
 * (tests/cases/dc_test.h) that both kernel runners share: running a case
 * with its leak check, failures and diagnostics, vmalloc'ed test memory and
 * kthreads.  The runners, ktap.c (daxcache_test.ko) and kunit.c
 * (daxcache_kunit.ko), print the diagnostics in their own formats
 * (dc_ktest_print()).
 */
#include "dc_test.h"

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <daxcache/fault.h>

#include "kshim.h"
#include "ktap.h"

void dc_test_log(struct dc_test *t, const char *fmt, ...)
{
	struct va_format vaf = { .fmt = fmt };
	va_list ap;

	va_start(ap, fmt);
	vaf.va = &ap;
	dc_ktest_print(t, NULL, 0, &vaf);
	va_end(ap);
}

void dc_test_fail(struct dc_test *t, const char *file, int line,
		  const char *fmt, ...)
{
	struct va_format vaf = { .fmt = fmt };
	va_list ap;

	dci_atomic_inc(&t->failures);
	va_start(ap, fmt);
	vaf.va = &ap;
	dc_ktest_print(t, file, line, &vaf);
	va_end(ap);
}

u64 dc_ktest_run_case(struct dc_test *t, dc_test_fn fn)
{
	long live, leaked;
	u64 start;

	dci_atomic_set(&t->failures, 0);
	dc_barrier();
	live = dci_kshim_live_allocs();
	start = ktime_get_ns();

	dc_thread_register();
	fn(t);
	dc_thread_unregister();

	/* A case that stopped at a failed check may have left it armed. */
	dci_fault_alloc_fail_nth(0);
	dc_barrier();
	leaked = dci_kshim_live_allocs() - live;
	if (leaked)
		dc_test_fail(t, __FILE__, __LINE__,
			     "%ld library allocation(s) not freed", leaked);
	return ktime_get_ns() - start;
}

void *dc_test_alloc(size_t size)
{
	return vzalloc(size);
}

void dc_test_free(void *p)
{
	vfree(p);
}

struct dc_test_thread {
	struct dc_test *t;
	dc_test_thread_fn fn;
	void *arg;
	unsigned int idx;
	struct completion done;
};

static int ktest_thread_main(void *p)
{
	struct dc_test_thread *th = p;

	dc_thread_register();
	th->fn(th->t, th->arg, th->idx);
	dc_thread_unregister();
	/* Signals the joiner and exits without returning into module text. */
	kthread_complete_and_exit(&th->done, 0);
}

int dc_test_thread_start(struct dc_test *t, dc_test_thread_fn fn, void *arg,
			 unsigned int idx, struct dc_test_thread **out)
{
	struct dc_test_thread *th = kmalloc(sizeof(*th), GFP_KERNEL);
	struct task_struct *task;

	if (!th) {
		dc_test_fail(t, __FILE__, __LINE__, "no memory for a thread");
		return -ENOMEM;
	}
	*th = (struct dc_test_thread){
		.t = t, .fn = fn, .arg = arg, .idx = idx,
	};
	init_completion(&th->done);
	task = kthread_run(ktest_thread_main, th, "dc_test/%u", idx);
	if (IS_ERR(task)) {
		dc_test_fail(t, __FILE__, __LINE__, "kthread_run: %ld",
			     PTR_ERR(task));
		kfree(th);
		return PTR_ERR(task);
	}
	*out = th;
	return 0;
}

/*
 * Wait for one thread.  Long runs under emulation can take minutes: wake up
 * now and then so that the hung-task detector does not take the joiner for
 * a stuck task.
 */
void dc_test_thread_join(struct dc_test_thread *th)
{
	while (!wait_for_completion_timeout(&th->done, 10 * HZ))
		;
	kfree(th);
}

/*
 * Always a sleep that gives up the CPU: callers wait for other test threads,
 * which a kernel that does not preempt kthreads (5.10's voluntary
 * preemption) runs only then.  fsleep() would busy-wait below 10 us.
 */
void dc_test_sleep_us(unsigned int us)
{
	if (!us)
		cond_resched();
	else if (us < 10)
		usleep_range(us, 2 * us);
	else
		fsleep(us);
}

/* The test kernel normally boots under TCG, about ten times slower. */
unsigned int dc_test_slowdown(void)
{
	return 10;
}
