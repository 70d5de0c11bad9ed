/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/fault.h - fault injection for tests.
 *
 * Only test builds have it: the in-tree test library (lib/libdaxcache-core.la)
 * and the daxcache.ko built next to the test module.  The installed
 * libdaxcache and the DKMS-built module never fail an allocation on purpose,
 * and this header is not installed.
 *
 * Every allocation the library makes goes through one hook.  Tests arm it to
 * make the N-th allocation after arming fail, and check that the operation
 * under test returns a clean -ENOMEM with nothing leaked.
 *
 * Each allocation call site of the library is also known by itself (the
 * userspace build collects a descriptor per site at link time): a test can
 * list the sites, count the allocations each one makes while recording, and
 * make the N-th allocation from one chosen site fail.  The kernel build
 * provides only the three dci_fault_alloc_*() functions.
 */
#ifndef DAXCACHE_FAULT_H
#define DAXCACHE_FAULT_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * dci_fault_alloc_fail_nth() - make the @nth allocation from now on fail.
 * @nth: 1 for the very next allocation; 0 disarms the hook.
 *
 * Resets the counters read by dci_fault_alloc_count() and
 * dci_fault_alloc_failed().  Only one allocation fails per arming.
 *
 * Context: any; global to the process, so tests that use it must not run
 * other allocating threads they do not expect to count.
 * Return: nothing.
 */
void dci_fault_alloc_fail_nth(unsigned long nth);

/**
 * dci_fault_alloc_count() - allocations attempted since the hook was armed.
 *
 * Context: any.
 * Return: the count (0 while disarmed).
 */
unsigned long dci_fault_alloc_count(void);

/**
 * dci_fault_alloc_failed() - allocations failed on purpose since arming.
 *
 * Context: any.
 * Return: 0 or 1.
 */
unsigned long dci_fault_alloc_failed(void);

/**
 * struct dci_fault_site - one allocation call site, from dci_fault_site_get().
 * @file: the source file, as the compiler was given it.
 * @func: the function that allocates.
 * @line: the line of the call.
 * @calls: allocations from this site while recording was on
 *	(dci_fault_site_record()).
 * @failures: allocations from this site failed on purpose, by either hook.
 */
struct dci_fault_site {
	const char *file;
	const char *func;
	unsigned int line;
	unsigned long calls;
	unsigned long failures;
};

/**
 * dci_fault_site_count() - the number of allocation sites linked in.
 *
 * Description:
 * Every dci_alloc()/dci_zalloc() call in the objects linked into the program
 * (or into the shared library that provides this function) is one site,
 * whether or not it is ever reached.  Sites are numbered 0 to count - 1 in
 * link order, which does not change while the program runs.
 *
 * Context: any.  Userspace only.
 * Return: the count.
 */
unsigned int dci_fault_site_count(void);

/**
 * dci_fault_site_get() - describe allocation site @idx.
 * @idx: 0 to dci_fault_site_count() - 1.
 * @site: receives the description and the site's counters.
 *
 * Context: any.  Userspace only.
 * Return: 0; -ENOENT when @idx is out of range; -EINVAL for a NULL @site.
 */
int dci_fault_site_get(unsigned int idx, struct dci_fault_site *site);

/**
 * dci_fault_site_record() - start or stop counting allocations per site.
 * @on: true to count, false to stop.
 *
 * Off by default, so that the library's allocations touch no shared counter
 * outside tests.  The counts are kept when recording stops, and are never
 * reset: compare two readings to count the allocations of an operation.
 *
 * Context: any.  Userspace only.
 * Return: nothing.
 */
void dci_fault_site_record(bool on);

/**
 * dci_fault_site_fail_nth() - make the @nth allocation from site @idx fail.
 * @idx: the site, 0 to dci_fault_site_count() - 1.
 * @nth: 1 for the site's very next allocation; 0 disarms.
 *
 * Replaces any earlier arming of this hook (one site at a time); only one
 * allocation fails per arming.  Independent of dci_fault_alloc_fail_nth():
 * an allocation fails when either hook says so.
 *
 * Context: any; global to the process.  Userspace only.
 * Return: 0, or -ENOENT when @idx is out of range (nothing is armed then).
 */
int dci_fault_site_fail_nth(unsigned int idx, unsigned long nth);

/**
 * dci_fault_alloc_last_site() - the site of the last allocation failed on
 * purpose.
 *
 * Context: any.  Userspace only.
 * Return: the site's index, or -ENOENT when no allocation has been failed on
 * purpose since the program started.
 */
int dci_fault_alloc_last_site(void);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_FAULT_H */
