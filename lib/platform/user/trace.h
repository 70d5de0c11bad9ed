/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace.h - the core's trace points, userspace flavour: USDT probes of
 * provider "daxcache" (<sys/sdt.h>, Debian's systemtap-sdt-dev, needed at
 * build time only), included by platform.h.
 *
 * The core names each event once, dci_trace_NAME(args...) (its list, the
 * arguments and their meaning: lib/core/cache_trace.h); kshim/trace.h makes
 * the same calls kernel trace events.  Each probe has a semaphore, a
 * counter that a tracer attached to the probe raises (bpftrace, perf,
 * SystemTap, a uprobe with a reference counter), so that while nothing is
 * attached an event costs a load, a compare and a branch, and the
 * arguments are not even computed.  dci_trace_on(NAME) says whether
 * anything is attached, for a caller that has work to do for an event
 * (reading the clock).
 *
 * Built without <sys/sdt.h> (configure says so), every event is a branch
 * on a constant false: no probe, no code.
 */
#ifndef DC_PLATFORM_USER_TRACE_H
#define DC_PLATFORM_USER_TRACE_H

#ifdef DC_HAVE_SDT
/* The probes' ELF notes name their semaphores (below). */
#define _SDT_HAS_SEMAPHORES 1
#define SDT_USE_VARIADIC 1
#include <sys/sdt.h>

/*
 * The semaphores, in section .probes where tracers expect them; defined
 * once (platform.c, with DCI_TRACE_DEFINE_SEMAPHORES), hidden: an address
 * of the library, not a symbol it exports.
 */
#ifdef DCI_TRACE_DEFINE_SEMAPHORES
#define DCI_TRACE_SEMAPHORE(name) \
	__extension__ unsigned short daxcache_##name##_semaphore \
	__attribute__((__section__(".probes"), __visibility__("hidden"), __used__))
#else
#define DCI_TRACE_SEMAPHORE(name) \
	__extension__ extern unsigned short daxcache_##name##_semaphore \
	__attribute__((__section__(".probes"), __visibility__("hidden")))
#endif
DCI_TRACE_SEMAPHORE(miss);
DCI_TRACE_SEMAPHORE(bypass);
DCI_TRACE_SEMAPHORE(reclaim);
DCI_TRACE_SEMAPHORE(evict);
DCI_TRACE_SEMAPHORE(wait);
DCI_TRACE_SEMAPHORE(backend_fail);
DCI_TRACE_SEMAPHORE(admit);

#define dci_trace_on(name) \
	__builtin_expect(__atomic_load_n(&daxcache_##name##_semaphore, \
					 __ATOMIC_RELAXED) != 0, 0)
#define DCI_PROBE(name, ...)	STAP_PROBEV(daxcache, name, __VA_ARGS__)
#else
#define dci_trace_on(name)	0
/* The arguments stay type-checked and "used", and compile to nothing. */
#define DCI_PROBE(name, ...)	dci_trace_none(0, __VA_ARGS__)
static inline void dci_trace_none(int n, ...)
{
	(void)n;
}
#endif

/* The clock of a timed event, read only while something is attached. */
#define dci_trace_clock(name)	(dci_trace_on(name) ? dc_now_ns() : 0)
/* The ns since @t0 of dci_trace_clock() (0 when it was not read). */
#define dci_trace_since(t0)	((t0) ? dc_now_ns() - (t0) : 0)

#define dci_trace_miss(ino, index, win_off, len, flags, t0, ret) do {	\
	if (dci_trace_on(miss))						\
		DCI_PROBE(miss, (uint64_t)(ino), (uint64_t)(index),	\
			  (uint64_t)(win_off), (uint64_t)(len),		\
			  (unsigned int)(flags),			\
			  (uint64_t)dci_trace_since(t0), (int)(ret));	\
} while (0)

#define dci_trace_bypass(ino, index, reason) do {			\
	if (dci_trace_on(bypass))					\
		DCI_PROBE(bypass, (uint64_t)(ino), (uint64_t)(index),	\
			  (int)(reason));				\
} while (0)

#define dci_trace_reclaim(bg, ino, index, win_off, writeback) do {	\
	if (dci_trace_on(reclaim))					\
		DCI_PROBE(reclaim, (int)(bg), (uint64_t)(ino),		\
			  (uint64_t)(index), (uint64_t)(win_off),	\
			  (int)(writeback));				\
} while (0)

#define dci_trace_evict(ino, ranges, ret) do {				\
	if (dci_trace_on(evict))					\
		DCI_PROBE(evict, (uint64_t)(ino), (uint64_t)(ranges),	\
			  (int)(ret));					\
} while (0)

#define dci_trace_wait(ino, ns, ret) do {				\
	if (dci_trace_on(wait))						\
		DCI_PROBE(wait, (uint64_t)(ino), (uint64_t)(ns),	\
			  (int)(ret));					\
} while (0)

#define dci_trace_backend_fail(op, err) do {				\
	if (dci_trace_on(backend_fail))					\
		DCI_PROBE(backend_fail, (int)(op), (int)(err));		\
} while (0)

#define dci_trace_admit(ino, index, est, v_ino, v_index, v_est, verdict) do { \
	if (dci_trace_on(admit))					\
		DCI_PROBE(admit, (uint64_t)(ino), (uint64_t)(index),	\
			  (unsigned int)(est), (uint64_t)(v_ino),	\
			  (uint64_t)(v_index), (unsigned int)(v_est),	\
			  (int)(verdict));				\
} while (0)

#endif /* DC_PLATFORM_USER_TRACE_H */
