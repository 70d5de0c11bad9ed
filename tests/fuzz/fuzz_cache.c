// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_cache.c - the DAX window cache over the simulation backend: inode
 * get/put, map (WRITE, NOWAIT, NORECLAIM, MAY_BYPASS, bad flags) and unpin,
 * writes through pins, punch, failure injection in the backend and in the
 * allocator, stats.  The background reclaimer runs meanwhile, so the checks
 * are the ones that hold whatever it does:
 *
 * - every pin shows what it asked for (simbe tag and record), two pins of
 *   different file ranges never share a window range, two of the same one
 *   always do (with the same generation), a WRITE pin is writable;
 * - a map returns 0 (a hit or a miss, exactly one counted), DC_MAP_BYPASS
 *   only when allowed, -EAGAIN only for NOWAIT/NORECLAIM, -ETIMEDOUT only
 *   when it may wait and every range is pinned or faults make reclaim fail
 *   (or its wait was short), -EINVAL for unknown flags, and injected errors
 *   only when injected;
 * - a map of a pinned file range is a hit; of a range punched since, a miss;
 * - with every range pinned, a new file range cannot be had;
 * - punch: -EINVAL for length 0, -EBUSY exactly when a pin overlaps;
 * - setup calls at the backend = misses + upgrades + setup failures;
 * - the backend never sees a bad call, an overlap, a mismatched remove or
 *   writeback, a failed tag check, nor (without injected faults, with a
 *   writeback op) a lost write; after destroy, nothing stays mapped.
 */
#include "fuzz_cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/fault.h>

#define LONG_WAIT_NS	(300ull * 1000000000ull)	/* only a hang reaches it */

static bool faults(const struct fz_world *w)
{
	return w->setup_faults || w->remove_faults || w->writeback_faults;
}

static uint64_t idx_off(const struct fz_world *w, unsigned int idx)
{
	return (uint64_t)idx << w->cfg.range_shift;
}

/* Distinct file ranges pinned now. */
static unsigned int pinned_ranges(const struct fz_world *w)
{
	bool seen[FZ_NINO][FZ_NIDX];
	unsigned int n = 0, k;

	memset(seen, 0, sizeof(seen));
	for (k = 0; k < FZ_NPIN; k++) {
		const struct fz_pin *p = &w->pins[k];

		if (p->used && !seen[p->ino][p->idx]) {
			seen[p->ino][p->idx] = true;
			n++;
		}
	}
	return n;
}

static const struct fz_pin *pin_of(const struct fz_world *w, unsigned int ino,
				   unsigned int idx)
{
	unsigned int k;

	for (k = 0; k < FZ_NPIN; k++)
		if (w->pins[k].used && w->pins[k].ino == ino && w->pins[k].idx == idx)
			return &w->pins[k];
	return NULL;
}

