// SPDX-License-Identifier: LGPL-2.1-or-later
/* cc mmap-window.c common/size_arg.c $(pkg-config --cflags --libs daxcache) -pthread */
/*
 * mmap-window - a file read through a DAX-style window with the mmap backend.
 *
 * A data file larger than the window (by default 256 MiB in $TMPDIR, written
 * with a deterministic pattern and deleted at exit) is registered with the
 * mmap backend; the window (64 MiB of 2 MiB ranges) maps file ranges with
 * mmap(MAP_FIXED) as a virtio-fs DAX window does.  Reader threads do random
 * 4 KiB reads through the window (uniform or zipf) for the run time, each
 * copied with dc_mmapbe_read(), or read with pread() where the library's
 * admission control answers DC_MAP_BYPASS (a miss not worth evicting a
 * range for, as a real client serves it); then each thread does the same reads (the
 * same offsets, in the same order) with pread(), the baseline, timed the
 * same way.  The two alternate in slices of SLICE_S seconds (window, then
 * the same reads with pread()), so that other load on the machine weighs on
 * both alike and the ratio of the two compares runs made side by side.
 * Last, untimed, each of those reads is done once more both ways and
 * checked against the pattern (or the window against pread() for a file
 * given with --file).  The example prints what the cache did, and
 * the IOPS and latency percentiles of the window beside pread().  A file
 * given with --file that another program truncates while it runs shows up
 * as errors (dc_map() -ENXIO, or -EIO from the copy), not as a SIGBUS.
 *
 * Run with --help for the knobs.
 */
#define _GNU_SOURCE
#include <daxcache/daxcache.h>
#include <daxcache/mmap_backend.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/size_arg.h"

#define BLOCK		4096u
#define INO		1
#define MAX_THREADS	64
#define MMAP_SETUP_COST	8u	/* a setup, in pread()s (see where it is set) */
/* Latency histogram: 16 linear sub-buckets per power of two of nanoseconds. */
#define HIST_SUB	16
#define HIST_BUCKETS	(64 * HIST_SUB)
/* The window and pread() phases alternate in slices this long. */
#define SLICE_S		0.05

struct opts {
	uint64_t window_size;
	uint64_t file_size;
	unsigned int range_shift;
	const char *file;
	bool zipf;
	double theta;
	unsigned int threads;
	double seconds;
	enum dc_victim_policy victim;
	unsigned int flags;
};

/* What the threads do: see the header comment. */
enum phase { PHASE_WINDOW, PHASE_PREAD, PHASE_VERIFY };

struct worker {
	pthread_t tid;
	unsigned int idx;
	uint64_t seed;		/* of the offsets: the same in every phase */
	uint64_t x;		/* the offsets' state at the start of the slice */
	uint64_t x_end;		/* ... and after the window's part of it */
	uint64_t slice_iters;	/* offsets the window drew in this slice */
	uint64_t iters;		/* offsets the window drew in all */
	uint64_t reads, errors;	/* window phase */
	uint64_t preads, perrors;	/* pread phase */
	uint64_t checked, bad;	/* verify phase */
	uint64_t hist[HIST_BUCKETS];
	uint64_t phist[HIST_BUCKETS];
};

/* The workers' counts and histograms, summed. */
struct totals {
	uint64_t reads, preads, checked, bad, errors;
	uint64_t hist[HIST_BUCKETS], phist[HIST_BUCKETS];
};

static struct opts opt = {
	.window_size = 64ull << 20,
	.file_size = 256ull << 20,
	.range_shift = 21,
	.theta = 0.99,
	.threads = 2,
	.seconds = 5.0,
	.victim = DC_VICTIM_CLOCK,
};

static struct dc_inode *inode;
static struct dc_mmapbe *be;
static int data_fd = -1;
static bool check_pattern;	/* the file holds our pattern */
static uint64_t nr_blocks;
static double *zipf_cdf;	/* cumulative probability per rank */
static uint64_t zipf_stride;	/* rank -> block scattering, coprime with nr_blocks */
static atomic_bool stop;
static atomic_uint_fast64_t progress_reads;
static enum phase phase;
/*
 * Per slice, the window's IOPS over pread()'s on the same reads (its time
 * over the window's): their median is the ratio the example reports.
 */
