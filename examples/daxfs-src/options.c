// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * options.c - daxfs's options (long, short and -o forms, parsed with
 * fuse_opt_parse()), their checks, and the --help text.
 */
#include "daxfs.h"
#include "../common/size_arg.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* What a setup costs the cache's admission rule, in pread()s of the backing file. */
#define DAXFS_SETUP_COST	8u

/* The options, with their defaults: see struct daxfs_opts. */
struct daxfs_opts dfs_opt = {
	.window_size = 256ull << 20,
	.range_shift = 21,
	.policy = "default",
	.attr_timeout_ns = 1000000000ull,
	.ring_depth = 16,
	.evict_interval = 256,
	.setup_cost = DAXFS_SETUP_COST,
};

/* The text of --help, in parts around its synopsis line (which names the program). */
static const char usage_name[] =
	"NAME\n"
	"    daxfs - FUSE passthrough filesystem whose reads and writes copy\n"
	"            through a libdaxcache window (mmap backend)\n"
	"\n"
	"SYNOPSIS\n";

static const char usage_description[] =
	"\n"
	"DESCRIPTION\n"
	"    Shows the tree under SRC on MNT.  While a regular file is open, its\n"
	"    reads and writes go through the window (reads of 8 KiB or more are\n"
	"    spliced from it to /dev/fuse, not copied); --no-dax makes them\n"
	"    plain pread()/pwrite().  Everything else is passed through to SRC:\n"
	"    lookup, getattr, setattr (mode, owner, size, times), mkdir, mknod\n"
	"    (FIFOs, sockets, character and block devices), symlink, readlink,\n"
	"    link, unlink, rmdir, rename (with RENAME_NOREPLACE and\n"
	"    RENAME_EXCHANGE), readdir, statfs, fsync of files and of\n"
	"    directories (a rename then fsync of its directory is durable),\n"
	"    access, lseek (SEEK_DATA, SEEK_HOLE), extended attributes (get,\n"
	"    set, list, remove), fallocate and copy_file_range.\n"
	"    New files get the mode the caller asked for under the caller's\n"
	"    umask (daxfs runs with umask 0); run as root, daxfs makes them with\n"
	"    the caller's uid, gid and groups, and the source checks that the\n"
	"    caller may make them.  Every other access the kernel checks, as\n"
	"    it would on SRC, with -o default_permissions: daxfs itself does\n"
	"    not.  -o allow_other (serve other users) turns default_permissions\n"
	"    on, unless -o no_default_permissions is given too (then any user\n"
	"    may change what daxfs may change: only access() asks SRC).\n"
	"    Writes and reads keep the source's times as write() and read()\n"
	"    would: a write through the window sets mtime and ctime\n"
	"    (futimens(), a store to a dirty page does not); the first read\n"
	"    from the window after an open, a write or a setattr reads a byte\n"
	"    with pread(), so that the source updates atime by its own rule\n"
	"    (relatime, noatime); later ones do not.  An unprivileged write\n"
	"    clears setuid and setgid (with --direct-io daxfs does it, as a\n"
	"    local filesystem would).  SEEK_DATA and SEEK_HOLE ask the source.\n"
	"    fsync writes the ranges written through the window back in\n"
	"    parallel (4 threads, at most 8 ranges queued), then makes the file\n"
	"    stable with one fdatasync() (fsync() for a full sync) and replies.\n"
	"    A read trusts the size of the source it learnt last for\n"
	"    --attr-timeout seconds (unless it reads past it): a file shrunk\n"
	"    by another process is seen, and the window past its new end\n"
	"    punched, once that time has passed.\n"
	"    Inode numbers are the source's on SRC's filesystem; a file on\n"
	"    another filesystem mounted under SRC gets a number of its own\n"
	"    (top bit set), so that no two files under MNT share one.\n"
	"    fcntl() and flock() locks are kept by the kernel's FUSE client for\n"
	"    every process using MNT; they do not see locks taken on SRC directly.\n"
	"\n";

