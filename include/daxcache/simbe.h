/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/simbe.h - a simulation backend for the DAX window cache.
 *
 * An implementation of struct dc_backend_ops that maps nothing but records
 * what a real backend would have mapped, for tests and benchmarks:
 *
 * - a latency model: each setup, remove (per call and per entry) and
 *   writeback busy-waits a configurable number of nanoseconds, and the time
 *   really spent is counted so that a benchmark can show the model holds;
 * - a record per window range: mapped or not, inode id, file offset, flags,
 *   dirty (written since the last writeback) and the sequence number of the
 *   setup that put the mapping there; dc_simbe_lookup() reads it;
 * - a tag per range, the simulated content: setup writes one naming the
 *   inode, the file range and the setup, and a thread holding a pin checks
 *   with dc_simbe_check_tag() that it reads the data it asked for;
 * - checks of the cache's behaviour: removes that name something other than
 *   what the range maps, two calls on one window range at once, writes lost
 *   because a dirty mapping went away without writeback, malformed calls;
 *   each is counted (see struct dc_simbe_stats) and should stay zero;
 * - failure injection per op: every Nth call, with a probability (from a
 *   seeded generator), or the next calls only;
 * - gates: an op kind can be held (the calls sleep) until the test opens
 *   the gate, to freeze a background thread at a known point.
 *
 * The model: a setup over a mapped window range replaces the old mapping
 * (MAP_FIXED); a remove unmaps each entry's window range; a failed call
 * changes nothing.  Every op may be called from several threads at once.
 *
 * Pass dc_simbe_ops() and the struct dc_simbe as ops and priv to
 * dc_cache_create().  A backend without remove() or writeback() is made by
 * copying the table and clearing the member.
 */
#ifndef DAXCACHE_SIMBE_H
#define DAXCACHE_SIMBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <daxcache/cache.h>
#include <daxcache/sized.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dc_simbe;

/*
 * The backend ops, to select latencies, faults and gates.  DC_SIMBE_NR_OPS
 * sizes arrays of the sized structures below, so it stays 3: an op added to
 * struct dc_backend_ops would get its own appended members.
 */
enum dc_simbe_op {
	DC_SIMBE_SETUP = 0,
	DC_SIMBE_REMOVE = 1,
	DC_SIMBE_WRITEBACK = 2,
	DC_SIMBE_NR_OPS = 3,
};

/**
 * struct dc_simbe_config - simulation parameters; fill with
 * dc_simbe_config_init().
 * @window_size: bytes in the window; a non-zero multiple of the range size.
 * @range_shift: log2 of the range size, 12..40 (default 21), as the cache's.
 * @remove_batch_max: remove() calls with more entries are counted as
 *	malformed; 0 (the default) accepts any number.
 * @latency_ns: busy-wait per call of each op (default 0: the null backend).
 * @remove_entry_ns: busy-wait per entry of a remove() (default 0).
 * @gate_timeout_ns: the longest a closed gate holds a call (default 30 s);
 *	a call held that long goes on and is counted in gate_timeouts.
 *
 * Passed with its size (see daxcache/daxcache.h); new members are only
 * ever appended.
 */
struct dc_simbe_config {
	uint64_t window_size;
	unsigned int range_shift;
	unsigned int remove_batch_max;
	uint64_t latency_ns[DC_SIMBE_NR_OPS];
	uint64_t remove_entry_ns;
	uint64_t gate_timeout_ns;
};

/* The first layout of struct dc_simbe_config: up to @gate_timeout_ns. */
#define DC_SIMBE_CONFIG_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_simbe_config, gate_timeout_ns)

/**
 * struct dc_simbe_fault - when an op fails (any armed rule may fire).
 * @err: the error returned, a negative errno (0 means -EIO).
 * @every: fail every @every-th call (1: every call); 0 disables.
 * @ppm: fail each call with probability @ppm / 1000000; 0 disables.
 * @next: fail the next @next calls, then stop; 0 disables.
 * @seed: seed of the generator for @ppm (the same seed and the same call
 *	order give the same failures).
 *
 * Passed with its size (see daxcache/daxcache.h); new members are only
 * ever appended.
 */
