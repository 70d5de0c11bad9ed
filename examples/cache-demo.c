// SPDX-License-Identifier: LGPL-2.1-or-later
/* cc cache-demo.c $(pkg-config --cflags --libs daxcache) -pthread */
/*
 * cache-demo - the DAX window cache at work.
 *
 * A "file" of 64 MiB lives in memory; the window holds 8 ranges of 2 MiB
 * (16 MiB).  The backend plays the role of the virtio-fs daemon: setup
 * copies the file range into the window range (as a DAX mapping makes the
 * file appear there), remove poisons the window range.  Reader threads do
 * random 4 KiB reads through the window for a while, check every byte
 * against the file, and the demo prints what the cache did.
 * Usage: cache-demo [seconds] [threads]
 */
#include <daxcache/daxcache.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RANGE_SHIFT	21
#define FILE_SIZE	(64ull << 20)
#define WINDOW_SIZE	(16ull << 20)
#define BLOCK		4096u
#define INO		42

static unsigned char *file_data;	/* the file, as the daemon sees it */
static unsigned char *window;		/* the DAX window, as the guest sees it */
static struct dc_inode *inode;
static double run_seconds = 3.0;
static atomic_bool stop;
static atomic_ulong reads, bad_reads, errors;

static int demo_setup(void *priv, uint64_t ino, uint64_t file_off,
		      uint64_t win_off, uint64_t len, unsigned int flags)
{
	(void)priv;
	(void)flags;
	if (ino != INO || file_off + len > FILE_SIZE || win_off + len > WINDOW_SIZE)
		return -EINVAL;
	memcpy(window + win_off, file_data + file_off, len);
	return 0;
}

static int demo_remove(void *priv, const struct dc_remove_entry *e, unsigned int n)
{
	unsigned int i;

	(void)priv;
	for (i = 0; i < n; i++)
		memset(window + e[i].win_off, 0xdd, e[i].len);
	return 0;
}

static const struct dc_backend_ops demo_ops = {
	.setup = demo_setup,
	.remove = demo_remove,
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *reader(void *arg)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * ((uintptr_t)arg + 1);
	unsigned char buf[BLOCK];
	unsigned long n = 0, bad = 0, err = 0;
	struct dc_pin pin;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		uint64_t off;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* Skewed: half the reads go to the first quarter of the file. */
		off = (x >> 8) % ((x & 1) ? FILE_SIZE / 4 : FILE_SIZE);
		off &= ~(uint64_t)(BLOCK - 1);
		if (dc_map(inode, off, 0, &pin)) {
			err++;
			continue;
		}
		memcpy(buf, window + pin.win_off, BLOCK);
		dc_unpin(&pin);
		if (memcmp(buf, file_data + off, BLOCK))
			bad++;
		n++;
	}
	atomic_fetch_add(&reads, n);
	atomic_fetch_add(&bad_reads, bad);
	atomic_fetch_add(&errors, err);
	return NULL;
}

int main(int argc, char **argv)
{
	struct dc_cache_config cfg;
	struct dc_cache_stats st;
	struct dc_cache *cache;
	pthread_t tid[16];
	int threads = 2, i, ret;
	double t0, el;
	uint64_t k;

	if (argc > 1)
		run_seconds = atof(argv[1]);
	if (argc > 2)
		threads = atoi(argv[2]);
	if (run_seconds <= 0 || threads < 1 || threads > 16) {
		fprintf(stderr, "usage: %s [seconds] [threads (1-16)]\n", argv[0]);
		return 2;
	}
	file_data = malloc(FILE_SIZE);
	window = malloc(WINDOW_SIZE);
	if (!file_data || !window)
		return 1;
	for (k = 0; k < FILE_SIZE / 8; k++)
		((uint64_t *)file_data)[k] = k * 0x2545f4914f6cdd1dull;

	dc_cache_config_init(&cfg, sizeof(cfg), WINDOW_SIZE);
	cfg.range_shift = RANGE_SHIFT;
	ret = dc_cache_create(&cfg, sizeof(cfg), &demo_ops, sizeof(demo_ops), NULL, &cache);
	if (!ret)
		ret = dc_inode_get(cache, INO, &inode);
	if (ret) {
		fprintf(stderr, "cache setup failed: %d\n", ret);
		return 1;
	}
	printf("file %llu MiB, window %llu MiB (%llu ranges of %llu MiB), %d reader threads, %.1f s\n",
	       FILE_SIZE >> 20, WINDOW_SIZE >> 20, WINDOW_SIZE >> RANGE_SHIFT,
	       (1ull << RANGE_SHIFT) >> 20, threads, run_seconds);

	t0 = now_s();
	for (i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, reader, (void *)(uintptr_t)i);
	while ((el = now_s() - t0) < run_seconds) {
		struct timespec ts = { 0, 250000000 };

		nanosleep(&ts, NULL);
		dc_cache_stats(cache, &st, sizeof(st));
		printf("\r  %.1f s: %" PRIu64 " hits, %" PRIu64 " misses", el,
		       st.hits, st.misses);
		fflush(stdout);
	}
	atomic_store(&stop, true);
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	el = now_s() - t0;
	putchar('\n');

	dc_cache_stats(cache, &st, sizeof(st));
	printf("reads: %lu verified, %lu wrong, %lu errors; %.0f reads/s\n",
	       atomic_load(&reads), atomic_load(&bad_reads), atomic_load(&errors),
	       atomic_load(&reads) / el);
	printf("cache: hits %" PRIu64 ", misses %" PRIu64 " (hit ratio %.1f%%)\n",
	       st.hits, st.misses, 100.0 * st.hits / (st.hits + st.misses ? st.hits + st.misses : 1));
	printf("reclaim: inline %" PRIu64 " (removes skipped %" PRIu64 "), background %" PRIu64
	       ", removes sent %" PRIu64 " in %" PRIu64 " batches, waits %" PRIu64 "\n",
	       st.inline_reclaims, st.removes_skipped, st.bg_reclaims,
	       st.removes_sent, st.remove_batches, st.waits);
	dc_inode_put(inode);
	dc_cache_destroy(cache);
	free(window);
	free(file_data);
	return atomic_load(&bad_reads) || atomic_load(&errors) ? 1 : 0;
}
