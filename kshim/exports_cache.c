// SPDX-License-Identifier: GPL-2.0-only
/*
 * exports_cache.c - the exports of lib/core/cache.c (<daxcache/cache.h>).
 *
 * Compiled when that core file exists; see exports.c.
 */
#include "platform.h"

#include <linux/export.h>

#include <daxcache/cache.h>

EXPORT_SYMBOL_GPL(dc_cache_config_init);
EXPORT_SYMBOL_GPL(dc_cache_create);
EXPORT_SYMBOL_GPL(dc_cache_destroy);
EXPORT_SYMBOL_GPL(dc_cache_stats);
EXPORT_SYMBOL_GPL(dc_cache_range_size);
EXPORT_SYMBOL_GPL(dc_inode_get);
EXPORT_SYMBOL_GPL(dc_inode_put);
EXPORT_SYMBOL_GPL(dc_inode_id);
EXPORT_SYMBOL_GPL(dc_inode_punch);
EXPORT_SYMBOL_GPL(dc_map);
EXPORT_SYMBOL_GPL(dc_map_timeout);
EXPORT_SYMBOL_GPL(dc_unpin);
EXPORT_SYMBOL_GPL(dc_wait_free);
