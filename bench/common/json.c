// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * json.c - a JSON document built in memory (open_memstream) and written to
 * its file at the end; one member or element a line, indented by depth.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define MAX_DEPTH	32
#define KEY_MAX		256

struct bench_json {
	FILE *f;		/* the memory stream */
	char *buf;
	size_t len;
	unsigned int depth;	/* open containers, the top object included */
	bool is_arr[MAX_DEPTH];
	bool empty[MAX_DEPTH];	/* nothing in it yet */
	bool keyed;		/* bench_json_key() wrote the next key */
};

static void put_escaped(FILE *f, const char *s)
{
	static const char special[] = "\"\\\n\r\t", as[] = "\"\\nrt";
	const unsigned char *p = (const unsigned char *)s;
	const char *c;

	fputc('"', f);
	for (; *p; p++) {
		c = strchr(special, *p);
		if (c)
			fprintf(f, "\\%c", as[c - special]);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Start the next value: separator, indentation and (in an object) key. */
static void member(struct bench_json *j, const char *key)
{
	unsigned int d = j->depth - 1;

	if (j->keyed) {
		j->keyed = false;
		return;
	}
	fprintf(j->f, "%s\n%*s", j->empty[d] ? "" : ",", (int)(2 * j->depth), "");
	j->empty[d] = false;
	if (!j->is_arr[d]) {
		put_escaped(j->f, key ? key : "");
		fputs(": ", j->f);
	}
}

static void open_container(struct bench_json *j, bool arr)
{
	if (j->depth == MAX_DEPTH) {
		fprintf(stderr, "bench_json: nested deeper than %d\n", MAX_DEPTH);
		abort();
	}
	fputc(arr ? '[' : '{', j->f);
	j->is_arr[j->depth] = arr;
	j->empty[j->depth] = true;
	j->depth++;
}

struct bench_json *bench_json_new(void)
{
	struct bench_json *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->f = open_memstream(&j->buf, &j->len);
	if (!j->f) {
		free(j);
		return NULL;
	}
	open_container(j, false);
	return j;
}

void bench_json_free(struct bench_json *j)
{
	if (!j)
		return;
	fclose(j->f);
	free(j->buf);
	free(j);
}

void bench_json_key(struct bench_json *j, const char *fmt, ...)
{
	char key[KEY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	member(j, key);
	j->keyed = true;
}

void bench_json_obj(struct bench_json *j, const char *key)
{
	member(j, key);
	open_container(j, false);
}

void bench_json_arr(struct bench_json *j, const char *key)
{
	member(j, key);
	open_container(j, true);
}

void bench_json_end(struct bench_json *j)
{
	unsigned int d;

	if (!j->depth)
		return;
	d = --j->depth;
	if (!j->empty[d])
		fprintf(j->f, "\n%*s", (int)(2 * d), "");
	fputc(j->is_arr[d] ? ']' : '}', j->f);
}

static bool is_finite(double v)
{
	return v == v && v <= 1.7976931348623157e308 && v >= -1.7976931348623157e308;
}

void bench_json_num(struct bench_json *j, const char *key, double v)
{
	if (is_finite(v) && v > -9e15 && v < 9e15 && (double)(long long)v == v) {
		member(j, key);
		fprintf(j->f, "%lld", (long long)v);
	} else {
		bench_json_dbl(j, key, v, 3);
	}
}

void bench_json_dbl(struct bench_json *j, const char *key, double v,
		    int decimals)
{
	member(j, key);
	if (!is_finite(v))
		fputs("null", j->f);
	else if (decimals == BENCH_JSON_G)
		fprintf(j->f, "%.6g", v);
	else
		fprintf(j->f, "%.*f", decimals < 0 ? 0 : decimals, v);
}

void bench_json_u64(struct bench_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void bench_json_str(struct bench_json *j, const char *key, const char *s)
{
	member(j, key);
	put_escaped(j->f, s);
}

void bench_json_bool(struct bench_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void bench_json_null(struct bench_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void bench_json_addf(struct bench_json *j, double v, const char *fmt, ...)
{
	char key[KEY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	bench_json_num(j, key, v);
}

int bench_json_save(struct bench_json *j, const char *path, const char *prog)
{
	FILE *out;
	int err;

	while (j->depth)
		bench_json_end(j);
	fputc('\n', j->f);
	if (fflush(j->f) || ferror(j->f)) {
		fprintf(stderr, "%s: out of memory building %s\n", prog, path);
		return -EIO;
	}
	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -EIO;
	}
	fwrite(j->buf, 1, j->len, out);
	err = ferror(out);
	if (fclose(out) || err) {
		fprintf(stderr, "%s: writing %s failed\n", prog, path);
		return -EIO;
	}
	printf("wrote %s\n", path);
	return 0;
}
