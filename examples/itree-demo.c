// SPDX-License-Identifier: LGPL-2.1-or-later
/* cc itree-demo.c $(pkg-config --cflags --libs daxcache) -pthread */
/*
 * itree-demo - the interval tree and the io-completion counter at work.
 *
 * A writer maps and unmaps file extents in an interval tree while two
 * reader threads look extents up without any lock; then a batch of
 * "writeback" I/Os completes on several threads and one completion
 * function runs when the last of them is done.
 */
#include <daxcache/daxcache.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define EXTENTS		100000
#define WRITER_OPS	200000
#define IO_THREADS	4
#define IOS_PER_THREAD	10000

static struct dc_itree *tree;
static atomic_bool stop;
static atomic_ulong found, missing;

/* Item pointers stand for extents: odd values, never dereferenced. */
static void *extent(uint64_t start)
{
	return (void *)(uintptr_t)(start * 2 + 1);
}

static void *reader(void *arg)
{
	uint64_t x = (uintptr_t)arg * 7919 + 1, n = 0, bad = 0;

	while (!atomic_load(&stop)) {
		/* Extents [8k, 8k+3] are never removed. */
		uint64_t k = (x = x * 6364136223846793005ull + 1442695040888963407ull) >> 33;
		uint64_t p = 8 * (k % EXTENTS) + (k & 3);

		dc_read_lock();
		if (dc_itree_lookup(tree, p) != extent(8 * (k % EXTENTS)))
			bad++;
		dc_read_unlock();
		n++;
	}
	atomic_fetch_add(&found, n - bad);
	atomic_fetch_add(&missing, bad);
	return NULL;
}

static void writeback_done(struct dc_iocomp *ioc, void *data)
{
	(void)ioc;
	printf("completion: all %d writeback I/Os done, COMMIT sent once (%s)\n",
	       IO_THREADS * IOS_PER_THREAD, (const char *)data);
}

static void *io_thread(void *arg)
{
	struct dc_iocomp *ioc = arg;
	int i;

	for (i = 0; i < IOS_PER_THREAD; i++)
		dc_iocomp_put(ioc);	/* one I/O completes */
	return NULL;
}

int main(void)
{
	pthread_t readers[2], io[IO_THREADS];
	struct dc_iocomp *ioc;
	uint64_t k, x = 42;
	int i, ret;

	ret = dc_itree_create(&tree);
	if (ret) {
		fprintf(stderr, "dc_itree_create: %d\n", ret);
		return 1;
	}
	for (k = 0; k < EXTENTS; k++)
		dc_itree_insert(tree, 8 * k, 8 * k + 3, extent(8 * k));
	printf("tree: %zu extents mapped\n", dc_itree_count(tree));

	for (i = 0; i < 2; i++)
		pthread_create(&readers[i], NULL, reader, (void *)(uintptr_t)i);
	for (i = 0; i < WRITER_OPS; i++) {
		/* Map or unmap a short-lived extent in a gap [8k+4, 8k+7]. */
		uint64_t s;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		s = 8 * ((x >> 33) % EXTENTS) + 4;
		if (dc_itree_insert(tree, s, s + 3, extent(s)) == -EEXIST)
			dc_itree_remove(tree, s, NULL);
	}
	atomic_store(&stop, true);
	for (i = 0; i < 2; i++)
		pthread_join(readers[i], NULL);
	printf("writer: %d map/unmap operations; readers: %lu lookups found, %lu lost\n",
	       WRITER_OPS, atomic_load(&found), atomic_load(&missing));

	if (dc_iocomp_alloc(writeback_done,
			    "initiator held its reference until all were issued", &ioc))
		return 1;
	for (i = 0; i < IO_THREADS * IOS_PER_THREAD; i++)
		dc_iocomp_get(ioc);	/* one per I/O issued */
	for (i = 0; i < IO_THREADS; i++)
		pthread_create(&io[i], NULL, io_thread, ioc);
	dc_iocomp_put(ioc);		/* the initiator is done issuing */
	for (i = 0; i < IO_THREADS; i++)
		pthread_join(io[i], NULL);

	dc_itree_destroy(tree);
	dc_barrier();
	return atomic_load(&missing) ? 1 : 0;
}
