// SPDX-License-Identifier: LGPL-2.1-or-later
// cc wb-commit.c $(pkg-config --cflags --libs daxcache) -pthread
/*
 * wb-commit - when to send the COMMIT after writeback (seed 004).
 *
 * A streaming writer issues batches ("writeback calls") of asynchronous
 * UNSTABLE writes to a simulated server: a small pool of server threads,
 * each taking --latency-us per request.  Every write holds a request slot
 * from a dc_slot table, as a SUNRPC request holds a transport slot, so the
 * writer is throttled by the table and never waits for anything else.
 *
 * A write that completes leaves its bytes written but uncommitted on the
 * server; a COMMIT makes everything written so far stable.  Two rules for
 * sending the COMMIT are run one after the other, under the same writer:
 *
 *   per-batch    each batch gets a dc_iocomp: a get per write, a put at
 *                each write's completion, the initiator's put once the
 *                batch is issued.  The COMMIT goes out when the batch's
 *                own writes are done.
 *   whole-inode  the old rule: one counter of everything in flight for the
 *                inode; the COMMIT goes out only when it drops to zero,
 *                which a streaming writer hardly ever lets happen.
 *
 * A sampler records the bytes written but not yet committed over time.
 * The program exits non-zero if an invariant fails: every write completed
 * exactly once, every batch committed exactly once (per-batch), and at the
 * end the committed bytes equal the written bytes.
 */
#include <daxcache/daxcache.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WSIZE		(64u * 1024)	/* bytes per WRITE (the wsize) */
#define SAMPLE_NS	200000ull	/* sampler period */
#define MAX_SERVERS	256
#define MAX_BATCH	65536

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

enum wb_mode { MODE_PER_BATCH, MODE_WHOLE_INODE, NR_MODES };

static const char *const mode_name[NR_MODES] = { "per-batch", "whole-inode" };

struct wb_opts {
	double time_s;
	unsigned int batch;
	unsigned int latency_us;
	unsigned int servers;
	unsigned int slots;
};

struct wb_run;

/* One writeback call: the writes it issued and their completion state. */
struct wb_batch {
	struct wb_run *run;
	struct wb_batch *next;		/* the writer's list, checked at the end */
	struct dc_iocomp *ioc;		/* per-batch mode only */
	unsigned int nwrites;
	atomic_uint completed;
	atomic_uint commits;		/* times the commit function ran */
	atomic_uchar done[];		/* one per write: completions seen */
};

enum wb_req_kind { REQ_WRITE, REQ_COMMIT };

/* A request on the server queue.  Writes live in a dc_slot. */
struct wb_req {
	struct dc_slot slot;		/* first: the table's head */
	struct wb_req *next;
	enum wb_req_kind kind;
	struct wb_batch *batch;		/* WRITE */
	unsigned int index;		/* WRITE: index in the batch */
	uint32_t len;			/* WRITE */
	uint64_t commit_bytes;		/* COMMIT: bytes it makes stable */
};

/* The state of one run of one mode. */
struct wb_run {
	enum wb_mode mode;
	const struct wb_opts *opts;
	struct dc_slot_table *slots;

	/* server queue */
	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	struct wb_req *qhead, *qtail;
	bool qstop;

	/* the "inode" */
	atomic_uint inflight;		/* whole-inode rule: writes in flight */
	atomic_uint_fast64_t unstable;	/* written, on no COMMIT yet */
	atomic_uint_fast64_t written;	/* bytes the server acknowledged */
	atomic_uint_fast64_t committed;	/* bytes made stable by COMMITs */
	atomic_uint_fast64_t writes_issued, writes_completed;
	atomic_uint_fast64_t commits_sent, commits_replied;
	atomic_uint_fast64_t batches;
	atomic_uint errors;

	/* sampler */
	atomic_bool sampling;
	uint64_t samples, uncommitted_sum, uncommitted_max;

