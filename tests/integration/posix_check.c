// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_check - POSIX (and Linux) conformance checks of a directory, for a
 * passthrough filesystem such as daxfs and for a plain directory (which
 * validates the checks themselves).
 *
 * Usage: posix_check DIR
 *
 * Every check runs in a child process, in a directory of its own under a
 * new DIR/pc.XXXXXX, and prints one line: "PASS name", "SKIP name: why" or
 * "FAIL name: line: what"; then "posix_check: P passed, F failed, S
 * skipped".  Exit 1 if a check failed, else 0.  The checks that need root
 * (ownership of files made by other users, devices, trusted.* xattrs) skip
 * without it.  xdev_ino needs DIR/xdev/a/f and DIR/xdev/b/f on two
 * filesystems (made by the driver, tests/integration/daxfs-posix) and skips
 * without them.  Nothing here waits for a time: a blocking call blocks
 * until the state it waits for, and the driver bounds the whole run.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#define SKIP	77
#define UID1	4321		/* ids with no passwd entry needed */
#define GID1	4321
#define GID2	4322
#define GID3	4323

static const char *cur;		/* the running check's name */

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		say_fail(__LINE__, __VA_ARGS__); \
		return 1; \
	} \
} while (0)

static void say_fail(int line, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	printf("FAIL %s: line %d: ", cur, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (errno %d %s)\n", err, strerror(err));
	fflush(stdout);
}

static int skip(const char *why)
{
	printf("SKIP %s: %s\n", cur, why);
	fflush(stdout);
	return SKIP;
}

/* r is -1 with errno @err */
static bool fails(long r, int err)
{
	return r == -1 && errno == err;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return (mode_t)-1;
	return st.st_mode;
}

static int put(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = write(fd, data, len);
	close(fd);
	return r == (ssize_t)len ? 0 : -1;
}

/* Become UID1/GID1 with @ngroups supplementary @groups (in a child). */
static int become_user(gid_t gid, int ngroups, const gid_t *groups)
{
	if (setgroups((size_t)ngroups, groups) || setgid(gid) || setuid(UID1))
		return -1;
	return 0;
}

/* Run @fn in a child and return its exit status (1 if it died). */
static int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		fflush(stdout);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* --- modes ------------------------------------------------------------- */

/*
 * One step of a mode check: under umask @umask, make @path (@op: 'f' a new
 * file, O_EXCL; 'g' a file, maybe there; 'd' a directory; 'p' a FIFO; 'c'
 * chmod) with @mode; its permission bits are then @want.
 */
struct mode_step {
	mode_t umask;
	char op;
	const char *path;
	mode_t mode;
	mode_t want;
};

static int mode_steps(const struct mode_step *st, size_t n)
{
	static const char *const what[] = {
		['f'] = "create", ['g'] = "create", ['d'] = "mkdir",
		['p'] = "mkfifo", ['c'] = "chmod",
	};
	size_t i;

	for (i = 0; i < n; i++) {
		const struct mode_step *s = &st[i];
		int fd, ret = -1;

		umask(s->umask);
		switch (s->op) {
		case 'f':
		case 'g':
			fd = open(s->path, O_WRONLY | O_CREAT | (s->op == 'f' ? O_EXCL : 0),
				  s->mode);
			ret = fd >= 0 ? 0 : -1;
			if (fd >= 0)
				close(fd);
			break;
		case 'd':
			ret = mkdir(s->path, s->mode);
			break;
		case 'p':
			ret = mkfifo(s->path, s->mode);
			break;
		case 'c':
			ret = chmod(s->path, s->mode);
			break;
		}
		CHECK(!ret, "%s %s %o (umask %o)", what[(int)s->op], s->path,
		      s->mode, s->umask);
		CHECK((mode_of(s->path) & 07777) == s->want,
		      "%s mode %o after %s %o (umask %o), want %o", s->path,
		      mode_of(s->path) & 07777, what[(int)s->op], s->mode, s->umask,
		      s->want);
	}
	return 0;
}

static int check_mode_umask0(void)
{
	static const struct mode_step steps[] = {
		{ 0, 'f', "f", 0666, 0666 },
		{ 0, 'g', "g", 0640, 0640 },
		{ 0, 'd', "d", 0777, 0777 },
		{ 0, 'd', "t", 01777, 01777 },
		{ 0, 'p', "p", 0666, 0666 },
		{ 0, 'c', "f", 0751, 0751 },
		{ 0, 'c', "f", 0, 0 },
	};

	return mode_steps(steps, sizeof(steps) / sizeof(steps[0]));
}

static int check_mode_umask022(void)
{
	static const struct mode_step steps[] = {
		{ 022, 'f', "f", 0666, 0644 },
		{ 022, 'd', "d", 0777, 0755 },
		{ 022, 'p', "p", 0666, 0644 },
		{ 077, 'f', "g", 0666, 0600 },
	};

	return mode_steps(steps, sizeof(steps) / sizeof(steps[0]));
}

/* --- ownership (root) ----------------------------------------------------- */

static int owned(const char *path, uid_t uid, gid_t gid)
{
	struct stat st;

	if (lstat(path, &st))
		return 0;
	return st.st_uid == uid && st.st_gid == gid;
}

static int make_as_user(void *arg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	(void)arg;
	CHECK(!become_user(GID1, 0, NULL), "become %d", UID1);
	fd = open("u/f", O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0, "create u/f");
	close(fd);
	CHECK(!mkdir("u/d", 0755), "mkdir u/d");
	CHECK(!mkfifo("u/p", 0644), "mkfifo u/p");
	CHECK(!symlink("f", "u/l"), "symlink u/l");
	CHECK(!mknod("u/n", S_IFREG | 0644, 0), "mknod u/n");
	strcpy(sa.sun_path, "u/s");
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(fd >= 0 && !bind(fd, (struct sockaddr *)&sa, sizeof(sa)), "bind u/s");
	close(fd);
	/* Not owner: no chown to another user, no chmod of root's file. */
	CHECK(fails(chown("u/f", 0, 0), EPERM), "chown u/f to root as user");
	CHECK(fails(chmod("rootfile", 0777), EPERM), "chmod rootfile as user");
	CHECK(fails(access("rootfile", W_OK), EACCES), "access(W_OK) of rootfile as user");
	CHECK(fails(open("rootfile", O_WRONLY), EACCES), "open rootfile for writing as user");
	CHECK(fails(mknod("u/c", S_IFCHR | 0644, makedev(1, 3)), EPERM), "mknod chr as user");
	return 0;
}

static int check_owner(void)
{
	static const char *names[] = { "u/f", "u/d", "u/p", "u/l", "u/n", "u/s" };
	unsigned int i;
	int r;

	if (geteuid())
		return skip("not root");
	CHECK(!mkdir("u", 0777) && !chmod("u", 01777), "mkdir u");
	CHECK(!put("rootfile", "x", 1), "rootfile");
	r = in_child(make_as_user, NULL);
	CHECK(r == 0, "the user's child failed (%d)", r);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK(owned(names[i], UID1, GID1), "%s not owned by %d:%d", names[i], UID1, GID1);
	CHECK(owned("rootfile", 0, 0), "rootfile owner");
	/* root chowns: the file and (lchown) a symlink itself */
	CHECK(!chown("u/f", UID1 + 1, GID2), "chown u/f");
	CHECK(owned("u/f", UID1 + 1, GID2), "u/f owner after chown");
	CHECK(!lchown("u/l", 0, GID2), "lchown u/l");
	CHECK(owned("u/l", 0, GID2), "u/l owner after lchown");
	CHECK(owned("u/f", UID1 + 1, GID2), "lchown u/l changed its target");
	return 0;
}

/*
 * As UID1: @arg NULL without GID2 (refused), 1 with GID2 alone, 2 with GID2
 * the last of 100 supplementary groups (more than a caller usually has).
 */
static int make_with_group(void *arg)
{
	gid_t g[100];
	int fd, i, n = arg ? (arg == (void *)2 ? 100 : 1) : 0;

	for (i = 0; i < 99; i++)
		g[i] = 5000 + (gid_t)i;
	g[n ? n - 1 : 0] = GID2;
	CHECK(!become_user(GID1, n, g), "become %d", UID1);
	if (n == 100) {
		fd = open("g/many", O_WRONLY | O_CREAT | O_EXCL, 0644);
		CHECK(fd >= 0, "create g/many through the 100th group");
		close(fd);
		return 0;
	}
	fd = open("g/f", O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (!arg) {
		CHECK(fd < 0 && errno == EACCES, "create in a 0770 dir of another group");
		return 0;
	}
	CHECK(fd >= 0, "create g/f through a supplementary group");
	close(fd);
	CHECK(!mkdir("s/d", 0755), "mkdir s/d");
	fd = open("s/f", O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0, "create s/f");
	close(fd);
	return 0;
}

/* Supplementary groups grant access; a setgid directory passes its group. */
static int check_owner_groups(void)
{
	struct stat st;
	int r;

	if (geteuid())
		return skip("not root");
	CHECK(!mkdir("g", 0770) && !chown("g", 0, GID2) && !chmod("g", 0770), "mkdir g");
	CHECK(!mkdir("s", 0777) && !chown("s", 0, GID3) && !chmod("s", 02777), "mkdir s");
	r = in_child(make_with_group, NULL);
	CHECK(r == 0, "the child without the group failed (%d)", r);
	r = in_child(make_with_group, (void *)1);
	CHECK(r == 0, "the child with the group failed (%d)", r);
	r = in_child(make_with_group, (void *)2);
	CHECK(r == 0, "the child with 100 groups failed (%d)", r);
	CHECK(owned("g/many", UID1, GID1), "g/many owner");
	CHECK(owned("g/f", UID1, GID1), "g/f owner");
	CHECK(owned("s/f", UID1, GID3), "s/f: not the setgid directory's group");
	CHECK(!stat("s/d", &st) && st.st_gid == GID3 && (st.st_mode & S_ISGID),
	      "s/d: gid %d mode %o, want %d and setgid", (int)st.st_gid, st.st_mode, GID3);
	return 0;
}

/* --- links, rename ---------------------------------------------------------- */

static int check_link_count(void)
{
	struct stat a, b, d;
	char buf[8];
	int fd;

	CHECK(!put("a", "hello", 5), "a");
	CHECK(!lstat("a", &a) && a.st_nlink == 1, "a nlink %d", (int)a.st_nlink);
	CHECK(!link("a", "b"), "link a b");
	CHECK(!lstat("a", &a) && !lstat("b", &b), "stat a, b");
	CHECK(a.st_nlink == 2 && b.st_nlink == 2, "nlink %d %d, want 2", (int)a.st_nlink,
	      (int)b.st_nlink);
	CHECK(a.st_ino == b.st_ino && a.st_dev == b.st_dev, "a and b differ in st_ino");
	CHECK(fails(link("a", "b"), EEXIST), "link over an existing name");
	CHECK(!unlink("a"), "unlink a");
	CHECK(!lstat("b", &b) && b.st_nlink == 1, "b nlink %d after unlink", (int)b.st_nlink);
	fd = open("b", O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, 8) == 5 && !memcmp(buf, "hello", 5), "read b");
	CHECK(!unlink("b"), "unlink b");
	CHECK(!fstat(fd, &b) && b.st_nlink == 0, "open unlinked file: nlink %d",
	      (int)b.st_nlink);
	close(fd);
	/* a hard link to a symlink is a symlink */
	CHECK(!symlink("target", "l") && !link("l", "l2"), "link of a symlink");
	CHECK(!lstat("l", &a) && !lstat("l2", &b) && S_ISLNK(b.st_mode) &&
	      a.st_ino == b.st_ino && b.st_nlink == 2, "l2 is not l");
	/* directories: 2 + subdirectories, no hard links */
	CHECK(!mkdir("d", 0755), "mkdir d");
	CHECK(!stat("d", &d) && d.st_nlink == 2, "d nlink %d, want 2", (int)d.st_nlink);
	CHECK(!mkdir("d/s", 0755) && !mkdir("d/t", 0755), "mkdir d/s d/t");
	CHECK(!stat("d", &d) && d.st_nlink == 4, "d nlink %d, want 4", (int)d.st_nlink);
	CHECK(!rmdir("d/s"), "rmdir d/s");
	CHECK(!stat("d", &d) && d.st_nlink == 3, "d nlink %d, want 3", (int)d.st_nlink);
	CHECK(fails(link("d", "d2"), EPERM), "link of a directory");
	return 0;
}

static int read_is(const char *path, const char *want)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, (size_t)n);
}

