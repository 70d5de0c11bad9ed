/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * flat_array.c - allocation of the flat item array.
 */
#include <stdlib.h>

#include "flat_array.h"

struct flat_array *flat_array_create(uint64_t end)
{
	struct flat_array *fa = malloc(sizeof(*fa));

	if (!fa)
		return NULL;
	fa->nslots = (end + (1u << FLAT_GRANULE_SHIFT) - 1) >>
		     FLAT_GRANULE_SHIFT;
	fa->slots = calloc(fa->nslots, sizeof(*fa->slots));
	if (!fa->slots) {
		free(fa);
		return NULL;
	}
	return fa;
}

void flat_array_destroy(struct flat_array *fa)
{
	free(fa->slots);
	free(fa);
}
