// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault.c - allocation fault injection for test builds (<daxcache/fault.h>):
 * fail the N-th allocation from now on, or the N-th from one call site.
 * Linked only into the in-tree test library (lib/libdaxcache-core.la,
 * compiled with DCI_FAULT_INJECTION); the installed libdaxcache has no hook.
 */
#include "platform.h"

#include <daxcache/fault.h>

#ifndef DCI_FAULT_INJECTION
#error "fault.c belongs to test builds, compiled with -DDCI_FAULT_INJECTION"
#endif

/* Allocations counted since the hook was armed; 0 means disarmed. */
static _Atomic unsigned long dci_fail_nth;
static _Atomic unsigned long dci_alloc_seen;
static _Atomic unsigned long dci_fail_hits;

/*
 * The per-site hook: the armed site and how many of its allocations are
 * still to pass (the one that takes the count from 1 to 0 fails).
 */
static struct dci_alloc_site *_Atomic dci_armed_site;
static _Atomic unsigned long dci_armed_left;
static _Atomic bool dci_site_recording;
static struct dci_alloc_site *_Atomic dci_last_failed_site;

/*
 * The bounds of the sites' section (DCI_ALLOC_SITES), defined by the
 * linker.  Weak: a program that links no allocation site at all gets NULL
 * for both.
 */
extern struct dci_alloc_site *const DCI_ALLOC_SITES_START[] __attribute__((weak));
extern struct dci_alloc_site *const DCI_ALLOC_SITES_STOP[] __attribute__((weak));

void dci_fault_alloc_fail_nth(unsigned long nth)
{
	atomic_store(&dci_alloc_seen, 0);
	atomic_store(&dci_fail_hits, 0);
	atomic_store(&dci_fail_nth, nth);
}
DCI_EXPORT(dci_fault_alloc_fail_nth);

unsigned long dci_fault_alloc_count(void)
{
	return atomic_load(&dci_alloc_seen);
}
DCI_EXPORT(dci_fault_alloc_count);

unsigned long dci_fault_alloc_failed(void)
{
	return atomic_load(&dci_fail_hits);
}
DCI_EXPORT(dci_fault_alloc_failed);

unsigned int dci_fault_site_count(void)
{
	if (!DCI_ALLOC_SITES_START || !DCI_ALLOC_SITES_STOP)
		return 0;
	return (unsigned int)(DCI_ALLOC_SITES_STOP - DCI_ALLOC_SITES_START);
}
DCI_EXPORT(dci_fault_site_count);

int dci_fault_site_get(unsigned int idx, struct dci_fault_site *site)
{
	const struct dci_alloc_site *s;

	if (!site)
		return -EINVAL;
	if (idx >= dci_fault_site_count())
		return -ENOENT;
	s = DCI_ALLOC_SITES_START[idx];
	site->file = s->file;
	site->func = s->func;
	site->line = s->line;
	site->calls = atomic_load_explicit(&s->calls, memory_order_relaxed);
	site->failures = atomic_load_explicit(&s->failures, memory_order_relaxed);
	return 0;
}
DCI_EXPORT(dci_fault_site_get);

void dci_fault_site_record(bool on)
{
	atomic_store(&dci_site_recording, on);
}
DCI_EXPORT(dci_fault_site_record);

int dci_fault_site_fail_nth(unsigned int idx, unsigned long nth)
{
	atomic_store(&dci_armed_site, NULL);
	if (idx >= dci_fault_site_count())
		return -ENOENT;
	if (!nth)
		return 0;
	atomic_store(&dci_armed_left, nth);
	atomic_store(&dci_armed_site, DCI_ALLOC_SITES_START[idx]);
	return 0;
}
DCI_EXPORT(dci_fault_site_fail_nth);

int dci_fault_alloc_last_site(void)
{
	struct dci_alloc_site *last = atomic_load(&dci_last_failed_site);
	unsigned int i, n = dci_fault_site_count();

	for (i = 0; last && i < n; i++)
		if (DCI_ALLOC_SITES_START[i] == last)
			return (int)i;
	return -ENOENT;
}
DCI_EXPORT(dci_fault_alloc_last_site);

/* Whether the armed per-site hook fails this allocation from @site. */
static bool dci_site_should_fail(struct dci_alloc_site *site)
{
	unsigned long left;

	if (atomic_load_explicit(&dci_armed_site, memory_order_relaxed) != site)
		return false;
	left = atomic_load(&dci_armed_left);
	do {
		if (!left)
			return false;
	} while (!atomic_compare_exchange_weak(&dci_armed_left, &left, left - 1));
	if (left != 1)
		return false;
	atomic_store(&dci_armed_site, NULL);
	return true;
}

/* Whether the global N-th allocation hook fails this one. */
static bool dci_nth_should_fail(void)
{
	unsigned long nth = atomic_load_explicit(&dci_fail_nth,
						 memory_order_relaxed);
	unsigned long seen;

	if (dci_likely(!nth))
		return false;
	seen = atomic_fetch_add(&dci_alloc_seen, 1) + 1;
	if (seen == nth) {
		atomic_fetch_add(&dci_fail_hits, 1);
		return true;
	}
	return false;
}

bool dci_fault_should_fail(struct dci_alloc_site *site)
{
	bool fail;

	if (dci_unlikely(atomic_load_explicit(&dci_site_recording,
					     memory_order_relaxed)))
		atomic_fetch_add_explicit(&site->calls, 1, memory_order_relaxed);
	/* Both hooks count this allocation, whichever fails it. */
	fail = dci_site_should_fail(site);
	fail |= dci_nth_should_fail();
	if (dci_likely(!fail))
		return false;
	atomic_fetch_add_explicit(&site->failures, 1, memory_order_relaxed);
	atomic_store(&dci_last_failed_site, site);
	return true;
}
