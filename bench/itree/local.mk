# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with benchmarks); paths are
# relative to the top of the tree.
#
# bench/itree: the interval tree's lookups, alone and beside a writer, against
# rculfhash, an rbtree under an rwlock and a sorted flat array (bench-itree).
noinst_PROGRAMS += bench/itree/bench-itree
bench_itree_bench_itree_SOURCES = \
	bench/itree/bench_itree.c \
	bench/itree/bench_report.c bench/itree/bench_report.h \
	bench/itree/bench_run.c bench/itree/bench_run.h \
	bench/itree/bench_target.h bench/itree/bench_targets.c \
	bench/itree/flat_array.c bench/itree/flat_array.h \
	bench/itree/lfht_index.c bench/itree/lfht_index.h \
	bench/itree/rbtree_rwlock.c bench/itree/rbtree_rwlock.h
bench_itree_bench_itree_CFLAGS = $(AM_CFLAGS) $(URCU_CDS_CFLAGS)
bench_itree_bench_itree_LDADD = bench/common/libbench-common.la lib/libdaxcache-core.la $(URCU_CDS_LIBS) $(URCU_LIBS) $(PTHREAD_LIBS)
bench_json_runs += bench-itree
bench-itree: bench/itree/bench-itree
# bench/itree/instr: the lookups' instructions per op under callgrind.
EXTRA_DIST += bench/itree/instr
