// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_attr.c - attribute validity against a model written from
 * include/daxcache/attr.h: read checks, refreshes (current and stale
 * versions), noted writes, expiry and reads of the values, on a clock the
 * input advances.  The invalidate hook must run exactly when a refresh
 * reports a changed size or mtime, with the old and new values, and may read
 * the object (it runs without its lock).
 */
#include "fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/attr.h>

struct amodel {
	struct dc_attr_config p;
	struct dc_attr_values v;
	uint64_t deadline, version;
	bool have, stale, expired;
	struct dc_attr_stats st;
};

struct afz {
	struct dc_attr *a;
	struct amodel m;
	uint64_t now;
	unsigned int hook_calls;
	struct dc_attr_values hook_old, hook_cur;
};

static bool m_valid(const struct amodel *m, uint64_t now)
{
	return m->have && !m->stale && !m->expired && now < m->deadline;
}

static void hook(void *data, const struct dc_attr_values *old,
		 const struct dc_attr_values *cur)
{
	struct afz *f = data;
	struct dc_attr_values seen;

	f->hook_calls++;
	f->hook_old = *old;
	f->hook_cur = *cur;
	/* No lock is held: reading the object must not deadlock. */
	dc_attr_get(f->a, &seen, f->now);
	FZ_CHECK(seen.size == cur->size && seen.mtime_ns == cur->mtime_ns,
		 "hook sees size %llu, refresh installed %llu",
		 (unsigned long long)seen.size, (unsigned long long)cur->size);
}

static bool same_values(const struct dc_attr_values *a,
			const struct dc_attr_values *b)
{
	return a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->ctime_ns == b->ctime_ns;
}

static void check_stats(struct afz *f)
{
	struct dc_attr_stats st;

	dc_attr_stats(f->a, &st, sizeof(st));
	FZ_CHECK(!memcmp(&st, &f->m.st, sizeof(st)),
		 "stats: checks %llu eof %llu timeout %llu refreshes %llu stale %llu inval %llu writes %llu",
		 (unsigned long long)st.checks, (unsigned long long)st.refresh_eof,
		 (unsigned long long)st.refresh_timeout,
		 (unsigned long long)st.refreshes,
		 (unsigned long long)st.stale_refreshes,
		 (unsigned long long)st.invalidations,
		 (unsigned long long)st.writes);
}

static void do_check(struct fz_in *in, struct afz *f)
{
	struct amodel *m = &f->m;
	uint64_t pos = fz_num(in, 1u << 14), len = fz_num(in, 1u << 12);
	uint64_t ver = ~0ull;
	bool need, want;

	need = dc_attr_read_check(f->a, pos, len, f->now, &ver);
	m->st.checks++;
	if (!m->have || len > UINT64_MAX - pos || pos + len > m->v.size) {
		want = true;
		m->st.refresh_eof++;
	} else if (m->expired || (m->p.auto_inval && !m_valid(m, f->now))) {
		want = true;
		m->st.refresh_timeout++;
	} else {
		want = false;
	}
	FZ_CHECK(need == want, "read_check(%llu, %llu) at %llu: %d, model %d",
		 (unsigned long long)pos, (unsigned long long)len,
		 (unsigned long long)f->now, need, want);
	FZ_CHECK(ver == m->version, "version %llu, model %llu",
		 (unsigned long long)ver, (unsigned long long)m->version);
	/* An empty read at 0 is never past the size. */
	need = dc_attr_read_check(f->a, 0, 0, f->now, NULL);
	m->st.checks++;
	want = !m->have || m->expired || (m->p.auto_inval && !m_valid(m, f->now));
	if (!m->have)
		m->st.refresh_eof++;
	else if (want)
		m->st.refresh_timeout++;
	FZ_CHECK(need == want, "read_check(0, 0): %d, model %d", need, want);
}