static double *slice_ratio;
static unsigned int nr_slices, max_slices;

static uint64_t pattern_word(uint64_t off)
{
	uint64_t x = off * 0x9e3779b97f4a7c15ull;

	return x ^ (x >> 29) ^ 0x5a5a5a5a00000000ull;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned int hist_bucket(uint64_t ns)
{
	unsigned int e;

	if (ns < HIST_SUB)
		return (unsigned int)ns;
	e = 63 - (unsigned int)__builtin_clzll(ns);	/* >= 4 */
	return (e - 3) * HIST_SUB + (unsigned int)((ns >> (e - 4)) & (HIST_SUB - 1));
}

/* The upper bound of bucket @b, in nanoseconds. */
static uint64_t hist_upper(unsigned int b)
{
	unsigned int e;

	if (b < HIST_SUB)
		return b;
	e = b / HIST_SUB + 3;
	return ((uint64_t)(HIST_SUB + b % HIST_SUB + 1) << (e - 4)) - 1;
}

static uint64_t hist_pct(const uint64_t *h, uint64_t total, double pct)
{
	double exact = (double)total * pct / 100.0;
	uint64_t want = (uint64_t)exact, sum = 0;
	unsigned int b;

	if ((double)want < exact)
		want++;

	for (b = 0; b < HIST_BUCKETS; b++) {
		sum += h[b];
		if (sum >= want && sum)
			return hist_upper(b);
	}
	return 0;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t pick_block(uint64_t *x)
{
	double u;
	uint64_t lo = 0, hi = nr_blocks - 1;

	if (!zipf_cdf)
		return xorshift(x) % nr_blocks;
	u = (double)(xorshift(x) >> 11) / 9007199254740992.0;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (zipf_cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo * zipf_stride) % nr_blocks;
}

/* Is @buf, read at @off, the pattern there (or, with --file, @ref)? */
static bool verify(const unsigned char *buf, const unsigned char *ref, uint64_t off)
{
	unsigned int i;

	if (!check_pattern)
		return !memcmp(buf, ref, BLOCK);
	for (i = 0; i < BLOCK; i += 8) {
		uint64_t w;

		memcpy(&w, buf + i, 8);
		if (w != pattern_word(off + i))
			return false;
	}
	return true;
}

/*
 * One read of block @off through the window into @buf: 0 or -errno.  The
 * library's admission control may answer that a miss is better served
 * without the window (DC_MAP_BYPASS: a random read that would evict a
 * range worth more): then it is a pread(), as a real client does.
 */
static int window_read(uint64_t off, unsigned char *buf)
{
	struct dc_pin pin;
	int err = dc_map(inode, off, DC_MAP_MAY_BYPASS, &pin);

	if (err == DC_MAP_BYPASS)
		return pread(data_fd, buf, BLOCK, (off_t)off) == BLOCK ? 0 : -EIO;
	if (err)
		return err;
	/* -EIO: the file was truncated behind our back */
	err = dc_mmapbe_read(be, &pin, 0, buf, BLOCK);
	dc_unpin(&pin);
	return err;
}

/*
 * The window phase reads until told to stop and counts the offsets it drew;
 * the pread and verify phases draw the same ones again from the same seed.
 * Nothing but the read is timed, and nothing is checked until the verify
 * phase.
 */
static void *reader(void *arg)
{
	struct worker *w = arg;
	uint64_t x = phase == PHASE_VERIFY ? w->seed : w->x, i;
	unsigned char buf[BLOCK], ref[BLOCK];

	switch (phase) {
	case PHASE_WINDOW:
		while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
			uint64_t off = pick_block(&x) * BLOCK, t0 = now_ns();

			w->slice_iters++;
			if (window_read(off, buf)) {
				w->errors++;
				continue;
			}
			w->hist[hist_bucket(now_ns() - t0)]++;
			w->reads++;
			if (!(w->reads & 1023))
				atomic_fetch_add_explicit(&progress_reads, 1024,
							  memory_order_relaxed);
		}
		w->x_end = x;
		break;
	case PHASE_PREAD:
		for (i = 0; i < w->slice_iters; i++) {
			uint64_t off = pick_block(&x) * BLOCK, t0 = now_ns();

			if (pread(data_fd, buf, BLOCK, (off_t)off) != BLOCK) {
				w->perrors++;
				continue;
			}
			w->phist[hist_bucket(now_ns() - t0)]++;
			w->preads++;
		}
		break;
	case PHASE_VERIFY:
		for (i = 0; i < w->iters; i++) {
			uint64_t off = pick_block(&x) * BLOCK;
			bool ok;

			if (pread(data_fd, ref, BLOCK, (off_t)off) != BLOCK ||
			    window_read(off, buf))
				continue;	/* counted as errors above */
			ok = verify(buf, ref, off);
			/* pread() is checked against the pattern too. */
			if (check_pattern && !verify(ref, ref, off))
				ok = false;
			w->checked++;
			if (!ok)
				w->bad++;
		}
		break;
	}
	return NULL;
}

/*
 * Run @p on every thread (the window phase for @seconds); the wall time it
 * took, in seconds.
 */
static double run_phase(struct worker *workers, enum phase p, double seconds)
{
	unsigned int i, started = 0;
	double t0 = now_s();

	phase = p;
	atomic_store(&stop, false);
	for (i = 0; i < opt.threads; i++) {
		if (pthread_create(&workers[i].tid, NULL, reader, &workers[i])) {
			fprintf(stderr, "pthread_create failed\n");
			atomic_store(&stop, true);
			break;
		}
		started++;
	}
	while (p == PHASE_WINDOW && !atomic_load(&stop)) {
		double left = seconds - (now_s() - t0);
		struct timespec ts = { 0, 10000000 };

		if (left <= 0)
			break;
		if (left < 0.01)
			ts.tv_nsec = (long)(left * 1e9);
		nanosleep(&ts, NULL);
	}
	atomic_store(&stop, true);
	for (i = 0; i < started; i++)
		pthread_join(workers[i].tid, NULL);
	opt.threads = started;
	return now_s() - t0;
}

/*
 * The timed runs: slices of window reads, each followed by the same reads
 * with pread(); *@el and *@pel: the wall time of each, summed, and each
 * slice's ratio in slice_ratio[].  Returns false if a thread could not be
 * started, or on want of memory.
 */
static bool run_timed(struct worker *workers, double *el, double *pel)
{
	double t0 = now_s(), left;
	unsigned int i, threads = opt.threads;

	*el = *pel = 0;
	max_slices = (unsigned int)(opt.seconds / SLICE_S) + 2;
	slice_ratio = calloc(max_slices, sizeof(*slice_ratio));
	if (!slice_ratio) {
		fprintf(stderr, "out of memory\n");
		return false;
	}
	for (i = 0; i < opt.threads; i++)
		workers[i].x = workers[i].seed;
	while ((left = opt.seconds - *el) > 1e-3) {
		double wel, rel;

		for (i = 0; i < opt.threads; i++)
			workers[i].slice_iters = 0;
		wel = run_phase(workers, PHASE_WINDOW, left < SLICE_S ? left : SLICE_S);
		if (opt.threads != threads)
			return false;
		rel = run_phase(workers, PHASE_PREAD, 0);
		if (opt.threads != threads)
			return false;
		*el += wel;
		*pel += rel;
		if (nr_slices < max_slices && wel > 0)
			slice_ratio[nr_slices++] = rel / wel;
		for (i = 0; i < opt.threads; i++) {
			workers[i].iters += workers[i].slice_iters;
			workers[i].x = workers[i].x_end;
		}
		fprintf(stderr, "\r  %4.1f s: %" PRIu64 " reads   ", now_s() - t0,
			(uint64_t)atomic_load(&progress_reads));
	}
	fputc('\n', stderr);
	return true;
}

/* Which of two names @arg is: *@which = 0 or 1, or -1 for neither. */
static int pick(const char *arg, const char *name0, const char *name1,
		bool *which)
{
	if (strcmp(arg, name0) && strcmp(arg, name1))
		return -1;
	*which = !strcmp(arg, name1);
	return 0;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [options]\n"
		"Random 4 KiB reads of a file through a DAX-style mmap window and the\n"
		"same reads with pread() (the baseline), in alternating slices of %g s,\n"
		"then both checked, untimed.\n"
		"Sizes take K, M, G, T suffixes (powers of 1024).\n"
		"  -w, --window-size=SIZE  window size (default 64M)\n"
		"  -s, --file-size=SIZE    size of the created data file (default 256M)\n"
		"  -r, --range-shift=N     log2 of the range size, 12..40 (default 21: 2 MiB)\n"
		"  -f, --file=PATH         read an existing file instead (verified with pread)\n"
		"  -d, --dist=DIST         uniform or zipf (default uniform)\n"
		"      --theta=X           zipf exponent (default 0.99)\n"
		"  -j, --threads=N         reader threads, 1..%d (default 2)\n"
		"  -t, --time=SECONDS      run time of the window reads (default 5)\n"
		"      --victim=POLICY     clock or rr (default clock)\n"
		"      --kick-bg-first     kick the background reclaimer before inline reclaim (2019)\n"
		"      --remove-on-inline  send remove before reusing an inline-reclaimed range (2019)\n"
		"      --inline-own-only   inline reclaim only from the mapping inode (upstream)\n"
		"  -h, --help              this text\n"
		"The created file goes to $TMPDIR (or /tmp) and is deleted at exit.\n",
		prog, SLICE_S, MAX_THREADS);
}

