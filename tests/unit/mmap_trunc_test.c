// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mmap_trunc_test.c - copies through the mmap window survive the file being
 * truncated behind the program's back, and the program's own SIGBUS
 * handling is left as it was.
 *
 * Not a cmocka suite: cmocka saves and restores the SIGBUS handler around
 * each test with signal(), which would replace the backend's handler (and
 * drop its SA_SIGINFO) for the test's duration.
 *
 * - args: the argument checks of dc_mmapbe_read() and dc_mmapbe_write(),
 *   and plain copies checked against pread().
 * - truncated: one thread, a file truncated under a pinned range: copies
 *   of pages past the new end fail with -EIO, copies before it work, the
 *   program's handler is not called, SIGBUS is not left blocked; again and
 *   again; a copy from a signal handler.
 * - outside: a child process truncates the file (to a page-aligned size
 *   inside a range) and extends it again with the other of two patterns,
 *   cycle after cycle, while threads read and write through the window
 *   (the writer in the last 4 ranges, the readers before them: copies that
 *   race with each other would be data races of the test itself).
 *   Every copy returns its bytes or -EIO; every byte a copy returns is one
 *   of the two patterns' byte for its offset.  The parent waits, in each
 *   cycle, until every thread has copied while the file is short and some
 *   copy has failed with -EIO (states, not times).
 * - own-handler: the program's SA_SIGINFO handler, installed before the
 *   backend, gets raise(SIGBUS) and a fault on a truncated mapping outside
 *   the window (also one taken inside a copy, whose buffer is that mapping:
 *   the handler copies from the window itself, then leaves the outer copy
 *   with siglongjmp(), and no guard of it stays behind).
 * - children: a fresh process per previous action: SIG_DFL (a fault
 *   outside the window and raise() kill it with SIGBUS), SIG_IGN (raise()
 *   is ignored, a fault kills), SA_RESETHAND (runs once, then SIGBUS
 *   kills), and a plain handler with sa_mask (called with its mask).
 *
 * Usage: mmap-trunc [TEST...]   (default: all)
 * Exit status 0 when every check passed.  DC_TEST_SEED picks the seed.
 */
#define _GNU_SOURCE
#include <daxcache/daxcache.h>
#include <daxcache/mmap_backend.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmapbe_create.h"
#include "tmpfile.h"

#define RSHIFT		16u
#define RSIZE		(1ull << RSHIFT)
#define NR_RANGES	4ull
#define WINDOW		(NR_RANGES * RSIZE)
#define NR_FRANGES	16ull
#define FILE_SIZE	(NR_FRANGES * RSIZE)
#define PAGE		4096ull
#define INO		3
#define NR_READERS	3u
#define NR_THREADS	(NR_READERS + 1u)	/* the last one writes */
/* Readers read before this, the writer writes after it: no data race. */
#define READ_END	((NR_FRANGES - 4) * RSIZE)
#define CYCLES		40u
#define MIN_COPIES	50u		/* per thread and phase */
#define MAX_COPY	(2 * PAGE)

static unsigned int failures;
static uint64_t seed;

/*
 * ThreadSanitizer defers asynchronous signals to a point of its choosing
 * and runs their handlers with every signal blocked, SIGBUS included: a
 * handler cannot then survive a fault (the kernel kills a process that
 * faults with SIGBUS blocked), so the copy from a SIGUSR1 handler is not
 * tried under it.
 */
#if defined(__SANITIZE_THREAD__)
static const bool tsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
static const bool tsan = true;
#else
static const bool tsan = false;
#endif
#else
static const bool tsan = false;
#endif

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s: check failed: %s\n",	\
				__FILE__, __LINE__, __func__, #cond);	\
			failures++;					\
		}							\
	} while (0)

#define REQUIRE(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s: fatal: %s (%s)\n",	\
				__FILE__, __LINE__, __func__, #cond,	\
				strerror(errno));			\
			exit(1);					\
		}							\
	} while (0)

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Two contents that differ at every offset and never hold a zero byte:
 * generation 0 in 1..127, generation 1 in 128..254.
 */
static unsigned char pat(unsigned int gen, uint64_t off)
{
	uint64_t h = off * 0x9e3779b97f4a7c15ull;

	return (unsigned char)((gen ? 128 : 1) + (h >> 40) % 127);
}

static bool valid_byte(unsigned char b, uint64_t off)
{
	return b == pat(0, off) || b == pat(1, off);
}

