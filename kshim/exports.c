// SPDX-License-Identifier: GPL-2.0-only
/*
 * exports.c - the symbols of the shim that daxcache.ko exports.
 *
 * daxcache.ko exports every public function of include/daxcache/ to GPL
 * modules (tests/kernel/run checks that none is missing): here those the
 * shim implements, and in exports_NAME.c those of lib/core/NAME.c, each
 * compiled only when that core file exists.  The platform's out-of-line
 * helpers are exported too, in the DAXCACHE_KSHIM namespace, for modules
 * built with kshim/platform.h themselves (the test module).
 */
#include "platform.h"

#include <linux/export.h>

#include <daxcache/fault.h>
#include <daxcache/log.h>
#include <daxcache/thread.h>

#include "kshim.h"

/* daxcache/thread.h */
EXPORT_SYMBOL_GPL(dc_thread_register);
EXPORT_SYMBOL_GPL(dc_thread_unregister);
EXPORT_SYMBOL_GPL(dc_read_lock);
EXPORT_SYMBOL_GPL(dc_read_unlock);
EXPORT_SYMBOL_GPL(dc_synchronize);
EXPORT_SYMBOL_GPL(dc_barrier);
EXPORT_SYMBOL_GPL(dc_before_fork);
EXPORT_SYMBOL_GPL(dc_after_fork_parent);
EXPORT_SYMBOL_GPL(dc_after_fork_child);

/* daxcache/log.h */
EXPORT_SYMBOL_GPL(dc_set_log_fn);
EXPORT_SYMBOL_GPL(dc_warn_count);

/* daxcache/fault.h */
EXPORT_SYMBOL_GPL(dc_fault_alloc_fail_nth);
EXPORT_SYMBOL_GPL(dc_fault_alloc_count);
EXPORT_SYMBOL_GPL(dc_fault_alloc_failed);

/* kshim/platform.h helpers and kshim/kshim.h */
EXPORT_SYMBOL_NS_GPL(dci_plat_log, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_plat_warn_note, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_plat_refcount_warn, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_plat_alloc, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_free, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_plat_rcu_read_held, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_waitq_init, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_waitq_destroy, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_waitq_wake_all, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_plat_sleep_begin, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_plat_sleep_prepare, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_plat_sleep, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_plat_sleep_end, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_worker_start, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_worker_queue, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_worker_queue_delayed, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_worker_stop, DAXCACHE_KSHIM);
EXPORT_SYMBOL_NS_GPL(dci_kshim_live_allocs, DAXCACHE_KSHIM);
