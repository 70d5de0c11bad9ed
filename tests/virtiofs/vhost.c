// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxvfsd's vhost-user side: the front-end's messages on the main socket,
 * guest memory, the split virtqueues and their worker threads, and the
 * backend channel on which the DAX window is mapped (BACKEND_SHMEM_MAP and
 * BACKEND_SHMEM_UNMAP, vhost-user protocol feature SHMEM).
 *
 * Threads: the main thread serves the main socket; one dispatcher per
 * started virtqueue pops descriptor chains and queues them; WORKERS worker
 * threads serve them (fs.c) and complete them out of order.  Guest memory
 * is read and written only under mem_lock (read side), never while waiting
 * for the front-end: a map on the backend channel makes QEMU send the
 * memory table (ADD_MEM_REG, REM_MEM_REG or SET_MEM_TABLE: write side),
 * after it has answered the map, and a worker waits for that table before
 * it tells the guest the range is mapped (window_wait()).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <linux/virtio_ring.h>

#include "daxvfsd.h"

enum {
	VU_GET_FEATURES = 1,
	VU_SET_FEATURES = 2,
	VU_SET_OWNER = 3,
	VU_RESET_OWNER = 4,
	VU_SET_MEM_TABLE = 5,
	VU_SET_LOG_BASE = 6,
	VU_SET_LOG_FD = 7,
	VU_SET_VRING_NUM = 8,
	VU_SET_VRING_ADDR = 9,
	VU_SET_VRING_BASE = 10,
	VU_GET_VRING_BASE = 11,
	VU_SET_VRING_KICK = 12,
	VU_SET_VRING_CALL = 13,
	VU_SET_VRING_ERR = 14,
	VU_GET_PROTOCOL_FEATURES = 15,
	VU_SET_PROTOCOL_FEATURES = 16,
	VU_GET_QUEUE_NUM = 17,
	VU_SET_VRING_ENABLE = 18,
	VU_SET_BACKEND_REQ_FD = 21,
	VU_GET_CONFIG = 24,
	VU_SET_CONFIG = 25,
	VU_GET_MAX_MEM_SLOTS = 36,
	VU_ADD_MEM_REG = 37,
	VU_REM_MEM_REG = 38,
	VU_GET_SHMEM_CONFIG = 44,
};

enum {
	VU_BACKEND_SHMEM_MAP = 9,
	VU_BACKEND_SHMEM_UNMAP = 10,
};

#define VU_VERSION		0x1u
#define VU_FLAG_REPLY		(1u << 2)
#define VU_FLAG_NEED_REPLY	(1u << 3)

#define F_PROTOCOL_FEATURES	30
#define F_VERSION_1		32
#define PF_REPLY_ACK		3
#define PF_BACKEND_REQ		5
#define PF_CONFIG		9
#define PF_BACKEND_SEND_FD	10
#define PF_CONFIGURE_MEM_SLOTS	15
#define PF_SHMEM		22

#define MAX_REGIONS		8	/* in one SET_MEM_TABLE */
#define MAX_SLOTS		64	/* with ADD_MEM_REG */
#define MAX_FDS			8
#define MAX_QUEUES		8
#define MAX_SEGS		1024

struct vu_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
} __attribute__((packed));

struct vu_state {
	uint32_t index;
	uint32_t num;
};

struct vu_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc;
	uint64_t used;
	uint64_t avail;
	uint64_t log;
};

struct vu_region_msg {
	uint64_t gpa;
	uint64_t size;
	uint64_t uaddr;
	uint64_t offset;
};

struct vu_shmem_map {
	uint8_t shmid;
	uint8_t pad[7];
	uint64_t fd_offset;
	uint64_t shm_offset;
	uint64_t len;
	uint64_t flags;
};

union vu_payload {
	uint64_t u64;
	struct vu_state state;
	struct vu_addr addr;
	struct {
		uint32_t nregions;
		uint32_t pad;
		struct vu_region_msg r[MAX_REGIONS];
	} mem;
	struct {
		uint64_t pad;
		struct vu_region_msg r;
	} memreg;
	struct {
		uint32_t offset;
		uint32_t size;
		uint32_t flags;
		uint8_t data[256];
	} config;
	struct {
		uint32_t nregions;
		uint32_t pad;
		uint64_t sizes[256];
	} shmem;
	uint8_t bytes[4096];
};