static void fill(unsigned char *buf, size_t len, unsigned int gen, uint64_t off)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pat(gen, off + i);
}

/* Write @len bytes of generation @gen at @off (async-signal-safe). */
static int write_pattern(int fd, unsigned char *scratch, size_t chunk,
			 unsigned int gen, uint64_t off, uint64_t len)
{
	while (len) {
		size_t n = len < chunk ? (size_t)len : chunk;

		fill(scratch, n, gen, off);
		if (pwrite(fd, scratch, n, (off_t)off) != (ssize_t)n)
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

/* An unlinked temporary file of @size bytes of generation 0, O_RDWR. */
static int make_file(uint64_t size)
{
	unsigned char buf[16384];
	int fd;

	fd = tmpfile_unlinked(NULL, "dc-mmaptrunc");
	REQUIRE(fd >= 0);
	REQUIRE(!write_pattern(fd, buf, sizeof(buf), 0, 0, size));
	return fd;
}

static bool sigbus_blocked(void)
{
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, SIGBUS) == 1;
}

/* Is the calling thread's signal mask still @want? */
static bool mask_is(const sigset_t *want)
{
	sigset_t cur;
	int sig;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&cur, sig) != sigismember(want, sig))
			return false;
	return true;
}

/* ---------------------------------------------------------------------- */
/* The program's own SIGBUS handler (installed before any backend).        */

static volatile sig_atomic_t own_calls;
static volatile sig_atomic_t own_code;
static void *volatile own_addr;
/* Repair on a fault: ftruncate(own_fix_fd, own_fix_size). */
static volatile int own_fix_fd = -1;
static volatile off_t own_fix_size;
/* A copy the handler makes from the window, and what it returned. */
static struct dc_mmapbe *volatile own_nested_be;
static const struct dc_pin *volatile own_nested_pin;
static volatile uint64_t own_nested_off;
static volatile int own_nested_ret;
/* Leave with siglongjmp(own_env) instead of returning. */
static volatile bool own_jump;
static sigjmp_buf own_env;

static void own_handler(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "FAIL: unexpected SIGBUS fault reached the program's handler\n";
	unsigned char tmp[64];

	/* A fault nobody repairs would only fault again: fail at once. */
	if (si->si_code > 0 && own_fix_fd < 0 && !own_jump) {
		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(92);
		_exit(91);
	}
	own_calls++;
	own_code = si->si_code;
	own_addr = si->si_addr;
	if (own_nested_pin) {
		own_nested_ret = dc_mmapbe_read(own_nested_be, own_nested_pin,
						own_nested_off, tmp, sizeof(tmp));
		own_nested_pin = NULL;
	}
	if (own_fix_fd >= 0) {
		if (ftruncate(own_fix_fd, own_fix_size))
			_exit(90);
		own_fix_fd = -1;
	}
	if (own_jump)
		siglongjmp(own_env, 1);
}

/* ---------------------------------------------------------------------- */

struct fixture {
	struct dc_mmapbe *be;
	struct dc_cache *cache;
	struct dc_inode *inode;
	int fd;
};

static void fixture_init(struct fixture *fx)
{
	struct dc_cache_config cfg;

	memset(fx, 0, sizeof(*fx));
	fx->fd = make_file(FILE_SIZE);
	REQUIRE(mmapbe_create(WINDOW, RSHIFT, &fx->be) == 0);
	REQUIRE(dc_mmapbe_add_file(fx->be, INO, fx->fd) == 0);
	dc_cache_config_init(&cfg, sizeof(cfg), WINDOW);
	cfg.range_shift = RSHIFT;
	REQUIRE(dc_cache_create(&cfg, sizeof(cfg), dc_mmapbe_ops(),
				sizeof(struct dc_backend_ops), fx->be, &fx->cache) == 0);
	REQUIRE(dc_inode_get(fx->cache, INO, &fx->inode) == 0);
}

static void fixture_fini(struct fixture *fx)
{
	dc_inode_put(fx->inode);
	dc_cache_destroy(fx->cache);
	CHECK(dc_mmapbe_remove_file(fx->be, INO) == 0);
	dc_mmapbe_destroy(fx->be);
	close(fx->fd);
}

