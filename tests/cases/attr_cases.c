// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * attr_cases.c - attribute validity cases, on an injected clock: each rule
 * of the read-path decision, the old rule, the invalidate hook (called
 * exactly when a refresh disagrees), what writes change, refreshes raced by
 * writes, and the target: GETATTRs per 10,000 mixed operations
 * bounded by one per timeout period per inode under the new rule, against
 * one per read-after-write under the old one.
 */
#include "dc_test.h"

#include <daxcache/attr.h>

#define MS	1000000ull

struct inval_rec {
	unsigned int calls;
	struct dc_attr_values old, cur;
};

static void inval_hook(void *data, const struct dc_attr_values *old,
		       const struct dc_attr_values *cur)
{
	struct inval_rec *r = data;

	r->calls++;
	r->old = *old;
	r->cur = *cur;
}

static int make(struct dc_attr **a, enum dc_attr_rule rule, bool auto_inval,
		struct inval_rec *r)
{
	struct dc_attr_config p = {
		.timeout_ns = 1000 * MS,
		.rule = rule,
		.auto_inval = auto_inval,
		.invalidate = inval_hook,
		.data = r,
	};

	return dc_attr_create(&p, sizeof(p), a);
}

static int refresh(struct dc_attr *a, uint64_t size, int64_t mtime,
		   uint64_t now)
{
	struct dc_attr_values v = { .size = size, .mtime_ns = mtime, .ctime_ns = mtime };

	return dc_attr_refresh(a, &v, dc_attr_version(a), now);
}

DC_TEST(attr_create_rejects_bad_params)
{
	struct dc_attr_config p = { .timeout_ns = 1, .rule = 7 };
	struct dc_attr *a;

	DC_ASSERT_INT_EQ(t, dc_attr_create(&p, sizeof(p), &a), -EINVAL);
	DC_ASSERT(t, a == NULL);
	DC_ASSERT_INT_EQ(t, dc_attr_create(NULL, 0, &a), -EINVAL);
	dc_attr_destroy(NULL);
}

DC_TEST(attr_first_read_refreshes)
{
	struct inval_rec r = { 0 };
	struct dc_attr *a;
	bool need;

	DC_ASSERT_INT_EQ(t, make(&a, DC_ATTR_RULE_TIMEOUT, true, &r), 0);
	need = dc_attr_read_check(a, 0, 1, 5, NULL);
	/* The first refresh has nothing to disagree with. */
	DC_ASSERT_INT_EQ(t, refresh(a, 100, 1, 5), 0);
	dc_attr_destroy(a);
	DC_ASSERT(t, need);
	DC_ASSERT_EQ(t, r.calls, 0);
}

DC_TEST(attr_past_eof_forces_refresh)
{
	struct inval_rec r = { 0 };
	bool in, past, past_noinval, in_noinval;
	struct dc_attr *a, *b;

	DC_ASSERT_INT_EQ(t, make(&a, DC_ATTR_RULE_TIMEOUT, true, &r), 0);
	DC_ASSERT_INT_EQ(t, make(&b, DC_ATTR_RULE_TIMEOUT, false, &r), 0);
	refresh(a, 4096, 1, 0);
	refresh(b, 4096, 1, 0);
	in = dc_attr_read_check(a, 0, 4096, 1 * MS, NULL);
	past = dc_attr_read_check(a, 4000, 200, 1 * MS, NULL);
	past_noinval = dc_attr_read_check(b, 4096, 1, 1 * MS, NULL);
	/* Without auto-invalidation a timeout alone does not refresh. */
	in_noinval = dc_attr_read_check(b, 0, 4096, 5000 * MS, NULL);
	dc_attr_destroy(a);
	dc_attr_destroy(b);
	DC_ASSERT(t, !in);
	DC_ASSERT(t, past);
	DC_ASSERT(t, past_noinval);
	DC_ASSERT(t, !in_noinval);
}

DC_TEST(attr_new_rule_refreshes_only_on_timeout)
{
	struct inval_rec r = { 0 };
	struct dc_attr_stats st;
	struct dc_attr *a;
	bool before, at, after;

	DC_ASSERT_INT_EQ(t, make(&a, DC_ATTR_RULE_TIMEOUT, true, &r), 0);
	refresh(a, 1 << 20, 1, 10 * MS);
	before = dc_attr_read_check(a, 0, 4096, 1009 * MS, NULL);
	at = dc_attr_read_check(a, 0, 4096, 1010 * MS, NULL);
	refresh(a, 1 << 20, 1, 1010 * MS);
	after = dc_attr_read_check(a, 0, 4096, 1011 * MS, NULL);
	dc_attr_stats(a, &st, sizeof(st));
	dc_attr_destroy(a);
	DC_ASSERT(t, !before);
	DC_ASSERT(t, at);
	DC_ASSERT(t, !after);
	DC_ASSERT_EQ(t, st.refresh_timeout, 1);
	DC_ASSERT_EQ(t, st.refreshes, 2);
	DC_ASSERT_EQ(t, r.calls, 0);
}

