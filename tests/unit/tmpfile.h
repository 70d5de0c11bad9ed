/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tmpfile.h - an unlinked temporary file, for the test programs that work
 * on real files (the mmap backend's tests, the fork test).
 */
#ifndef DC_TESTS_TMPFILE_H
#define DC_TESTS_TMPFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * A new file DIR/@name-XXXXXX, open O_RDWR and unlinked at once: DIR is
 * @dir, or without one $TMPDIR, or /tmp.  Returns the descriptor, or -1
 * with errno set.
 */
static inline int tmpfile_unlinked(const char *dir, const char *name)
{
	char path[512];
	int fd;

	if (!dir || !*dir)
		dir = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/%s-XXXXXX", dir && *dir ? dir : "/tmp",
		 name);
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

#endif /* DC_TESTS_TMPFILE_H */
