// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcvcheck: the data checks the virtio-fs DAX guest runs (tests/virtiofs/
 * init), linked statically for the busybox initramfs.  Every check compares
 * against what the data must be (a reference copy in memory, or the
 * pattern a word's offset defines) and never waits for a time: processes
 * wait for each other's states through counters in shared memory.
 *
 *   dcvcheck pattern FILE MIB       write the pattern, then read it back
 *                                   (pread) and through mmap
 *   dcvcheck verify FILE            the pattern, through pread and mmap
 *   dcvcheck fsx FILE MAXMIB OPS SEED
 *                                   random write/read/mmap-write/mmap-read/
 *                                   truncate/fsync against a reference copy
 *   dcvcheck faults FILE NPROC PASSES
 *                                   NPROC processes map FILE (the pattern)
 *                                   and fault it in random orders; each also
 *                                   writes its own pages through the map;
 *                                   then everything is checked
 *   dcvcheck files FILE MIB OPS NPROC
 *                                   NPROC processes at once, each on a file
 *                                   of its own (FILE.0, FILE.1, ...) of MIB
 *                                   MiB: random 4 KiB writes and reads
 *                                   through pwrite/pread and through a map
 *                                   held open, each checked against the
 *                                   process's reference copy
 *   dcvcheck truncate FILE PASSES   a reader faults FILE (the pattern) over
 *                                   and over while the writer truncates the
 *                                   second half away and writes it back; a
 *                                   page of the first half must always read
 *                                   right, one of the second the pattern or
 *                                   zeros or SIGBUS (beyond the end)
 *   dcvcheck dax FILE               FILE's inode is DAX (statx's
 *                                   STATX_ATTR_DAX)
 *
 * Prints "dcvcheck MODE: ok ..." or "dcvcheck MODE: FAILED ..." and exits
 * 0 or 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096u

static const char *mode = "?";

static void fail(const char *fmt, unsigned long long a, unsigned long long b)
{
	printf("dcvcheck %s: FAILED: ", mode);
	printf(fmt, a, b);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static void sysfail(const char *what)
{
	printf("dcvcheck %s: FAILED: %s: %s\n", mode, what, strerror(errno));
	fflush(stdout);
	exit(1);
}

/*
 * Linux's own fs/fuse/dax.c fails a read() or write() with EBUSY now and
 * then when the window is contended.  A read or write that finds no free
 * range reclaims one of its file's own ranges inline: it writes the
 * range's dirty DAX entries back and invalidates them, and when
 * invalidate_inode_pages2_range() meets an entry it cannot drop it returns
 * -EBUSY, which the read or write returns (the module's pr_debug, turned on
 * with DC_VFS_APPEND='dyndbg="format invalidate_inode_pages2_range +p"',
 * prints "invalidate_inode_pages2_range() failed err=-16" each time).  Such
 * a call transferred nothing, so it is made again, up to EBUSY_TRIES times
 * in a row; each one is counted, and the count is printed at exit (the
 * host adds them up), never hidden.  A short transfer goes on from where it
 * stopped; any other error is returned.
 */
#define EBUSY_TRIES 100000u
static unsigned long long ebusy_retries;

static void ebusy_report(void)
{
	if (ebusy_retries)
		printf("dcvcheck %s: EBUSY from read/write %llu times, each made again\n",
		       mode, ebusy_retries);
}

static ssize_t xfer(int write, int fd, void *buf, size_t len, off_t off)
{
	unsigned int tries = 0;
	size_t done = 0;

	while (done < len) {
		uint8_t *p = (uint8_t *)buf + done;
		ssize_t n = write ? pwrite(fd, p, len - done, off + done) :
				    pread(fd, p, len - done, off + done);

		if (n < 0 && errno == EBUSY && ++tries < EBUSY_TRIES) {
			ebusy_retries++;
			sched_yield();
			continue;
		}
		if (n < 0)
			return -1;
		if (!n)
			break;	/* the end of the file */
		done += n;
		tries = 0;
	}
	return done;
}

static ssize_t xpread(int fd, void *buf, size_t len, off_t off)
{
	return xfer(0, fd, buf, len, off);
}

static ssize_t xpwrite(int fd, const void *buf, size_t len, off_t off)
{
	return xfer(1, fd, (void *)buf, len, off);
}

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The pattern: each 8-byte word names its own offset. */
static uint64_t word(uint64_t off)
{
	return (off * 0x9E3779B97F4A7C15ull) ^ 0x5DEECE66Dull ^ (off >> 3);
}

static void fill(uint8_t *buf, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = word(off + i);

		memcpy(buf + i, &w, 8);
	}
}

