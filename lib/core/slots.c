// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: slots.c - request slot table (see include/daxcache/slots.h).
 *
 * One spinlock guards the free list, the counts and the backlog.  It is
 * never held across an allocation, a free or a sleep: a caller that must
 * allocate reserves its place in @nr_alloc under the lock, drops it,
 * allocates, and takes it again only to account for the result.
 *
 * A waiter lives on its caller's stack, queued on the backlog list.  A put
 * with waiters unlinks the first one, stores the slot in it and then sets
 * its @state to W_GRANTED with release ordering; from that store on the
 * waiter may return, so the putter touches nothing of it afterwards and
 * wakes the table's wait queue, which lives as long as the table.
 *
 * No waiter is left without someone to wake it.  A waiter is woken by a put,
 * so waiting is safe while a slot is out, or while an allocation is on its
 * way (whose caller will put the slot it gets).  An allocation that fails
 * with no slot out hands its place in @nr_alloc to the first waiter (state
 * W_ALLOC, unlinked like a granted one): that waiter allocates for itself,
 * and if it fails too, it does the same for the next one and returns
 * -ENOMEM, unless slots are out again by then, when it goes back to the
 * head of the backlog.  Each waiter tries at most once while nothing is out,
 * so a persistent failure ends every wait instead of passing the turn
 * around.
 *
 * Callers: filesystems, through <daxcache/slots.h>.
 */
#include "platform.h"
#include "struct_size.h"

#include <daxcache/slots.h>

enum waiter_state {
	W_WAITING,	/* on the backlog */
	W_GRANTED,	/* handed @slot by a put */
	W_ALLOC,	/* handed a failed allocation's place: allocate */
};

struct slot_waiter {
	struct slot_waiter *next, *prev;	/* backlog; table lock */
	struct dc_slot *slot;			/* set before W_GRANTED */
	int state;				/* enum waiter_state */
};

struct dc_slot_table {
	dci_spinlock_t lock;
	struct dc_slot *free;			/* free slots, LIFO */
	struct slot_waiter backlog;		/* list head, FIFO */
	unsigned int min_slots, max_slots;
	unsigned int nr_alloc;			/* existing + being allocated */
	unsigned int nr_out;
	unsigned int nr_waiting;
	size_t slot_size;
	const struct dc_slot_table_ops *ops;	/* &ops_copy, or NULL */
	struct dc_slot_table_ops ops_copy;	/* the caller's, as this library knows it */
	void *priv;
	struct dci_waitq wq;
	struct dc_slot_table_stats st;		/* table lock */
};

/* Link @w between @prev and @next of the backlog, and count it. */
static void backlog_insert(struct dc_slot_table *tbl, struct slot_waiter *w,
			   struct slot_waiter *prev, struct slot_waiter *next)
{
	w->prev = prev;
	w->next = next;
	prev->next = w;
	next->prev = w;
	tbl->nr_waiting++;
	if (tbl->nr_waiting > tbl->st.max_backlog)
		tbl->st.max_backlog = tbl->nr_waiting;
}

static void backlog_add_tail(struct dc_slot_table *tbl, struct slot_waiter *w)
{
	backlog_insert(tbl, w, tbl->backlog.prev, &tbl->backlog);
	tbl->st.waits++;
}

/* Back to the front: a waiter whose turn to allocate failed. */
static void backlog_add_head(struct dc_slot_table *tbl, struct slot_waiter *w)
{
	backlog_insert(tbl, w, &tbl->backlog, tbl->backlog.next);
}

static void backlog_del(struct dc_slot_table *tbl, struct slot_waiter *w)
{
	w->prev->next = w->next;
	w->next->prev = w->prev;
	w->next = w->prev = w;
	tbl->nr_waiting--;
}

/* A new slot, zeroed and through the init op; NULL when either fails. */
static struct dc_slot *slot_alloc(struct dc_slot_table *tbl)
{
	struct dc_slot *s = dci_zalloc(tbl->slot_size);

	if (s && tbl->ops && tbl->ops->init && tbl->ops->init(s, tbl->priv)) {
		dci_free(s);
		s = NULL;
	}
	return s;
}

static void slot_free(struct dc_slot_table *tbl, struct dc_slot *s)
{
	if (tbl->ops && tbl->ops->fini)
		tbl->ops->fini(s, tbl->priv);
	dci_free(s);
}

int dc_slot_table_create(const struct dc_slot_table_config *ucfg,
			 size_t cfg_size,
			 const struct dc_slot_table_ops *uops,
			 size_t ops_size, void *priv,
			 struct dc_slot_table **out)
{
	struct dc_slot_table_config cfg;
	struct dc_slot_table_ops ops;
	struct dc_slot_table *tbl;
	unsigned int min_slots, max_slots, i;
	size_t slot_size;
	int ret;

