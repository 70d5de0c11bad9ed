/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * refcount_site.h - where a refcount is misused, for the report: included
 * by refcount.h (after the platform header defined dc_refcount_t) before
 * its dc_plat_refcount_*() helpers, which take the site last.
 *
 * A place in the library that uses a refcount operation.  Each operation is
 * a macro that hands the helper its own place, a static made where it is
 * expanded, so misuse is reported once per place, as WARN_ONCE() does per
 * call site (one place for all would print only the first misuse of the
 * process).  Only the misuse path touches it.
 */
#ifndef DC_PLATFORM_REFCOUNT_SITE_H
#define DC_PLATFORM_REFCOUNT_SITE_H

struct dc_plat_refcount_site {
	const char *file;
	unsigned int line;
	unsigned long warned;
};

#define dc_plat_refcount_site_here() ({					\
	static struct dc_plat_refcount_site __dc_rs = {			\
		.file = __FILE__, .line = __LINE__,			\
	};								\
	&__dc_rs;							\
})

/* Saturate @r, count a misuse, and report @what the first time at @site. */
void dci_plat_refcount_warn(dc_refcount_t *r, const char *what,
			    struct dc_plat_refcount_site *site);

#define dc_refcount_dec_not_one(r)					\
	dc_plat_refcount_dec_not_one((r), dc_plat_refcount_site_here())
#define dc_refcount_inc_not_zero(r)					\
	dc_plat_refcount_inc_not_zero((r), dc_plat_refcount_site_here())
#define dc_refcount_inc(r)						\
	dc_plat_refcount_inc((r), dc_plat_refcount_site_here())
#define dc_refcount_dec_and_test(r)					\
	dc_plat_refcount_dec_and_test((r), dc_plat_refcount_site_here())
#define dc_refcount_dec(r)						\
	dc_plat_refcount_dec((r), dc_plat_refcount_site_here())
/* After dc_refcount_dec_fast() answered false (a hot path's cold end). */
#define dc_refcount_dec_report(r)					\
	dc_plat_refcount_dec_report((r), dc_plat_refcount_site_here())

#endif /* DC_PLATFORM_REFCOUNT_SITE_H */
