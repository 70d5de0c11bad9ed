/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_reqq.c - request latency through libdaxcache's dispatch queue in
 * front of a simulated device whose queue holds Q requests, with the parked
 * requests retried from a 1 ms timer (the 2019 virtio-fs behaviour) or as
 * soon as a completion frees room (dc_reqq's rule).
 *
 * The device: one thread that busy-waits the service time for each request
 * on its queue in turn; a served request holds its slot until the guest
 * reaps it.  The guest: one thread that reaps served requests (completing
 * them: the completion path) and reissues each request as soon as it ended,
 * a closed loop of 2Q requests.  Latency: from dc_reqq_submit() to the end callback.
 * The two modes run side by side, in interleaved slices.
 *
 * usage: bench_reqq [--time SEC] [--quick] [--json PATH] [--queue Q]
 *                   [--service-us US] [--delay-us US]
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "platform.h"

#include <daxcache/reqq.h>
#include <daxcache/thread.h>

#include "../common/json.h"
#include "../common/opts.h"

#define DEFAULT_SECONDS	2.0	/* measured per mode */
#define QUICK_SECONDS	0.2
#define SLICES		6
#define WARMUP_NS	20000000ull
#define MAX_Q		1024

enum { MODE_TIMER, MODE_COMPLETION, NMODES };
static const char *const mode_name[NMODES] = { "timer-1ms", "completion" };

struct options {
	double seconds;
	unsigned int q;
	uint64_t service_ns;
	uint64_t delay_ns;
	const char *json;
};

struct run;

struct breq {
	struct dc_reqq_req r;
	uint64_t t0;			/* submit time; at the end, latency */
	struct breq *next;		/* on the done list */
	struct run *run;
	bool ended;			/* under done_lock */
};

struct lat {
	uint64_t *ns;
	size_t n, cap;
	uint64_t completed;		/* in measured windows */
	uint64_t censored;		/* still waiting at a window's end */
	double seconds;			/* measured */
};

struct run {
	const struct options *o;
	struct dc_reqq *q;
	/* the device */
	dci_spinlock_t dev_lock;
	struct dc_reqq_req **ring;
	unsigned int head, count;	/* queued, including served */
	unsigned int served;		/* served, not yet reaped */
	_Atomic bool dev_stop;
	/* requests that ended, for the submitter */
	dci_spinlock_t done_lock;
	struct breq *done;
	_Atomic bool stop;
	_Atomic uint64_t ended;
};

static int dev_submit(struct dc_reqq_req *r, void *priv)
{
	struct run *run = priv;
	int ret = 0;

	dci_spin_lock(&run->dev_lock);
	if (run->count == run->o->q)
		ret = -ENOSPC;
	else
		run->ring[(run->head + run->count++) % run->o->q] = r;
	dci_spin_unlock(&run->dev_lock);
	return ret;
}

static const struct dc_reqq_ops dev_ops = { .submit = dev_submit };

/*
 * The device serves its queue in order, one request at a time; a served
 * request keeps its slot until the guest reaps it (as a virtqueue's used
 * ring does).
 */
static void *device_main(void *arg)
{
	struct run *run = arg;
	bool busy;

	while (!atomic_load(&run->dev_stop)) {
		dci_spin_lock(&run->dev_lock);
		busy = run->count > run->served;
		dci_spin_unlock(&run->dev_lock);
		if (!busy) {
			dci_cpu_relax();
			continue;
		}
		dci_delay_ns(run->o->service_ns);
		dci_spin_lock(&run->dev_lock);
		run->served++;
		dci_spin_unlock(&run->dev_lock);
	}
	return NULL;
}

/* The guest's completion path: reap served requests and complete them. */
static unsigned int reap(struct run *run)
{
	struct dc_reqq_req *r;
	unsigned int n = 0;

	for (;;) {
		dci_spin_lock(&run->dev_lock);
		r = NULL;
		if (run->served) {
			r = run->ring[run->head];
			run->head = (run->head + 1) % run->o->q;
			run->count--;
			run->served--;
		}
		dci_spin_unlock(&run->dev_lock);
		if (!r)
			return n;
		dc_reqq_complete(run->q, r, 0);
		n++;
	}
}

static void breq_end(struct dc_reqq_req *r, int status)
{
	struct breq *b = dci_container_of(r, struct breq, r);
	struct run *run = b->run;

	b->t0 = dci_now_ns() - b->t0;	/* now the latency */
	dci_spin_lock(&run->done_lock);
	b->next = run->done;
	b->ended = true;
	run->done = b;
	dci_spin_unlock(&run->done_lock);
	atomic_fetch_add(&run->ended, 1);
}

static void lat_add(struct lat *l, uint64_t ns)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 65536;
		l->ns = realloc(l->ns, l->cap * sizeof(*l->ns));
		if (!l->ns) {
			perror("realloc");
			exit(2);
		}
	}
	l->ns[l->n++] = ns;
}

