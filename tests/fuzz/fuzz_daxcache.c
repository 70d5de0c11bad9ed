// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_daxcache.c - the libFuzzer entry point: the first byte picks an area,
 * the area decodes the rest into API calls and checks its invariants after
 * each.  Around every input: the library must report no misuse warning the
 * area did not provoke on purpose.
 *
 * Built two ways: with clang -fsanitize=fuzzer by tests/fuzz/run, and with
 * tests/fuzz/replay_main.c as a plain program that make check runs over the
 * seed corpus.
 */
#include "fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <daxcache/log.h>
#include <daxcache/thread.h>

/* The library's last message, printed when a check fails. */
static char last_msg[256];
static unsigned long expected_warnings;
static bool verbose;

static void log_sink(void *priv, int level, const char *msg)
{
	if (verbose)
		fprintf(stderr, "%s\n", msg);
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

uint64_t fz_num(struct fz_in *in, uint64_t small)
{
	uint8_t tag = fz_u8(in);

	switch (tag & 7) {
	case 0:
		return UINT64_MAX - (tag >> 3);
	case 1:
		return tag >> 3;
	case 2:
		return fz_u64(in);
	default:
		return small ? fz_u16(in) % small : 0;
	}
}

void fz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz check failed at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (last_msg[0])
		fprintf(stderr, "last library message: %s\n", last_msg);
	fflush(stderr);
	abort();
}

bool fz_allowed(const char *what)
{
	static const char *allow;
	static bool read;
	const char *p;
	size_t n = strlen(what);

	if (!read) {
		allow = getenv("DC_FUZZ_ALLOW");
		read = true;
	}
	for (p = allow; p && (p = strstr(p, what)); p += n)
		if ((p == allow || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

void fz_expect_warnings(unsigned long n)
{
	expected_warnings += n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static bool done;

	if (done)
		return 0;
	done = true;
	verbose = getenv("DC_FUZZ_VERBOSE") != NULL;
	dc_thread_register();
	dc_set_log_fn(log_sink, NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	unsigned long w0;

	LLVMFuzzerInitialize(NULL, NULL);
	if (!size)
		return 0;
	last_msg[0] = '\0';
	expected_warnings = 0;
	w0 = dc_warn_count();
	switch (fz_u8(&in) % FZ_NR_AREAS) {
	case FZ_AREA_CACHE:
		fz_cache(&in);
		break;
	case FZ_AREA_ITREE:
		fz_itree(&in);
		break;
	case FZ_AREA_REQQ:
		fz_reqq(&in);
		break;
	case FZ_AREA_SLOTS:
		fz_slots(&in);
		break;
	case FZ_AREA_ATTR:
		fz_attr(&in);
		break;
	default:
		fz_iocomp(&in);
		break;
	}
	FZ_CHECK(dc_warn_count() - w0 == expected_warnings,
		 "library warnings: %lu, expected %lu", dc_warn_count() - w0,
		 expected_warnings);
	return 0;
}
