# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with benchmarks); paths are
# relative to the top of the tree.
#
# bench/inode: dc_inode_get() + put of existing inodes, 1 and 2 threads, over
# up to 10^6 inodes (bench-inode).
noinst_PROGRAMS += bench/inode/bench-inode
bench_inode_bench_inode_SOURCES = bench/inode/bench_inode.c \
	bench/cache/bench_util.c bench/cache/bench_util.h \
	bench/cache/null_backend.c bench/cache/null_backend.h
bench_inode_bench_inode_CFLAGS = $(AM_CFLAGS)
bench_inode_bench_inode_LDADD = $(bench_ldadd)
bench_json_runs += bench-inode
bench-inode: bench/inode/bench-inode