static void check_world(struct fz_world *w)
{
	struct dc_cache_stats st;
	struct dc_simbe_stats bs;
	unsigned int k, j, npinned = pinned_ranges(w);

	for (k = 0; k < FZ_NPIN; k++) {
		const struct fz_pin *p = &w->pins[k];
		struct dc_simbe_mapping m;
		int ret;

		if (!p->used)
			continue;
		ret = dc_simbe_check_tag(w->be, p->pin.win_off, w->id[p->ino],
					 p->file_off);
		FZ_CHECK(!ret, "pin %u (ino %u idx %u): tag check %d", k, p->ino,
			 p->idx, ret);
		ret = dc_simbe_lookup(w->be, p->pin.win_off, &m, sizeof(m));
		FZ_CHECK(!ret && m.ino == w->id[p->ino] &&
			 m.file_off == idx_off(w, p->idx) &&
			 (!p->pin.writable || (m.flags & DC_MAP_WRITE)),
			 "pin %u: lookup %d ino %llu off %#llx flags %#x", k, ret,
			 (unsigned long long)m.ino, (unsigned long long)m.file_off,
			 m.flags);
		for (j = k + 1; j < FZ_NPIN; j++) {
			const struct fz_pin *q = &w->pins[j];
			bool same = q->ino == p->ino && q->idx == p->idx;
			bool shared = q->pin.win_off / w->rs == p->pin.win_off / w->rs;

			if (!q->used)
				continue;
			FZ_CHECK(same == shared,
				 "pins %u (ino %u idx %u) and %u (ino %u idx %u): window ranges %llu and %llu",
				 k, p->ino, p->idx, j, q->ino, q->idx,
				 (unsigned long long)(p->pin.win_off / w->rs),
				 (unsigned long long)(q->pin.win_off / w->rs));
			/* Equal, unless an upgrade came between the two. */
			FZ_CHECK(!same || q->pin.gen == p->pin.gen ||
				 (p->pin.writable != q->pin.writable &&
				  (p->pin.gen < q->pin.gen) == q->pin.writable),
				 "pins of one mapping with generations %llu and %llu",
				 (unsigned long long)p->pin.gen,
				 (unsigned long long)q->pin.gen);
		}
	}
	FZ_CHECK(!dc_cache_stats(w->cache, &st, sizeof(st)), "stats");
	FZ_CHECK(dc_simbe_stats(w->be, &bs, sizeof(bs)) == 0, "simbe stats");
	FZ_CHECK(st.nr_ranges == w->nr && st.nr_free + st.nr_mapped <= w->nr &&
		 st.nr_mapped >= npinned,
		 "ranges %llu: free %llu mapped %llu, %u pinned",
		 (unsigned long long)st.nr_ranges, (unsigned long long)st.nr_free,
		 (unsigned long long)st.nr_mapped, npinned);
	FZ_CHECK(st.hits == w->hits && st.misses == w->misses,
		 "hits %llu misses %llu, model %llu %llu",
		 (unsigned long long)st.hits, (unsigned long long)st.misses,
		 (unsigned long long)w->hits, (unsigned long long)w->misses);
	FZ_CHECK(bs.calls[DC_SIMBE_SETUP] == st.misses + st.upgrades + st.setup_failures &&
		 bs.injected[DC_SIMBE_SETUP] == st.setup_failures,
		 "setup calls %llu (injected %llu); misses %llu upgrades %llu failures %llu",
		 (unsigned long long)bs.calls[DC_SIMBE_SETUP],
		 (unsigned long long)bs.injected[DC_SIMBE_SETUP],
		 (unsigned long long)st.misses, (unsigned long long)st.upgrades,
		 (unsigned long long)st.setup_failures);
	FZ_CHECK(!bs.remove_mismatches && !bs.writeback_mismatches &&
		 !bs.overlaps && !bs.bad_calls &&
		 bs.tag_failures == w->rofs_writes && !bs.gate_timeouts,
		 "backend saw: remove mismatches %llu, writeback mismatches %llu, overlaps %llu, bad calls %llu, tag failures %llu",
		 (unsigned long long)bs.remove_mismatches,
		 (unsigned long long)bs.writeback_mismatches,
		 (unsigned long long)bs.overlaps, (unsigned long long)bs.bad_calls,
		 (unsigned long long)bs.tag_failures);
	FZ_CHECK(faults(w) || !bs.remove_unmapped, "removes of unmapped ranges: %llu",
		 (unsigned long long)bs.remove_unmapped);
	FZ_CHECK(faults(w) || !w->ops.writeback || !bs.lost_writes,
		 "lost writes: %llu", (unsigned long long)bs.lost_writes);
	FZ_CHECK(bs.nr_mapped >= npinned, "backend maps %llu, %u pinned",
		 (unsigned long long)bs.nr_mapped, npinned);
}

static void unpin_k(struct fz_world *w, unsigned int k)
{
	struct fz_pin *p = &w->pins[k];

	if (!p->used)
		return;
	dc_unpin(&p->pin);
	FZ_CHECK(!p->pin.range, "unpin left the pin set");
	dc_unpin(&p->pin);	/* a released pin is ignored */
	p->used = false;
}

static void do_get(struct fz_world *w, unsigned int i, bool alloc_fails)
{
	struct dc_inode *inode = NULL;
	int ret;

	if (alloc_fails)
		dci_fault_alloc_fail_nth(1);
	ret = dc_inode_get(w->cache, w->id[i], &inode);
	if (alloc_fails)
		dci_fault_alloc_fail_nth(0);
	if (alloc_fails && ret == -ENOMEM)
		return;
	FZ_CHECK(!ret && inode, "inode_get(%llu): %d", (unsigned long long)w->id[i],
		 ret);
	FZ_CHECK(!w->refs[i] || inode == w->inode[i], "inode_get gave another inode");
	FZ_CHECK(dc_inode_id(inode) == w->id[i], "inode id %llu",
		 (unsigned long long)dc_inode_id(inode));
	w->inode[i] = inode;
	w->refs[i]++;
}

static void do_put(struct fz_world *w, unsigned int i)
{
	unsigned int k, idx;

	if (!w->refs[i])
		return;
	if (w->refs[i] == 1) {
		/* The last reference: drop its pins first (eviction waits for them). */
		for (k = 0; k < FZ_NPIN; k++)
			if (w->pins[k].used && w->pins[k].ino == i)
				unpin_k(w, k);
		/* Evicted now, or by the reclaimer: nothing is certain. */
		for (idx = 0; idx < FZ_NIDX; idx++)
			w->unmapped[i][idx] = false;
	}
	dc_inode_put(w->inode[i]);
	if (!--w->refs[i])
		w->inode[i] = NULL;
}

