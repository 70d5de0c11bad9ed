// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault_mmapbe.c - the mmap backend's failures that a test can cause: a
 * window the address space cannot hold (mmap() fails), bad shifts, and a
 * remove() batch with one malformed entry (the others are still torn
 * down).  Its two allocation sites (the backend and its file table) are
 * failed by the allocation part, scenario "mmap backend create".
 */
#include "fault_test.h"

#include <daxcache/mmap_backend.h>

#include <sys/mman.h>

#include "../unit/mmapbe_create.h"

unsigned long ft_mmapbe_run(void)
{
	const struct dc_backend_ops *ops = dc_mmapbe_ops();
	struct dc_remove_entry ent[3];
	struct dc_mmapbe *be = NULL;
	unsigned char vec;
	unsigned long cases = 0;
	uint64_t rs = 1ull << 16;
	unsigned char *base;
	int ret;

	snprintf(ft_context, sizeof(ft_context), "mmap backend errors");
	/*
	 * 2^64 - 2^16 bytes of window: no address space holds that, and
	 * mmap() fails with -ENOMEM (under valgrind, whose mmap() checks the
	 * length first, with -EINVAL): passed on, nothing left behind.
	 */
	ret = mmapbe_create(UINT64_MAX & ~(rs - 1), 16, &be);
	if (ret != -EINVAL)
		FT_CHECK_INT(ret, -ENOMEM);
	FT_CHECK(!be);
	cases++;
	FT_CHECK_INT(mmapbe_create(4 * rs, 11, &be), -EINVAL);
	FT_CHECK_INT(mmapbe_create(4 * rs, 41, &be), -EINVAL);
	FT_CHECK_INT(mmapbe_create(4 * rs + 1, 16, &be), -EINVAL);
	FT_CHECK_INT(mmapbe_create(4 * rs, 16, NULL), -EINVAL);
	cases += 4;

	FT_CHECK_INT(mmapbe_create(4 * rs, 16, &be), 0);
	if (!be)
		return cases;
	base = dc_mmapbe_window(be);
	/* Make range 0 and 2 present, then remove them with a bad entry between. */
	FT_CHECK_INT(mprotect(base, rs, PROT_READ | PROT_WRITE), 0);
	FT_CHECK_INT(mprotect(base + 2 * rs, rs, PROT_READ | PROT_WRITE), 0);
	base[0] = 1;
	base[2 * rs] = 1;
	ent[0] = (struct dc_remove_entry){ .ino = 1, .win_off = 0, .len = rs };
	ent[1] = (struct dc_remove_entry){ .ino = 1, .win_off = rs + 1, .len = rs };
	ent[2] = (struct dc_remove_entry){ .ino = 1, .win_off = 2 * rs, .len = rs };
	FT_CHECK_INT(ops->remove(be, ent, 3), -EINVAL);
	/* Both good entries were torn down: their pages are gone. */
	FT_CHECK_INT(mincore(base, 4096, &vec), 0);
	FT_CHECK_INT(vec & 1, 0);
	FT_CHECK_INT(mincore(base + 2 * rs, 4096, &vec), 0);
	FT_CHECK_INT(vec & 1, 0);
	cases++;
	FT_CHECK_INT(ops->remove(be, NULL, 1), -EINVAL);
	FT_CHECK_INT(ops->remove(NULL, ent, 1), -EINVAL);
	FT_CHECK_INT(ops->writeback(be, 1, 0, rs, rs + 1), -EINVAL);
	FT_CHECK_INT(ops->setup(be, 9, 0, 0, rs, 0), -ENOENT);
	FT_CHECK_INT(dc_mmapbe_remove_file(be, 9), -ENOENT);
	cases += 5;
	dc_mmapbe_destroy(be);
	printf("fault: mmap backend error paths: %lu cases\n", cases);
	return cases;
}