struct region {
	uint64_t gpa, size, uaddr;
	uint8_t *host;		/* the mapping's start */
	size_t maplen;
	uint64_t offset;	/* of gpa within the mapping */
	uint64_t fd_offset;	/* of gpa in the file */
	dev_t dev;		/* the file */
	ino_t ino;
};

/* A segment of a descriptor chain: guest-physical, translated at use. */
struct seg {
	uint64_t gpa;
	uint32_t len;
	int writable;
};

struct job {
	struct job *next;
	struct vq *vq;
	uint16_t head;
	int nsegs;
	struct seg segs[];
};

struct vq {
	unsigned int index;
	unsigned int num;
	uint64_t desc_ua, avail_ua, used_ua;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t last_avail;
	uint16_t used_idx;
	int kick, call, stopfd;
	int enabled;
	int running;
	int stop;
	int inflight;
	pthread_t thread;
	pthread_mutex_t lock;	/* used ring, inflight */
	pthread_cond_t idle;
};

static pthread_rwlock_t mem_lock = PTHREAD_RWLOCK_INITIALIZER;
/*
 * A map or unmap waits on mem_cond (under mem_wait_lock) for the memory
 * table to show it; the main thread broadcasts every change.
 */
static pthread_mutex_t mem_wait_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mem_cond = PTHREAD_COND_INITIALIZER;
/* The window's guest-physical address, once a map has shown it (mem_wait_lock). */
static uint64_t window_gpa;
static int window_gpa_known;
static struct region regions[MAX_SLOTS];
static int nregions;
static struct vq vqs[MAX_QUEUES];

static uint64_t acked_protocol;
static int backend_fd = -1;
static pthread_mutex_t backend_lock = PTHREAD_MUTEX_INITIALIZER;

static int vtrace;	/* DAXVFSD_TRACE=1: memory table and backend channel on stderr */

static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_cond = PTHREAD_COND_INITIALIZER;
static struct job *jobs_head, **jobs_tail = &jobs_head;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Under mem_lock: the host address of guest-physical [gpa, gpa + len). */
static void *gpa_host(uint64_t gpa, uint64_t len)
{
	int i;

	for (i = 0; i < nregions; i++) {
		struct region *r = &regions[i];

		if (gpa >= r->gpa && len <= r->size && gpa - r->gpa <= r->size - len)
			return r->host + r->offset + (gpa - r->gpa);
	}
	return NULL;
}

/* Under mem_lock: the host address of front-end address [ua, ua + len). */
static void *ua_host(uint64_t ua, uint64_t len)
{
	int i;

	for (i = 0; i < nregions; i++) {
		struct region *r = &regions[i];

		if (ua >= r->uaddr && len <= r->size && ua - r->uaddr <= r->size - len)
			return r->host + r->offset + (ua - r->uaddr);
	}
	return NULL;
}

/* Under mem_lock (write side, or before the ring runs). */
static void vq_translate(struct vq *vq)
{
	if (!vq->num || !vq->desc_ua)
		return;
	vq->desc = ua_host(vq->desc_ua, 16ull * vq->num);
	vq->avail = ua_host(vq->avail_ua, 4 + 2ull * vq->num);
	vq->used = ua_host(vq->used_ua, 4 + 8ull * vq->num);
}

/* --- virtqueues ------------------------------------------------------------ */

static int chain_add(struct job *job, int max, uint64_t addr, uint32_t len, int writable)
{
	if (job->nsegs >= max)
		return -1;
	job->segs[job->nsegs].gpa = addr;
	job->segs[job->nsegs].len = len;
	job->segs[job->nsegs].writable = writable;
	job->nsegs++;
	return 0;
}

/* Under mem_lock: the chain at head, flattened (indirect tables too). */
static struct job *chain_read(struct vq *vq, uint16_t head)
{
	struct job *job = malloc(sizeof(*job) + MAX_SEGS * sizeof(struct seg));
	unsigned int i = head, steps = 0;