static void do_map(struct fz_in *in, struct fz_world *w, uint8_t op,
		   bool alloc_fails)
{
	/*
	 * Waits that expire a few hundred ns after they start: the fuzzer
	 * found map_slow() reading the clock twice for the time left, which
	 * could wrap to "no timeout" and hang (fixed: one read).
	 * DC_FUZZ_ALLOW=map-timeout-clock avoids such waits.
	 */
	uint64_t short_waits[] = { 0, 1000, 1000000 };
	uint8_t a = fz_u8(in), fl = fz_u8(in);
	unsigned int i = a % FZ_NINO, idx = (a >> 2) % FZ_NIDX, k;
	uint64_t off = idx_off(w, idx) + (fz_u16(in) % w->rs);
	unsigned int flags = 0, npinned = pinned_ranges(w);
	const struct fz_pin *same = pin_of(w, i, idx);
	bool full = npinned >= w->nr && !same;
	struct dc_cache_stats st;
	struct dc_pin pin;
	uint64_t wait;
	int ret;

	if (!w->refs[i])
		return;
	if (fz_allowed("map-timeout-clock"))
		short_waits[1] = 0;
	for (k = 0; k < FZ_NPIN && w->pins[k].used; k++)
		;
	if (k == FZ_NPIN)
		return;
	if (fl & 1)
		flags |= DC_MAP_WRITE;
	if (fl & 2)
		flags |= DC_MAP_NOWAIT;
	if (fl & 4)
		flags |= DC_MAP_NORECLAIM;
	if (fl & 8)
		flags |= DC_MAP_MAY_BYPASS;
	if (fl & 16)
		flags |= DC_MAP_READ;
	if ((fl & 0xe0) == 0xe0)
		flags |= 0x100u << (op & 3);	/* unknown */
	/* Wait long only where success is certain; short where it is not. */
	wait = (full || faults(w) || alloc_fails || (fl & 0x20)) ?
	       short_waits[(fl >> 6) % 3] : LONG_WAIT_NS;
	memset(&pin, 0, sizeof(pin));
	if (alloc_fails)
		dci_fault_alloc_fail_nth(1 + (op & 1));
	if ((op & 0x40) && wait == w->cfg.wait_timeout_ns)
		ret = dc_map(w->inode[i], off, flags, &pin);
	else
		ret = dc_map_timeout(w->inode[i], off, flags, wait, &pin);
	if (alloc_fails)
		dci_fault_alloc_fail_nth(0);
	dc_cache_stats(w->cache, &st, sizeof(st));
	if (flags & ~(DC_MAP_READ | DC_MAP_WRITE | DC_MAP_NOWAIT |
		      DC_MAP_NORECLAIM | DC_MAP_MAY_BYPASS)) {
		FZ_CHECK(ret == -EINVAL, "map with flags %#x: %d", flags, ret);
		return;
	}
	if (ret == 0) {
		struct fz_pin *p = &w->pins[k];

		FZ_CHECK(st.hits + st.misses == w->hits + w->misses + 1,
			 "a map counted %llu hits and misses",
			 (unsigned long long)(st.hits + st.misses - w->hits - w->misses));
		FZ_CHECK(!same || st.misses == w->misses, "a pinned range missed");
		FZ_CHECK(!w->unmapped[i][idx] || st.misses == w->misses + 1,
			 "a punched range hit");
		FZ_CHECK(!full, "a new range with all %u ranges pinned", w->nr);
		FZ_CHECK(pin.win_off < w->cfg.window_size &&
			 pin.win_off % w->rs == off % w->rs &&
			 pin.len == w->rs - off % w->rs,
			 "pin win_off %#llx len %#llx for off %#llx",
			 (unsigned long long)pin.win_off, (unsigned long long)pin.len,
			 (unsigned long long)off);
		FZ_CHECK(!(flags & DC_MAP_WRITE) || pin.writable, "WRITE pin read-only");
		/* The same setup, or the upgrade of a read-only one. */
		FZ_CHECK(!same || (same->pin.win_off / w->rs == pin.win_off / w->rs &&
				   (same->pin.gen == pin.gen ||
				    (!same->pin.writable && pin.writable &&
				     same->pin.gen < pin.gen))),
			 "pinned range moved");
		p->used = true;
		p->ino = i;
		p->idx = idx;
		p->file_off = off;
		p->pin = pin;
		w->unmapped[i][idx] = false;
	} else if (ret == DC_MAP_BYPASS) {
		FZ_CHECK(flags & DC_MAP_MAY_BYPASS, "bypass without MAY_BYPASS");
		FZ_CHECK(!pin.range, "bypass left a pin");
	} else if (ret == -EAGAIN && (flags & (DC_MAP_NOWAIT | DC_MAP_NORECLAIM))) {
		/* allowed: it would have slept or reclaimed */
	} else if (ret == -ETIMEDOUT) {
		FZ_CHECK(wait != LONG_WAIT_NS, "map timed out with a range to reclaim");
	} else if (ret == -ENOMEM && alloc_fails) {
		/* allowed: an allocation failed */
	} else {
		FZ_CHECK(w->setup_faults && ret == w->setup_err,
			 "map(ino %llu, %#llx, %#x): %d",
			 (unsigned long long)w->id[i], (unsigned long long)off,
			 flags, ret);
	}
	if (ret && full)
		FZ_CHECK(ret == -ETIMEDOUT || ret == -EAGAIN || ret == DC_MAP_BYPASS ||
			 ret == -ENOMEM,
			 "map with every range pinned: %d", ret);
	w->hits = st.hits;
	w->misses = st.misses;
}

