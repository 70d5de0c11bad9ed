// SPDX-License-Identifier: GPL-2.0-only
/*
 * exports_iocomp.c - the exports of lib/core/iocomp.c (<daxcache/iocomp.h>).
 *
 * Compiled when that core file exists; see exports.c.
 */
#include "platform.h"

#include <linux/export.h>

#include <daxcache/iocomp.h>

EXPORT_SYMBOL_GPL(dc_iocomp_init);
EXPORT_SYMBOL_GPL(dc_iocomp_alloc);
EXPORT_SYMBOL_GPL(dc_iocomp_get);
EXPORT_SYMBOL_GPL(dc_iocomp_put);
EXPORT_SYMBOL_GPL(dc_iocomp_pending);
