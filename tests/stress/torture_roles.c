// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * torture_roles.c - the torture test's worker threads.
 *
 * Every thread keeps one inode reference that it swaps now and then, and
 * takes short-lived ones too, so that inodes (those main holds no reference
 * to) are evicted and created again while others map.  By role:
 *
 * - reader: maps a random file offset (sometimes NOWAIT, NORECLAIM,
 *   MAY_BYPASS, or with a bounded wait), checks that the backend maps that
 *   file range at the pin's window range and that the content (the tag)
 *   is that range's, holds the pin a random short time (yielding or
 *   sleeping sometimes), maps the same range again (same window range,
 *   same generation), and then checks the age: the backend record still
 *   names the same inode, file range and setup sequence number, so the
 *   range was not reused while pinned;
 * - writer: the same with DC_MAP_WRITE and a simulated write through the
 *   pin, sometimes as a read map upgraded while pinned;
 * - puncher: punches random byte ranges (and checks clean -errno returns);
 * - evictor: takes two references to an inode main does not hold, uses it,
 *   and drops both (the last reference evicts it);
 * - waiter: pins as many ranges as the window has, checks that they are
 *   distinct and, when it holds them all, that another map cannot get a
 *   range (-EAGAIN, or -ETIMEDOUT after a short wait), then lets go and
 *   waits for a free range.
 *
 * Each error return is checked against what the flags and the round allow.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <daxcache/thread.h>

#include "torture.h"

const char *t_role_name(enum t_role role)
{
	static const char *const names[] = {
		[T_ROLE_READER] = "reader",
		[T_ROLE_WRITER] = "writer",
		[T_ROLE_PUNCHER] = "puncher",
		[T_ROLE_EVICTOR] = "evictor",
		[T_ROLE_WAITER] = "waiter",
		[T_ROLE_MAIN] = "main",
	};

	return names[role];
}

static bool chance(struct t_thread *th, unsigned int one_in)
{
	return t_below(&th->rng, one_in) == 0;
}

static void spin_us(uint64_t us)
{
	uint64_t start = t_now_ns();

	while (t_now_ns() - start < us * 1000)
		;
}

/* --- inode references -------------------------------------------------- */

static struct dc_inode *get_inode(struct t_thread *th, uint64_t id)
{
	struct dc_inode *inode = NULL;
	int ret = dc_inode_get(th->rd->cache, id, &inode);

	if (ret == -ENOMEM && th->rd->faults) {
		t_count_err(T_OP_GET, ret);
		return NULL;
	}
	if (!t_check(!ret && inode, "dc_inode_get(%" PRIu64 "): %d", id, ret))
		return NULL;
	t_check(dc_inode_id(inode) == id, "dc_inode_get(%" PRIu64 ") gave inode %" PRIu64,
		id, dc_inode_id(inode));
	return inode;
}

static uint64_t random_id(struct t_thread *th)
{
	return 1 + t_below(&th->rng, th->rd->ninodes);
}

/* Drop the kept reference and take one to another inode. */
static void swap_held(struct t_thread *th)
{
	t_op_begin(th, T_OP_GET);
	dc_inode_put(th->held);
	th->held_id = random_id(th);
	th->held = get_inode(th, th->held_id);
	t_op_end(th);
}

/* The kept reference most of the time, else a new one (*@temp). */
static struct dc_inode *use_inode(struct t_thread *th, uint64_t *id, bool *temp)
{
	if (th->held && !chance(th, 4)) {
		*id = th->held_id;
		*temp = false;
		return th->held;
	}
	*id = random_id(th);
	*temp = true;
	return get_inode(th, *id);
}

static void done_inode(struct dc_inode *inode, bool temp)
{
	if (temp)
		dc_inode_put(inode);
}

/* --- maps and their checks ------------------------------------------------ */

/* What one pin saw when it was taken, for the age check. */
struct t_held_pin {
	struct dc_pin pin;
	uint64_t id, off;
	struct dc_simbe_mapping m;
	uint64_t ev_reclaim, ev_punch, ev_evict;
};

