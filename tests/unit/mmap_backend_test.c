// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mmap_backend_test.c - the mmap window backend on real temporary files.
 *
 * Userspace only.  Files are created with mkstemp() in $TMPDIR (or /tmp)
 * and unlinked at once.  The window is small (4 ranges of 64 KiB) and the
 * files larger, so reads and writes go through setup, reclaim, remove and
 * writeback; every byte seen through the window is checked against pread().
 * Nothing is asserted while a pin is held: a failed assertion leaves the
 * test at once, and a pin left held makes the teardown's dc_inode_put()
 * wait for ever instead of the test failing.
 */
#include "platform.h"

#include <daxcache/daxcache.h>
#include <daxcache/mmap_backend.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "mmapbe_create.h"
#include "tmpfile.h"

#define RSHIFT		16u
#define RSIZE		(1ull << RSHIFT)
#define NR_RANGES	4ull
#define WINDOW		(NR_RANGES * RSIZE)
#define FILE_SIZE	(16 * RSIZE + 10000)	/* ends inside a range */
#define BLOCK		4096u
#define INO		7

static uint64_t seed_state;

static uint64_t rnd(void)
{
	seed_state ^= seed_state << 13;
	seed_state ^= seed_state >> 7;
	seed_state ^= seed_state << 17;
	return seed_state;
}

static unsigned char pattern_byte(uint64_t off)
{
	return (unsigned char)((off * 2654435761u) >> 13 ^ off);
}

/* An unlinked temporary file of @size bytes of pattern, open O_RDWR. */
static int make_file(uint64_t size)
{
	unsigned char buf[8192];
	uint64_t off;
	int fd;

	fd = tmpfile_unlinked(NULL, "dc-mmapbe");
	assert_true(fd >= 0);
	for (off = 0; off < size; off += sizeof(buf)) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);
		size_t i;

		for (i = 0; i < n; i++)
			buf[i] = pattern_byte(off + i);
		assert_int_equal(pwrite(fd, buf, n, (off_t)off), (ssize_t)n);
	}
	return fd;
}

/* The permissions /proc/self/maps shows for @addr ("r--s", "---p", ...). */
static void maps_perms(const void *addr, char perms[5])
{
	uintptr_t a = (uintptr_t)addr;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	strcpy(perms, "????");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char p[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 &&
		    a >= lo && a < hi) {
			memcpy(perms, p, 5);
			break;
		}
	}
	fclose(f);
}

struct fixture {
	struct dc_mmapbe *be;
	struct dc_cache *cache;
	struct dc_inode *inode;
	unsigned char *win;
	int fd;
};

static void fixture_init(struct fixture *fx, uint64_t file_size)
{
	struct dc_cache_config cfg;

	memset(fx, 0, sizeof(*fx));
	fx->fd = make_file(file_size);
	assert_int_equal(mmapbe_create(WINDOW, RSHIFT, &fx->be), 0);
	fx->win = dc_mmapbe_window(fx->be);
	assert_int_equal(dc_mmapbe_add_file(fx->be, INO, fx->fd), 0);
	dc_cache_config_init(&cfg, sizeof(cfg), WINDOW);
	cfg.range_shift = RSHIFT;
	assert_int_equal(dc_cache_create(&cfg, sizeof(cfg), dc_mmapbe_ops(),
					 sizeof(struct dc_backend_ops), fx->be,
					 &fx->cache), 0);
	assert_int_equal(dc_inode_get(fx->cache, INO, &fx->inode), 0);
}

static void fixture_fini(struct fixture *fx)
{
	dc_inode_put(fx->inode);
	dc_cache_destroy(fx->cache);
	assert_int_equal(dc_mmapbe_remove_file(fx->be, INO), 0);
	dc_mmapbe_destroy(fx->be);
	close(fx->fd);
}

/* cmocka setup and teardown: a fixture over a file of FILE_SIZE bytes. */
static int file_setup(void **state)
{
	struct fixture *fx = malloc(sizeof(*fx));

	assert_non_null(fx);
	fixture_init(fx, FILE_SIZE);
	*state = fx;
	return 0;
}

static int file_teardown(void **state)
{
	fixture_fini(*state);
	free(*state);
	return 0;
}

