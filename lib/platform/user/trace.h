/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace.h - the core's trace points, userspace flavour: USDT probes of
 * provider "daxcache" (<sys/sdt.h>, Debian's systemtap-sdt-dev, needed at
 * build time only), included by platform.h.
 *
 * The core names each event once, dci_trace_NAME(args...) (its list, the
 * arguments and their meaning: lib/core/cache_trace.h);
 * lib/platform/kernel/trace.h makes the same calls kernel trace events.
 * Each probe has a semaphore, a counter that a tracer attached to the
 * probe raises (bpftrace, perf, SystemTap, a uprobe with a reference
 * counter), so that while nothing is attached an event costs a load, a
 * compare and a branch, and the arguments are not even computed.
 * dci_trace_on(NAME) says whether anything is attached, for a caller that
 * has work to do for an event (reading the clock).
 *
 * Built without <sys/sdt.h> (configure says so), every event is a branch
 * on a constant false: no probe, no code.
 */
#ifndef DCI_PLATFORM_USER_TRACE_H
#define DCI_PLATFORM_USER_TRACE_H

#ifdef DCI_HAVE_SDT
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
/*
 * The probe itself sits in a cold function of its own, called only while
 * a tracer is attached: the caller keeps its size and its registers (a
 * probe's asm inlined into the miss path had range_setup() no longer
 * inlined), and every argument is in its register of the calling
 * convention at the probe (readelf -n: 8@%rdi 8@%rsi ...).
 */
#define DCI_PROBE_FN(name, params, ...)					\
static __attribute__((__unused__, __noinline__, __cold__)) void		\
dci_usdt_##name params							\
{									\
	STAP_PROBEV(daxcache, name, __VA_ARGS__);			\
}
#else
#define dci_trace_on(name)	0
/* The arguments stay type-checked, and compile to nothing. */
#define DCI_PROBE_FN(name, params, ...)					\
static inline void dci_usdt_##name params				\
{									\
}
#endif

DCI_PROBE_FN(miss, (uint64_t ino, uint64_t index, uint64_t win_off,
		    uint64_t len, unsigned int flags, uint64_t ns, int ret),
	     ino, index, win_off, len, flags, ns, ret)
DCI_PROBE_FN(bypass, (uint64_t ino, uint64_t index, int reason),
	     ino, index, reason)
DCI_PROBE_FN(reclaim, (int bg, uint64_t ino, uint64_t index,
		       uint64_t win_off, int writeback),
	     bg, ino, index, win_off, writeback)
DCI_PROBE_FN(evict, (uint64_t ino, uint64_t ranges, int ret),
	     ino, ranges, ret)
DCI_PROBE_FN(wait, (uint64_t ino, uint64_t ns, int ret), ino, ns, ret)
DCI_PROBE_FN(backend_fail, (int op, int err), op, err)
DCI_PROBE_FN(admit, (uint64_t ino, uint64_t index, unsigned int est,
		     uint64_t v_ino, uint64_t v_index, unsigned int v_est,
		     int verdict),
	     ino, index, est, v_ino, v_index, v_est, verdict)

#define dci_trace_miss(ino, index, win_off, len, flags, ns, ret) do {	\
	if (dci_trace_on(miss))						\
		dci_usdt_miss(ino, index, win_off, len, flags, ns, ret);	\
} while (0)

#define dci_trace_bypass(ino, index, reason) do {			\
	if (dci_trace_on(bypass))					\
		dci_usdt_bypass(ino, index, reason);			\
} while (0)

#define dci_trace_reclaim(bg, ino, index, win_off, writeback) do {	\
	if (dci_trace_on(reclaim))					\
		dci_usdt_reclaim(bg, ino, index, win_off, writeback);	\
} while (0)

#define dci_trace_evict(ino, ranges, ret) do {				\
	if (dci_trace_on(evict))					\
		dci_usdt_evict(ino, ranges, ret);			\
} while (0)

#define dci_trace_wait(ino, ns, ret) do {				\
	if (dci_trace_on(wait))						\
		dci_usdt_wait(ino, ns, ret);				\
} while (0)

#define dci_trace_backend_fail(op, err) do {				\
	if (dci_trace_on(backend_fail))					\
		dci_usdt_backend_fail(op, err);				\
} while (0)

#define dci_trace_admit(ino, index, est, v_ino, v_index, v_est, verdict) do { \
	if (dci_trace_on(admit))					\
		dci_usdt_admit(ino, index, est, v_ino, v_index, v_est,	\
			       verdict);				\
} while (0)

#endif /* DCI_PLATFORM_USER_TRACE_H */