static int check_rename_file(void)
{
	struct stat st;
	int fd;

	CHECK(!put("a", "AAA", 3) && !put("b", "BB", 2), "a, b");
	fd = open("b", O_RDONLY);
	CHECK(fd >= 0, "open b");
	CHECK(!rename("a", "b"), "rename a over b");
	CHECK(fails(access("a", F_OK), ENOENT), "a still there");
	CHECK(read_is("b", "AAA"), "b is not a's content");
	CHECK(!fstat(fd, &st) && st.st_nlink == 0, "replaced b: nlink %d", (int)st.st_nlink);
	{
		char buf[4];

		CHECK(pread(fd, buf, 4, 0) == 2 && !memcmp(buf, "BB", 2), "replaced b's data");
	}
	close(fd);
	CHECK(!rename("b", "b"), "rename to itself");
	CHECK(read_is("b", "AAA"), "b after rename to itself");
	CHECK(!put("c", "C", 1), "c");
	CHECK(fails(renameat2(AT_FDCWD, "b", AT_FDCWD, "c", RENAME_NOREPLACE), EEXIST),
	      "RENAME_NOREPLACE over c");
	CHECK(!renameat2(AT_FDCWD, "b", AT_FDCWD, "c", RENAME_EXCHANGE), "RENAME_EXCHANGE");
	CHECK(read_is("b", "C") && read_is("c", "AAA"), "exchanged contents");
	CHECK(!renameat2(AT_FDCWD, "c", AT_FDCWD, "n", RENAME_NOREPLACE), "NOREPLACE to new");
	CHECK(read_is("n", "AAA"), "n");
	return 0;
}

