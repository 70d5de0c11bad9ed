# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am; paths are relative to the top of the tree.
#
# The spin model of the allocation/reclaim/wait protocol (tests/model/run
# installs spin when missing and builds pan in a temporary directory).

EXTRA_DIST += tests/model/reclaim.pml tests/model/run

.PHONY: model-check
model-check:
	bash $(top_srcdir)/tests/model/run
