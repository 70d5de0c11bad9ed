/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim.h - kernel-only helpers of the shim that are not part of the
 * platform contract, for modules built with it (the test module).
 *
 * In test builds (DCI_TEST_BUILD, see Kbuild) they are exported in the
 * DAXCACHE_KSHIM symbol namespace, with those of the platform contract
 * that the test module calls itself: a module that uses them says
 * DCI_IMPORT_NS(DAXCACHE_KSHIM) (compat_kernel.h).  The module DKMS builds
 * exports only the public functions, in the namespace DAXCACHE.
 */
#ifndef DCI_KSHIM_H
#define DCI_KSHIM_H

long dci_kshim_live_allocs(void);

#endif /* DCI_KSHIM_H */