/* First bad byte of a pattern buffer at off, or -1. */
static long long check(const uint8_t *buf, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = word(off + i), got;

		memcpy(&got, buf + i, 8);
		if (got != w)
			return (long long)i;
	}
	return -1;
}

static void verify(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *buf = malloc(1 << 20), *m;
	uint64_t off;
	long long bad;

	if (fd < 0 || fstat(fd, &st) < 0 || !buf)
		sysfail(path);
	for (off = 0; off < (uint64_t)st.st_size; off += 1 << 20) {
		size_t len = st.st_size - off < (1 << 20) ? st.st_size - off : (1 << 20);

		if (xpread(fd, buf, len, off) != (ssize_t)len)
			sysfail("pread");
		bad = check(buf, off, len);
		if (bad >= 0)
			fail("pread: wrong data at offset %llu (size %llu)", off + bad, st.st_size);
	}
	m = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		sysfail("mmap");
	bad = check(m, 0, st.st_size);
	if (bad >= 0)
		fail("mmap: wrong data at offset %llu (size %llu)", bad, st.st_size);
	munmap(m, st.st_size);
	close(fd);
	free(buf);
}

static void pattern(const char *path, uint64_t mib)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	uint8_t *buf = malloc(1 << 20);
	uint64_t i;

	if (fd < 0 || !buf)
		sysfail(path);
	for (i = 0; i < mib; i++) {
		fill(buf, i << 20, 1 << 20);
		if (xpwrite(fd, buf, 1 << 20, i << 20) != 1 << 20)
			sysfail("pwrite");
	}
	if (fsync(fd) < 0)
		sysfail("fsync");
	close(fd);
	free(buf);
	verify(path);
}

/* --- fsx: random operations against a reference copy ------------------- */

static void fsx(const char *path, uint64_t maxsize, unsigned long ops)
{
	uint8_t *ref = calloc(1, maxsize), *buf = malloc(maxsize);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	uint64_t size = 0, counts[6] = { 0 };
	unsigned long op;

	if (!ref || !buf || fd < 0)
		sysfail(path);
	for (op = 0; op < ops; op++) {
		unsigned int kind = rnd() % 12;
		uint64_t off = rnd() % maxsize, len = 1 + rnd() % (256 * 1024);
		uint64_t i;
		uint8_t *m;

		if (len > maxsize - off)
			len = maxsize - off;
		switch (kind) {
		case 0: case 1: case 2:	/* write */
			for (i = 0; i < len; i++)
				buf[i] = rnd();
			if (xpwrite(fd, buf, len, off) != (ssize_t)len)
				sysfail("pwrite");
			memcpy(ref + off, buf, len);
			if (off + len > size)
				size = off + len;
			counts[0]++;
			break;
		case 3: case 4: case 5: {	/* read */
			ssize_t n = xpread(fd, buf, len, off), want;

			want = off >= size ? 0 : (ssize_t)(off + len > size ? size - off : len);
			if (n < 0)
				sysfail("pread");
			if (n != want)
				fail("op %llu: pread returned %llu bytes", op, n);
			if (n > 0 && memcmp(buf, ref + off, n))
				fail("op %llu: pread: wrong data at offset %llu", op, off);
			counts[1]++;
			break;
		}
		case 6: case 7:	/* write through mmap, within the size */
			if (!size)
				break;
			off %= size;
			if (len > size - off)
				len = size - off;
			m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (m == MAP_FAILED)
				sysfail("mmap");
			for (i = 0; i < len; i++)
				ref[off + i] = m[off + i] = rnd();
			if (rnd() & 1 && msync(m, size, MS_SYNC) < 0)
				sysfail("msync");
			munmap(m, size);
			counts[2]++;
			break;
		case 8: case 9:	/* read through mmap */
			if (!size)
				break;
			off %= size;
			if (len > size - off)
				len = size - off;
			m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
			if (m == MAP_FAILED)
				sysfail("mmap");
			if (memcmp(m + off, ref + off, len))
				fail("op %llu: mmap read: wrong data at offset %llu", op, off);
			munmap(m, size);
			counts[3]++;
			break;
		case 10:	/* truncate, down or up */
			off = rnd() % maxsize;
			if (ftruncate(fd, off) < 0)
				sysfail("ftruncate");
			if (off < size)
				memset(ref + off, 0, size - off);
			size = off;
			counts[4]++;
			break;
		case 11:
			if (fsync(fd) < 0)
				sysfail("fsync");
			counts[5]++;
			break;
		}
	}
	close(fd);
	/* Everything, through a new descriptor and a new map. */
	fd = open(path, O_RDONLY);
	if (fd < 0)
		sysfail(path);
	{
		struct stat st;
		uint8_t *m;

		if (fstat(fd, &st) < 0)
			sysfail("fstat");
		if ((uint64_t)st.st_size != size)
			fail("size %llu, expected %llu", st.st_size, size);
		if (size && (xpread(fd, buf, size, 0) != (ssize_t)size || memcmp(buf, ref, size)))
			fail("final pread of %llu bytes differs (%llu)", size, 0);
		if (size) {
			m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
			if (m == MAP_FAILED)
				sysfail("mmap");
			if (memcmp(m, ref, size))
				fail("final mmap read of %llu bytes differs (%llu)", size, 0);
			munmap(m, size);
		}
	}
	close(fd);
	printf("dcvcheck fsx: ok: %lu ops (write %llu, read %llu, mmap-write %llu, mmap-read %llu,"
	       " truncate %llu, fsync %llu), final size %llu\n", ops,
	       (unsigned long long)counts[0], (unsigned long long)counts[1],
	       (unsigned long long)counts[2], (unsigned long long)counts[3],
	       (unsigned long long)counts[4], (unsigned long long)counts[5],
	       (unsigned long long)size);
	free(ref);
	free(buf);
}

