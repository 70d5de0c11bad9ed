/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/cache.h - the DAX window cache.
 *
 * A window of @window_size bytes is cut into ranges of 1 << @range_shift
 * bytes.  Files (inodes, named by a caller-chosen 64-bit id) are cut into
 * ranges of the same size.  dc_map() finds the window range that maps a file
 * range (a hit, lock-free) or sets one up through the caller's backend (a
 * miss), reclaiming an idle range when none is free.  The caller gets a pin:
 * while it is held the mapping is not reclaimed, moved or removed.
 *
 * Threads: see daxcache/thread.h.  Any thread may call in: in userspace
 * the library registers a thread with its RCU on the thread's first call.
 */
#ifndef DAXCACHE_CACHE_H
#define DAXCACHE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <daxcache/sized.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dc_cache;
struct dc_inode;

/* Mapping flags, for dc_map() and the backend's setup(). */
#define DC_MAP_READ		0x1u	/* implied: every mapping is readable */
#define DC_MAP_WRITE		0x2u	/* the caller will write through the pin */
/* dc_map() only: */
#define DC_MAP_NOWAIT		0x10u	/* -EAGAIN instead of sleeping on a lock or a free range */
#define DC_MAP_NORECLAIM	0x20u	/* never reclaim inline (fault context); -EAGAIN when no range is free */
#define DC_MAP_MAY_BYPASS	0x40u	/* the caller can serve the access without the window */

/*
 * dc_map() with DC_MAP_MAY_BYPASS may answer DC_MAP_BYPASS instead of a pin:
 * mapping this range now would only churn the window, so the caller should
 * read or write it directly (a plain FUSE read, say) and hold no pin.  See
 * dc_map() and enum dc_admit_policy for when.
 */
#define DC_MAP_BYPASS		1

/*
 * Victim choice when a range must be reclaimed.  Inline reclaim looks at the
 * mapping inode's own ranges first, walking them in file order from a
 * cursor, only while that inode holds more than half the window's mappings
 * (always under DC_CACHE_INLINE_OWN_ONLY); otherwise, and after a walk that
 * found nothing, it takes its victim window-wide.  The background reclaimer
 * and window-wide inline reclaim use the global hand over all mapped ranges,
 * in setup order.  The
 * policy says whether either walk gives a second chance to recently hit
 * ranges.
 */
enum dc_victim_policy {
	DC_VICTIM_CLOCK = 0,		/* second chance for a range hit since the hand passed (default) */
	DC_VICTIM_ROUND_ROBIN = 1,	/* the next one, as upstream Linux */
	DC_VICTIM_SIEVE = 2,		/* SIEVE: new mappings at the end the hand reaches next */
};

/**
 * enum dc_admit_policy - admission control for dc_map(..., DC_MAP_MAY_BYPASS).
 * @DC_ADMIT_ALWAYS: every miss is mapped; DC_MAP_MAY_BYPASS is ignored (the
 *	behaviour before admission control, kept for comparison).
 * @DC_ADMIT_FREQ: a read miss that would evict a mapping is mapped if it
 *	continues a sequential stream (it ends the third forward step in a
 *	row of equal length through its inode's recent misses, or starts its
 *	range within one such step after a range of the same inode that a
 *	stream mapped and just read), else only if its file range was
 *	missed recently and is referenced more often than the victim it
 *	would replace by more than @admit_setup_cost of struct
 *	dc_cache_config (a frequency sketch that counts misses and hits
 *	alike, whatever the victim policy), and while @admit_evict_interval's
 *	budget allows an eviction; otherwise dc_map() answers DC_MAP_BYPASS.  Writes
 *	never evict; while no range is free, a write upgrades a read-only
 *	mapping only once its range is hot (written repeatedly).  Misses served
 *	from free ranges are always mapped.  The default.
 *
 * Only calls that pass DC_MAP_MAY_BYPASS are ever refused; callers that do
 * not pass it see no change of behaviour under either policy.
 */
enum dc_admit_policy {
	DC_ADMIT_ALWAYS = 0,
	DC_ADMIT_FREQ = 1,
};

