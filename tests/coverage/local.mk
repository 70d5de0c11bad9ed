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