static void test_args(void)
{
	unsigned char buf[3 * PAGE], want[3 * PAGE];
	struct fixture fx;
	struct dc_pin pin, bad;
	uint64_t x = seed;
	unsigned int i;

	fixture_init(&fx);
	REQUIRE(dc_map(fx.inode, RSIZE + 100, 0, &pin) == 0);
	CHECK(pin.len == RSIZE - 100);
	CHECK(dc_mmapbe_read(NULL, &pin, 0, buf, 1) == -EINVAL);
	CHECK(dc_mmapbe_read(fx.be, NULL, 0, buf, 1) == -EINVAL);
	CHECK(dc_mmapbe_read(fx.be, &pin, 0, NULL, 1) == -EINVAL);
	CHECK(dc_mmapbe_read(fx.be, &pin, 0, NULL, 0) == 0);
	CHECK(dc_mmapbe_read(fx.be, &pin, pin.len, buf, 0) == 0);
	CHECK(dc_mmapbe_read(fx.be, &pin, pin.len, buf, 1) == -EINVAL);
	CHECK(dc_mmapbe_read(fx.be, &pin, pin.len + 1, buf, 0) == -EINVAL);
	CHECK(dc_mmapbe_read(fx.be, &pin, 1, buf, (size_t)pin.len) == -EINVAL);
	CHECK(dc_mmapbe_read(fx.be, &pin, UINT64_MAX, buf, 2) == -EINVAL);
	bad = pin;
	bad.win_off = WINDOW - 10;
	bad.len = 11;
	CHECK(dc_mmapbe_read(fx.be, &bad, 0, buf, 1) == -EINVAL);
	bad.win_off = WINDOW + 1;
	bad.len = 0;
	CHECK(dc_mmapbe_read(fx.be, &bad, 0, buf, 0) == -EINVAL);
	/* A read pin cannot be written through. */
	CHECK(!pin.writable);
	CHECK(dc_mmapbe_write(fx.be, &pin, 0, buf, 1) == -EPERM);
	CHECK(dc_mmapbe_write(fx.be, NULL, 0, buf, 1) == -EINVAL);
	CHECK(dc_mmapbe_write(fx.be, &pin, pin.len, buf, 1) == -EINVAL);
	/* The bytes at an offset from the pinned position. */
	CHECK(dc_mmapbe_read(fx.be, &pin, 5000, buf, 3 * PAGE) == 0);
	fill(want, 3 * PAGE, 0, RSIZE + 100 + 5000);
	CHECK(!memcmp(buf, want, 3 * PAGE));
	dc_unpin(&pin);

	/* Random writes and reads, checked against pread(). */
	for (i = 0; i < 500; i++) {
		uint64_t off = xorshift(&x) % FILE_SIZE;
		size_t n = 1 + xorshift(&x) % sizeof(buf);
		unsigned int gen = xorshift(&x) & 1;

		if (n > RSIZE - (off & (RSIZE - 1)))
			n = RSIZE - (off & (RSIZE - 1));
		REQUIRE(dc_map(fx.inode, off, DC_MAP_WRITE, &pin) == 0);
		CHECK(pin.writable);
		fill(want, n, gen, off);
		CHECK(dc_mmapbe_write(fx.be, &pin, 0, want, n) == 0);
		CHECK(dc_mmapbe_write(fx.be, &pin, 0, want, 0) == 0);
		dc_unpin(&pin);
		REQUIRE(pread(fx.fd, buf, n, (off_t)off) == (ssize_t)n);
		CHECK(!memcmp(buf, want, n));
		off = xorshift(&x) % FILE_SIZE;
		n = 1 + xorshift(&x) % sizeof(buf);
		if (n > RSIZE - (off & (RSIZE - 1)))
			n = RSIZE - (off & (RSIZE - 1));
		REQUIRE(dc_map(fx.inode, off, 0, &pin) == 0);
		CHECK(dc_mmapbe_read(fx.be, &pin, 0, buf, n) == 0);
		dc_unpin(&pin);
		REQUIRE(pread(fx.fd, want, n, (off_t)off) == (ssize_t)n);
		CHECK(!memcmp(buf, want, n));
	}
	CHECK(own_calls == 0);
	fixture_fini(&fx);
}

/* A copy from a signal handler (SIGUSR1), and what it returned. */
static struct dc_mmapbe *usr1_be;
static struct dc_pin usr1_pin;
static uint64_t usr1_off;
static volatile int usr1_ret = 1;

static void usr1_handler(int sig)
{
	unsigned char tmp[PAGE];

	usr1_ret = dc_mmapbe_read(usr1_be, &usr1_pin, usr1_off, tmp, sizeof(tmp));
}

