# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with benchmarks); paths are
# relative to the top of the tree.
#
# bench/kernel: the in-kernel benchmark module (daxcache.ko's hit and miss
# paths against a replica of fs/fuse/dax.c's), built by kshim's Kbuild with
# DC_BENCH=1 and run in a booted kernel by bench/kernel/run.
EXTRA_DIST += bench/kernel
