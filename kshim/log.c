// SPDX-License-Identifier: GPL-2.0-only
/*
 * log.c - where the library's messages go in the kernel, and the count of
 * misuse warnings behind dc_warn_count().
 */
#include "platform.h"

#include <linux/export.h>

#include <daxcache/log.h>

#include "kshim.h"

static atomic_long_t dci_warnings = ATOMIC_LONG_INIT(0);
static dc_log_fn_t dci_log_hook;
static void *dci_log_hook_priv;

/* Messages handed to a hook are formatted into a buffer of this size. */
#define DCI_LOG_LINE	256

static void dci_log_printk(int level, struct va_format *vaf)
{
	switch (level) {
	case DCI_LOG_ERR:
		pr_err("%pV\n", vaf);
		break;
	case DCI_LOG_WARNING:
		pr_warn("%pV\n", vaf);
		break;
	case DCI_LOG_INFO:
		pr_info("%pV\n", vaf);
		break;
	default:
		printk(KERN_DEBUG "%pV\n", vaf);
		break;
	}
}

/**
 * dci_plat_log() - print one message of the library.
 * @level: DCI_LOG_ERR, DCI_LOG_WARNING, DCI_LOG_INFO or DCI_LOG_DEBUG.
 * @fmt: printf format, without a trailing newline.
 *
 * Goes to the hook set with dc_set_log_fn() if any, else to printk() at the
 * matching KERN_ level.
 *
 * Context: any.
 */
void dci_plat_log(int level, const char *fmt, ...)
{
	/* Pairs with dc_set_log_fn(): the hook's priv is set before it. */
	dc_log_fn_t hook = smp_load_acquire(&dci_log_hook);
	struct va_format vaf;
	va_list ap;

	va_start(ap, fmt);
	if (hook) {
		char buf[DCI_LOG_LINE];

		vsnprintf(buf, sizeof(buf), fmt, ap);
		hook(READ_ONCE(dci_log_hook_priv), level, buf);
	} else {
		vaf.fmt = fmt;
		vaf.va = &ap;
		dci_log_printk(level, &vaf);
	}
	va_end(ap);
}
DCI_TEST_EXPORT(dci_plat_log);

void dc_set_log_fn(dc_log_fn_t fn, void *priv)
{
	WRITE_ONCE(dci_log_hook_priv, priv);
	/* Publishes @priv with the hook: see dci_plat_log(). */
	smp_store_release(&dci_log_hook, fn);
}
DCI_EXPORT(dc_set_log_fn);

/**
 * dci_plat_warn_note() - count one detected misuse.
 *
 * Context: any.
 */
void dci_plat_warn_note(void)
{
	atomic_long_inc(&dci_warnings);
}
DCI_TEST_EXPORT(dci_plat_warn_note);

unsigned long dc_warn_count(void)
{
	return (unsigned long)atomic_long_read(&dci_warnings);
}
DCI_EXPORT(dc_warn_count);

/**
 * dci_plat_refcount_warn() - a refcount was misused: saturate it and report.
 * @r: the refcount.
 * @what: what went wrong, for the message.
 * @site: the place in the library that used the refcount operation.
 *
 * A saturated count never reaches zero again, so the object leaks rather
 * than being freed (or its completion run) twice.  Every misuse counts
 * for dc_warn_count(); the first at each @site is printed, as WARN_ONCE()
 * prints per call site (without its banner and backtrace: see
 * dci_warn_once()).
 *
 * Context: any.
 */
void dci_plat_refcount_warn(dci_refcount_t *r, const char *what,
			    struct dci_plat_refcount_site *site)
{
	dci_plat_refs_set(r, DCI_REFCOUNT_SATURATED);
	dci_plat_warn_note();
	/* Name the function too: the refcount operations are inlined in it. */
	if (!test_and_set_bit(0, &site->warned))
		dci_plat_log(DCI_LOG_WARNING,
			     "daxcache: warning: refcount_t: %s at %s:%u (in %pS)",
			     what, site->file, site->line,
			     __builtin_return_address(0));
}
DCI_TEST_EXPORT(dci_plat_refcount_warn);
