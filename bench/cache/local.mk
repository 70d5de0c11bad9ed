# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with benchmarks); paths are
# relative to the top of the tree.
#
# bench/cache: the cache's hit, miss and churn paths against a kernel-style
# baseline, and its memory per range (bench-cache); the hit path's
# instructions counted by callgrind (bench-instr, run by bench/cache/instr).
noinst_PROGRAMS += bench/cache/bench-cache
bench_cache_bench_cache_SOURCES = \
	bench/cache/bench_cache.c bench/cache/bench_cache.h \
	bench/cache/bench_hit.c bench/cache/bench_share.c \
	bench/cache/bench_miss.c bench/cache/bench_churn.c \
	bench/cache/bench_mem.c bench/cache/bench_parmiss.c \
	bench/cache/bench_util.c bench/cache/bench_util.h \
	bench/cache/cache_setup.c \
	bench/cache/kernel_rwlock.c bench/cache/kernel_rwlock.h \
	bench/cache/latency_backend.c bench/cache/latency_backend.h \
	bench/cache/noop_target.c bench/cache/noop_target.h \
	bench/cache/null_backend.c bench/cache/null_backend.h \
	bench/itree/rbtree_rwlock.c bench/itree/rbtree_rwlock.h
bench_cache_bench_cache_CFLAGS = $(AM_CFLAGS)
bench_cache_bench_cache_LDADD = $(bench_ldadd)

noinst_PROGRAMS += bench/cache/bench-instr
bench_cache_bench_instr_SOURCES = \
	bench/cache/bench_instr.c bench/cache/bench_cache.h \
	bench/cache/bench_util.c bench/cache/bench_util.h \
	bench/cache/cache_setup.c \
	bench/cache/kernel_rwlock.c bench/cache/kernel_rwlock.h \
	bench/cache/null_backend.c bench/cache/null_backend.h \
	bench/itree/rbtree_rwlock.c bench/itree/rbtree_rwlock.h
bench_cache_bench_instr_CFLAGS = $(AM_CFLAGS)
bench_cache_bench_instr_LDADD = $(bench_ldadd)
# The same program linked with the shared library users get (libdaxcache.so,
# as built for installation): its miss is what a user's miss costs
# (bench/cache/instr).  -no-install: no libtool wrapper script, so that
# valgrind runs the program itself.
noinst_PROGRAMS += bench/cache/bench-instr-shared
bench_cache_bench_instr_shared_SOURCES = $(bench_cache_bench_instr_SOURCES)
bench_cache_bench_instr_shared_CFLAGS = $(AM_CFLAGS)
bench_cache_bench_instr_shared_LDADD = bench/common/libbench-common.la lib/libdaxcache.la \
	$(URCU_LIBS) $(PTHREAD_LIBS)
bench_cache_bench_instr_shared_LDFLAGS = -no-install
EXTRA_DIST += bench/cache/instr

bench_runs += bench-cache bench-instr
.PHONY: bench-cache bench-instr
bench-cache: bench/cache/bench-cache
	$(bench_run_json)
bench-instr: bench/cache/bench-instr
	@mkdir -p $(top_builddir)/bench/results
	$(top_srcdir)/bench/cache/instr --json $(top_builddir)/bench/results/instr.json