/* Whether @ret is an error dc_map() may give for @flags in this round. */
static void check_map_error(struct t_thread *th, enum t_op op, uint64_t id,
			    uint64_t off, unsigned int flags, uint64_t timeout,
			    int ret)
{
	bool ok = false;

	t_count_err(op, ret);
	if (ret == -EAGAIN)
		ok = flags & (DC_MAP_NOWAIT | DC_MAP_NORECLAIM);
	else if (ret == -ETIMEDOUT)
		ok = timeout != DC_WAIT_FOREVER;
	else if (ret == T_SETUP_ERR || ret == -ENOMEM)
		ok = th->rd->faults;
	t_check(ok, "round %u: dc_map(ino %" PRIu64 ", %#" PRIx64 ", flags %#x, timeout %" PRIu64 " ns): %d (%s)%s",
		th->rd->number, id, off, flags, timeout, ret, t_errname(ret),
		th->rd->faults ? " in a round with failures" : "");
}

/*
 * The pin of (@id, @off) must show that file range: the geometry, the
 * backend's record, the tag.  Fills @m with the record.
 */
static bool check_identity(struct t_thread *th, uint64_t id, uint64_t off,
			   const struct dc_pin *pin, struct dc_simbe_mapping *m,
			   const char *what)
{
	struct t_round *rd = th->rd;
	uint64_t in = off & (rd->rs - 1);
	int ret;

	ret = dc_simbe_lookup(rd->be.sim, pin->win_off, m, sizeof(*m));
	if (!t_check(!ret && m->ino == id && m->file_off == off - in,
		     "round %u: %s: pin of ino %" PRIu64 " off %#" PRIx64 " at window range %" PRIu64 ": backend has %s ino %" PRIu64 " off %#" PRIx64,
		     rd->number, what, id, off, pin->win_off / rd->rs,
		     ret ? "nothing" : "", ret ? 0 : m->ino, ret ? 0 : m->file_off))
		return false;
	t_check(!pin->writable || (m->flags & DC_MAP_WRITE),
		"round %u: %s: writable pin on a read-only mapping", rd->number, what);
	atomic_fetch_add_explicit(&t_cnt.tag_checks, 1, memory_order_relaxed);
	ret = dc_simbe_check_tag(rd->be.sim, pin->win_off, id, off);
	return t_check(!ret, "round %u: %s: tag of ino %" PRIu64 " off %#" PRIx64 " at window range %" PRIu64 ": %d",
		       rd->number, what, id, off, pin->win_off / rd->rs, ret);
}

/*
 * dc_map_timeout() and the first checks.  Returns 0 with @hp holding a
 * checked pin (counted for the backend's check), 1 for a bypass answer,
 * or a negative errno (already checked).
 */
static int map_checked(struct t_thread *th, enum t_op op, struct dc_inode *inode,
		       uint64_t id, uint64_t off, unsigned int flags,
		       uint64_t timeout, struct t_held_pin *hp)
{
	struct t_round *rd = th->rd;
	uint64_t in = off & (rd->rs - 1);
	int ret;

	memset(hp, 0, sizeof(*hp));
	ret = dc_map_timeout(inode, off, flags, timeout, &hp->pin);
	if (ret == DC_MAP_BYPASS) {
		atomic_fetch_add(&t_cnt.bypasses, 1);
		t_check(flags & DC_MAP_MAY_BYPASS,
			"round %u: dc_map without DC_MAP_MAY_BYPASS answered a bypass",
			rd->number);
		return 1;
	}
	if (ret < 0) {
		check_map_error(th, op, id, off, flags, timeout, ret);
		return ret;
	}
	if (!t_check(ret == 0, "round %u: dc_map returned %d", rd->number, ret))
		return -EPROTO;
	if (!t_check(hp->pin.win_off < rd->nr * rd->rs &&
		     (hp->pin.win_off & (rd->rs - 1)) == in &&
		     hp->pin.len == rd->rs - in,
		     "round %u: pin of ino %" PRIu64 " off %#" PRIx64 ": win_off %#" PRIx64 " len %#" PRIx64,
		     rd->number, id, off, hp->pin.win_off, hp->pin.len)) {
		dc_unpin(&hp->pin);
		return -EPROTO;
	}
	t_check(!(flags & DC_MAP_WRITE) || hp->pin.writable,
		"round %u: DC_MAP_WRITE gave a read-only pin", rd->number);
	t_pin_note(&rd->be, hp->pin.win_off);
	hp->id = id;
	hp->off = off;
	check_identity(th, id, off, &hp->pin, &hp->m, "map");
	hp->ev_reclaim = atomic_load(&t_cnt.ev_reclaim);
	hp->ev_punch = atomic_load(&t_cnt.ev_punch);
	hp->ev_evict = atomic_load(&t_cnt.ev_evict);
	return 0;
}