	uint64_t run_ns;
	struct dc_slot_table_stats slot_stats;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void wb_fail(struct wb_run *run, const char *what)
{
	if (atomic_fetch_add(&run->errors, 1) < 10)
		fprintf(stderr, "wb-commit: %s: invariant failed: %s\n",
			mode_name[run->mode], what);
}

static void queue_req(struct wb_run *run, struct wb_req *req)
{
	req->next = NULL;
	pthread_mutex_lock(&run->qlock);
	if (run->qtail)
		run->qtail->next = req;
	else
		run->qhead = req;
	run->qtail = req;
	pthread_cond_signal(&run->qcond);
	pthread_mutex_unlock(&run->qlock);
}

/*
 * Send a COMMIT for everything written and not yet on a COMMIT.  It goes to
 * the server like a write but without a slot: it may be sent from a write's
 * completion, which must not wait for a slot that only completions free.
 */
static void send_commit(struct wb_run *run)
{
	struct wb_req *req = calloc(1, sizeof(*req));

	if (!req) {
		wb_fail(run, "out of memory for a COMMIT");
		return;
	}
	req->kind = REQ_COMMIT;
	req->commit_bytes = atomic_exchange(&run->unstable, 0);
	atomic_fetch_add(&run->commits_sent, 1);
	queue_req(run, req);
}

/* The dc_iocomp function: this batch's writes are all done. */
static void batch_written(struct dc_iocomp *ioc, void *data)
{
	struct wb_batch *b = data;

	if (atomic_fetch_add(&b->commits, 1) != 0)
		wb_fail(b->run, "a batch's commit function ran twice");
	if (atomic_load(&b->completed) != b->nwrites)
		wb_fail(b->run, "commit function ran before the batch was written");
	send_commit(b->run);
}

static void write_done(struct wb_run *run, struct wb_req *req)
{
	struct wb_batch *b = req->batch;

	if (atomic_fetch_add(&b->done[req->index], 1) != 0)
		wb_fail(run, "a write completed twice");
	atomic_fetch_add(&run->written, req->len);
	atomic_fetch_add(&run->unstable, req->len);
	atomic_fetch_add(&b->completed, 1);

	if (run->mode == MODE_PER_BATCH) {
		dc_iocomp_put(b->ioc);
	} else if (atomic_fetch_sub(&run->inflight, 1) == 1) {
		/* The old rule: the inode went idle, commit now. */
		send_commit(run);
	}
	dc_slot_put(run->slots, &req->slot);
	/* Last: the drain loop takes this as "done, COMMIT (if any) sent". */
	atomic_fetch_add(&run->writes_completed, 1);
}

static void *server(void *arg)
{
	struct wb_run *run = arg;
	uint64_t lat = (uint64_t)run->opts->latency_us * 1000;
	struct wb_req *req;

	for (;;) {
		pthread_mutex_lock(&run->qlock);
		while (!run->qhead && !run->qstop)
			pthread_cond_wait(&run->qcond, &run->qlock);
		req = run->qhead;
		if (req) {
			run->qhead = req->next;
			if (!run->qhead)
				run->qtail = NULL;
		}
		pthread_mutex_unlock(&run->qlock);
		if (!req)
			break;

		if (lat)
			sleep_ns(lat);
		if (req->kind == REQ_WRITE) {
			write_done(run, req);
		} else {
			atomic_fetch_add(&run->committed, req->commit_bytes);
			atomic_fetch_add(&run->commits_replied, 1);
			free(req);
		}
	}
	return NULL;
}

static void *sampler(void *arg)
{
	struct wb_run *run = arg;

	while (atomic_load(&run->sampling)) {
		uint64_t c = atomic_load(&run->committed);
		uint64_t w = atomic_load(&run->written);
		uint64_t u = w > c ? w - c : 0;

		run->samples++;
		run->uncommitted_sum += u;
		if (u > run->uncommitted_max)
			run->uncommitted_max = u;
		sleep_ns(SAMPLE_NS);
	}
	return NULL;
}

static struct wb_batch *issue_batch(struct wb_run *run)
{
	unsigned int n = run->opts->batch, i;
	struct wb_batch *b;