/* --- several processes faulting one file -------------------------------- */

static void faults(const char *path, int nproc, int passes)
{
	int fd = open(path, O_RDWR), i, status, bad = 0;
	struct stat st;
	uint64_t pages;
	volatile uint64_t *ready;

	if (fd < 0 || fstat(fd, &st) < 0)
		sysfail(path);
	pages = st.st_size / PAGE;
	ready = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ready == MAP_FAILED)
		sysfail("mmap");
	for (i = 0; i < nproc; i++) {
		if (fork() == 0) {
			uint8_t *m = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			uint64_t p, n;
			int pass;

			if (m == MAP_FAILED)
				sysfail("mmap");
			rng = 0x1234567ull * (i + 1);
			/* All start together: each waits for the others' maps. */
			__atomic_fetch_add(ready, 1, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(ready, __ATOMIC_SEQ_CST) < (uint64_t)nproc)
				;
			for (pass = 0; pass < passes; pass++) {
				for (n = 0; n < pages; n++) {
					uint64_t w;

					p = rnd() % pages;
					/* Page p belongs to process p % nproc: it writes it. */
					if (p % nproc == (uint64_t)i && (rnd() & 3) == 0) {
						w = word(p * PAGE) ^ 0xffffffffffffffffull;
						memcpy(m + p * PAGE + 8, &w, 8);
						w = word(p * PAGE + 8);
						memcpy(m + p * PAGE + 8, &w, 8);
					}
					memcpy(&w, m + p * PAGE, 8);
					if (w != word(p * PAGE))
						fail("process faulted page %llu: wrong word %llu", p, w);
				}
			}
			munmap(m, st.st_size);
			exit(0);
		}
	}
	for (i = 0; i < nproc; i++) {
		if (wait(&status) < 0)
			sysfail("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	close(fd);
	if (bad)
		fail("%llu of %llu processes failed", bad, nproc);
	verify(path);
	printf("dcvcheck faults: ok: %d processes, %d passes over %llu pages each\n",
	       nproc, passes, (unsigned long long)pages);
}

/* --- several processes, each on a file of its own ----------------------- */

/* One process of files(): OPS random page operations on its own file. */
static void files_one(const char *path, uint64_t size, unsigned long ops, int idx,
		      volatile uint64_t *ready, int nproc)
{
	uint8_t *ref = malloc(size), page[PAGE], *m;
	uint64_t counts[4] = { 0 }, i;
	unsigned long op;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (!ref || fd < 0)
		sysfail(path);
	rng = 0x9e3779b97f4a7c15ull * (idx + 1) | 1;
	/* Contents no other process's file has: the pattern, turned per process. */
	for (i = 0; i < size; i += 8) {
		uint64_t w = word(i) ^ (0x0101010101010101ull * (idx + 1));

		memcpy(ref + i, &w, 8);
	}
	for (i = 0; i < size; i += 1 << 20)
		if (xpwrite(fd, ref + i, 1 << 20, i) != 1 << 20)
			sysfail("pwrite");
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		sysfail("mmap");
	/* All start together, so that their mappings contend for the window. */
	__atomic_fetch_add(ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(ready, __ATOMIC_SEQ_CST) < (uint64_t)nproc)
		;
	for (op = 0; op < ops; op++) {
		uint64_t off = (rnd() % (size / PAGE)) * PAGE;
		unsigned int kind = rnd() % 4;

		switch (kind) {
		case 0:	/* pwrite */
		case 2:	/* a write through the map */
			for (i = 0; i < PAGE; i += 8) {
				uint64_t w = rnd();

				memcpy(page + i, &w, 8);
			}
			if (kind == 0) {
				if (xpwrite(fd, page, PAGE, off) != PAGE)
					sysfail("pwrite");
			} else {
				memcpy(m + off, page, PAGE);
			}
			memcpy(ref + off, page, PAGE);
			break;
		case 1:	/* pread */
		case 3:	/* a read through the map */
			if (kind == 1) {
				if (xpread(fd, page, PAGE, off) != PAGE)
					sysfail("pread");
			} else {
				memcpy(page, m + off, PAGE);
			}
			if (memcmp(page, ref + off, PAGE)) {
				int zeros = 1;

				for (i = 0; i < PAGE; i++)
					if (page[i])
						zeros = 0;
				printf("dcvcheck files: FAILED: %s: op %lu: %s of page at %llu: %s\n",
				       path, op, kind == 1 ? "pread" : "map read",
				       (unsigned long long)off,
				       zeros ? "zeros" : "other data");
				fflush(stdout);
				exit(1);
			}
			break;
		}
		counts[kind]++;
	}
	munmap(m, size);
	/* Everything, through pread. */
	for (i = 0; i < size; i += PAGE) {
		if (xpread(fd, page, PAGE, i) != PAGE)
			sysfail("pread");
		if (memcmp(page, ref + i, PAGE))
			fail("final pread: wrong data at offset %llu (%llu)", i, idx);
	}
	close(fd);
	printf("dcvcheck files: %s: ok: %lu ops (pwrite %llu, pread %llu, map write %llu, map read %llu)\n",
	       path, ops, (unsigned long long)counts[0], (unsigned long long)counts[1],
	       (unsigned long long)counts[2], (unsigned long long)counts[3]);
	free(ref);
	exit(0);
}

static void files(const char *path, uint64_t mib, unsigned long ops, int nproc)
{
	volatile uint64_t *ready;
	int i, status, bad = 0;
	char name[4096];

	ready = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ready == MAP_FAILED)
		sysfail("mmap");
	for (i = 0; i < nproc; i++) {
		snprintf(name, sizeof(name), "%s.%d", path, i);
		if (fork() == 0)
			files_one(name, mib << 20, ops, i, ready, nproc);
	}
	for (i = 0; i < nproc; i++) {
		if (wait(&status) < 0)
			sysfail("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	if (bad)
		fail("%llu of %llu processes failed", bad, nproc);
	printf("dcvcheck files: ok: %d processes at once, %lu operations each\n", nproc, ops);
}

/* --- truncation under a reader -------------------------------------------- */

/*
 * Whether w is want half written over zeros: each byte either want's or 0.
 * A write() into the window races with the reader's loads, and nothing
 * makes the kernel's copy (byte by byte under TCG: rep movsb) appear 8
 * bytes at once: a reader saw 109, the low byte of its word
 * 0xf9eaf924e4d1b46d alone, where the file had grown back over the cut.
 */
static int torn_over_zeros(uint64_t w, uint64_t want)
{
	int i;

	for (i = 0; i < 64; i += 8) {
		uint64_t b = (w >> i) & 0xff;

		if (b && b != ((want >> i) & 0xff))
			return 0;
	}
	return 1;
}

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static void truncate_test(const char *path, int passes)
{
	int fd = open(path, O_RDWR), status, pass;
	struct stat st;
	uint64_t half, size;
	volatile uint64_t *shared;	/* [0] reader's passes, [1] stop */
	uint8_t *buf;
	pid_t pid;

	if (fd < 0 || fstat(fd, &st) < 0)
		sysfail(path);
	size = st.st_size;
	half = size / 2 & ~(uint64_t)(PAGE - 1);
	buf = malloc(size - half);
	shared = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!buf || shared == MAP_FAILED)
		sysfail("memory");
	pid = fork();
	if (pid == 0) {
		uint8_t *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		struct sigaction sa = { .sa_handler = on_bus };
		volatile uint64_t bus = 0, zero = 0, torn = 0;

		if (m == MAP_FAILED)
			sysfail("mmap");
		sigaction(SIGBUS, &sa, NULL);
		while (!__atomic_load_n(&shared[1], __ATOMIC_SEQ_CST)) {
			volatile uint64_t p;

			for (p = 0; p < size / PAGE; p++) {
				volatile uint64_t w;

				if (sigsetjmp(bus_jmp, 1)) {
					if (p * PAGE < half)
						fail("SIGBUS at page %llu, in the half never truncated (%llu)",
						     p, half / PAGE);
					bus++;
					continue;
				}
				w = *(volatile uint64_t *)(m + p * PAGE);
				if (w == word(p * PAGE))
					continue;
				if (p * PAGE >= half && w == 0) {
					zero++;
					continue;
				}
				/* The write that fills the grown half, under way. */
				if (p * PAGE >= half && torn_over_zeros(w, word(p * PAGE))) {
					torn++;
					continue;
				}
				fail("page %llu read a wrong word %llu", p, w);
			}
			__atomic_fetch_add(&shared[0], 1, __ATOMIC_SEQ_CST);
		}
		printf("dcvcheck truncate: reader: %llu passes, %llu SIGBUS, %llu zero and %llu half-written pages past the cut\n",
		       (unsigned long long)shared[0], (unsigned long long)bus,
		       (unsigned long long)zero, (unsigned long long)torn);
		exit(0);
	}
	fill(buf, half, size - half);
	for (pass = 0; pass < passes; pass++) {
		uint64_t seen = __atomic_load_n(&shared[0], __ATOMIC_SEQ_CST);

		if (ftruncate(fd, half) < 0)
			sysfail("ftruncate down");
		/* The reader makes a whole pass over the short file. */
		while (__atomic_load_n(&shared[0], __ATOMIC_SEQ_CST) < seen + 2)
			if (waitpid(pid, &status, WNOHANG) == pid)
				fail("reader ended early (status %llu, pass %llu)", status, pass);
		if (ftruncate(fd, size) < 0)
			sysfail("ftruncate up");
		if (xpwrite(fd, buf, size - half, half) != (ssize_t)(size - half))
			sysfail("pwrite");
		seen = __atomic_load_n(&shared[0], __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&shared[0], __ATOMIC_SEQ_CST) < seen + 2)
			if (waitpid(pid, &status, WNOHANG) == pid)
				fail("reader ended early (status %llu, pass %llu)", status, pass);
	}
	__atomic_store_n(&shared[1], 1, __ATOMIC_SEQ_CST);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("reader failed (status %llu after %llu passes)", status, passes);
	close(fd);
	verify(path);
	printf("dcvcheck truncate: ok: %d truncations of the second half under a reader\n", passes);
}

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

