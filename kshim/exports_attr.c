// SPDX-License-Identifier: GPL-2.0-only
/*
 * exports_attr.c - the exports of lib/core/attr.c (<daxcache/attr.h>).
 *
 * Compiled when that core file exists; see exports.c.
 */
#include "platform.h"

#include <linux/export.h>

#include <daxcache/attr.h>

EXPORT_SYMBOL_GPL(dc_attr_create);
EXPORT_SYMBOL_GPL(dc_attr_destroy);
EXPORT_SYMBOL_GPL(dc_attr_read_check);
EXPORT_SYMBOL_GPL(dc_attr_refresh);
EXPORT_SYMBOL_GPL(dc_attr_version);
EXPORT_SYMBOL_GPL(dc_attr_note_write);
EXPORT_SYMBOL_GPL(dc_attr_expire);
EXPORT_SYMBOL_GPL(dc_attr_get);
EXPORT_SYMBOL_GPL(dc_attr_stats);
