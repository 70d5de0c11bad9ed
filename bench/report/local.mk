# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am; paths are relative to the top of the tree.
#
# make bench-report: every benchmark that fits in about 10 minutes (the
# simulator, the hit-ratio study, the older benches with --quick, wb-commit,
# fio against daxfs per policy, the in-kernel benchmark), PNG plots into docs/plots/ and a
# regenerated docs/benchmarks.md (bench/report/run; its header lists the
# environment variables that adjust it).
EXTRA_DIST += bench/report/run bench/report/plots bench/report/mkdoc
.PHONY: bench-report
bench-report: $(noinst_PROGRAMS)
	$(top_srcdir)/bench/report/run