/* The long options without a short one. */
enum { O_THETA = 256, O_VICTIM, O_KICK, O_REMOVE, O_OWN };

/*
 * Take option @c into opt, with its argument @arg where it has one: 0, or
 * -1 for a bad value.
 */
static int set_opt(int c, const char *arg)
{
	uint64_t v;
	bool which;

	switch (c) {
	case 'w':
		return ex_parse_size(arg, &opt.window_size);
	case 's':
		return ex_parse_size(arg, &opt.file_size);
	case 'r':
		if (ex_parse_size(arg, &v) || v < 12 || v > 40)
			return -1;
		opt.range_shift = (unsigned int)v;
		return 0;
	case 'f':
		opt.file = arg;
		return 0;
	case 'd':
		if (pick(arg, "uniform", "zipf", &which))
			return -1;
		opt.zipf = which;
		return 0;
	case O_THETA:
		opt.theta = atof(arg);
		return opt.theta <= 0 || opt.theta > 10 ? -1 : 0;
	case 'j':
		if (ex_parse_size(arg, &v) || v < 1 || v > MAX_THREADS)
			return -1;
		opt.threads = (unsigned int)v;
		return 0;
	case 't':
		opt.seconds = atof(arg);
		return opt.seconds > 0 ? 0 : -1;
	case O_VICTIM:
		if (pick(arg, "clock", "rr", &which))
			return -1;
		opt.victim = which ? DC_VICTIM_ROUND_ROBIN : DC_VICTIM_CLOCK;
		return 0;
	case O_KICK:
		opt.flags |= DC_CACHE_KICK_BG_FIRST;
		return 0;
	case O_REMOVE:
		opt.flags |= DC_CACHE_REMOVE_ON_INLINE;
		return 0;
	case O_OWN:
		opt.flags |= DC_CACHE_INLINE_OWN_ONLY;
		return 0;
	}
	return -1;
}