static const char usage_options[] =
	"OPTIONS\n"
	"    Sizes take K, M, G, T suffixes.  Each daxfs option also has an\n"
	"    -o form (in brackets), for fstab and mount(8).\n"
	"    -w SIZE, --window-size=SIZE   [window_size=SIZE]\n"
	"           window size (default 256M)\n"
	"    -r N, --range-shift=N         [range_shift=N]\n"
	"           log2 of the range size, 12..40 (default 21)\n"
	"    -p NAME, --policy=NAME        [policy=NAME]\n"
	"           default: admission control (a read miss that would evict\n"
	"           a mapping is mapped only if it pays, else pread());\n"
	"           writes are pwrite()s, never through the window.\n"
	"           The others map every miss:\n"
	"           bg-first (alias 2019): the background reclaimer kicked\n"
	"           first, a range reclaimed inline removed before its reuse\n"
	"           (one remove per range), CLOCK victims;\n"
	"           inline-first (alias seed000): a range reclaimed inline\n"
	"           reused without a remove, round-robin victims;\n"
	"           upstream: as Linux's FUSE DAX (the background reclaimer\n"
	"           kicked first, inline reclaim only from the file's own\n"
	"           ranges, one remove per range, round robin)\n"
	"    --no-dax                      [no_dax]\n"
	"           plain pread()/pwrite() (the baseline)\n"
	"    --attr-timeout=SECONDS        [attr_timeout=SECONDS]\n"
	"           how long a read trusts the cached size of the source\n"
	"           (default 1; 0: every read fstat()s it)\n"
	"    --evict-interval=N            [evict_interval=N]\n"
	"           default policy: the cache's eviction budget: once every\n"
	"           window range is mapped, a read miss may replace a mapping\n"
	"           at most once per N references the cache counts (misses,\n"
	"           and hits as its victim scan collects them; a sequential\n"
	"           stream excepted); the other misses it refuses are pread()\n"
	"           (default 256; 0 or 1: no budget)\n"
	"    --setup-cost=N                [setup_cost=N]\n"
	"           default policy: what one setup costs the cache's\n"
	"           admission rule, in pread()s of the backing file: a miss\n"
	"           that is no sequential stream replaces a mapping only when\n"
	"           its count leads the victim's by more than N (1..200,\n"
	"           default 8)\n"
	"    --direct-io                   [direct_io]\n"
	"           open files with direct_io (no page cache); a write by a\n"
	"           caller other than root clears setuid and setgid\n"
	"    -o no_default_permissions\n"
	"           with allow_other: do not turn default_permissions on\n"
	"    --io-engine=sync|uring        [io_engine=ENGINE]\n"
	"           sync (default): direct reads and writes (--no-dax, and\n"
	"           writes that extend the file) are pread()/pwrite() on the\n"
	"           FUSE thread; uring: they go through an io_uring ring\n"
	"           and a completion thread replies (if built with liburing)\n"
	"    --ring-depth=N                [ring_depth=N]\n"
	"           the most requests on the ring (default 16); more are\n"
	"           parked and resubmitted when a completion frees room\n"
	"    --retry=completion|timer      [retry=RULE]\n"
	"           when parked requests are retried: at a completion\n"
	"           (default) or from a 1 ms timer (for comparison)\n"
	"    --log=FILE                    [log=FILE]\n"
	"           a daemon's messages (errors, the statistics at unmount)\n"
	"           are appended to FILE; without it they go to syslog\n"
	"           (in the foreground: stderr)\n"
	"    -f, --foreground              stay in the foreground; without it\n"
	"           the command returns once the daemon serves the mount (0),\n"
	"           or with 1 and the message if it failed to start\n"
	"    -d, --debug                   [debug] FUSE debug output (implies -f)\n"
	"    -s                            serve requests with one thread\n"
	"    -o OPT[,OPT...]               the options in brackets, and the FUSE\n"
	"           and mount options below (e.g. default_permissions,allow_other)\n"
	"    -h, --help                    this text\n"
	"    -V, --version                 the libfuse version\n"
	"\n";

