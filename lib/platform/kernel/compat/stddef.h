/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <stddef.h> for the kernel build: size_t and ptrdiff_t come from
 * <linux/types.h>, NULL and offsetof() from <linux/stddef.h>.  See stdint.h
 * in this directory.
 */
#ifndef DCI_KSHIM_COMPAT_STDDEF_H
#define DCI_KSHIM_COMPAT_STDDEF_H

#include <linux/types.h>
#include <linux/stddef.h>

#endif /* DCI_KSHIM_COMPAT_STDDEF_H */
