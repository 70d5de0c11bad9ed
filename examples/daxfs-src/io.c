// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * io.c - read and write through the window: copies range by range, reads of
 * DAXFS_ZC_MIN bytes or more spliced from the window to /dev/fuse, the
 * fallbacks to pread()/pwrite(), and the times and modes a write changes.
 */
#include "daxfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/*
 * Built with -DDAXFS_TIMING (x86-64): the time from the start of every read
 * of a file to its reply call (lfence; rdtsc), summed and shown in
 * .daxfs-stats as read_handler_ns per read, the TSC calibrated against
 * CLOCK_MONOTONIC since the start.  The reply itself is left out: it wakes
 * the reader, who may run on this CPU before writev() returns.  This is
 * how the per-read figures in the comments on read_size() and the
 * eviction budget were measured (with more marks between, for the parts).
 */
#if defined(DAXFS_TIMING) && defined(__x86_64__)
#include <x86intrin.h>
static atomic_uint_fast64_t t_cycles, t_reads;
static uint64_t t_tsc0, t_ns0;
static __thread uint64_t tl_start, tl_reply;

static uint64_t timing_tsc(void)
{
	_mm_lfence();
	return __rdtsc();
}

/* main(): the start of the TSC's calibration. */
void dfs_timing_init(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t_ns0 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	t_tsc0 = timing_tsc();
}

/* The lines of .daxfs-stats on the timed reads: snprintf()'s return value. */
int dfs_timing_text(char *buf, size_t size)
{
	struct timespec ts;
	uint64_t nr = (uint64_t)atomic_load(&t_reads), ns;
	double cyc_per_ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec - t_ns0;
	cyc_per_ns = ns ? (double)(timing_tsc() - t_tsc0) / (double)ns : 1;
	return snprintf(buf, size, "timed_reads: %" PRIu64 "\nread_handler_ns: %.1f\n", nr,
			nr ? (double)atomic_load(&t_cycles) / cyc_per_ns / (double)nr : 0);
}

#define T_START()	(tl_start = timing_tsc(), tl_reply = 0)
#define T_REPLY()	(tl_reply = timing_tsc())
#define T_END()								\
	do {								\
		if (tl_reply) {						\
			atomic_fetch_add(&t_cycles, tl_reply - tl_start); \
			atomic_fetch_add(&t_reads, 1);			\
		}							\
	} while (0)
#else
#define T_START()	do { } while (0)
#define T_REPLY()	do { } while (0)
#define T_END()		do { } while (0)
#endif

/* The largest read zc_read() replies to: dfs_zc_init(), 0 without splice. */
static size_t zc_max;

void dfs_init(void *userdata, struct fuse_conn_info *conn)
{
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	/*
	 * Replies from the window's pipe are spliced to /dev/fuse (zc_read());
	 * without splice libfuse would copy them out of the pipe: copy here.
	 */
	conn->want |= conn->capable & (FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE);
	if (!(conn->capable & FUSE_CAP_SPLICE_WRITE))
		zc_max = 0;
}

/*
 * Copy @len bytes between @buf and @fd at @off with pread()/pwrite(), for a
 * range the cache told us to bypass (the window maps the file MAP_SHARED,
 * so both views stay coherent through the page cache); 0 or -errno.
 */
static int direct_copy(int fd, char *buf, size_t len, uint64_t off, bool write)
{
	while (len) {
		ssize_t got = write ? pwrite(fd, buf, len, (off_t)off) :
				      pread(fd, buf, len, (off_t)off);

		if (got < 0)
			return -errno;
		if (!got)
			return -EIO;	/* the size was checked: a racing truncate */
		buf += got;
		off += (uint64_t)got;
		len -= (size_t)got;
	}
	return 0;
}

