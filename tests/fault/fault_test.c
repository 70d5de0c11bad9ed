// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault_test.c - complete fault injection: every allocation site of the
 * library failed in turn (fault_alloc.c), and every backend op failed with
 * every errno on every path that calls it (fault_backend.c).  Prints the
 * counts; exits 1 when a check failed.  Leaks are LeakSanitizer's (the ASan
 * build) or valgrind's to find.
 *
 * FT_VERBOSE=1 in the environment shows the library's log lines (failed
 * removes and writebacks log a warning each).
 */
#include "fault_test.h"

#include <stdlib.h>

static unsigned long log_lines;
static bool log_verbose;

static void log_hook(void *priv, int level, const char *msg)
{
	__atomic_add_fetch(&log_lines, 1, __ATOMIC_RELAXED);
	if (log_verbose)
		fprintf(stderr, "log %d: %s\n", level, msg);
}

int main(void)
{
	unsigned long warns, alloc_cases, backend_cases;

	log_verbose = getenv("FT_VERBOSE") && *getenv("FT_VERBOSE") != '0';
	dc_set_log_fn(log_hook, NULL);
	dc_thread_register();
	warns = dc_warn_count();
	FT_CHECK_INT(dci_fault_alloc_last_site(), -ENOENT);
	FT_CHECK_INT(dci_fault_site_fail_nth(dci_fault_site_count(), 1), -ENOENT);
	FT_CHECK_INT(dci_fault_site_get(0, NULL), -EINVAL);

	alloc_cases = ft_alloc_run();
	backend_cases = ft_backend_run();
	ft_mmapbe_run();

	snprintf(ft_context, sizeof(ft_context), "end");
	/* No misuse warning: refcounts, lost ranges, pinned evictions. */
	FT_CHECK_INT(dc_warn_count(), warns);
	dc_barrier();
	dc_thread_unregister();
	dc_set_log_fn(NULL, NULL);
	printf("fault: %lu allocation failure cases, %lu backend cases, %lu log lines, %lu failed checks\n",
	       alloc_cases, backend_cases, log_lines, ft_failures);
	return ft_failures ? 1 : 0;
}
