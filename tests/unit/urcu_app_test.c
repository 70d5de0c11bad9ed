// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * urcu_app_test.c - an application that uses liburcu's memb flavour itself
 * (its own RCU-protected structures, its threads registered with liburcu
 * before they call libdaxcache) can use the library too: dc_thread_register()
 * of a thread liburcu already knows only counts, and dc_thread_unregister()
 * leaves the application's registration in place.  (Registering twice
 * tripped liburcu's assertion, and the library's unregister would have
 * taken the application's registration with it.)  Public headers, the
 * shared library and liburcu-memb only.
 *
 * Prints "urcu-app-test: N passed, N failed"; exits 1 on a failure.
 */
#define _LGPL_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include <urcu/urcu-memb.h>

#include <daxcache/cache.h>
#include <daxcache/thread.h>

#include "ok_check.h"

static int null_setup(void *priv, uint64_t ino, uint64_t file_off,
		      uint64_t win_off, uint64_t len, unsigned int flags)
{
	(void)priv; (void)ino; (void)file_off; (void)win_off; (void)len; (void)flags;
	return 0;
}

static const struct dc_backend_ops null_ops = { .setup = null_setup };

/* The application's own RCU-protected pointer. */
static int app_value = 42;
static int *app_ptr = &app_value;

static bool app_registered(void)
{
	return URCU_TLS(urcu_memb_reader).registered;
}

/* One thread of the application: liburcu's first, then the library's. */
static void *app_thread(void *arg)
{
	struct dc_cache *cache = arg;
	struct dc_inode *inode;
	struct dc_pin pin;
	int ret, *p;

	urcu_memb_register_thread();
	ret = dc_thread_register();
	check(ret == 0, "dc_thread_register of a thread liburcu knows", ret);
	ret = dc_inode_get(cache, 7, &inode);
	if (!ret) {
		ret = dc_map(inode, 0, DC_MAP_READ, &pin);
		if (!ret)
			dc_unpin(&pin);
		dc_inode_put(inode);
	}
	check(ret == 0, "the library serves that thread", ret);
	ret = dc_thread_unregister();
	check(ret == 0, "dc_thread_unregister", ret);
	check(app_registered(), "the application's registration stays", app_registered());
	urcu_memb_read_lock();
	p = rcu_dereference(app_ptr);
	ret = *p;
	urcu_memb_read_unlock();
	check(ret == 42, "the application's own read side still works", ret);
	urcu_memb_unregister_thread();
	return NULL;
}

int main(void)
{
	struct dc_cache_config cfg;
	struct dc_cache *cache;
	pthread_t th;
	int ret;

	urcu_memb_register_thread();
	ret = dc_thread_register();
	check(ret == 0, "dc_thread_register of the main thread, liburcu's already", ret);
	dc_cache_config_init(&cfg, sizeof(cfg), 4ull << 21);
	ret = dc_cache_create(&cfg, sizeof(cfg), &null_ops, sizeof(null_ops), NULL, &cache);
	check(ret == 0, "dc_cache_create", ret);
	if (ret)
		return ok_summary("urcu-app-test");
	pthread_create(&th, NULL, app_thread, cache);
	pthread_join(th, NULL);
	/* Grace periods of the application's and the library's alike end. */
	urcu_memb_synchronize_rcu();
	check(1, "urcu_memb_synchronize_rcu() returns", 0);
	ret = dc_cache_destroy(cache);
	check(ret == 0, "dc_cache_destroy", ret);
	dc_thread_unregister();
	check(app_registered(), "the main thread's liburcu registration stays", app_registered());
	urcu_memb_unregister_thread();
	return ok_summary("urcu-app-test");
}
