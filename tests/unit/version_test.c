// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * version_test.c - the version macros of <daxcache/version.h> and
 * dc_version(): the string, the numbers and the encoding agree, the check
 * macro orders versions, the library that runs is the release of the
 * headers it was built with, and configure's package version (daxcache.pc's)
 * is the same release.  Public headers and the shared library only.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <daxcache/daxcache.h>

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "version-test: FAIL: %s (line %d)\n",	\
			#cond, __LINE__);				\
		failures++;						\
	}								\
} while (0)

/* The check macro is a constant expression, usable in #if. */
#if !DC_VERSION_AT_LEAST(1, 0, 0)
#error "DC_VERSION_AT_LEAST(1, 0, 0) is false in release 1.0 or later"
#endif
#if DC_VERSION_AT_LEAST(DC_VERSION_MAJOR + 1, 0, 0)
#error "DC_VERSION_AT_LEAST() is true for the next major release"
#endif

int main(void)
{
	char s[32];

	snprintf(s, sizeof(s), "%d.%d.%d", DC_VERSION_MAJOR, DC_VERSION_MINOR,
		 DC_VERSION_PATCH);
	CHECK(strcmp(s, DC_VERSION_STRING) == 0);
	CHECK(strcmp(PACKAGE_VERSION, DC_VERSION_STRING) == 0);
	CHECK(DC_VERSION == ((DC_VERSION_MAJOR << 16) | (DC_VERSION_MINOR << 8) |
			     DC_VERSION_PATCH));

	/* Ordered as versions are, at every position. */
	CHECK(DC_VERSION_ENCODE(1, 0, 0) > DC_VERSION_ENCODE(0, 255, 255));
	CHECK(DC_VERSION_ENCODE(1, 2, 0) > DC_VERSION_ENCODE(1, 1, 255));
	CHECK(DC_VERSION_ENCODE(1, 1, 2) > DC_VERSION_ENCODE(1, 1, 1));

	CHECK(DC_VERSION_AT_LEAST(DC_VERSION_MAJOR, DC_VERSION_MINOR,
				  DC_VERSION_PATCH));
	CHECK(!DC_VERSION_AT_LEAST(DC_VERSION_MAJOR, DC_VERSION_MINOR,
				   DC_VERSION_PATCH + 1));
	CHECK(!DC_VERSION_AT_LEAST(DC_VERSION_MAJOR, DC_VERSION_MINOR + 1, 0));
	CHECK(DC_VERSION_AT_LEAST(DC_VERSION_MAJOR, 0, 0));
	CHECK(DC_VERSION_AT_LEAST(0, 255, 255));

	CHECK(dc_version() == DC_VERSION);
	CHECK(dc_version() >> 16 == DC_VERSION_MAJOR);
	CHECK(((dc_version() >> 8) & 0xff) == DC_VERSION_MINOR);
	CHECK((dc_version() & 0xff) == DC_VERSION_PATCH);

	if (failures)
		return 1;
	printf("version-test: libdaxcache %s (dc_version() 0x%06x)\n",
	       DC_VERSION_STRING, dc_version());
	return 0;
}
