# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am; paths are relative to the top of the tree.
#
# bench/hitratio: the hit-ratio study: the library's victim policies
# against exact LRU, Belady's OPT, textbook CLOCK and FIFO, and the
# state-of-the-art anchors ARC, 2Q, S3-FIFO and SIEVE, on
# traces from bench/daxsim's generators.

# The offline simulators, in the study and in their checks.
hitratio_sims = bench/hitratio/hitratio.h bench/hitratio/sim_list.h \
	bench/hitratio/sim_clock.c bench/hitratio/sim_lru.c bench/hitratio/sim_opt.c \
	bench/hitratio/sim_arc.c bench/hitratio/sim_2q.c bench/hitratio/sim_s3fifo.c \
	bench/hitratio/sim_sieve.c
noinst_PROGRAMS += bench/hitratio/bench-hitratio
bench_hitratio_bench_hitratio_SOURCES = \
	bench/hitratio/bench_hitratio.c \
	bench/hitratio/lib_replay.c \
	bench/hitratio/report.c \
	bench/hitratio/study.h \
	$(hitratio_sims) \
	bench/daxsim/workload.c bench/daxsim/workload.h
bench_hitratio_bench_hitratio_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/bench/daxsim
bench_hitratio_bench_hitratio_LDADD = $(bench_ldadd) -lm

# The study is repeatable: the same command prints the same table twice.
TESTS += bench/hitratio/repeat-check
EXTRA_DIST += bench/hitratio/repeat-check

# The offline simulators against textbook values and their invariants.
check_PROGRAMS += bench/hitratio/sim-test
bench_hitratio_sim_test_SOURCES = bench/hitratio/sim_test.c $(hitratio_sims)