/*
 * The age check: the range still maps what it mapped when pinned, from the
 * same setup; then note what ran meanwhile, and unpin.
 */
static void age_check_unpin(struct t_thread *th, struct t_held_pin *hp)
{
	struct t_round *rd = th->rd;
	struct dc_simbe_mapping m;

	atomic_fetch_add_explicit(&t_cnt.age_checks, 1, memory_order_relaxed);
	if (check_identity(th, hp->id, hp->off, &hp->pin, &m, "age check"))
		t_check(m.seq == hp->m.seq,
			"round %u: age check: window range %" PRIu64 " (ino %" PRIu64 " off %#" PRIx64 ") set up again while pinned: seq %" PRIu64 " -> %" PRIu64,
			rd->number, hp->pin.win_off / rd->rs, hp->id, hp->off,
			hp->m.seq, m.seq);
	if (atomic_load(&t_cnt.ev_reclaim) != hp->ev_reclaim)
		atomic_fetch_add(&t_cnt.held_across_reclaim, 1);
	if (atomic_load(&t_cnt.ev_punch) != hp->ev_punch)
		atomic_fetch_add(&t_cnt.held_across_punch, 1);
	if (atomic_load(&t_cnt.ev_evict) != hp->ev_evict)
		atomic_fetch_add(&t_cnt.held_across_evict, 1);
	t_pin_drop(&rd->be, hp->pin.win_off);
	dc_unpin(&hp->pin);
}

/* Keep a pin a random short time. */
static void hold(struct t_thread *th)
{
	unsigned int i, n;

	switch (t_below(&th->rng, 16)) {
	case 0 ... 7:
		break;
	case 8 ... 11:
		n = 1 + (unsigned int)t_below(&th->rng, 4);
		for (i = 0; i < n; i++)
			sched_yield();
		break;
	case 12 ... 13:
		spin_us(t_below(&th->rng, 20));
		break;
	case 14:
		usleep((useconds_t)t_below(&th->rng, 300));
		break;
	default:
		usleep((useconds_t)t_below(&th->rng, 3000));
		break;
	}
}

/*
 * Map the pinned range again: the same window range, and the same
 * generation unless an upgrade (a setup) made it writable since.
 */
static void remap_check(struct t_thread *th, struct dc_inode *inode,
			const struct t_held_pin *hp)
{
	struct t_round *rd = th->rd;
	uint64_t off = (hp->off & ~(rd->rs - 1)) + t_below(&th->rng, rd->rs);
	struct dc_pin p;
	int ret;

	atomic_fetch_add(&t_cnt.ops[T_OP_REMAP], 1);
	ret = dc_map_timeout(inode, off, 0, DC_WAIT_FOREVER, &p);
	if (ret)
		t_count_err(T_OP_REMAP, ret);
	if (!t_check(!ret, "round %u: second map of pinned ino %" PRIu64 " off %#" PRIx64 ": %d",
		     rd->number, hp->id, off, ret))
		return;
	t_check(p.win_off - (off & (rd->rs - 1)) == hp->pin.win_off - (hp->off & (rd->rs - 1)) &&
		(p.gen == hp->pin.gen ||
		 (!hp->pin.writable && p.writable && p.gen > hp->pin.gen)),
		"round %u: second map of pinned ino %" PRIu64 " off %#" PRIx64 ": window range %" PRIu64 " gen %" PRIu64 ", first %" PRIu64 " gen %" PRIu64,
		rd->number, hp->id, off, p.win_off / rd->rs, p.gen,
		hp->pin.win_off / rd->rs, hp->pin.gen);
	dc_unpin(&p);
}

