# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am in every configuration (with --disable-tests too:
# a distribution's make check still runs the first ones); paths are relative
# to the top of the tree.
#
# tests/tree: the checks of the source tree, scripts that read the sources
# (and what the build made of them) and fail where the tree disagrees with
# itself: the libraries' exports and the headers, the public names, the
# cache's layers, the licenses, the reference and the design notes against
# the sources, the headers as C++, kernel-doc, pipes in the shell scripts,
# paths that lead outside the tree, the one list of suites.  No test program of its own;
# tree-files lists the tree's files for the checks that read every file.
EXTRA_DIST += tests/tree/tree-files
# The exported symbol sets equal the installed headers' functions (no test
# apparatus, no internal name); in every configuration.
TESTS += tests/tree/export-check
EXTRA_DIST += tests/tree/export-check
# dc_ and DC_ name the installed headers' API and nothing else in lib/ and
# kshim/ (the private names are dci_ and DCI_).
TESTS += tests/tree/public-names-check
EXTRA_DIST += tests/tree/public-names-check
# The cache files call one way (the layers of lib/core/cache_types.h).
TESTS += tests/tree/layering-check
EXTRA_DIST += tests/tree/layering-check
# No shell script pipes into a reader that stops early (SIGPIPE under
# pipefail, seen only on a loaded machine).
TESTS += tests/tree/pipe-check
EXTRA_DIST += tests/tree/pipe-check
# Each file's SPDX license has its text in LICENSES/, and debian/copyright
# says what the SPDX lines say.
TESTS += tests/tree/license-check
EXTRA_DIST += tests/tree/license-check
# The kernel's scripts/kernel-doc accepts the comments of the headers, the
# core and the shim (skips without linux-kbuild).
TESTS += tests/tree/kernel-doc-check
EXTRA_DIST += tests/tree/kernel-doc-check
# docs/design.md renders the sources' DOC: comments as they are now.
TESTS += tests/tree/design-doc-check
EXTRA_DIST += tests/tree/design-doc-check
# Every public header compiles as C++, and a C++ program links every function.
TESTS += tests/tree/cxx-header-check
EXTRA_DIST += tests/tree/cxx-header-check
# Nothing in the tree points outside it.
TESTS += tests/tree/self-contained-check
EXTRA_DIST += tests/tree/self-contained-check

# Configured with tests only:
# docs/api.md and the man pages say what the headers' kernel-doc says
# (docs/local.mk makes them);
EXTRA_DIST += tests/tree/api-doc-check
# the committed tests/cases/suites.am is what tests/cases/mksuites makes
# of tests/cases/ today (the one list of suites: tests/cases/local.mk).
EXTRA_DIST += tests/tree/suites-check
if DC_TESTS
TESTS += tests/tree/api-doc-check
TESTS += tests/tree/suites-check
endif
