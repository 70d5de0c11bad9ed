# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with benchmarks); paths are
# relative to the top of the tree.
#
# bench/common: what every benchmark shares: the option parser and usage
# text (opts), the JSON writer (json), the latency histogram (lat_hist), the
# clocks (clock) and the order statistics (stats);
# common-check checks their logic.
noinst_LTLIBRARIES += bench/common/libbench-common.la
bench_common_libbench_common_la_SOURCES = \
	bench/common/opts.c bench/common/opts.h \
	bench/common/json.c bench/common/json.h \
	bench/common/lat_hist.c bench/common/lat_hist.h \
	bench/common/clock.c bench/common/clock.h \
	bench/common/stats.c bench/common/stats.h

check_PROGRAMS += bench/common/common-check
bench_common_common_check_SOURCES = bench/common/common_check.c
bench_common_common_check_LDADD = bench/common/libbench-common.la

# What a benchmark links: the above, the library's static copy, its threads.
bench_ldadd = bench/common/libbench-common.la lib/libdaxcache-core.la \
	$(URCU_LIBS) $(PTHREAD_LIBS)
# The recipe of run target bench-NAME, a benchmark that writes
# bench/results/NAME.json: the program (its first prerequisite) with --json
# and BENCH_ARGS.  A fragment adds such a run target to bench_json_runs
# and names its program; Makefile.am gives them this recipe.
bench_run_json = mkdir -p $(top_builddir)/bench/results && \
	$< --json $(top_builddir)/bench/results/$(@:bench-%=%).json $(BENCH_ARGS)