static void sim_write(struct t_thread *th, const struct t_held_pin *hp)
{
	int ret = dc_simbe_write(th->rd->be.sim, hp->pin.win_off, hp->id, hp->off);

	t_check(!ret, "round %u: write through the pin of ino %" PRIu64 " off %#" PRIx64 ": %d",
		th->rd->number, hp->id, hp->off, ret);
}

/* Random map flags and wait for a reader or writer. */
static unsigned int random_flags(struct t_thread *th, uint64_t *timeout)
{
	unsigned int flags = 0;

	switch (t_below(&th->rng, 16)) {
	case 0:
		flags |= DC_MAP_NOWAIT;
		break;
	case 1:
		flags |= DC_MAP_NORECLAIM;
		break;
	case 2:
		flags |= DC_MAP_NOWAIT | DC_MAP_NORECLAIM;
		break;
	}
	if (chance(th, 4))
		flags |= DC_MAP_MAY_BYPASS;
	*timeout = chance(th, 4) ? 1 + t_below(&th->rng, th->rd->map_timeout_ns) :
				   DC_WAIT_FOREVER;
	return flags;
}

/*
 * A writer's upgrade: map for reading, then for writing while pinned; the
 * second pin is the same range and backend mapping, with the generation of
 * the setup that made it writable (unless it already was).
 */
static void upgrade(struct t_thread *th, struct dc_inode *inode, uint64_t id,
		    uint64_t off)
{
	struct t_round *rd = th->rd;
	struct t_held_pin a, b;
	int ret;

	if (map_checked(th, T_OP_WRITE, inode, id, off, 0, DC_WAIT_FOREVER, &a))
		return;
	ret = map_checked(th, T_OP_WRITE, inode, id, off, DC_MAP_WRITE,
			  DC_WAIT_FOREVER, &b);
	if (!ret) {
		t_check(b.pin.win_off == a.pin.win_off && b.pin.writable &&
			(a.pin.writable ? b.pin.gen == a.pin.gen : b.pin.gen > a.pin.gen) &&
			b.m.seq == a.m.seq,
			"round %u: upgrade of pinned ino %" PRIu64 " off %#" PRIx64 " moved: window range %" PRIu64 " -> %" PRIu64 ", gen %" PRIu64 " -> %" PRIu64 ", seq %" PRIu64 " -> %" PRIu64,
			rd->number, id, off, a.pin.win_off / rd->rs,
			b.pin.win_off / rd->rs, a.pin.gen, b.pin.gen, a.m.seq,
			b.m.seq);
		sim_write(th, &b);
		age_check_unpin(th, &a);
		hold(th);
		age_check_unpin(th, &b);
		return;
	}
	age_check_unpin(th, &a);
}

static void do_access(struct t_thread *th, bool write)
{
	struct t_round *rd = th->rd;
	enum t_op op = write ? T_OP_WRITE : T_OP_READ;
	struct t_held_pin hp;
	struct dc_inode *inode;
	uint64_t id, off, timeout;
	unsigned int flags;
	bool temp;

	t_op_begin(th, op);
	inode = use_inode(th, &id, &temp);
	if (!inode)
		goto out;
	off = t_below(&th->rng, rd->nidx) * rd->rs + t_below(&th->rng, rd->rs);
	if (write && chance(th, 4)) {
		upgrade(th, inode, id, off);
		goto put;
	}
	flags = random_flags(th, &timeout) | (write ? DC_MAP_WRITE : 0);
	if (map_checked(th, op, inode, id, off, flags, timeout, &hp))
		goto put;
	if (write)
		sim_write(th, &hp);
	hold(th);
	if (chance(th, 4))
		remap_check(th, inode, &hp);
	if (write && chance(th, 2))
		sim_write(th, &hp);
	age_check_unpin(th, &hp);
put:
	done_inode(inode, temp);
out:
	t_op_end(th);
}

