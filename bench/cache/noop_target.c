// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * noop_target.c - out-of-line calls that do no work (kept in their own file
 * so that the compiler cannot see through them at the call site).
 */
#include <stddef.h>

#include "noop_target.h"

int noop_map(const uint64_t *win, unsigned int k, struct noop_pin *pin)
{
	pin->slot = &win[k];
	pin->win_off = win[k];
	return 0;
}

void noop_unpin(struct noop_pin *pin)
{
	pin->slot = NULL;
}
