/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ktap.h - what the kernel runners of the shared cases, ktap.c
 * (daxcache_test.ko) and kunit.c (daxcache_kunit.ko), share with the
 * kernel test environment (test_env.c).
 */
#ifndef DC_KTAP_H
#define DC_KTAP_H

#include <linux/printk.h>
#include <linux/types.h>

struct dc_test;

/**
 * dc_ktest_print() - print one diagnostic of a case in the runner's format.
 * @t: the case.
 * @file: where a check failed, or NULL for a plain dc_test_log() line.
 * @line: the line in @file.
 * @vaf: the message.
 *
 * Each runner has its own (ktap.c: indented KTAP diagnostics, kunit.c:
 * kunit_info() and kunit_err()); dc_test_log() and dc_test_fail(), which
 * test_env.c gives both, print through it.
 *
 * Context: any context the cases run in.
 * Return: nothing.
 */
void dc_ktest_print(struct dc_test *t, const char *file, int line,
		    struct va_format *vaf);

/**
 * dc_ktest_run_case() - run one shared case the way both runners do.
 * @t: the case's record, its name and seed set; its failures are reset.
 * @fn: the case.
 *
 * Runs @fn in a registered thread, then waits for deferred frees
 * (dc_barrier()) and records a failure if the library's live allocation
 * count did not return to where it was: the kernel's stand-in for
 * LeakSanitizer.
 *
 * Context: process context; sleeps.
 * Return: the time the case took, in nanoseconds.
 */
u64 dc_ktest_run_case(struct dc_test *t, void (*fn)(struct dc_test *t));

#endif /* DC_KTAP_H */
