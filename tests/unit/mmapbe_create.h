/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mmapbe_create.h - dc_mmapbe_create() with the window's two numbers, for
 * the test programs that make many mmap backends.
 */
#ifndef DC_TESTS_MMAPBE_CREATE_H
#define DC_TESTS_MMAPBE_CREATE_H

#include <daxcache/mmap_backend.h>

static inline int mmapbe_create(uint64_t window_size, unsigned int range_shift,
				struct dc_mmapbe **out)
{
	struct dc_mmapbe_config cfg = {
		.window_size = window_size,
		.range_shift = range_shift,
	};

	return dc_mmapbe_create(&cfg, sizeof(cfg), out);
}

#endif /* DC_TESTS_MMAPBE_CREATE_H */