/* Behaviour switches (config.flags), mostly older behaviours kept for benchmarks. */
/*
 * Kick the background reclaimer on every miss that takes the free pool below
 * its threshold, and before trying inline reclaim on one that finds the pool
 * empty (upstream Linux's order); not on a miss that admission control
 * contests (the ranges it freed would be mapped by the next misses without a
 * contest).
 */
#define DC_CACHE_KICK_BG_FIRST	0x1u
#define DC_CACHE_REMOVE_ON_INLINE 0x2u	/* send remove before reusing an inline-reclaimed range */
#define DC_CACHE_INLINE_OWN_ONLY 0x4u	/* inline reclaim only from the mapping inode (upstream Linux) */
/*
 * writeback() before any mapping is reclaimed, punched or evicted, read-only
 * ones too: a caller whose users map the window (a kernel filesystem's page
 * tables and DAX entries) drops them there, or fails it to keep the mapping.
 */
#define DC_CACHE_WRITEBACK_ALL	0x8u

/**
 * struct dc_cache_config - cache parameters; fill with dc_cache_config_init().
 * @window_size: bytes in the window; a non-zero multiple of the range size,
 *	of at most 2^30 ranges.
 * @range_shift: log2 of the range size, 12..40 (default 21: 2 MiB).
 * @reclaim_threshold_pct: the background reclaimer runs while fewer than
 *	this percentage of ranges are free (default 20; at least one range),
 *	once kicked: by a DC_MAP_NORECLAIM miss that takes the free pool
 *	below it (any uncontested miss under DC_CACHE_KICK_BG_FIRST), by a
 *	miss that finds no idle range, and by dc_wait_free().  Other misses
 *	reuse idle ranges inline once the pool is empty.
 * @reclaim_batch: ranges the background reclaimer frees per pass (default 10).
 * @remove_batch_max: at most this many entries per backend remove() call
 *	(default 256); more than the window's ranges means as many as it has.
 * @victim: victim policy (default DC_VICTIM_CLOCK).
 * @flags: DC_CACHE_* switches (default 0).
 * @wait_timeout_ns: how long dc_map() waits for a free range before
 *	-ETIMEDOUT (default 10 s; DC_WAIT_FOREVER to wait forever).
 * @admit: admission control for DC_MAP_MAY_BYPASS calls (default
 *	DC_ADMIT_FREQ; a zeroed config, or one of DC_CACHE_CONFIG_SIZE_VER0
 *	bytes, gets DC_ADMIT_ALWAYS).
 * @admit_setup_cost: what mapping a range costs the caller (the setup, and
 *	the remove that follows it some time), in accesses served without the
 *	window (a DC_MAP_BYPASS answered by a direct read): under
 *	DC_ADMIT_FREQ a miss is mapped over a victim only when the hits it is
 *	expected to gain over the victim pay for that (default
 *	DC_ADMIT_SETUP_COST_DEFAULT, the virtio-fs round trips; 0, as in a
 *	config of DC_CACHE_CONFIG_SIZE_VER1 bytes, gets the default; at most
 *	DC_ADMIT_SETUP_COST_MAX).
 * @admit_evict_interval: the eviction budget under DC_ADMIT_FREQ: at most
 *	one mapping evicted by a miss admitted on its count (a sequential
 *	stream's misses are neither held back nor charged) per this many
 *	references that admission control counts (the misses of
 *	DC_MAP_MAY_BYPASS calls, and the hits of mapped ranges as the victim
 *	scan takes them in), the first only after that many.  A miss that
 *	would win its contest while the budget is spent is answered
 *	DC_MAP_BYPASS (bypass_budget), without the inode's mutex when no
 *	range is free.  0, as in a config of DC_CACHE_CONFIG_SIZE_VER2 bytes,
 *	or 1: no budget (the default).
 *
 * Passed with its size (see daxcache/daxcache.h).  New members are only
 * ever appended.
 */
struct dc_cache_config {
	uint64_t window_size;
	unsigned int range_shift;
	unsigned int reclaim_threshold_pct;
	unsigned int reclaim_batch;
	unsigned int remove_batch_max;
	enum dc_victim_policy victim;
	unsigned int flags;
	uint64_t wait_timeout_ns;
	enum dc_admit_policy admit;
	unsigned int admit_setup_cost;
	unsigned int admit_evict_interval;
};

