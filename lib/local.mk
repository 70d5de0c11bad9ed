# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am; paths are relative to the top of the tree.
#
# lib: the product (libdaxcache, libdaxcache-sim), its installed headers and
# pkg-config files, and the static copy the in-tree programs link.
# The product: what libdaxcache.so and daxcache.ko are made of.
core_sources = \
	lib/core/attr.c \
	lib/core/cache.c \
	lib/core/cache_admit.c \
	lib/core/cache_admit.h \
	lib/core/cache_admit_types.h \
	lib/core/cache_inode.c \
	lib/core/cache_inode.h \
	lib/core/cache_inode_types.h \
	lib/core/cache_map.c \
	lib/core/cache_maptab.c \
	lib/core/cache_maptab.h \
	lib/core/cache_maptab_types.h \
	lib/core/cache_pool.c \
	lib/core/cache_pool.h \
	lib/core/cache_pool_ring.h \
	lib/core/cache_pool_types.h \
	lib/core/cache_range.h \
	lib/core/cache_reclaim.c \
	lib/core/cache_reclaim.h \
	lib/core/cache_reclaim_types.h \
	lib/core/cache_stats.h \
	lib/core/cache_trace.h \
	lib/core/cache_types.h \
	lib/core/cache_victim.h \
	lib/core/cache_victim_clock.c \
	lib/core/cache_victim_round_robin.c \
	lib/core/cache_victim_sieve.c \
	lib/core/iocomp.c \
	lib/core/itree.c \
	lib/core/itree_internal.h \
	lib/core/reqq.c \
	lib/core/slots.c \
	lib/core/struct_size.h \
	lib/core/version.c \
	lib/backend/mmap_backend.c \
	lib/platform/fault_hook.h \
	lib/platform/prng.h \
	lib/platform/refcount.h \
	lib/platform/refcount_site.h \
	lib/platform/user/memwait.c \
	lib/platform/user/platform.c \
	lib/platform/user/platform.h \
	lib/platform/user/rcu.h \
	lib/platform/user/trace.h
# The kernel platform's headers: daxcache.ko's, built by kshim/ (Kbuild),
# shipped whole as kshim/ is (Makefile.am).
EXTRA_DIST += lib/platform/kernel
# The simulation backend, a library of its own (libdaxcache-sim): no part of
# the product's core, so out of lib/core.
sim_sources = lib/sim/simbe.c
# Allocation fault injection (<daxcache/fault.h>): test builds only.
fault_sources = lib/platform/user/fault.c

# Why the core is compiled twice.  Everything in-tree (tests, benchmarks)
# links this static convenience copy of all three parts, which differs
# from the product in two ways that need a compilation of their own:
#   - -DDCI_FAULT_INJECTION gives every allocation of the core (the one
#     allocator in the platform) a hook that tests/fault and the fault
#     cases fail on demand; the product carries no such branch or export;
#   - its internal (dci_) functions stay reachable: the tests call them, and
#     the shared library binds them locally (-fno-semantic-interposition,
#     the version script), so they are not in libdaxcache.so's table.
# Users get libdaxcache and libdaxcache-sim; what tests/tree/export-check and
# the programs built against the installed library check is that product.
noinst_LTLIBRARIES = lib/libdaxcache-core.la
lib_libdaxcache_core_la_SOURCES = $(core_sources) $(sim_sources) $(fault_sources)
# The USDT probes (SDT_CPPFLAGS) are the core's, in the two libraries that
# hold it: libdaxcache-sim, the tests and the benchmarks include the same
# platform header without them (an unoptimised build, such as coverage's,
# would emit the unused probe functions, whose semaphores only the core
# defines).
lib_libdaxcache_core_la_CPPFLAGS = $(AM_CPPFLAGS) $(SDT_CPPFLAGS)
lib_libdaxcache_core_la_CFLAGS = $(AM_CFLAGS) $(TLS_CFLAGS) -DDCI_FAULT_INJECTION
lib_libdaxcache_core_la_LIBADD = $(URCU_LIBS) $(PTHREAD_LIBS)

