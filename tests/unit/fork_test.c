// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fork_test.c - a process that uses libdaxcache forks without exec, the way
 * programs really start (a FUSE daemon daemonizes) and the way they spawn
 * helpers.  Uses only the installed headers, so that tests/run also builds
 * it against the installed library through pkg-config.
 *
 *   daemonize  the cache is created, the process forks and the parent
 *              exits; the child maps through it, the background reclaimer
 *              must run there, the child punches, puts and destroys.
 *   prepared   the library has run (its threads exist, RCU callbacks were
 *              queued) when the process forks between dc_before_fork() and
 *              dc_after_fork_parent()/_child(): both sides keep using the
 *              cache, and the reclaimer runs on both sides.
 *   unprepared the same fork without the three calls: the child gets
 *              -ECHILD from every entry point instead of hanging.
 *
 * Every wait is for a state (a statistics counter, a child's exit), with a
 * generous bound that only turns a hang into a failure.
 *
 *   fork-test [daemonize|prepared|unprepared]...   (default: all three)
 * Prints "fork-test: N passed, N failed" and exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <daxcache/daxcache.h>
#include <daxcache/mmap_backend.h>

#include "mmapbe_create.h"
#include "tmpfile.h"

#define RANGE_SHIFT	16			/* 64 KiB ranges */
#define RANGE		(1ull << RANGE_SHIFT)
#define NR_WINDOW	8			/* ranges in the window */
#define NR_FILE		64			/* ranges in the file */
#define INO		7
#define BOUND_S		120			/* turns a hang into a failure */

struct env {
	struct dc_mmapbe *be;
	struct dc_cache *cache;
	unsigned char *window;
	int fd;
};

static int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fork-test[%d]: %s:%d: %s: ", (int)getpid(),	\
			__FILE__, __LINE__, #cond);			\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		return -1;						\
	}								\
} while (0)

static unsigned char pattern(uint64_t off)
{
	return (unsigned char)(off * 131 + (off >> 16) * 7 + 1);
}

static int env_open(struct env *e, const char *dir)
{
	struct dc_cache_config cfg;
	unsigned char buf[4096];
	uint64_t off, i;

	e->fd = tmpfile_unlinked(dir, "fork-test");
	CHECK(e->fd >= 0, "temporary file in %s: %s", dir, strerror(errno));
	for (off = 0; off < NR_FILE * RANGE; off += sizeof(buf)) {
		for (i = 0; i < sizeof(buf); i++)
			buf[i] = pattern(off + i);
		CHECK(write(e->fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf), "write");
	}
	CHECK(mmapbe_create(NR_WINDOW * RANGE, RANGE_SHIFT, &e->be) == 0, "mmapbe");
	CHECK(dc_mmapbe_add_file(e->be, INO, e->fd) == 0, "add_file");
	dc_cache_config_init(&cfg, sizeof(cfg), NR_WINDOW * RANGE);
	cfg.range_shift = RANGE_SHIFT;
	/* Every miss maps (no admission control), so every miss can reclaim. */
	cfg.admit = DC_ADMIT_ALWAYS;
	CHECK(dc_cache_create(&cfg, sizeof(cfg), dc_mmapbe_ops(),
			      sizeof(struct dc_backend_ops), e->be, &e->cache) == 0,
	      "create");
	e->window = dc_mmapbe_window(e->be);
	return 0;
}

static void env_close(struct env *e)
{
	dc_cache_destroy(e->cache);
	dc_mmapbe_destroy(e->be);
	close(e->fd);
}

static void stats(struct dc_cache *c, struct dc_cache_stats *st)
{
	memset(st, 0, sizeof(*st));
	dc_cache_stats(c, st, sizeof(*st));
}

/*
 * Map ranges of the file (checking a byte of each) until none is free, then
 * wait for a free one: with no other thread mapping or punching, only the
 * background reclaimer can free one, so the wait ends only if it runs.
 */
static int map_all_and_reclaim(struct env *e)
{
	struct dc_cache_stats st0, st, st2;
	struct dc_inode *inode;
	struct dc_pin pin;
	time_t until;
	uint64_t r;
	int ret;

	CHECK(dc_inode_get(e->cache, INO, &inode) == 0, "inode_get");
	stats(e->cache, &st0);
	for (r = 0;; r++) {
		uint64_t off = (r % NR_FILE) * RANGE + r * 64 % RANGE;

		stats(e->cache, &st);
		if (r >= NR_FILE && !st.nr_free)
			break;
		ret = dc_map(inode, off, DC_MAP_READ, &pin);
		CHECK(ret == 0, "map range %llu: %d", (unsigned long long)r, ret);
		CHECK(e->window[pin.win_off] == pattern(off), "byte of range %llu",
		      (unsigned long long)r);
		dc_unpin(&pin);
	}
	ret = dc_wait_free(e->cache, (uint64_t)BOUND_S * 1000000000ull);
	CHECK(ret == 0, "no range came free: the background reclaimer never ran (%d)", ret);
	/*
	 * The reclaimer counts a range before it frees it, so the count taken
	 * when the window was full may already hold the reclaim whose free
	 * ended the wait: what must have moved is the count from before the
	 * first map.  (Whoever sees a range free sees it counted; the loop
	 * only covers a platform whose loads the free does not order.)
	 */
	until = time(NULL) + BOUND_S;
	do
		stats(e->cache, &st2);
	while (st2.bg_reclaims <= st0.bg_reclaims && time(NULL) < until && !usleep(1000));
	CHECK(st2.bg_reclaims > st0.bg_reclaims, "bg_reclaims stays %llu",
	      (unsigned long long)st2.bg_reclaims);
	/* Queues RCU callbacks (tree nodes), then waits for them. */
	CHECK(dc_inode_punch(inode, 0, NR_FILE * RANGE) == 0, "punch");
	dc_inode_put(inode);
	dc_barrier();
	return 0;
}

/* Wait for @pid; 0 if it exited 0.  A child that hangs is killed. */
static int reap(pid_t pid, const char *what)
{
	time_t until = time(NULL) + 2 * BOUND_S;
	int status;
	pid_t got;

	while ((got = waitpid(pid, &status, WNOHANG)) == 0 && time(NULL) < until)
		usleep(1000);
	if (got == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fprintf(stderr, "fork-test: %s: child hung; killed\n", what);
		return -1;
	}
	CHECK(got == pid, "waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s: child ended with status %#x", what, status);
	return 0;
}

static int test_daemonize(const char *dir)
{
	struct env e;
	pid_t pid;

	if (env_open(&e, dir))
		return -1;
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* As fuse_daemonize(): the child goes on with everything. */
		_exit(map_all_and_reclaim(&e) ? 1 : (env_close(&e), 0));
	}
	/* The parent of a daemonizing fork leaves without destroying. */
	return reap(pid, "daemonize");
}