static void test_truncated(void)
{
	unsigned char chunk[16384], buf[2 * PAGE], want[2 * PAGE];
	struct sigaction sa, old_usr1;
	sigset_t usr2, mask;
	struct fixture fx;
	struct dc_pin rp, wp;
	unsigned int i;
	int calls = own_calls;

	fixture_init(&fx);
	/* A mask that is not empty: a fault's -EIO must leave it as it is. */
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr2, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = usr1_handler;
	sigemptyset(&sa.sa_mask);
	REQUIRE(!sigaction(SIGUSR1, &sa, &old_usr1));
	for (i = 0; i < 200; i++) {
		unsigned int gen = (i + 1) & 1;
		uint64_t keep = PAGE * (1 + i % 15);	/* inside range 0 */

		REQUIRE(dc_map(fx.inode, 0, 0, &rp) == 0);
		REQUIRE(dc_map(fx.inode, RSIZE, DC_MAP_WRITE, &wp) == 0);
		/* Behind the cache's back: only range 0's first pages stay. */
		REQUIRE(!ftruncate(fx.fd, (off_t)keep));
		CHECK(dc_mmapbe_read(fx.be, &rp, 0, buf, PAGE) == 0);
		fill(want, PAGE, 0, 0);	/* page 0 is never truncated */
		CHECK(!memcmp(buf, want, PAGE));
		CHECK(dc_mmapbe_read(fx.be, &rp, keep, buf, 1) == -EIO);
		CHECK(dc_mmapbe_read(fx.be, &rp, keep - 100, buf, 200) == -EIO);
		CHECK(dc_mmapbe_read(fx.be, &rp, keep - 1, buf, 1) == 0);
		CHECK(dc_mmapbe_write(fx.be, &wp, 17, buf, 100) == -EIO);
		CHECK(mask_is(&mask));
		/* From a signal handler: a faulting copy, then a good one. */
		if (!tsan) {
			usr1_be = fx.be;
			usr1_pin = rp;
			usr1_off = keep;
			usr1_ret = 1;
			raise(SIGUSR1);
			CHECK(usr1_ret == -EIO);
			usr1_off = 0;
			raise(SIGUSR1);
			CHECK(usr1_ret == 0);
		}
		/* Extend again with the other pattern: the same pins work. */
		REQUIRE(!write_pattern(fx.fd, chunk, sizeof(chunk), gen, keep,
				       FILE_SIZE - keep));
		CHECK(dc_mmapbe_read(fx.be, &rp, keep - PAGE, buf, 2 * PAGE) == 0);
		fill(want, PAGE, gen, keep);
		CHECK(!memcmp(buf + PAGE, want, PAGE));
		fill(want, PAGE, gen, RSIZE + 17);
		CHECK(dc_mmapbe_write(fx.be, &wp, 17, want, PAGE) == 0);
		dc_unpin(&wp);
		dc_unpin(&rp);
		REQUIRE(pread(fx.fd, buf, PAGE, (off_t)(RSIZE + 17)) == (ssize_t)PAGE);
		CHECK(!memcmp(buf, want, PAGE));
	}
	REQUIRE(!sigaction(SIGUSR1, &old_usr1, NULL));
	pthread_sigmask(SIG_UNBLOCK, &usr2, NULL);
	CHECK(own_calls == calls);
	fixture_fini(&fx);
}

/* ---------------------------------------------------------------------- */
/* Another process truncates while threads copy.                           */

struct shared {
	struct fixture fx;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long copies[NR_THREADS];	/* under lock */
	unsigned long eio;			/* under lock */
	atomic_bool stop;
};

