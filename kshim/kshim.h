/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim.h - kernel-only helpers of the shim that are not part of the
 * platform contract, for modules built with it (the test module).
 *
 * They are exported in the DAXCACHE_KSHIM symbol namespace: a module that
 * uses them says MODULE_IMPORT_NS(DAXCACHE_KSHIM).
 */
#ifndef DC_KSHIM_H
#define DC_KSHIM_H

long dci_kshim_live_allocs(void);

#endif /* DC_KSHIM_H */