/* Note that the range of @off was written through the window: 0 or -ENOMEM. */
static int mark_dirty(struct dfs_node *n, uint64_t off)
{
	uint64_t r = off >> dfs_opt.range_shift;
	size_t w = (size_t)(r / 64);
	int err = 0;

	pthread_mutex_lock(&n->dirty_lock);
	if (w >= n->dirty_words) {
		size_t words = w + 1 > 2 * n->dirty_words ? w + 1 : 2 * n->dirty_words;
		uint64_t *d = realloc(n->dirty, words * sizeof(*d));

		if (!d) {
			err = -ENOMEM;
			goto out;
		}
		memset(d + n->dirty_words, 0, (words - n->dirty_words) * sizeof(*d));
		n->dirty = d;
		n->dirty_words = words;
	}
	n->dirty[w] |= 1ull << (r % 64);
out:
	pthread_mutex_unlock(&n->dirty_lock);
	return err;
}

/*
 * Copy [@off, @off + @len) of @n through the window, range by range; a
 * range the cache answers DC_MAP_BYPASS for goes straight to @fd.  0 or
 * -errno: -EIO when the source was truncated behind our back (a window
 * page past its end), and the caller then falls back to pread()/pwrite().
 * With --io-engine=uring, DAXFS_BYPASS_WHOLE when the cache bypasses the whole
 * of [@off, @off + @len) (one range): nothing copied, the caller serves it
 * through the ring.
 */
static int window_copy(struct dfs_node *n, int fd, char *buf, size_t len,
		       uint64_t off, bool write)
{
	uint64_t rs = (uint64_t)1 << dfs_opt.range_shift;
	struct dc_pin pin;
	bool first = true;
	int err;

	while (len) {
		size_t chunk;

		err = dc_map(n->dci, off, dfs_map_flags | (write ? DC_MAP_WRITE : 0), &pin);
		if (err == DC_MAP_BYPASS) {
			chunk = rs - (off & (rs - 1)) < len ?
				(size_t)(rs - (off & (rs - 1))) : len;
			atomic_fetch_add_explicit(&dfs_n_bypassed, 1, memory_order_relaxed);
			if (first && chunk == len && dfs_opt.uring)
				return DAXFS_BYPASS_WHOLE;
			err = direct_copy(fd, buf, chunk, off, write);
			if (err)
				return err;
			first = false;
			buf += chunk;
			off += chunk;
			len -= chunk;
			continue;
		}
		if (err)
			return err;
		first = false;
		chunk = pin.len < len ? (size_t)pin.len : len;
		if (write) {
			err = dc_mmapbe_write(dfs_be, &pin, 0, buf, chunk);
			if (!err)
				err = mark_dirty(n, off);
		} else {
			err = dc_mmapbe_read(dfs_be, &pin, 0, buf, chunk);
		}
		dc_unpin(&pin);
		if (err)
			return err;
		buf += chunk;
		off += chunk;
		len -= chunk;
	}
	return 0;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000ll + ts->tv_nsec;
}

/*
 * The size of @n's source that a read of [@off, @off + @size) goes by, in
 * *@sizep: while the cached attributes are valid and the read
 * stays within the cached size, @off + @size (the read needs no clipping:
 * one call into the attribute cache, one lock, per read); else the source
 * is fstat()ed and the attributes refreshed (the hook punches the window
 * past a new, smaller end).  0 or -errno.
 */
static int read_size(struct dfs_node *n, uint64_t off, uint64_t size, uint64_t *sizep)
{
	struct dc_attr_values v;
	uint64_t version;
	struct stat st;
	int err;

	if (!dc_attr_read_check(n->attr, off, size, dfs_mono_ns(), &version)) {
		/* Valid a moment ago: a read racing the timeout goes by it. */
		*sizep = off + size;
		return 0;
	}
	err = dfs_stat_fd(n->map_fd, &st);
	if (err)
		return err;
	atomic_fetch_add_explicit(&dfs_n_attr_refreshes, 1, memory_order_relaxed);
	v.size = (uint64_t)st.st_size;
	v.mtime_ns = ts_ns(&st.st_mtim);
	v.ctime_ns = ts_ns(&st.st_ctim);
	/* -ESTALE (a write raced it) installs nothing; this read uses @v. */
	dc_attr_refresh(n->attr, &v, version, dfs_mono_ns());
	*sizep = v.size;
	return 0;
}

