// SPDX-License-Identifier: GPL-2.0-only
/*
 * exports_simbe.c - the exports of lib/core/simbe.c (<daxcache/simbe.h>).
 *
 * Compiled when that core file exists; see exports.c.
 */
#include "platform.h"

#include <linux/export.h>

#include <daxcache/simbe.h>

EXPORT_SYMBOL_GPL(dc_simbe_config_init);
EXPORT_SYMBOL_GPL(dc_simbe_create);
EXPORT_SYMBOL_GPL(dc_simbe_destroy);
EXPORT_SYMBOL_GPL(dc_simbe_ops);
EXPORT_SYMBOL_GPL(dc_simbe_range_size);
EXPORT_SYMBOL_GPL(dc_simbe_nr_ranges);
EXPORT_SYMBOL_GPL(dc_simbe_set_latency);
EXPORT_SYMBOL_GPL(dc_simbe_set_fault);
EXPORT_SYMBOL_GPL(dc_simbe_fail_next);
EXPORT_SYMBOL_GPL(dc_simbe_lookup);
EXPORT_SYMBOL_GPL(dc_simbe_check_tag);
EXPORT_SYMBOL_GPL(dc_simbe_write);
EXPORT_SYMBOL_GPL(dc_simbe_gate_close);
EXPORT_SYMBOL_GPL(dc_simbe_gate_open);
EXPORT_SYMBOL_GPL(dc_simbe_gate_waiters);
EXPORT_SYMBOL_GPL(dc_simbe_stats);
EXPORT_SYMBOL_GPL(dc_simbe_reset_stats);