DC_TEST(attr_write_updates_without_invalidating)
{
	struct inval_rec r = { 0 };
	struct dc_attr_values v;
	struct dc_attr *a;
	bool need, need_grown, valid;
	int ret;

	DC_ASSERT_INT_EQ(t, make(&a, DC_ATTR_RULE_TIMEOUT, true, &r), 0);
	refresh(a, 4096, 1, 0);
	dc_attr_note_write(a, 8192, 7, 1 * MS);
	/* Still valid; the size grew with the write, the mtime moved. */
	need = dc_attr_read_check(a, 0, 4096, 2 * MS, NULL);
	need_grown = dc_attr_read_check(a, 4096, 4096, 2 * MS, NULL);
	valid = dc_attr_get(a, &v, 2 * MS);
	/* A write inside the file never shrinks it; unknown mtime kept. */
	dc_attr_note_write(a, 100, DC_ATTR_MTIME_UNKNOWN, 3 * MS);
	/* At the timeout the server agrees with what the writer knew. */
	ret = refresh(a, 8192, 7, 1000 * MS);
	dc_attr_destroy(a);
	DC_ASSERT(t, !need);
	DC_ASSERT(t, !need_grown);
	DC_ASSERT(t, valid);
	DC_ASSERT_EQ(t, v.size, 8192);
	DC_ASSERT_INT_EQ(t, v.mtime_ns, 7);
	DC_ASSERT_INT_EQ(t, ret, 0);
	DC_ASSERT_EQ(t, r.calls, 0);
}

DC_TEST(attr_old_rule_refreshes_after_every_write)
{
	struct inval_rec r = { 0 };
	bool clean, dirty, again, timed;
	struct dc_attr *a;

	DC_ASSERT_INT_EQ(t, make(&a, DC_ATTR_RULE_EVERY_READ, true, &r), 0);
	refresh(a, 1 << 20, 1, 0);
	clean = dc_attr_read_check(a, 0, 4096, 1 * MS, NULL);
	dc_attr_note_write(a, 4096, DC_ATTR_MTIME_UNKNOWN, 2 * MS);
	dirty = dc_attr_read_check(a, 0, 4096, 3 * MS, NULL);
	/* The server moved the mtime; the writer did not know: invalidate. */
	DC_ASSERT_INT_EQ(t, refresh(a, 1 << 20, 2, 3 * MS), 1);
	again = dc_attr_read_check(a, 0, 4096, 4 * MS, NULL);
	timed = dc_attr_read_check(a, 0, 4096, 1003 * MS, NULL);
	dc_attr_destroy(a);
	DC_ASSERT(t, !clean);
	DC_ASSERT(t, dirty);
	DC_ASSERT(t, !again);
	DC_ASSERT(t, timed);
	DC_ASSERT_EQ(t, r.calls, 1);
}

DC_TEST(attr_hook_called_exactly_on_disagreement)
{
	struct inval_rec r = { 0 };
	struct dc_attr_values v = { .size = 100, .mtime_ns = 5, .ctime_ns = 9 };
	struct dc_attr *a;
	int same, ctime_only, mtime, size;

	DC_ASSERT_INT_EQ(t, make(&a, DC_ATTR_RULE_TIMEOUT, true, &r), 0);
	dc_attr_refresh(a, &v, dc_attr_version(a), 0);
	same = dc_attr_refresh(a, &v, dc_attr_version(a), 1);
	v.ctime_ns = 10;
	ctime_only = dc_attr_refresh(a, &v, dc_attr_version(a), 2);
	DC_ASSERT_EQ(t, r.calls, 0);
	v.mtime_ns = 6;
	mtime = dc_attr_refresh(a, &v, dc_attr_version(a), 3);
	DC_ASSERT_EQ(t, r.calls, 1);
	DC_ASSERT_INT_EQ(t, r.old.mtime_ns, 5);
	DC_ASSERT_INT_EQ(t, r.cur.mtime_ns, 6);
	v.size = 50;
	size = dc_attr_refresh(a, &v, dc_attr_version(a), 4);
	dc_attr_destroy(a);
	DC_ASSERT_INT_EQ(t, same, 0);
	DC_ASSERT_INT_EQ(t, ctime_only, 0);
	DC_ASSERT_INT_EQ(t, mtime, 1);
	DC_ASSERT_INT_EQ(t, size, 1);
	DC_ASSERT_EQ(t, r.calls, 2);
	DC_ASSERT_EQ(t, r.old.size, 100);
	DC_ASSERT_EQ(t, r.cur.size, 50);
}

