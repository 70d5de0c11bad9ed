// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * json_out.c - named numbers written as one flat JSON object.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"

#define KEY_MAX	96

struct json_item {
	char key[KEY_MAX];
	double v;
};

struct json_out {
	struct json_item *items;
	size_t n, cap;
};

struct json_out *json_out_create(void)
{
	return calloc(1, sizeof(struct json_out));
}

void json_out_destroy(struct json_out *j)
{
	if (!j)
		return;
	free(j->items);
	free(j);
}

void json_out_add(struct json_out *j, double v, const char *fmt, ...)
{
	struct json_item *it;
	va_list ap;

	if (j->n == j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 64;

		it = realloc(j->items, cap * sizeof(*it));
		if (!it) {
			fprintf(stderr, "bench_cache: out of memory\n");
			exit(1);
		}
		j->items = it;
		j->cap = cap;
	}
	it = &j->items[j->n++];
	va_start(ap, fmt);
	vsnprintf(it->key, sizeof(it->key), fmt, ap);
	va_end(ap);
	it->v = v;
}

/* Integral values as integers, others with three decimals; NaN/inf as null. */
static void write_value(FILE *f, double v)
{
	if (v != v || v > 1e300 || v < -1e300)
		fprintf(f, "null");
	else if (v > -9e15 && v < 9e15 && (double)(int64_t)v == v)
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%.3f", v);
}

int json_out_write(const struct json_out *j, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;
	int err;

	if (!f) {
		fprintf(stderr, "bench_cache: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "{");
	for (i = 0; i < j->n; i++) {
		fprintf(f, "%s\n  \"%s\": ", i ? "," : "", j->items[i].key);
		write_value(f, j->items[i].v);
	}
	fprintf(f, "\n}\n");
	err = ferror(f);
	if (fclose(f) || err) {
		fprintf(stderr, "bench_cache: writing %s failed\n", path);
		return -1;
	}
	return 0;
}
