# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am; paths are relative to the top of the tree.
#
# bench/daxsim: the DAX window simulator (bench-daxsim), the access
# generators (workload.{c,h}, also linked by bench/hitratio; they need -lm)
# and the generators' checks.
noinst_PROGRAMS += bench/daxsim/bench-daxsim
bench_daxsim_bench_daxsim_SOURCES = \
	bench/daxsim/daxsim.h bench/daxsim/daxsim_main.c \
	bench/daxsim/daxsim_run.c bench/daxsim/daxsim_clock.c \
	bench/daxsim/daxsim_policy.c \
	bench/daxsim/daxsim_out.c bench/daxsim/daxsim_targets.c \
	bench/daxsim/daxsim_files.c \
	bench/daxsim/workload.c bench/daxsim/workload.h
bench_daxsim_bench_daxsim_LDADD = $(bench_ldadd) -lm

check_PROGRAMS += bench/daxsim/workload-test
bench_daxsim_workload_test_SOURCES = bench/daxsim/workload_test.c \
	bench/daxsim/workload.c bench/daxsim/workload.h
bench_daxsim_workload_test_LDADD = bench/common/libbench-common.la -lm

# make bench-daxsim runs the whole sweep; DAXSIM_ARGS (--quick, --time S,
# filters) go to it.
DAXSIM_ARGS ?=
.PHONY: bench-daxsim
bench-daxsim: bench/daxsim/bench-daxsim
	@mkdir -p $(top_builddir)/bench/results
	$(top_builddir)/bench/daxsim/bench-daxsim \
		--json $(top_builddir)/bench/results/daxsim.json \
		--tsv $(top_builddir)/bench/results/daxsim.tsv $(DAXSIM_ARGS)

# A tiny sweep that must run clean (no timing checked).
TESTS += bench/daxsim/daxsim-smoke
EXTRA_DIST += bench/daxsim/daxsim-smoke
