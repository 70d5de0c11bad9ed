/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * DOC: cache_trace.h - the cache's trace events, and the values they carry.
 *
 * The core names each event once, with a dci_trace_NAME() call (internal,
 * hence dci_, like every name that is not part of the API); the platform
 * header makes it a USDT probe of provider "daxcache" in userspace
 * (lib/platform/user/trace.h) and a trace event daxcache:daxcache_NAME in
 * the kernel (lib/platform/kernel/trace.h, kshim/daxcache_trace.h).  Nothing is traced
 * on the hit path, and while nothing is attached an event costs a test of
 * a semaphore (userspace) or a patched-out jump (the kernel's static key).
 * The arguments, in order:
 *
 * - miss: inode, range index, window offset, length, flags (DC_MAP_READ,
 *   DC_MAP_WRITE: a setup for a write, or the upgrade of a read mapping),
 *   the backend's setup time in ns, the setup's result (0 or -errno).
 *   One per setup (not for a setup under way when the tracer attached).
 * - bypass: inode, range index, reason (enum dci_trace_bypass_reason) of
 *   a miss; a write refused its upgrade on a hit is not traced.
 * - reclaim: background (1) or inline (0), the victim's inode and range
 *   index, its window offset, whether it was written back (1) or not (0).
 * - evict: inode, the number of ranges it mapped, the result (0, -EBUSY
 *   while pins stay, or a failed writeback's error).
 * - wait: inode, ns waited for a range, the result (0: got one, else
 *   DC_MAP_BYPASS or -errno); also, with result 0, a miss's wait for
 *   another thread's setup of the same range (after which it looks again).
 * - backend_fail: the operation (0 setup, 1 remove, 2 writeback), the
 *   error the backend returned.
 * - admit: the candidate's inode, range index and estimate, the victim's
 *   inode, range index and estimate, the verdict (1 map over the victim,
 *   0 bypass).
 */
#ifndef DCI_CACHE_TRACE_H
#define DCI_CACHE_TRACE_H

/* Why a miss was served without the window (the bypass event). */
enum dci_trace_bypass_reason {
	DCI_TRACE_BYPASS_FULL = 0,	/* lost to its victim, hopeless, or over budget */
	DCI_TRACE_BYPASS_BUSY = 1,	/* nothing idle to reclaim, or timed out */
	DCI_TRACE_BYPASS_WRITE = 2,	/* a write that would need a victim */
};

#endif /* DCI_CACHE_TRACE_H */