/* The first layout of struct dc_cache_config: up to @wait_timeout_ns. */
#define DC_CACHE_CONFIG_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_cache_config, wait_timeout_ns)
/* The second: up to @admit (a config of this size gets the default cost). */
#define DC_CACHE_CONFIG_SIZE_VER1 \
	DC_OFFSETOFEND(struct dc_cache_config, admit)
/* The third: up to @admit_setup_cost (a config of this size has no budget). */
#define DC_CACHE_CONFIG_SIZE_VER2 \
	DC_OFFSETOFEND(struct dc_cache_config, admit_setup_cost)

/*
 * The default @admit_setup_cost: a virtio-fs guest, where a setup is a
 * SETUPMAPPING round trip to the host and, later, its share of a
 * REMOVEMAPPING, and an access without the window one FUSE_READ round trip.
 */
#define DC_ADMIT_SETUP_COST_DEFAULT	2u
/* The largest @admit_setup_cost: a count of the sketch saturates at 255. */
#define DC_ADMIT_SETUP_COST_MAX		200u

#define DC_WAIT_FOREVER		UINT64_MAX

/* How long dc_cache_destroy() waits for pins still held: 1 s. */
#define DC_DESTROY_PIN_TIMEOUT_NS	1000000000ull

/**
 * struct dc_remove_entry - one mapping to tear down, in a remove() batch.
 * @ino: the inode id it mapped.
 * @file_off: file offset of the range (a multiple of the range size).
 * @win_off: window offset of the range.
 * @len: the range size.
 */
struct dc_remove_entry {
	uint64_t ino;
	uint64_t file_off;
	uint64_t win_off;
	uint64_t len;
};

/**
 * struct dc_backend_ops - what the cache asks of the caller.  Passed with
 * its size and copied (see daxcache/daxcache.h); new members are only ever
 * appended, and a NULL op is one the caller does not have.
 * @setup: map @len bytes of inode @ino at @file_off into the window at
 *	@win_off; @flags has DC_MAP_READ and maybe DC_MAP_WRITE.  A setup over a
 *	live window range replaces the old mapping (MAP_FIXED semantics).
 *	Return 0 or -errno.  Required.
 * @remove: tear down @n mappings (n <= remove_batch_max).  Return 0 or
 *	-errno; on failure the ranges are still reused (a later setup replaces
 *	them).  Optional: without it, ranges are reused without removal.
 * @writeback: flush what was written through a writable mapping before it
 *	is reclaimed.  Return 0 or -errno; on failure the mapping stays.
 *	Optional.
 *
 * Every op answers 0 or -errno.  A positive answer breaks that contract: it
 * is logged and taken for -EIO (it never passes for DC_MAP_BYPASS, say).
 * Failed calls are counted in struct dc_cache_stats and logged, per cache
 * and op, at the 1st, 2nd, 4th, 8th... failure (see daxcache/log.h).
 *
 * The ops may sleep.  They are called with no cache spinlock held, but
 * possibly with inode mutexes held (setup and writeback always under the
 * mapping inode's; remove under it for inline reuse with
 * DC_CACHE_REMOVE_ON_INLINE), so they must not call back into the cache.
 */
struct dc_backend_ops {
	int (*setup)(void *priv, uint64_t ino, uint64_t file_off, uint64_t win_off,
		     uint64_t len, unsigned int flags);
	int (*remove)(void *priv, const struct dc_remove_entry *entries,
		      unsigned int n);
	int (*writeback)(void *priv, uint64_t ino, uint64_t file_off,
			 uint64_t len, uint64_t win_off);
};

/* The first layout of struct dc_backend_ops: setup, remove, writeback. */
#define DC_BACKEND_OPS_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_backend_ops, writeback)