static void do_punch(struct fz_in *in, struct fz_world *w)
{
	uint8_t a = fz_u8(in);
	unsigned int i = a % FZ_NINO, first = (a >> 2) % FZ_NIDX, n = fz_u8(in);
	uint64_t off = idx_off(w, first) + (n & 1 ? w->rs / 2 : 0);
	uint64_t len, last;
	unsigned int k, idx;
	bool busy = false;
	int ret;

	if (!w->refs[i])
		return;
	switch ((n >> 1) % 4) {
	case 0:
		len = 0;
		break;
	case 1:
		len = UINT64_MAX;
		break;
	case 2:
		len = UINT64_MAX - off;
		break;
	default:
		len = ((uint64_t)(n >> 3) % FZ_NIDX) * w->rs + 1;
		break;
	}
	last = len - 1 > UINT64_MAX - off ? UINT64_MAX : off + len - 1;
	for (k = 0; k < FZ_NPIN; k++) {
		const struct fz_pin *p = &w->pins[k];

		if (p->used && p->ino == i && idx_off(w, p->idx) <= last &&
		    off < idx_off(w, p->idx) + w->rs)
			busy = true;
	}
	ret = dc_inode_punch(w->inode[i], off, len);
	if (!len) {
		FZ_CHECK(ret == -EINVAL, "punch of length 0: %d", ret);
		return;
	}
	if (busy) {
		/* A failed writeback wins over the pin (cache.h). */
		FZ_CHECK(ret == -EBUSY || (w->writeback_faults && ret == w->writeback_err),
			 "punch over a pin: %d", ret);
		return;
	}
	FZ_CHECK(!ret || (w->writeback_faults && ret == w->writeback_err),
		 "punch [%#llx, %#llx]: %d", (unsigned long long)off,
		 (unsigned long long)last, ret);
	if (ret)
		return;
	for (idx = 0; idx < FZ_NIDX; idx++)
		if (idx_off(w, idx) <= last && off < idx_off(w, idx) + w->rs)
			w->unmapped[i][idx] = true;
}

/* Write through a pin: the backend checks the tag and the mapping's mode. */
static void do_write(struct fz_world *w, unsigned int k)
{
	const struct fz_pin *p = &w->pins[k % FZ_NPIN];
	struct dc_simbe_mapping m;
	int ret;

	if (!p->used)
		return;
	FZ_CHECK(!dc_simbe_lookup(w->be, p->pin.win_off, &m, sizeof(m)), "pinned range unmapped");
	ret = dc_simbe_write(w->be, p->pin.win_off, w->id[p->ino], p->file_off);
	FZ_CHECK(ret == ((m.flags & DC_MAP_WRITE) ? 0 : -EROFS),
		 "write through pin: %d (flags %#x)", ret, m.flags);
	if (ret)
		w->rofs_writes++;	/* the backend counts it as a tag failure */
}