	ret = sized_create_in(out, &cfg, ucfg, cfg_size,
			      DC_SLOT_TABLE_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	if (dci_fork_check(__func__))
		return -ECHILD;
	memset(&ops, 0, sizeof(ops));
	if (uops) {
		ret = sized_copy_in(&ops, sizeof(ops), uops, ops_size,
				    DC_SLOT_TABLE_OPS_SIZE_VER0);
		if (ret)
			return ret;
	}
	min_slots = cfg.min_slots;
	max_slots = cfg.max_slots;
	slot_size = cfg.slot_size ? cfg.slot_size : sizeof(struct dc_slot);
	if (!max_slots || min_slots > max_slots ||
	    slot_size < sizeof(struct dc_slot))
		return -EINVAL;
	tbl = dci_zalloc(sizeof(*tbl));
	if (!tbl)
		return -ENOMEM;
	dci_spin_lock_init(&tbl->lock);
	dci_waitq_init(&tbl->wq);
	tbl->backlog.next = tbl->backlog.prev = &tbl->backlog;
	tbl->min_slots = min_slots;
	tbl->max_slots = max_slots;
	tbl->slot_size = slot_size;
	if (uops) {
		tbl->ops_copy = ops;
		tbl->ops = &tbl->ops_copy;
	}
	tbl->priv = priv;
	for (i = 0; i < min_slots; i++) {
		struct dc_slot *s = slot_alloc(tbl);

		if (!s) {
			dc_slot_table_destroy(tbl);
			return -ENOMEM;
		}
		s->next = tbl->free;
		tbl->free = s;
		tbl->nr_alloc++;
	}
	*out = tbl;
	return 0;
}
DCI_EXPORT(dc_slot_table_create);

int dc_slot_table_destroy(struct dc_slot_table *tbl)
{
	struct dc_slot *s;

	/* In a child forked unprepared, left to the exit: locks may be held. */
	if (!tbl || dci_fork_check(__func__))
		return 0;
	dci_spin_lock(&tbl->lock);
	if (tbl->nr_out || tbl->nr_waiting) {
		dci_spin_unlock(&tbl->lock);
		return -EBUSY;
	}
	s = tbl->free;
	tbl->free = NULL;
	dci_spin_unlock(&tbl->lock);
	while (s) {
		struct dc_slot *next = s->next;

		slot_free(tbl, s);
		s = next;
	}
	dci_waitq_destroy(&tbl->wq);
	dci_spin_lock_destroy(&tbl->lock);
	dci_free(tbl);
	return 0;
}
DCI_EXPORT(dc_slot_table_destroy);

/*
 * Allocate a slot whose place in @nr_alloc the caller holds; with the lock
 * held on entry and on return, dropped around the allocation.  On failure
 * the place is given back and, if nothing is out, handed to the first
 * waiter, who would otherwise wait for a put that cannot come.
 */
static struct dc_slot *slot_alloc_reserved(struct dc_slot_table *tbl)
{
	struct slot_waiter *w;
	struct dc_slot *s;

	dci_spin_unlock(&tbl->lock);
	s = slot_alloc(tbl);
	dci_spin_lock(&tbl->lock);
	if (s) {
		tbl->st.dynamic_allocs++;
		tbl->nr_out++;
		return s;
	}
	tbl->nr_alloc--;
	tbl->st.alloc_failures++;
	w = tbl->backlog.next;
	if (w != &tbl->backlog && !tbl->nr_out) {
		/* Its turn to allocate, in the place we had. */
		backlog_del(tbl, w);
		tbl->nr_alloc++;
		tbl->st.retries++;
		dci_store_release(&w->state, W_ALLOC);
		/* @w may be gone now; the wait queue lives with the table. */
		dci_waitq_wake_all(&tbl->wq);
	}
	return NULL;
}

/*
 * Take a free slot or make one; with the lock held on entry and on return.
 * Returns the slot, or NULL when the caller must wait (the table is full,
 * others already wait, or the allocation failed).  Sets *@failed when the
 * allocation failed.
 */
static struct dc_slot *slot_take_locked(struct dc_slot_table *tbl, bool *failed)
{
	struct dc_slot *s;

	*failed = false;
	s = tbl->free;
	if (s) {
		tbl->free = s->next;
		s->next = NULL;
		tbl->nr_out++;
		return s;
	}
	/* Room to grow, and nobody queued ahead of us: allocate unlocked. */
	if (tbl->nr_alloc >= tbl->max_slots || tbl->nr_waiting)
		return NULL;
	tbl->nr_alloc++;
	s = slot_alloc_reserved(tbl);
	*failed = !s;
	return s;
}

/* What is left of @timeout_ns, @start_ns being when the wait began. */
static uint64_t time_left(uint64_t timeout_ns, uint64_t start_ns)
{
	uint64_t spent;

	if (timeout_ns == UINT64_MAX)
		return UINT64_MAX;
	spent = dci_now_ns() - start_ns;
	return spent < timeout_ns ? timeout_ns - spent : 0;
}

static int slot_get(struct dc_slot_table *tbl, bool wait, uint64_t timeout_ns,
		    struct dc_slot **out)
{
	struct slot_waiter w = { .slot = NULL, .state = W_WAITING };
	uint64_t start = 0, left = timeout_ns;
	struct dc_slot *s;
	bool failed;
	int ret;