/**
 * struct dc_pin - a held mapping, filled by dc_map().
 * @win_off: the window offset of the requested file offset.
 * @len: bytes mapped from @win_off to the end of the range.
 * @writable: whether the mapping may be written.
 * @gen: generation of the mapping: changes each time the range is set up,
 *	the setup that makes a read-only mapping writable included; never 0
 *	in a pin that dc_map() filled.
 *
 * The remaining fields are private.
 */
struct dc_pin {
	uint64_t win_off;
	uint64_t len;
	bool writable;
	uint64_t gen;
	/* private: */
	void *range;
};

/**
 * struct dc_cache_stats - counters since creation, and current gauges.
 * @hits: dc_map() calls that found their range mapped and pinned it:
 *	those served without a lock, and those that found it under the
 *	inode's mutex, mapped by another thread's miss meanwhile (an
 *	upgrade of a read-only mapping to writable counts here too).
 * @misses: dc_map() calls that set up a mapping.
 * @upgrades: read-only mappings made writable.
 * @inline_reclaims: ranges reclaimed by the mapping thread.
 * @bg_reclaims: ranges reclaimed by the background reclaimer.
 * @removes_sent: entries passed to remove().
 * @removes_skipped: inline reuses that needed no remove().
 * @remove_batches: remove() calls.
 * @remove_failures: remove() calls that failed.
 * @waits: dc_map() calls that slept for a range: for a free one, or for
 *	another thread's setup of the one they asked for (a miss of the
 *	same range, or the upgrade of a mapping to writable).
 * @wait_ns: total time slept for a range.
 * @setup_failures: setup() calls that failed.
 * @writebacks: writeback() calls.
 * @writeback_failures: writeback() calls that failed.
 * @nr_ranges: gauge: ranges in the window.
 * @nr_free: gauge: ranges in the free pool.
 * @nr_mapped: gauge: ranges mapping a file range (or being set up to).
 * @nr_inodes: gauge: inodes with references.
 * @bypasses: dc_map() calls that answered DC_MAP_BYPASS.
 * @bypass_full: bypasses because the read miss lost to the victim (or
 *	would to any), or the eviction budget was spent.
 * @bypass_busy: bypasses because no idle range could be reclaimed.
 * @admits_contested: misses mapped over a victim they beat.
 * @bypass_write: bypassed writes that would upgrade or evict.
 * @bg_passes: passes of the background reclaimer.
 * @nr_waiting: gauge: dc_map() and dc_wait_free() calls asleep for a range,
 *	and dc_map() and dc_inode_punch() calls asleep for another thread's
 *	setup of a range.
 * @bg_pending: gauge: requests to run that the background reclaimer has not
 *	finished answering.  Read before the other gauges: when it is 0 and
 *	no thread maps, unpins or puts an inode, no background work is left
 *	to change them (a test waits for that state, not for a time).
 *	Appended after release 1.0.0, which leaves it 0.
 * @bypass_budget: of @bypass_full, the misses refused because the
 *	eviction budget (admit_evict_interval of struct dc_cache_config) was
 *	spent: misses that won their contest, and, refused before it (no
 *	range free), misses that could have beaten a victim never referenced.
 * @admits_stream: of @admits_contested, the misses mapped because they
 *	continue a sequential stream, whatever the victim.  Appended after
 *	release 1.0.0, which leaves it 0.
 *
 * Filled for the caller's size (see daxcache/daxcache.h); new members are
 * only ever appended.  @bypasses to @bypass_write count the admission
 * control of DC_MAP_MAY_BYPASS calls under DC_ADMIT_FREQ.
 */
struct dc_cache_stats {
	uint64_t hits;
	uint64_t misses;
	uint64_t upgrades;
	uint64_t inline_reclaims;
	uint64_t bg_reclaims;
	uint64_t removes_sent;
	uint64_t removes_skipped;
	uint64_t remove_batches;
	uint64_t remove_failures;
	uint64_t waits;
	uint64_t wait_ns;
	uint64_t setup_failures;
	uint64_t writebacks;
	uint64_t writeback_failures;
	uint64_t nr_ranges;
	uint64_t nr_free;
	uint64_t nr_mapped;
	uint64_t nr_inodes;
	uint64_t bypasses;
	uint64_t bypass_full;
	uint64_t bypass_busy;
	uint64_t admits_contested;
	uint64_t bypass_write;
	uint64_t bg_passes;
	uint64_t nr_waiting;
	uint64_t bg_pending;
	uint64_t bypass_budget;
	uint64_t admits_stream;
};

