// SPDX-License-Identifier: GPL-2.0-only
/*
 * exports_itree.c - the exports of lib/core/itree.c (<daxcache/itree.h>).
 *
 * Compiled when that core file exists; see exports.c.
 */
#include "platform.h"

#include <linux/export.h>

#include <daxcache/itree.h>

EXPORT_SYMBOL_GPL(dc_itree_create);
EXPORT_SYMBOL_GPL(dc_itree_destroy);
EXPORT_SYMBOL_GPL(dc_itree_insert);
EXPORT_SYMBOL_GPL(dc_itree_remove);
EXPORT_SYMBOL_GPL(dc_itree_lookup);
EXPORT_SYMBOL_GPL(dc_itree_lookup_entry);
EXPORT_SYMBOL_GPL(dc_itree_first);
EXPORT_SYMBOL_GPL(dc_itree_next);
EXPORT_SYMBOL_GPL(dc_itree_count);
