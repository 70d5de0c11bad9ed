/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compat_kernel.h - what differs between the kernel series the module is
 * built for (Debian's 5.10, 6.1 and 6.12; tests/kernel/run --kernel).
 *
 * The newest interface is the one the shim and the test module use; for an
 * older kernel this header maps it onto what that kernel has, keyed on
 * LINUX_VERSION_CODE.  Included by platform.h before any other kernel
 * header, so it may include only light headers itself.  Differences of the
 * build flags (the C dialect) are in kshim/Kbuild.  LGPL-2.1-or-later like
 * platform.h, into which it is compiled.
 */
#ifndef DC_COMPAT_KERNEL_H
#define DC_COMPAT_KERNEL_H

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

#endif /* DC_COMPAT_KERNEL_H */
