/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ok_check.h - the checks of the small standalone test programs
 * (struct-size, unregistered-test): one "ok WHAT" or "not ok WHAT" line
 * per check, counted, and a summary line to end with.
 */
#ifndef DC_TESTS_OK_CHECK_H
#define DC_TESTS_OK_CHECK_H

#include <stdio.h>

static int ok_failures, ok_passes;

/* Print and count one check: @ok or not, what it checks, the value seen. */
static inline void check(int ok, const char *what, long got)
{
	printf("%s %s (got %ld)\n", ok ? "ok" : "not ok", what, got);
	if (ok)
		ok_passes++;
	else
		ok_failures++;
}

/* Print "@prog: N passed, M failed"; returns the exit status (1 on failure). */
static inline int ok_summary(const char *prog)
{
	printf("%s: %d passed, %d failed\n", prog, ok_passes, ok_failures);
	return ok_failures ? 1 : 0;
}

#endif /* DC_TESTS_OK_CHECK_H */