	if (!job)
		die("malloc");
	job->vq = vq;
	job->head = head;
	job->nsegs = 0;
	for (;;) {
		struct vring_desc d;

		if (i >= vq->num || ++steps > vq->num)
			goto bad;
		d = vq->desc[i];
		if (d.flags & VRING_DESC_F_INDIRECT) {
			struct vring_desc *t = gpa_host(d.addr, d.len);
			unsigned int n = d.len / sizeof(*t), j = 0, k = 0;

			if (!t || !n)
				goto bad;
			for (;;) {
				if (j >= n || ++k > n)
					goto bad;
				if (chain_add(job, MAX_SEGS, t[j].addr, t[j].len,
					      !!(t[j].flags & VRING_DESC_F_WRITE)))
					goto bad;
				if (!(t[j].flags & VRING_DESC_F_NEXT))
					break;
				j = t[j].next;
			}
		} else if (chain_add(job, MAX_SEGS, d.addr, d.len,
				     !!(d.flags & VRING_DESC_F_WRITE))) {
			goto bad;
		}
		if (!(d.flags & VRING_DESC_F_NEXT))
			break;
		i = d.next;
	}
	return job;
bad:
	fprintf(stderr, "daxvfsd: queue %u: bad descriptor chain at %u\n", vq->index, head);
	job->nsegs = 0;
	return job;
}

static void *dispatcher(void *arg)
{
	struct vq *vq = arg;
	struct pollfd p[2] = {
		{ .fd = vq->kick, .events = POLLIN },
		{ .fd = vq->stopfd, .events = POLLIN },
	};
	uint64_t v;

	for (;;) {
		if (__atomic_load_n(&vq->stop, __ATOMIC_ACQUIRE))
			break;
		pthread_rwlock_rdlock(&mem_lock);
		while (__atomic_load_n(&vq->enabled, __ATOMIC_ACQUIRE) && vq->avail &&
		       vq->last_avail != __atomic_load_n(&vq->avail->idx, __ATOMIC_ACQUIRE)) {
			uint16_t head = vq->avail->ring[vq->last_avail % vq->num];
			struct job *job;

			vq->last_avail++;
			job = chain_read(vq, head);
			pthread_mutex_lock(&vq->lock);
			vq->inflight++;
			pthread_mutex_unlock(&vq->lock);
			pthread_mutex_lock(&jobs_lock);
			job->next = NULL;
			*jobs_tail = job;
			jobs_tail = &job->next;
			pthread_cond_signal(&jobs_cond);
			pthread_mutex_unlock(&jobs_lock);
		}
		pthread_rwlock_unlock(&mem_lock);
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			die("poll");
		if (p[0].revents & POLLIN)
			(void)!read(vq->kick, &v, sizeof(v));
		if (p[1].revents & POLLIN)
			(void)!read(vq->stopfd, &v, sizeof(v));
	}
	return NULL;
}

/* Copy the chain's readable part into buf; returns its length. */
static size_t job_gather(struct job *job, uint8_t *buf, size_t max)
{
	size_t n = 0;
	int i;

	pthread_rwlock_rdlock(&mem_lock);
	for (i = 0; i < job->nsegs && !job->segs[i].writable; i++) {
		size_t len = job->segs[i].len;
		void *src;

		if (len > max - n)
			len = max - n;
		src = gpa_host(job->segs[i].gpa, len);
		if (!src)
			break;
		memcpy(buf + n, src, len);
		n += len;
	}
	pthread_rwlock_unlock(&mem_lock);
	return n;
}

static size_t job_room(struct job *job)
{
	size_t n = 0;
	int i;

	for (i = 0; i < job->nsegs; i++)
		if (job->segs[i].writable)
			n += job->segs[i].len;
	return n;
}