	*out = NULL;
	if (dci_fork_check(wait ? "dc_slot_get" : "dc_slot_tryget"))
		return -ECHILD;
	dci_spin_lock(&tbl->lock);
	s = slot_take_locked(tbl, &failed);
	if (s) {
		dci_spin_unlock(&tbl->lock);
		*out = s;
		return 0;
	}
	/* Nobody holds a slot: nobody would ever wake us. */
	if (failed && !tbl->nr_out) {
		dci_spin_unlock(&tbl->lock);
		return wait ? -ENOMEM : -EAGAIN;
	}
	if (!wait) {
		dci_spin_unlock(&tbl->lock);
		return -EAGAIN;
	}
	backlog_add_tail(tbl, &w);
	dci_spin_unlock(&tbl->lock);
	if (timeout_ns != UINT64_MAX)
		start = dci_now_ns();

	for (;;) {
		ret = dci_waitq_wait_timeout(&tbl->wq,
					    dci_load_acquire(&w.state) != W_WAITING,
					    left);
		/* Granted: the putter is done with @w, no need for the lock. */
		if (dci_load_acquire(&w.state) == W_GRANTED) {
			*out = w.slot;
			return 0;
		}
		dci_spin_lock(&tbl->lock);
		switch (w.state) {
		case W_GRANTED:		/* after the wait gave up */
			dci_spin_unlock(&tbl->lock);
			*out = w.slot;
			return 0;
		case W_ALLOC:		/* our place in @nr_alloc is reserved */
			s = slot_alloc_reserved(tbl);
			if (s) {
				dci_spin_unlock(&tbl->lock);
				*out = s;
				return 0;
			}
			if (!tbl->nr_out) {
				dci_spin_unlock(&tbl->lock);
				return -ENOMEM;
			}
			/* Slots are out again: wait for one, first in line. */
			w.state = W_WAITING;
			backlog_add_head(tbl, &w);
			dci_spin_unlock(&tbl->lock);
			left = time_left(timeout_ns, start);
			continue;
		default:		/* -ETIMEDOUT or -EINTR */
			backlog_del(tbl, &w);
			tbl->st.timeouts++;
			dci_spin_unlock(&tbl->lock);
			return ret;
		}
	}
}

int dc_slot_get(struct dc_slot_table *tbl, struct dc_slot **out)
{
	return slot_get(tbl, true, UINT64_MAX, out);
}
DCI_EXPORT(dc_slot_get);

int dc_slot_get_timeout(struct dc_slot_table *tbl, uint64_t timeout_ns,
			struct dc_slot **out)
{
	return slot_get(tbl, true, timeout_ns, out);
}
DCI_EXPORT(dc_slot_get_timeout);

int dc_slot_tryget(struct dc_slot_table *tbl, struct dc_slot **out)
{
	return slot_get(tbl, false, 0, out);
}
DCI_EXPORT(dc_slot_tryget);

void dc_slot_put(struct dc_slot_table *tbl, struct dc_slot *slot)
{
	struct slot_waiter *w;

	if (dci_fork_check(__func__))
		return;
	dci_spin_lock(&tbl->lock);
	if (dci_warn_once(!tbl->nr_out, "%s() with no slot out", __func__)) {
		dci_spin_unlock(&tbl->lock);
		return;
	}
	w = tbl->backlog.next;
	if (w != &tbl->backlog) {
		/* Hand over: the slot stays out, now held by the waiter. */
		backlog_del(tbl, w);
		tbl->st.handoffs++;
		w->slot = slot;
		dci_store_release(&w->state, W_GRANTED);
		dci_spin_unlock(&tbl->lock);
		dci_waitq_wake_all(&tbl->wq);
		return;
	}
	tbl->nr_out--;
	if (tbl->nr_alloc > tbl->min_slots) {
		tbl->nr_alloc--;
		tbl->st.releases++;
		dci_spin_unlock(&tbl->lock);
		slot_free(tbl, slot);
		return;
	}
	slot->next = tbl->free;
	tbl->free = slot;
	dci_spin_unlock(&tbl->lock);
}
DCI_EXPORT(dc_slot_put);

int dc_slot_table_stats(struct dc_slot_table *tbl,
			struct dc_slot_table_stats *st, size_t size)
{
	struct dc_slot_table_stats snap;

	if (!tbl)
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	dci_spin_lock(&tbl->lock);
	snap = tbl->st;
	snap.allocated = tbl->nr_alloc;
	snap.out = tbl->nr_out;
	snap.backlog = tbl->nr_waiting;
	dci_spin_unlock(&tbl->lock);
	return sized_copy_out(st, size, &snap, sizeof(snap),
			      DC_SLOT_TABLE_STATS_SIZE_VER0);
}
DCI_EXPORT(dc_slot_table_stats);
