# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with tests); paths are relative
# to the top of the tree.
#
# tests/cases: the shared suites, compiled here as cmocka runners and in the
# kernel as KTAP (daxcache_test.ko) and KUnit (daxcache_kunit.ko) modules.
test_case_sources = tests/cases/dc_test.h tests/cases/sim_env.h tests/unit/test_env.c tests/unit/run_suite.c
test_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -I$(top_srcdir)/tests/cases
test_ldadd = lib/libdaxcache-core.la $(CMOCKA_LIBS) $(URCU_LIBS) $(PTHREAD_LIBS)

# One runner per tests/cases/NAME_cases.c, the same files the kernel's test
# modules glob.  The fragment is made by tests/cases/mksuites and rewritten
# when tests/cases/ gains or loses a file, so adding a suite is adding its
# file (and committing the fragment make rewrote; tests/tree/suites-check
# fails while it is stale).
include $(top_srcdir)/tests/cases/suites.am
# Each runner prints TAP, one line a case, and make check runs it through
# automake's TAP driver (Makefile.am), so that the summary and the log of a
# failure name the case: the test is tests/unit/NAME.tap, a wrapper that runs
# the program with cmocka's TAP output; the program itself is built for it
# (EXTRA_PROGRAMS: not by make all, and not a test of its own).
EXTRA_PROGRAMS += $(suite_programs)
check_SCRIPTS += $(suite_tests)
TESTS += $(suite_tests)
CLEANFILES += $(suite_programs) $(suite_tests)
suite_tap_wrapper = printf '\043!/bin/sh\nCMOCKA_MESSAGE_OUTPUT=TAP exec "%s" "$$@"\n' \
	"$(abs_builddir)/$<" > $@ && chmod +x $@
# (Written only when it changes: a distcheck's source tree is read-only, and
# an unchanged file must not make automake run again.)
$(top_srcdir)/tests/cases/suites.am: $(top_srcdir)/tests/cases $(top_srcdir)/tests/cases/mksuites
	$(AM_V_GEN)$(MKDIR_P) tests/cases && \
	$(SHELL) $(top_srcdir)/tests/cases/mksuites $(top_srcdir) > tests/cases/suites.am.tmp && \
	if cmp -s tests/cases/suites.am.tmp $@; then rm -f tests/cases/suites.am.tmp; \
	else mv tests/cases/suites.am.tmp $@; fi
EXTRA_DIST += tests/cases/mksuites tests/cases/suites.am