	b = calloc(1, sizeof(*b) + n * sizeof(b->done[0]));
	if (!b)
		return NULL;
	b->run = run;
	b->nwrites = n;
	if (run->mode == MODE_PER_BATCH) {
		if (dc_iocomp_alloc(batch_written, b, &b->ioc)) {
			free(b);
			return NULL;
		}
	}
	atomic_fetch_add(&run->batches, 1);

	for (i = 0; i < n; i++) {
		struct dc_slot *slot;
		struct wb_req *req;
		int ret = dc_slot_get(run->slots, &slot);

		if (ret) {
			fprintf(stderr, "wb-commit: dc_slot_get: %s\n", strerror(-ret));
			wb_fail(run, "could not get a request slot");
			/* The writes not issued count as done, so checks hold. */
			for (; i < n; i++)
				atomic_store(&b->done[i], 1);
			break;
		}
		req = container_of(slot, struct wb_req, slot);
		req->kind = REQ_WRITE;
		req->batch = b;
		req->index = i;
		req->len = WSIZE;
		if (run->mode == MODE_PER_BATCH)
			dc_iocomp_get(b->ioc);
		else
			atomic_fetch_add(&run->inflight, 1);
		atomic_fetch_add(&run->writes_issued, 1);
		queue_req(run, req);
	}
	/* The initiator is done issuing: drop its reference. */
	if (run->mode == MODE_PER_BATCH)
		dc_iocomp_put(b->ioc);
	return b;
}

/* The run's request slot table and server queue; 0 or -errno. */
static int setup_run(struct wb_run *run)
{
	const struct wb_opts *o = run->opts;
	struct dc_slot_table_config scfg = {
		.min_slots = o->slots / 2,
		.max_slots = o->slots,
		.slot_size = sizeof(struct wb_req),
	};
	int ret;

	ret = dc_slot_table_create(&scfg, sizeof(scfg), NULL, 0, NULL,
				   &run->slots);
	if (ret) {
		fprintf(stderr, "wb-commit: dc_slot_table_create: %s\n", strerror(-ret));
		return ret;
	}
	pthread_mutex_init(&run->qlock, NULL);
	pthread_cond_init(&run->qcond, NULL);
	atomic_store(&run->sampling, true);
	return 0;
}

/* The server threads and the sampler. */
static void start_threads(struct wb_run *run, pthread_t *srv, pthread_t *smp)
{
	unsigned int i;

	for (i = 0; i < run->opts->servers; i++)
		pthread_create(&srv[i], NULL, server, run);
	pthread_create(smp, NULL, sampler, run);
}

/*
 * The streaming writer: one writeback call after another until @deadline.
 * Returns the batches it issued, newest first.
 */
static struct wb_batch *write_until(struct wb_run *run, uint64_t deadline)
{
	struct wb_batch *batches = NULL, *b;

