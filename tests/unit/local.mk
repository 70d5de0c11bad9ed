# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with tests); paths are relative
# to the top of the tree.
#
# tests/unit: the unit test programs that are not shared suites (the mmap
# backend, truncation under a mapping, fork, the sized structures, dlopen,
# the version) and their helpers, with the two scripts that each drive one
# of them: fork-all-check (fork-all-test's cases against the headers) and
# trace-probes (trace_probe_test.c against an installed library, for
# tests/run).  (The shared suites' runners are built here too, from
# tests/cases, with run_suite.c and test_env.c.)  The checks of the source
# tree are in tests/tree, the scripts that drive the examples and daxfs in
# tests/integration.
check_PROGRAMS += tests/unit/mmap-backend tests/unit/mmap-trunc
tests_unit_mmap_backend_SOURCES = tests/unit/mmap_backend_test.c
tests_unit_mmap_backend_CFLAGS = $(test_cflags)
tests_unit_mmap_backend_LDADD = $(test_ldadd)
# Not cmocka: cmocka replaces the SIGBUS handler around each test.
tests_unit_mmap_trunc_SOURCES = tests/unit/mmap_trunc_test.c
tests_unit_mmap_trunc_LDADD = lib/libdaxcache-core.la $(URCU_LIBS) $(PTHREAD_LIBS)
EXTRA_DIST += tests/unit/mmapbe_create.h tests/unit/tmpfile.h tests/unit/ok_check.h
# Deferred frees stay bounded while a reader holds up the grace period:
# reads the userspace platform's counters, so links the core, not the .so.
check_PROGRAMS += tests/unit/rcu-bound
tests_unit_rcu_bound_SOURCES = tests/unit/rcu_bound_test.c
tests_unit_rcu_bound_LDADD = lib/libdaxcache-core.la $(URCU_LIBS) $(PTHREAD_LIBS)

# Public headers and the shared library only: tests/run builds these
# against the installed library too.
check_PROGRAMS += tests/unit/fork-test tests/unit/unregistered-test
tests_unit_fork_test_SOURCES = tests/unit/fork_test.c
tests_unit_fork_test_LDADD = lib/libdaxcache.la
# Every public function in a child forked without dc_before_fork(), and
# the check that it is every one.
check_PROGRAMS += tests/unit/fork-all-test
tests_unit_fork_all_test_SOURCES = tests/unit/fork_all_test.c
tests_unit_fork_all_test_LDADD = lib/libdaxcache-sim.la lib/libdaxcache.la
TESTS += tests/unit/fork-all-check
EXTRA_DIST += tests/unit/fork-all-check
# tests/run's install step: the installed library's USDT probes, attached
# and fired (the program is built against the installed library there).
EXTRA_DIST += tests/unit/trace-probes tests/unit/trace_probe_test.c
tests_unit_unregistered_test_SOURCES = tests/unit/unregistered_test.c
tests_unit_unregistered_test_LDADD = lib/libdaxcache-sim.la lib/libdaxcache.la $(PTHREAD_LIBS)
# libdaxcache as a plugin: dlopen(), threads that outlive dlclose().  Links
# nothing of it; AM_TESTS_ENVIRONMENT names the shared object.
check_PROGRAMS += tests/unit/dlopen-test
tests_unit_dlopen_test_SOURCES = tests/unit/dlopen_test.c
tests_unit_dlopen_test_LDADD = $(PTHREAD_LIBS) -ldl
# An application that uses liburcu-memb itself, and the library.
check_PROGRAMS += tests/unit/urcu-app-test
tests_unit_urcu_app_test_SOURCES = tests/unit/urcu_app_test.c
tests_unit_urcu_app_test_LDADD = lib/libdaxcache.la $(URCU_LIBS) $(PTHREAD_LIBS)
# The version macros, dc_version() and configure's version agree.
check_PROGRAMS += tests/unit/version-test
tests_unit_version_test_SOURCES = tests/unit/version_test.c
tests_unit_version_test_LDADD = lib/libdaxcache.la
# An inode's heap does not grow with how far into its file it maps.
check_PROGRAMS += tests/unit/inode-memory
tests_unit_inode_memory_SOURCES = tests/unit/inode_memory_test.c
tests_unit_inode_memory_LDADD = lib/libdaxcache-sim.la lib/libdaxcache.la
# libdaxcache-sim's messages reach the hook of libdaxcache's dc_set_log_fn():
# the two shared libraries, as a user links them.
check_PROGRAMS += tests/unit/sim-log-test
tests_unit_sim_log_test_SOURCES = tests/unit/sim_log_test.c
tests_unit_sim_log_test_LDADD = lib/libdaxcache-sim.la lib/libdaxcache.la
# Old and new callers' copies of the sized structures.
check_PROGRAMS += tests/unit/struct-size
tests_unit_struct_size_SOURCES = tests/unit/struct_size_test.c
tests_unit_struct_size_LDADD = lib/libdaxcache-sim.la lib/libdaxcache.la
