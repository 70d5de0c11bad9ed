/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat_kernel.h - what differs between the kernel series the module is
 * built for (Debian's 5.10, 6.1, 6.12 and 7.x; tests/kernel/series).
 *
 * The newest interface is the one the shim and the test module use; for an
 * older kernel this header maps it onto what that kernel has, keyed on
 * LINUX_VERSION_CODE.  Included by platform.h before any other kernel
 * header, so it may include only light headers itself.  Differences of the
 * build flags (the C dialect) are in kshim/Kbuild.  LGPL-2.1-or-later like
 * platform.h, into which it is compiled.
 */
#ifndef DCI_COMPAT_KERNEL_H
#define DCI_COMPAT_KERNEL_H

#include <linux/version.h>

/*
 * container_of() moved from <linux/kernel.h> to its own header in 5.16;
 * platform.h includes <linux/kernel.h> too, so older kernels need nothing.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 16, 0)
#include <linux/container_of.h>
#endif

/*
 * A kthread that ends by signalling a completion: complete_and_exit()
 * (<linux/kernel.h>) was renamed kthread_complete_and_exit()
 * (<linux/kthread.h>) in 5.17, with the same behaviour.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0)
#define kthread_complete_and_exit(comp, code) complete_and_exit(comp, code)
#endif

/*
 * Symbol namespaces: from 6.13 EXPORT_SYMBOL_NS_GPL() and MODULE_IMPORT_NS()
 * take the namespace as a string literal, before that as a bare token that
 * they stringify.  These take the bare token on every series.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define DCI_EXPORT_NS_GPL(sym, ns)	EXPORT_SYMBOL_NS_GPL(sym, #ns)
#define DCI_IMPORT_NS(ns)		MODULE_IMPORT_NS(#ns)
#else
#define DCI_EXPORT_NS_GPL(sym, ns)	EXPORT_SYMBOL_NS_GPL(sym, ns)
#define DCI_IMPORT_NS(ns)		MODULE_IMPORT_NS(ns)
#endif

/*
 * The namespace of daxcache.ko's public functions (a driver that uses the
 * library says DCI_IMPORT_NS(DAXCACHE), or MODULE_IMPORT_NS() in its own
 * kernel's spelling), and that of the shim's helpers exported to the test
 * module in test builds (kshim.h).
 */
#define DCI_EXPORT_GPL(sym)		DCI_EXPORT_NS_GPL(sym, DAXCACHE)

/*
 * The shim's workers run on the system's unbound workqueue.  6.17 named it
 * system_dfl_wq (and the per-CPU one system_percpu_wq); 7.x logs a warning
 * for each work function queued on the old name, system_unbound_wq, which
 * older kernels have alone.  (Late 6.12.y stable kernels, Debian's 6.12.95
 * among them, have the new names too, backported, and take the old one
 * without a warning.)
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define dci_unbound_wq			system_dfl_wq
#else
#define dci_unbound_wq			system_unbound_wq
#endif

#endif /* DCI_COMPAT_KERNEL_H */
