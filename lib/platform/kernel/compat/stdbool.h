/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <stdbool.h> for the kernel build: bool comes from <linux/types.h>,
 * true and false from <linux/stddef.h>.  See stdint.h in this directory.
 */
#ifndef DCI_KSHIM_COMPAT_STDBOOL_H
#define DCI_KSHIM_COMPAT_STDBOOL_H

#include <linux/types.h>
#include <linux/stddef.h>

#endif /* DCI_KSHIM_COMPAT_STDBOOL_H */
