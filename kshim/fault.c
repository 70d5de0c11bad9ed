// SPDX-License-Identifier: GPL-2.0-only
/*
 * fault.c - the allocation fault-injection hook of <daxcache/fault.h>, in
 * test builds only: the daxcache.ko built next to the test module
 * (DCI_TEST_BUILD, see Kbuild).  The module DKMS builds has no hook.
 */
#include "platform.h"

#include <linux/export.h>

#include <daxcache/fault.h>

/* Allocations counted since the hook was armed; 0 means disarmed. */
static atomic_long_t dci_fail_nth = ATOMIC_LONG_INIT(0);
static atomic_long_t dci_alloc_seen = ATOMIC_LONG_INIT(0);
static atomic_long_t dci_fail_hits = ATOMIC_LONG_INIT(0);

void dci_fault_alloc_fail_nth(unsigned long nth)
{
	atomic_long_set(&dci_alloc_seen, 0);
	atomic_long_set(&dci_fail_hits, 0);
	atomic_long_set(&dci_fail_nth, (long)nth);
}
DCI_EXPORT(dci_fault_alloc_fail_nth);

unsigned long dci_fault_alloc_count(void)
{
	return (unsigned long)atomic_long_read(&dci_alloc_seen);
}
DCI_EXPORT(dci_fault_alloc_count);

unsigned long dci_fault_alloc_failed(void)
{
	return (unsigned long)atomic_long_read(&dci_fail_hits);
}
DCI_EXPORT(dci_fault_alloc_failed);

/**
 * dci_fault_should_fail() - whether the armed hook fails this allocation.
 * @site: the allocation's call site: NULL, the kernel keeps none (the
 *	per-site hooks of <daxcache/fault.h> are userspace's).
 *
 * Counts the allocation while the hook is armed; the one that brings the
 * count to the armed N-th fails.
 *
 * Context: any.
 * Return: true if the allocation must fail.
 */
bool dci_fault_should_fail(struct dci_alloc_site *site)
{
	long nth = atomic_long_read(&dci_fail_nth);

	if (likely(!nth))
		return false;
	if (atomic_long_inc_return(&dci_alloc_seen) == nth) {
		atomic_long_inc(&dci_fail_hits);
		return true;
	}
	return false;
}