lib_LTLIBRARIES = lib/libdaxcache.la lib/libdaxcache-sim.la
lib_libdaxcache_la_SOURCES = $(core_sources)
# What leaves a shared library is its version script, made from the
# DCI_EXPORT(name) line after each exported function's definition; the rest
# binds locally (so calls inside the library need no interposition).
lib_libdaxcache_la_CPPFLAGS = $(AM_CPPFLAGS) $(SDT_CPPFLAGS)
lib_libdaxcache_la_CFLAGS = $(AM_CFLAGS) $(TLS_CFLAGS) -fno-semantic-interposition
lib_libdaxcache_la_LIBADD = $(URCU_LIBS) $(PTHREAD_LIBS)
# -z nodelete: the library leaves code behind in every thread that used it
# (pthread key destructors for its per-thread counters and registration,
# liburcu's reader state), which runs when the thread exits; a dlclose()
# must not unmap it first.
lib_libdaxcache_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(DC_LT_VERSION) -no-undefined \
	-Wl,-Bsymbolic-functions -Wl,-z,nodelete
# libdaxcache-sim: the simulation backend, with its own copy of the
# stateless platform part (allocation, locks, wait queues).  It logs through
# libdaxcache's dci_plat_log(), the one internal function libdaxcache.so
# exports to it (in its private version node: lib/mksym), so that the hook
# of dc_set_log_fn() gets the messages of both libraries.
lib_libdaxcache_sim_la_SOURCES = $(sim_sources) lib/platform/user/memwait.c
lib_libdaxcache_sim_la_CFLAGS = $(AM_CFLAGS) $(TLS_CFLAGS) -fno-semantic-interposition
lib_libdaxcache_sim_la_LIBADD = lib/libdaxcache.la $(PTHREAD_LIBS)
lib_libdaxcache_sim_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(DC_SIM_LT_VERSION) \
	-no-undefined -Wl,-Bsymbolic-functions
if HAVE_VSCRIPT
lib_libdaxcache_la_LDFLAGS += -Wl,--version-script=lib/libdaxcache.sym
lib_libdaxcache_sim_la_LDFLAGS += -Wl,--version-script=lib/libdaxcache-sim.sym
endif
EXTRA_lib_libdaxcache_la_DEPENDENCIES = lib/libdaxcache.sym
EXTRA_lib_libdaxcache_sim_la_DEPENDENCIES = lib/libdaxcache-sim.sym
# One version node per release, listed in lib/LIB.nodes (see lib/mksym).
lib/libdaxcache.sym: $(core_sources) lib/mksym lib/libdaxcache.nodes
	$(AM_V_GEN)$(MKDIR_P) lib && \
	srcs=; for f in $(core_sources); do case $$f in *.c) srcs="$$srcs $(top_srcdir)/$$f";; esac; done; \
	$(SHELL) $(top_srcdir)/lib/mksym $(top_srcdir)/lib/libdaxcache.nodes $$srcs > $@.tmp && mv $@.tmp $@
lib/libdaxcache-sim.sym: $(sim_sources) lib/mksym lib/libdaxcache-sim.nodes
	$(AM_V_GEN)$(MKDIR_P) lib && \
	srcs=; for f in $(sim_sources); do srcs="$$srcs $(top_srcdir)/$$f"; done; \
	$(SHELL) $(top_srcdir)/lib/mksym $(top_srcdir)/lib/libdaxcache-sim.nodes $$srcs > $@.tmp && mv $@.tmp $@
EXTRA_DIST += lib/libdaxcache.nodes lib/libdaxcache-sim.nodes
CLEANFILES += lib/libdaxcache.sym lib/libdaxcache-sim.sym

daxcacheincludedir = $(includedir)/daxcache
daxcacheinclude_HEADERS = \
	include/daxcache/attr.h \
	include/daxcache/cache.h \
	include/daxcache/daxcache.h \
	include/daxcache/iocomp.h \
	include/daxcache/itree.h \
	include/daxcache/log.h \
	include/daxcache/mmap_backend.h \
	include/daxcache/reqq.h \
	include/daxcache/simbe.h \
	include/daxcache/sized.h \
	include/daxcache/slots.h \
	include/daxcache/thread.h \
	include/daxcache/version.h

pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = daxcache.pc daxcache-sim.pc
# Test builds only: not installed.
noinst_HEADERS = include/daxcache/fault.h
