// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktap.c - daxcache_test.ko: runs the shared test suites of tests/cases/ in
 * the kernel when loaded, and prints the results as KTAP version 1.
 *
 * The stock Debian kernel has no KUnit, so this module prints the format
 * itself: one subtest per suite, one result line per case named as in the
 * userspace runner, then a summary.  After each case it waits for deferred
 * frees (dc_barrier()) and fails the case if the library's live allocation
 * count did not return to where it was: the kernel's stand-in for
 * LeakSanitizer.
 *
 * Parameters: seed=N replays a run (the seed is printed), scale=N makes
 * the random cases N times longer, filter=GLOB runs only the cases whose
 * "suite.case" name matches.
 */
#define pr_fmt(fmt) fmt

#include "dc_test.h"

#include <linux/glob.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>

#include "compat_kernel.h"
#include "ktap.h"

static char *seed;
module_param(seed, charp, 0444);
MODULE_PARM_DESC(seed, "seed of the random cases (default: a random one, printed)");

static unsigned int scale = 1;
module_param(scale, uint, 0444);
MODULE_PARM_DESC(scale, "iteration count factor of the random cases (default 1)");

static char *filter;
module_param(filter, charp, 0444);
MODULE_PARM_DESC(filter, "glob on suite.case: run only the matching cases");

/* The suites, named by Kbuild: DC_KTAP_SUITES is DC_KTAP_SUITE(x) ... */
#ifndef DC_KTAP_SUITES
#error "DC_KTAP_SUITES must list the suites (see kshim/Kbuild)"
#endif

#define DC_KTAP_SUITE(name) extern const struct dc_test_suite dc_suite_##name;
DC_KTAP_SUITES
#undef DC_KTAP_SUITE

#define DC_KTAP_SUITE(name) &dc_suite_##name,
static const struct dc_test_suite *const ktap_suites[] = { DC_KTAP_SUITES };
#undef DC_KTAP_SUITE

struct ktap_counts {
	unsigned int pass, fail, skip;
};

/* Diagnostics of a case are indented like its result line. */
#define KTAP_CASE_INDENT	"    "

void dc_ktest_print(struct dc_test *t, const char *file, int line,
		    struct va_format *vaf)
{
	if (file)
		pr_info(KTAP_CASE_INDENT "# %s: FAILED at %s:%d: %pV\n",
			t->name, file, line, vaf);
	else
		pr_info(KTAP_CASE_INDENT "# %s: %pV\n", t->name, vaf);
}

unsigned int dc_test_scale(void)
{
	return scale ? scale : 1;
}

static bool ktap_selected(const struct dc_test_suite *s,
			  const struct dc_test_case *c)
{
	char name[128];

	if (!filter || !*filter)
		return true;
	snprintf(name, sizeof(name), "%s.%s", s->name, c->name);
	return glob_match(filter, name);
}

static unsigned int ktap_nr_selected(const struct dc_test_suite *s)
{
	const struct dc_test_case *c;
	unsigned int n = 0;

	for (c = s->cases; c->fn; c++)
		n += ktap_selected(s, c);
	return n;
}

/* Run one case; returns true if it passed. */
static bool ktap_run_case(const struct dc_test_case *c, u64 run_seed)
{
	struct dc_test t = { .name = c->name, .seed = run_seed };
	u64 ns = dc_ktest_run_case(&t, c->fn);

	pr_info("    # %s: %llu ms\n", c->name, div_u64(ns, NSEC_PER_MSEC));
	return !dc_test_failed(&t);
}

static void ktap_run_suite(const struct dc_test_suite *s, unsigned int num,
			   u64 run_seed, struct ktap_counts *total)
{
	struct ktap_counts cnt = { 0 };
	const struct dc_test_case *c;
	unsigned int i = 0;

	pr_info("    KTAP version 1\n");
	pr_info("    # Subtest: %s\n", s->name);
	for (c = s->cases; c->fn; c++)
		i++;
	pr_info("    1..%u\n", i);
	for (i = 1, c = s->cases; c->fn; c++, i++) {
		if (!ktap_selected(s, c)) {
			cnt.skip++;
			pr_info("    ok %u %s # SKIP filtered out\n", i, c->name);
		} else if (ktap_run_case(c, run_seed)) {
			cnt.pass++;
			pr_info("    ok %u %s\n", i, c->name);
		} else {
			cnt.fail++;
			pr_info("    not ok %u %s\n", i, c->name);
		}
	}
	pr_info("# %s: pass:%u fail:%u skip:%u total:%u\n", s->name, cnt.pass,
		cnt.fail, cnt.skip, cnt.pass + cnt.fail + cnt.skip);
	pr_info("%sok %u %s\n", cnt.fail ? "not " : "", num, s->name);
	total->pass += cnt.pass;
	total->fail += cnt.fail;
	total->skip += cnt.skip;
}

static int ktap_seed(u64 *out)
{
	if (!seed || !*seed) {
		*out = get_random_u64();
		return 0;
	}
	return kstrtou64(seed, 0, out);
}

static int __init daxcache_test_init(void)
{
	struct ktap_counts total = { 0 };
	unsigned int i, n = 0, num = 0;
	u64 run_seed;
	int ret;

	ret = ktap_seed(&run_seed);
	if (ret) {
		pr_err("daxcache_test: bad seed '%s'\n", seed);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(ktap_suites); i++)
		n += ktap_nr_selected(ktap_suites[i]) > 0;

	pr_info("KTAP version 1\n");
	pr_info("1..%u\n", n);
	pr_info("# daxcache_test: seed=%llu scale=%u%s%s\n", run_seed,
		dc_test_scale(), filter ? " filter=" : "", filter ? filter : "");
	for (i = 0; i < ARRAY_SIZE(ktap_suites); i++)
		if (ktap_nr_selected(ktap_suites[i]))
			ktap_run_suite(ktap_suites[i], ++num, run_seed, &total);
	pr_info("# Totals: pass:%u fail:%u skip:%u total:%u\n", total.pass,
		total.fail, total.skip, total.pass + total.fail + total.skip);
	return 0;
}

static void __exit daxcache_test_exit(void)
{
}

module_init(daxcache_test_init);
module_exit(daxcache_test_exit);

MODULE_DESCRIPTION("libdaxcache shared test suites, KTAP output");
MODULE_LICENSE("GPL");
DCI_IMPORT_NS(DAXCACHE);
DCI_IMPORT_NS(DAXCACHE_KSHIM);