struct dc_simbe_fault {
	int err;
	unsigned int every;
	unsigned int ppm;
	unsigned int next;
	uint64_t seed;
};

/* The first layout of struct dc_simbe_fault: up to @seed. */
#define DC_SIMBE_FAULT_SIZE_VER0 DC_OFFSETOFEND(struct dc_simbe_fault, seed)

/**
 * struct dc_simbe_mapping - what a window range maps, from dc_simbe_lookup().
 * @win_off: window offset of the range (range-aligned).
 * @len: the range size.
 * @ino: inode id.
 * @file_off: file offset of the range's first byte.
 * @flags: DC_MAP_READ, and DC_MAP_WRITE when the mapping is writable.
 * @dirty: written (dc_simbe_write()) since the last successful writeback.
 * @seq: sequence number of the setup that mapped this file range here
 *	(1 for the first setup of the backend; an upgrade of the same file
 *	range keeps it).
 * @setup_seq: sequence number of the latest setup of this range (changes
 *	on an upgrade too).
 *
 * Filled for the caller's size (see daxcache/daxcache.h); new members are
 * only ever appended.
 */
struct dc_simbe_mapping {
	uint64_t win_off;
	uint64_t len;
	uint64_t ino;
	uint64_t file_off;
	unsigned int flags;
	bool dirty;
	uint64_t seq;
	uint64_t setup_seq;
};

/* The first layout of struct dc_simbe_mapping: up to @setup_seq. */
#define DC_SIMBE_MAPPING_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_simbe_mapping, setup_seq)

/**
 * struct dc_simbe_stats - counters since creation (or the last reset).
 * @calls: calls of each op, failed ones included.
 * @injected: calls of each op failed on purpose.
 * @total_ns: time spent in calls of each op.
 * @setups_read: successful setups, read-only.
 * @setups_write: successful setups with DC_MAP_WRITE.
 * @setups_replacing: successful setups over a range mapping another file
 *	range.
 * @setups_same: successful setups over a range mapping the same file range.
 * @removed_entries: entries of successful remove() calls.
 * @max_batch: most entries in one remove() call.
 * @writebacks: successful writebacks.
 * @remove_mismatches: removed entries naming another mapping.
 * @remove_unmapped: removed entries naming an unmapped range.
 * @writeback_mismatches: writebacks of a range not mapping that file range.
 * @lost_writes: dirty mappings removed or replaced.
 * @overlaps: calls on a window range already in a call.
 * @bad_calls: calls misaligned, out of the window, or with a bad n.
 * @tag_failures: failed dc_simbe_check_tag() and dc_simbe_write() calls.
 * @gate_timeouts: calls a closed gate held too long.
 * @tag_checks: dc_simbe_check_tag() and dc_simbe_write() calls.
 * @nr_mapped: gauge: window ranges mapped now.
 *
 * Filled for the caller's size (see daxcache/daxcache.h); new members are
 * only ever appended.  The arrays are indexed by enum dc_simbe_op.
 *
 * The counters from @remove_mismatches to @gate_timeouts report something
 * the cache should not do (or, for @lost_writes and @remove_unmapped,
 * something that only injected failures explain); tests check that they
 * stay zero.
 */
struct dc_simbe_stats {
	uint64_t calls[DC_SIMBE_NR_OPS];
	uint64_t injected[DC_SIMBE_NR_OPS];
	uint64_t total_ns[DC_SIMBE_NR_OPS];
	uint64_t setups_read;
	uint64_t setups_write;
	uint64_t setups_replacing;
	uint64_t setups_same;
	uint64_t removed_entries;
	uint64_t max_batch;
	uint64_t writebacks;
	uint64_t remove_mismatches;
	uint64_t remove_unmapped;
	uint64_t writeback_mismatches;
	uint64_t lost_writes;
	uint64_t overlaps;
	uint64_t bad_calls;
	uint64_t tag_failures;
	uint64_t gate_timeouts;
	uint64_t tag_checks;
	uint64_t nr_mapped;
};

/* The first layout of struct dc_simbe_stats: up to @nr_mapped. */
#define DC_SIMBE_STATS_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_simbe_stats, nr_mapped)

