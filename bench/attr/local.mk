# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with benchmarks); paths are
# relative to the top of the tree.
#
# bench/attr: attribute refresh on timeout against a refresh on every read
# (bench-attr).
noinst_PROGRAMS += bench/attr/bench-attr
bench_attr_bench_attr_SOURCES = bench/attr/bench_attr.c
bench_attr_bench_attr_LDADD = $(bench_ldadd)
bench_json_runs += bench-attr
bench-attr: bench/attr/bench-attr