/* The first layout of struct dc_cache_stats: up to @nr_inodes. */
#define DC_CACHE_STATS_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_cache_stats, nr_inodes)

/**
 * dc_cache_config_init() - fill @cfg with the defaults.
 * @cfg: the config.
 * @size: sizeof(*@cfg) as the caller knows it.
 * @window_size: bytes in the window.
 *
 * Writes exactly @size bytes: the defaults of the members it covers, zero
 * in any it does not know.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a NULL @cfg or @size below
 * DC_CACHE_CONFIG_SIZE_VER0.
 */
int dc_cache_config_init(struct dc_cache_config *cfg, size_t size,
			 uint64_t window_size);

/**
 * dc_cache_create() - create a cache over a window.
 * @cfg: parameters (copied).
 * @cfg_size: sizeof(*@cfg) as the caller knows it.
 * @ops: backend operations (copied).
 * @ops_size: sizeof(*@ops) as the caller knows it.
 * @priv: passed to every backend op.
 * @out: receives the cache.
 *
 * Starts the background reclaimer (a thread in userspace).  A bad config is
 * refused with a log line that says why.  Members past @cfg_size or
 * @ops_size are taken as zero (see daxcache/daxcache.h).
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL for a bad config (no ranges, more than 2^30 ranges,
 * window not a multiple of the range size, range_shift out of 12..40,
 * threshold over 100, zero batch sizes, unknown victim policy, admit policy
 * or flags, NULL ops or setup, a size below DC_CACHE_CONFIG_SIZE_VER0 or
 * DC_BACKEND_OPS_SIZE_VER0); -E2BIG when @cfg or @ops is larger than this
 * library knows and the rest is not zero; -ENOMEM, or the error starting
 * the reclaimer.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_cache_create(const struct dc_cache_config *cfg, size_t cfg_size,
		    const struct dc_backend_ops *ops, size_t ops_size,
		    void *priv, struct dc_cache **out);

/**
 * dc_cache_destroy() - stop the reclaimer, evict every inode, free all.
 * @cache: the cache, or NULL.
 *
 * Every inode should have been put and every pin dropped; inodes still
 * referenced are reported and evicted anyway.  Pins still held are waited
 * for, at most DC_DESTROY_PIN_TIMEOUT_NS from the call (an eviction that
 * dc_inode_put() left waiting for pins gives up at the same time).  If some
 * are still held then, destroy reports them and returns -EBUSY with the
 * cache allocated: the pinned mappings stay as they are (no writeback, no
 * remove() under a caller that may still use them), everything else is
 * torn down, and only dc_unpin() on the pins and dc_cache_destroy() may be
 * called any more.  Call dc_cache_destroy() again once the pins are
 * dropped: it drops those mappings (writeback, then remove()) and frees
 * the cache.  A cache never destroyed to the end leaks.
 *
 * Context: process context, a thread outside read-side sections;
 * sleeps (at most about DC_DESTROY_PIN_TIMEOUT_NS waiting for pins, plus the
 * backend calls).  No other call on the cache may run concurrently, but
 * dc_unpin().
 * Return: 0 when the cache is freed (always for NULL); -EBUSY when pins
 * were still held: the cache is not freed yet (see above).
 * In a child forked without dc_before_fork() (daxcache/thread.h): 0 at
 * once, the object left to the exit.
 */
int dc_cache_destroy(struct dc_cache *cache);

