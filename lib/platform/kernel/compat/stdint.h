/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <stdint.h> for the kernel build of libdaxcache.
 *
 * The public headers are shared with userspace and include the C standard
 * headers.  Kbuild compiles with -nostdinc, so this directory is put first
 * on the module's include path and maps them to the kernel's own types.
 * <linux/types.h> already has the intN_t/uintN_t and uintptr_t typedefs;
 * only most of the limits are missing.
 */
#ifndef DCI_KSHIM_COMPAT_STDINT_H
#define DCI_KSHIM_COMPAT_STDINT_H

#include <linux/types.h>
#include <linux/limits.h>

/*
 * The limits, usable in #if like the standard ones, so built from the
 * compiler's predefined values rather than from the kernel's typed S8_MAX
 * and friends.  <linux/limits.h> comes first because it defines some of
 * them (UINTPTR_MAX) unconditionally; each one here is defined only if it
 * is still missing.
 */
#ifndef INT8_MAX
#define INT8_MAX	__INT8_MAX__
#endif
#ifndef INT8_MIN
#define INT8_MIN	(-INT8_MAX - 1)
#endif
#ifndef UINT8_MAX
#define UINT8_MAX	__UINT8_MAX__
#endif
#ifndef INT16_MAX
#define INT16_MAX	__INT16_MAX__
#endif
#ifndef INT16_MIN
#define INT16_MIN	(-INT16_MAX - 1)
#endif
#ifndef UINT16_MAX
#define UINT16_MAX	__UINT16_MAX__
#endif
#ifndef INT32_MAX
#define INT32_MAX	__INT32_MAX__
#endif
#ifndef INT32_MIN
#define INT32_MIN	(-INT32_MAX - 1)
#endif
#ifndef UINT32_MAX
#define UINT32_MAX	__UINT32_MAX__
#endif
#ifndef INT64_MAX
#define INT64_MAX	__INT64_MAX__
#endif
#ifndef INT64_MIN
#define INT64_MIN	(-INT64_MAX - 1)
#endif
#ifndef UINT64_MAX
#define UINT64_MAX	__UINT64_MAX__
#endif
#ifndef INTPTR_MAX
#define INTPTR_MAX	__INTPTR_MAX__
#endif
#ifndef INTPTR_MIN
#define INTPTR_MIN	(-INTPTR_MAX - 1)
#endif
#ifndef UINTPTR_MAX
#define UINTPTR_MAX	__UINTPTR_MAX__
#endif

#endif /* DCI_KSHIM_COMPAT_STDINT_H */