static const char usage_files[] =
	"FILES\n"
	"    MNT/" DAXFS_STATS_NAME "   the cache counters; printed at unmount too\n"
	"           (attr_refreshes: reads that fstat()ed the source, also\n"
	"           per 10k reads; attr_shrinks: of those, the ones that\n"
	"           found it shrunk and punched the window; zero_copy_reads:\n"
	"           reads spliced from the window, zero_copy_faults: of those,\n"
	"           the ones that met a page past the end and fell back;\n"
	"           direct_writes: writes the default policy pwrite()s;\n"
	"           bypass_budget: misses the cache's eviction budget\n"
	"           (--evict-interval) refused, of bypass_full;\n"
	"           hits, setups (misses) and bypassed_ios also per 10k reads;\n"
	"           commits: fsyncs, commit_writebacks: the range writebacks\n"
	"           they waited for, also per commit; reclaim_writebacks:\n"
	"           writebacks of reclaimed writable ranges done on the\n"
	"           pool, reclaim_writebacks_inline: those done with msync()\n"
	"           by the reclaiming thread (no pool, or the file closed);\n"
	"           uring_*: the io_uring engine: submits to the ring,\n"
	"           completions, ring_full (-ENOSPC answers), parks (requests\n"
	"           parked), resubmits (parked requests that reached the\n"
	"           ring), timer_retries (submissions by the retry timer))\n"
	"\n"
	"EXIT STATUS\n"
	"    0 unmounted cleanly (daemonized: the daemon serves the mount),\n"
	"    1 an error (also one the daemon met while it started),\n"
	"    2 bad arguments.\n"
	"\n";

/* The text of --help, also printed (to stderr) when SRC or MNT is missing. */
void dfs_usage(FILE *f, const char *prog)
{
	fputs(usage_name, f);
	fprintf(f, "    %s SRC MNT [options]\n", prog);
	fputs(usage_description, f);
	fputs(usage_options, f);
	fputs(usage_files, f);
}

enum { KEY_FOREGROUND, KEY_DEBUG, KEY_ALLOW_OTHER, KEY_DEFAULT_PERMISSIONS };

#define DAXFS_OPT(t, field, value) { t, offsetof(struct daxfs_opts, field), value }

/*
 * fuse_opt_parse() applies every template an argument matches, in order:
 * "--window-size %s" also matches "--window-size=8M" (with "=8M"), so the
 * "=%s" form comes after it and is the one that sticks.
 */