	while (now_ns() < deadline) {
		b = issue_batch(run);
		if (!b) {
			wb_fail(run, "out of memory for a batch");
			break;
		}
		b->next = batches;
		batches = b;
	}
	return batches;
}

/* Drain: wait until every write and every COMMIT is answered. */
static void drain(struct wb_run *run)
{
	while (atomic_load(&run->writes_completed) != atomic_load(&run->writes_issued) ||
	       atomic_load(&run->commits_replied) != atomic_load(&run->commits_sent))
		sleep_ns(50000);
}

/* Stop the sampler, then the servers. */
static void stop_threads(struct wb_run *run, pthread_t *srv, pthread_t smp)
{
	unsigned int i;

	atomic_store(&run->sampling, false);
	pthread_join(smp, NULL);
	pthread_mutex_lock(&run->qlock);
	run->qstop = true;
	pthread_cond_broadcast(&run->qcond);
	pthread_mutex_unlock(&run->qlock);
	for (i = 0; i < run->opts->servers; i++)
		pthread_join(srv[i], NULL);
}

/* The checks, once everything is answered; frees the batches. */
static void check_run(struct wb_run *run, struct wb_batch *batches)
{
	struct wb_batch *b;
	uint64_t nb = 0;
	unsigned int i;

	while ((b = batches)) {
		batches = b->next;
		nb++;
		for (i = 0; i < b->nwrites; i++)
			if (atomic_load(&b->done[i]) != 1)
				wb_fail(run, "a write did not complete exactly once");
		if (run->mode == MODE_PER_BATCH && atomic_load(&b->commits) != 1)
			wb_fail(run, "a batch was not committed exactly once");
		free(b);
	}
	if (nb != atomic_load(&run->batches))
		wb_fail(run, "batch count mismatch");
	if (atomic_load(&run->committed) != atomic_load(&run->written))
		wb_fail(run, "committed bytes != written bytes at the end");
	if (atomic_load(&run->written) != atomic_load(&run->writes_issued) * WSIZE)
		wb_fail(run, "written bytes != bytes issued");
	if (run->mode == MODE_WHOLE_INODE && atomic_load(&run->inflight) != 0)
		wb_fail(run, "in-flight count not zero at the end");
}

/* Keep the slot table's statistics, then free what setup_run() made. */
static void teardown_run(struct wb_run *run)
{
	dc_slot_table_stats(run->slots, &run->slot_stats, sizeof(run->slot_stats));
	if (dc_slot_table_destroy(run->slots))
		wb_fail(run, "request slots still out at the end");
	pthread_cond_destroy(&run->qcond);
	pthread_mutex_destroy(&run->qlock);
}

/* One run of one mode: write for --time, drain, then check. */
static int run_mode(struct wb_run *run)
{
	pthread_t srv[MAX_SERVERS], smp;
	struct wb_batch *batches;
	uint64_t start, deadline;
	int ret;

	ret = setup_run(run);
	if (ret)
		return ret;

	start = now_ns();
	deadline = start + (uint64_t)(run->opts->time_s * 1e9);
	start_threads(run, srv, &smp);
	batches = write_until(run, deadline);
	drain(run);
	run->run_ns = now_ns() - start;
	stop_threads(run, srv, smp);

	check_run(run, batches);
	teardown_run(run);
	return 0;
}

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

static void report(struct wb_run *r)
{
	struct wb_run *a = &r[MODE_PER_BATCH], *w = &r[MODE_WHOLE_INODE];
	double am = a->samples ? mib(a->uncommitted_sum / a->samples) : 0;
	double wm = w->samples ? mib(w->uncommitted_sum / w->samples) : 0;

	printf("%-30s %14s %14s\n", "", mode_name[0], mode_name[1]);
	printf("%-30s %14" PRIu64 " %14" PRIu64 "\n", "batches (writeback calls)",
	       atomic_load(&a->batches), atomic_load(&w->batches));
	printf("%-30s %14" PRIu64 " %14" PRIu64 "\n", "writes",
	       atomic_load(&a->writes_completed), atomic_load(&w->writes_completed));
	printf("%-30s %14" PRIu64 " %14" PRIu64 "\n", "commits sent",
	       atomic_load(&a->commits_sent), atomic_load(&w->commits_sent));
	printf("%-30s %14.1f %14.1f\n", "MiB written",
	       mib(atomic_load(&a->written)), mib(atomic_load(&w->written)));
	printf("%-30s %14.1f %14.1f\n", "MiB committed",
	       mib(atomic_load(&a->committed)), mib(atomic_load(&w->committed)));
	printf("%-30s %14.1f %14.1f\n", "uncommitted MiB, max",
	       mib(a->uncommitted_max), mib(w->uncommitted_max));
	printf("%-30s %14.2f %14.2f\n", "uncommitted MiB, mean", am, wm);
	printf("%-30s %14" PRIu64 " %14" PRIu64 "\n", "uncommitted samples",
	       a->samples, w->samples);
	printf("%-30s %14" PRIu64 " %14" PRIu64 "\n", "slot waits (backlog)",
	       a->slot_stats.waits, w->slot_stats.waits);
	printf("%-30s %14.3f %14.3f\n", "run time (s)",
	       a->run_ns / 1e9, w->run_ns / 1e9);
	printf("%-30s %14.1f %14.1f\n", "write throughput (MiB/s)",
	       a->run_ns ? mib(atomic_load(&a->written)) / (a->run_ns / 1e9) : 0,
	       w->run_ns ? mib(atomic_load(&w->written)) / (w->run_ns / 1e9) : 0);
	printf("%-30s %14u %14u\n", "invariant failures",
	       atomic_load(&a->errors), atomic_load(&w->errors));
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: wb-commit [options]\n"
		"  --time=SECONDS     writer run time per mode (default 1.5)\n"
		"  --batch=N          writes per writeback batch (default 16)\n"
		"  --latency-us=US    server latency per request (default 200)\n"
		"  --servers=N        server threads (default 4)\n"
		"  --slots=N          request slots in the table (default 16)\n"
		"  --help             this text\n"
		"Each write is %u KiB; both commit rules run, one after the other.\n",
		WSIZE / 1024);
}