DC_TEST(attr_refresh_raced_by_write_is_dropped)
{
	struct dc_attr_values v = { .size = 4096, .mtime_ns = 1 };
	struct inval_rec r = { 0 };
	struct dc_attr_stats st;
	struct dc_attr_values got;
	struct dc_attr *a;
	uint64_t ver;
	bool need;
	int ret;

	DC_ASSERT_INT_EQ(t, make(&a, DC_ATTR_RULE_TIMEOUT, true, &r), 0);
	dc_attr_refresh(a, &v, dc_attr_version(a), 0);
	need = dc_attr_read_check(a, 0, 4096, 2000 * MS, &ver);
	/* A write lands while the GETATTR is out; its answer predates it. */
	dc_attr_note_write(a, 8192, 3, 2000 * MS);
	ret = dc_attr_refresh(a, &v, ver, 2001 * MS);
	dc_attr_get(a, &got, 2001 * MS);
	dc_attr_stats(a, &st, sizeof(st));
	dc_attr_destroy(a);
	DC_ASSERT(t, need);
	DC_ASSERT_INT_EQ(t, ret, -ESTALE);
	DC_ASSERT_EQ(t, got.size, 8192);
	DC_ASSERT_EQ(t, st.stale_refreshes, 1);
	DC_ASSERT_EQ(t, r.calls, 0);
}

DC_TEST(attr_expire_forces_refresh)
{
	struct inval_rec r = { 0 };
	struct dc_attr *a;
	bool need;

	DC_ASSERT_INT_EQ(t, make(&a, DC_ATTR_RULE_TIMEOUT, true, &r), 0);
	refresh(a, 4096, 1, 0);
	dc_attr_expire(a);
	need = dc_attr_read_check(a, 0, 1, 1, NULL);
	dc_attr_destroy(a);
	DC_ASSERT(t, need);
}

/*
 * With auto-invalidation off, timeouts and writes under the old rule do not
 * make a read refresh, but an explicit dc_attr_expire() does: the caller
 * said the attributes are no longer known.
 */
DC_TEST(attr_expire_without_auto_inval)
{
	enum dc_attr_rule rule;

	for (rule = DC_ATTR_RULE_TIMEOUT; rule <= DC_ATTR_RULE_EVERY_READ; rule++) {
		struct inval_rec r = { 0 };
		struct dc_attr_values v;
		struct dc_attr *a;
		bool timed_out, written, expired, again, valid;

		DC_ASSERT_INT_EQ(t, make(&a, rule, false, &r), 0);
		refresh(a, 4096, 1, 0);
		timed_out = dc_attr_read_check(a, 0, 1, 5000 * MS, NULL);
		refresh(a, 4096, 1, 5000 * MS);
		dc_attr_note_write(a, 10, DC_ATTR_MTIME_UNKNOWN, 5000 * MS);
		written = dc_attr_read_check(a, 0, 1, 5000 * MS, NULL);
		refresh(a, 4096, 1, 5000 * MS);
		dc_attr_expire(a);
		valid = dc_attr_get(a, &v, 5000 * MS);
		expired = dc_attr_read_check(a, 0, 1, 5000 * MS, NULL);
		refresh(a, 4096, 1, 5000 * MS);
		again = dc_attr_read_check(a, 0, 1, 5000 * MS, NULL);
		dc_attr_destroy(a);
		DC_ASSERT(t, !timed_out);
		DC_ASSERT(t, !written);
		DC_ASSERT(t, !valid);
		DC_ASSERT(t, expired);
		DC_ASSERT(t, !again);
		DC_ASSERT_EQ(t, r.calls, 0);
	}
}

/* --- the target ----------------------------------------------------------- */

#define TGT_INODES	4
#define TGT_OPS		10000
#define TGT_STEP_NS	10000ull	/* 10 us per operation */
#define TGT_TIMEOUT_NS	(10 * MS)	/* 100 ms of ops: 10 periods */
#define TGT_SIZE	(1ull << 20)

struct tgt_result {
	uint64_t getattrs[TGT_INODES];
	uint64_t invals;
	uint64_t read_after_write;	/* reads with a write since the last read */
};