/* One slice of one mode: returns 0, or -1 on an unexpected failure. */
static int run_slice(const struct options *o, int mode, double seconds,
		     struct lat *l)
{
	struct dc_reqq_config cfg = {
		.flags = mode == MODE_TIMER ? DC_REQQ_TIMER_RETRY : 0,
		.retry_delay_ns = o->delay_ns,
	};
	unsigned int depth = 2 * o->q, i;
	uint64_t start, measure_from, end, now;
	struct run run = { .o = o };
	pthread_t dev;
	struct breq *pool;
	int ret = 0;

	pool = calloc(depth, sizeof(*pool));
	run.ring = calloc(o->q, sizeof(*run.ring));
	if (!pool || !run.ring)
		return -1;
	dci_spin_lock_init(&run.dev_lock);
	dci_spin_lock_init(&run.done_lock);
	if (dc_reqq_create(&cfg, sizeof(cfg), &dev_ops, sizeof(dev_ops), &run,
			   &run.q))
		return -1;
	if (pthread_create(&dev, NULL, device_main, &run))
		return -1;

	start = dci_now_ns();
	measure_from = start + WARMUP_NS;
	end = measure_from + (uint64_t)(seconds * 1e9);
	for (i = 0; i < depth; i++) {
		struct breq *b = &pool[i];

		b->run = &run;
		dc_reqq_req_init(&b->r, breq_end, 0);
		b->t0 = dci_now_ns();
		if (dc_reqq_submit(run.q, &b->r))
			ret = -1;
	}
	/* The guest: reap completions, reissue what ended, at once. */
	for (;;) {
		struct breq *list, *b;

		reap(&run);
		dci_spin_lock(&run.done_lock);
		list = run.done;
		run.done = NULL;
		dci_spin_unlock(&run.done_lock);
		now = dci_now_ns();
		if (now >= end)
			break;
		if (!list) {
			sched_yield();
			continue;
		}
		while (list) {
			b = list;
			list = b->next;
			if (now >= measure_from) {
				lat_add(l, b->t0);
				l->completed++;
			}
			b->t0 = dci_now_ns();
			b->ended = false;
			if (dc_reqq_submit(run.q, &b->r))
				ret = -1;
		}
	}
	l->seconds += (double)(now - measure_from) / 1e9;
	/*
	 * Requests that ended but were not reaped count with their latency;
	 * those still waiting count with their age so far (a lower bound):
	 * otherwise a request starved for the whole window would never show.
	 */
	dci_spin_lock(&run.done_lock);
	for (i = 0; i < depth; i++) {
		if (pool[i].ended) {
			lat_add(l, pool[i].t0);
		} else if (pool[i].t0 < now) {
			lat_add(l, now - pool[i].t0);
			l->censored++;
		}
	}
	dci_spin_unlock(&run.done_lock);

