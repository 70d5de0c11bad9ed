# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am (when configured with examples); paths are
# relative to the top of the tree.
#
# examples: one program per feature, each built against the shared library
# alone, as a user builds it; daxfs is also installed (daxcache-tools).
# examples/common: what more than one example needs, built into each.
examples_size_arg = examples/common/size_arg.c examples/common/size_arg.h
noinst_PROGRAMS += examples/cache-demo examples/itree-demo examples/mmap-window \
	examples/wb-commit
examples_cache_demo_SOURCES = examples/cache-demo.c
examples_cache_demo_LDADD = lib/libdaxcache.la
examples_itree_demo_SOURCES = examples/itree-demo.c
examples_itree_demo_LDADD = lib/libdaxcache.la
examples_mmap_window_SOURCES = examples/mmap-window.c $(examples_size_arg)
examples_mmap_window_LDADD = lib/libdaxcache.la
examples_wb_commit_SOURCES = examples/wb-commit.c
examples_wb_commit_LDADD = lib/libdaxcache.la
EXTRA_DIST += examples/run-demo

if HAVE_FUSE3
# daxfs is installed (the daxcache-tools package); the other examples are not.
bin_PROGRAMS = examples/daxfs
dist_man1_MANS = docs/daxfs.1
# One program in parts (examples/daxfs-src/daxfs.h lists them); a folder
# named examples/daxfs would collide with the binary in an in-tree build.
examples_daxfs_SOURCES = examples/daxfs-src/daxfs.h \
	examples/daxfs-src/main.c examples/daxfs-src/options.c \
	examples/daxfs-src/cache.c examples/daxfs-src/node.c \
	examples/daxfs-src/creds.c examples/daxfs-src/fsops.c \
	examples/daxfs-src/dir.c examples/daxfs-src/io.c \
	examples/daxfs-src/uring.c examples/daxfs-src/writeback.c \
	examples/daxfs-src/stats.c $(examples_size_arg)
examples_daxfs_CFLAGS = $(AM_CFLAGS) $(FUSE3_CFLAGS)
examples_daxfs_LDADD = lib/libdaxcache.la $(FUSE3_LIBS)
if HAVE_URING
examples_daxfs_CFLAGS += -DDAXFS_URING $(URING_CFLAGS)
examples_daxfs_LDADD += $(URING_LIBS)
endif
endif