/*
 * 10,000 operations, 75 % reads and 25 % writes of 4 KiB at random places in
 * one of four files, on a simulated clock.  The server stamps each write
 * with the clock; the writer does not learn that mtime (as with FUSE).
 */
static void tgt_run(struct dc_test *t, enum dc_attr_rule rule, uint64_t seed,
		    struct tgt_result *res)
{
	struct dc_attr_config p = {
		.timeout_ns = TGT_TIMEOUT_NS, .rule = rule, .auto_inval = true,
	};
	struct dc_attr *a[TGT_INODES] = { NULL };
	int64_t srv_mtime[TGT_INODES] = { 0 };
	bool written[TGT_INODES] = { false };
	struct dc_test_rng rng;
	unsigned int i;
	uint64_t now = 0;

	dc_test_rng_init(&rng, seed);
	for (i = 0; i < TGT_INODES; i++) {
		if (dc_attr_create(&p, sizeof(p), &a[i]))
			goto out;
		srv_mtime[i] = 1;
	}
	for (i = 0; i < TGT_OPS; i++) {
		unsigned int ino = dc_test_below(&rng, TGT_INODES);
		uint64_t pos = dc_test_below(&rng, TGT_SIZE / 4096) * 4096;

		now += TGT_STEP_NS;
		if (dc_test_below(&rng, 4)) {
			uint64_t ver;

			if (written[ino])
				res->read_after_write++;
			written[ino] = false;
			if (dc_attr_read_check(a[ino], pos, 4096, now, &ver)) {
				struct dc_attr_values v = {
					.size = TGT_SIZE,
					.mtime_ns = srv_mtime[ino],
				};

				res->getattrs[ino]++;
				if (dc_attr_refresh(a[ino], &v, ver, now) == 1)
					res->invals++;
			}
		} else {
			srv_mtime[ino] = (int64_t)now;
			written[ino] = true;
			dc_attr_note_write(a[ino], pos + 4096,
					   DC_ATTR_MTIME_UNKNOWN, now);
		}
	}
out:
	for (i = 0; i < TGT_INODES; i++)
		dc_attr_destroy(a[i]);
	DC_ASSERT(t, i == TGT_INODES);
}

DC_TEST(attr_target_getattrs_bounded_by_timeout)
{
	/* periods of the run, plus the first refresh of each inode */
	const uint64_t bound = TGT_OPS * TGT_STEP_NS / TGT_TIMEOUT_NS + 1;
	struct tgt_result newr = { .invals = 0 }, oldr = { .invals = 0 };
	uint64_t new_total = 0, old_total = 0;
	unsigned int i;

	tgt_run(t, DC_ATTR_RULE_TIMEOUT, t->seed, &newr);
	DC_RETURN_IF_FAILED(t);
	tgt_run(t, DC_ATTR_RULE_EVERY_READ, t->seed, &oldr);
	DC_RETURN_IF_FAILED(t);
	for (i = 0; i < TGT_INODES; i++) {
		DC_ASSERT(t, newr.getattrs[i] <= bound);
		new_total += newr.getattrs[i];
		old_total += oldr.getattrs[i];
	}
	dc_test_log(t, "per 10000 ops: new rule %llu GETATTRs %llu invalidations; old rule %llu GETATTRs %llu invalidations; %llu reads after a write",
		    (unsigned long long)new_total, (unsigned long long)newr.invals,
		    (unsigned long long)old_total, (unsigned long long)oldr.invals,
		    (unsigned long long)oldr.read_after_write);
	/* Old rule: at least one GETATTR and one invalidation per read-after-write. */
	DC_ASSERT(t, old_total >= oldr.read_after_write);
	DC_ASSERT(t, oldr.invals + TGT_INODES >= oldr.read_after_write);
	DC_ASSERT(t, new_total <= TGT_INODES * bound);
	DC_ASSERT(t, newr.invals <= new_total);
	DC_ASSERT(t, old_total > 10 * new_total);
}

DC_SUITE(attr,
	 DC_CASE(attr_create_rejects_bad_params),
	 DC_CASE(attr_first_read_refreshes),
	 DC_CASE(attr_past_eof_forces_refresh),
	 DC_CASE(attr_new_rule_refreshes_only_on_timeout),
	 DC_CASE(attr_write_updates_without_invalidating),
	 DC_CASE(attr_old_rule_refreshes_after_every_write),
	 DC_CASE(attr_hook_called_exactly_on_disagreement),
	 DC_CASE(attr_refresh_raced_by_write_is_dropped),
	 DC_CASE(attr_expire_forces_refresh),
	 DC_CASE(attr_expire_without_auto_inval),
	 DC_CASE(attr_target_getattrs_bounded_by_timeout));