/* Scatter the reply into the writable part, publish the chain as used. */
static void job_complete(struct job *job, const uint8_t *buf, size_t len)
{
	struct vq *vq = job->vq;
	size_t n = 0;
	uint16_t flags = 0;
	int i;

	pthread_rwlock_rdlock(&mem_lock);
	for (i = 0; i < job->nsegs && n < len; i++) {
		size_t l = job->segs[i].len;
		void *dst;

		if (!job->segs[i].writable)
			continue;
		if (l > len - n)
			l = len - n;
		dst = gpa_host(job->segs[i].gpa, l);
		if (!dst)
			break;
		memcpy(dst, buf + n, l);
		n += l;
	}
	pthread_mutex_lock(&vq->lock);
	if (vq->used) {
		struct vring_used_elem *e = &vq->used->ring[vq->used_idx % vq->num];

		e->id = job->head;
		e->len = n;
		vq->used_idx++;
		__atomic_store_n(&vq->used->idx, vq->used_idx, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		flags = __atomic_load_n(&vq->avail->flags, __ATOMIC_ACQUIRE);
	}
	if (!(flags & VRING_AVAIL_F_NO_INTERRUPT) && vq->call >= 0) {
		uint64_t one = 1;

		(void)!write(vq->call, &one, sizeof(one));
	}
	if (--vq->inflight == 0)
		pthread_cond_broadcast(&vq->idle);
	pthread_mutex_unlock(&vq->lock);
	pthread_rwlock_unlock(&mem_lock);
}

static void *worker(void *arg)
{
	size_t cap = 1u << 20;
	uint8_t *in = malloc(cap), *out = malloc(cap);

	(void)arg;
	if (!in || !out)
		die("malloc");
	for (;;) {
		struct job *job;
		size_t inlen, outlen = 0, room;

		pthread_mutex_lock(&jobs_lock);
		while (!jobs_head)
			pthread_cond_wait(&jobs_cond, &jobs_lock);
		job = jobs_head;
		jobs_head = job->next;
		if (!jobs_head)
			jobs_tail = &jobs_head;
		pthread_mutex_unlock(&jobs_lock);

		inlen = job_gather(job, in, cap);
		room = job_room(job);
		if (room > cap)
			room = cap;
		if (job->nsegs)
			outlen = fs_request(in, inlen, out, room);
		job_complete(job, out, outlen);
		if (vtrace && inlen >= 8 && (in[4] == FUSE_SETUPMAPPING || in[4] == FUSE_REMOVEMAPPING))
			fprintf(stderr, "daxvfsd: %.3f worker: %s completed to the guest\n", now_ms(),
				in[4] == FUSE_SETUPMAPPING ? "SETUPMAPPING" : "REMOVEMAPPING");
		free(job);
	}
	return NULL;
}

static void vq_stop(struct vq *vq)
{
	uint64_t one = 1;
	struct timespec ts;

	if (!vq->running)
		return;
	__atomic_store_n(&vq->stop, 1, __ATOMIC_RELEASE);
	(void)!write(vq->stopfd, &one, sizeof(one));
	pthread_join(vq->thread, NULL);
	vq->running = 0;
	vq->stop = 0;
	/* In-flight requests end (bounded: one may wait on the front-end). */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	pthread_mutex_lock(&vq->lock);
	while (vq->inflight && pthread_cond_timedwait(&vq->idle, &vq->lock, &ts) == 0)
		;
	pthread_mutex_unlock(&vq->lock);
}

static void vq_start(struct vq *vq)
{
	vq->stopfd = eventfd(0, EFD_CLOEXEC);
	if (vq->stopfd < 0)
		die("eventfd");
	vq->running = 1;
	if (pthread_create(&vq->thread, NULL, dispatcher, vq))
		die("pthread_create");
}

static void vq_wake(struct vq *vq)
{
	uint64_t one = 1;

	if (vq->running)
		(void)!write(vq->stopfd, &one, sizeof(one));
}

/* --- the DAX window: the backend channel -------------------------------- */

static int backend_call(uint32_t req, const struct vu_shmem_map *m, int fd)
{
	struct {
		struct vu_hdr h;
		struct vu_shmem_map m;
	} __attribute__((packed)) msg;
	struct {
		struct vu_hdr h;
		uint64_t u64;
	} __attribute__((packed)) rep;
	char control[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &msg, sizeof(msg) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;
	size_t got = 0;
	int need_reply = !!(acked_protocol & (1ull << PF_REPLY_ACK));

	msg.h.request = req;
	msg.h.flags = VU_VERSION | (need_reply ? VU_FLAG_NEED_REPLY : 0);
	msg.h.size = sizeof(msg.m);
	msg.m = *m;
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(control, 0, sizeof(control));
		mh.msg_control = control;
		mh.msg_controllen = sizeof(control);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (backend_fd < 0)
		return -ENOTCONN;
	pthread_mutex_lock(&backend_lock);
	if (vtrace)
		fprintf(stderr, "daxvfsd: %.3f backend: %s %llu+%llu sent\n", now_ms(),
			req == VU_BACKEND_SHMEM_MAP ? "MAP" : "UNMAP",
			(unsigned long long)m->shm_offset, (unsigned long long)m->len);
	n = sendmsg(backend_fd, &mh, MSG_NOSIGNAL);
	if (n != (ssize_t)sizeof(msg)) {
		pthread_mutex_unlock(&backend_lock);
		return -EIO;
	}
	if (!need_reply) {
		pthread_mutex_unlock(&backend_lock);
		return 0;
	}
	while (got < sizeof(rep)) {
		n = read(backend_fd, (char *)&rep + got, sizeof(rep) - got);
		if (n <= 0) {
			pthread_mutex_unlock(&backend_lock);
			return -EIO;
		}
		got += n;
	}
	pthread_mutex_unlock(&backend_lock);
	if (vtrace)
		fprintf(stderr, "daxvfsd: %.3f backend: %s %llu+%llu answered %llu\n", now_ms(),
			req == VU_BACKEND_SHMEM_MAP ? "MAP" : "UNMAP",
			(unsigned long long)m->shm_offset, (unsigned long long)m->len,
			(unsigned long long)rep.u64);
	if (rep.h.request != req || !(rep.h.flags & VU_FLAG_REPLY))
		return -EIO;
	return rep.u64 ? -EIO : 0;
}

/*
 * QEMU 11.1 answers BACKEND_SHMEM_MAP and BACKEND_SHMEM_UNMAP before it
 * commits the change to the guest's memory map (it commits after the
 * answer, to avoid a deadlock with a backend that serves both sockets on
 * one thread).  A guest told "mapped" on that answer can touch the range
 * before it is there: reads return zeros, writes are dropped (with two
 * files at once, the guest sees the completion while another request's
 * interrupt is being handled).  The commit ends with QEMU's memory listeners:
 * TCG's first (every vCPU is made to switch its map before it runs on), then
 * vhost's, which sends this backend the window's range as a memory region
 * (ADD_MEM_REG, REM_MEM_REG or SET_MEM_TABLE, with the file's descriptor).
 * So a map is done, for the guest, when the memory table holds a region of
 * that file at that offset and length (at the window's address of the
 * range, once that address is known), and an unmap when it no longer holds
 * the range: a state the main thread's messages bring, waited for here.
 */

/* Under mem_lock: the region of the window range, of (dev, ino) at fd_offset if dev. */
static struct region *window_region(uint64_t shm_offset, uint64_t len, dev_t dev, ino_t ino,
				    uint64_t fd_offset)
{
	int i;

	for (i = 0; i < nregions; i++) {
		struct region *r = &regions[i];

		if (r->size != len)
			continue;
		if (window_gpa_known && r->gpa != window_gpa + shm_offset)
			continue;
		if (dev && (r->dev != dev || r->ino != ino || r->fd_offset != fd_offset))
			continue;
		return r;
	}
	return NULL;
}

/* Wait for the window range to be in the memory table (present) or gone. */
static void window_wait(uint64_t shm_offset, uint64_t len, dev_t dev, ino_t ino,
			uint64_t fd_offset, int present)
{
	double t0 = vtrace ? now_ms() : 0;

	pthread_mutex_lock(&mem_wait_lock);
	/* Only a range mapped since the window's address is known can be told gone. */
	while (present || window_gpa_known) {
		struct region *r;
		int done;

		pthread_rwlock_rdlock(&mem_lock);
		r = window_region(shm_offset, len, dev, ino, fd_offset);
		done = present ? r != NULL : r == NULL;
		if (r && present && !window_gpa_known) {
			window_gpa = r->gpa - shm_offset;
			window_gpa_known = 1;
		}
		pthread_rwlock_unlock(&mem_lock);
		if (done)
			break;
		pthread_cond_wait(&mem_cond, &mem_wait_lock);
	}
	pthread_mutex_unlock(&mem_wait_lock);
	if (vtrace)
		fprintf(stderr, "daxvfsd: %.3f backend: %s %llu+%llu %s the memory table after %.3f ms\n",
			now_ms(), present ? "MAP" : "UNMAP", (unsigned long long)shm_offset,
			(unsigned long long)len, present ? "in" : "gone from", now_ms() - t0);
}

int vu_shmem_map(int fd, uint64_t fd_offset, uint64_t shm_offset, uint64_t len, int writable)
{
	struct vu_shmem_map m = {
		.shmid = 0,
		.fd_offset = fd_offset,
		.shm_offset = shm_offset,
		.len = len,
		.flags = writable ? 1 : 0,
	};
	struct stat st;
	int err;

	if (fstat(fd, &st) < 0)
		return -errno;
	err = backend_call(VU_BACKEND_SHMEM_MAP, &m, fd);
	if (!err)
		window_wait(shm_offset, len, st.st_dev, st.st_ino, fd_offset, 1);
	return err;
}

int vu_shmem_unmap(uint64_t shm_offset, uint64_t len)
{
	struct vu_shmem_map m = { .shmid = 0, .shm_offset = shm_offset, .len = len };
	int err = backend_call(VU_BACKEND_SHMEM_UNMAP, &m, -1);

	if (!err)
		window_wait(shm_offset, len, 0, 0, 0, 0);
	return err;
}

/* --- the main socket -------------------------------------------------------- */

/* The memory table has changed: wake the maps and unmaps waiting for it. */
static void mem_changed(void)
{
	pthread_mutex_lock(&mem_wait_lock);
	pthread_cond_broadcast(&mem_cond);
	pthread_mutex_unlock(&mem_wait_lock);
}

static void region_map(struct region *r, const struct vu_region_msg *m, int fd)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t start = m->offset & ~(uint64_t)(pg - 1);
	struct stat st;
	void *h;

	r->gpa = m->gpa;
	r->size = m->size;
	r->uaddr = m->uaddr;
	r->offset = m->offset - start;
	r->maplen = m->size + r->offset;
	r->fd_offset = m->offset;
	if (fstat(fd, &st) < 0)
		die("fstat guest memory");
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	if (vtrace)
		fprintf(stderr, "daxvfsd: %.3f   region gpa 0x%llx size 0x%llx offset 0x%llx ino %llu\n",
			now_ms(), (unsigned long long)m->gpa, (unsigned long long)m->size,
			(unsigned long long)m->offset, (unsigned long long)st.st_ino);
	h = mmap(NULL, r->maplen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, start);
	if (h == MAP_FAILED)
		die("mmap guest memory");
	r->host = h;
}

/* ADD_MEM_REG and REM_MEM_REG (CONFIGURE_MEM_SLOTS): one region each. */
static void mem_reg(int add, const struct vu_region_msg *m, int *fds, int nfds)
{
	struct region fresh;
	int i;

	if (add) {
		if (nfds < 1 || nregions >= MAX_SLOTS) {
			fprintf(stderr, "daxvfsd: ADD_MEM_REG: %d fds, %d regions\n", nfds, nregions);
			exit(1);
		}
		region_map(&fresh, m, fds[0]);
		pthread_rwlock_wrlock(&mem_lock);
		regions[nregions++] = fresh;
	} else {
		pthread_rwlock_wrlock(&mem_lock);
		for (i = 0; i < nregions; i++) {
			if (regions[i].gpa == m->gpa && regions[i].size == m->size &&
			    regions[i].uaddr == m->uaddr) {
				munmap(regions[i].host, regions[i].maplen);
				regions[i] = regions[--nregions];
				break;
			}
		}
	}
	for (i = 0; i < MAX_QUEUES; i++)
		vq_translate(&vqs[i]);
	pthread_rwlock_unlock(&mem_lock);
	mem_changed();
}

static void set_mem_table(union vu_payload *p, int *fds, int nfds)
{
	struct region fresh[MAX_REGIONS];
	unsigned int i, n = p->mem.nregions;

	if (n > MAX_REGIONS || (int)n > nfds) {
		fprintf(stderr, "daxvfsd: SET_MEM_TABLE with %u regions, %d fds\n", n, nfds);
		exit(1);
	}
	for (i = 0; i < n; i++)
		region_map(&fresh[i], &p->mem.r[i], fds[i]);
	pthread_rwlock_wrlock(&mem_lock);
	for (i = 0; i < (unsigned int)nregions; i++)
		munmap(regions[i].host, regions[i].maplen);
	memcpy(regions, fresh, n * sizeof(fresh[0]));
	nregions = n;
	for (i = 0; i < MAX_QUEUES; i++)
		vq_translate(&vqs[i]);
	pthread_rwlock_unlock(&mem_lock);
	mem_changed();
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += n;
	}
	return got;
}