/**
 * dc_simbe_avg_ns() - average time of one call of @op.
 * @st: counters from dc_simbe_stats().
 * @op: the op.
 *
 * Context: any.
 * Return: nanoseconds, 0 before the first call.
 */
static inline uint64_t dc_simbe_avg_ns(const struct dc_simbe_stats *st,
				       enum dc_simbe_op op)
{
	return st->calls[op] ? st->total_ns[op] / st->calls[op] : 0;
}

/**
 * dc_simbe_config_init() - fill @cfg with the defaults.
 * @cfg: the config.
 * @size: sizeof(*@cfg) as the caller knows it: exactly that much is written.
 * @window_size: bytes in the window.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a NULL @cfg or @size below
 * DC_SIMBE_CONFIG_SIZE_VER0.
 */
int dc_simbe_config_init(struct dc_simbe_config *cfg, size_t size,
			 uint64_t window_size);

/**
 * dc_simbe_create() - create a simulated backend.
 * @cfg: parameters (copied).
 * @size: sizeof(*@cfg) as the caller knows it.
 * @out: receives the backend.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL for a bad config, NULL arguments or @size below
 * DC_SIMBE_CONFIG_SIZE_VER0; -E2BIG when @cfg is larger than this library
 * knows and the rest is not zero; -ENOMEM.
 */
int dc_simbe_create(const struct dc_simbe_config *cfg, size_t size,
		    struct dc_simbe **out);

/**
 * dc_simbe_destroy() - free a backend.
 * @be: the backend, or NULL.  No call may be running or come later.
 *
 * Context: process context.
 * Return: nothing.
 */
void dc_simbe_destroy(struct dc_simbe *be);

/**
 * dc_simbe_ops() - the backend ops; their priv is the struct dc_simbe.
 *
 * Context: any.
 * Return: a static table with setup, remove and writeback.
 */
const struct dc_backend_ops *dc_simbe_ops(void);

/**
 * dc_simbe_range_size() - bytes per range.
 * @be: the backend.
 *
 * Context: any.
 * Return: 1 << range_shift.
 */
uint64_t dc_simbe_range_size(const struct dc_simbe *be);

/**
 * dc_simbe_nr_ranges() - ranges in the window.
 * @be: the backend.
 *
 * Context: any.
 * Return: window_size >> range_shift.
 */
uint64_t dc_simbe_nr_ranges(const struct dc_simbe *be);

/**
 * dc_simbe_set_latency() - change the latency model of one op.
 * @be: the backend.
 * @op: the op.
 * @per_call_ns: busy-wait per call.
 * @per_entry_ns: busy-wait per entry (remove only; ignored otherwise).
 *
 * Calls that have started keep the old values.
 *
 * Context: any.
 * Return: nothing.
 */
void dc_simbe_set_latency(struct dc_simbe *be, enum dc_simbe_op op,
			  uint64_t per_call_ns, uint64_t per_entry_ns);

/**
 * dc_simbe_set_fault() - arm (or disarm) failure injection for one op.
 * @be: the backend.
 * @op: the op.
 * @f: the rules (copied), or NULL to disarm.
 * @size: sizeof(*@f) as the caller knows it (ignored for NULL @f).
 *
 * A failing call busy-waits its latency, changes nothing and returns the
 * error.  Re-arming restarts the every-Nth count.
 *
 * Context: any.
 * Return: 0; -EINVAL for a bad op, an error that is not a negative errno,
 * or @size below DC_SIMBE_FAULT_SIZE_VER0; -E2BIG when @f is larger than
 * this library knows and the rest is not zero.
 */
int dc_simbe_set_fault(struct dc_simbe *be, enum dc_simbe_op op,
		       const struct dc_simbe_fault *f, size_t size);

/**
 * dc_simbe_fail_next() - make the next call of @op fail with @err.
 * @be: the backend.
 * @op: the op.
 * @err: a negative errno (0 means -EIO).
 *
 * Replaces the rules armed for @op.
 *
 * Context: any.
 * Return: as dc_simbe_set_fault().
 */
