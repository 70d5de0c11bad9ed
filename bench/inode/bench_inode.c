// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_inode.c - dc_inode_get() + dc_inode_put() of inodes that exist,
 * with 1 and 2 threads, over tables of 10^3 and 10^6 inodes, beside a
 * replica of the table the library had before (one global mutex over 1024
 * fixed buckets, the reference taken under it; the put's fast path was
 * already lock-free), measured side by side in one run.
 *
 * The replica's entries are padded to the size of the library's inodes
 * (about 600 bytes), so that both walks miss the caches alike.
 */
#include <daxcache/daxcache.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cache/bench_util.h"
#include "../common/json.h"
#include "../common/opts.h"
#include "../cache/null_backend.h"

#define DEFAULT_SECONDS	2.0
#define QUICK_SECONDS	0.5
#define OLD_BUCKETS	1024u
#define OLD_ENTRY_SIZE	640u
#define MAX_THREADS	2u

/* --- the replica: global mutex, fixed buckets ------------------------- */

struct old_inode {
	struct old_inode *next;
	uint64_t id;
	int ref;
	char pad[OLD_ENTRY_SIZE - 2 * sizeof(void *) - sizeof(uint64_t)];
};

struct old_table {
	pthread_mutex_t lock;
	struct old_inode *bucket[OLD_BUCKETS];
};

static unsigned int old_hash(uint64_t id)
{
	return (unsigned int)((id * 0x9e3779b97f4a7c15ull) >> (64 - 10));
}

static struct old_inode *old_get(struct old_table *t, uint64_t id)
{
	struct old_inode *i;

	pthread_mutex_lock(&t->lock);
	for (i = t->bucket[old_hash(id)]; i; i = i->next)
		if (i->id == id)
			break;
	if (i)
		__atomic_fetch_add(&i->ref, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&t->lock);
	return i;
}

/* The old put's fast path: a decrement that is never the last one here. */
static void old_put(struct old_inode *i)
{
	__atomic_fetch_sub(&i->ref, 1, __ATOMIC_RELEASE);
}

/* --- the run -------------------------------------------------------------- */

struct run_ctx {
	bool lib;
	uint64_t nr;			/* ids 0 .. nr - 1, spread by ID() */
	struct dc_cache *cache;
	struct old_table *old;
};

/* File handles are not dense: spread the ids over 64 bits. */
#define ID(k)	((k) * 0x10001ull + 3)

static void *lookup_thread(void *arg)
{
	struct bench_thread *th = arg;
	struct run_ctx *x = th->ctx;
	uint64_t ops = 0;

	bench_thread_begin(th);
	while (!bench_thread_stopping(th)) {
		unsigned int k;

		for (k = 0; k < 64; k++) {
			uint64_t id = ID(bench_rand_below(&th->rng, x->nr));

			if (x->lib) {
				struct dc_inode *inode;

				if (dc_inode_get(x->cache, id, &inode))
					bench_fail("dc_inode_get(%llu) failed",
						   (unsigned long long)id);
				else
					dc_inode_put(inode);
			} else {
				struct old_inode *i = old_get(x->old, id);

				if (!i)
					bench_fail("replica lost %llu", (unsigned long long)id);
				else
					old_put(i);
			}
		}
		ops += 64;
	}
	bench_thread_end(th, ops);
	return NULL;
}

/* Mean ns per get+put of one thread, and total operations per second. */
static void measure(struct run_ctx *x, unsigned int threads, double seconds,
		    double *ns_per_op, double *mops)
{
	struct bench_thread th[MAX_THREADS];
	uint64_t ops = 0, ns = 0;
	unsigned int i;

	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	memset(th, 0, sizeof(th));
	for (i = 0; i < threads; i++)
		th[i].ctx = x;
	bench_team_run(th, threads, lookup_thread, seconds, 0x1234);
	for (i = 0; i < threads; i++) {
		ops += th[i].ops;
		ns += th[i].ns;
	}
	*ns_per_op = ops ? (double)ns / (double)ops : 0;
	*mops = ns ? (double)ops * threads / ((double)ns / 1e3) : 0;
}

static int populate(struct run_ctx *lib, struct run_ctx *old, uint64_t nr,
		    struct dc_inode ***held, struct old_inode **slab)
{
	struct dc_cache_config cfg;
	uint64_t k;
	int ret;

