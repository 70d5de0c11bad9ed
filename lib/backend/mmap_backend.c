// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: mmap_backend.c - the mmap window backend (see include/daxcache/mmap_backend.h).
 *
 * Userspace only: this file is not part of the kernel build.
 *
 * The file table is a small array searched linearly under a mutex; the
 * mutex is held only to look up a descriptor, never across a system call,
 * so setups of different ranges run in parallel.  The cache never runs two
 * operations on one window range at once, and MAP_FIXED replaces whatever
 * was there atomically, so the window needs no lock of its own.
 *
 * Copies and SIGBUS.  A window page whose file page is gone (the file was
 * truncated behind the mapping, by this program or by any other) raises
 * SIGBUS when it is touched.  dc_mmapbe_read() and dc_mmapbe_write() copy
 * under a guard: a record on the copier's stack (the page-aligned window
 * span the copy touches and a sigjmp_buf) that a thread-local pointer names
 * while the copy runs.  One process-wide SIGBUS handler, installed by the
 * first dc_mmapbe_create(), jumps back into the copy when the fault is a
 * memory fault inside the span of the calling thread's guard; any other
 * SIGBUS goes to the action that was installed before it, with that
 * action's flags and mask, or to the default action.
 *
 * sigsetjmp() does not save the signal mask (no system call on the hit
 * path): before it jumps, the handler sets the mask the fault interrupted
 * (uc_sigmask of its ucontext), which is what the kernel would have
 * restored had it returned.  (It runs with SA_NODEFER and an empty sa_mask,
 * so that is usually the mask it runs with anyway; a runtime such as
 * ThreadSanitizer may run it with more blocked.)
 *
 * Callers: the cache, through dc_mmapbe_ops(); filesystems, which add and
 * remove files and copy through dc_mmapbe_read() and dc_mmapbe_write().
 */
#include "platform.h"
#include "struct_size.h"

#include <daxcache/mmap_backend.h>

#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#define MMAPBE_MIN_SHIFT	12u
#define MMAPBE_MAX_SHIFT	40u

struct mmapbe_file {
	uint64_t ino;
	int fd;
};

struct dc_mmapbe {
	unsigned char *base;
	uint64_t window_size;
	uint64_t range_size;
	uintptr_t page_mask;		/* page size - 1 */
	dci_mutex_t lock;		/* guards files, nr_files, cap_files */
	struct mmapbe_file *files;
	size_t nr_files;
	size_t cap_files;
};

/* Called with be->lock held. */
static struct mmapbe_file *mmapbe_find(struct dc_mmapbe *be, uint64_t ino)
{
	size_t i;

	for (i = 0; i < be->nr_files; i++)
		if (be->files[i].ino == ino)
			return &be->files[i];
	return NULL;
}

/* A window range: aligned to the range size and inside the window. */
static bool mmapbe_range_ok(const struct dc_mmapbe *be, uint64_t win_off,
			    uint64_t len)
{
	uint64_t mask = be->range_size - 1;

	return len && !(win_off & mask) && !(len & mask) &&
	       win_off < be->window_size && len <= be->window_size - win_off;
}

/* Put PROT_NONE anonymous memory back over a window range. */
static int mmapbe_reserve(struct dc_mmapbe *be, uint64_t win_off, uint64_t len)
{
	void *p = mmap(be->base + win_off, len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? -errno : 0;
}

static int mmapbe_setup(void *priv, uint64_t ino, uint64_t file_off,
			uint64_t win_off, uint64_t len, unsigned int flags)
{
	struct dc_mmapbe *be = priv;
	struct mmapbe_file *f;
	struct stat st;
	int prot = PROT_READ;
	void *p;
	int fd, ret;

	if (!be || !mmapbe_range_ok(be, win_off, len) ||
	    (file_off & (be->range_size - 1)) || file_off > (uint64_t)INT64_MAX)
		return -EINVAL;
	dci_mutex_lock(&be->lock);
	f = mmapbe_find(be, ino);
	fd = f ? f->fd : -1;
	dci_mutex_unlock(&be->lock);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st))
		return -errno;
	if ((int64_t)file_off >= (int64_t)st.st_size)
		return -ENXIO;
	if (flags & DC_MAP_WRITE)
		prot |= PROT_WRITE;
	p = mmap(be->base + win_off, len, prot, MAP_SHARED | MAP_FIXED, fd,
		 (off_t)file_off);
	if (p == MAP_FAILED) {
		ret = -errno;
		/*
		 * A failed MAP_FIXED may have unmapped the old range: reserve
		 * it again so that nothing else is placed in the window.
		 */
		mmapbe_reserve(be, win_off, len);
		return ret;
	}
	return 0;
}