static int check_rename_dir(void)
{
	struct stat p1, p2, d, up;

	CHECK(!mkdir("p1", 0755) && !mkdir("p2", 0755) && !mkdir("p1/d", 0755), "dirs");
	CHECK(!put("p1/d/x", "x", 1), "p1/d/x");
	CHECK(!mkdir("p2/empty", 0755), "p2/empty");
	CHECK(!rename("p1/d", "p2/empty"), "rename a directory over an empty one");
	CHECK(read_is("p2/empty/x", "x"), "moved directory's content");
	CHECK(!stat("p1", &p1) && !stat("p2", &p2), "stat p1 p2");
	CHECK(p1.st_nlink == 2 && p2.st_nlink == 3, "nlink p1 %d p2 %d, want 2 3",
	      (int)p1.st_nlink, (int)p2.st_nlink);
	CHECK(!stat("p2/empty/..", &up) && up.st_ino == p2.st_ino, "moved directory's ..");
	CHECK(!mkdir("full", 0755) && !put("full/y", "y", 1), "full");
	{
		int r = rename("p2/empty", "full");

		CHECK(r == -1 && (errno == ENOTEMPTY || errno == EEXIST),
		      "rename over a non-empty directory");
	}
	CHECK(!put("f", "f", 1), "f");
	CHECK(fails(rename("f", "full"), EISDIR), "rename a file over a directory");
	CHECK(fails(rename("full", "f"), ENOTDIR), "rename a directory over a file");
	CHECK(fails(rename("p2", "p2/empty/sub"), EINVAL), "rename into itself");
	CHECK(!renameat2(AT_FDCWD, "f", AT_FDCWD, "full", RENAME_EXCHANGE),
	      "RENAME_EXCHANGE of a file and a directory");
	CHECK(!stat("f", &d) && S_ISDIR(d.st_mode) && read_is("f/y", "y"), "f is the dir now");
	CHECK(read_is("full", "f"), "full is the file now");
	return 0;
}

/* --- symlinks ------------------------------------------------------------------- */

static int check_symlink(void)
{
	char buf[PATH_MAX + 1], *longt;
	struct stat st, tst;
	ssize_t n;
	int fd;

	CHECK(!put("target", "data", 4), "target");
	CHECK(!symlink("target", "l"), "symlink");
	n = readlink("l", buf, sizeof(buf));
	CHECK(n == 6 && !memcmp(buf, "target", 6), "readlink");
	CHECK(!lstat("l", &st) && S_ISLNK(st.st_mode) && st.st_size == 6, "lstat l");
	CHECK(!stat("l", &st) && !stat("target", &tst) && st.st_ino == tst.st_ino,
	      "stat follows l");
	CHECK(read_is("l", "data"), "read through l");
	CHECK(fails(open("l", O_RDONLY | O_NOFOLLOW), ELOOP), "O_NOFOLLOW on a symlink");
	fd = open("l", O_PATH | O_NOFOLLOW);
	CHECK(fd >= 0, "O_PATH|O_NOFOLLOW of a symlink");
	close(fd);
	CHECK(fails(symlink("x", "l"), EEXIST), "symlink over an existing name");
	CHECK(fails(readlink("target", buf, sizeof(buf)), EINVAL), "readlink of a file");
	CHECK(!symlink("nowhere", "dangling"), "dangling");
	CHECK(fails(stat("dangling", &st), ENOENT), "stat of a dangling link");
	CHECK(!mkdir("dir", 0755) && !put("dir/in", "in", 2) && !symlink("dir", "ld"), "ld");
	CHECK(read_is("ld/in", "in"), "through a link to a directory");
	CHECK(!symlink("../target", "dir/up"), "dir/up");
	CHECK(read_is("ld/up", "data"), "relative link through a linked directory");
	longt = malloc(4001);
	CHECK(longt != NULL, "malloc");
	memset(longt, 'x', 4000);
	longt[4000] = '\0';
	CHECK(!symlink(longt, "long"), "symlink of 4000 bytes");
	n = readlink("long", buf, sizeof(buf));
	CHECK(n == 4000 && !memcmp(buf, longt, 4000), "readlink of 4000 bytes: %zd", n);
	n = readlink("long", buf, 10);
	CHECK(n == 10 && !memcmp(buf, longt, 10), "short readlink buffer: %zd", n);
	free(longt);
	return 0;
}

static int check_symlink_loop(void)
{
	struct stat st;
	char name[16], next[16];
	int i;

	CHECK(!symlink("b", "a") && !symlink("a", "b"), "a <-> b");
	CHECK(fails(open("a", O_RDONLY), ELOOP), "open of a loop");
	CHECK(fails(stat("b", &st), ELOOP), "stat of a loop");
	CHECK(!lstat("a", &st) && S_ISLNK(st.st_mode), "lstat of a loop");
	CHECK(!symlink("self", "self"), "self");
	CHECK(fails(stat("self", &st), ELOOP), "stat of a self link");
	CHECK(fails(open("self/x", O_RDONLY), ELOOP), "a loop inside a path");
	CHECK(fails(open("a", O_WRONLY | O_CREAT, 0644), ELOOP), "O_CREAT through a loop");
	/* a chain of 8 links resolves */
	CHECK(!put("end", "end", 3), "end");
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		if (i == 7)
			snprintf(next, sizeof(next), "end");
		else
			snprintf(next, sizeof(next), "c%d", i + 1);
		CHECK(!symlink(next, name), "symlink %s", name);
	}
	CHECK(read_is("c0", "end"), "a chain of 8 links");
	return 0;
}

/* --- FIFOs, devices, sockets ------------------------------------------------------ */

static int fifo_writer(void *arg)
{
	int fd = open("p", O_WRONLY);	/* blocks until the reader opens */

	(void)arg;
	if (fd < 0 || write(fd, "hello", 5) != 5)
		return 1;
	close(fd);
	return 0;
}