struct worker {
	struct shared *sh;
	unsigned int idx;
	uint64_t x;
	unsigned long ok, eio, enxio, bad, errors, masked;
	pthread_t tid;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	unsigned char buf[MAX_COPY];
	bool writer = w->idx == NR_READERS;
	sigset_t mask;

	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	dc_thread_register();
	while (!atomic_load(&sh->stop)) {
		uint64_t off = writer ? READ_END + xorshift(&w->x) % (FILE_SIZE - READ_END) :
					xorshift(&w->x) % READ_END;
		size_t n = 1 + xorshift(&w->x) % MAX_COPY, i;
		unsigned int gen = xorshift(&w->x) & 1;
		struct dc_pin pin;
		int ret;

		if (n > RSIZE - (off & (RSIZE - 1)))
			n = RSIZE - (off & (RSIZE - 1));
		ret = dc_map(sh->fx.inode, off, writer ? DC_MAP_WRITE : 0, &pin);
		if (ret == -ENXIO) {		/* the range starts past EOF */
			w->enxio++;
			goto count;
		}
		if (ret) {
			fprintf(stderr, "worker %u: dc_map(%" PRIu64 "): %d\n",
				w->idx, off, ret);
			w->errors++;
			goto count;
		}
		if (writer) {
			fill(buf, n, gen, off);
			ret = dc_mmapbe_write(sh->fx.be, &pin, 0, buf, n);
		} else {
			memset(buf, 0, n);
			ret = dc_mmapbe_read(sh->fx.be, &pin, 0, buf, n);
		}
		dc_unpin(&pin);
		if (ret == -EIO) {
			w->eio++;
		} else if (ret) {
			fprintf(stderr, "worker %u: copy: %d\n", w->idx, ret);
			w->errors++;
		} else {
			w->ok++;
			for (i = 0; !writer && i < n; i++) {
				if (!valid_byte(buf[i], off + i)) {
					if (!w->bad)
						fprintf(stderr, "worker %u: byte at %" PRIu64
							" is %u, want %u or %u\n",
							w->idx, off + i, buf[i],
							pat(0, off + i), pat(1, off + i));
					w->bad++;
				}
			}
		}
		if (!mask_is(&mask))
			w->masked++;
count:
		pthread_mutex_lock(&sh->lock);
		sh->copies[w->idx]++;
		if (ret == -EIO)
			sh->eio++;
		pthread_cond_broadcast(&sh->cond);
		pthread_mutex_unlock(&sh->lock);
	}
	dc_thread_unregister();
	return NULL;
}

/* Wait until every thread has copied @min times more than @base (and, with
 * @want_eio, some copy failed with -EIO since @eio_base); refresh the bases. */
static void wait_progress(struct shared *sh, unsigned long *base,
			  unsigned long *eio_base, bool want_eio)
{
	unsigned int i;
	bool done;

	pthread_mutex_lock(&sh->lock);
	for (;;) {
		done = !want_eio || sh->eio > *eio_base;
		for (i = 0; i < NR_THREADS; i++)
			if (sh->copies[i] < base[i] + MIN_COPIES)
				done = false;
		if (done)
			break;
		pthread_cond_wait(&sh->cond, &sh->lock);
	}
	for (i = 0; i < NR_THREADS; i++)
		base[i] = sh->copies[i];
	*eio_base = sh->eio;
	pthread_mutex_unlock(&sh->lock);
}

/*
 * The child: for each cycle, on 'g' truncate to sizes[c] and answer 'T';
 * on the next 'g' extend with the other generation and answer 'E'.  Only
 * async-signal-safe calls (it was forked from a threaded process).
 */
static void truncator(int fd, int in, int out, const uint64_t *sizes,
		      unsigned char *scratch)
{
	unsigned int c;
	char cmd;

	for (c = 0; c < CYCLES; c++) {
		if (read(in, &cmd, 1) != 1 || ftruncate(fd, (off_t)sizes[c]) ||
		    write(out, "T", 1) != 1)
			_exit(2);
		if (read(in, &cmd, 1) != 1 ||
		    write_pattern(fd, scratch, 3 * PAGE, (c + 1) & 1, sizes[c],
				  FILE_SIZE - sizes[c]) ||
		    write(out, "E", 1) != 1)
			_exit(3);
	}
	_exit(0);
}