/*
 * Reads without a copy in daxfs.  A read of at least DAXFS_ZC_MIN bytes is
 * vmsplice()d from the pinned window range(s) into a pipe of the serving
 * thread, and the pipe is passed to fuse_reply_data(), which splices it to
 * /dev/fuse: the only copy left is the kernel's, from the page cache pages
 * into the request.  The pins are dropped after the reply is sent.
 *
 * Why vmsplice() and not fuse_reply_iov() (a writev() from the window):
 * both are SIGBUS-safe, as the kernel reads the window, and a page past the
 * end of a source truncated behind our back makes it fail with EFAULT, no
 * signal.  But a writev() to /dev/fuse that fails has already consumed the
 * request: the kernel answers the reader EIO, where the copy path falls
 * back to pread() and returns the right bytes (daxfs-trunc-smoke and
 * daxfs-attr check that).  vmsplice() fails before anything is sent, and
 * once it has taken the pages, the pipe holds references to them, so a
 * truncation racing the reply cannot fault it any more: the reader gets the
 * bytes as they were.
 *
 * Below DAXFS_ZC_MIN libfuse does not splice (it reads a pipe into a buffer
 * of its own, which is a copy and two more system calls): such reads are
 * copied with dc_mmapbe_read() into a buffer on the stack, no malloc().
 * Nor does it above zc_max: its own pipe must hold the reply and three
 * pages more, and a pipe cannot grow past /proc/sys/fs/pipe-max-size
 * (1 MiB by default, so a read of 1 MiB is copied).
 */
#define ZC_MAX_SEGS	64
#define ZC_SLACK	(4 * 4096)

static __thread int zc_pipe[2] = { -1, -1 };
static __thread size_t zc_pipe_size;
static pthread_key_t zc_key;

static void zc_pipe_close(void)
{
	if (zc_pipe[0] >= 0) {
		close(zc_pipe[0]);
		close(zc_pipe[1]);
	}
	zc_pipe[0] = zc_pipe[1] = -1;
}

static void zc_destructor(void *arg)
{
	zc_pipe_close();
}

/* The calling thread's pipe, made to hold @len bytes; false if it cannot. */
static bool zc_pipe_get(size_t len)
{
	int size;

	if (zc_pipe[0] < 0) {
		if (pipe2(zc_pipe, O_CLOEXEC | O_NONBLOCK)) {
			zc_pipe[0] = zc_pipe[1] = -1;
			return false;
		}
		pthread_setspecific(zc_key, (void *)1);
		fcntl(zc_pipe[0], F_SETPIPE_SZ, (int)(zc_max + ZC_SLACK));
		size = fcntl(zc_pipe[0], F_GETPIPE_SZ);
		zc_pipe_size = size > 0 ? (size_t)size : 0;
	}
	return len <= zc_pipe_size;
}

/*
 * At the start: the key whose destructor closes a serving thread's pipe, and
 * the largest read zc_read() takes: what pipe-max-size leaves libfuse.
 */