static int parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "window-size", required_argument, NULL, 'w' },
		{ "file-size", required_argument, NULL, 's' },
		{ "range-shift", required_argument, NULL, 'r' },
		{ "file", required_argument, NULL, 'f' },
		{ "dist", required_argument, NULL, 'd' },
		{ "theta", required_argument, NULL, O_THETA },
		{ "threads", required_argument, NULL, 'j' },
		{ "time", required_argument, NULL, 't' },
		{ "victim", required_argument, NULL, O_VICTIM },
		{ "kick-bg-first", no_argument, NULL, O_KICK },
		{ "remove-on-inline", no_argument, NULL, O_REMOVE },
		{ "inline-own-only", no_argument, NULL, O_OWN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "w:s:r:f:d:j:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		case '?':	/* getopt_long() has said what is wrong */
			usage(stderr, argv[0]);
			return -1;
		}
		if (set_opt(c, optarg)) {
			fprintf(stderr, "%s: bad value '%s'\n", argv[0], optarg);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return -1;
	}
	return 0;
}

/* Create an unlinked temporary file of @size bytes of pattern. */
static int create_file(uint64_t size)
{
	const char *dir = getenv("TMPDIR");
	const size_t chunk = 4u << 20;
	uint64_t *buf, off;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/mmap-window-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "mkstemp %s: %s\n", path, strerror(errno));
		return -1;
	}
	unlink(path);	/* deleted now; gone for good when we exit */
	buf = malloc(chunk);
	if (!buf) {
		close(fd);
		return -1;
	}
	for (off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? (size_t)(size - off) : chunk;
		size_t i;

		for (i = 0; i < n / 8; i++)
			buf[i] = pattern_word(off + 8 * i);
		if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n) {
			fprintf(stderr, "writing %s: %s\n", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
	}
	free(buf);
	printf("created %s (%" PRIu64 " MiB, deleted at exit)\n", path, size >> 20);
	return fd;
}

