// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * run_suite.c - runs one shared test suite (tests/cases/) under cmocka.
 *
 * Built once per suite with -DDC_SUITE_NAME=<suite>.  The seed of the
 * random cases is printed and can be fixed with DC_TEST_SEED=<n>; the
 * iteration scale with DC_TEST_SCALE=<n>.  DC_TEST_FILTER=<pattern> runs
 * only the cases whose names match it (cmocka's glob: * and ?).
 */
#include "dc_test.h"

#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#define DC_CAT2(a, b)	a##b
#define DC_CAT(a, b)	DC_CAT2(a, b)
#define DC_STR2(a)	#a
#define DC_STR(a)	DC_STR2(a)

extern const struct dc_test_suite DC_CAT(dc_suite_, DC_SUITE_NAME);

static uint64_t suite_seed;

static void trampoline(void **state)
{
	const struct dc_test_case *c = *state;
	struct dc_test t = { .name = c->name, .seed = suite_seed };

	dci_atomic_set(&t.failures, 0);
	dc_thread_register();
	c->fn(&t);
	/* Run the case's deferred frees now: at exit they would look leaked. */
	dc_barrier();
	dc_thread_unregister();
	if (dc_test_failed(&t))
		fail_msg("%s: %d check(s) failed (DC_TEST_SEED=%llu)", c->name,
			 dci_atomic_read(&t.failures),
			 (unsigned long long)suite_seed);
}

int main(void)
{
	const struct dc_test_suite *s = &DC_CAT(dc_suite_, DC_SUITE_NAME);
	const char *env = getenv("DC_TEST_SEED");
	const char *filter = getenv("DC_TEST_FILTER");
	struct CMUnitTest *tests;
	size_t n = 0, i;
	int ret;

	suite_seed = env ? strtoull(env, NULL, 0) : dci_now_ns();
	printf("# suite %s: DC_TEST_SEED=%llu\n", s->name,
	       (unsigned long long)suite_seed);
	while (s->cases[n].fn)
		n++;
	tests = calloc(n, sizeof(*tests));
	if (!tests)
		return 1;
	for (i = 0; i < n; i++) {
		tests[i].name = s->cases[i].name;
		tests[i].test_func = trampoline;
		tests[i].initial_state = (void *)&s->cases[i];
	}
	if (filter && *filter)
		cmocka_set_test_filter(filter);
	{
		/*
		 * cmocka's public entry point counts its array with sizeof:
		 * give it the array as what it is, n tests (a variably
		 * modified type, whose sizeof is taken at run time).
		 */
		struct CMUnitTest (*group)[n] = (struct CMUnitTest (*)[n])tests;

		ret = cmocka_run_group_tests_name(s->name, *group, NULL, NULL);
	}
	free(tests);
	return ret ? 1 : 0;
}
