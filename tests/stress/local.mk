# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with tests); paths are relative
# to the top of the tree.
#
# tests/stress: the cache stress test and the torture test.

# The torture test: many threads map, pin, read, write, punch and
# evict for a bounded time, with random backend delays, checking content
# identity, range age and the invariants after each round.  make check runs
# the short version (about 5 s); the long one is
#   make torture TORTURE_ARGS="-t 600 -j 16"
# (add --faults to inject backend failures, --seed N to replay a seed).
check_PROGRAMS += tests/stress/torture
tests_stress_torture_SOURCES = tests/stress/torture.h \
	tests/stress/torture_main.c tests/stress/torture_roles.c \
	tests/stress/torture_backend.c tests/stress/torture_monitor.c
tests_stress_torture_LDADD = lib/libdaxcache-core.la $(URCU_LIBS) $(PTHREAD_LIBS)

TORTURE_ARGS ?= -t 600 -j 16
.PHONY: torture
torture: tests/stress/torture
	$(top_builddir)/tests/stress/torture $(TORTURE_ARGS)

# cache-stress: threads, failures and invariant checks for about 3 s; longer
# with make stress STRESS_ARGS="-t 60 -j 8".
check_PROGRAMS += tests/stress/cache-stress
tests_stress_cache_stress_SOURCES = tests/stress/cache_stress.c
tests_stress_cache_stress_LDADD = lib/libdaxcache-core.la $(URCU_LIBS) $(PTHREAD_LIBS)

STRESS_ARGS ?=
.PHONY: stress
stress: tests/stress/cache-stress
	$(top_builddir)/tests/stress/cache-stress $(STRESS_ARGS)
