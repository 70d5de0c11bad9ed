// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * size_arg.c - how the examples read a size given on the command line: one
 * copy, built into each example that takes one.  (The benchmarks have their
 * own, bench_parse_size() in bench/common/opts.c, which takes neither a '+'
 * nor an "iB" without a K, M, G or T before it.)
 */
#include "size_arg.h"

#include <errno.h>
#include <stdlib.h>

int ex_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case 't':
	case 'T':
		shift = 40;
		break;
	}
	if (shift)
		end++;
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B' && shift)
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}