/**
 * dc_inode_get() - find or create the inode @ino and take a reference.
 * @cache: the cache.
 * @ino: caller-chosen id.
 * @out: receives the inode.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL for NULL arguments, or -ENOMEM.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_inode_get(struct dc_cache *cache, uint64_t ino, struct dc_inode **out);

/**
 * dc_inode_put() - drop a reference; the last one evicts the inode.
 * @inode: the inode, or NULL.
 *
 * Eviction removes every mapping of the inode with batched remove() calls
 * (after writeback of writable ones; a failed writeback is logged and the
 * mapping dropped anyway).  If a reclaim walk (the background reclaimer,
 * or another thread's inline reclaim) holds a passing reference at that
 * moment, the eviction runs when it lets go, on the background reclaimer's
 * thread.  The caller must not hold pins on the inode's mappings when it
 * drops the last reference; if it does, this is reported and eviction
 * waits for them (until dc_cache_destroy() gives up on them, if it comes
 * first).
 *
 * Context: process context; may sleep when it evicts.
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): returns
 * at once, the reference left to the exit.
 */
void dc_inode_put(struct dc_inode *inode);

/**
 * dc_map() - pin the mapping of @file_off, setting it up if needed.
 * @inode: the inode.
 * @file_off: the file offset to reach.
 * @flags: DC_MAP_WRITE, DC_MAP_NOWAIT, DC_MAP_NORECLAIM, DC_MAP_MAY_BYPASS.
 * @pin: receives the pin.
 *
 * A hit takes no lock.  A miss allocates a range (free pool, then inline
 * reclaim of an idle range, then the background reclaimer and a wait of at
 * most the config's wait_timeout_ns) and calls setup().  A write to a
 * read-only mapping calls setup() with DC_MAP_WRITE once.
 *
 * With DC_MAP_MAY_BYPASS (the caller can serve the access without the
 * window) and the config's admit policy DC_ADMIT_FREQ (the default), a miss
 * is decided: with a free range it is mapped (and the background reclaimer
 * is not started for it); otherwise a read is mapped over an idle victim
 * if it continues a sequential stream, or if it was missed recently and its
 * reference count beats the victim's, else dc_map() returns DC_MAP_BYPASS
 * (stats: bypass_full).  A
 * write is never mapped over a victim, and while no range is free a write
 * to a read-only mapping is upgraded only once its range is hot (written
 * repeatedly), else it is bypassed (bypass_write): a writable mapping
 * costs a writeback before its range can be reclaimed.  When no idle range
 * can be reclaimed (every range pinned), dc_map() returns DC_MAP_BYPASS at
 * once instead of waiting (bypass_busy); but while the background
 * reclaimer is taking ranges to the free pool it waits for them (they are
 * free in a moment), and a wait that times out answers DC_MAP_BYPASS
 * (bypass_busy) rather than -ETIMEDOUT.  DC_MAP_BYPASS leaves @pin without
 * a pin (dc_unpin() on it does nothing); the caller reads or writes the
 * file directly, by a path coherent with the window (a later mapping must
 * see a direct write).  Read hits and writes to writable mappings are never
 * bypassed.
 *
 * Context: any thread outside read-side sections.  Sleeps unless
 * DC_MAP_NOWAIT.
 * Return: 0 with a pin; DC_MAP_BYPASS (1, only with DC_MAP_MAY_BYPASS): no
 * pin, serve the access directly; -EINVAL for bad arguments; -ECHILD in
 * a child forked without dc_before_fork() (see daxcache/thread.h); -EAGAIN with
 * DC_MAP_NOWAIT or DC_MAP_NORECLAIM when it would sleep or reclaim (see
 * dc_wait_free()); -ETIMEDOUT when no range came free in time (for instance
 * when the caller itself pins every range); -EINTR when interrupted
 * (kernel); or the error of setup().  Never -ENOMEM: what a mapping needs
 * was allocated by dc_cache_create() and dc_inode_get().  Whatever the
 * answer other than 0, @pin (when not NULL) is left empty, its fields
 * zero: dc_unpin() on it does nothing.
 */
int dc_map(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
	   struct dc_pin *pin);

/**
 * dc_map_timeout() - dc_map() with its own bound on the wait for a range.
 * @inode: the inode.
 * @file_off: the file offset to reach.
 * @flags: as for dc_map().
 * @timeout_ns: the longest wait for a free range; DC_WAIT_FOREVER.
 * @pin: receives the pin.
 *
 * Context: as dc_map().
 * Return: as dc_map().
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_map_timeout(struct dc_inode *inode, uint64_t file_off, unsigned int flags,
		   uint64_t timeout_ns, struct dc_pin *pin);

/**
 * dc_unpin() - release a pin.
 * @pin: the pin; a pin already released (or zeroed) is ignored.
 *
 * Context: any; never blocks.
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): the
 * pin is dropped, and nobody waiting for a range is woken.
 */
