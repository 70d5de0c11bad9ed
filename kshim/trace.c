// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.c - daxcache.ko's trace events (kshim/daxcache_trace.h), and the
 * out-of-line functions that the dci_trace_*() of the kernel platform
 * (lib/platform/kernel/trace.h) call once an event's static key says it is
 * enabled.
 */
#include "platform.h"

#define CREATE_TRACE_POINTS
#include "daxcache_trace.h"

void dci_ktrace_miss(u64 ino, u64 index, u64 win_off, u64 len,
		     unsigned int flags, u64 ns, int ret)
{
	trace_daxcache_miss(ino, index, win_off, len, flags, ns, ret);
}

void dci_ktrace_bypass(u64 ino, u64 index, int reason)
{
	trace_daxcache_bypass(ino, index, reason);
}

void dci_ktrace_reclaim(int bg, u64 ino, u64 index, u64 win_off,
			int writeback)
{
	trace_daxcache_reclaim(bg, ino, index, win_off, writeback);
}

void dci_ktrace_evict(u64 ino, u64 ranges, int ret)
{
	trace_daxcache_evict(ino, ranges, ret);
}

void dci_ktrace_wait(u64 ino, u64 ns, int ret)
{
	trace_daxcache_wait(ino, ns, ret);
}

void dci_ktrace_backend_fail(int op, int err)
{
	trace_daxcache_backend_fail(op, err);
}

void dci_ktrace_admit(u64 ino, u64 index, unsigned int est, u64 v_ino,
		      u64 v_index, unsigned int v_est, int verdict)
{
	trace_daxcache_admit(ino, index, est, v_ino, v_index, v_est, verdict);
}
