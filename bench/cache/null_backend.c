// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * null_backend.c - setup and remove that do nothing and succeed.
 */
#include "null_backend.h"

static int null_setup(void *priv, uint64_t ino, uint64_t file_off,
		      uint64_t win_off, uint64_t len, unsigned int flags)
{
	return 0;
}

static int null_remove(void *priv, const struct dc_remove_entry *entries,
		       unsigned int n)
{
	return 0;
}

const struct dc_backend_ops null_backend_ops = {
	.setup = null_setup,
	.remove = null_remove,
};
