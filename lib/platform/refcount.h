/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * refcount.h - the platform contract's reference counts, written once for
 * both platforms: the kernel's refcount_t semantics.  A count saturates on
 * overflow, an increment from zero or an underflow is reported (once per
 * place of use, see refcount_site.h) and leaves the count saturated, and a
 * saturated count never reaches zero again, so a misused object leaks
 * rather than being freed twice.  The orderings: acquire on a successful
 * increment-unless-zero, release on every decrement, acquire before
 * reporting zero.
 *
 * Each platform header defines dci_refcount_t (a structure holding the
 * count) and the operations on the count this state machine is written
 * over, then includes this header:
 *
 *   dci_plat_refs_read(r)              the count, relaxed
 *   dci_plat_refs_read_acquire(r)      the count, acquire
 *   dci_plat_refs_zero_acquire(r)      whether it is 0, acquire
 *   dci_plat_refs_set(r, n)            store, relaxed
 *   dci_plat_refs_set_release(r, n)    store, release
 *   dci_plat_refs_fetch_inc_relaxed(r) add one, return the old count
 *   dci_plat_refs_fetch_dec_release(r) take one, release, return the old count
 *   dci_plat_refs_fetch_dec_put(r)     the same for a put that may be the
 *                                      last (release at least)
 *   dci_plat_refs_acquire_last()       after that returned 1: what the
 *                                      other puts did comes before what
 *                                      follows (acquire)
 *   dci_plat_refs_dec_above_zero(r)    take one, release; whether the
 *                                      count is still above zero
 *   dci_plat_refs_cmpxchg_weak_acquire(r, &old, new)
 *   dci_plat_refs_cmpxchg_weak_release(r, &old, new)
 *                                      compare and exchange for a retry
 *                                      loop (may fail spuriously; on
 *                                      failure @old is the count seen)
 *   dci_plat_refs_cmpxchg_claim(r, &old, new)
 *                                      compare and exchange that fails
 *                                      only on another count, release,
 *                                      and the winner's later writes stay
 *                                      after it
 *
 * and dci_plat_refcount_warn() (refcount_site.h), which saturates the count
 * and reports, out of line.
 */
#ifndef DCI_PLATFORM_REFCOUNT_H
#define DCI_PLATFORM_REFCOUNT_H

/* What a misused count is set to: far from both 0 and overflow. */
#define DCI_REFCOUNT_SATURATED	(INT_MIN / 2)

/* The site-keyed operation macros, dci_refcount_inc() and the others. */
#include "refcount_site.h"

/**
 * dci_refcount_set() - set a count.
 * @r: the count.
 * @n: its value.
 */
static inline void dci_refcount_set(dci_refcount_t *r, int n)
{
	dci_plat_refs_set(r, n);
}

/**
 * dci_refcount_set_release() - set a count, with release ordering.
 * @r: the count.
 * @n: its value.
 *
 * Publishes the object's fields with the count.
 */
static inline void dci_refcount_set_release(dci_refcount_t *r, int n)
{
	dci_plat_refs_set_release(r, n);
}

/**
 * dci_plat_refcount_dec_not_one() - drop one reference unless it is the last.
 * @r: the count.
 * @site: the place of use, for the report (dci_refcount_dec_not_one()).
 *
 * Return: true if a reference was dropped (or the count is misused and
 * stays saturated), false if it was the last one.
 */
static inline bool dci_plat_refcount_dec_not_one(dci_refcount_t *r,
						struct dci_plat_refcount_site *site)
{
	int old = dci_plat_refs_read(r);

	do {
		if (old == 1)
			return false;
		if (dci_unlikely(old <= 0)) {
			dci_plat_refcount_warn(r, "underflow; use-after-free", site);
			return true;
		}
	} while (!dci_plat_refs_cmpxchg_weak_release(r, &old, old - 1));
	return true;
}

/**
 * dci_refcount_read() - the count.
 * @r: the count.
 *
 * Return: its value, with no ordering.
 */
static inline int dci_refcount_read(const dci_refcount_t *r)
{
	return dci_plat_refs_read(r);
}

/**
 * dci_refcount_read_acquire() - the count, with acquire ordering.
 * @r: the count.
 *
 * Return: its value; what was written before the store or release that set
 * it is seen after.
 */
static inline int dci_refcount_read_acquire(const dci_refcount_t *r)
{
	return dci_plat_refs_read_acquire(r);
}

/**
 * dci_refcount_zero_acquire() - whether the count is 0, read with acquire.
 * @r: the count.
 *
 * Return: true if it is 0.
 */
static inline bool dci_refcount_zero_acquire(const dci_refcount_t *r)
{
	return dci_plat_refs_zero_acquire(r);
}

/**
 * dci_plat_refcount_inc_not_zero() - add one unless the count is zero.
 * @r: the count.
 * @site: the place of use, for the report (dci_refcount_inc_not_zero()).
 *
 * Acquire ordering when it adds one.
 *
 * Return: true if the count was incremented (or is saturated), false if it
 * was 0.
 */
