# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with tests); paths are relative
# to the top of the tree.
#
# tests/integration: the scripts that drive the examples and daxfs as a user
# runs them (the small examples, wb-commit, daxfs mounted through FUSE), and
# the two programs only they use: posix-check and deny-uring.

# POSIX conformance checks of a directory, run by
# tests/integration/daxfs-posix against a plain directory and daxfs (needs
# root).
noinst_PROGRAMS += tests/integration/posix-check
tests_integration_posix_check_SOURCES = tests/integration/posix_check.c

# Runs a program with io_uring_setup() refused by seccomp
# (tests/integration/daxfs-start).
noinst_PROGRAMS += tests/integration/deny-uring
tests_integration_deny_uring_SOURCES = tests/integration/deny_uring.c

# The daxfs tests skip themselves (exit 77) without the binary or
# /dev/fuse.  daxfs-trunc-smoke: O_TRUNC rewrites while readers loop;
# daxfs-attr: the attribute timeout; daxfs-commit: the COMMIT after
# writeback; daxfs-uring: the io_uring engine and its retry rules;
# daxfs-gate: the eviction budget of the default policy;
# daxfs-powerloss: a rename made durable by fsync() of the directory;
# daxfs-start: a start that fails after the fork, and the daemon's log.
# (tests/run's clang build leaves them out with daxfs_tests= on make's
# command line.)
daxfs_tests = tests/integration/examples-smoke \
	tests/integration/wb-commit-smoke tests/integration/daxfs-smoke \
	tests/integration/daxfs-fio tests/integration/daxfs-trunc-smoke \
	tests/integration/daxfs-posix tests/integration/daxfs-attr \
	tests/integration/daxfs-commit tests/integration/daxfs-uring \
	tests/integration/daxfs-gate tests/integration/daxfs-powerloss \
	tests/integration/daxfs-start
EXTRA_DIST += $(daxfs_tests)
if DC_EXAMPLES
TESTS += $(daxfs_tests)
endif