static int check_fifo(void)
{
	struct stat st;
	char buf[8];
	int r, w, status;
	pid_t pid;

	CHECK(!mkfifo("p", 0644), "mkfifo");
	CHECK(!stat("p", &st) && S_ISFIFO(st.st_mode) && st.st_size == 0, "stat p");
	CHECK(fails(open("p", O_WRONLY | O_NONBLOCK), ENXIO), "writer without a reader");
	r = open("p", O_RDONLY | O_NONBLOCK);
	CHECK(r >= 0, "nonblocking reader");
	CHECK(fails(read(r, buf, 1), EAGAIN) || read(r, buf, 1) == 0,
	      "read of an empty FIFO without writers");
	w = open("p", O_WRONLY | O_NONBLOCK);
	CHECK(w >= 0, "nonblocking writer with a reader");
	CHECK(write(w, "abc", 3) == 3, "write");
	CHECK(read(r, buf, sizeof(buf)) == 3 && !memcmp(buf, "abc", 3), "read");
	CHECK(fails(read(r, buf, 1), EAGAIN), "read of an empty FIFO with a writer");
	close(w);
	CHECK(read(r, buf, 1) == 0, "EOF once the writer closed");
	close(r);
	w = open("p", O_RDWR | O_NONBLOCK);
	CHECK(w >= 0, "O_RDWR open");
	close(w);
	/* blocking opens meet: the writer blocks until this reader opens */
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid)
		_exit(fifo_writer(NULL));
	r = open("p", O_RDONLY);
	CHECK(r >= 0, "blocking reader");
	CHECK(read(r, buf, 5) == 5 && !memcmp(buf, "hello", 5), "blocking read");
	close(r);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	      "writer child");
	return 0;
}

static int check_mknod_chr(void)
{
	struct statvfs sv;
	struct stat st;
	char buf[4];
	int fd;

	if (geteuid())
		return skip("not root");
	umask(0);
	CHECK(!mknod("null", S_IFCHR | 0666, makedev(1, 3)), "mknod c 1 3");
	CHECK(!stat("null", &st) && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3) &&
	      (st.st_mode & 07777) == 0666, "stat null");
	CHECK(!mknod("r", S_IFREG | 0600, 0) && S_ISREG(mode_of("r")), "mknod of a file");
	CHECK(!statvfs(".", &sv), "statvfs");
	fd = open("null", O_RDWR);
	if (sv.f_flag & ST_NODEV) {
		CHECK(fd < 0 && errno == EACCES, "open of a device on a nodev mount");
		return 0;
	}
	CHECK(fd >= 0, "open null");
	CHECK(write(fd, "xyz", 3) == 3, "write to null");
	CHECK(read(fd, buf, sizeof(buf)) == 0, "read of null");
	close(fd);
	return 0;
}

static int check_mknod_blk(void)
{
	struct stat st;

	if (geteuid())
		return skip("not root");
	CHECK(!mknod("loop", S_IFBLK | 0600, makedev(7, 200)), "mknod b 7 200");
	CHECK(!stat("loop", &st) && S_ISBLK(st.st_mode) && st.st_rdev == makedev(7, 200) &&
	      (st.st_mode & 07777) == 0600, "stat loop");
	CHECK(!unlink("loop"), "unlink");
	return 0;
}

static int check_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	char buf[8];
	int s, c, a;

	strcpy(sa.sun_path, "sock");
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(s >= 0 && !bind(s, (struct sockaddr *)&sa, sizeof(sa)), "bind");
	CHECK(!listen(s, 1), "listen");
	CHECK(!lstat("sock", &st) && S_ISSOCK(st.st_mode), "stat sock");
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(c >= 0 && !connect(c, (struct sockaddr *)&sa, sizeof(sa)), "connect");
	a = accept(s, NULL, NULL);
	CHECK(a >= 0, "accept");
	CHECK(write(c, "ping", 4) == 4 && read(a, buf, 4) == 4 && !memcmp(buf, "ping", 4),
	      "data over the socket");
	close(a);
	close(c);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(fails(bind(c, (struct sockaddr *)&sa, sizeof(sa)), EADDRINUSE), "bind again");
	close(c);
	close(s);
	CHECK(!unlink("sock"), "unlink sock");
	CHECK(!mknod("node", S_IFSOCK | 0644, 0), "mknod of a socket");
	CHECK(!lstat("node", &st) && S_ISSOCK(st.st_mode), "stat node");
	return 0;
}

/* --- xattrs ---------------------------------------------------------------------------- */

static bool has_name(const char *list, ssize_t len, const char *name)
{
	ssize_t i = 0;

	while (i < len) {
		if (!strcmp(list + i, name))
			return true;
		i += (ssize_t)strlen(list + i) + 1;
	}
	return false;
}

static int check_xattr(void)
{
	char buf[256];
	ssize_t n;

	CHECK(!put("f", "f", 1) && !mkdir("d", 0755), "f, d");
	if (setxattr("f", "user.a", "one", 3, 0)) {
		if (errno == EOPNOTSUPP)
			return skip("no user xattrs here");
		CHECK(0, "setxattr user.a");
	}
	CHECK(getxattr("f", "user.a", NULL, 0) == 3, "size of user.a");
	n = getxattr("f", "user.a", buf, sizeof(buf));
	CHECK(n == 3 && !memcmp(buf, "one", 3), "value of user.a");
	CHECK(fails(getxattr("f", "user.a", buf, 1), ERANGE), "small buffer");
	CHECK(fails(setxattr("f", "user.a", "x", 1, XATTR_CREATE), EEXIST), "XATTR_CREATE");
	CHECK(fails(setxattr("f", "user.b", "x", 1, XATTR_REPLACE), ENODATA), "XATTR_REPLACE");
	CHECK(!setxattr("f", "user.a", "two!", 4, XATTR_REPLACE), "replace user.a");
	CHECK(!setxattr("f", "user.b", "", 0, XATTR_CREATE), "empty user.b");
	CHECK(getxattr("f", "user.b", buf, sizeof(buf)) == 0, "empty value");
	n = listxattr("f", NULL, 0);
	CHECK(n > 0, "size of the list");
	n = listxattr("f", buf, sizeof(buf));
	CHECK(n > 0 && has_name(buf, n, "user.a") && has_name(buf, n, "user.b"), "list");
	CHECK(!removexattr("f", "user.a"), "remove user.a");
	CHECK(fails(getxattr("f", "user.a", buf, sizeof(buf)), ENODATA), "removed user.a");
	CHECK(fails(removexattr("f", "user.a"), ENODATA), "remove again");
	n = listxattr("f", buf, sizeof(buf));
	CHECK(n > 0 && !has_name(buf, n, "user.a") && has_name(buf, n, "user.b"), "list after");
	CHECK(!setxattr("d", "user.dir", "D", 1, 0), "xattr on a directory");
	CHECK(getxattr("d", "user.dir", buf, sizeof(buf)) == 1 && buf[0] == 'D', "dir value");
	CHECK(!symlink("f", "l"), "symlink");
	CHECK(fails(lsetxattr("l", "user.l", "x", 1, 0), EPERM), "user xattr on a symlink");
	CHECK(!setxattr("l", "user.via", "v", 1, 0), "setxattr through a symlink");
	CHECK(getxattr("f", "user.via", buf, sizeof(buf)) == 1, "it is on the target");
	return 0;
}