static inline bool dci_plat_refcount_inc_not_zero(dci_refcount_t *r,
						 struct dci_plat_refcount_site *site)
{
	int old = dci_plat_refs_read(r);

	do {
		if (!old)
			return false;
		if (dci_unlikely(old < 0 || old == INT_MAX)) {
			dci_plat_refcount_warn(r, "saturated", site);
			return true;
		}
	} while (!dci_plat_refs_cmpxchg_weak_acquire(r, &old, old + 1));
	return true;
}

/**
 * dci_refcount_inc_not_zero_fast() - dci_refcount_inc_not_zero() for a hot
 * path that has a slow one to fall back on.
 * @r: the count.
 *
 * Return: true if the count was incremented; false for 0, and also,
 * without reporting it, for a count that the full operation would report
 * (saturated or negative): the slow path's call reports it.
 */
static inline bool dci_refcount_inc_not_zero_fast(dci_refcount_t *r)
{
	int old = dci_plat_refs_read(r), new;

	do {
		/* Wrapping: at most 1 for 0, negative counts and INT_MAX alike. */
		new = (int)((unsigned int)old + 1);
		if (dci_unlikely(new <= 1))
			return false;
	} while (!dci_plat_refs_cmpxchg_weak_acquire(r, &old, new));
	return true;
}

/**
 * dci_plat_refcount_inc() - add one.
 * @r: the count, which must not be 0.
 * @site: the place of use, for the report (dci_refcount_inc()).
 */
static inline void dci_plat_refcount_inc(dci_refcount_t *r,
					struct dci_plat_refcount_site *site)
{
	int old = dci_plat_refs_fetch_inc_relaxed(r);

	if (dci_unlikely(old <= 0 || old == INT_MAX))
		dci_plat_refcount_warn(r, old ? "saturated" :
				       "increment on 0; use-after-free", site);
}

/**
 * dci_plat_refcount_dec_and_test() - drop one reference.
 * @r: the count.
 * @site: the place of use, for the report (dci_refcount_dec_and_test()).
 *
 * Return: true when the count dropped to zero, then ordered after every
 * earlier decrement (acquire).
 */
static inline bool dci_plat_refcount_dec_and_test(dci_refcount_t *r,
						 struct dci_plat_refcount_site *site)
{
	int old = dci_plat_refs_fetch_dec_put(r);

	if (old == 1) {
		dci_plat_refs_acquire_last();
		return true;
	}
	if (dci_unlikely(old <= 0))
		dci_plat_refcount_warn(r, "underflow; use-after-free", site);
	return false;
}

/**
 * dci_plat_refcount_dec() - drop one reference that is not the last.
 * @r: the count.
 * @site: the place of use, for the report (dci_refcount_dec()).
 */
static inline void dci_plat_refcount_dec(dci_refcount_t *r,
					struct dci_plat_refcount_site *site)
{
	int old = dci_plat_refs_fetch_dec_release(r);

	if (dci_unlikely(old <= 1))
		dci_plat_refcount_warn(r, old == 1 ? "decrement hit 0; leaking memory" :
				       "underflow; use-after-free", site);
}

/**
 * dci_refcount_dec_fast() - dci_refcount_dec() for a hot path.
 * @r: the count.
 *
 * Drops one reference, with release ordering, and reports nothing: the
 * caller reports a false answer out of line with dci_refcount_dec_report().
 *
 * Return: whether the count stays above zero, as it must; false when it
 * does not (the count was 1 or less).
 */
static inline bool dci_refcount_dec_fast(dci_refcount_t *r)
{
	return dci_plat_refs_dec_above_zero(r);
}

/**
 * dci_plat_refcount_dec_report() - report a dci_refcount_dec_fast() that
 * answered false, as dci_refcount_dec() would have.
 * @r: the count.
 * @site: the place of use, for the report (dci_refcount_dec_report()).
 */
static inline void dci_plat_refcount_dec_report(dci_refcount_t *r,
					       struct dci_plat_refcount_site *site)
{
	/* Read after the fact: a racing misuse may change the wording only. */
	int now = dci_plat_refs_read(r);

	dci_plat_refcount_warn(r, now == 0 ? "decrement hit 0; leaking memory" :
			       "underflow; use-after-free", site);
}

/**
 * dci_refcount_dec_if_one() - take the count from 1 to 0 atomically.
 * @r: the count.
 *
 * Release ordering; the winner (a claim) goes on to rewrite the object,
 * and those writes stay after what the last unpinner read of it.
 *
 * Return: true if the count was 1 and is now 0.
 */
static inline bool dci_refcount_dec_if_one(dci_refcount_t *r)
{
	int one = 1;

	return dci_plat_refs_cmpxchg_claim(r, &one, 0);
}

#endif /* DCI_PLATFORM_REFCOUNT_H */