static int mmapbe_remove(void *priv, const struct dc_remove_entry *entries,
			 unsigned int n)
{
	struct dc_mmapbe *be = priv;
	unsigned int i;
	int ret = 0, err;

	if (!be || (n && !entries))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!mmapbe_range_ok(be, entries[i].win_off, entries[i].len)) {
			ret = ret ? ret : -EINVAL;
			continue;
		}
		err = mmapbe_reserve(be, entries[i].win_off, entries[i].len);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

static int mmapbe_writeback(void *priv, uint64_t ino, uint64_t file_off,
			    uint64_t len, uint64_t win_off)
{
	struct dc_mmapbe *be = priv;

	if (!be || !mmapbe_range_ok(be, win_off, len))
		return -EINVAL;
	if (msync(be->base + win_off, len, MS_SYNC))
		return -errno;
	return 0;
}

/*
 * The guard of a copy in progress.  @prev is the guard of a copy that this
 * one interrupted (a copy made from a signal handler), restored when this
 * one ends.
 */
struct copy_guard {
	sigjmp_buf env;
	uintptr_t lo, hi;		/* page-aligned window span of the copy */
	struct copy_guard *prev;
};

/*
 * The calling thread's innermost copy, or NULL.  Initial-exec TLS: the
 * signal handler reads it, and a first access from a signal handler must
 * not allocate (as the dynamic TLS of a shared library may).  Zero until a
 * thread's first copy, so nothing needs initialising per thread.
 */
static __thread struct copy_guard *cur_guard __attribute__((tls_model("initial-exec")));

static pthread_once_t sigbus_once = PTHREAD_ONCE_INIT;
static int sigbus_err;
/* The SIGBUS action found at install time: where faults not ours go. */
static struct sigaction prev_action;
/* Set once a SA_RESETHAND previous action has been run: it is SIG_DFL now. */
static int prev_spent;

/* A memory fault of the calling thread inside @g's span? */
static bool guard_covers(const struct copy_guard *g, const siginfo_t *si)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	switch (si->si_code) {
	case BUS_ADRERR:	/* a page past the end of the file */
	case BUS_OBJERR:
#ifdef BUS_MCEERR_AR
	case BUS_MCEERR_AR:	/* a memory error consumed by the copy */
#endif
		return a >= g->lo && a < g->hi;
	default:		/* sent with kill() or raise(): not a fault */
		return false;
	}
}

/* The default action of SIGBUS: terminate the process (with a core). */
static void sigbus_default(void)
{
	struct sigaction sa;
	sigset_t bus;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	/* Usually unblocked already (SA_NODEFER); then this does not return. */
	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
	raise(SIGBUS);
}

/*
 * Hand a SIGBUS that is not ours to the previous action, as the kernel
 * would have: run with the interrupted mask plus its sa_mask (and SIGBUS
 * itself unless SA_NODEFER), SA_SIGINFO honoured, SA_RESETHAND honoured by
 * running it once and the default action afterwards.  An ignored SIGBUS
 * stays ignored when it was sent by a process; a fault cannot be ignored
 * (the kernel kills a process that ignores one), so it gets the default
 * action.
 */
