/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daxcache_trace.h - daxcache.ko's trace events, system "daxcache": one for
 * each of the core's dci_trace_*() calls (lib/core/cache_trace.h says what
 * each carries).  Read by kshim/trace.c only, with CREATE_TRACE_POINTS.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM daxcache

#if !defined(DCI_DAXCACHE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define DCI_DAXCACHE_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(daxcache_miss,
	TP_PROTO(u64 ino, u64 index, u64 win_off, u64 len, unsigned int flags,
		 u64 ns, int ret),
	TP_ARGS(ino, index, win_off, len, flags, ns, ret),
	TP_STRUCT__entry(
		__field(u64, ino)
		__field(u64, index)
		__field(u64, win_off)
		__field(u64, len)
		__field(unsigned int, flags)
		__field(int, ret)
		__field(u64, ns)
	),
	TP_fast_assign(
		__entry->ino = ino;
		__entry->index = index;
		__entry->win_off = win_off;
		__entry->len = len;
		__entry->flags = flags;
		__entry->ret = ret;
		__entry->ns = ns;
	),
	TP_printk("ino=%llu index=%llu win_off=0x%llx len=0x%llx flags=0x%x ns=%llu ret=%d",
		  __entry->ino, __entry->index, __entry->win_off, __entry->len,
		  __entry->flags, __entry->ns, __entry->ret)
);

TRACE_EVENT(daxcache_bypass,
	TP_PROTO(u64 ino, u64 index, int reason),
	TP_ARGS(ino, index, reason),
	TP_STRUCT__entry(
		__field(u64, ino)
		__field(u64, index)
		__field(int, reason)
	),
	TP_fast_assign(
		__entry->ino = ino;
		__entry->index = index;
		__entry->reason = reason;
	),
	TP_printk("ino=%llu index=%llu reason=%s", __entry->ino, __entry->index,
		  __print_symbolic(__entry->reason, { 0, "full" }, { 1, "busy" },
				   { 2, "write" }))
);

TRACE_EVENT(daxcache_reclaim,
	TP_PROTO(int bg, u64 ino, u64 index, u64 win_off, int writeback),
	TP_ARGS(bg, ino, index, win_off, writeback),
	TP_STRUCT__entry(
		__field(u64, ino)
		__field(u64, index)
		__field(u64, win_off)
		__field(int, bg)
		__field(int, writeback)
	),
	TP_fast_assign(
		__entry->ino = ino;
		__entry->index = index;
		__entry->win_off = win_off;
		__entry->bg = bg;
		__entry->writeback = writeback;
	),
	TP_printk("%s ino=%llu index=%llu win_off=0x%llx writeback=%d",
		  __entry->bg ? "background" : "inline", __entry->ino,
		  __entry->index, __entry->win_off, __entry->writeback)
);

TRACE_EVENT(daxcache_evict,
	TP_PROTO(u64 ino, u64 ranges, int ret),
	TP_ARGS(ino, ranges, ret),
	TP_STRUCT__entry(
		__field(u64, ino)
		__field(u64, ranges)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->ino = ino;
		__entry->ranges = ranges;
		__entry->ret = ret;
	),
	TP_printk("ino=%llu ranges=%llu ret=%d", __entry->ino, __entry->ranges,
		  __entry->ret)
);

TRACE_EVENT(daxcache_wait,
	TP_PROTO(u64 ino, u64 ns, int ret),
	TP_ARGS(ino, ns, ret),
	TP_STRUCT__entry(
		__field(u64, ino)
		__field(u64, ns)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->ino = ino;
		__entry->ns = ns;
		__entry->ret = ret;
	),
	TP_printk("ino=%llu ns=%llu ret=%d", __entry->ino, __entry->ns,
		  __entry->ret)
);

TRACE_EVENT(daxcache_backend_fail,
	TP_PROTO(int op, int err),
	TP_ARGS(op, err),
	TP_STRUCT__entry(
		__field(int, op)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->op = op;
		__entry->err = err;
	),
	TP_printk("op=%s err=%d",
		  __print_symbolic(__entry->op, { 0, "setup" }, { 1, "remove" },
				   { 2, "writeback" }),
		  __entry->err)
);

TRACE_EVENT(daxcache_admit,
	TP_PROTO(u64 ino, u64 index, unsigned int est, u64 v_ino, u64 v_index,
		 unsigned int v_est, int verdict),
	TP_ARGS(ino, index, est, v_ino, v_index, v_est, verdict),
	TP_STRUCT__entry(
		__field(u64, ino)
		__field(u64, index)
		__field(u64, v_ino)
		__field(u64, v_index)
		__field(unsigned int, est)
		__field(unsigned int, v_est)
		__field(int, verdict)
	),
	TP_fast_assign(
		__entry->ino = ino;
		__entry->index = index;
		__entry->v_ino = v_ino;
		__entry->v_index = v_index;
		__entry->est = est;
		__entry->v_est = v_est;
		__entry->verdict = verdict;
	),
	TP_printk("ino=%llu index=%llu est=%u victim_ino=%llu victim_index=%llu victim_est=%u verdict=%s",
		  __entry->ino, __entry->index, __entry->est, __entry->v_ino,
		  __entry->v_index, __entry->v_est,
		  __entry->verdict ? "admit" : "bypass")
);

#endif /* DCI_DAXCACHE_TRACE_H */

/* Out of the kernel's tree: the header is found on kshim's include path. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE daxcache_trace
#include <trace/define_trace.h>