void dc_unpin(struct dc_pin *pin);

/**
 * dc_pin_stow() - keep a pin as one pointer.
 * @pin: a pin that dc_map() filled, or an empty one.
 *
 * For a caller with room for one pointer where the pin must outlive the
 * function that mapped: an iomap's @private, between its iomap_begin and
 * iomap_end.  @pin itself may then live on that function's stack, and no
 * struct dc_pin needs allocating per access.  @pin is left empty
 * (dc_unpin() on it does nothing); the pin stays held until
 * dc_unpin_stowed() is called on what this returns, once.
 *
 * Context: any; never blocks.
 * Return: the stowed pin, never NULL for a pin that dc_map() filled;
 * NULL for an empty @pin, or a NULL one.
 */
static inline void *dc_pin_stow(struct dc_pin *pin)
{
	void *stowed;

	if (!pin)
		return NULL;
	stowed = pin->range;
	pin->range = NULL;
	return stowed;
}

/**
 * dc_unpin_stowed() - release a pin that dc_pin_stow() stowed.
 * @stowed: what dc_pin_stow() returned; NULL is ignored.
 *
 * Context: as dc_unpin().
 * Return: nothing.
 */
static inline void dc_unpin_stowed(void *stowed)
{
	struct dc_pin pin = { 0, 0, false, 0, stowed };

	dc_unpin(&pin);
}

/**
 * dc_wait_free() - wait until a range is free (after -EAGAIN).
 * @cache: the cache.
 * @timeout_ns: the longest wait; DC_WAIT_FOREVER.
 *
 * Kicks the background reclaimer first.
 *
 * Context: process context; sleeps.
 * Return: 0 once a range is free, -ETIMEDOUT, or -EINTR (kernel).
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_wait_free(struct dc_cache *cache, uint64_t timeout_ns);

/**
 * dc_inode_punch() - drop the mappings of [@off, @off + @len).
 * @inode: the inode.
 * @off: first byte.
 * @len: bytes; UINT64_MAX - @off or more means to the end of the file.
 *
 * Mappings that overlap the byte range are removed (batched remove() after
 * writeback of writable ones) and their ranges freed.  Pinned mappings are
 * left in place.  The mappings are walked once, in file order, whatever
 * remove_batch_max: one writeback() call per writable mapping.
 *
 * Context: process context; sleeps.
 * Return: 0; the error of writeback() when a writable mapping could not be
 * written back (it stays mapped; the others are dropped), even if some
 * mappings were pinned too: a write that did not reach the file must be
 * heard, a pin loses nothing; else -EBUSY if some mappings were pinned (the
 * others are dropped); -EINVAL if @len is 0.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_inode_punch(struct dc_inode *inode, uint64_t off, uint64_t len);

/**
 * dc_inode_id() - the id an inode was created with.
 * @inode: the inode.
 *
 * Context: any.
 * Return: the id.
 */
uint64_t dc_inode_id(const struct dc_inode *inode);

/**
 * dc_cache_stats() - read the counters.
 * @cache: the cache.
 * @st: receives the counters.
 * @size: sizeof(*@st) as the caller knows it: exactly that much is written.
 *
 * Counters are summed without stopping the cache, so they are a snapshot of
 * each counter, not of all of them at one instant.
 *
 * Context: any.
 * Return: 0, or -EINVAL for NULL arguments or @size below
 * DC_CACHE_STATS_SIZE_VER0.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_cache_stats(const struct dc_cache *cache, struct dc_cache_stats *st,
		   size_t size);

/**
 * dc_cache_range_size() - bytes per range.
 * @cache: the cache.
 *
 * Context: any.
 * Return: 1 << range_shift.
 */
uint64_t dc_cache_range_size(const struct dc_cache *cache);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_CACHE_H */