static const struct fuse_opt daxfs_opts[] = {
	DAXFS_OPT("--window-size %s", window_arg, 0),
	DAXFS_OPT("--window-size=%s", window_arg, 0),
	DAXFS_OPT("-w %s", window_arg, 0),
	DAXFS_OPT("window_size=%s", window_arg, 0),
	DAXFS_OPT("--range-shift %s", shift_arg, 0),
	DAXFS_OPT("--range-shift=%s", shift_arg, 0),
	DAXFS_OPT("-r %s", shift_arg, 0),
	DAXFS_OPT("range_shift=%s", shift_arg, 0),
	DAXFS_OPT("--policy %s", policy_arg, 0),
	DAXFS_OPT("--policy=%s", policy_arg, 0),
	DAXFS_OPT("-p %s", policy_arg, 0),
	DAXFS_OPT("policy=%s", policy_arg, 0),
	DAXFS_OPT("--no-dax", no_dax, 1),
	DAXFS_OPT("no_dax", no_dax, 1),
	DAXFS_OPT("--attr-timeout %s", attr_timeout_arg, 0),
	DAXFS_OPT("--attr-timeout=%s", attr_timeout_arg, 0),
	DAXFS_OPT("attr_timeout=%s", attr_timeout_arg, 0),
	DAXFS_OPT("--evict-interval %s", evict_arg, 0),
	DAXFS_OPT("--evict-interval=%s", evict_arg, 0),
	DAXFS_OPT("evict_interval=%s", evict_arg, 0),
	DAXFS_OPT("--setup-cost %s", cost_arg, 0),
	DAXFS_OPT("--setup-cost=%s", cost_arg, 0),
	DAXFS_OPT("setup_cost=%s", cost_arg, 0),
	DAXFS_OPT("--direct-io", direct_io, 1),
	DAXFS_OPT("direct_io", direct_io, 1),
	DAXFS_OPT("--io-engine %s", engine_arg, 0),
	DAXFS_OPT("--io-engine=%s", engine_arg, 0),
	DAXFS_OPT("io_engine=%s", engine_arg, 0),
	DAXFS_OPT("--ring-depth %s", depth_arg, 0),
	DAXFS_OPT("--ring-depth=%s", depth_arg, 0),
	DAXFS_OPT("ring_depth=%s", depth_arg, 0),
	DAXFS_OPT("--retry %s", retry_arg, 0),
	DAXFS_OPT("--retry=%s", retry_arg, 0),
	DAXFS_OPT("retry=%s", retry_arg, 0),
	DAXFS_OPT("--log %s", log_arg, 0),
	DAXFS_OPT("--log=%s", log_arg, 0),
	DAXFS_OPT("log=%s", log_arg, 0),
	DAXFS_OPT("no_default_permissions", no_default_permissions, 1),
	FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
	FUSE_OPT_KEY("default_permissions", KEY_DEFAULT_PERMISSIONS),
	FUSE_OPT_KEY("--foreground", KEY_FOREGROUND),
	FUSE_OPT_KEY("--debug", KEY_DEBUG),
	FUSE_OPT_END
};

/*
 * fuse_opt_parse() callback: the long forms of -f and -d become those for
 * fuse_parse_cmdline(), the first non-option is SRC (the second, MNT, is
 * fuse_parse_cmdline()'s), other options go on to libfuse, which rejects
 * those it does not know.  1 keeps @arg, 0 drops it, -1 fails.
 */
static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	switch (key) {
	case KEY_FOREGROUND:
		return fuse_opt_add_arg(outargs, "-f") ? -1 : 0;
	case KEY_DEBUG:
		return fuse_opt_add_arg(outargs, "-d") ? -1 : 0;
	case KEY_ALLOW_OTHER:
		dfs_opt.allow_other = 1;
		return 1;	/* libfuse's mount option too */
	case KEY_DEFAULT_PERMISSIONS:
		dfs_opt.default_permissions = 1;
		return 1;
	case FUSE_OPT_KEY_NONOPT:
		if (dfs_opt.src)
			return 1;
		dfs_opt.src = strdup(arg);
		return dfs_opt.src ? 0 : -1;
	default:
		if (arg[0] == '-' && arg[1] == '-' && strcmp(arg, "--help") &&
		    strcmp(arg, "--version")) {
			fprintf(stderr, "daxfs: unknown option '%s'\n", arg);
			return -1;
		}
		return 1;
	}
}

/* Say that @arg is no value its option takes; -1. */
static int bad_value(const char *arg)
{
	fprintf(stderr, "daxfs: bad value '%s'\n", arg);
	return -1;
}

/* --window-size and --range-shift; 0 or -1 (said why). */
static int check_window(void)
{
	uint64_t v;

	if (dfs_opt.window_arg &&
	    (ex_parse_size(dfs_opt.window_arg, &dfs_opt.window_size) || !dfs_opt.window_size))
		return bad_value(dfs_opt.window_arg);
	if (dfs_opt.shift_arg) {
		if (ex_parse_size(dfs_opt.shift_arg, &v) || v < 12 || v > 40)
			return bad_value(dfs_opt.shift_arg);
		dfs_opt.range_shift = (unsigned int)v;
	}
	return 0;
}

