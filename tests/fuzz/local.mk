# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am; paths are relative to the top of the tree.
#
# tests/fuzz: the libFuzzer harness.  make check builds it as a plain program
# (fuzz-replay) and runs it over the seed corpus (with no arguments it reads
# $srcdir/tests/fuzz/corpus); tests/fuzz/run builds the real fuzzer with clang.
fuzz_harness_sources = tests/fuzz/fuzz.h tests/fuzz/fuzz_daxcache.c \
	tests/fuzz/fuzz_cache.h tests/fuzz/fuzz_cache.c \
	tests/fuzz/fuzz_cache_config.c tests/fuzz/fuzz_itree.c \
	tests/fuzz/fuzz_reqq.c tests/fuzz/fuzz_slots.c tests/fuzz/fuzz_attr.c \
	tests/fuzz/fuzz_iocomp.c
check_PROGRAMS += tests/fuzz/fuzz-replay
tests_fuzz_fuzz_replay_SOURCES = $(fuzz_harness_sources) tests/fuzz/replay_main.c
tests_fuzz_fuzz_replay_LDADD = lib/libdaxcache-core.la $(URCU_LIBS) $(PTHREAD_LIBS)
EXTRA_DIST += tests/fuzz/corpus tests/fuzz/run