/* k^-theta for k >= 1, without libm: exp(-theta * ln k). */
static double inv_pow(uint64_t k, double theta)
{
	double m = (double)k, ln = 0, z, z2, term, y, e = 1;
	unsigned int i, halvings = 0;

	while (m >= 2) {
		m /= 2;
		ln += 0.69314718055994530942;
	}
	/* ln m = 2 atanh((m - 1) / (m + 1)), |z| <= 1/3 */
	z = (m - 1) / (m + 1);
	z2 = z * z;
	term = z;
	for (i = 1; i < 40; i += 2) {
		ln += 2 * term / i;
		term *= z2;
	}
	y = -theta * ln;
	while (y < -0.5) {
		y /= 2;
		halvings++;
	}
	term = 1;
	for (i = 1; i < 20; i++) {
		term *= y / i;
		e += term;
	}
	while (halvings--)
		e *= e;
	return e;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int zipf_init(void)
{
	double sum = 0;
	uint64_t k;

	zipf_cdf = malloc(nr_blocks * sizeof(*zipf_cdf));
	if (!zipf_cdf)
		return -1;
	for (k = 0; k < nr_blocks; k++) {
		sum += inv_pow(k + 1, opt.theta);
		zipf_cdf[k] = sum;
	}
	for (k = 0; k < nr_blocks; k++)
		zipf_cdf[k] /= sum;
	/* Scatter the popular blocks over the file. */
	zipf_stride = 2654435761ull % nr_blocks;
	while (zipf_stride < 1 || gcd(zipf_stride, nr_blocks) != 1)
		zipf_stride++;
	return 0;
}

/*
 * Open the file given with --file, or create one of the pattern (its size
 * rounded down to whole blocks): data_fd, and its size in *@size.  0, or
 * -1 (said why).
 */
static int open_data(uint64_t *size)
{
	off_t end;

	if (!opt.file) {
		check_pattern = true;
		*size = opt.file_size & ~(uint64_t)(BLOCK - 1);
		data_fd = create_file(*size);
		return data_fd < 0 ? -1 : 0;
	}
	data_fd = open(opt.file, O_RDONLY);
	if (data_fd < 0) {
		fprintf(stderr, "%s: %s\n", opt.file, strerror(errno));
		return -1;
	}
	end = lseek(data_fd, 0, SEEK_END);
	*size = end > 0 ? (uint64_t)end : 0;
	return 0;
}

/*
 * The window: an mmap backend with the data file in it, a cache of its
 * ranges (*@cache) and the file's inode there.  0 or -errno.
 */
static int setup_window(struct dc_cache **cache)
{
	struct dc_mmapbe_config bcfg = { 0 };
	struct dc_cache_config cfg;
	int err;

	bcfg.window_size = opt.window_size;
	bcfg.range_shift = opt.range_shift;
	err = dc_mmapbe_create(&bcfg, sizeof(bcfg), &be);
	if (!err)
		err = dc_mmapbe_add_file(be, INO, data_fd);
	if (err)
		return err;

	dc_cache_config_init(&cfg, sizeof(cfg), opt.window_size);
	cfg.range_shift = opt.range_shift;
	cfg.victim = opt.victim;
	cfg.flags = opt.flags;
	/*
	 * A setup here is an mmap(MAP_FIXED) that replaces the old mapping
	 * (its page tables torn down, a TLB shootdown to every CPU running
	 * us) and then a page fault for each first touch of the new one,
	 * where a bypass is one pread() of well under a microsecond: a setup
	 * costs several of them.
	 * 8 rather than more: the admission rule weighs a lead over the
	 * sketch's halving period, shorter than an admitted mapping lasts,
	 * and 24 kept zipf's hit ratio at 37% where 8 keeps 44%
	 * (docs/design.md, "Choosing the contest rule").
	 */
	cfg.admit_setup_cost = MMAP_SETUP_COST;
	err = dc_cache_create(&cfg, sizeof(cfg), dc_mmapbe_ops(),
			      sizeof(struct dc_backend_ops), be, cache);
	if (err)
		return err;
	return dc_inode_get(*cache, INO, &inode);
}

/* What the run is set up to do, in one line. */
static void print_config(uint64_t file_size)
{
	uint64_t rsize = 1ull << opt.range_shift;

	printf("file %" PRIu64 " MiB, window %" PRIu64 " MiB (%" PRIu64 " ranges of %" PRIu64
	       " KiB), %s reads, %u threads, %.1f s, victim %s%s%s%s\n",
	       file_size >> 20, opt.window_size >> 20, opt.window_size >> opt.range_shift,
	       rsize >> 10, opt.zipf ? "zipf" : "uniform", opt.threads, opt.seconds,
	       opt.victim == DC_VICTIM_CLOCK ? "clock" : "rr",
	       opt.flags & DC_CACHE_KICK_BG_FIRST ? ", kick-bg-first" : "",
	       opt.flags & DC_CACHE_REMOVE_ON_INLINE ? ", remove-on-inline" : "",
	       opt.flags & DC_CACHE_INLINE_OWN_ONLY ? ", inline-own-only" : "");
}

/* Each thread's seed of its offsets: one of its own, new on every run. */
static void seed_workers(struct worker *workers)
{
	uint64_t seed = now_ns();
	unsigned int i;

	for (i = 0; i < opt.threads; i++) {
		workers[i].idx = i;
		workers[i].seed = 0x9e3779b97f4a7c15ull * (i + 1) ^ seed;
		if (!workers[i].seed)
			workers[i].seed = 1;
	}
}

static void sum_workers(const struct worker *workers, struct totals *t)
{
	unsigned int i, b;

	for (i = 0; i < opt.threads; i++) {
		t->reads += workers[i].reads;
		t->errors += workers[i].errors;
		t->preads += workers[i].preads;
		t->errors += workers[i].perrors;
		t->checked += workers[i].checked;
		t->bad += workers[i].bad;
		for (b = 0; b < HIST_BUCKETS; b++) {
			t->hist[b] += workers[i].hist[b];
			t->phist[b] += workers[i].phist[b];
		}
	}
}

static void print_cache_stats(const struct dc_cache_stats *st)
{
	uint64_t lookups = st->hits + st->misses + st->bypasses;

	printf("cache: %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64
	       " bypassed to pread() (hit ratio %.1f%%)\n",
	       st->hits, st->misses, st->bypasses,
	       100.0 * (double)st->hits / (double)(lookups ? lookups : 1));
	printf("reclaims: %" PRIu64 " inline, %" PRIu64 " background; removes: %" PRIu64
	       " sent in %" PRIu64 " batches, %" PRIu64 " skipped; waits %" PRIu64 "\n",
	       st->inline_reclaims, st->bg_reclaims, st->removes_sent, st->remove_batches,
	       st->removes_skipped, st->waits);
}

/* @what: @n reads in @secs, and their latencies (histogram @h). */
static void print_speed(const char *what, const uint64_t *h, uint64_t n, double secs)
{
	printf("%s%9.0f IOPS (%7.1f MiB/s), p50 %.2f us, p99 %.2f us, p99.9 %.2f us\n",
	       what, (double)n / secs, (double)n * BLOCK / secs / (1 << 20),
	       hist_pct(h, n, 50) / 1e3, hist_pct(h, n, 99) / 1e3,
	       hist_pct(h, n, 99.9) / 1e3);
}

/*
 * The window's IOPS over pread()'s: the median of the slices' ratios, their
 * range, and the ratio of the sums.
 */
static void print_ratio(const struct totals *t, double el, double pel)
{
	unsigned int mid = nr_slices / 2;
	double median;

	qsort(slice_ratio, nr_slices, sizeof(*slice_ratio), cmp_double);
	median = nr_slices % 2 ? slice_ratio[mid] :
		 (slice_ratio[mid - 1] + slice_ratio[mid]) / 2;
	printf("  window / pread(): %.2fx the IOPS (median of %u paired slices,"
	       " %.2fx to %.2fx; of the sums %.2fx)\n",
	       median, nr_slices, slice_ratio[0], slice_ratio[nr_slices - 1],
	       t->preads && el > 0 && pel > 0 ?
	       ((double)t->reads / el) / ((double)t->preads / pel) : 0.0);
}

/*
 * The checks, what the cache did (@st) and the speeds: the window's reads
 * took @el seconds, the same reads with pread() @pel.
 */
static void print_results(const struct totals *t, const struct dc_cache_stats *st,
			  double el, double pel)
{
	printf("reads: %" PRIu64 " verified, %" PRIu64 " wrong, %" PRIu64 " errors"
	       " (after the timed runs, window and pread() alike)\n",
	       t->checked - t->bad, t->bad, t->errors);
	print_cache_stats(st);
	printf("the same %" PRIu64 " random reads, %u threads:\n", t->reads, opt.threads);
	print_speed("  window (map + copy + unpin,\n"
		    "   pread() when bypassed):     ", t->hist, t->reads, el);
	print_speed("  pread():                     ", t->phist, t->preads, pel);
	if (nr_slices)
		print_ratio(t, el, pel);
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	static struct totals tot;
	uint64_t file_size, rsize;
	struct dc_cache_stats st;
	struct dc_cache *cache = NULL;
	double el, pel;
	int ret = 1, err;

	if (parse_args(argc, argv))
		return 2;
	rsize = 1ull << opt.range_shift;
	if (!opt.window_size || opt.window_size % rsize) {
		fprintf(stderr, "window size must be a non-zero multiple of the range size (%" PRIu64 ")\n",
			rsize);
		return 2;
	}
	if (open_data(&file_size))
		return 1;
	nr_blocks = file_size / BLOCK;
	if (!nr_blocks) {
		fprintf(stderr, "the file is smaller than one block\n");
		goto out;
	}
	if (opt.zipf && zipf_init()) {
		fprintf(stderr, "out of memory\n");
		goto out;
	}

	err = setup_window(&cache);
	if (err) {
		fprintf(stderr, "setting up the window: %s\n", strerror(-err));
		goto out_cache;
	}
	print_config(file_size);

	seed_workers(workers);
	if (!run_timed(workers, &el, &pel))
		goto out_cache;
	/* What the cache did for the timed reads (the verify phase maps too). */
	dc_cache_stats(cache, &st, sizeof(st));
	run_phase(workers, PHASE_VERIFY, 0);
	sum_workers(workers, &tot);

	print_results(&tot, &st, el, pel);
	ret = tot.bad || tot.errors || !tot.reads || tot.checked != tot.reads ? 1 : 0;
out_cache:
	if (inode)
		dc_inode_put(inode);
	dc_cache_destroy(cache);
	dc_mmapbe_destroy(be);
out:
	free(slice_ratio);
	free(zipf_cdf);
	close(data_fd);
	return ret;
}
