/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kunit_cases.h - DC_TEST(), DC_CASE() and DC_SUITE() of tests/cases/dc_test.h
 * for daxcache_kunit.ko, which compiles every shared cases file a second
 * time with DC_TEST_KUNIT defined (see kshim/Kbuild).
 *
 * Each case gets a KUnit wrapper next to it that runs it through
 * dc_kunit_run_case() (tests/kernel/kunit.c); each cases file NAME_cases.c
 * becomes the KUnit suite daxcache_NAME, registered with
 * kunit_test_suite(), whose cases carry the names of the shared ones.
 */
#ifndef DC_KUNIT_CASES_H
#define DC_KUNIT_CASES_H

#include <kunit/test.h>

struct dc_test;

/* Run one shared case under KUnit test @test (tests/kernel/kunit.c). */
void dc_kunit_run_case(struct kunit *test, void (*fn)(struct dc_test *t));
/* Suite init of every suite: prints the seed of the run. */
int dc_kunit_suite_init(struct kunit_suite *suite);

#define DC_TEST(fn)							\
	static void fn(struct dc_test *t);				\
	static void dc_kunit_##fn(struct kunit *test)			\
	{								\
		dc_kunit_run_case(test, fn);				\
	}								\
	static void fn(struct dc_test *t)

#define DC_CASE(fn)	{ .run_case = dc_kunit_##fn, .name = #fn }

#define DC_SUITE(sname, ...)						\
	static struct kunit_case dc_kunit_cases_##sname[] = {		\
		__VA_ARGS__, {}						\
	};								\
	static struct kunit_suite dc_kunit_suite_##sname = {		\
		.name = "daxcache_" #sname,				\
		.suite_init = dc_kunit_suite_init,			\
		.test_cases = dc_kunit_cases_##sname,			\
	};								\
	kunit_test_suite(dc_kunit_suite_##sname)

#endif /* DC_KUNIT_CASES_H */
