// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_log.c - the shim contract's logging for libdaxcache-sim.so.
 *
 * The simulation library is a library of its own and cannot reach
 * libdaxcache's internal functions, so its few messages (the refusals of
 * dc_simbe_create()) go to stderr, as libdaxcache's own do when no hook is
 * set with dc_set_log_fn().  Builds that link both into one object (the
 * in-tree tests) use platform.c's logging instead.
 */
#include "platform.h"

void dci_plat_log(int level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