static void do_refresh(struct fz_in *in, struct afz *f, bool racing_write)
{
	static const int64_t times[] = { 0, 1, -1, 1000, INT64_MAX, INT64_MIN + 1 };
	struct amodel *m = &f->m;
	struct dc_attr_values cur, old = m->v;
	uint64_t ver = dc_attr_version(f->a);
	unsigned int calls = f->hook_calls;
	bool changed;
	int ret;

	FZ_CHECK(ver == m->version, "dc_attr_version %llu, model %llu",
		 (unsigned long long)ver, (unsigned long long)m->version);
	cur.size = fz_num(in, 1u << 14);
	cur.mtime_ns = times[fz_below(in, 6)];
	cur.ctime_ns = times[fz_below(in, 6)];
	if (racing_write) {
		uint64_t end = fz_num(in, 1u << 14);

		dc_attr_note_write(f->a, end, DC_ATTR_MTIME_UNKNOWN, f->now);
		FZ_CHECK(dc_attr_refresh(f->a, &cur, ver, f->now) == -ESTALE,
			 "refresh from before a write was installed");
		FZ_CHECK(f->hook_calls == calls, "stale refresh ran the hook");
		m->st.writes++;
		m->st.stale_refreshes++;
		m->version++;
		if (end > m->v.size)
			m->v.size = end;
		if (m->p.rule == DC_ATTR_RULE_EVERY_READ)
			m->stale = true;
		return;
	}
	ret = dc_attr_refresh(f->a, &cur, ver, f->now);
	changed = m->have && (old.size != cur.size || old.mtime_ns != cur.mtime_ns);
	FZ_CHECK(ret == (changed ? 1 : 0), "refresh: %d, model changed %d", ret,
		 changed);
	m->v = cur;
	m->have = true;
	m->stale = false;
	m->expired = false;
	m->deadline = m->p.timeout_ns > UINT64_MAX - f->now ? UINT64_MAX :
		      f->now + m->p.timeout_ns;
	m->st.refreshes++;
	if (changed)
		m->st.invalidations++;
	if (changed && m->p.invalidate) {
		FZ_CHECK(f->hook_calls == calls + 1, "hook calls %u, want %u",
			 f->hook_calls, calls + 1);
		FZ_CHECK(same_values(&f->hook_old, &old) &&
			 same_values(&f->hook_cur, &cur), "hook got other values");
	} else {
		FZ_CHECK(f->hook_calls == calls, "hook ran without a change");
	}
}

static void do_write(struct fz_in *in, struct afz *f)
{
	struct amodel *m = &f->m;
	uint64_t end = fz_num(in, 1u << 14);
	int64_t mt = (fz_u8(in) & 1) ? DC_ATTR_MTIME_UNKNOWN :
		     (int64_t)fz_u16(in) - 1000;

	dc_attr_note_write(f->a, end, mt, f->now);
	m->version++;
	m->st.writes++;
	if (end > m->v.size)
		m->v.size = end;
	if (mt != DC_ATTR_MTIME_UNKNOWN)
		m->v.mtime_ns = mt;
	if (m->p.rule == DC_ATTR_RULE_EVERY_READ)
		m->stale = true;
}

static void do_get(struct afz *f)
{
	struct dc_attr_values v;
	bool valid = dc_attr_get(f->a, &v, f->now);

	FZ_CHECK(valid == m_valid(&f->m, f->now), "get at %llu: valid %d",
		 (unsigned long long)f->now, valid);
	FZ_CHECK(same_values(&v, &f->m.v),
		 "get: size %llu mtime %lld, model %llu %lld",
		 (unsigned long long)v.size, (long long)v.mtime_ns,
		 (unsigned long long)f->m.v.size, (long long)f->m.v.mtime_ns);
}

void fz_attr(struct fz_in *in)
{
	struct afz *f = calloc(1, sizeof(*f));
	struct dc_attr_config p;
	uint8_t cfg;
	int ret;

	FZ_CHECK(f, "out of memory");
	memset(&p, 0, sizeof(p));
	cfg = fz_u8(in);
	p.timeout_ns = fz_num(in, 5000);
	p.rule = (enum dc_attr_rule)(cfg % 3);
	p.auto_inval = cfg & 4;
	p.invalidate = (cfg & 8) ? hook : NULL;
	p.data = f;
	FZ_CHECK(dc_attr_create(NULL, 0, &f->a) == -EINVAL, "create(NULL params)");
	ret = dc_attr_create(&p, sizeof(p), &f->a);
	if (p.rule != DC_ATTR_RULE_TIMEOUT && p.rule != DC_ATTR_RULE_EVERY_READ) {
		FZ_CHECK(ret == -EINVAL && !f->a, "create with rule %u: %d",
			 (unsigned int)p.rule, ret);
		p.rule = DC_ATTR_RULE_TIMEOUT;
		ret = dc_attr_create(&p, sizeof(p), &f->a);
	}
	FZ_CHECK(!ret && f->a, "create: %d", ret);
	f->m.p = p;
	f->now = fz_num(in, 1000);
	while (fz_more(in)) {
		uint8_t op = fz_u8(in);

		switch (op % 8) {
		case 0:
		case 1:
			do_check(in, f);
			break;
		case 2:
			do_refresh(in, f, false);
			break;
		case 3:
			do_write(in, f);
			break;
		case 4:
			dc_attr_expire(f->a);
			f->m.expired = true;
			break;
		case 5:
			do_get(f);
			break;
		case 6: {
			uint64_t step = fz_num(in, 3000);

			f->now = step > UINT64_MAX - f->now ? UINT64_MAX : f->now + step;
			break;
		}
		default:
			do_refresh(in, f, true);
			break;
		}
		check_stats(f);
	}
	do_get(f);
	dc_attr_destroy(f->a);
	dc_attr_destroy(NULL);
	free(f);
}