static int recv_msg(int sock, struct vu_hdr *h, union vu_payload *p, int *fds, int *nfds)
{
	char control[CMSG_SPACE(MAX_FDS * sizeof(int))];
	struct iovec iov = { h, sizeof(*h) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	struct cmsghdr *c;
	ssize_t n;

	*nfds = 0;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			*nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(fds, CMSG_DATA(c), *nfds * sizeof(int));
		}
	}
	if (n < (ssize_t)sizeof(*h) && read_full(sock, (char *)h + n, sizeof(*h) - n) < 0)
		return -1;
	if (h->size > sizeof(*p))
		return -1;
	if (h->size && read_full(sock, p, h->size) < 0)
		return -1;
	return 0;
}

static void send_reply(int sock, struct vu_hdr *h, const void *p, uint32_t size)
{
	struct vu_hdr r = { h->request, VU_VERSION | VU_FLAG_REPLY, size };
	struct iovec iov[2] = { { &r, sizeof(r) }, { (void *)p, size } };

	if (writev(sock, iov, 2) != (ssize_t)(sizeof(r) + size))
		die("vhost-user reply");
}

static void send_u64(int sock, struct vu_hdr *h, uint64_t v)
{
	send_reply(sock, h, &v, sizeof(v));
}

static struct vq *vq_of(uint32_t index)
{
	if (index >= MAX_QUEUES) {
		fprintf(stderr, "daxvfsd: queue %u out of range\n", index);
		exit(1);
	}
	return &vqs[index];
}

