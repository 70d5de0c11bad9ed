/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz.h - what the libFuzzer harness's areas share: a reader that turns
 * the input bytes into numbers (zeros once the input runs out, so every
 * byte string decodes to something), and the check that stops the run.
 *
 * The first byte of an input picks an area (enum fz_area); the rest is read
 * by that area as a sequence of (op, args).
 */
#ifndef DC_FUZZ_H
#define DC_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fz_area {
	FZ_AREA_CACHE = 0,
	FZ_AREA_ITREE = 1,
	FZ_AREA_REQQ = 2,
	FZ_AREA_SLOTS = 3,
	FZ_AREA_ATTR = 4,
	FZ_AREA_IOCOMP = 5,
	FZ_NR_AREAS = 6,
};

/**
 * struct fz_in - the input not read yet.
 * @p: next byte.
 * @n: bytes left.
 */
struct fz_in {
	const uint8_t *p;
	size_t n;
};

static inline bool fz_more(const struct fz_in *in)
{
	return in->n > 0;
}

static inline uint8_t fz_u8(struct fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline uint16_t fz_u16(struct fz_in *in)
{
	uint16_t v = fz_u8(in);

	return (uint16_t)(v | (uint16_t)fz_u8(in) << 8);
}

static inline uint32_t fz_u32(struct fz_in *in)
{
	uint32_t v = fz_u16(in);

	return v | (uint32_t)fz_u16(in) << 16;
}

static inline uint64_t fz_u64(struct fz_in *in)
{
	uint64_t v = fz_u32(in);

	return v | (uint64_t)fz_u32(in) << 32;
}

/* A number below @n (n > 0), from one byte (two when n > 256). */
static inline unsigned int fz_below(struct fz_in *in, unsigned int n)
{
	return (n > 256 ? fz_u16(in) : fz_u8(in)) % n;
}

/*
 * A 64-bit value that is mostly small, sometimes at the edges: one tag byte
 * chooses between a small number, a value near 0 or UINT64_MAX, and eight
 * raw bytes.
 */
uint64_t fz_num(struct fz_in *in, uint64_t small);

/* Stop the run: print where and why, then abort() (a crash to libFuzzer). */
void fz_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

#define FZ_CHECK(cond, fmt, ...)					\
	do {								\
		if (!(cond))						\
			fz_fail(__FILE__, __LINE__, "%s: " fmt, #cond,	\
				##__VA_ARGS__);				\
	} while (0)

/* The areas; each creates what it needs and destroys it before returning. */
void fz_cache(struct fz_in *in);
void fz_itree(struct fz_in *in);
void fz_reqq(struct fz_in *in);
void fz_slots(struct fz_in *in);
void fz_attr(struct fz_in *in);
void fz_iocomp(struct fz_in *in);

/*
 * Library warnings an area caused on purpose (a misuse it checks the
 * library reports); any other warning during an input is a failure.
 */
void fz_expect_warnings(unsigned long n);

/*
 * fz_allowed() - whether DC_FUZZ_ALLOW (a comma-separated list) names
 * @what: a known library bug whose check is relaxed, so that a long run can
 * look for others meanwhile.  The checks are strict by default.
 */
bool fz_allowed(const char *what);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif /* DC_FUZZ_H */
