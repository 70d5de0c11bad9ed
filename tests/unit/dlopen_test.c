// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dlopen_test.c - libdaxcache loaded as a plugin is: with dlopen(), used
 * from threads that outlive its dlclose().  A thread that used the library
 * leaves it work to do at its exit (the destructors of its per-thread
 * counters and of its registration); the library stays mapped for them
 * (-z nodelete), so those threads exit cleanly, and the library opens
 * again afterwards.  Links nothing of the library: it takes the shared
 * object's path from $DC_LIBDAXCACHE_SO or its first argument.
 *
 * Prints "dlopen-test: N passed, N failed"; exits 1 on a failure (and
 * dies of SIGSEGV where the library was unmapped under its threads).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <daxcache/cache.h>

#include "ok_check.h"

struct lib {
	void *h;
	int (*thread_register)(void);
	int (*thread_unregister)(void);
	int (*config_init)(struct dc_cache_config *, size_t, uint64_t);
	int (*create)(const struct dc_cache_config *, size_t,
		      const struct dc_backend_ops *, size_t, void *,
		      struct dc_cache **);
	int (*destroy)(struct dc_cache *);
	int (*inode_get)(struct dc_cache *, uint64_t, struct dc_inode **);
	void (*inode_put)(struct dc_inode *);
	int (*map)(struct dc_inode *, uint64_t, unsigned int, struct dc_pin *);
	void (*unpin)(struct dc_pin *);
};

static struct lib lib;
static struct dc_cache *cache;
/*
 * Worker k (k = 1 exits registered) stores its answer in @ret[k], then
 * counts itself in @used and waits for @leave.
 */
static int worker_ret[2];
static atomic_int used, leave;

static int null_setup(void *priv, uint64_t ino, uint64_t file_off,
		      uint64_t win_off, uint64_t len, unsigned int flags)
{
	(void)priv; (void)ino; (void)file_off; (void)win_off; (void)len; (void)flags;
	return 0;
}

static const struct dc_backend_ops null_ops = { .setup = null_setup };

#define SYM(field, name)						\
	(*(void **)&lib.field = dlsym(lib.h, name)) != NULL

static int lib_open(const char *path)
{
	lib.h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib.h) {
		printf("dlopen %s: %s\n", path, dlerror());
		return -1;
	}
	return SYM(thread_register, "dc_thread_register") &&
	       SYM(thread_unregister, "dc_thread_unregister") &&
	       SYM(config_init, "dc_cache_config_init") &&
	       SYM(create, "dc_cache_create") &&
	       SYM(destroy, "dc_cache_destroy") &&
	       SYM(inode_get, "dc_inode_get") &&
	       SYM(inode_put, "dc_inode_put") &&
	       SYM(map, "dc_map") &&
	       SYM(unpin, "dc_unpin") ? 0 : -1;
}

static int cache_start(void)
{
	struct dc_cache_config cfg;

	lib.config_init(&cfg, sizeof(cfg), 4ull << 21);
	return lib.create(&cfg, sizeof(cfg), &null_ops, sizeof(null_ops), NULL,
			  &cache);
}

/* Maps and unpins, then stays until main has closed the library. */
static void *worker(void *arg)
{
	struct timespec tick = { 0, 1000 * 1000 };
	int k = *(const int *)arg;
	struct dc_inode *inode;
	struct dc_pin pin;
	int ret;

	lib.thread_register();
	ret = lib.inode_get(cache, 1, &inode);
	if (!ret) {
		ret = lib.map(inode, 0, DC_MAP_READ, &pin);
		if (!ret)
			lib.unpin(&pin);
		lib.inode_put(inode);
	}
	worker_ret[k] = ret;
	if (k == 0)
		lib.thread_unregister();
	atomic_fetch_add(&used, 1);
	while (!atomic_load(&leave))
		nanosleep(&tick, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 1000 * 1000 };
	const char *path = argc > 1 ? argv[1] : getenv("DC_LIBDAXCACHE_SO");
	static const int ks[2] = { 0, 1 };
	pthread_t th[2];
	int ret;

	if (!path) {
		printf("dlopen-test: give the path of libdaxcache.so ($DC_LIBDAXCACHE_SO)\n");
		return 1;
	}
	if (access(path, R_OK)) {
		printf("dlopen-test: no %s (a build without shared libraries): skipped\n", path);
		return 77;
	}
	if (lib_open(path)) {
		printf("dlopen-test: cannot load the library's symbols\n");
		return 1;
	}
	lib.thread_register();
	ret = cache_start();
	check(ret == 0, "dc_cache_create through dlopen()", ret);
	if (ret)
		return ok_summary("dlopen-test");
	pthread_create(&th[0], NULL, worker, (void *)&ks[0]);
	pthread_create(&th[1], NULL, worker, (void *)&ks[1]);
	while (atomic_load(&used) < 2)
		nanosleep(&tick, NULL);
	check(worker_ret[0] == 0, "a worker maps", worker_ret[0]);
	check(worker_ret[1] == 0, "a worker that exits registered maps", worker_ret[1]);
	ret = lib.destroy(cache);
	check(ret == 0, "dc_cache_destroy", ret);
	lib.thread_unregister();
	ret = dlclose(lib.h);
	check(ret == 0, "dlclose", ret);
	/* The workers exit now, after the close: their destructors run. */
	atomic_store(&leave, 1);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	check(1, "threads that used the library exited after its dlclose()", 0);
	/* And it opens again. */
	ret = lib_open(path);
	check(ret == 0, "dlopen again", ret);
	if (!ret) {
		lib.thread_register();
		ret = cache_start();
		check(ret == 0, "dc_cache_create after dlopen again", ret);
		if (!ret) {
			ret = lib.destroy(cache);
			check(ret == 0, "dc_cache_destroy again", ret);
		}
		lib.thread_unregister();
		dlclose(lib.h);
	}
	return ok_summary("dlopen-test");
}