static int test_prepared(const char *dir)
{
	struct env e;
	pid_t pid;
	int ret;

	if (env_open(&e, dir) || map_all_and_reclaim(&e))
		return -1;
	dc_before_fork();
	pid = fork();
	if (pid == 0) {
		dc_after_fork_child();
		_exit(map_all_and_reclaim(&e) ? 1 : (env_close(&e), 0));
	}
	dc_after_fork_parent();
	CHECK(pid > 0, "fork: %s", strerror(errno));
	ret = map_all_and_reclaim(&e);
	ret |= reap(pid, "prepared");
	env_close(&e);
	return ret;
}

/* In the child: everything must refuse with -ECHILD, quickly. */
static int unprepared_child(struct env *e)
{
	struct dc_inode *inode;
	struct dc_cache *c2;
	struct dc_cache_config cfg;
	int ret;

	ret = dc_inode_get(e->cache, INO, &inode);
	CHECK(ret == -ECHILD, "inode_get gave %d", ret);
	dc_cache_config_init(&cfg, sizeof(cfg), NR_WINDOW * RANGE);
	ret = dc_cache_create(&cfg, sizeof(cfg), dc_mmapbe_ops(),
			      sizeof(struct dc_backend_ops), e->be, &c2);
	CHECK(ret == -ECHILD, "cache_create gave %d", ret);
	ret = dc_thread_register();
	CHECK(ret == -ECHILD, "thread_register gave %d", ret);
	return 0;
}

static int test_unprepared(const char *dir)
{
	struct env e;
	struct dc_inode *inode;
	struct dc_pin pin;
	pid_t pid;
	int ret;

	if (env_open(&e, dir) || map_all_and_reclaim(&e))
		return -1;
	CHECK(dc_inode_get(e.cache, INO, &inode) == 0, "inode_get");
	/* Mapped just before: the child's map is a hit, refused all the same. */
	CHECK(dc_map(inode, 0, DC_MAP_READ, &pin) == 0, "map before the fork");
	dc_unpin(&pin);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		ret = dc_map(inode, 0, DC_MAP_READ, &pin);
		if (ret != -ECHILD) {
			fprintf(stderr, "fork-test: unprepared: dc_map gave %d\n", ret);
			_exit(1);
		}
		/* Leave without destroying: the child's state is not to be trusted. */
		_exit(unprepared_child(&e) ? 1 : 0);
	}
	ret = reap(pid, "unprepared");
	/* The parent is untouched. */
	ret |= dc_map(inode, 0, DC_MAP_READ, &pin);
	dc_unpin(&pin);
	dc_inode_put(inode);
	env_close(&e);
	return ret;
}

static const struct {
	const char *name;
	int (*fn)(const char *dir);
} tests[] = {
	{ "daemonize", test_daemonize },
	{ "prepared", test_prepared },
	{ "unprepared", test_unprepared },
};

static void quiet_log(void *priv, int level, const char *msg)
{
	(void)priv;
	(void)level;
	/* The -ECHILD refusals are expected: keep them, marked. */
	fprintf(stderr, "fork-test[%d]: library says: %s\n", (int)getpid(), msg);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int passed = 0, i, t, ran;

	dc_set_log_fn(quiet_log, NULL);
	dc_thread_register();
	for (t = 0; t < (int)(sizeof(tests) / sizeof(tests[0])); t++) {
		ran = argc < 2;
		for (i = 1; i < argc; i++)
			ran |= !strcmp(argv[i], tests[t].name);
		if (!ran)
			continue;
		if (tests[t].fn(dir)) {
			printf("not ok %s\n", tests[t].name);
			failures++;
		} else {
			printf("ok %s\n", tests[t].name);
			passed++;
		}
		fflush(stdout);
	}
	dc_thread_unregister();
	printf("fork-test: %d passed, %d failed\n", passed, failures);
	return failures ? 1 : 0;
}