static void test_create_errors(void **state)
{
	struct dc_mmapbe *be = NULL;

	assert_int_equal(mmapbe_create(WINDOW, 11, &be), -EINVAL);
	assert_int_equal(mmapbe_create(WINDOW, 41, &be), -EINVAL);
	assert_int_equal(mmapbe_create(0, RSHIFT, &be), -EINVAL);
	assert_int_equal(mmapbe_create(WINDOW + 4096, RSHIFT, &be), -EINVAL);
	assert_int_equal(mmapbe_create(WINDOW, RSHIFT, NULL), -EINVAL);
	assert_null(be);
	assert_int_equal(mmapbe_create(WINDOW, RSHIFT, &be), 0);
	assert_non_null(dc_mmapbe_window(be));
	dc_mmapbe_destroy(be);
	dc_mmapbe_destroy(NULL);
}

static void test_file_table_errors(void **state)
{
	struct dc_mmapbe *be;
	int fd = make_file(RSIZE), dfd;

	assert_int_equal(mmapbe_create(WINDOW, RSHIFT, &be), 0);
	assert_int_equal(dc_mmapbe_add_file(be, 1, -1), -EBADF);
	dfd = open("/", O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(dc_mmapbe_add_file(be, 1, dfd), -EINVAL);
	close(dfd);
	assert_int_equal(dc_mmapbe_add_file(be, 1, fd), 0);
	assert_int_equal(dc_mmapbe_add_file(be, 1, fd), -EEXIST);
	assert_int_equal(dc_mmapbe_add_file(be, 2, fd), 0);
	assert_int_equal(dc_mmapbe_remove_file(be, 3), -ENOENT);
	assert_int_equal(dc_mmapbe_remove_file(be, 1), 0);
	assert_int_equal(dc_mmapbe_remove_file(be, 1), -ENOENT);
	assert_int_equal(dc_mmapbe_remove_file(be, 2), 0);
	assert_int_equal(dc_mmapbe_add_file(NULL, 1, fd), -EINVAL);
	assert_int_equal(dc_mmapbe_remove_file(NULL, 1), -EINVAL);
	dc_mmapbe_destroy(be);
	close(fd);
}

static void test_setup_errors(void **state)
{
	const struct dc_backend_ops *ops = dc_mmapbe_ops();
	struct dc_mmapbe *be;
	int fd = make_file(2 * RSIZE + 100), rofd;
	char path[64];

	assert_int_equal(mmapbe_create(WINDOW, RSHIFT, &be), 0);
	assert_int_equal(dc_mmapbe_add_file(be, 1, fd), 0);
	/* unaligned file offset, window offset, length; outside the window */
	assert_int_equal(ops->setup(be, 1, 4096, 0, RSIZE, DC_MAP_READ), -EINVAL);
	assert_int_equal(ops->setup(be, 1, 0, 4096, RSIZE, DC_MAP_READ), -EINVAL);
	assert_int_equal(ops->setup(be, 1, 0, 0, 4096, DC_MAP_READ), -EINVAL);
	assert_int_equal(ops->setup(be, 1, 0, WINDOW, RSIZE, DC_MAP_READ), -EINVAL);
	assert_int_equal(ops->setup(be, 1, 0, 3 * RSIZE, 2 * RSIZE, DC_MAP_READ),
			 -EINVAL);
	/* unknown inode */
	assert_int_equal(ops->setup(be, 9, 0, 0, RSIZE, DC_MAP_READ), -ENOENT);
	/* past EOF: the range starting at 3 * RSIZE; the partial one is fine */
	assert_int_equal(ops->setup(be, 1, 3 * RSIZE, 0, RSIZE, DC_MAP_READ), -ENXIO);
	assert_int_equal(ops->setup(be, 1, 2 * RSIZE, 0, RSIZE, DC_MAP_READ), 0);
	assert_int_equal(dc_mmapbe_window(be) ?
			 ((unsigned char *)dc_mmapbe_window(be))[99] : 0,
			 pattern_byte(2 * RSIZE + 99));
	/* a writable mapping of a read-only descriptor */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rofd = open(path, O_RDONLY);
	assert_true(rofd >= 0);
	assert_int_equal(dc_mmapbe_add_file(be, 2, rofd), 0);
	assert_int_equal(ops->setup(be, 2, 0, RSIZE, RSIZE, DC_MAP_READ), 0);
	assert_int_equal(ops->setup(be, 2, 0, RSIZE, RSIZE, DC_MAP_WRITE | DC_MAP_READ),
			 -EACCES);
	/* a descriptor closed behind the backend's back */
	close(rofd);
	assert_int_equal(ops->setup(be, 2, 0, RSIZE, RSIZE, DC_MAP_READ), -EBADF);
	/* remove and writeback refuse ranges outside the window */
	{
		struct dc_remove_entry e = { 1, 0, WINDOW, RSIZE };

		assert_int_equal(ops->remove(be, &e, 1), -EINVAL);
		assert_int_equal(ops->writeback(be, 1, 0, RSIZE, 100), -EINVAL);
	}
	dc_mmapbe_destroy(be);
	close(fd);
}

/* The same errors as seen by a cache user. */
static void test_map_errors(void **state)
{
	struct fixture fx;
	struct dc_inode *other;
	struct dc_pin pin;
	unsigned char byte;

	fixture_init(&fx, 2 * RSIZE);
	assert_int_equal(dc_map(fx.inode, 2 * RSIZE, 0, &pin), -ENXIO);
	assert_int_equal(dc_inode_get(fx.cache, INO + 1, &other), 0);
	assert_int_equal(dc_map(other, 0, 0, &pin), -ENOENT);
	dc_inode_put(other);
	assert_int_equal(dc_map(fx.inode, RSIZE + 5, 0, &pin), 0);
	byte = fx.win[pin.win_off];
	dc_unpin(&pin);
	assert_int_equal(byte, pattern_byte(RSIZE + 5));
	fixture_fini(&fx);
}

static void test_random_reads(void **state)
{
	unsigned char want[BLOCK], got[BLOCK];
	struct dc_cache_stats st;
	struct fixture *fx = *state;
	struct dc_pin pin;
	unsigned int i;
	uint64_t len;

	for (i = 0; i < 4000; i++) {
		uint64_t off = rnd() % FILE_SIZE;
		size_t n = FILE_SIZE - off < BLOCK ? FILE_SIZE - off : BLOCK;

		if (n > RSIZE - (off & (RSIZE - 1)))
			n = RSIZE - (off & (RSIZE - 1));
		assert_int_equal(dc_map(fx->inode, off, 0, &pin), 0);
		len = pin.len;
		if (len >= n)
			memcpy(got, fx->win + pin.win_off, n);
		dc_unpin(&pin);
		assert_true(len >= n);
		assert_int_equal(pread(fx->fd, want, n, (off_t)off), (ssize_t)n);
		assert_memory_equal(got, want, n);
	}
	assert_int_equal(dc_cache_stats(fx->cache, &st, sizeof(st)), 0);
	assert_true(st.hits > 0);
	assert_true(st.misses > NR_RANGES);
	assert_true(st.inline_reclaims + st.bg_reclaims > 0);
	assert_int_equal(st.setup_failures, 0);
}

static void test_writes(void **state)
{
	unsigned char buf[BLOCK], val[BLOCK];
	struct dc_cache_stats st;
	struct fixture *fx = *state;
	struct dc_pin pin;
	uint64_t r, off;
	bool writable;

	/* Write one block in every full range: more ranges than the window. */
	for (r = 0; r < 16; r++) {
		off = r * RSIZE + (r % 8) * BLOCK;
		assert_int_equal(dc_map(fx->inode, off, DC_MAP_WRITE, &pin), 0);
		writable = pin.writable;
		if (writable)
			memset(fx->win + pin.win_off, (int)(0xa0 + r), BLOCK);
		dc_unpin(&pin);
		assert_true(writable);
	}
	/* Read access then a write upgrade on the same range. */
	assert_int_equal(dc_map(fx->inode, 3 * RSIZE, 0, &pin), 0);
	dc_unpin(&pin);
	assert_int_equal(dc_map(fx->inode, 3 * RSIZE, DC_MAP_WRITE, &pin), 0);
	fx->win[pin.win_off] = 0x5a;
	dc_unpin(&pin);
	assert_int_equal(dc_inode_punch(fx->inode, 0, UINT64_MAX), 0);
	assert_int_equal(dc_cache_stats(fx->cache, &st, sizeof(st)), 0);
	assert_true(st.writebacks >= 16);
	assert_int_equal(st.writeback_failures, 0);
	assert_int_equal(st.nr_mapped, 0);
	for (r = 0; r < 16; r++) {
		off = r * RSIZE + (r % 8) * BLOCK;
		memset(val, (int)(0xa0 + r), BLOCK);
		assert_int_equal(pread(fx->fd, buf, BLOCK, (off_t)off), BLOCK);
		assert_memory_equal(buf, val, BLOCK);
	}
	assert_int_equal(pread(fx->fd, buf, 1, (off_t)(3 * RSIZE)), 1);
	assert_int_equal(buf[0], 0x5a);
	/* A byte next to a written block is unchanged. */
	assert_int_equal(pread(fx->fd, buf, 1, (off_t)(5 * RSIZE + 5 * BLOCK - 1)), 1);
	assert_int_equal(buf[0], pattern_byte(5 * RSIZE + 5 * BLOCK - 1));
}

/*
 * One read and one write of @len bytes at @off of @pin, through buffers
 * @mis bytes past an 8-byte boundary: 0 if each copied exactly its bytes
 * (the window maps the file, so pread() sees a store at once), else the
 * line that found otherwise.  Asserts nothing: the caller drops the pin
 * first, so that a failure ends the test instead of hanging its teardown.
 */
static int copy_span(struct fixture *fx, const struct dc_pin *pin,
		     uint64_t base, uint64_t off, size_t len, size_t mis)
{
	unsigned char got[8 + 300 + 16], want[300 + 32], src[8 + 300];
	size_t i;

	memset(got, 0xee, sizeof(got));
	if (dc_mmapbe_read(fx->be, pin, off, got + mis, len) ||
	    pread(fx->fd, want, len, (off_t)(base + off)) != (ssize_t)len ||
	    memcmp(got + mis, want, len))
		return __LINE__;
	for (i = 0; i < sizeof(got); i++)
		if ((i < mis || i >= mis + len) && got[i] != 0xee)
			return __LINE__;
	for (i = 0; i < len; i++)
		src[mis + i] = (unsigned char)(off + len + i + mis);
	if (pread(fx->fd, want, len + 32, (off_t)(base + off - 16)) !=
	    (ssize_t)(len + 32) ||
	    dc_mmapbe_write(fx->be, pin, off, src + mis, len) ||
	    pread(fx->fd, got, len + 32, (off_t)(base + off - 16)) !=
	    (ssize_t)(len + 32))
		return __LINE__;
	if (memcmp(got, want, 16) || memcmp(got + 16, src + mis, len) ||
	    memcmp(got + 16 + len, want + 16 + len, 16))
		return __LINE__;
	return 0;
}

/*
 * dc_mmapbe_read() and dc_mmapbe_write() copy exactly the bytes asked for:
 * every length up to 72 bytes and every 13th from there to 280, at offsets
 * around a page boundary, into and out of buffers at every alignment mod
 * 8; the bytes around the destination stay as they were.
 */
static void test_copy_spans(void **state)
{
	struct fixture *fx = *state;
	struct dc_pin pin;
	uint64_t base = 2 * RSIZE, off;
	size_t len, mis;
	int bad = 0;

	assert_int_equal(dc_map(fx->inode, base, DC_MAP_WRITE, &pin), 0);
	for (off = BLOCK - 40; off <= BLOCK + 8; off += 8)
		for (len = 0; len <= 280; len += len < 72 ? 1 : 13)
			for (mis = 0; mis < 8; mis++) {
				bad = copy_span(fx, &pin, base, off, len, mis);
				if (bad)
					goto out;
			}
out:
	dc_unpin(&pin);
	if (bad)
		fail_msg("line %d: off %llu len %zu mis %zu", bad,
			 (unsigned long long)off, len, mis);
}

static void test_remove_prot_none(void **state)
{
	const struct dc_backend_ops *ops = dc_mmapbe_ops();
	struct dc_remove_entry e[2] = {
		{ 1, 0, 0, RSIZE }, { 1, RSIZE, 2 * RSIZE, RSIZE },
	};
	struct dc_mmapbe *be;
	unsigned char *win;
	int fd = make_file(2 * RSIZE);
	char perms[5];

	assert_int_equal(mmapbe_create(WINDOW, RSHIFT, &be), 0);
	win = dc_mmapbe_window(be);
	assert_int_equal(dc_mmapbe_add_file(be, 1, fd), 0);
	maps_perms(win, perms);
	assert_string_equal(perms, "---p");
	assert_int_equal(ops->setup(be, 1, 0, 0, RSIZE, DC_MAP_READ), 0);
	assert_int_equal(ops->setup(be, 1, RSIZE, 2 * RSIZE, RSIZE,
				    DC_MAP_READ | DC_MAP_WRITE), 0);
	maps_perms(win, perms);
	assert_string_equal(perms, "r--s");
	maps_perms(win + 2 * RSIZE, perms);
	assert_string_equal(perms, "rw-s");
	assert_int_equal(win[RSIZE - 1], pattern_byte(RSIZE - 1));
	win[2 * RSIZE] = 0x11;
	assert_int_equal(ops->writeback(be, 1, RSIZE, RSIZE, 2 * RSIZE), 0);
	assert_int_equal(ops->remove(be, e, 2), 0);
	maps_perms(win, perms);
	assert_string_equal(perms, "---p");
	maps_perms(win + 2 * RSIZE, perms);
	assert_string_equal(perms, "---p");
	/* A new setup over a removed range works. */
	assert_int_equal(ops->setup(be, 1, RSIZE, 0, RSIZE, DC_MAP_READ), 0);
	assert_int_equal(win[0], 0x11);
	assert_int_equal(win[1], pattern_byte(RSIZE + 1));
	dc_mmapbe_destroy(be);
	close(fd);
}

struct reader_arg {
	struct fixture *fx;
	unsigned int idx;
	unsigned long bad;
	unsigned long errors;
};

static void *reader(void *p)
{
	struct reader_arg *a = p;
	uint64_t x = 0x9e3779b97f4a7c15ull * (a->idx + 1) ^ seed_state;
	unsigned int i;

	dc_thread_register();
	for (i = 0; i < 2000; i++) {
		struct dc_pin pin;
		uint64_t off;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		off = (x >> 4) % (16 * RSIZE);
		if (dc_map(a->fx->inode, off, 0, &pin)) {
			a->errors++;
			continue;
		}
		if (a->fx->win[pin.win_off] != pattern_byte(off))
			a->bad++;
		dc_unpin(&pin);
	}
	dc_thread_unregister();
	return NULL;
}

static void test_threads(void **state)
{
	struct reader_arg args[3];
	pthread_t tid[3];
	struct fixture *fx = *state;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		args[i] = (struct reader_arg){ .fx = fx, .idx = i };
		assert_int_equal(pthread_create(&tid[i], NULL, reader, &args[i]), 0);
	}
	for (i = 0; i < 3; i++) {
		pthread_join(tid[i], NULL);
		assert_int_equal(args[i].bad, 0);
		assert_int_equal(args[i].errors, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test(test_file_table_errors),
		cmocka_unit_test(test_setup_errors),
		cmocka_unit_test(test_map_errors),
		cmocka_unit_test_setup_teardown(test_random_reads, file_setup, file_teardown),
		cmocka_unit_test_setup_teardown(test_writes, file_setup, file_teardown),
		cmocka_unit_test_setup_teardown(test_copy_spans, file_setup, file_teardown),
		cmocka_unit_test(test_remove_prot_none),
		cmocka_unit_test_setup_teardown(test_threads, file_setup, file_teardown),
	};
	const char *env = getenv("DC_TEST_SEED");
	int ret;

	seed_state = env ? strtoull(env, NULL, 0) : dci_now_ns();
	if (!seed_state)
		seed_state = 1;
	printf("# mmap_backend: DC_TEST_SEED=%llu\n",
	       (unsigned long long)seed_state);
	dc_thread_register();
	ret = cmocka_run_group_tests_name("mmap_backend", tests, NULL, NULL);
	dc_thread_unregister();
	return ret ? 1 : 0;
}
