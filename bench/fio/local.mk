# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with benchmarks); paths are
# relative to the top of the tree.
#
# bench/fio: fio against a daxfs mount, per policy and with --no-dax
# (bench/fio/run; make bench-report runs it).
EXTRA_DIST += bench/fio/run