static void do_punch(struct t_thread *th)
{
	struct t_round *rd = th->rd;
	struct dc_inode *inode;
	uint64_t id, off, len;
	bool temp;
	int ret;

	t_op_begin(th, T_OP_PUNCH);
	inode = use_inode(th, &id, &temp);
	if (!inode)
		goto out;
	off = t_below(&th->rng, rd->nidx) * rd->rs;
	if (chance(th, 2))
		off += t_below(&th->rng, rd->rs);
	len = chance(th, 4) ? UINT64_MAX : 1 + t_below(&th->rng, 3 * rd->rs);
	if (chance(th, 64))
		len = 0;
	atomic_fetch_add(&t_cnt.ev_punch, 1);
	ret = dc_inode_punch(inode, off, len);
	atomic_fetch_add(&t_cnt.ev_punch, 1);
	if (ret)
		t_count_err(T_OP_PUNCH, ret);
	if (!len)
		t_check(ret == -EINVAL, "round %u: punch of 0 bytes: %d", rd->number, ret);
	else
		t_check(!ret || ret == -EBUSY || (rd->faults && ret == T_WRITEBACK_ERR),
			"round %u: punch of ino %" PRIu64 " [%#" PRIx64 ", +%#" PRIx64 "): %d (%s)",
			rd->number, id, off, len, ret, t_errname(ret));
	done_inode(inode, temp);
out:
	t_op_end(th);
}

static void do_evict(struct t_thread *th)
{
	struct t_round *rd = th->rd;
	unsigned int nvol = rd->ninodes - rd->nstable, i, n;
	uint64_t id = nvol ? rd->nstable + 1 + t_below(&th->rng, nvol) : random_id(th);
	struct dc_inode *a, *b;
	struct t_held_pin hp;

	t_op_begin(th, T_OP_EVICT);
	a = get_inode(th, id);
	b = get_inode(th, id);
	if (a && b) {
		t_check(a == b, "round %u: two references to inode %" PRIu64 " are two inodes",
			rd->number, id);
		n = 1 + (unsigned int)t_below(&th->rng, 3);
		for (i = 0; i < n; i++) {
			uint64_t off = t_below(&th->rng, rd->nidx) * rd->rs;

			if (!map_checked(th, T_OP_EVICT, a, id, off,
					 chance(th, 2) ? DC_MAP_WRITE : 0,
					 DC_WAIT_FOREVER, &hp)) {
				if (hp.pin.writable)
					sim_write(th, &hp);
				age_check_unpin(th, &hp);
			}
		}
	}
	atomic_fetch_add(&t_cnt.ev_evict, 1);
	dc_inode_put(b);
	dc_inode_put(a);
	atomic_fetch_add(&t_cnt.ev_evict, 1);
	t_op_end(th);
}

/*
 * With every range pinned by this thread, no other file range can be
 * mapped: -EAGAIN without waiting, -ETIMEDOUT after a short wait.
 */