	dc_cache_config_init(&cfg, sizeof(cfg), 4ull << 21);
	ret = dc_cache_create(&cfg, sizeof(cfg), &null_backend_ops,
			      sizeof(null_backend_ops), NULL, &lib->cache);
	if (ret)
		return ret;
	*held = calloc(nr, sizeof(**held));
	*slab = calloc(nr, sizeof(**slab));
	old->old = calloc(1, sizeof(*old->old));
	if (!*held || !*slab || !old->old)
		return -ENOMEM;
	pthread_mutex_init(&old->old->lock, NULL);
	for (k = 0; k < nr; k++) {
		struct old_inode *i = &(*slab)[k];
		unsigned int b = old_hash(ID(k));

		ret = dc_inode_get(lib->cache, ID(k), &(*held)[k]);
		if (ret)
			return ret;
		i->id = ID(k);
		i->ref = 1;
		i->next = old->old->bucket[b];
		old->old->bucket[b] = i;
	}
	lib->lib = true;
	lib->nr = old->nr = nr;
	return 0;
}

static void depopulate(struct run_ctx *lib, struct run_ctx *old, uint64_t nr,
		       struct dc_inode **held, struct old_inode *slab)
{
	uint64_t k;

	for (k = 0; held && k < nr; k++)
		if (held[k])
			dc_inode_put(held[k]);
	if (lib->cache)
		dc_cache_destroy(lib->cache);
	free(held);
	free(slab);
	if (old->old)
		pthread_mutex_destroy(&old->old->lock);
	free(old->old);
}

#define STR(x)		#x
#define XSTR(x)		STR(x)

int main(int argc, char **argv)
{
	static const uint64_t sizes[] = { 1000, 1000000 };
	const char *json = "bench/results/inode.json";
	double seconds = DEFAULT_SECONDS;
	struct bench_opt opts[] = {
		BENCH_OPT_TIME(&seconds, QUICK_SECONDS, "measured time per cell (default "
			       XSTR(DEFAULT_SECONDS) ")"),
		BENCH_OPT_QUICK(NULL, "--time " XSTR(QUICK_SECONDS) " unless given"),
		BENCH_OPT_JSON(&json, "results file (default bench/results/inode.json)"),
		BENCH_OPT_END,
	};
	struct bench_json *j;
	unsigned int s, threads;
	int ret = 0;

	bench_opts_main("bench-inode", opts, argc, argv);
	j = bench_json_new();
	if (!j)
		return 1;
	dc_thread_register();
	bench_json_addf(j, seconds, "config.seconds");
	printf("inode lookups: dc_inode_get + dc_inode_put of an existing inode, random ids,\n"
	       "%.1f s per cell; \"old\" is a replica of the previous table (global mutex,\n"
	       "1024 fixed buckets).  ns per op per thread; Mops/s of all threads.\n\n",
	       seconds);
	printf("%10s %7s %12s %12s %10s %10s %8s\n", "inodes", "threads",
	       "library ns", "old ns", "lib Mops", "old Mops", "speedup");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct run_ctx lib = { 0 }, old = { 0 };
		struct dc_inode **held = NULL;
		struct old_inode *slab = NULL;

		ret = populate(&lib, &old, sizes[s], &held, &slab);
		if (ret) {
			fprintf(stderr, "bench-inode: setting up %llu inodes: %d\n",
				(unsigned long long)sizes[s], ret);
			depopulate(&lib, &old, sizes[s], held, slab);
			break;
		}
		for (threads = 1; threads <= MAX_THREADS; threads++) {
			double lns, lm, ons, om;

			/* Side by side: old, library, in one run. */
			measure(&old, threads, seconds, &ons, &om);
			measure(&lib, threads, seconds, &lns, &lm);
			printf("%10llu %7u %12.1f %12.1f %10.2f %10.2f %7.2fx\n",
			       (unsigned long long)sizes[s], threads, lns, ons, lm, om,
			       om > 0 ? lm / om : 0);
			bench_json_addf(j, lns, "n%llu.t%u.lib_ns", (unsigned long long)sizes[s], threads);
			bench_json_addf(j, ons, "n%llu.t%u.old_ns", (unsigned long long)sizes[s], threads);
			bench_json_addf(j, lm, "n%llu.t%u.lib_mops", (unsigned long long)sizes[s], threads);
			bench_json_addf(j, om, "n%llu.t%u.old_mops", (unsigned long long)sizes[s], threads);
		}
		depopulate(&lib, &old, sizes[s], held, slab);
	}
	dc_thread_unregister();
	if (!ret && bench_failures())
		ret = 1;
	if (bench_json_save(j, json, "bench-inode"))
		ret = 1;
	bench_json_free(j);
	return ret ? 1 : 0;
}
