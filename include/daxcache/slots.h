/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/slots.h - a request slot table with on-demand growth and a FIFO
 * backlog.
 *
 * A table (modelled on SUNRPC's slot table: docs/design.md) holds up to
 * @max_slots request slots, @min_slots of them allocated up front.  A caller
 * that finds no free slot allocates a new one, with the table lock dropped
 * around the allocation, as long as the table is below its maximum.  When
 * the table is at its maximum, or the allocation fails, the caller joins a
 * FIFO backlog; dc_slot_put() hands the slot it frees straight to the first
 * waiter, so nobody can overtake a waiter.  A slot freed with nobody waiting
 * is kept while the table holds no more than @min_slots, and released
 * otherwise.
 *
 * A slot is @slot_size bytes, zeroed when allocated, that begin with a
 * struct dc_slot: the caller keeps per-slot state (a request buffer) in the
 * rest, reached with container_of(), and it survives from one use to the
 * next.  Slots are interchangeable: which one a caller gets says nothing.
 *
 * One exception to "an allocation failure waits": when no slot at all is
 * out, nobody would ever wake the waiter, so the caller gets -ENOMEM.  The
 * same holds for callers already in the backlog, who may have joined it
 * because the allocation in progress took the last place below
 * @max_slots: when that allocation fails and no slot is out, the first
 * waiter leaves the backlog and allocates in its place (counted in
 * @retries); if that fails too it gets -ENOMEM and the next waiter tries,
 * unless a slot is out by then, when it waits again at the head of the
 * backlog.  So nobody waits in the backlog unless a slot is out or an
 * allocation is on its way.
 *
 * Optional ops prepare each new slot and undo that before it is freed
 * (the ops of dc_slot_table_create()), e.g. to give each slot a buffer of
 * its own.
 */
#ifndef DAXCACHE_SLOTS_H
#define DAXCACHE_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include <daxcache/sized.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dc_slot_table;

/**
 * struct dc_slot - the head of one request slot; its fields are private.
 */
struct dc_slot {
	/* private: */
	struct dc_slot *next;
};

/**
 * struct dc_slot_table_ops - optional per-slot callbacks of a table.
 * @init: prepare a new slot, allocated and zeroed, before any caller gets
 *        it.  Called with no lock of the table held (it may sleep), from
 *        dc_slot_table_create() and from gets that allocate.  Returns 0,
 *        or -ENOMEM (any error): the slot is then freed and the allocation
 *        counts as failed, exactly as if the memory had not been there.
 *        NULL: nothing to prepare.
 * @fini: undo @init before a slot is freed (a release by dc_slot_put(), or
 *        dc_slot_table_destroy()); called without the table's lock; must
 *        not fail.  NULL: nothing to undo.
 *
 * Passed with its size and copied (see daxcache/daxcache.h); new members
 * are only ever appended.
 */
struct dc_slot_table_ops {
	int (*init)(struct dc_slot *slot, void *priv);
	void (*fini)(struct dc_slot *slot, void *priv);
};

/* The first layout of struct dc_slot_table_ops: init, fini. */
#define DC_SLOT_TABLE_OPS_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_slot_table_ops, fini)

/**
 * struct dc_slot_table_config - the limits of a slot table.
 * @min_slots: slots allocated at creation and never released (may be 0).
 * @max_slots: the most slots that may exist at once (at least 1, and at
 *             least @min_slots).
 * @slot_size: bytes per slot, at least sizeof(struct dc_slot); 0 means
 *             sizeof(struct dc_slot).
 *
 * Passed with its size (see daxcache/daxcache.h); new members are only
 * ever appended.
 */
struct dc_slot_table_config {
	unsigned int min_slots;
	unsigned int max_slots;
	size_t slot_size;
};

/* The first layout of struct dc_slot_table_config: up to @slot_size. */
#define DC_SLOT_TABLE_CONFIG_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_slot_table_config, slot_size)

/**
 * struct dc_slot_table_stats - counters of a slot table.
 * @allocated: slots that exist now (free or out).
 * @out: slots held by callers now.
 * @backlog: callers waiting now.
 * @dynamic_allocs: slots allocated on demand (beyond the preallocated ones).
 * @alloc_failures: on-demand allocations that failed (allocator or @init).
 * @retries: waiters handed the place of a failed allocation, to allocate.
 * @releases: slots freed because the table held more than @min_slots.
 * @waits: callers that joined the backlog.
 * @handoffs: slots handed by dc_slot_put() straight to a waiter.
 * @timeouts: waits that ended without a slot (-ETIMEDOUT or -EINTR).
 * @max_backlog: the longest the backlog has been.
 *
 * Filled for the caller's size (see daxcache/daxcache.h); new members are
 * only ever appended.
 */
struct dc_slot_table_stats {
	unsigned int allocated;
	unsigned int out;
	unsigned int backlog;
	uint64_t dynamic_allocs;
	uint64_t alloc_failures;
	uint64_t retries;
	uint64_t releases;
	uint64_t waits;
	uint64_t handoffs;
	uint64_t timeouts;
	unsigned int max_backlog;
};

/* The first layout of struct dc_slot_table_stats: up to @max_backlog. */
#define DC_SLOT_TABLE_STATS_SIZE_VER0 \
	DC_OFFSETOFEND(struct dc_slot_table_stats, max_backlog)

/**
 * dc_slot_table_create() - create a table and preallocate its minimum.
 * @cfg: the limits (copied).
 * @cfg_size: sizeof(*@cfg) as the caller knows it.
 * @ops: the per-slot callbacks (copied), or NULL for none.
 * @ops_size: sizeof(*@ops) as the caller knows it (ignored for NULL @ops).
 * @priv: passed to the callbacks.
 * @out: where the table goes.
 *
 * Every slot the table allocates goes through @ops->init first, and
 * through @ops->fini before it is freed.
 *
 * Context: process context; allocates, and calls @ops->init for each of the
 * @cfg->min_slots slots.
 * Return: 0; -EINVAL for bad limits, a NULL @cfg or @out, or a size below
 * DC_SLOT_TABLE_CONFIG_SIZE_VER0 or DC_SLOT_TABLE_OPS_SIZE_VER0; -E2BIG
 * when @cfg or @ops is larger than this library knows and the rest is not
 * zero; -ENOMEM (the allocator or @ops->init; the slots prepared so far
 * are finished and freed).
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_slot_table_create(const struct dc_slot_table_config *cfg,
			 size_t cfg_size, const struct dc_slot_table_ops *ops,
			 size_t ops_size, void *priv,
			 struct dc_slot_table **out);

/**
 * dc_slot_table_destroy() - free a table and its slots.
 * @tbl: the table, or NULL.
 *
 * Refuses while a slot is out or a caller waits, leaving everything as it
 * was.  The caller must have stopped all other use of the table.  Each
 * slot goes through the fini op, if any, before it is freed.
 *
 * Context: process context.
 * Return: 0, or -EBUSY when slots are out or callers wait.
 * In a child forked without dc_before_fork() (daxcache/thread.h): 0 at
 * once, the object left to the exit.
 */
int dc_slot_table_destroy(struct dc_slot_table *tbl);

/**
 * dc_slot_get() - get a slot, waiting in the backlog if need be.
 * @tbl: the table.
 * @out: where the slot goes.
 *
 * Context: process context; may allocate and sleep.  In the kernel the wait
 * is killable.
 * Return: 0; -ENOMEM when the allocation failed and no slot is out to be
 * freed (this caller's, or, after it joined the backlog, the failed
 * allocation whose place it was handed); -EINTR on a fatal signal (kernel
 * only).
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_slot_get(struct dc_slot_table *tbl, struct dc_slot **out);

/**
 * dc_slot_get_timeout() - get a slot, waiting at most @timeout_ns.
 * @tbl: the table.
 * @timeout_ns: the longest wait in the backlog; UINT64_MAX waits forever.
 * @out: where the slot goes.
 *
 * Context: process context; may allocate and sleep.
 * Return: 0, -ETIMEDOUT, -ENOMEM (as dc_slot_get()), -EINTR (kernel only).
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_slot_get_timeout(struct dc_slot_table *tbl, uint64_t timeout_ns,
			struct dc_slot **out);

/**
 * dc_slot_tryget() - get a slot without waiting.
 * @tbl: the table.
 * @out: where the slot goes.
 *
 * Allocates on demand like dc_slot_get() (so it may still block in the
 * allocator), but never joins the backlog, and never overtakes callers that
 * wait in it.
 *
 * Context: process context; may allocate.
 * Return: 0, or -EAGAIN when dc_slot_get() would have waited (or, with no
 * slot out, failed with -ENOMEM).
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_slot_tryget(struct dc_slot_table *tbl, struct dc_slot **out);

/**
 * dc_slot_put() - give a slot back.
 * @tbl: the table.
 * @slot: a slot of @tbl, from a get.
 *
 * Hands the slot to the first caller in the backlog if there is one; else
 * keeps it, or frees it (after the fini op) when the table holds more than
 * its minimum.
 *
 * Context: process context (it may free a slot and call the fini op); never
 * waits.
 * Return: nothing.
 * In a child forked without dc_before_fork() (daxcache/thread.h): returns
 * at once, the slot left out.
 */
void dc_slot_put(struct dc_slot_table *tbl, struct dc_slot *slot);

/**
 * dc_slot_table_stats() - read a table's counters.
 * @tbl: the table.
 * @st: filled in, as one consistent snapshot.
 * @size: sizeof(*@st) as the caller knows it: exactly that much is written.
 *
 * Context: any that may take a spinlock.
 * Return: 0, or -EINVAL for NULL arguments or @size below
 * DC_SLOT_TABLE_STATS_SIZE_VER0.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_slot_table_stats(struct dc_slot_table *tbl,
			struct dc_slot_table_stats *st, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_SLOTS_H */
