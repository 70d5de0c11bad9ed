# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with benchmarks); paths are
# relative to the top of the tree.
#
# bench/reqq: the request queue's retry of a full queue on completion
# against the 1 ms timer (bench-reqq).
noinst_PROGRAMS += bench/reqq/bench-reqq
bench_reqq_bench_reqq_SOURCES = bench/reqq/bench_reqq.c
bench_reqq_bench_reqq_LDADD = $(bench_ldadd)
bench_json_runs += bench-reqq
bench-reqq: bench/reqq/bench-reqq
