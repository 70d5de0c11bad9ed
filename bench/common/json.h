/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * json.h - the benchmarks' one JSON writer.  A document is built in memory,
 * member by member (objects and arrays nest), and written to its file only
 * by bench_json_save(), so a run that failed leaves no results file.  Keys
 * and strings are escaped; a number that is not finite is written as null.
 */
#ifndef BENCH_COMMON_JSON_H
#define BENCH_COMMON_JSON_H

#include <stdbool.h>
#include <stdint.h>

struct bench_json;

/* bench_json_dbl()'s @decimals for "%.6g" instead of a fixed point. */
#define BENCH_JSON_G	-1

/**
 * bench_json_new() - an empty document: its top-level object is open.
 *
 * Context: any; a document belongs to one thread.
 * Return: the document, or NULL if out of memory.
 */
struct bench_json *bench_json_new(void);

/**
 * bench_json_free() - drop a document without writing it.
 * @j: the document, or NULL.
 *
 * Context: any.
 */
void bench_json_free(struct bench_json *j);

/**
 * bench_json_save() - close what is still open and (over)write @path with
 * the document.
 * @j: the document; it stays valid and must be freed.
 * @path: the file.
 * @prog: the program's name, for the messages.
 *
 * Context: any.
 * Return: 0 with "wrote @path" printed, or -EIO with a message printed (the
 * file could not be written, or memory ran out while the document was
 * built).
 */
int bench_json_save(struct bench_json *j, const char *path, const char *prog);

/**
 * bench_json_key() - give the next member of the open object a key made
 * from @fmt; the next call adds its value (with a NULL key).
 * @j: the document.
 * @fmt: printf format of the key.
 *
 * Context: any.
 */
void bench_json_key(struct bench_json *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * bench_json_obj() - open an object as the next value.
 * @j: the document.
 * @key: its key in the enclosing object; NULL in an array or after
 *	bench_json_key().
 *
 * Context: any.
 */
void bench_json_obj(struct bench_json *j, const char *key);

/**
 * bench_json_arr() - open an array as the next value.
 * @j: the document.
 * @key: as for bench_json_obj().
 *
 * Context: any.
 */
void bench_json_arr(struct bench_json *j, const char *key);

/**
 * bench_json_end() - close the innermost open object or array.
 * @j: the document.
 *
 * Context: any.
 */
void bench_json_end(struct bench_json *j);

/**
 * bench_json_num() - add a number: integral values without a fraction,
 * others with three decimals.
 * @j: the document.
 * @key: as for bench_json_obj().
 * @v: the value.
 *
 * Context: any.
 */
void bench_json_num(struct bench_json *j, const char *key, double v);

/**
 * bench_json_dbl() - add a number with @decimals decimals.
 * @j: the document.
 * @key: as for bench_json_obj().
 * @v: the value.
 * @decimals: digits after the point, or BENCH_JSON_G for six significant
 *	digits.
 *
 * Context: any.
 */
void bench_json_dbl(struct bench_json *j, const char *key, double v,
		    int decimals);

/**
 * bench_json_u64() - add an unsigned integer.
 * @j: the document.
 * @key: as for bench_json_obj().
 * @v: the value.
 *
 * Context: any.
 */
void bench_json_u64(struct bench_json *j, const char *key, uint64_t v);

/**
 * bench_json_str() - add a string, escaped as JSON requires.
 * @j: the document.
 * @key: as for bench_json_obj().
 * @s: the string (UTF-8 passes through).
 *
 * Context: any.
 */
void bench_json_str(struct bench_json *j, const char *key, const char *s);

/**
 * bench_json_bool() - add true or false.
 * @j: the document.
 * @key: as for bench_json_obj().
 * @v: the value.
 *
 * Context: any.
 */
void bench_json_bool(struct bench_json *j, const char *key, bool v);

/**
 * bench_json_null() - add null.
 * @j: the document.
 * @key: as for bench_json_obj().
 *
 * Context: any.
 */
void bench_json_null(struct bench_json *j, const char *key);

/**
 * bench_json_addf() - add the number @v to the open object under a
 * key made from @fmt (the flat files of the cache and inode benches).
 * @j: the document.
 * @v: the value, written as by bench_json_num().
 * @fmt: printf format of the key.
 *
 * Context: any.
 */
void bench_json_addf(struct bench_json *j, double v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* BENCH_COMMON_JSON_H */
