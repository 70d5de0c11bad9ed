/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace.h - the core's trace points, kernel flavour: trace events of system
 * "daxcache" (kshim/daxcache_trace.h defines them, kshim/trace.c creates
 * them), included by platform.h.
 *
 * The core names each event once, dci_trace_NAME(args...) (its list, the
 * arguments and their meaning: lib/core/cache_trace.h); the userspace
 * platform makes the same calls USDT probes.  Here a call tests the
 * event's static key (tracepoint_enabled(): a jump patched in only while
 * the event is enabled) and only then calls an out-of-line function of
 * trace.c that fires the event: the core's objects never include the
 * kernel's tracing headers, only <linux/tracepoint-defs.h>.
 */
#ifndef DCI_KSHIM_TRACE_H
#define DCI_KSHIM_TRACE_H

#include <linux/tracepoint-defs.h>
#include <linux/types.h>

DECLARE_TRACEPOINT(daxcache_miss);
DECLARE_TRACEPOINT(daxcache_bypass);
DECLARE_TRACEPOINT(daxcache_reclaim);
DECLARE_TRACEPOINT(daxcache_evict);
DECLARE_TRACEPOINT(daxcache_wait);
DECLARE_TRACEPOINT(daxcache_backend_fail);
DECLARE_TRACEPOINT(daxcache_admit);

void dci_ktrace_miss(u64 ino, u64 index, u64 win_off, u64 len,
		     unsigned int flags, u64 ns, int ret);
void dci_ktrace_bypass(u64 ino, u64 index, int reason);
void dci_ktrace_reclaim(int bg, u64 ino, u64 index, u64 win_off,
			int writeback);
void dci_ktrace_evict(u64 ino, u64 ranges, int ret);
void dci_ktrace_wait(u64 ino, u64 ns, int ret);
void dci_ktrace_backend_fail(int op, int err);
void dci_ktrace_admit(u64 ino, u64 index, unsigned int est, u64 v_ino,
		      u64 v_index, unsigned int v_est, int verdict);

#define dci_trace_on(name)	tracepoint_enabled(daxcache_##name)

#define dci_trace_miss(ino, index, win_off, len, flags, ns, ret) do {	\
	if (dci_trace_on(miss))						\
		dci_ktrace_miss(ino, index, win_off, len, flags, ns, ret); \
} while (0)

#define dci_trace_bypass(ino, index, reason) do {			\
	if (dci_trace_on(bypass))					\
		dci_ktrace_bypass(ino, index, reason);			\
} while (0)

#define dci_trace_reclaim(bg, ino, index, win_off, writeback) do {	\
	if (dci_trace_on(reclaim))					\
		dci_ktrace_reclaim(bg, ino, index, win_off, writeback);	\
} while (0)

#define dci_trace_evict(ino, ranges, ret) do {				\
	if (dci_trace_on(evict))					\
		dci_ktrace_evict(ino, ranges, ret);			\
} while (0)

#define dci_trace_wait(ino, ns, ret) do {				\
	if (dci_trace_on(wait))						\
		dci_ktrace_wait(ino, ns, ret);				\
} while (0)

#define dci_trace_backend_fail(op, err) do {				\
	if (dci_trace_on(backend_fail))					\
		dci_ktrace_backend_fail(op, err);			\
} while (0)

#define dci_trace_admit(ino, index, est, v_ino, v_index, v_est, verdict) do { \
	if (dci_trace_on(admit))					\
		dci_ktrace_admit(ino, index, est, v_ino, v_index,	\
				 v_est, verdict);			\
} while (0)

#endif /* DCI_KSHIM_TRACE_H */