static void test_outside(void)
{
	static struct shared sh;
	struct worker w[NR_THREADS];
	unsigned long base[NR_THREADS] = { 0 }, eio_base = 0;
	unsigned long ok = 0, eio = 0, enxio = 0;
	uint64_t sizes[CYCLES], x = seed ^ 0x5bd1e995;
	unsigned char *scratch, *buf;
	int to_child[2], from_child[2], status;
	unsigned int c, i;
	pid_t pid;
	char ack;

	memset(&sh, 0, sizeof(sh));
	fixture_init(&sh.fx);
	pthread_mutex_init(&sh.lock, NULL);
	pthread_cond_init(&sh.cond, NULL);
	/* Page-aligned sizes strictly inside a range: that range can still
	 * be set up, and its pages past the end raise SIGBUS. */
	for (c = 0; c < CYCLES; c++)
		sizes[c] = (xorshift(&x) % NR_FRANGES) * RSIZE +
			   PAGE * (1 + xorshift(&x) % (RSIZE / PAGE - 1));
	scratch = malloc(3 * PAGE);
	REQUIRE(scratch);
	REQUIRE(!pipe(to_child) && !pipe(from_child));
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		close(to_child[1]);
		close(from_child[0]);
		truncator(sh.fx.fd, to_child[0], from_child[1], sizes, scratch);
	}
	close(to_child[0]);
	close(from_child[1]);
	for (i = 0; i < NR_THREADS; i++) {
		w[i] = (struct worker){ .sh = &sh, .idx = i,
					.x = (seed + i + 1) * 0x9e3779b97f4a7c15ull };
		REQUIRE(!pthread_create(&w[i].tid, NULL, worker, &w[i]));
	}
	for (c = 0; c < CYCLES; c++) {
		/* Truncation runs while the threads copy. */
		REQUIRE(write(to_child[1], "g", 1) == 1);
		REQUIRE(read(from_child[0], &ack, 1) == 1 && ack == 'T');
		/* Copies of a short file: some must fault. */
		wait_progress(&sh, base, &eio_base, true);
		/* Extension runs while they copy. */
		REQUIRE(write(to_child[1], "g", 1) == 1);
		REQUIRE(read(from_child[0], &ack, 1) == 1 && ack == 'E');
		wait_progress(&sh, base, &eio_base, false);
	}
	atomic_store(&sh.stop, true);
	for (i = 0; i < NR_THREADS; i++) {
		pthread_join(w[i].tid, NULL);
		CHECK(w[i].bad == 0);
		CHECK(w[i].errors == 0);
		CHECK(w[i].masked == 0);
		ok += w[i].ok;
		eio += w[i].eio;
		enxio += w[i].enxio;
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(to_child[1]);
	close(from_child[0]);
	printf("# outside: %u truncations, %lu copies ok, %lu -EIO, %lu -ENXIO\n",
	       CYCLES, ok, eio, enxio);
	CHECK(eio >= CYCLES);
	CHECK(ok > 0);
	/* The file is whole again: every byte valid, read whole without error. */
	buf = malloc(RSIZE);
	REQUIRE(buf);
	for (c = 0; c < NR_FRANGES; c++) {
		struct dc_pin pin;
		uint64_t j;

		REQUIRE(dc_map(sh.fx.inode, c * RSIZE, 0, &pin) == 0);
		CHECK(dc_mmapbe_read(sh.fx.be, &pin, 0, buf, RSIZE) == 0);
		dc_unpin(&pin);
		for (j = 0; j < RSIZE; j++)
			if (!valid_byte(buf[j], c * RSIZE + j))
				break;
		CHECK(j == RSIZE);
	}
	free(buf);
	free(scratch);
	pthread_cond_destroy(&sh.cond);
	pthread_mutex_destroy(&sh.lock);
	fixture_fini(&sh.fx);
}

/* ---------------------------------------------------------------------- */
/* The program's SIGBUS handler still gets what is not ours.               */

/* A MAP_SHARED mapping of 2 pages of a new file, truncated to 1 page. */
static unsigned char *truncated_mapping(int *fdp)
{
	unsigned char *p;
	int fd = make_file(2 * PAGE);

	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(p != MAP_FAILED);
	REQUIRE(!ftruncate(fd, (off_t)PAGE));
	*fdp = fd;
	return p;
}

