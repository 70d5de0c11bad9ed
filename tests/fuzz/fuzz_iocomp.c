// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_iocomp.c - io-completion counters, embedded and allocated: gets and
 * puts in any order the input gives, the function run exactly once, by the
 * put that drops the last reference, and never again; a get or put after
 * that is a misuse the library must report (one warning) and survive.
 */
#include "fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/fault.h>
#include <daxcache/iocomp.h>

#define NCTR	4

struct ctr {
	struct dc_iocomp emb;		/* used when !allocated */
	struct dc_iocomp *ioc;		/* NULL: slot unused */
	bool allocated;
	int refs;			/* the model's count */
	unsigned int runs;		/* function calls */
};

static void done_fn(struct dc_iocomp *ioc, void *data)
{
	struct ctr *c = data;

	FZ_CHECK(ioc == c->ioc, "function got counter %p, want %p",
		 (void *)ioc, (void *)c->ioc);
	FZ_CHECK(c->refs == 0, "function ran with %d references left", c->refs);
	c->runs++;
}

static void ctr_put(struct ctr *c)
{
	bool last = c->refs == 1;

	c->refs--;
	dc_iocomp_put(c->ioc);
	FZ_CHECK(c->runs == (last ? 1u : 0u), "runs %u after a put (last %d)",
		 c->runs, last);
	if (last && c->allocated)
		c->ioc = NULL;		/* freed after the function */
	else
		FZ_CHECK(dc_iocomp_pending(c->ioc) == c->refs, "pending %d, model %d",
			 dc_iocomp_pending(c->ioc), c->refs);
}

static void ctr_new(struct fz_in *in, struct ctr *c)
{
	uint8_t how = fz_u8(in);
	int ret;

	memset(c, 0, sizeof(*c));
	if (how & 1) {
		if (how & 2)
			dci_fault_alloc_fail_nth(1);
		ret = dc_iocomp_alloc(done_fn, c, &c->ioc);
		if (how & 2) {
			bool failed = dci_fault_alloc_failed();

			dci_fault_alloc_fail_nth(0);
			FZ_CHECK(failed && ret == -ENOMEM && !c->ioc,
				 "alloc under a failing allocation: %d", ret);
			return;
		}
		FZ_CHECK(!ret && c->ioc, "dc_iocomp_alloc failed: %d", ret);
		c->allocated = true;
	} else {
		dc_iocomp_init(&c->emb, done_fn, c);
		c->ioc = &c->emb;
	}
	c->refs = 1;
	FZ_CHECK(dc_iocomp_pending(c->ioc) == 1, "new counter pending %d",
		 dc_iocomp_pending(c->ioc));
}

void fz_iocomp(struct fz_in *in)
{
	struct ctr *cs = calloc(NCTR, sizeof(*cs));
	struct dc_iocomp *none;
	unsigned int i;

	FZ_CHECK(cs, "out of memory");
	FZ_CHECK(dc_iocomp_alloc(NULL, NULL, &none) == -EINVAL && !none,
		 "alloc without a function");
	dc_iocomp_get(NULL);
	dc_iocomp_put(NULL);
	while (fz_more(in)) {
		uint8_t op = fz_u8(in);
		struct ctr *c = &cs[(op >> 3) % NCTR];

		switch (op % 8) {
		case 0:
			if (!c->ioc || !c->refs)
				ctr_new(in, c);
			break;
		case 1:
		case 2:
			if (c->ioc && c->refs && c->refs < 1000) {
				dc_iocomp_get(c->ioc);
				c->refs++;
				FZ_CHECK(dc_iocomp_pending(c->ioc) == c->refs,
					 "pending %d after get, model %d",
					 dc_iocomp_pending(c->ioc), c->refs);
			}
			break;
		case 3:
		case 4:
		case 5:
			if (c->ioc && c->refs)
				ctr_put(c);
			break;
		default:
			/* Misuse of a finished embedded counter: reported once. */
			if (!c->ioc || c->refs || c->allocated)
				break;
			fz_expect_warnings(1);
			if (op & 0x80)
				dc_iocomp_get(c->ioc);
			else
				dc_iocomp_put(c->ioc);
			FZ_CHECK(c->runs == 1, "misuse ran the function again");
			c->ioc = NULL;	/* saturated now: misused once only */
			break;
		}
	}
	/* Finish what is open, so that allocated counters are freed. */
	for (i = 0; i < NCTR; i++)
		while (cs[i].ioc && cs[i].refs)
			ctr_put(&cs[i]);
	free(cs);
}
