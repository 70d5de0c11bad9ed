// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * map-timeout-hang.c - reproducer for a hang the fuzzer found (a libFuzzer
 * timeout in map_slow(), waiting in pthread_cond_wait without a deadline):
 * dc_map_timeout() with a short timeout, while the only range is pinned,
 * sometimes never returns.
 *
 * map_slow() computes the time left as
 *	deadline > dc_now_ns() ? deadline - dc_now_ns() : 0
 * reading the clock twice; when the second read is deadline + 1 the result
 * is UINT64_MAX, which dc_waitq_wait_timeout() takes as "no timeout".  With
 * nobody to unpin, the wait never ends.
 *
 * Build and run from the top of the tree against any build's static core
 * (add -fsanitize=address,undefined for a sanitizer build):
 *   cc -O2 -Iinclude -o /tmp/map-timeout-hang tests/fuzz/pending/map-timeout-hang.c \
 *	BUILD/lib/.libs/libdaxcache-core.a -lurcu-memb -lurcu-common -lpthread
 *   /tmp/map-timeout-hang 300000
 * It prints HANG (exit 1) when one map has waited 2 s; a fixed library
 * finishes all the maps with -ETIMEDOUT.
 */
#include <daxcache/cache.h>
#include <daxcache/simbe.h>
#include <daxcache/thread.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long iter;

static void *watchdog(void *arg)
{
	unsigned long last = 0;
	int still = 0;

	(void)arg;
	for (;;) {
		usleep(100000);
		if (iter && iter == last) {
			if (++still == 20) {
				printf("HANG: dc_map_timeout(1000 ns) still waiting after 2 s, map %lu\n",
				       iter);
				fflush(stdout);
				_exit(1);
			}
		} else {
			still = 0;
		}
		last = iter;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 300000, i, timedout = 0;
	struct dc_simbe_config sc;
	struct dc_cache_config cc;
	struct dc_inode *inode;
	struct dc_simbe *be;
	struct dc_cache *c;
	struct dc_pin hold;
	pthread_t t;

	dc_thread_register();
	dc_simbe_config_init(&sc, 4096);
	sc.range_shift = 12;
	dc_cache_config_init(&cc, 4096);
	cc.range_shift = 12;
	if (dc_simbe_create(&sc, &be) || dc_cache_create(&cc, dc_simbe_ops(), be, &c) ||
	    dc_inode_get(c, 1, &inode) || dc_map(inode, 0, 0, &hold))
		return 2;
	pthread_create(&t, NULL, watchdog, NULL);
	for (i = 0; i < n; i++) {
		struct dc_pin p;

		iter = i + 1;
		if (dc_map_timeout(inode, 4096, 0, 1000, &p) == -ETIMEDOUT)
			timedout++;
	}
	printf("%lu maps with a 1000 ns timeout, the only range pinned: %lu -ETIMEDOUT, no hang\n",
	       n, timedout);
	return 0;
}