static void test_own_handler(void)
{
	unsigned char buf[256], want[256], *map, *win;
	struct fixture fx;
	struct dc_pin pin, tpin;
	int calls = own_calls, fd;
	unsigned char b;

	/* raise(): not a fault; the program's handler gets it. */
	raise(SIGBUS);
	CHECK(own_calls == calls + 1);
	CHECK(own_code == SI_TKILL);

	/* A truncated mapping outside the window, outside any copy. */
	map = truncated_mapping(&fd);
	own_fix_fd = fd;
	own_fix_size = (off_t)(2 * PAGE);
	b = *(volatile unsigned char *)(map + PAGE + 5);
	CHECK(own_calls == calls + 2);
	CHECK(own_code == BUS_ADRERR);
	CHECK(own_addr == map + PAGE + 5);
	CHECK(b == 0);		/* ftruncate() extended it with zeros */
	CHECK(own_fix_fd == -1);

	/*
	 * Inside a copy whose destination is such a mapping: not the window's
	 * fault, so the program's handler gets it.  It copies from a
	 * truncated window page itself (-EIO, nested in the outer copy),
	 * then leaves the outer copy with siglongjmp().  (Not "repair and
	 * return" here: valgrind cannot resume a memcpy() after a handler
	 * returns without --vex-iropt-register-updates=allregs-at-mem-access.)
	 */
	fixture_init(&fx);
	REQUIRE(!ftruncate(fd, (off_t)PAGE));
	REQUIRE(dc_map(fx.inode, 3 * RSIZE, 0, &pin) == 0);
	REQUIRE(dc_map(fx.inode, 5 * RSIZE, 0, &tpin) == 0);
	REQUIRE(!ftruncate(fx.fd, (off_t)(5 * RSIZE + PAGE)));
	own_nested_be = fx.be;
	own_nested_off = PAGE;
	own_nested_pin = &tpin;
	own_nested_ret = 1;
	own_jump = true;
	if (!sigsetjmp(own_env, 1)) {
		dc_mmapbe_read(fx.be, &pin, 0, map + PAGE, sizeof(buf));
		CHECK(!"a copy into a truncated buffer returned");
	}
	own_jump = false;
	CHECK(own_calls == calls + 3);
	CHECK(own_code == BUS_ADRERR);
	CHECK(own_addr == map + PAGE);
	CHECK(own_nested_ret == -EIO);
	CHECK(!sigbus_blocked());
	/*
	 * The abandoned copy left no guard behind: a fault on its window page
	 * outside any copy is the program's (which repairs the file), not a
	 * jump into the abandoned frame.
	 */
	win = dc_mmapbe_window(fx.be);
	REQUIRE(!ftruncate(fx.fd, (off_t)(3 * RSIZE)));
	own_fix_fd = fx.fd;
	own_fix_size = (off_t)FILE_SIZE;
	b = *(volatile unsigned char *)(win + pin.win_off + 7);
	CHECK(own_calls == calls + 4);
	CHECK(own_addr == win + pin.win_off + 7);
	CHECK(b == 0);
	CHECK(own_fix_fd == -1);
	/* And the window's own faults are still ours. */
	CHECK(dc_mmapbe_read(fx.be, &tpin, PAGE, buf, 1) == 0);
	REQUIRE(!ftruncate(fx.fd, (off_t)(5 * RSIZE + PAGE)));
	CHECK(dc_mmapbe_read(fx.be, &tpin, PAGE, buf, 1) == -EIO);
	CHECK(dc_mmapbe_read(fx.be, &tpin, 0, buf, 1) == 0);
	REQUIRE(!ftruncate(fd, (off_t)(2 * PAGE)));
	CHECK(dc_mmapbe_read(fx.be, &tpin, 0, map + PAGE, sizeof(buf)) == 0);
	memset(want, 0, sizeof(want));	/* the repair zeroed it */
	CHECK(!memcmp(map + PAGE, want, sizeof(want)));
	CHECK(own_calls == calls + 4);
	CHECK(!sigbus_blocked());
	dc_unpin(&tpin);
	dc_unpin(&pin);
	fixture_fini(&fx);
	munmap(map, 2 * PAGE);
	close(fd);
}

/* ---------------------------------------------------------------------- */
/* Children: one previous action each, in a fresh process.                 */

static volatile sig_atomic_t plain_calls, plain_masked;

static void plain_handler(int sig)
{
	sigset_t cur;

	/* Called again: a fault it cannot repair, looping. */
	if (++plain_calls > 1)
		_exit(93);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	plain_masked = sig == SIGBUS && sigismember(&cur, SIGUSR2) == 1 &&
		       sigismember(&cur, SIGBUS) == 1;
}

/* A copy past the end of a truncated file must fail with -EIO. */
static int child_window_fault(void)
{
	struct fixture fx;
	struct dc_pin pin;
	unsigned char b;
	int ret;

	fixture_init(&fx);
	if (dc_map(fx.inode, 0, 0, &pin))
		return -1;
	if (ftruncate(fx.fd, (off_t)PAGE))
		return -1;
	ret = dc_mmapbe_read(fx.be, &pin, PAGE, &b, 1);
	dc_unpin(&pin);
	fixture_fini(&fx);
	return ret == -EIO ? 0 : -1;
}

static int marker_fd = -1;

/* Tell the parent the child got as far as its last step. */
static void mark_last_step(void)
{
	if (write(marker_fd, "L", 1) != 1)
		_exit(98);
}

/*
 * Exit 0: the scenario returned when it should; killed by SIGBUS after
 * mark_last_step(): when it should die; other exits: a wrong turn.
 */
