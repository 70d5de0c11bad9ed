/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/iocomp.h - run a function once, when the last of a batch of I/Os
 * completes.
 *
 * The "commit after writeback" counter (history: docs/design.md): the initiator
 * holds one reference while it issues I/Os, takes one more per I/O
 * (dc_iocomp_get()) and drops each at the I/O's completion (dc_iocomp_put());
 * then it drops its own.  Whichever put is the last runs the completion
 * function, exactly once, after everything written before any earlier put is
 * visible to it.  Because the initiator's reference is dropped last, the
 * function cannot run while I/Os are still being issued, even if every I/O
 * so far has already completed.
 *
 * get and put accept NULL, as the NFS client's do: when the counter could not
 * be allocated, the I/Os proceed without a completion.
 */
#ifndef DAXCACHE_IOCOMP_H
#define DAXCACHE_IOCOMP_H

#ifdef __cplusplus
extern "C" {
#endif

struct dc_iocomp;

/**
 * typedef dc_iocomp_fn - the completion function.
 * @ioc: the counter.  For an allocated counter it is freed when the function
 *       returns; an embedded one may be freed by the function itself.
 * @data: the pointer given at init.
 */
typedef void (*dc_iocomp_fn)(struct dc_iocomp *ioc, void *data);

/**
 * struct dc_iocomp - an io-completion counter, for embedding in a larger
 * object.  The fields are private.
 */
struct dc_iocomp {
	/* private: */
	unsigned char opaque[32];
} __attribute__((aligned(8)));

/**
 * dc_iocomp_init() - set up an embedded counter, holding one reference.
 * @ioc: the counter.
 * @fn: the completion function (non-NULL).
 * @data: passed to @fn.
 *
 * Context: any.
 * Return: nothing.
 */
void dc_iocomp_init(struct dc_iocomp *ioc, dc_iocomp_fn fn, void *data);

/**
 * dc_iocomp_alloc() - allocate a counter holding one reference.
 * @fn: the completion function (non-NULL).
 * @data: passed to @fn.
 * @out: receives the counter (NULL on failure).
 *
 * The counter is freed right after @fn returns.
 *
 * Context: process context (the kernel build allocates with GFP_KERNEL).
 * Return: 0, -EINVAL when @fn or @out is NULL, or -ENOMEM.
 * -ECHILD in a child forked without dc_before_fork() (daxcache/thread.h).
 */
int dc_iocomp_alloc(dc_iocomp_fn fn, void *data, struct dc_iocomp **out);

/**
 * dc_iocomp_get() - take a reference for one more I/O.
 * @ioc: the counter, or NULL (then nothing happens).
 *
 * Getting a counter whose function has already run is a bug: it is reported
 * (see dc_warn_count()) and the counter is left so that the function never
 * runs again.
 *
 * Context: any; never blocks.
 * Return: nothing.
 */
void dc_iocomp_get(struct dc_iocomp *ioc);

/**
 * dc_iocomp_put() - drop a reference; the last one runs the function.
 * @ioc: the counter, or NULL (then nothing happens).
 *
 * Writes made before this put are visible to the completion function.  A put
 * after the count reached zero is reported and does nothing else.
 *
 * Context: any (the function runs in the caller's context).
 * Return: nothing.
 */
void dc_iocomp_put(struct dc_iocomp *ioc);

/**
 * dc_iocomp_pending() - the current count.
 * @ioc: the counter.
 *
 * Context: any; for tests and diagnostics, the value may be stale at once.
 * Return: references held; 0 once the function has run, including after a
 * misused get or put (reported, and leaving the counter so that the
 * function never runs again).
 */
int dc_iocomp_pending(const struct dc_iocomp *ioc);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_IOCOMP_H */