static void full_window_check(struct t_thread *th, struct dc_inode *inode,
			      uint64_t id, uint64_t idx)
{
	struct t_round *rd = th->rd;
	bool nowait = chance(th, 2);
	struct dc_pin p;
	int ret;

	ret = dc_map_timeout(inode, idx * rd->rs,
			     nowait ? DC_MAP_NOWAIT | DC_MAP_NORECLAIM : 0,
			     1000000, &p);
	if (ret > 0 || !ret) {
		t_fail("round %u: dc_map(ino %" PRIu64 " idx %" PRIu64 ") got %d while every range is pinned by one thread",
		       rd->number, id, idx, ret);
		if (!ret)
			dc_unpin(&p);
		return;
	}
	t_count_err(T_OP_PINALL, ret);
	t_check(ret == (nowait ? -EAGAIN : -ETIMEDOUT),
		"round %u: dc_map of another range with a full window: %d (%s)",
		rd->number, ret, t_errname(ret));
}

static void do_pin_all(struct t_thread *th)
{
	struct t_round *rd = th->rd;
	struct t_held_pin *hp = calloc(rd->nr, sizeof(*hp));
	bool *seen = calloc(rd->nr, sizeof(*seen));
	unsigned int got = 0, k;
	uint64_t id = random_id(th), first = t_below(&th->rng, rd->nidx);
	struct dc_inode *inode;

	t_op_begin(th, T_OP_PINALL);
	inode = hp && seen ? get_inode(th, id) : NULL;
	if (!inode)
		goto out;
	for (k = 0; k < rd->nr; k++) {
		uint64_t idx = (first + k) % rd->nidx;
		unsigned int flags = chance(th, 2) ? DC_MAP_NOWAIT : 0;

		if (map_checked(th, T_OP_PINALL, inode, id, idx * rd->rs, flags,
				1 + t_below(&th->rng, rd->map_timeout_ns), &hp[got]))
			continue;
		t_check(!seen[hp[got].pin.win_off / rd->rs],
			"round %u: window range %" PRIu64 " pinned for two file ranges",
			rd->number, hp[got].pin.win_off / rd->rs);
		seen[hp[got].pin.win_off / rd->rs] = true;
		got++;
	}
	if (got == rd->nr) {
		atomic_fetch_add(&t_cnt.pinall_full, 1);
		full_window_check(th, inode, id, (first + rd->nr) % rd->nidx);
	}
	usleep((useconds_t)t_below(&th->rng, 2000));
	for (k = 0; k < got; k++)
		age_check_unpin(th, &hp[k]);
	dc_inode_put(inode);
out:
	t_op_end(th);
	free(seen);
	free(hp);
}

static void do_wait_free(struct t_thread *th)
{
	int ret;

	t_op_begin(th, T_OP_WAITFREE);
	ret = dc_wait_free(th->rd->cache, 1 + t_below(&th->rng, 5000000));
	if (ret)
		t_count_err(T_OP_WAITFREE, ret);
	t_check(!ret || ret == -ETIMEDOUT, "round %u: dc_wait_free: %d",
		th->rd->number, ret);
	t_op_end(th);
}

static void one_op(struct t_thread *th)
{
	unsigned int r = (unsigned int)t_below(&th->rng, 16);

	if (!r) {
		swap_held(th);
		return;
	}
	switch (th->role) {
	case T_ROLE_READER:
		do_access(th, false);
		break;
	case T_ROLE_WRITER:
		do_access(th, r > 4);
		break;
	case T_ROLE_PUNCHER:
		do_punch(th);
		usleep((useconds_t)t_below(&th->rng, 500));
		break;
	case T_ROLE_EVICTOR:
		do_evict(th);
		if (r & 1)
			usleep((useconds_t)t_below(&th->rng, 100));
		break;
	case T_ROLE_WAITER:
		do_pin_all(th);
		do_wait_free(th);
		usleep((useconds_t)t_below(&th->rng, 1000));
		break;
	default:
		break;
	}
}

void *t_worker_main(void *arg)
{
	struct t_thread *th = arg;

	dc_thread_register();
	th->held_id = random_id(th);
	th->held = get_inode(th, th->held_id);
	while (!atomic_load_explicit(&th->rd->stop, memory_order_relaxed))
		one_op(th);
	dc_inode_put(th->held);
	th->held = NULL;
	dc_thread_unregister();
	return NULL;
}
