// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: attr.c - cached attributes with a validity deadline (see
 * include/daxcache/attr.h).
 *
 * Everything sits under one spinlock per object, held for a few loads and
 * stores; the invalidate hook runs after it is dropped.  @version counts
 * noted writes, so that a GETATTR answer sent before a write cannot undo
 * what the write taught the cache.
 *
 * Callers: filesystems, through <daxcache/attr.h>; no other core file.
 */
#include "platform.h"
#include "struct_size.h"

#include <daxcache/attr.h>

struct dc_attr {
	dci_spinlock_t lock;
	struct dc_attr_config p;
	struct dc_attr_values v;
	uint64_t deadline_ns;	/* valid while now < deadline */
	uint64_t version;	/* writes noted */
	bool have;		/* @v came from a refresh */
	bool stale;		/* written under the old rule */
	bool expired;		/* dc_attr_expire(): refresh whatever the rules */
	struct dc_attr_stats st;
};

int dc_attr_create(const struct dc_attr_config *ucfg, size_t size,
		   struct dc_attr **out)
{
	struct dc_attr_config cfg;
	struct dc_attr *a;
	int ret;

	ret = sized_create_in(out, &cfg, ucfg, size, DC_ATTR_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	if (dci_fork_check(__func__))
		return -ECHILD;
	if (cfg.rule != DC_ATTR_RULE_TIMEOUT &&
	    cfg.rule != DC_ATTR_RULE_EVERY_READ)
		return -EINVAL;
	a = dci_zalloc(sizeof(*a));
	if (!a)
		return -ENOMEM;
	dci_spin_lock_init(&a->lock);
	a->p = cfg;
	*out = a;
	return 0;
}
DCI_EXPORT(dc_attr_create);

void dc_attr_destroy(struct dc_attr *a)
{
	/* In a child forked unprepared, left to the exit: locks may be held. */
	if (!a || dci_fork_check(__func__))
		return;
	dci_spin_lock_destroy(&a->lock);
	dci_free(a);
}
DCI_EXPORT(dc_attr_destroy);

static bool attr_valid_locked(const struct dc_attr *a, uint64_t now_ns)
{
	return a->have && !a->stale && !a->expired && now_ns < a->deadline_ns;
}

bool dc_attr_read_check(struct dc_attr *a, uint64_t pos, uint64_t len,
			uint64_t now_ns, uint64_t *out)
{
	bool need = false;

	/* A refresh is needed (and dc_attr_refresh() refuses). */
	if (dci_fork_check(__func__))
		return true;
	dci_spin_lock(&a->lock);
	a->st.checks++;
	if (!a->have || pos + len > a->v.size || pos + len < pos) {
		/* Past the cached size (or nothing cached): always. */
		need = true;
		a->st.refresh_eof++;
	} else if (a->expired || (a->p.auto_inval && !attr_valid_locked(a, now_ns))) {
		/*
		 * Expired by the caller, whatever auto-invalidation says (the
		 * caller knows they are wrong); or, with auto-invalidation,
		 * timed out or stale (under the old rule every noted write
		 * makes them stale).
		 */
		need = true;
		a->st.refresh_timeout++;
	}
	if (out)
		*out = a->version;
	dci_spin_unlock(&a->lock);
	return need;
}
DCI_EXPORT(dc_attr_read_check);

int dc_attr_refresh(struct dc_attr *a, const struct dc_attr_values *cur,
		    uint64_t version, uint64_t now_ns)
{
	struct dc_attr_values old;
	bool changed;

	if (dci_fork_check(__func__))
		return -ECHILD;
	dci_spin_lock(&a->lock);
	if (version != a->version) {
		a->st.stale_refreshes++;
		dci_spin_unlock(&a->lock);
		return -ESTALE;
	}
	old = a->v;
	changed = a->have && (old.size != cur->size ||
			      old.mtime_ns != cur->mtime_ns);
	a->v = *cur;
	a->have = true;
	a->stale = false;
	a->expired = false;
	a->deadline_ns = now_ns + a->p.timeout_ns;
	if (a->deadline_ns < now_ns)
		a->deadline_ns = UINT64_MAX;
	a->st.refreshes++;
	if (changed)
		a->st.invalidations++;
	dci_spin_unlock(&a->lock);

	if (!changed)
		return 0;
	if (a->p.invalidate)
		a->p.invalidate(a->p.data, &old, cur);
	return 1;
}
DCI_EXPORT(dc_attr_refresh);

uint64_t dc_attr_version(struct dc_attr *a)
{
	uint64_t v;

	if (dci_fork_check(__func__))
		return 0;
	dci_spin_lock(&a->lock);
	v = a->version;
	dci_spin_unlock(&a->lock);
	return v;
}
DCI_EXPORT(dc_attr_version);

void dc_attr_note_write(struct dc_attr *a, uint64_t end,
			int64_t mtime_ns, uint64_t now_ns)
{
	if (dci_fork_check(__func__))
		return;
	dci_spin_lock(&a->lock);
	a->version++;
	a->st.writes++;
	if (end > a->v.size)
		a->v.size = end;
	if (mtime_ns != DC_ATTR_MTIME_UNKNOWN)
		a->v.mtime_ns = mtime_ns;
	if (a->p.rule == DC_ATTR_RULE_EVERY_READ)
		a->stale = true;
	dci_spin_unlock(&a->lock);
}
DCI_EXPORT(dc_attr_note_write);

void dc_attr_expire(struct dc_attr *a)
{
	if (dci_fork_check(__func__))
		return;
	dci_spin_lock(&a->lock);
	a->expired = true;
	dci_spin_unlock(&a->lock);
}
DCI_EXPORT(dc_attr_expire);

bool dc_attr_get(struct dc_attr *a, struct dc_attr_values *v,
		 uint64_t now_ns)
{
	bool valid;

	if (dci_fork_check(__func__)) {
		memset(v, 0, sizeof(*v));
		return false;
	}
	dci_spin_lock(&a->lock);
	*v = a->v;
	valid = attr_valid_locked(a, now_ns);
	dci_spin_unlock(&a->lock);
	return valid;
}
DCI_EXPORT(dc_attr_get);

int dc_attr_stats(struct dc_attr *a, struct dc_attr_stats *st,
		  size_t size)
{
	if (!a)
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	return sized_copy_out_locked(st, size, &a->lock, &a->st, sizeof(a->st),
				     DC_ATTR_STATS_SIZE_VER0);
}
DCI_EXPORT(dc_attr_stats);
