// SPDX-License-Identifier: GPL-2.0-only
/*
 * exports_reqq.c - the exports of lib/core/reqq.c (<daxcache/reqq.h>).
 *
 * Compiled when that core file exists; see exports.c.
 */
#include "platform.h"

#include <linux/export.h>

#include <daxcache/reqq.h>

EXPORT_SYMBOL_GPL(dc_reqq_create);
EXPORT_SYMBOL_GPL(dc_reqq_destroy);
EXPORT_SYMBOL_GPL(dc_reqq_req_init);
EXPORT_SYMBOL_GPL(dc_reqq_submit);
EXPORT_SYMBOL_GPL(dc_reqq_complete);
EXPORT_SYMBOL_GPL(dc_reqq_drain);
EXPORT_SYMBOL_GPL(dc_reqq_shutdown);
EXPORT_SYMBOL_GPL(dc_reqq_stats);