static int child_main(const char *what)
{
	struct sigaction sa;
	unsigned char *map;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	if (!strcmp(what, "dfl-fault") || !strcmp(what, "dfl-raise") ||
	    !strcmp(what, "ign-fault")) {
		sa.sa_handler = what[0] == 'i' ? SIG_IGN : SIG_DFL;
		if (sigaction(SIGBUS, &sa, NULL) || child_window_fault())
			return 10;
		if (what[0] == 'i') {
			raise(SIGBUS);	/* ignored */
			if (child_window_fault())
				return 11;
		}
		if (!strcmp(what, "dfl-raise")) {
			mark_last_step();
			raise(SIGBUS);
			return 12;
		}
		map = truncated_mapping(&fd);
		mark_last_step();
		(void)*(volatile unsigned char *)(map + PAGE);
		return 13;
	}
	if (!strcmp(what, "resethand")) {
		sa.sa_sigaction = own_handler;
		sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
		if (sigaction(SIGBUS, &sa, NULL) || child_window_fault())
			return 20;
		raise(SIGBUS);
		if (own_calls != 1 || child_window_fault())
			return 21;
		mark_last_step();
		raise(SIGBUS);		/* the default action now */
		return 22;
	}
	if (!strcmp(what, "plain")) {
		sa.sa_handler = plain_handler;
		sigaddset(&sa.sa_mask, SIGUSR2);
		if (sigaction(SIGBUS, &sa, NULL) || child_window_fault())
			return 30;
		raise(SIGBUS);
		if (plain_calls != 1 || !plain_masked || sigbus_blocked())
			return 31;
		return 0;
	}
	return 99;
}

static void run_child(const char *self, const char *what, bool want_sigbus)
{
	char fdarg[16], mark = 0;
	int status, p[2];
	pid_t pid;

	REQUIRE(!pipe(p));
	fflush(NULL);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		close(p[0]);
		snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
		execl(self, self, "--child", what, fdarg, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	REQUIRE(waitpid(pid, &status, 0) == pid);
	if (read(p[0], &mark, 1) != 1)
		mark = 0;
	close(p[0]);
	if (want_sigbus) {
		if (mark != 'L') {
			fprintf(stderr, "child %s: died (status %#x) before its last step\n",
				what, status);
			failures++;
		} else if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS)) {
			fprintf(stderr, "child %s: status %#x, want killed by SIGBUS\n",
				what, status);
			failures++;
		}
	} else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fprintf(stderr, "child %s: status %#x, want exit 0\n", what, status);
		failures++;
	}
}

static void test_children(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	REQUIRE(n > 0);
	self[n] = '\0';
	run_child(self, "dfl-fault", true);
	run_child(self, "dfl-raise", true);
	run_child(self, "ign-fault", true);
	run_child(self, "resethand", true);
	run_child(self, "plain", false);
}

static bool selected(int argc, char **argv, const char *name)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
		{ "args", test_args },
		{ "truncated", test_truncated },
		{ "outside", test_outside },
		{ "own-handler", test_own_handler },
		{ "children", test_children },
	};
	struct sigaction sa;
	const char *env = getenv("DC_TEST_SEED");
	unsigned int i, before, passed = 0, failed = 0;
	int ret;

	if (argc == 4 && !strcmp(argv[1], "--child")) {
		marker_fd = atoi(argv[3]);
		dc_thread_register();
		ret = child_main(argv[2]);
		dc_thread_unregister();
		return ret;
	}
	seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	if (!seed)
		seed = 1;
	printf("# mmap_trunc: DC_TEST_SEED=%" PRIu64 "\n", seed);
	/*
	 * The program's handler comes first; the backend's chains to it.
	 * SA_NODEFER: it copies from the window itself, which a handler
	 * running with SIGBUS blocked must not (a fault then kills).
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = own_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	REQUIRE(!sigaction(SIGBUS, &sa, NULL));
	dc_thread_register();
	printf("1..%zu\n", sizeof(tests) / sizeof(tests[0]));
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (argc > 1 && !selected(argc, argv, tests[i].name)) {
			printf("ok %u - %s # SKIP not selected\n", i + 1, tests[i].name);
			continue;
		}
		before = failures;
		tests[i].fn();
		printf("%s %u - %s\n", failures == before ? "ok" : "not ok", i + 1,
		       tests[i].name);
		if (failures == before)
			passed++;
		else
			failed++;
		fflush(stdout);
	}
	/* The totals in cmocka's words, which tests/run counts. */
	printf("[  PASSED  ] %u test(s).\n", passed);
	if (failed)
		printf("[  FAILED  ] %u test(s), listed below:\n", failed);
	dc_thread_unregister();
	return failures ? 1 : 0;
}
