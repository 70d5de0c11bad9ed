/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * refcount_site.h - where a refcount is misused, for the report: included
 * by refcount.h (after the platform header defined dci_refcount_t) before
 * its dci_plat_refcount_*() helpers, which take the site last.
 *
 * A place in the library that uses a refcount operation.  Each operation is
 * a macro that hands the helper its own place, a static made where it is
 * expanded, so misuse is reported once per place, as WARN_ONCE() does per
 * call site (one place for all would print only the first misuse of the
 * process).  Only the misuse path touches it.
 */
#ifndef DCI_PLATFORM_REFCOUNT_SITE_H
#define DCI_PLATFORM_REFCOUNT_SITE_H

struct dci_plat_refcount_site {
	const char *file;
	unsigned int line;
	unsigned long warned;
};

#define dci_plat_refcount_site_here() ({					\
	static struct dci_plat_refcount_site __dc_rs = {			\
		.file = __FILE__, .line = __LINE__,			\
	};								\
	&__dc_rs;							\
})

/* Saturate @r, count a misuse, and report @what the first time at @site. */
void dci_plat_refcount_warn(dci_refcount_t *r, const char *what,
			    struct dci_plat_refcount_site *site);

#define dci_refcount_dec_not_one(r)					\
	dci_plat_refcount_dec_not_one((r), dci_plat_refcount_site_here())
#define dci_refcount_inc_not_zero(r)					\
	dci_plat_refcount_inc_not_zero((r), dci_plat_refcount_site_here())
#define dci_refcount_inc(r)						\
	dci_plat_refcount_inc((r), dci_plat_refcount_site_here())
#define dci_refcount_dec_and_test(r)					\
	dci_plat_refcount_dec_and_test((r), dci_plat_refcount_site_here())
#define dci_refcount_dec(r)						\
	dci_plat_refcount_dec((r), dci_plat_refcount_site_here())
/* After dci_refcount_dec_fast() answered false (a hot path's cold end). */
#define dci_refcount_dec_report(r)					\
	dci_plat_refcount_dec_report((r), dci_plat_refcount_site_here())

#endif /* DCI_PLATFORM_REFCOUNT_SITE_H */
