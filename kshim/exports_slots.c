// SPDX-License-Identifier: GPL-2.0-only
/*
 * exports_slots.c - the exports of lib/core/slots.c (<daxcache/slots.h>).
 *
 * Compiled when that core file exists; see exports.c.
 */
#include "platform.h"

#include <linux/export.h>

#include <daxcache/slots.h>

EXPORT_SYMBOL_GPL(dc_slot_table_create);
EXPORT_SYMBOL_GPL(dc_slot_table_destroy);
EXPORT_SYMBOL_GPL(dc_slot_get);
EXPORT_SYMBOL_GPL(dc_slot_get_timeout);
EXPORT_SYMBOL_GPL(dc_slot_tryget);
EXPORT_SYMBOL_GPL(dc_slot_put);
EXPORT_SYMBOL_GPL(dc_slot_table_stats);
