/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/version.h - the version of libdaxcache these headers belong to.
 *
 * The release is MAJOR.MINOR.PATCH.  A program checks at compile time what
 * its headers offer with DC_VERSION_AT_LEAST(), and at run time which
 * library it runs with by dc_version().  A function added in a release is
 * declared from that release's headers on, and is in the shared library's
 * symbol version node of that release (DAXCACHE_MAJOR.MINOR), so a program
 * that uses it does not start with an older library.
 *
 * configure.ac takes the package version from here (configure fails when
 * they differ), and daxcache.ko's MODULE_VERSION() is DC_VERSION_STRING.
 * The header includes nothing: the kernel build includes it too.
 */
#ifndef DAXCACHE_VERSION_H
#define DAXCACHE_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

/* The release these headers belong to: MAJOR.MINOR.PATCH. */
#define DC_VERSION_MAJOR	1
#define DC_VERSION_MINOR	1
#define DC_VERSION_PATCH	0
#define DC_VERSION_STRING	"1.1.0"

/**
 * DC_VERSION_ENCODE - one number for a version, ordered as versions are.
 * @major: the major version.
 * @minor: the minor version, 0 to 255.
 * @patch: the patch level, 0 to 255.
 *
 * Versions compare as their numbers do; dc_version() returns the library's
 * in this form.
 */
#define DC_VERSION_ENCODE(major, minor, patch) \
	(((major) << 16) | ((minor) << 8) | (patch))

/* The version of these headers, encoded by DC_VERSION_ENCODE(). */
#define DC_VERSION \
	DC_VERSION_ENCODE(DC_VERSION_MAJOR, DC_VERSION_MINOR, DC_VERSION_PATCH)

/**
 * DC_VERSION_AT_LEAST - whether these headers are of a release at least as new as one.
 * @major: the major version.
 * @minor: the minor version.
 * @patch: the patch level.
 *
 * A constant expression, for #if: 1 when the headers are of release
 * @major.@minor.@patch or a later one, else 0.  For example, code that uses
 * a function added in 1.1.0 sits under #if DC_VERSION_AT_LEAST(1, 1, 0).
 */
#define DC_VERSION_AT_LEAST(major, minor, patch) \
	(DC_VERSION_ENCODE(major, minor, patch) <= DC_VERSION)

/**
 * dc_version() - the version of the library that runs.
 *
 * Description:
 * The release of the library (or the kernel module) the program runs with,
 * which may be newer than the headers it was built with (DC_VERSION).
 * Split it with (v >> 16), (v >> 8) & 0xff and v & 0xff, or compare it
 * with DC_VERSION_ENCODE().
 *
 * Context: any.
 * Return: the version, as DC_VERSION_ENCODE() encodes it.
 */
unsigned int dc_version(void);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_VERSION_H */