/* trusted.* (root) on a symlink itself, not on its target */
static int check_xattr_symlink(void)
{
	char buf[16];

	if (geteuid())
		return skip("not root");
	CHECK(!put("f", "f", 1) && !symlink("f", "l"), "f, l");
	if (lsetxattr("l", "trusted.t", "tt", 2, 0)) {
		if (errno == EOPNOTSUPP)
			return skip("no trusted xattrs on symlinks here");
		CHECK(0, "lsetxattr trusted.t");
	}
	CHECK(lgetxattr("l", "trusted.t", buf, sizeof(buf)) == 2 && !memcmp(buf, "tt", 2),
	      "lgetxattr");
	CHECK(fails(getxattr("f", "trusted.t", buf, sizeof(buf)), ENODATA),
	      "the target got the link's xattr");
	CHECK(llistxattr("l", buf, sizeof(buf)) == 10 && !strcmp(buf, "trusted.t"),
	      "llistxattr");
	CHECK(!lremovexattr("l", "trusted.t"), "lremovexattr");
	CHECK(fails(lgetxattr("l", "trusted.t", buf, sizeof(buf)), ENODATA), "removed");
	return 0;
}

/* --- fallocate, copy_file_range ----------------------------------------------------------- */

#define MIB	(1 << 20)

static void pattern(char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (char)((i * 131 + seed * 7 + (i >> 12)) & 0xff);
}

static bool all_zero(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i])
			return false;
	return true;
}

static int check_fallocate(void)
{
	char *want = malloc(4 * MIB), *got = malloc(4 * MIB);
	struct stat st;
	blkcnt_t blocks;
	int fd;

	CHECK(want && got, "malloc");
	fd = open("f", O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0, "create f");
	if (fallocate(fd, 0, 0, MIB)) {
		if (errno == EOPNOTSUPP)
			return skip("no fallocate here");
		CHECK(0, "fallocate 1 MiB");
	}
	CHECK(!fstat(fd, &st) && st.st_size == MIB && st.st_blocks * 512 >= MIB,
	      "after fallocate: size %lld blocks %lld", (long long)st.st_size,
	      (long long)st.st_blocks);
	CHECK(pread(fd, got, MIB, 0) == MIB && all_zero(got, MIB), "allocated range reads 0");
	blocks = st.st_blocks;
	CHECK(!fallocate(fd, FALLOC_FL_KEEP_SIZE, MIB, MIB), "KEEP_SIZE past EOF");
	CHECK(!fstat(fd, &st) && st.st_size == MIB && st.st_blocks > blocks,
	      "KEEP_SIZE: size %lld blocks %lld (were %lld)", (long long)st.st_size,
	      (long long)st.st_blocks, (long long)blocks);
	CHECK(!posix_fallocate(fd, 0, 2 * MIB), "posix_fallocate");
	CHECK(!fstat(fd, &st) && st.st_size == 2 * MIB, "size after posix_fallocate");
	/* data, then a hole punched in its middle */
	pattern(want, 4 * MIB, 1);
	CHECK(pwrite(fd, want, 4 * MIB, 0) == 4 * MIB, "write 4 MiB");
	CHECK(pread(fd, got, 4 * MIB, 0) == 4 * MIB && !memcmp(got, want, 4 * MIB), "read back");
	CHECK(!fstat(fd, &st), "fstat");
	blocks = st.st_blocks;
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, MIB, 2 * MIB)) {
		if (errno == EOPNOTSUPP)
			return skip("no hole punching here");
		CHECK(0, "PUNCH_HOLE");
	}
	memset(want + MIB, 0, 2 * MIB);
	CHECK(!fstat(fd, &st) && st.st_size == 4 * MIB && st.st_blocks < blocks,
	      "after PUNCH_HOLE: size %lld blocks %lld (were %lld)", (long long)st.st_size,
	      (long long)st.st_blocks, (long long)blocks);
	CHECK(pread(fd, got, 4 * MIB, 0) == 4 * MIB && !memcmp(got, want, 4 * MIB),
	      "data after PUNCH_HOLE");
	close(fd);
	/* and through a fresh open (a new window mapping in daxfs) */
	fd = open("f", O_RDONLY);
	CHECK(fd >= 0 && pread(fd, got, 4 * MIB, 0) == 4 * MIB && !memcmp(got, want, 4 * MIB),
	      "data after reopening");
	close(fd);
	free(want);
	free(got);
	return 0;
}

static int copy_all(int in, off_t off_in, int out, off_t off_out, size_t len)
{
	while (len) {
		ssize_t n = copy_file_range(in, &off_in, out, &off_out, len, 0);

		if (n <= 0)
			return -1;
		len -= (size_t)n;
	}
	return 0;
}

static int check_copy_file_range(void)
{
	char *want = malloc(3 * MIB), *got = malloc(3 * MIB);
	off_t oi = 0, oo = 0;
	struct stat st;
	int a, b;

	CHECK(want && got, "malloc");
	pattern(want, 3 * MIB, 2);
	CHECK(!put("a", want, 3 * MIB), "a");
	a = open("a", O_RDWR);
	b = open("b", O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(a >= 0 && b >= 0, "open a, b");
	CHECK(!copy_all(a, 4096, b, 8192, 2 * MIB), "copy 2 MiB");
	CHECK(!fstat(b, &st) && st.st_size == 8192 + 2 * MIB, "b size %lld",
	      (long long)st.st_size);
	CHECK(pread(b, got, 8192 + 2 * MIB, 0) == 8192 + 2 * MIB, "read b");
	CHECK(all_zero(got, 8192) && !memcmp(got + 8192, want + 4096, 2 * MIB), "b's data");
	/* within one file, not overlapping */
	CHECK(!copy_all(a, 0, a, 2 * MIB, 4096), "copy within a");
	memcpy(want + 2 * MIB, want, 4096);
	CHECK(pread(a, got, 3 * MIB, 0) == 3 * MIB && !memcmp(got, want, 3 * MIB), "a's data");
	/* past the end of the input: 0 */
	oi = 3 * MIB;
	oo = 0;
	CHECK(copy_file_range(a, &oi, b, &oo, 4096, 0) == 0, "copy from EOF");
	oi = 0;
	CHECK(fails(copy_file_range(a, &oi, b, &oo, 4096, 1), EINVAL), "bad flags");
	close(a);
	close(b);
	/* and a fresh open sees the copy */
	b = open("b", O_RDONLY);
	CHECK(b >= 0 && pread(b, got, 2 * MIB, 8192) == 2 * MIB &&
	      !memcmp(got, want + 4096, 2 * MIB), "b after reopening");
	close(b);
	free(want);
	free(got);
	return 0;
}

/* --- locks ------------------------------------------------------------------------------------- */

static int setlk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };

	return fcntl(fd, cmd, &fl);
}

static int lock_child(void *arg)
{
	int fd = open("f", O_RDWR);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 50, .l_len = 10 };
	int r;

	CHECK(fd >= 0, "child open");
	r = setlk(fd, F_SETLK, F_WRLCK, 50, 10);
	CHECK(r == -1 && (errno == EAGAIN || errno == EACCES), "conflicting F_SETLK");
	CHECK(!fcntl(fd, F_GETLK, &fl), "F_GETLK");
	CHECK(fl.l_type == F_WRLCK && fl.l_pid == *(pid_t *)arg && fl.l_start == 0 &&
	      fl.l_len == 100, "F_GETLK: type %d pid %d start %lld len %lld", fl.l_type,
	      (int)fl.l_pid, (long long)fl.l_start, (long long)fl.l_len);
	CHECK(!setlk(fd, F_SETLK, F_WRLCK, 100, 100), "lock of another range");
	CHECK(!setlk(fd, F_SETLK, F_UNLCK, 100, 100), "unlock");
	r = setlk(fd, F_SETLK, F_RDLCK, 200, 10);
	CHECK(r == -1 && (errno == EAGAIN || errno == EACCES), "read lock vs a write lock");
	r = flock(fd, LOCK_EX | LOCK_NB);
	CHECK(!r, "flock beside a POSIX lock");
	return 0;
}