int dc_simbe_fail_next(struct dc_simbe *be, enum dc_simbe_op op, int err);

/**
 * dc_simbe_lookup() - what the window range holding @win_off maps.
 * @be: the backend.
 * @win_off: any offset in the range.
 * @m: receives the record (may be NULL).
 * @size: sizeof(*@m) as the caller knows it: exactly that much is written
 *	(ignored for NULL @m).
 *
 * Context: any; takes a spinlock.
 * Return: 0; -ENOENT when the range is not mapped; -EINVAL when @win_off is
 * outside the window or @size is below DC_SIMBE_MAPPING_SIZE_VER0.
 */
int dc_simbe_lookup(struct dc_simbe *be, uint64_t win_off,
		    struct dc_simbe_mapping *m, size_t size);

/**
 * dc_simbe_check_tag() - check that the window byte at @win_off shows byte
 * @file_off of inode @ino, as a reader holding a pin expects.
 * @be: the backend.
 * @win_off: the window offset read (a pin's win_off, or beyond it in the
 *	same range).
 * @ino: the inode the reader mapped.
 * @file_off: the file offset it asked for.
 *
 * Reads the range's tag without a lock, as a reader of the window would,
 * and checks it names @ino, the file range of @file_off, and the same
 * offset within the range.  A failure is counted in tag_failures.
 *
 * Context: any.
 * Return: 0; -ENOENT when the range is not mapped; -ESTALE when it shows
 * something else; -EINVAL when @win_off is outside the window.
 */
int dc_simbe_check_tag(struct dc_simbe *be, uint64_t win_off, uint64_t ino,
		       uint64_t file_off);

/**
 * dc_simbe_write() - simulate a write through a pin at @win_off.
 * @be: the backend.
 * @win_off: the window offset written.
 * @ino: the inode the writer mapped.
 * @file_off: the file offset it asked for.
 *
 * Checks the tag as dc_simbe_check_tag() and that the mapping is writable,
 * then marks it dirty until a successful writeback.  A dirty mapping that
 * is removed or replaced by another file range counts as a lost write.
 *
 * Context: any; takes a spinlock.
 * Return: 0; -EROFS when the mapping is read-only; otherwise as
 * dc_simbe_check_tag().
 */
int dc_simbe_write(struct dc_simbe *be, uint64_t win_off, uint64_t ino,
		   uint64_t file_off);

/**
 * dc_simbe_gate_close() - hold every later call of @op until the gate opens.
 * @be: the backend.
 * @op: the op.
 *
 * Held calls sleep (before their latency and fault injection), at most the
 * config's gate_timeout_ns.
 *
 * Context: any.
 * Return: nothing.
 */
void dc_simbe_gate_close(struct dc_simbe *be, enum dc_simbe_op op);

/**
 * dc_simbe_gate_open() - release the calls held at @op's gate.
 * @be: the backend.
 * @op: the op.
 *
 * Context: any.
 * Return: nothing.
 */
void dc_simbe_gate_open(struct dc_simbe *be, enum dc_simbe_op op);

/**
 * dc_simbe_gate_waiters() - calls of @op held at its gate now.
 * @be: the backend.
 * @op: the op.
 *
 * Context: any.
 * Return: the number of calls.
 */
unsigned int dc_simbe_gate_waiters(struct dc_simbe *be, enum dc_simbe_op op);

/**
 * dc_simbe_stats() - read the counters.
 * @be: the backend.
 * @st: receives the counters.
 * @size: sizeof(*@st) as the caller knows it: exactly that much is written.
 *
 * Context: any.
 * Return: 0, or -EINVAL for NULL arguments or @size below
 * DC_SIMBE_STATS_SIZE_VER0.
 */
int dc_simbe_stats(const struct dc_simbe *be, struct dc_simbe_stats *st,
		   size_t size);

/**
 * dc_simbe_reset_stats() - zero the counters (not the nr_mapped gauge, nor
 * the records).
 * @be: the backend.
 *
 * Calls running meanwhile may be counted partly before and partly after.
 *
 * Context: any.
 * Return: nothing.
 */
void dc_simbe_reset_stats(struct dc_simbe *be);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_SIMBE_H */
