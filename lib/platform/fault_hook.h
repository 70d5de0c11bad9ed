/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fault_hook.h - the allocation fault-injection hook of <daxcache/fault.h>,
 * the same in both platforms.  Each platform's allocator asks it about
 * every allocation before making it (lib/platform/user/memwait.c,
 * kshim/alloc.c), naming the allocation's call site: userspace keeps a
 * descriptor per site (struct dci_alloc_site, lib/platform/user/platform.h),
 * whose counters the hook keeps and whose allocations it can fail alone;
 * the kernel keeps none and names no site (NULL).
 *
 * Only test builds have the hook (DCI_FAULT_INJECTION): the in-tree test
 * library, lib/libdaxcache-core.la (lib/platform/user/fault.c), and the
 * daxcache.ko built beside the test module (kshim/fault.c).  Elsewhere no
 * allocation fails on purpose, and the question compiles away.
 */
#ifndef DCI_PLATFORM_FAULT_HOOK_H
#define DCI_PLATFORM_FAULT_HOOK_H

struct dci_alloc_site;

#ifdef DCI_FAULT_INJECTION
bool dci_fault_should_fail(struct dci_alloc_site *site);
#else
static inline bool dci_fault_should_fail(struct dci_alloc_site *site)
{
	(void)site;
	return false;
}
#endif

#endif /* DCI_PLATFORM_FAULT_HOOK_H */
