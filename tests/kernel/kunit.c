// SPDX-License-Identifier: GPL-2.0-only
/*
 * kunit.c - daxcache_kunit.ko: the shared test suites of tests/cases/ as
 * KUnit suites, for kernels with CONFIG_KUNIT (the debug kernel of
 * tests/kernel/debug-kernel; Debian's kernels have none, and run the same
 * cases through daxcache_test.ko's own KTAP instead).
 *
 * Every cases file is compiled a second time for this module with
 * DC_TEST_KUNIT (kunit_cases.h): NAME_cases.c registers the suite
 * daxcache_NAME, one KUnit case per shared case, each run here through the
 * same dc_ktest_run_case() as daxcache_test.ko runs it (leak check
 * included).  KUnit runs the suites when the module is loaded and prints
 * their KTAP, which the kernel's tools/testing/kunit/kunit.py parse reads.
 *
 * KUnit runs a module's suites before the module's parameters are parsed,
 * so this module has none: its seed is a random one, printed at the start
 * of each suite (a failure is replayed with daxcache_test.ko's seed=).
 */
#include "dc_test.h"

#include <kunit/test.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/random.h>

#include "compat_kernel.h"
#include "ktap.h"

/* The record of a case that the shared environment sees, and its KUnit test. */
struct kunit_dc_test {
	struct dc_test t;
	struct kunit *test;
};

/* One seed for every suite of a load, drawn by the first suite. */
static u64 kunit_seed;

static struct kunit *kunit_of(struct dc_test *t)
{
	return container_of(t, struct kunit_dc_test, t)->test;
}

void dc_ktest_print(struct dc_test *t, const char *file, int line,
		    struct va_format *vaf)
{
	if (file)
		kunit_err(kunit_of(t), "FAILED at %s:%d: %pV", file, line, vaf);
	else
		kunit_info(kunit_of(t), "%pV", vaf);
}

unsigned int dc_test_scale(void)
{
	return 1;
}

int dc_kunit_suite_init(struct kunit_suite *suite)
{
	if (!kunit_seed)
		kunit_seed = get_random_u64() ? : 1;
	pr_info(KUNIT_SUBTEST_INDENT "# %s: seed=%llu\n", suite->name,
		kunit_seed);
	return 0;
}

void dc_kunit_run_case(struct kunit *test, void (*fn)(struct dc_test *t))
{
	struct kunit_dc_test kt = {
		.t = { .name = test->name, .seed = kunit_seed },
		.test = test,
	};
	u64 ns = dc_ktest_run_case(&kt.t, fn);
	int failures = dci_atomic_read(&kt.t.failures);

	kunit_info(test, "%llu ms", div_u64(ns, NSEC_PER_MSEC));
	if (failures)
		KUNIT_FAIL(test, "%d failed check(s), seed=%llu", failures,
			   kunit_seed);
}

MODULE_DESCRIPTION("libdaxcache shared test suites, as KUnit suites");
MODULE_LICENSE("GPL");
DCI_IMPORT_NS(DAXCACHE);
DCI_IMPORT_NS(DAXCACHE_KSHIM);