/* --policy: a name or an alias (dfs_opt.policy gets the name); 0 or -1 (said why). */
static int check_policy(void)
{
	const char *name;

	if (!dfs_opt.policy_arg)
		return 0;
	name = dfs_policy_name(dfs_opt.policy_arg);
	if (!name)
		return bad_value(dfs_opt.policy_arg);
	dfs_opt.policy = name;
	return 0;
}

/* --attr-timeout, in seconds; 0 or -1 (said why). */
static int check_attr_timeout(void)
{
	char *end;
	double t;

	if (!dfs_opt.attr_timeout_arg)
		return 0;
	errno = 0;
	t = strtod(dfs_opt.attr_timeout_arg, &end);
	/* At most a year: a "forever" that still fits in ns. */
	if (errno || end == dfs_opt.attr_timeout_arg || *end || !(t >= 0) ||
	    t > 31536000.0)
		return bad_value(dfs_opt.attr_timeout_arg);
	dfs_opt.attr_timeout_ns = (uint64_t)(t * 1e9);
	return 0;
}

/* --evict-interval and --setup-cost; 0 or -1 (said why). */
static int check_admission(void)
{
	if (dfs_opt.evict_arg) {
		if (ex_parse_size(dfs_opt.evict_arg, &dfs_opt.evict_interval) ||
		    dfs_opt.evict_interval > UINT_MAX)
			return bad_value(dfs_opt.evict_arg);
	}
	if (dfs_opt.cost_arg) {
		if (ex_parse_size(dfs_opt.cost_arg, &dfs_opt.setup_cost) ||
		    dfs_opt.setup_cost < 1 || dfs_opt.setup_cost > DC_ADMIT_SETUP_COST_MAX)
			return bad_value(dfs_opt.cost_arg);
	}
	return 0;
}

/* --io-engine, --ring-depth and --retry; 0 or -1 (said why). */
static int check_engine(void)
{
	uint64_t v;

	if (dfs_opt.engine_arg) {
		if (!strcmp(dfs_opt.engine_arg, "uring")) {
#ifndef DAXFS_URING
			fprintf(stderr, "daxfs: built without liburing: no --io-engine=uring\n");
			return -1;
#endif
			dfs_opt.uring = true;
		} else if (strcmp(dfs_opt.engine_arg, "sync")) {
			return bad_value(dfs_opt.engine_arg);
		}
	}
	if (dfs_opt.depth_arg) {
		if (ex_parse_size(dfs_opt.depth_arg, &v) || !v || v > 4096)
			return bad_value(dfs_opt.depth_arg);
		dfs_opt.ring_depth = (unsigned int)v;
	}
	if (dfs_opt.retry_arg) {
		if (!strcmp(dfs_opt.retry_arg, "timer"))
			dfs_opt.retry_timer = true;
		else if (strcmp(dfs_opt.retry_arg, "completion"))
			return bad_value(dfs_opt.retry_arg);
	}
	return 0;
}

/*
 * Check the values fuse_opt_parse() stored, in the order of the options'
 * list in --help, and convert them; 0, or -1 at the first bad one (said
 * why).
 */
int dfs_check_values(void)
{
	if (check_window() || check_policy() || check_attr_timeout() ||
	    check_admission() || check_engine())
		return -1;
	return 0;
}

/* Parse @args into dfs_opt; what is not daxfs's stays in @args.  0 or -1. */
int dfs_opts_parse(struct fuse_args *args)
{
	return fuse_opt_parse(args, &dfs_opt, daxfs_opts, opt_proc);
}

/* Free the strings fuse_opt_parse() and opt_proc() stored. */
void dfs_opts_free(void)
{
	free(dfs_opt.src);
	free(dfs_opt.window_arg);
	free(dfs_opt.shift_arg);
	free(dfs_opt.policy_arg);
	free(dfs_opt.attr_timeout_arg);
	free(dfs_opt.evict_arg);
	free(dfs_opt.engine_arg);
	free(dfs_opt.depth_arg);
	free(dfs_opt.retry_arg);
	free(dfs_opt.log_arg);
}