static void do_fault(struct fz_world *w, uint8_t a)
{
	static const int errs[] = { -EIO, -ENOMEM, -EAGAIN, -ENOSPC };
	struct dc_simbe_fault f;
	enum dc_simbe_op op = (enum dc_simbe_op)(a % 3);

	memset(&f, 0, sizeof(f));
	if ((a >> 2) % 4 == 3) {
		FZ_CHECK(!dc_simbe_set_fault(w->be, op, NULL, 0), "disarm");
		return;
	}
	f.err = errs[(a >> 4) % 4];
	switch ((a >> 2) % 4) {
	case 0:
		f.next = 1 + (a >> 6);
		break;
	case 1:
		f.every = 1 + (a >> 6);
		break;
	default:
		f.ppm = 300000;
		f.seed = a;
		break;
	}
	/* Errors stay fixed per op within an input, so results can be matched. */
	if (op == DC_SIMBE_SETUP) {
		if (w->setup_faults)
			f.err = w->setup_err;
		w->setup_faults = true;
		w->setup_err = f.err;
	} else if (op == DC_SIMBE_WRITEBACK) {
		if (w->writeback_faults)
			f.err = w->writeback_err;
		w->writeback_faults = true;
		w->writeback_err = f.err;
	} else {
		w->remove_faults = true;
	}
	FZ_CHECK(!dc_simbe_set_fault(w->be, op, &f, sizeof(f)), "set_fault");
}

static void do_misc(struct fz_world *w, uint8_t a)
{
	struct dc_pin pin;
	int ret;

	switch (a % 4) {
	case 0:
		ret = dc_wait_free(w->cache, 0);
		FZ_CHECK(ret == 0 || ret == -ETIMEDOUT, "wait_free(0): %d", ret);
		FZ_CHECK(ret == -ETIMEDOUT || pinned_ranges(w) < w->nr,
			 "a free range with all %u pinned", w->nr);
		break;
	case 1:
		FZ_CHECK(dc_map(NULL, 0, 0, &pin) == -EINVAL, "map(NULL inode)");
		if (w->refs[a / 4 % FZ_NINO])
			FZ_CHECK(dc_map(w->inode[a / 4 % FZ_NINO], 0, 0, NULL) == -EINVAL,
				 "map(NULL pin)");
		FZ_CHECK(dc_inode_get(w->cache, 1, NULL) == -EINVAL, "get(NULL)");
		FZ_CHECK(dc_cache_stats(NULL, NULL, 0) == -EINVAL, "stats(NULL)");
		dc_unpin(NULL);
		dc_inode_put(NULL);
		break;
	case 2:
		memset(&pin, 0, sizeof(pin));
		dc_unpin(&pin);
		break;
	default:
		break;
	}
}

static void world_end(struct fz_world *w)
{
	struct dc_simbe_stats bs;
	unsigned int i, k;

	for (k = 0; k < FZ_NPIN; k++)
		unpin_k(w, k);
	check_world(w);
	for (i = 0; i < FZ_NINO; i++)
		while (w->refs[i])
			do_put(w, i);
	dc_cache_destroy(w->cache);
	FZ_CHECK(!dc_simbe_stats(w->be, &bs, sizeof(bs)), "simbe stats");
	FZ_CHECK(!bs.remove_mismatches && !bs.writeback_mismatches &&
		 !bs.overlaps && !bs.bad_calls && bs.tag_failures == w->rofs_writes,
		 "backend saw bad calls during eviction");
	FZ_CHECK(!w->ops.remove || w->remove_faults || !bs.nr_mapped,
		 "%llu ranges still mapped after destroy",
		 (unsigned long long)bs.nr_mapped);
	FZ_CHECK(faults(w) || !w->ops.writeback || !bs.lost_writes,
		 "lost writes: %llu", (unsigned long long)bs.lost_writes);
	dc_simbe_destroy(w->be);
}

void fz_cache(struct fz_in *in)
{
	struct fz_world *w = calloc(1, sizeof(*w));

	FZ_CHECK(w, "out of memory");
	fz_cache_create(in, w);
	do_get(w, 0, false);
	check_world(w);
	while (fz_more(in)) {
		uint8_t op = fz_u8(in);

		switch (op % 12) {
		case 0:
			do_get(w, fz_u8(in) % FZ_NINO, false);
			break;
		case 1:
			do_put(w, fz_u8(in) % FZ_NINO);
			break;
		case 2:
		case 3:
		case 4:
			do_map(in, w, op, false);
			break;
		case 5:
		case 6:
			unpin_k(w, fz_u8(in) % FZ_NPIN);
			break;
		case 7:
			do_punch(in, w);
			break;
		case 8:
			do_write(w, fz_u8(in));
			break;
		case 9:
			do_fault(w, fz_u8(in));
			break;
		case 10:
			/* One allocation fails in the next map or get. */
			if (op & 0x80)
				do_get(w, fz_u8(in) % FZ_NINO, true);
			else
				do_map(in, w, op, true);
			break;
		default:
			do_misc(w, fz_u8(in));
			break;
		}
		check_world(w);
	}
	world_end(w);
	free(w);
}