static void sigbus_chain(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *pa = &prev_action;
	const ucontext_t *ctx = uc;
	sigset_t mask, saved;

	if (pa->sa_flags & SA_RESETHAND) {
		if (__atomic_exchange_n(&prev_spent, 1, __ATOMIC_SEQ_CST)) {
			sigbus_default();
			return;
		}
	}
	/* sa_handler and sa_sigaction share storage: SIG_DFL, SIG_IGN. */
	if (pa->sa_handler == SIG_IGN && si->si_code <= 0)
		return;
	if (pa->sa_handler == SIG_DFL || pa->sa_handler == SIG_IGN) {
		sigbus_default();
		return;
	}
	sigorset(&mask, &ctx->uc_sigmask, &pa->sa_mask);
	if (!(pa->sa_flags & SA_NODEFER))
		sigaddset(&mask, SIGBUS);
	pthread_sigmask(SIG_SETMASK, &mask, &saved);
	if (pa->sa_flags & SA_SIGINFO)
		pa->sa_sigaction(sig, si, uc);
	else
		pa->sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

static void sigbus_handler(int sig, siginfo_t *si, void *uc)
{
	struct copy_guard *g = __atomic_load_n(&cur_guard, __ATOMIC_RELAXED);
	int saved_errno = errno;

	if (g && guard_covers(g, si)) {
		__atomic_store_n(&cur_guard, g->prev, __ATOMIC_RELAXED);
		atomic_signal_fence(memory_order_seq_cst);
		pthread_sigmask(SIG_SETMASK, &((const ucontext_t *)uc)->uc_sigmask,
				NULL);
		siglongjmp(g->env, 1);
	}
	/*
	 * Not a fault of the copy (a fault elsewhere, or a SIGBUS sent to a
	 * thread that is copying): the program's handler may leave with
	 * siglongjmp, so no guard is left naming this copy while it runs;
	 * if it returns, the copy goes on under its guard.
	 */
	__atomic_store_n(&cur_guard, NULL, __ATOMIC_RELAXED);
	atomic_signal_fence(memory_order_seq_cst);
	sigbus_chain(sig, si, uc);
	atomic_signal_fence(memory_order_seq_cst);
	__atomic_store_n(&cur_guard, g, __ATOMIC_RELAXED);
	errno = saved_errno;
}

static void sigbus_install(void)
{
	struct sigaction sa;

	if (sigaction(SIGBUS, NULL, &prev_action)) {
		sigbus_err = -errno;
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigbus_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_NODEFER |
		      (prev_action.sa_flags & (SA_ONSTACK | SA_RESTART));
	if (sigaction(SIGBUS, &sa, NULL))
		sigbus_err = -errno;
}

/*
 * Copy @len bytes from @src to @dst; [@lo, @hi) is the window span of the
 * copy.  0, or -EIO if the copy faulted inside the span.  Nothing in this
 * frame changes between sigsetjmp() and a jump back.
 */
static int guarded_copy(void *dst, const void *src, size_t len, uintptr_t lo,
			uintptr_t hi)
{
	struct copy_guard g;

	g.lo = lo;
	g.hi = hi;
	g.prev = __atomic_load_n(&cur_guard, __ATOMIC_RELAXED);
	/* Back from the handler: it popped the guard and set the mask. */
	if (sigsetjmp(g.env, 0))
		return -EIO;
	__atomic_store_n(&cur_guard, &g, __ATOMIC_RELAXED);
	atomic_signal_fence(memory_order_seq_cst);
	dci_plat_window_copy(dst, src, len);
	atomic_signal_fence(memory_order_seq_cst);
	__atomic_store_n(&cur_guard, g.prev, __ATOMIC_RELAXED);
	return 0;
}

/*
 * Copy @len bytes from @src to @dst, one of which is @win in the window:
 * guarded over the window pages the copy touches.  0, or -EIO.
 */
static int window_copy(const struct dc_mmapbe *be, const unsigned char *win,
		       void *dst, const void *src, size_t len)
{
	uintptr_t lo, hi;

	if (!len)
		return 0;
	lo = (uintptr_t)win & ~be->page_mask;
	hi = ((uintptr_t)win + len + be->page_mask) & ~be->page_mask;
	return guarded_copy(dst, src, len, lo, hi);
}

/* The window address of [@off, @off + @len) of @pin, or NULL if outside. */
static unsigned char *pin_span(const struct dc_mmapbe *be,
			       const struct dc_pin *pin, uint64_t off,
			       size_t len)
{
	if (!be || !pin || pin->win_off > be->window_size ||
	    pin->len > be->window_size - pin->win_off || off > pin->len ||
	    len > pin->len - off)
		return NULL;
	return be->base + pin->win_off + off;
}

int dc_mmapbe_read(const struct dc_mmapbe *be,
		   const struct dc_pin *pin, uint64_t off, void *buf,
		   size_t len)
{
	unsigned char *src = pin_span(be, pin, off, len);

	if (!src || (!buf && len))
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	return window_copy(be, src, buf, src, len);
}
DCI_EXPORT(dc_mmapbe_read);

int dc_mmapbe_write(const struct dc_mmapbe *be,
		    const struct dc_pin *pin, uint64_t off,
		    const void *buf, size_t len)
{
	unsigned char *dst = pin_span(be, pin, off, len);

	if (!dst || (!buf && len))
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	if (!pin->writable)
		return -EPERM;
	return window_copy(be, dst, dst, buf, len);
}
DCI_EXPORT(dc_mmapbe_write);

static const struct dc_backend_ops mmapbe_ops = {
	.setup = mmapbe_setup,
	.remove = mmapbe_remove,
	.writeback = mmapbe_writeback,
};

const struct dc_backend_ops *dc_mmapbe_ops(void)
{
	return &mmapbe_ops;
}
DCI_EXPORT(dc_mmapbe_ops);

int dc_mmapbe_create(const struct dc_mmapbe_config *ucfg,
		     size_t size, struct dc_mmapbe **out)
{
	long page = sysconf(_SC_PAGESIZE);
	struct dc_mmapbe_config cfg;
	unsigned int range_shift;
	uint64_t window_size;
	struct dc_mmapbe *be;
	uint64_t rsize;
	void *p;
	int ret;

	ret = sized_create_in(out, &cfg, ucfg, size, DC_MMAPBE_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	if (dci_fork_check(__func__))
		return -ECHILD;
	window_size = cfg.window_size;
	range_shift = cfg.range_shift;
	if (range_shift < MMAPBE_MIN_SHIFT ||
	    range_shift > MMAPBE_MAX_SHIFT)
		return -EINVAL;
	rsize = 1ull << range_shift;
	if (page > 0 && rsize < (uint64_t)page)
		return -EINVAL;
	if (!window_size || (window_size & (rsize - 1)) ||
	    window_size > (uint64_t)SIZE_MAX)
		return -EINVAL;
	pthread_once(&sigbus_once, sigbus_install);
	dci_plat_window_copy_init();
	if (sigbus_err)
		return sigbus_err;
	be = dci_zalloc(sizeof(*be));
	if (!be)
		return -ENOMEM;
	p = mmap(NULL, window_size, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		dci_free(be);
		return ret;
	}
	be->base = p;
	be->window_size = window_size;
	be->range_size = rsize;
	be->page_mask = (uintptr_t)(page > 0 ? page : 4096) - 1;
	dci_mutex_init(&be->lock);
	*out = be;
	return 0;
}
DCI_EXPORT(dc_mmapbe_create);

void dc_mmapbe_destroy(struct dc_mmapbe *be)
{
	/* In a child forked unprepared, left to the exit: the lock may be held. */
	if (!be || dci_fork_check(__func__))
		return;
	munmap(be->base, be->window_size);
	dci_mutex_destroy(&be->lock);
	dci_free(be->files);
	dci_free(be);
}
DCI_EXPORT(dc_mmapbe_destroy);

void *dc_mmapbe_window(const struct dc_mmapbe *be)
{
	return be ? be->base : NULL;
}
DCI_EXPORT(dc_mmapbe_window);

int dc_mmapbe_add_file(struct dc_mmapbe *be, uint64_t ino, int fd)
{
	struct mmapbe_file *files;
	struct stat st;
	int ret = 0;

	if (!be)
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	if (fd < 0 || fstat(fd, &st))
		return -EBADF;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	dci_mutex_lock(&be->lock);
	if (mmapbe_find(be, ino)) {
		ret = -EEXIST;
		goto out;
	}
	if (be->nr_files == be->cap_files) {
		size_t cap = be->cap_files ? 2 * be->cap_files : 8;

		/* dci_alloc, not realloc: every allocation has a fault site. */
		files = dci_alloc(cap * sizeof(*files));
		if (!files) {
			ret = -ENOMEM;
			goto out;
		}
		if (be->nr_files)
			memcpy(files, be->files, be->nr_files * sizeof(*files));
		dci_free(be->files);
		be->files = files;
		be->cap_files = cap;
	}
	be->files[be->nr_files].ino = ino;
	be->files[be->nr_files].fd = fd;
	be->nr_files++;
out:
	dci_mutex_unlock(&be->lock);
	return ret;
}
DCI_EXPORT(dc_mmapbe_add_file);

int dc_mmapbe_remove_file(struct dc_mmapbe *be, uint64_t ino)
{
	struct mmapbe_file *f;
	int ret = 0;

	if (!be)
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	dci_mutex_lock(&be->lock);
	f = mmapbe_find(be, ino);
	if (f)
		*f = be->files[--be->nr_files];
	else
		ret = -ENOENT;
	dci_mutex_unlock(&be->lock);
	return ret;
}
DCI_EXPORT(dc_mmapbe_remove_file);
