# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am; paths are relative to the top of the tree.

# Complete fault injection: every allocation site failed in turn, every
# backend op failed with every errno on every calling path.
check_PROGRAMS += tests/fault/fault-test
tests_fault_fault_test_SOURCES = tests/fault/fault_test.c tests/fault/fault_test.h \
	tests/fault/fault_env.c tests/fault/fault_alloc.c tests/fault/fault_backend.c \
	tests/fault/fault_mmapbe.c
tests_fault_fault_test_LDADD = lib/libdaxcache-core.la $(URCU_LIBS) $(PTHREAD_LIBS)

# The same program under valgrind (the ASan build's LeakSanitizer is the
# other leak check); liburcu's own thread is suppressed.
EXTRA_DIST += tests/fault/valgrind.supp
.PHONY: fault-valgrind
fault-valgrind: tests/fault/fault-test
	$(LIBTOOL) --mode=execute valgrind --fair-sched=yes --leak-check=full --error-exitcode=1 \
		--suppressions=$(top_srcdir)/tests/fault/valgrind.supp \
		$(top_builddir)/tests/fault/fault-test
