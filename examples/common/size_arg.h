/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * size_arg.h - how the examples read a size given on the command line
 * (mmap-window's --window-size, daxfs's --window-size and the like).
 */
#ifndef EXAMPLES_COMMON_SIZE_ARG_H
#define EXAMPLES_COMMON_SIZE_ARG_H

#include <stdint.h>

/**
 * ex_parse_size() - read a size such as 4096, 0x1000, 64K, 2M or 1GiB.
 * @s: the text: a number as strtoull() reads it in base 0 (decimal, 0x
 *	hex, 0 octal), then optionally K, M, G or T (either case: 2^10,
 *	2^20, 2^30, 2^40) followed by nothing, "B" or "iB" (a bare "iB"
 *	after the number is taken too).
 * @out: the size in bytes; left as it was on an error.
 *
 * Context: any thread (it sets errno).
 * Return: 0, or -1 for an empty, malformed, negative (a leading '-') or too
 * large (over 2^64 - 1) size.
 */
int ex_parse_size(const char *s, uint64_t *out);

#endif /* EXAMPLES_COMMON_SIZE_ARG_H */
