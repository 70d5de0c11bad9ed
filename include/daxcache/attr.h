/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/attr.h - cached file attributes with a validity deadline, and the
 * read path's "must I ask the server first?" decision.
 *
 * Attributes are refreshed on read only when they have timed out, not on
 * every read (the history: docs/design.md).  One
 * struct dc_attr per inode holds the size, mtime and ctime last learnt, and
 * the time until which they count as valid (refresh time + timeout).
 *
 * The read path asks dc_attr_read_check() before a read:
 *
 * - a read that reaches past the cached size always needs a refresh (the
 *   file may have grown);
 * - otherwise, with auto-invalidation on, under DC_ATTR_RULE_TIMEOUT (the
 *   default) a refresh is needed only when the attributes have timed out;
 *   under DC_ATTR_RULE_EVERY_READ (the old rule, kept for comparison) every
 *   read updates the attributes, which asks the server whenever they have
 *   timed out or a write has marked them stale;
 * - with auto-invalidation off, only the size rule applies;
 * - under any rule, with auto-invalidation on or off, a read after
 *   dc_attr_expire() refreshes: the caller has said the attributes are
 *   wrong (a setattr), which is not a check for changes by others.
 *
 * The caller then asks the server (GETATTR) and passes the answer to
 * dc_attr_refresh().  If it shows a size or an mtime the cache did not
 * expect, the invalidate hook runs (for a filesystem: punch the inode's
 * mappings): another client has changed the file.
 *
 * A write invalidates nothing by itself: dc_attr_note_write() moves the
 * cached size and mtime to what the writer knows.  Under the old rule it also
 * marks the attributes stale, as the old FUSE write path did, which is what
 * made every read after a write cost a GETATTR (and, when the writer does
 * not learn the server's mtime, a cache invalidation).
 *
 * Times are nanoseconds on the caller's clock; every function that needs
 * "now" takes it as @now_ns (clock_gettime(CLOCK_MONOTONIC) in nanoseconds,
 * or anything monotonic, as tests do).  Objects are opaque, allocated by dc_attr_create(); each has a
 * small lock, and every function may be called from any thread.
 */
#ifndef DAXCACHE_ATTR_H
#define DAXCACHE_ATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <daxcache/sized.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dc_attr;

/** DC_ATTR_MTIME_UNKNOWN - "the writer does not know the new mtime". */
#define DC_ATTR_MTIME_UNKNOWN	INT64_MIN

/**
 * struct dc_attr_values - the attributes a refresh reports.
 * @size: file size in bytes.
 * @mtime_ns: modification time, ns.
 * @ctime_ns: status change time, ns.
 */
struct dc_attr_values {
	uint64_t size;
	int64_t mtime_ns;
	int64_t ctime_ns;
};

/**
 * enum dc_attr_rule - when a read within the cached size refreshes.
 * @DC_ATTR_RULE_TIMEOUT: only when the attributes have timed out.
 * @DC_ATTR_RULE_EVERY_READ: the old rule: every read updates them, which
 *	refreshes when timed out or stale; writes make them stale.
 */
enum dc_attr_rule {
	DC_ATTR_RULE_TIMEOUT = 0,
	DC_ATTR_RULE_EVERY_READ = 1,
};

/**
 * typedef dc_attr_invalidate_fn - drop what was cached under old attributes.
 * @data: the pointer given in the config.
 * @old: the attributes the cache expected.
 * @cur: the attributes the refresh found.
 *
 * Called by dc_attr_refresh() without the object's lock held; it may sleep
 * if the caller of dc_attr_refresh() may.
 */
typedef void (*dc_attr_invalidate_fn)(void *data,
				      const struct dc_attr_values *old,
				      const struct dc_attr_values *cur);

/**
 * struct dc_attr_config - how one object behaves.
 * @timeout_ns: how long refreshed attributes stay valid.
 * @rule: enum dc_attr_rule.
 * @auto_inval: check on reads for changes by others (FUSE's
 *	auto_inval_data); when false only the past-EOF rule and
 *	dc_attr_expire() make a read refresh.
 * @invalidate: the hook, or NULL.
 * @data: passed to @invalidate.
 *
 * Passed with its size (see daxcache/daxcache.h); new members are only
 * ever appended.
 */
struct dc_attr_config {
	uint64_t timeout_ns;
	enum dc_attr_rule rule;
	bool auto_inval;
	dc_attr_invalidate_fn invalidate;
	void *data;
};

/* The first layout of struct dc_attr_config: up to @data. */
#define DC_ATTR_CONFIG_SIZE_VER0 DC_OFFSETOFEND(struct dc_attr_config, data)

/**
 * struct dc_attr_stats - counters of one object.
 * @checks: read checks made.
 * @refresh_eof: checks that asked for a refresh because of the size.
 * @refresh_timeout: checks that asked because of timeout or staleness.
 * @refreshes: refreshes installed.
 * @stale_refreshes: refreshes dropped because a write raced them.
 * @invalidations: invalidate hook calls.
 * @writes: writes noted.
 *
 * Filled for the caller's size (see daxcache/daxcache.h); new members are
 * only ever appended.
 */
struct dc_attr_stats {
	uint64_t checks;
	uint64_t refresh_eof;
	uint64_t refresh_timeout;
	uint64_t refreshes;
	uint64_t stale_refreshes;
	uint64_t invalidations;
	uint64_t writes;
};

/* The first layout of struct dc_attr_stats: up to @writes. */
#define DC_ATTR_STATS_SIZE_VER0 DC_OFFSETOFEND(struct dc_attr_stats, writes)

/**
 * dc_attr_create() - allocate an object with no attributes yet.
 * @cfg: behaviour, copied.
 * @size: sizeof(*@cfg) as the caller knows it.
 * @out: where the object goes.
 *
 * Until the first refresh every read check asks for one.
 *
 * Context: process context; allocates.
 * Return: 0; -EINVAL (bad rule, NULL argument, @size below
 * DC_ATTR_CONFIG_SIZE_VER0); -E2BIG when @cfg is larger than this library
 * knows and the rest is not zero; -ENOMEM.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_attr_create(const struct dc_attr_config *cfg, size_t size,
		   struct dc_attr **out);

/**
 * dc_attr_destroy() - free an object.
 * @a: the object, or NULL.
 *
 * Context: process context; no other use may be in progress.
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): returns
 * at once, the object left to the exit.
 */
void dc_attr_destroy(struct dc_attr *a);

/**
 * dc_attr_read_check() - decide whether a read must refresh first.
 * @a: the object.
 * @pos: first byte the read wants.
 * @len: bytes it wants.
 * @now_ns: the time now.
 * @out: where the version to pass to dc_attr_refresh() goes (may be
 *	NULL); filled in whatever the answer.
 *
 * Context: any that may take a spinlock.
 * Return: true when the caller should GETATTR and call dc_attr_refresh()
 * before reading, false when the cached attributes do.
 * In a child forked without dc_before_fork() (daxcache/thread.h): true,
 * without looking.
 */
bool dc_attr_read_check(struct dc_attr *a, uint64_t pos, uint64_t len,
			uint64_t now_ns, uint64_t *out);

/**
 * dc_attr_refresh() - install the attributes a GETATTR returned.
 * @a: the object.
 * @cur: what the server said.
 * @version: from dc_attr_read_check() or dc_attr_version(), taken before
 *	the GETATTR was sent.
 * @now_ns: the time now; the attributes stay valid until @now_ns + timeout.
 *
 * When a write was noted after @version was taken, the answer may predate
 * it: nothing is installed and the attributes keep their state.  Otherwise
 * they are installed and made valid; if the object held attributes and
 * @cur differs from them in size or mtime, the invalidate hook runs (after
 * the lock is dropped).
 *
 * Context: as the invalidate hook needs; takes a spinlock.
 * Return: 0 installed, unchanged; 1 installed and the hook ran (or would
 * have, if none is set); -ESTALE dropped because of a racing write.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_attr_refresh(struct dc_attr *a, const struct dc_attr_values *cur,
		    uint64_t version, uint64_t now_ns);

/**
 * dc_attr_version() - the current version, for a GETATTR not prompted by
 * dc_attr_read_check().
 * @a: the object.
 *
 * Context: any that may take a spinlock.
 * Return: the version.
 * In a child forked without dc_before_fork() (daxcache/thread.h): 0.
 */
uint64_t dc_attr_version(struct dc_attr *a);

/**
 * dc_attr_note_write() - account for a write that completed.
 * @a: the object.
 * @end: offset one past the last byte written; the cached size grows to it.
 * @mtime_ns: the file's new mtime as the writer knows it (from the write's
 *	reply), or DC_ATTR_MTIME_UNKNOWN to leave the cached one.
 * @now_ns: the time now (unused by the current rules, kept for the API).
 *
 * Invalidates nothing.  Under DC_ATTR_RULE_EVERY_READ the attributes become
 * stale, so the next read refreshes.
 *
 * Context: any that may take a spinlock.
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): returns
 * at once, doing nothing.
 */
void dc_attr_note_write(struct dc_attr *a, uint64_t end, int64_t mtime_ns,
			uint64_t now_ns);

/**
 * dc_attr_expire() - make the attributes stale, so the next read check
 * asks for a refresh (after a setattr, say).
 * @a: the object.
 *
 * Under either rule and with auto-invalidation on or off: until the next
 * refresh, every read check asks for one and dc_attr_get() calls them
 * invalid.
 *
 * Context: any that may take a spinlock.
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): returns
 * at once, doing nothing.
 */
void dc_attr_expire(struct dc_attr *a);

/**
 * dc_attr_get() - read the cached attributes.
 * @a: the object.
 * @v: filled in.
 * @now_ns: the time now.
 *
 * Context: any that may take a spinlock.
 * Return: true if they are valid at @now_ns (refreshed, not timed out, not
 * made stale).
 * In a child forked without dc_before_fork() (daxcache/thread.h): false, @v
 * zeroed.
 */
bool dc_attr_get(struct dc_attr *a, struct dc_attr_values *v, uint64_t now_ns);

/**
 * dc_attr_stats() - read the counters.
 * @a: the object.
 * @st: filled in.
 * @size: sizeof(*@st) as the caller knows it: exactly that much is written.
 *
 * Context: any that may take a spinlock.
 * Return: 0, or -EINVAL for NULL arguments or @size below
 * DC_ATTR_STATS_SIZE_VER0.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_attr_stats(struct dc_attr *a, struct dc_attr_stats *st, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_ATTR_H */