void dfs_zc_init(void)
{
	unsigned long max = 0;
	FILE *f;

	pthread_key_create(&zc_key, zc_destructor);
	f = fopen("/proc/sys/fs/pipe-max-size", "r");
	if (f) {
		if (fscanf(f, "%lu", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (max > (64ul << 20))
		max = 64ul << 20;
	zc_max = max > DAXFS_ZC_MIN + ZC_SLACK ? max - ZC_SLACK : 0;
}

/* The segments of a read that zc_read() splices: pinned ranges, bounce buffer. */
struct zc_segs {
	struct dc_pin pins[ZC_MAX_SEGS];
	struct iovec iov[ZC_MAX_SEGS];
	unsigned int npins, nseg;
	char *bounce;			/* what the cache bypasses, read with pread() */
};

/*
 * Gather [@off, @off + @len) of @n into @z, range by range: a pinned window
 * range, or one the cache bypasses read from @fd into z->bounce.  1 when
 * all of it is gathered; else what zc_read() returns without a reply: 0
 * (too many ranges), -errno, or DAXFS_BYPASS_WHOLE.  The caller unpins
 * and frees what @z holds in every case.
 */
static int zc_gather(struct zc_segs *z, struct dfs_node *n, int fd, size_t len, uint64_t off)
{
	uint64_t rs = (uint64_t)1 << dfs_opt.range_shift;
	char *win = dc_mmapbe_window(dfs_be);
	size_t done = 0, chunk;
	int err;

	while (done < len) {
		if (z->nseg == ZC_MAX_SEGS)
			return 0;	/* copy */
		err = dc_map(n->dci, off + done, dfs_map_flags, &z->pins[z->npins]);
		if (err == DC_MAP_BYPASS) {
			uint64_t o = off + done;

			chunk = rs - (o & (rs - 1)) < len - done ?
				(size_t)(rs - (o & (rs - 1))) : len - done;
			if (!done && chunk == len && dfs_opt.uring) {
				atomic_fetch_add_explicit(&dfs_n_bypassed, 1,
							  memory_order_relaxed);
				return DAXFS_BYPASS_WHOLE;
			}
			if (!z->bounce && !(z->bounce = malloc(len)))
				return -ENOMEM;
			atomic_fetch_add_explicit(&dfs_n_bypassed, 1, memory_order_relaxed);
			err = direct_copy(fd, z->bounce + done, chunk, o, false);
			if (err)
				return err;
			z->iov[z->nseg].iov_base = z->bounce + done;
		} else if (!err) {
			chunk = z->pins[z->npins].len < len - done ?
				(size_t)z->pins[z->npins].len : len - done;
			z->iov[z->nseg].iov_base = win + z->pins[z->npins].win_off;
			z->npins++;
		} else {
			return err;
		}
		z->iov[z->nseg++].iov_len = chunk;
		done += chunk;
	}
	return 1;
}

/*
 * vmsplice() the @nseg segments of @iov into the calling thread's pipe,
 * which takes references to the pages.  0, or -errno (-EIO: a page is past
 * the end of the source; the pipe is then closed, to be made anew).
 */
static int zc_splice(struct iovec *iov, unsigned int nseg)
{
	unsigned int i;
	ssize_t got;
	int ret;

	for (i = 0; i < nseg;) {
		got = vmsplice(zc_pipe[1], &iov[i], nseg - i, SPLICE_F_NONBLOCK);
		if (got < 0) {
			ret = -errno;
			if (ret == -EFAULT) {
				ret = -EIO;
				atomic_fetch_add_explicit(&dfs_n_zc_faults, 1,
							  memory_order_relaxed);
			}
			zc_pipe_close();	/* emptied the simple way */
			return ret;
		}
		while (i < nseg && (size_t)got >= iov[i].iov_len)
			got -= (ssize_t)iov[i++].iov_len;
		if (i < nseg) {
			iov[i].iov_base = (char *)iov[i].iov_base + got;
			iov[i].iov_len -= (size_t)got;
		}
	}
	return 0;
}

/*
 * Reply to the read of [@off, @off + @len) of @n, within the size, from the
 * window (see above); a range the cache bypasses is pread() from @fd into a
 * buffer spliced likewise (a read that bypasses whole is replied from the
 * buffer with fuse_reply_buf(), and not counted in zero_copy_reads).
 * Called with n->io_lock held shared.  Return: 1 replied; 0 not replied,
 * copy instead (no pipe, too many ranges); -errno not replied: -EIO when a
 * page or range is past the end of the source (the caller falls back to
 * pread()), or the error of dc_map(); DAXFS_BYPASS_WHOLE (--io-engine=uring)
 * not replied: the cache bypasses all of it, the caller serves it through
 * the ring.
 */
static int zc_read(fuse_req_t req, struct dfs_node *n, int fd, size_t len, uint64_t off)
{
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(len);
	struct zc_segs z;
	unsigned int i;
	int ret;

	if (!zc_pipe_get(len))
		return 0;
	z.npins = z.nseg = 0;
	z.bounce = NULL;
	ret = zc_gather(&z, n, fd, len, off);
	if (ret != 1)
		goto out;
	if (!z.npins) {
		/* All bypassed: read into @bounce already, a splice would cost more. */
		fuse_reply_buf(req, z.bounce, len);
		goto out;	/* 1: replied */
	}
	/* The pipe takes references to the pages; EFAULT: one is past the end. */
	ret = zc_splice(z.iov, z.nseg);
	if (ret)
		goto out;
	bv.buf[0].flags = FUSE_BUF_IS_FD;
	bv.buf[0].fd = zc_pipe[0];
	/*
	 * An error is answered to the request by fuse_reply_data() itself;
	 * it may leave bytes in the pipe, which is then made anew.
	 */
	T_REPLY();
	if (fuse_reply_data(req, &bv, FUSE_BUF_SPLICE_MOVE))
		zc_pipe_close();
	atomic_fetch_add_explicit(&dfs_n_zc_reads, 1, memory_order_relaxed);
	ret = 1;
out:
	for (i = 0; i < z.npins; i++)
		dc_unpin(&z.pins[i]);
	free(z.bounce);
	return ret;
}

/*
 * atime of reads served from the window.  A copy from (or a splice of) a
 * shared mapping of the source does not touch atime: only the mmap() of a
 * range (a miss) does, and a read pread() serves.  So the first read from
 * the window after an open, a write or a setattr through daxfs reads one
 * byte of it with pread() too, and the source's filesystem updates atime
 * by its own rule (relatime: when atime is not later than mtime or ctime;
 * noatime: never).  Later reads leave it, as relatime does once atime is
 * later than mtime and ctime, until the 24 hours relatime also counts have
 * passed: a file held open and read for longer keeps its atime until the
 * next open, write or setattr (strictatime would update it on every read).
 * One system call per open or write instead of one per read.
 */
static void touch_atime(struct dfs_node *n, int fd, uint64_t off)
{
	char c;

	if (atomic_load_explicit(&n->atime_due, memory_order_relaxed) &&
	    atomic_exchange_explicit(&n->atime_due, false, memory_order_relaxed) &&
	    pread(fd, &c, 1, (off_t)off) < 0)
		atomic_store_explicit(&n->atime_due, true, memory_order_relaxed);
}

/*
 * The copy of a read of @size bytes at @off of @n into @buf through the
 * window (unless zc_read() failed already, with @err), and when a page or
 * range is past the end, the fallback to pread() from @fd; *@gotp the bytes
 * read.  0, -errno, or DAXFS_BYPASS_WHOLE (nothing read: the ring serves it).
 */
static int read_copy(struct dfs_node *n, int fd, char *buf, size_t size, off_t off,
		     int err, ssize_t *gotp)
{
	*gotp = (ssize_t)size;
	if (!err)
		err = window_copy(n, fd, buf, size, (uint64_t)off, false);
	if (!err || err == DAXFS_BYPASS_WHOLE)
		return err;
	/*
	 * A page or range past the end: the source shrank behind
	 * our back, and the cached size is wrong.  The next read
	 * refreshes it (and punches the window past the new end).
	 */
	dc_attr_expire(n->attr);
	atomic_fetch_add_explicit(&dfs_n_fallbacks, 1, memory_order_relaxed);
	*gotp = pread(fd, buf, size, off);
	return *gotp < 0 ? -errno : 0;
}

void dfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
	      struct fuse_file_info *fi)
{
	struct dfs_node *n = dfs_get_node(ino);
	char small[DAXFS_ZC_MIN], *buf = small;
	bool direct = !n->dci;
	uint64_t fsize;
	ssize_t got = 0;
	int err = 0;

	if (n == &dfs_stats_node) {
		dfs_stats_read(req, fi, size, off);
		return;
	}
	T_START();
	atomic_fetch_add_explicit(&dfs_n_reads, 1, memory_order_relaxed);
	pthread_rwlock_rdlock(&n->io_lock);
	if (!direct) {
		err = read_size(n, (uint64_t)off, size, &fsize);
		if (err || (uint64_t)off >= fsize)
			goto out;
		if ((uint64_t)size > fsize - (uint64_t)off)
			size = (size_t)(fsize - (uint64_t)off);
		touch_atime(n, (int)fi->fh, (uint64_t)off);
		err = size >= DAXFS_ZC_MIN && size <= zc_max ?
		      zc_read(req, n, (int)fi->fh, size, (uint64_t)off) : 0;
		if (err == 1) {
			pthread_rwlock_unlock(&n->io_lock);
			T_END();
			return;
		}
		if (err == DAXFS_BYPASS_WHOLE)
			goto ring;
	}
	if (direct && dfs_opt.uring)
		goto ring;
	/* --no-dax, declined; or above zc_max, no pipe, too many ranges. */
	if (size > sizeof(small) && !(buf = malloc(size))) {
		err = -ENOMEM;
		goto out;
	}
	if (direct) {
		got = pread((int)fi->fh, buf, size, off);
		err = got < 0 ? -errno : 0;
		goto out;
	}
	err = read_copy(n, (int)fi->fh, buf, size, off, err, &got);
	if (err == DAXFS_BYPASS_WHOLE) {
		if (buf != small)
			free(buf);
		goto ring;
	}
out:
	pthread_rwlock_unlock(&n->io_lock);
	if (err)
		fuse_reply_err(req, -err);
	else {
		T_REPLY();
		fuse_reply_buf(req, buf, (size_t)got);
	}
	if (buf != small)
		free(buf);
	T_END();
	return;
ring:
	/* Served, and replied to, by the completion thread. */
	pthread_rwlock_unlock(&n->io_lock);
	dfs_uring_io(req, n, (int)fi->fh, NULL, size, (uint64_t)off);
}

/*
 * mtime and ctime of a write through the window.  A store into the shared
 * mapping updates them only when it faults: on the first write to a clean
 * page, not on a page already dirty.  So every window write sets them as
 * the write() it replaces would: futimens() with UTIME_NOW for mtime (ctime
 * follows), one system call that touches no data.  (A write of 0 bytes
 * updates nothing; rewriting one byte would, but races with a writer on
 * SRC.)  As write() does (file_update_time()), it is skipped when both
 * times, as fstat() @st showed them before the copy, are not older than
 * the coarse clock the kernel stamps them with: a write in the same tick
 * would not move them either.  That skips most writes of a stream: one
 * futimens() per write cost four times the time of 4 KiB writes (a journal
 * update each).  futimens() with UTIME_OMIT needs the file's owner or
 * CAP_FOWNER: a daemon that is neither rewrites the first byte it wrote
 * instead.
 */
static int touch_mtime(int fd, const struct stat *st, const char *buf, uint64_t off)
{
	static const struct timespec now[2] = {
		{ .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_NOW },
	};
	struct timespec tick;

	if (!clock_gettime(CLOCK_REALTIME_COARSE, &tick) &&
	    ts_ns(&st->st_mtim) >= ts_ns(&tick) && ts_ns(&st->st_ctim) >= ts_ns(&tick))
		return 0;
	if (!futimens(fd, now))
		return 0;
	if (errno != EPERM)
		return -errno;
	return pwrite(fd, buf, 1, (off_t)off) == 1 ? 0 : -errno;
}

/*
 * What a local filesystem does on a write by a user without CAP_FSETID:
 * clear setuid, and setgid on a group-executable file or when the writer
 * is not in the file's group.  With the page cache the kernel does it
 * itself (a SETATTR before the WRITE); with direct_io it leaves it to the
 * server (FUSE_WRITE_KILL_SUIDGID, which libfuse 3.14 does not pass on),
 * and daxfs's own write, as root, would keep them.  The caller's uid 0
 * stands for CAP_FSETID.  @st: the source's attributes, or NULL (then
 * fstat()ed).  0 or -errno.
 */
static int kill_priv(fuse_req_t req, int fd, const struct stat *st)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct stat own;
	mode_t kill = 0;

	if (!dfs_opt.direct_io || !ctx->uid)
		return 0;
	if (!st) {
		if (fstat(fd, &own))
			return -errno;
		st = &own;
	}
	if (!S_ISREG(st->st_mode) || !(st->st_mode & (S_ISUID | S_ISGID)))
		return 0;
	if (st->st_mode & S_ISUID)
		kill |= S_ISUID;
	if ((st->st_mode & S_ISGID) &&
	    ((st->st_mode & S_IXGRP) || !dfs_caller_in_group(req, st->st_gid)))
		kill |= S_ISGID;
	if (kill && fchmod(fd, st->st_mode & 07777 & ~kill))
		return -errno;
	return 0;
}

/* write_window(): not written, write it with pwrite() (or through the ring). */
#define WRITE_PLAIN	1

/*
 * Write @size bytes of @buf at @off of @n, open as @fd (with O_APPEND:
 * @append), through the window if it may go there; with n->io_lock held
 * shared.  0 written, -errno failed, or WRITE_PLAIN: the caller writes it
 * (setuid and setgid are cleared, as kill_priv() does, in every case).
 */
static int write_window(fuse_req_t req, struct dfs_node *n, int fd, bool append,
			const char *buf, size_t size, off_t off)
{
	struct stat st;
	int err;

	if (!n->dci || append) {
		err = kill_priv(req, fd, NULL);
		return err ? err : WRITE_PLAIN;
	}
	/*
	 * The default policy writes with pwrite(), never through the window.
	 * With this backend a window write saves one system call, but makes
	 * its mapping writable: a setup that maps the whole range anew (its
	 * page tables dropped), a write fault on every clean page, and a
	 * writeback - msync(MS_SYNC), a wait for the disk - when the range is
	 * reclaimed, on the thread whose miss reclaims it.  Under fio's 75/25
	 * random mix on a file 4x the window that writeback held reads for
	 * milliseconds.  pwrite() goes to the page cache the window maps
	 * (MAP_SHARED), so mapped ranges see the bytes at once, and fsync's
	 * fdatasync() makes them stable like every other direct write.
	 */
	if (dfs_map_flags & DC_MAP_MAY_BYPASS) {
		atomic_fetch_add_explicit(&dfs_n_direct_writes, 1, memory_order_relaxed);
		err = kill_priv(req, fd, NULL);
		return err ? err : WRITE_PLAIN;
	}
	/*
	 * Writes still fstat() the source: a cached size larger than the
	 * file (shrunk behind our back) would send a write past its end
	 * through the window, where bytes on the last page past the end are
	 * silently lost instead of extending the file.
	 */
	err = dfs_stat_fd(n->map_fd, &st);
	if (!err)
		err = kill_priv(req, fd, &st);
	if (err)
		return err;
	if ((uint64_t)off + size > (uint64_t)st.st_size) {
		atomic_fetch_add_explicit(&dfs_n_ext_writes, 1, memory_order_relaxed);
		return WRITE_PLAIN;
	}
	err = window_copy(n, fd, (char *)buf, size, (uint64_t)off, true);
	if (!err)
		return touch_mtime(fd, &st, buf, (uint64_t)off);
	if (err != DAXFS_BYPASS_WHOLE)	/* that one goes to the ring */
		atomic_fetch_add_explicit(&dfs_n_fallbacks, 1, memory_order_relaxed);
	return WRITE_PLAIN;
}

void dfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
	       off_t off, struct fuse_file_info *fi)
{
	struct dfs_node *n = dfs_get_node(ino);
	ssize_t done = (ssize_t)size;
	int err;

	if (dfs_stats_refuse(req, n, EBADF))
		return;
	atomic_fetch_add_explicit(&dfs_n_writes, 1, memory_order_relaxed);
	/* mtime moves: relatime updates atime at the next read. */
	atomic_store_explicit(&n->atime_due, true, memory_order_relaxed);
	pthread_rwlock_rdlock(&n->io_lock);
	err = write_window(req, n, (int)fi->fh, fi->flags & O_APPEND, buf, size, off);
	if (err == WRITE_PLAIN) {
		if (dfs_opt.uring) {
			pthread_rwlock_unlock(&n->io_lock);
			dfs_uring_io(req, n, (int)fi->fh, buf, size, (uint64_t)off);
			return;
		}
		done = pwrite((int)fi->fh, buf, size, off);
		err = done < 0 ? -errno : 0;
	}
	/* The cached size grows to what we wrote (reads need no refresh). */
	if (!err && n->attr)
		dc_attr_note_write(n->attr, (uint64_t)off + (uint64_t)done,
				   DC_ATTR_MTIME_UNKNOWN, dfs_mono_ns());
	pthread_rwlock_unlock(&n->io_lock);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_write(req, (size_t)done);
}