	while (dc_reqq_drain(run.q, 0)) {
		if (dci_now_ns() - now > 10ull * 1000000000ull) {
			ret = -1;
			break;
		}
		if (!reap(&run))
			sched_yield();
	}
	atomic_store(&run.dev_stop, true);
	pthread_join(dev, NULL);
	dc_reqq_destroy(run.q);
	free(run.ring);
	free(pool);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct_us(const struct lat *l, double p)
{
	size_t i;

	if (!l->n)
		return 0;
	i = (size_t)(p / 100.0 * (double)(l->n - 1) + 0.5);
	return (double)l->ns[i] / 1000.0;
}

static double tput(const struct lat *l)
{
	return l->seconds > 0 ? (double)l->completed / l->seconds : 0;
}

static int write_json(const char *path, const struct options *o,
		      const struct lat *l)
{
	struct bench_json *j = bench_json_new();
	int m, ret;

	if (!j)
		return -1;
	bench_json_str(j, "benchmark", "reqq");
	bench_json_u64(j, "queue_size", o->q);
	bench_json_u64(j, "depth", 2 * o->q);
	bench_json_dbl(j, "service_us", (double)o->service_ns / 1000.0, 1);
	bench_json_dbl(j, "timer_delay_us", (double)o->delay_ns / 1000.0, 1);
	bench_json_dbl(j, "seconds_per_mode", o->seconds, 3);
	bench_json_u64(j, "slices", SLICES);
	bench_json_num(j, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
	bench_json_obj(j, "modes");
	for (m = 0; m < NMODES; m++) {
		bench_json_obj(j, mode_name[m]);
		bench_json_u64(j, "requests", l[m].completed);
		bench_json_u64(j, "waiting_at_window_end", l[m].censored);
		bench_json_dbl(j, "throughput_per_s", tput(&l[m]), 0);
		bench_json_dbl(j, "p50_us", pct_us(&l[m], 50), 1);
		bench_json_dbl(j, "p99_us", pct_us(&l[m], 99), 1);
		bench_json_dbl(j, "p999_us", pct_us(&l[m], 99.9), 1);
		bench_json_dbl(j, "max_us", pct_us(&l[m], 100), 1);
		bench_json_end(j);
	}
	bench_json_end(j);
	bench_json_dbl(j, "p999_ratio_timer_over_completion",
		       pct_us(&l[MODE_TIMER], 99.9) / pct_us(&l[MODE_COMPLETION], 99.9), 2);
	bench_json_dbl(j, "throughput_ratio_completion_over_timer",
		       tput(&l[MODE_COMPLETION]) / tput(&l[MODE_TIMER]), 3);
	ret = bench_json_save(j, path, "bench_reqq");
	bench_json_free(j);
	return ret ? -1 : 0;
}

#define STR(x)		#x
#define XSTR(x)		STR(x)

static int parse_options(int argc, char **argv, struct options *o)
{
	double service_us = 35, delay_us = 1000;
	struct bench_opt opts[] = {
		BENCH_OPT_TIME(&o->seconds, QUICK_SECONDS, "measured time per mode (default "
			       XSTR(DEFAULT_SECONDS) ")"),
		BENCH_OPT_QUICK(NULL, "--time " XSTR(QUICK_SECONDS) " unless given"),
		BENCH_OPT_JSON(&o->json, "results file (default bench/results/reqq.json)"),
		{ .name = "queue", .arg = "Q", .type = BENCH_OPT_UINT, .dst = &o->q,
		  .min = 1, .max = MAX_Q,
		  .help = "device queue size (default 16); depth is 2Q" },
		{ .name = "service-us", .arg = "US", .type = BENCH_OPT_DOUBLE,
		  .dst = &service_us, .min = 0, .max = 1e6,
		  .help = "device service time per request (default 35)" },
		{ .name = "delay-us", .arg = "US", .type = BENCH_OPT_DOUBLE,
		  .dst = &delay_us, .min = 0.001, .max = 1e7,
		  .help = "retry timer delay (default 1000)" },
		BENCH_OPT_END,
	};

	*o = (struct options){ .seconds = DEFAULT_SECONDS, .q = 16,
			       .json = "bench/results/reqq.json" };
	bench_opts_main("bench_reqq", opts, argc, argv);
	o->service_ns = (uint64_t)(service_us * 1000.0);
	o->delay_ns = (uint64_t)(delay_us * 1000.0);
	return 0;
}

int main(int argc, char **argv)
{
	struct lat l[NMODES] = { { 0 } };
	struct options o;
	int s, k, m, bad = 0;

	if (parse_options(argc, argv, &o))
		return 2;
	dc_thread_register();
	printf("reqq: device queue Q=%u, service %.1f us, closed loop at depth %u;\n"
	       "%.2f s per mode in %d interleaved slices\n\n",
	       o.q, (double)o.service_ns / 1000.0, 2 * o.q, o.seconds, SLICES);
	for (s = 0; s < SLICES; s++) {
		for (k = 0; k < NMODES; k++) {
			m = (s + k) % NMODES;	/* alternate which goes first */
			if (run_slice(&o, m, o.seconds / SLICES, &l[m])) {
				fprintf(stderr, "bench_reqq: %s: a request failed\n",
					mode_name[m]);
				bad = 1;
			}
		}
	}
	for (m = 0; m < NMODES; m++)
		qsort(l[m].ns, l[m].n, sizeof(*l[m].ns), cmp_u64);

	printf("%-11s %10s %8s %9s %9s %9s %9s %10s\n", "mode", "requests",
	       "waiting", "p50 us", "p99 us", "p99.9 us", "max us", "req/s");
	for (m = 0; m < NMODES; m++)
		printf("%-11s %10" PRIu64 " %8" PRIu64 " %9.1f %9.1f %9.1f %9.1f %10.0f\n",
		       mode_name[m], l[m].completed, l[m].censored, pct_us(&l[m], 50),
		       pct_us(&l[m], 99), pct_us(&l[m], 99.9),
		       pct_us(&l[m], 100), tput(&l[m]));
	printf("\np99.9 timer / completion: %.1fx   throughput completion / timer: %.3f\n",
	       pct_us(&l[MODE_TIMER], 99.9) / pct_us(&l[MODE_COMPLETION], 99.9),
	       tput(&l[MODE_COMPLETION]) / tput(&l[MODE_TIMER]));
	printf("\nnotes:\n"
	       "- %ld CPUs online.  The device thread busy-waits (one CPU); the guest\n"
	       "  thread (completions and submissions) and the timer worker share\n"
	       "  the other on 2 vCPUs: wake-ups and hypervisor preemption add noise\n"
	       "  to both modes.\n"
	       "- The device is ideal: %.1f us per request, never idle while work is\n"
	       "  queued, no doorbell or interrupt cost; a real DPU or virtqueue adds\n"
	       "  latency to both modes alike.\n"
	       "- Timer mode: a userspace timed wait, which wakes later than asked\n"
	       "  (tens of us); the kernel rounds 1 ms up to a jiffy (1-4 ms).\n"
	       "- waiting: requests still outstanding when a slice's window ended;\n"
	       "  they enter the percentiles with their age then (a lower bound).\n"
	       "  Timer mode starves parked requests while new ones refill the\n"
	       "  device, so its tail grows with the slice length (--time).\n"
	       "- Completion-mode latency is bounded by FIFO: depth x service time\n"
	       "  = %.0f us for every request; timer mode serves new requests first\n"
	       "  and leaves the parked ones to the timer, hence its tail.\n",
	       sysconf(_SC_NPROCESSORS_ONLN), (double)o.service_ns / 1000.0,
	       2.0 * o.q * (double)o.service_ns / 1000.0);
	if (write_json(o.json, &o, l))
		bad = 1;
	for (m = 0; m < NMODES; m++)
		free(l[m].ns);
	dc_thread_unregister();
	return bad;
}
