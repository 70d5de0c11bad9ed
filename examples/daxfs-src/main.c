// SPDX-License-Identifier: LGPL-2.1-or-later
/* cc -o daxfs *.c ../common/size_arg.c $(pkg-config --cflags --libs daxcache fuse3) -pthread */
/*
 * daxfs - a FUSE passthrough filesystem whose reads and writes go through a
 * libdaxcache window.
 *
 * Usage: daxfs SRC MNT [options]   (--help lists them)
 *
 * Every directory entry of SRC is shown under MNT.  While a regular file is
 * open, its source file is registered with the mmap backend (cache inode id
 * = the inode number shown, see dfs_map_ino()) and read and write go through
 * the window, as a virtio-fs guest does with its DAX window: dc_map() the
 * range, copy with dc_mmapbe_write() (a write) or reply straight from the
 * pinned range (a read of 8 KiB or more: zc_read() splices it to
 * /dev/fuse; smaller ones are copied with dc_mmapbe_read()), dc_unpin().
 * Reads are clipped to the file size; writes that reach past the end of
 * the file go to pwrite() (a window range past EOF cannot be touched),
 * and a truncate (setattr, or an open with O_TRUNC) punches the inode's
 * mappings and truncates under the inode's I/O lock held exclusive.  A
 * source file truncated behind daxfs's back (in SRC, by another program)
 * makes a copy through the window fail with -EIO instead of SIGBUS; the
 * read or write is then served with pread()/pwrite().
 * Under the default policy every dc_map() passes DC_MAP_MAY_BYPASS, and a
 * range the cache answers DC_MAP_BYPASS for (admission control: mapping it
 * would only churn the window) is read with pread(); and writes are all
 * pwrite()s, which never make a mapping writable (see write_window()).  Once
 * the window is full, the cache's eviction budget lets a read miss
 * replace a mapping at most once per --evict-interval references
 * (sequential streams excepted: config.admit_evict_interval, see
 * policy_default() in cache.c); daxfs has no admission rule of its own.
 * With --no-dax every read and write is a plain pread()/pwrite().
 * With --io-engine=uring those direct reads and writes (--no-dax, the
 * extending and appending writes, and what the cache bypasses whole) go
 * through an io_uring ring behind a dc_reqq instead: a request that finds
 * the ring full is parked and resubmitted at the next completion (see
 * dfs_uring_io()).
 *
 * Attributes are refreshed on a read only once they time out: each open
 * file's size and mtime are cached in a struct
 * dc_attr, and a read fstat()s the source only when it reaches past the
 * cached size or the attributes are older than --attr-timeout (or made
 * stale: by daxfs's own truncate, or a copy that met a page past the end).
 * A refresh that finds the file smaller (truncated by another process)
 * punches the window mappings past the new end.  Writes still fstat(),
 * and grow the cached size to what they wrote.
 *
 * Commit after writeback: fsync writes back the ranges written
 * through the window since the last fsync in parallel, on a small pool of
 * threads whose jobs hold slots of a dc_slot table, and the last writeback
 * to complete issues the one fdatasync() (the COMMIT) and the reply, through
 * a dc_iocomp (see dfs_fsync()).
 *
 * The cache counters can be read at any time from /.daxfs-stats in the
 * mount root and are logged when the filesystem is unmounted (fuse_log():
 * stderr in the foreground; a daemon's go to -o log=FILE, or syslog).
 * Its line "tracing:" points to the events behind the counters: the
 * library's USDT probes (README.md, "Tracing").
 * Daemonized, what can fail to start (the ring, the cache, the writeback
 * pool) runs before the parent exits (see daemon_begin()).
 *
 * Everything else is passed through to SRC (dfs_usage() lists it): mknod,
 * symlink, link, xattrs, fallocate, copy_file_range and the rest.  daxfs
 * runs with umask 0 (the kernel applied the caller's), and as root makes
 * new nodes with the caller's credentials (dfs_caller_creds_enter()).  It
 * implements no lock operation: the kernel's FUSE client then keeps fcntl
 * and flock locks itself, with exact POSIX semantics among the processes
 * using MNT, where setlk passed through to the backing descriptor would
 * make daxfs the owner of every caller's lock (so that two callers never
 * conflict) and park serving threads in blocking waits.
 *
 * The parts of the program are listed in daxfs.h.
 */
#include "daxfs.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

/*
 * Where fuse_log() (daxfs's messages and libfuse's) goes: stderr (the
 * terminal in the foreground, the -o log=FILE of a daemon), or syslog for a
 * daemon without one (its stderr is then /dev/null).
 */
static bool log_syslog;