/* The kernel says FILE's inode is DAX: its accesses go through the window. */
static void dax_check(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &stx) < 0)
		sysfail("statx");
	if (!(stx.stx_attributes_mask & stx.stx_attributes & STATX_ATTR_DAX))
		fail("the inode is not DAX (statx: attributes %#llx, mask %#llx)",
		     stx.stx_attributes, stx.stx_attributes_mask);
	printf("dcvcheck dax: ok: %s is DAX\n", path);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3) {
		fprintf(stderr, "usage: dcvcheck pattern|verify|fsx|faults|files|truncate|dax FILE ...\n");
		return 2;
	}
	mode = argv[1];
	atexit(ebusy_report);
	if (!strcmp(mode, "pattern") && argc == 4) {
		pattern(argv[2], strtoull(argv[3], NULL, 0));
		printf("dcvcheck pattern: ok: %s MiB written and read back\n", argv[3]);
	} else if (!strcmp(mode, "verify") && argc == 3) {
		verify(argv[2]);
		printf("dcvcheck verify: ok\n");
	} else if (!strcmp(mode, "fsx") && argc == 6) {
		rng = strtoull(argv[5], NULL, 0) * 2 + 1;	/* odd, and one per seed */
		fsx(argv[2], strtoull(argv[3], NULL, 0) << 20, strtoul(argv[4], NULL, 0));
	} else if (!strcmp(mode, "faults") && argc == 5) {
		faults(argv[2], atoi(argv[3]), atoi(argv[4]));
	} else if (!strcmp(mode, "files") && argc == 6) {
		files(argv[2], strtoull(argv[3], NULL, 0), strtoul(argv[4], NULL, 0), atoi(argv[5]));
	} else if (!strcmp(mode, "truncate") && argc == 4) {
		truncate_test(argv[2], atoi(argv[3]));
	} else if (!strcmp(mode, "dax") && argc == 3) {
		dax_check(argv[2]);
	} else {
		fprintf(stderr, "dcvcheck: bad arguments\n");
		return 2;
	}
	return 0;
}