void vu_serve(int sock, const struct vu_device *dev)
{
	union vu_payload *p = malloc(sizeof(*p));
	int i;

	if (!p)
		die("malloc");
	vtrace = getenv("DAXVFSD_TRACE") && !strcmp(getenv("DAXVFSD_TRACE"), "1");
	for (i = 0; i < MAX_QUEUES; i++) {
		vqs[i].index = i;
		vqs[i].kick = vqs[i].call = vqs[i].stopfd = -1;
		pthread_mutex_init(&vqs[i].lock, NULL);
		pthread_cond_init(&vqs[i].idle, NULL);
	}
	for (i = 0; i < dev->workers; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, NULL))
			die("pthread_create");
	}
	for (;;) {
		struct vu_hdr h;
		int fds[MAX_FDS], nfds, replied = 0;
		struct vq *vq;

		if (recv_msg(sock, &h, p, fds, &nfds) < 0)
			return;		/* the front-end has gone */
		if (vtrace && (h.request == VU_SET_MEM_TABLE || h.request == VU_ADD_MEM_REG ||
			       h.request == VU_REM_MEM_REG))
			fprintf(stderr, "daxvfsd: %.3f main: %s%s\n", now_ms(),
				h.request == VU_SET_MEM_TABLE ? "SET_MEM_TABLE" :
				h.request == VU_ADD_MEM_REG ? "ADD_MEM_REG" : "REM_MEM_REG",
				h.request == VU_REM_MEM_REG ? "" : " (regions follow)");
		if (vtrace && h.request == VU_REM_MEM_REG)
			fprintf(stderr, "daxvfsd: %.3f   region gpa 0x%llx size 0x%llx offset 0x%llx\n",
				now_ms(), (unsigned long long)p->memreg.r.gpa,
				(unsigned long long)p->memreg.r.size,
				(unsigned long long)p->memreg.r.offset);
		switch (h.request) {
		case VU_GET_FEATURES:
			send_u64(sock, &h, (1ull << F_VERSION_1) | (1ull << F_PROTOCOL_FEATURES) |
				 (1ull << VIRTIO_RING_F_INDIRECT_DESC));
			replied = 1;
			break;
		case VU_GET_PROTOCOL_FEATURES:
			send_u64(sock, &h, (1ull << PF_REPLY_ACK) | (1ull << PF_BACKEND_REQ) |
				 (1ull << PF_CONFIG) | (1ull << PF_BACKEND_SEND_FD) |
				 (1ull << PF_CONFIGURE_MEM_SLOTS) | (1ull << PF_SHMEM));
			replied = 1;
			break;
		case VU_SET_PROTOCOL_FEATURES:
			acked_protocol = p->u64;
			fprintf(stderr, "daxvfsd: protocol features 0x%llx\n",
				(unsigned long long)acked_protocol);
			break;
		case VU_GET_QUEUE_NUM:
			send_u64(sock, &h, dev->num_queues);
			replied = 1;
			break;
		case VU_SET_FEATURES:
		case VU_SET_OWNER:
		case VU_RESET_OWNER:
		case VU_SET_LOG_BASE:
		case VU_SET_CONFIG:
			break;
		case VU_SET_LOG_FD:
		case VU_SET_VRING_ERR:
			for (i = 0; i < nfds; i++)
				close(fds[i]);
			nfds = 0;
			break;
		case VU_SET_MEM_TABLE:
			set_mem_table(p, fds, nfds);
			for (i = 0; i < nfds; i++)
				close(fds[i]);
			nfds = 0;
			break;
		case VU_GET_MAX_MEM_SLOTS:
			/* Guest RAM and one region per window mapping. */
			send_u64(sock, &h, MAX_SLOTS);
			replied = 1;
			break;
		case VU_ADD_MEM_REG:
		case VU_REM_MEM_REG:
			mem_reg(h.request == VU_ADD_MEM_REG, &p->memreg.r, fds, nfds);
			break;
		case VU_SET_VRING_NUM:
			vq = vq_of(p->state.index);
			vq->num = p->state.num;
			break;
		case VU_SET_VRING_ADDR:
			vq = vq_of(p->addr.index);
			pthread_rwlock_wrlock(&mem_lock);
			vq->desc_ua = p->addr.desc;
			vq->avail_ua = p->addr.avail;
			vq->used_ua = p->addr.used;
			vq_translate(vq);
			pthread_rwlock_unlock(&mem_lock);
			if (!vq->desc || !vq->avail || !vq->used) {
				fprintf(stderr, "daxvfsd: queue %u: ring outside guest memory\n", vq->index);
				exit(1);
			}
			vq->used_idx = __atomic_load_n(&vq->used->idx, __ATOMIC_ACQUIRE);
			break;
		case VU_SET_VRING_BASE:
			vq = vq_of(p->state.index);
			vq->last_avail = p->state.num;
			break;
		case VU_GET_VRING_BASE:
			vq = vq_of(p->state.index);
			vq_stop(vq);
			if (vq->kick >= 0)
				close(vq->kick);
			if (vq->stopfd >= 0)
				close(vq->stopfd);
			vq->kick = vq->stopfd = -1;
			vq->enabled = 0;
			p->state.num = vq->last_avail;
			send_reply(sock, &h, &p->state, sizeof(p->state));
			replied = 1;
			break;
		case VU_SET_VRING_KICK:
		case VU_SET_VRING_CALL:
			vq = vq_of(p->u64 & 0xff);
			if ((p->u64 & 0x100) || nfds < 1) {
				fprintf(stderr, "daxvfsd: queue %u: no eventfd (polling is not supported)\n",
					vq->index);
				exit(1);
			}
			if (h.request == VU_SET_VRING_CALL) {
				pthread_mutex_lock(&vq->lock);
				if (vq->call >= 0)
					close(vq->call);
				vq->call = fds[0];
				pthread_mutex_unlock(&vq->lock);
			} else {
				vq_stop(vq);
				if (vq->kick >= 0)
					close(vq->kick);
				if (vq->stopfd >= 0)
					close(vq->stopfd);
				vq->kick = fds[0];
				/* Without PROTOCOL_FEATURES a ring starts enabled. */
				if (!acked_protocol)
					vq->enabled = 1;
				vq_start(vq);
			}
			for (i = 1; i < nfds; i++)
				close(fds[i]);
			nfds = 0;
			break;
		case VU_SET_VRING_ENABLE:
			vq = vq_of(p->state.index);
			__atomic_store_n(&vq->enabled, !!p->state.num, __ATOMIC_RELEASE);
			vq_wake(vq);
			break;
		case VU_SET_BACKEND_REQ_FD:
			if (nfds < 1) {
				fprintf(stderr, "daxvfsd: SET_BACKEND_REQ_FD without a socket\n");
				exit(1);
			}
			backend_fd = fds[0];
			nfds = 0;
			break;
		case VU_GET_CONFIG: {
			uint32_t size = p->config.size;

			if (size > sizeof(p->config.data))
				size = sizeof(p->config.data);
			memset(p->config.data, 0, size);
			if (p->config.offset < dev->config_len) {
				uint32_t n = dev->config_len - p->config.offset;

				memcpy(p->config.data, dev->config + p->config.offset,
				       n < size ? n : size);
			}
			send_reply(sock, &h, &p->config, 12 + size);
			replied = 1;
			break;
		}
		case VU_GET_SHMEM_CONFIG:
			memset(&p->shmem, 0, sizeof(p->shmem));
			p->shmem.nregions = 1;
			p->shmem.sizes[0] = dev->window;
			send_reply(sock, &h, &p->shmem, sizeof(p->shmem));
			replied = 1;
			break;
		default:
			fprintf(stderr, "daxvfsd: vhost-user request %u not handled\n", h.request);
			if (h.flags & VU_FLAG_NEED_REPLY) {
				send_u64(sock, &h, 1);
				replied = 1;
			}
			break;
		}
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		if (!replied && (h.flags & VU_FLAG_NEED_REPLY))
			send_u64(sock, &h, 0);
	}
}