static void dfs_log(enum fuse_log_level level, const char *fmt, va_list ap)
{
	if (log_syslog)
		vsyslog((int)level, fmt, ap);	/* the levels are syslog's */
	else
		vfprintf(stderr, fmt, ap);
}

/* fuse_log() @text line by line (syslog keeps one message per line). */
static void log_lines(enum fuse_log_level level, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		int len = nl ? (int)(nl - text) : (int)strlen(text);

		fuse_log(level, "%.*s\n", len, text);
		text += len + (nl ? 1 : 0);
	}
}

/* The daemon's end of the pipe its parent waits on (daemon_begin()). */
static int ready_fd = -1;

/*
 * Unless @foreground, fork: the parent waits until the child says it
 * serves the mount (daemon_ready(): exit 0), or exits 1 if the child ends
 * first (it failed to start, and said why on the stderr they share).
 * fuse_daemonize() cannot be used: its parent exits 0 at once, before
 * what can fail (the io_uring ring, the cache, the writeback pool, whose
 * threads must be started in the process that serves) has run.  0 or -1.
 */
static int daemon_begin(bool foreground)
{
	int p[2];
	char c;
	pid_t pid;

	if (foreground)
		return 0;
	if (pipe2(p, O_CLOEXEC)) {
		perror("daxfs: pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("daxfs: fork");
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid) {
		ssize_t r;

		close(p[1]);
		/* EOF: the daemon exited (or died) without saying it serves. */
		do
			r = read(p[0], &c, 1);
		while (r < 0 && errno == EINTR);
		_exit(r == 1 && c == 'r' ? 0 : 1);
	}
	close(p[0]);
	ready_fd = p[1];
	if (setsid() < 0) {
		perror("daxfs: setsid");
		return -1;
	}
	return 0;
}

/*
 * Everything started: detach from the terminal (stderr to -o log=FILE's
 * @log_fd, or /dev/null and fuse_log() to syslog) and let the parent exit 0.
 */
static void daemon_ready(int log_fd)
{
	int null_fd;
	char c = 'r';

	if (chdir("/"))
		fuse_log(FUSE_LOG_WARNING, "daxfs: chdir /: %s\n", strerror(errno));
	if (ready_fd < 0)
		return;
	null_fd = open("/dev/null", O_RDWR);
	if (null_fd >= 0) {
		dup2(null_fd, 0);
		dup2(null_fd, 1);
		dup2(log_fd >= 0 ? log_fd : null_fd, 2);
		if (null_fd > 2)
			close(null_fd);
	}
	if (log_fd < 0) {
		openlog("daxfs", LOG_PID, LOG_DAEMON);
		log_syslog = true;
	}
	while (write(ready_fd, &c, 1) < 0 && errno == EINTR)
		;
	close(ready_fd);
	ready_fd = -1;
}

/*
 * Parse the command line into dfs_opt and @cl: -1 to go on, else the exit
 * status (0 after --help or --version, 2 for bad arguments).
 */
static int parse_cmdline(struct fuse_args *args, struct fuse_cmdline_opts *cl,
			 const char *prog)
{
	int err;

	if (dfs_opts_parse(args) ||
	    fuse_opt_insert_arg(args, 1, "-ofsname=daxfs,subtype=daxfs") ||
	    fuse_parse_cmdline(args, cl))
		return 2;
	if (cl->show_help) {
		dfs_usage(stdout, prog);
		printf("FUSE OPTIONS\n");
		fuse_cmdline_help();
		fuse_lowlevel_help();
		return 0;
	}
	if (cl->show_version) {
		printf("daxfs, libfuse %s\n", fuse_pkgversion());
		err = dfs_uring_probe();
		printf("io_uring: %s%s\n", err == -ENOSYS ? "not built" :
		       err ? "refused: " : "available", err && err != -ENOSYS ?
		       strerror(-err) : "");
		fuse_lowlevel_version();
		return 0;
	}
	if (!dfs_opt.src || !cl->mountpoint) {
		dfs_usage(stderr, prog);
		return 2;
	}
	if (dfs_check_values())
		return 2;
	dfs_opt.mnt = cl->mountpoint;
	return -1;
}

/*
 * allow_other serves other users, and daxfs checks no permission
 * itself: without default_permissions the kernel would not either, and
 * any user could chmod, chown, truncate or remove root's files.  So
 * allow_other turns default_permissions on (in @args), unless the user
 * explicitly asks for no_default_permissions (then only access() and what
 * the source checks for new files, under the caller's ids, are checked).
 * 0 or -1.
 */
static int allow_other_permissions(struct fuse_args *args)
{
	if (!dfs_opt.allow_other || dfs_opt.default_permissions)
		return 0;
	if (dfs_opt.no_default_permissions) {
		fprintf(stderr, "daxfs: warning: allow_other without default_permissions:"
			" other users may change files daxfs can change\n");
		return 0;
	}
	return fuse_opt_add_arg(args, "-odefault_permissions") ? -1 : 0;
}

/* Open the -o log=FILE given, if any, as *@log_fd; 0 or -1 (said why). */
static int log_open(int *log_fd)
{
	if (!dfs_opt.log_arg)
		return 0;
	*log_fd = open(dfs_opt.log_arg, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (*log_fd < 0) {
		fprintf(stderr, "daxfs: %s: %s\n", dfs_opt.log_arg, strerror(errno));
		return -1;
	}
	return 0;
}

/* Serve requests until the mount goes away: 0, or 1 on an error. */
static int serve(struct fuse_session *se, const struct fuse_cmdline_opts *cl)
{
	struct fuse_loop_config *loop_cfg;
	int ret;

	if (cl->singlethread)
		return fuse_session_loop(se) < 0 ? 1 : 0;
	/*
	 * An explicit loop config, destroyed here: the implicit one of the
	 * older entry point is never freed (LeakSanitizer sees it).
	 */
	loop_cfg = fuse_loop_cfg_create();
	if (!loop_cfg)
		return 1;
	fuse_loop_cfg_set_clone_fd(loop_cfg, (unsigned int)cl->clone_fd);
	fuse_loop_cfg_set_max_threads(loop_cfg, cl->max_threads);
	if (cl->max_idle_threads != UINT_MAX)
		fuse_loop_cfg_set_idle_threads(loop_cfg, cl->max_idle_threads);
	/* > 0: ended by a signal, which is a clean unmount too */
	ret = fuse_session_loop_mt(se, loop_cfg) < 0 ? 1 : 0;
	fuse_loop_cfg_destroy(loop_cfg);
	return ret;
}

/*
 * Mount, start what serves (daemonized unless -f), serve until unmounted,
 * stop it all and log the counters; the exit status.
 */
static int mount_and_serve(struct fuse_args *args, const struct fuse_cmdline_opts *cl,
			   int log_fd)
{
	char buf[DAXFS_STATS_MAX];
	struct fuse_session *se;
	int ret = 1;

	/* NULL for an option libfuse does not know, too (it said which). */
	se = fuse_session_new(args, &dfs_ops, sizeof(dfs_ops), NULL);
	if (!se)
		return 1;
	if (fuse_set_signal_handlers(se))
		goto out_session;
	if (fuse_session_mount(se, cl->mountpoint))
		goto out_signals;
	/*
	 * What can fail runs in the serving process but before its parent
	 * exits, which then exits non-zero (the message is on its stderr).
	 */
	if (daemon_begin(cl->foreground))
		goto out_unmount;
	if (!dfs_opt.no_dax && (dfs_cache_start() || dfs_wb_start()))
		goto out_unmount;
	if (dfs_opt.uring && dfs_uring_start())
		goto out_unmount;
	daemon_ready(log_fd);
	ret = serve(se, cl);
out_unmount:
	dfs_uring_stop();
	dfs_wb_stop_all();
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
	dfs_stats_text(buf, sizeof(buf));
	fuse_log(FUSE_LOG_INFO, "daxfs: unmounted %s\n", dfs_opt.mnt);
	log_lines(FUSE_LOG_INFO, buf);
	return ret;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts cl;
	int ret, log_fd = -1;

	memset(&cl, 0, sizeof(cl));
	ret = parse_cmdline(&args, &cl, argv[0]);
	if (ret >= 0)
		goto out_args;
	ret = 1;
	if (allow_other_permissions(&args))
		goto out_args;
	fuse_set_log_func(dfs_log);
	if (log_open(&log_fd))
		goto out_args;
	/* The kernel applied the caller's umask: daxfs must not apply its own. */
	umask(0);
	if (dfs_creds_init()) {
		perror("daxfs: getgroups");
		goto out_args;
	}
	if (dfs_root_init())
		goto out_args;
	dfs_zc_init();
#if defined(DAXFS_TIMING) && defined(__x86_64__)
	dfs_timing_init();
#endif
	if (!dfs_root.fino || (!dfs_opt.no_dax && dfs_window_reserve()))
		goto out_args;
	ret = mount_and_serve(&args, &cl, log_fd);
	if (dfs_cache)
		dc_cache_destroy(dfs_cache);
	dc_mmapbe_destroy(dfs_be);
out_args:
	dfs_stats_files_free();
	if (log_fd >= 0)
		close(log_fd);
	if (log_syslog)
		closelog();
	dfs_xino_free();
	dfs_creds_free();
	free(cl.mountpoint);
	dfs_opts_free();
	fuse_opt_free_args(&args);
	return ret;
}
