// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: iocomp.c - io-completion counter (see include/daxcache/iocomp.h).
 *
 * A refcount with the kernel's refcount_t semantics: the put that drops it
 * to zero (release on every put, acquire before the call) runs the function.
 * Misuse saturates the count, so the function can never run twice.
 *
 * Locks: none; the count is one atomic.
 *
 * Callers: filesystems, through <daxcache/iocomp.h>.
 */
#include "platform.h"

#include <daxcache/iocomp.h>

struct iocomp {
	dci_refcount_t refs;
	bool allocated;
	dc_iocomp_fn fn;
	void *data;
};

dci_static_assert(sizeof(struct iocomp) <= sizeof(struct dc_iocomp),
		 "struct dc_iocomp is too small");
dci_static_assert(_Alignof(struct iocomp) <= _Alignof(struct dc_iocomp),
		 "struct dc_iocomp is under-aligned");

static inline struct iocomp *to_iocomp(struct dc_iocomp *ioc)
{
	return (struct iocomp *)(void *)ioc;
}

void dc_iocomp_init(struct dc_iocomp *ioc, dc_iocomp_fn fn, void *data)
{
	struct iocomp *c = to_iocomp(ioc);

	c->fn = fn;
	c->data = data;
	c->allocated = false;
	dci_refcount_set(&c->refs, 1);
}
DCI_EXPORT(dc_iocomp_init);

int dc_iocomp_alloc(dc_iocomp_fn fn, void *data,
		    struct dc_iocomp **out)
{
	struct dc_iocomp *ioc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!fn)
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	ioc = dci_alloc(sizeof(*ioc));
	if (!ioc)
		return -ENOMEM;
	dc_iocomp_init(ioc, fn, data);
	to_iocomp(ioc)->allocated = true;
	*out = ioc;
	return 0;
}
DCI_EXPORT(dc_iocomp_alloc);

void dc_iocomp_get(struct dc_iocomp *ioc)
{
	if (ioc)
		dci_refcount_inc(&to_iocomp(ioc)->refs);
}
DCI_EXPORT(dc_iocomp_get);

void dc_iocomp_put(struct dc_iocomp *ioc)
{
	struct iocomp *c = to_iocomp(ioc);
	bool allocated;

	if (!ioc || !dci_refcount_dec_and_test(&c->refs))
		return;
	/* The function may free an embedded counter: read what we need first. */
	allocated = c->allocated;
	c->fn(ioc, c->data);
	if (allocated)
		dci_free(ioc);
}
DCI_EXPORT(dc_iocomp_put);

int dc_iocomp_pending(const struct dc_iocomp *ioc)
{
	int n = dci_refcount_read(&to_iocomp((struct dc_iocomp *)ioc)->refs);

	/*
	 * Misuse after the function ran (a get on zero, a put past it)
	 * saturates the count at a large negative value: still 0 pending.
	 */
	return n > 0 ? n : 0;
}
DCI_EXPORT(dc_iocomp_pending);