static int lock_child_free(void *arg)
{
	int fd = open("f", O_RDWR);

	(void)arg;
	CHECK(fd >= 0, "child open");
	CHECK(!setlk(fd, F_SETLK, F_WRLCK, 0, 100), "lock once released");
	return 0;
}

static int lock_child_shared(void *arg)
{
	int fd = open("f", O_RDWR), r;

	(void)arg;
	CHECK(fd >= 0, "child open");
	CHECK(!setlk(fd, F_SETLK, F_RDLCK, 0, 0), "shared read lock");
	r = setlk(fd, F_SETLK, F_WRLCK, 0, 0);
	CHECK(r == -1 && (errno == EAGAIN || errno == EACCES), "write lock vs a read lock");
	return 0;
}

static int check_lock_fcntl(void)
{
	pid_t me = getpid(), pid;
	int fd, fd2, p[2], status, r;
	char c;

	CHECK(!put("f", "0123456789", 10), "f");
	fd = open("f", O_RDWR);
	CHECK(fd >= 0, "open");
	CHECK(!setlk(fd, F_SETLK, F_WRLCK, 0, 100), "F_SETLK");
	CHECK(!setlk(fd, F_SETLK, F_WRLCK, 200, 10), "F_SETLK 200");
	r = in_child(lock_child, &me);
	CHECK(r == 0, "lock child (%d)", r);
	/* Closing any descriptor of the file drops the process's locks. */
	fd2 = open("f", O_RDONLY);
	CHECK(fd2 >= 0, "second open");
	close(fd2);
	r = in_child(lock_child_free, NULL);
	CHECK(r == 0, "locks not released by close (%d)", r);
	CHECK(!setlk(fd, F_SETLK, F_RDLCK, 0, 0), "read lock");
	r = in_child(lock_child_shared, NULL);
	CHECK(r == 0, "shared child (%d)", r);
	/* F_SETLKW waits until the holder unlocks. */
	CHECK(!setlk(fd, F_SETLK, F_WRLCK, 0, 0), "write lock");
	CHECK(!pipe(p), "pipe");
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		int cfd = open("f", O_RDWR);

		close(p[0]);
		if (cfd < 0 || write(p[1], "w", 1) != 1)
			_exit(1);
		if (setlk(cfd, F_SETLKW, F_WRLCK, 0, 0))
			_exit(2);
		_exit(write(p[1], "g", 1) == 1 ? 0 : 3);
	}
	close(p[1]);
	CHECK(read(p[0], &c, 1) == 1 && c == 'w', "child started");
	CHECK(!setlk(fd, F_SETLK, F_UNLCK, 0, 0), "unlock");
	CHECK(read(p[0], &c, 1) == 1 && c == 'g', "child got the lock");
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	      "F_SETLKW child");
	close(p[0]);
	/* OFD locks: two open files of one process conflict. */
	fd2 = open("f", O_RDWR);
	CHECK(fd2 >= 0, "open for OFD");
	CHECK(!setlk(fd, F_OFD_SETLK, F_WRLCK, 0, 10), "OFD lock");
	r = setlk(fd2, F_OFD_SETLK, F_WRLCK, 5, 10);
	CHECK(r == -1 && (errno == EAGAIN || errno == EACCES), "OFD conflict");
	CHECK(!setlk(fd, F_OFD_SETLK, F_UNLCK, 0, 10), "OFD unlock");
	CHECK(!setlk(fd2, F_OFD_SETLK, F_WRLCK, 5, 10), "OFD lock once free");
	close(fd2);
	close(fd);
	return 0;
}

static int flock_child(void *arg)
{
	int fd = open("f", O_RDWR);

	CHECK(fd >= 0, "child open");
	if (arg) {
		CHECK(!flock(fd, LOCK_EX | LOCK_NB), "flock once released");
		return 0;
	}
	CHECK(fails(flock(fd, LOCK_EX | LOCK_NB), EWOULDBLOCK), "conflicting flock");
	CHECK(fails(flock(fd, LOCK_SH | LOCK_NB), EWOULDBLOCK), "shared vs exclusive");
	return 0;
}

static int check_lock_flock(void)
{
	int fd, fd2, dup_fd, r;

	CHECK(!put("f", "x", 1), "f");
	fd = open("f", O_RDWR);
	fd2 = open("f", O_RDWR);
	CHECK(fd >= 0 && fd2 >= 0, "open");
	CHECK(!flock(fd, LOCK_EX | LOCK_NB), "LOCK_EX");
	CHECK(fails(flock(fd2, LOCK_EX | LOCK_NB), EWOULDBLOCK), "second open file");
	dup_fd = dup(fd);
	CHECK(dup_fd >= 0 && !flock(dup_fd, LOCK_EX | LOCK_NB), "a dup shares the lock");
	r = in_child(flock_child, NULL);
	CHECK(r == 0, "flock child (%d)", r);
	CHECK(!setlk(fd2, F_SETLK, F_WRLCK, 0, 0), "POSIX lock beside flock");
	CHECK(!setlk(fd2, F_SETLK, F_UNLCK, 0, 0), "POSIX unlock");
	close(fd);
	CHECK(fails(flock(fd2, LOCK_EX | LOCK_NB), EWOULDBLOCK), "the dup still holds it");
	close(dup_fd);
	CHECK(!flock(fd2, LOCK_SH | LOCK_NB), "LOCK_SH once closed");
	CHECK(!flock(fd2, LOCK_UN), "LOCK_UN");
	r = in_child(flock_child, (void *)1);
	CHECK(r == 0, "flock child after release (%d)", r);
	close(fd2);
	return 0;
}

/* --- times, inode numbers ------------------------------------------------------------------------- */

static int check_utimes(void)
{
	struct timespec ts[2] = { { .tv_sec = 1000000000, .tv_nsec = 5000 },
				  { .tv_sec = 1100000000, .tv_nsec = 7000 } };
	struct timespec lts[2] = { { .tv_sec = 1200000000 }, { .tv_sec = 1300000000 } };
	struct stat st;

	CHECK(!put("f", "f", 1) && !symlink("f", "l"), "f, l");
	CHECK(!utimensat(AT_FDCWD, "f", ts, 0), "utimensat f");
	CHECK(!stat("f", &st) && st.st_atim.tv_sec == ts[0].tv_sec &&
	      st.st_mtim.tv_sec == ts[1].tv_sec && st.st_mtim.tv_nsec == ts[1].tv_nsec,
	      "f times");
	CHECK(!utimensat(AT_FDCWD, "l", lts, AT_SYMLINK_NOFOLLOW), "utimensat of the link");
	CHECK(!lstat("l", &st) && st.st_mtim.tv_sec == lts[1].tv_sec, "link mtime %lld",
	      (long long)st.st_mtim.tv_sec);
	CHECK(!stat("f", &st) && st.st_mtim.tv_sec == ts[1].tv_sec, "target's mtime changed");
	return 0;
}

