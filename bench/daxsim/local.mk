# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am; paths are relative to the top of the tree.
#
# bench/daxsim: the access generators (workload.{c,h}, also linked by
# bench/hitratio) and their checks.  Link the generators with -lm (zipf).
check_PROGRAMS += bench/daxsim/workload-test
bench_daxsim_workload_test_SOURCES = bench/daxsim/workload_test.c \
	bench/daxsim/workload.c bench/daxsim/workload.h
bench_daxsim_workload_test_LDADD = -lm
