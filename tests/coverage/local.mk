# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am; paths are relative to the top of the tree.

# make coverage: line and branch coverage of lib/ by make check, in a build
# directory of its own (COVERAGE_DIR, default build-cov at the top of the
# source tree); see tests/coverage/run.
EXTRA_DIST += tests/coverage/run
COVERAGE_DIR ?= build-cov
.PHONY: coverage
coverage:
	bash $(abs_top_srcdir)/tests/coverage/run $(COVERAGE_DIR)

# Shared suites written to cover what the others left out (the kernel build
# picks them up by their names); their userspace runners.
check_PROGRAMS += tests/unit/reqq-more tests/unit/core-more tests/unit/simbe-more
tests_unit_reqq_more_SOURCES = $(test_case_sources) tests/cases/reqq_more_cases.c
tests_unit_reqq_more_CFLAGS = $(test_cflags) -DDC_SUITE_NAME=reqq_more
tests_unit_reqq_more_LDADD = $(test_ldadd)
tests_unit_core_more_SOURCES = $(test_case_sources) tests/cases/core_more_cases.c
tests_unit_core_more_CFLAGS = $(test_cflags) -DDC_SUITE_NAME=core_more
tests_unit_core_more_LDADD = $(test_ldadd)
tests_unit_simbe_more_SOURCES = $(test_case_sources) tests/cases/simbe_more_cases.c
tests_unit_simbe_more_CFLAGS = $(test_cflags) -DDC_SUITE_NAME=simbe_more
tests_unit_simbe_more_LDADD = $(test_ldadd)
