/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * json_out.h - collect named numbers and write them as one flat JSON object.
 */
#ifndef BENCH_CACHE_JSON_OUT_H
#define BENCH_CACHE_JSON_OUT_H

struct json_out;

/**
 * json_out_create() - an empty collection.
 *
 * Return: it, or NULL if out of memory.
 */
struct json_out *json_out_create(void);

/**
 * json_out_destroy() - free a collection.
 * @j: the collection, or NULL.
 */
void json_out_destroy(struct json_out *j);

/**
 * json_out_add() - add the number @v under a key made from @fmt.
 * @j: the collection.
 * @v: the value; integral values are written without a fraction.
 * @fmt: printf format of the key (plain ASCII, no quotes or backslashes).
 *
 * Exits the program if out of memory.
 */
void json_out_add(struct json_out *j, double v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * json_out_write() - (over)write @path with the collection, keys in the
 * order they were added.
 * @j: the collection.
 * @path: the file.
 *
 * Return: 0, or -1 with a message printed.
 */
int json_out_write(const struct json_out *j, const char *path);

#endif /* BENCH_CACHE_JSON_OUT_H */