static int parse_uint(const char *s, unsigned int lo, unsigned int hi,
		      unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct wb_opts *o)
{
	static const struct option longopts[] = {
		{ "time", required_argument, NULL, 't' },
		{ "batch", required_argument, NULL, 'b' },
		{ "latency-us", required_argument, NULL, 'l' },
		{ "servers", required_argument, NULL, 's' },
		{ "slots", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* The options that take a count: their letter, bounds and place. */
	const struct {
		int c;
		unsigned int lo, hi, *dst;
	} counts[] = {
		{ 'b', 1, MAX_BATCH, &o->batch },
		{ 'l', 0, 1000000, &o->latency_us },
		{ 's', 1, MAX_SERVERS, &o->servers },
		{ 'S', 1, 65536, &o->slots },
	};
	unsigned int i;
	char *end;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "t:b:l:s:S:h", longopts, NULL)) != -1) {
		for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
			if (counts[i].c == c)
				break;
		if (i < sizeof(counts) / sizeof(counts[0])) {
			ret = parse_uint(optarg, counts[i].lo, counts[i].hi,
					 counts[i].dst);
		} else if (c == 't') {
			o->time_s = strtod(optarg, &end);
			if (end == optarg || *end || !(o->time_s > 0) || o->time_s > 3600)
				ret = -EINVAL;
		} else if (c == 'h') {
			usage(stdout);
			exit(0);
		} else {
			usage(stderr);
			return -EINVAL;
		}
		if (ret) {
			fprintf(stderr, "wb-commit: bad value for option -%c: '%s'\n",
				c, optarg);
			return ret;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct wb_opts o = {
		.time_s = 1.5,
		.batch = 16,
		.latency_us = 200,
		.servers = 4,
		.slots = 16,
	};
	struct wb_run runs[NR_MODES];
	unsigned int failures = 0;
	int m;

	if (parse_opts(argc, argv, &o))
		return 2;

	printf("wb-commit: %.2f s per mode, batch %u x %u KiB, %u server(s) at %u us, %u slots\n",
	       o.time_s, o.batch, WSIZE / 1024, o.servers, o.latency_us, o.slots);

	memset(runs, 0, sizeof(runs));
	for (m = 0; m < NR_MODES; m++) {
		runs[m].mode = (enum wb_mode)m;
		runs[m].opts = &o;
		if (run_mode(&runs[m]))
			failures++;
		failures += atomic_load(&runs[m].errors);
	}

	report(runs);
	if (failures) {
		fprintf(stderr, "wb-commit: FAILED (%u invariant failure(s))\n", failures);
		return 1;
	}
	printf("wb-commit: all invariants hold\n");
	return 0;
}
