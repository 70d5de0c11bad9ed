// SPDX-License-Identifier: GPL-2.0-only
/*
 * module.c - daxcache.ko: the libdaxcache core as a kernel module.
 */
#include "platform.h"

#include <linux/init.h>
#include <linux/module.h>

#include <daxcache/version.h>

#include "kshim.h"

static int __init daxcache_init(void)
{
	return 0;
}

static void __exit daxcache_exit(void)
{
	long live;

	/*
	 * Deferred frees queued by the core run this module's callbacks:
	 * wait for all of them before its text goes away.
	 */
	rcu_barrier();
	live = dci_kshim_live_allocs();
	if (live)
		pr_err("daxcache: %ld allocations still live at unload\n", live);
}

module_init(daxcache_init);
module_exit(daxcache_exit);

MODULE_DESCRIPTION("libdaxcache: the DAX window cache core");
MODULE_LICENSE("GPL");
MODULE_VERSION(DC_VERSION_STRING);