/*
 * fsync() and fdatasync() of a directory after a rename into it succeed
 * (that they make the rename durable, tests/integration/daxfs-powerloss
 * checks).
 */
static int check_fsync_dir(void)
{
	int fd, i;

	CHECK(!put("tmp", "data", 4), "tmp");
	CHECK(!rename("tmp", "final"), "rename");
	CHECK(!mkdir("sub", 0755), "sub");
	fd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0, "open .");
	/* Twice: a filesystem may answer the first call differently. */
	for (i = 0; i < 2; i++) {
		CHECK(!fsync(fd), "fsync of the directory (%d)", i);
		CHECK(!fdatasync(fd), "fdatasync of the directory (%d)", i);
	}
	close(fd);
	fd = open("sub", O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0 && !fsync(fd), "fsync of sub");
	close(fd);
	CHECK(access("final", F_OK) == 0 && access("tmp", F_OK) == -1, "names");
	return 0;
}

/* --- times of reads and writes, holes, setuid ----------------------------- */

#define PAST	1000000000	/* 2001: before any time a clock shows now */

/*
 * A write to a page written just before (dirty: a filesystem that writes
 * through a shared mapping sees no fault there) updates mtime and ctime as
 * the first one did.  The times are set to the past in between, so that
 * nothing waits for the clock: the second write must move them forward.
 */
static int check_mtime_dirty_write(void)
{
	struct timespec past[2] = { { .tv_sec = PAST }, { .tv_sec = PAST } };
	char buf[4096];
	struct stat st, set;
	int fd, i;

	memset(buf, 'a', sizeof(buf));
	CHECK(!put("f", buf, sizeof(buf)) && !truncate("f", 2 * sizeof(buf)), "f");
	fd = open("f", O_RDWR);
	CHECK(fd >= 0, "open");
	for (i = 0; i < 3; i++) {
		/* 0: the first write of the page; 1, 2: the page is dirty. */
		buf[0] = (char)('b' + i);
		CHECK(pwrite(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf), "write %d", i);
		if (i)
			CHECK(!fstat(fd, &st) && st.st_mtim.tv_sec >= set.st_ctim.tv_sec &&
			      (st.st_ctim.tv_sec > set.st_ctim.tv_sec ||
			       (st.st_ctim.tv_sec == set.st_ctim.tv_sec &&
				st.st_ctim.tv_nsec >= set.st_ctim.tv_nsec)),
			      "write %d to a dirty page: mtime %lld ctime %lld, times set at %lld",
			      i, (long long)st.st_mtim.tv_sec, (long long)st.st_ctim.tv_sec,
			      (long long)set.st_ctim.tv_sec);
		CHECK(!futimens(fd, past) && !fstat(fd, &set) && set.st_mtim.tv_sec == PAST,
		      "times to the past");
	}
	/* The same through stat() of the name, after fsync and close. */
	CHECK(pwrite(fd, buf, 1, 100) == 1 && !fsync(fd) && !close(fd), "last write");
	CHECK(!stat("f", &st) && st.st_mtim.tv_sec >= set.st_ctim.tv_sec,
	      "after close: mtime %lld", (long long)st.st_mtim.tv_sec);
	return 0;
}

/*
 * relatime: a read updates atime when it is not later than mtime (set in
 * the past here), as on the filesystem served: through a new open each time
 * (a filesystem may serve a read from pages it caches), twice (the second
 * time the source's pages are cached, and mapped by a DAX window while
 * another descriptor holds the file open).  Skips on a noatime mount.
 */
static int check_atime_relatime(void)
{
	struct timespec ts[2] = { { .tv_sec = PAST }, { .tv_sec = PAST + 10 } };
	char buf[16384];
	struct statvfs sv;
	struct stat st;
	int fd, hold, i;

	CHECK(!statvfs(".", &sv), "statvfs");
	if (sv.f_flag & ST_NOATIME)
		return skip("mounted noatime");
	memset(buf, 'r', sizeof(buf));
	CHECK(!put("f", buf, sizeof(buf)), "f");
	/* Held open: a filesystem may keep what it set up for the file. */
	hold = open("f", O_RDONLY);
	CHECK(hold >= 0, "open f");
	/* Twice: the second time the file's pages are cached. */
	for (i = 0; i < 2; i++) {
		CHECK(!utimensat(AT_FDCWD, "f", ts, 0), "utimensat");
		fd = open("f", O_RDONLY);
		CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf), "read %d", i);
		close(fd);
		CHECK(!stat("f", &st), "stat");
		CHECK(st.st_atim.tv_sec > PAST + 10, "read %d left atime at %lld (mtime %lld)", i,
		      (long long)st.st_atim.tv_sec, (long long)st.st_mtim.tv_sec);
		CHECK(st.st_mtim.tv_sec == PAST + 10, "mtime changed by a read");
	}
	close(hold);
	return 0;
}

/* SEEK_DATA and SEEK_HOLE find the hole between two extents of data. */
static int check_seek_hole(void)
{
	static char buf[65536];
	off_t far = 4 << 20, end = far + (off_t)sizeof(buf);
	int fd = open("f", O_RDWR | O_CREAT | O_EXCL, 0644);

	memset(buf, 'd', sizeof(buf));
	CHECK(fd >= 0, "open");
	CHECK(pwrite(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) &&
	      pwrite(fd, buf, sizeof(buf), far) == (ssize_t)sizeof(buf), "write");
	CHECK(!fsync(fd), "fsync");
	if (lseek(fd, 0, SEEK_HOLE) == end)
		return skip("the filesystem reports no holes");
	CHECK(lseek(fd, 0, SEEK_DATA) == 0, "SEEK_DATA 0");
	CHECK(lseek(fd, 0, SEEK_HOLE) == (off_t)sizeof(buf), "SEEK_HOLE 0: %lld",
	      (long long)lseek(fd, 0, SEEK_HOLE));
	CHECK(lseek(fd, (off_t)sizeof(buf), SEEK_DATA) == far, "SEEK_DATA in the hole: %lld",
	      (long long)lseek(fd, (off_t)sizeof(buf), SEEK_DATA));
	CHECK(lseek(fd, far, SEEK_HOLE) == end, "SEEK_HOLE at the end");
	CHECK(fails(lseek(fd, end, SEEK_DATA), ENXIO), "SEEK_DATA at EOF");
	CHECK(lseek(fd, 0, SEEK_CUR) == end, "the offset is the last found");
	close(fd);
	return 0;
}

static int write_as_user(void *arg)
{
	int fd;

	CHECK(!become_user(GID1, 0, NULL), "become %d", UID1);
	fd = open((const char *)arg, O_WRONLY);
	CHECK(fd >= 0, "open %s as %d", (const char *)arg, UID1);
	CHECK(pwrite(fd, "w", 1, 0) == 1, "write");
	close(fd);
	return 0;
}

/*
 * A write by a user without CAP_FSETID clears setuid, and setgid on a
 * group-executable file (a file that is not group-executable keeps setgid
 * on older kernels, and loses it on newer ones for a writer outside its
 * group: not checked); root's write keeps them.
 */
static int check_suid_write(void)
{
	const char *names[] = { "u", "g", "ug" };
	const mode_t modes[] = { 04777, 02777, 06777 };
	const mode_t want[] = { 0777, 0777, 0777 };
	unsigned int i;
	int r;

	if (geteuid())
		return skip("not root");
	for (i = 0; i < 3; i++) {
		/* The size first: a write in place (through a DAX window). */
		CHECK(!put(names[i], "0123456789", 10) && !chmod(names[i], modes[i]), "%s", names[i]);
		r = in_child(write_as_user, (void *)names[i]);
		CHECK(r == 0, "write child (%d)", r);
		CHECK((mode_of(names[i]) & 07777) == want[i], "%s: mode %o after %d's write, want %o",
		      names[i], mode_of(names[i]) & 07777, UID1, want[i]);
	}
	CHECK(!put("root", "0123456789", 10) && !chmod("root", 06777), "root");
	r = open("root", O_WRONLY);
	CHECK(r >= 0 && pwrite(r, "w", 1, 0) == 1, "root's write");
	close(r);
	CHECK((mode_of("root") & 07777) == 06777, "mode %o after root's write",
	      mode_of("root") & 07777);
	return 0;
}

static ino_t dirent_ino(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	ino_t ino = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strcmp(e->d_name, name))
			ino = e->d_ino;
	closedir(d);
	return ino;
}

/* Distinct files on two filesystems under DIR: distinct (st_dev, st_ino). */
static int check_xdev_ino(const char *top)
{
	char da[PATH_MAX], db[PATH_MAX], pa[PATH_MAX + 8], pb[PATH_MAX + 8];
	char ba[4096], bb[4096];
	struct stat a, b;
	int fa, fb;

	snprintf(da, sizeof(da), "%s/xdev/a", top);
	snprintf(db, sizeof(db), "%s/xdev/b", top);
	snprintf(pa, sizeof(pa), "%s/f", da);
	snprintf(pb, sizeof(pb), "%s/f", db);
	if (stat(pa, &a) || stat(pb, &b))
		return skip("no xdev/a/f and xdev/b/f");
	CHECK(a.st_dev != b.st_dev || a.st_ino != b.st_ino,
	      "two files share st_dev %llu and st_ino %llu", (unsigned long long)a.st_dev,
	      (unsigned long long)a.st_ino);
	CHECK(dirent_ino(da, "f") == a.st_ino && dirent_ino(db, "f") == b.st_ino,
	      "d_ino differs from st_ino");
	/* Both open at once, each with its own data (one cache inode each). */
	fa = open(pa, O_RDWR);
	fb = open(pb, O_RDWR);
	CHECK(fa >= 0 && fb >= 0, "open both");
	memset(ba, 'a', sizeof(ba));
	memset(bb, 'b', sizeof(bb));
	CHECK(pwrite(fa, ba, sizeof(ba), 0) == sizeof(ba) &&
	      pwrite(fb, bb, sizeof(bb), 0) == sizeof(bb), "write both");
	CHECK(pwrite(fa, ba, sizeof(ba), 0) == sizeof(ba) &&
	      pwrite(fb, bb, sizeof(bb), 0) == sizeof(bb), "overwrite both");
	memset(ba, 0, sizeof(ba));
	memset(bb, 0, sizeof(bb));
	CHECK(pread(fa, ba, sizeof(ba), 0) == sizeof(ba) &&
	      pread(fb, bb, sizeof(bb), 0) == sizeof(bb), "read both");
	CHECK(ba[0] == 'a' && ba[4095] == 'a' && bb[0] == 'b' && bb[4095] == 'b',
	      "the files' data mixed");
	close(fa);
	close(fb);
	return 0;
}

/* --- driver --------------------------------------------------------------------------------------------- */

static const struct {
	const char *name;
	int (*fn)(void);
} checks[] = {
	{ "mode_umask0", check_mode_umask0 },
	{ "mode_umask022", check_mode_umask022 },
	{ "owner", check_owner },
	{ "owner_groups", check_owner_groups },
	{ "link_count", check_link_count },
	{ "rename_file", check_rename_file },
	{ "rename_dir", check_rename_dir },
	{ "symlink", check_symlink },
	{ "symlink_loop", check_symlink_loop },
	{ "fifo", check_fifo },
	{ "mknod_chr", check_mknod_chr },
	{ "mknod_blk", check_mknod_blk },
	{ "socket", check_socket },
	{ "xattr", check_xattr },
	{ "xattr_symlink", check_xattr_symlink },
	{ "fallocate", check_fallocate },
	{ "copy_file_range", check_copy_file_range },
	{ "lock_fcntl", check_lock_fcntl },
	{ "lock_flock", check_lock_flock },
	{ "utimes", check_utimes },
	{ "fsync_dir", check_fsync_dir },
	{ "mtime_dirty_write", check_mtime_dirty_write },
	{ "atime_relatime", check_atime_relatime },
	{ "seek_hole", check_seek_hole },
	{ "suid_write", check_suid_write },
};

int main(int argc, char **argv)
{
	char base[PATH_MAX], dir[PATH_MAX + 64];
	int pass = 0, failed = 0, skipped = 0;
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(base, sizeof(base), "%s/pc.XXXXXX", argv[1]);
	if (!mkdtemp(base) || chmod(base, 0755)) {
		perror(base);
		return 1;
	}
	for (i = 0; i <= sizeof(checks) / sizeof(checks[0]); i++) {
		bool xdev = i == sizeof(checks) / sizeof(checks[0]);
		int status;
		pid_t pid;

		cur = xdev ? "xdev_ino" : checks[i].name;
		snprintf(dir, sizeof(dir), "%s/%s", base, cur);
		if (mkdir(dir, 0755)) {
			perror(dir);
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			umask(022);
			if (chdir(dir))
				_exit(1);
			_exit(xdev ? check_xdev_ino(argv[1]) : checks[i].fn());
		}
		if (waitpid(pid, &status, 0) != pid)
			status = 1 << 8;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("PASS %s\n", cur);
			pass++;
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP) {
			skipped++;
		} else {
			if (WIFSIGNALED(status))
				printf("FAIL %s: signal %d\n", cur, WTERMSIG(status));
			failed++;
		}
	}
	printf("posix_check: %d passed, %d failed, %d skipped\n", pass, failed, skipped);
	return failed ? 1 : 0;
}
