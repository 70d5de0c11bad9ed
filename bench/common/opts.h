/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * opts.h - the benchmarks' one command-line parser: a program lists its
 * options in a table (the shared ones --time, --quick, --json, --seed and
 * --threads come as ready entries), and the parser reads argv, checks every
 * value and writes the usage text from the same table.
 */
#ifndef BENCH_COMMON_OPTS_H
#define BENCH_COMMON_OPTS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/**
 * enum bench_opt_type - what an option's argument is and where it goes.
 * @BENCH_OPT_FLAG: no argument; sets the bool at @dst.
 * @BENCH_OPT_DOUBLE: a number in [@min, @max] into the double at @dst.
 * @BENCH_OPT_U64: an integer (decimal, 0x hex) in [@min, @max] into the
 *	uint64_t at @dst.
 * @BENCH_OPT_UINT: the same into the unsigned int at @dst.
 * @BENCH_OPT_SIZE: a size with an optional K/M/G/T suffix (powers of 1024,
 *	optionally followed by "iB" or "B"), in [@min, @max], into the uint64_t at
 *	@dst.
 * @BENCH_OPT_STRING: the argument itself into the const char * at @dst.
 * @BENCH_OPT_CALL: @call(argument, @dst) does the parsing; it returns 0 or
 *	a negative errno.
 */
enum bench_opt_type {
	BENCH_OPT_FLAG,
	BENCH_OPT_DOUBLE,
	BENCH_OPT_U64,
	BENCH_OPT_UINT,
	BENCH_OPT_SIZE,
	BENCH_OPT_STRING,
	BENCH_OPT_CALL,
};

/**
 * struct bench_opt - one long option.
 * @name: the name without the leading "--"; NULL ends a table.
 * @arg: the argument's name in the usage text; NULL for a flag.
 * @help: one line of help; a '\n' in it starts an indented further line.
 * @type: how the argument is read.
 * @dst: where the value goes.
 * @min: the smallest value allowed (numbers and sizes).
 * @max: the largest value allowed (numbers and sizes); @min and @max both 0
 *	allow any value.
 * @call: the parser of a BENCH_OPT_CALL option.
 * @on_quick: a number option that --quick sets to @quick unless it was given.
 * @quick: that value.
 * @seen: set by bench_opts_parse() when the option was given.
 */
struct bench_opt {
	const char *name;
	const char *arg;
	const char *help;
	enum bench_opt_type type;
	void *dst;
	double min, max;
	int (*call)(const char *arg, void *dst);
	bool on_quick;
	double quick;
	bool seen;
};

/* --time SEC into the double at @d; --quick makes it @q unless given. */
#define BENCH_OPT_TIME(d, q, h) \
	{ .name = "time", .arg = "SEC", .help = (h), .type = BENCH_OPT_DOUBLE, \
	  .dst = (d), .min = 1e-6, .max = 3600, .on_quick = (q) > 0, .quick = (q) }
/* --quick: sets the bool at @d (which may be NULL) and the on_quick options. */
#define BENCH_OPT_QUICK(d, h) \
	{ .name = "quick", .help = (h), .type = BENCH_OPT_FLAG, .dst = (d) }
#define BENCH_OPT_JSON(d, h) \
	{ .name = "json", .arg = "PATH", .help = (h), .type = BENCH_OPT_STRING, \
	  .dst = (d) }
#define BENCH_OPT_SEED(d, h) \
	{ .name = "seed", .arg = "N", .help = (h), .type = BENCH_OPT_U64, \
	  .dst = (d), .min = 0, .max = 18446744073709551615.0 }
#define BENCH_OPT_THREADS(d, lo, hi, h) \
	{ .name = "threads", .arg = "N", .help = (h), .type = BENCH_OPT_UINT, \
	  .dst = (d), .min = (lo), .max = (hi) }
#define BENCH_OPT_END	{ .name = NULL }

/**
 * bench_opts_parse() - read @argv's options into the places @opts names.
 * @prog: the program's name, for the messages and the usage text.
 * @opts: the table, ended by BENCH_OPT_END; each given option gets @seen.
 * @argc: as main() got it.
 * @argv: likewise; no operands are accepted.
 *
 * --help (or -h) prints the usage text to stdout.  A bad option, a missing or bad
 * value or an operand prints what was wrong and the usage text to stderr.
 * When --quick was given, the options marked @on_quick that were not get
 * their @quick value.
 *
 * Context: main thread, before other threads use getopt.
 * Return: 0 when the options were read, 1 after --help, -EINVAL on an error.
 */
int bench_opts_parse(const char *prog, struct bench_opt *opts, int argc,
		     char **argv);

/**
 * bench_opts_main() - bench_opts_parse() for a program's main(): exit(0)
 * after --help, exit(2) after an error.
 * @prog: as for bench_opts_parse().
 * @opts: likewise.
 * @argc: likewise.
 * @argv: likewise.
 *
 * Context: as for bench_opts_parse().
 */
void bench_opts_main(const char *prog, struct bench_opt *opts, int argc,
		     char **argv);

/**
 * bench_opts_usage() - print the usage text of @opts.
 * @f: where to.
 * @prog: the program's name.
 * @opts: the table.
 *
 * Context: any.
 */
void bench_opts_usage(FILE *f, const char *prog, const struct bench_opt *opts);

/**
 * bench_opt_seen() - whether the option @name was given.
 * @opts: the table bench_opts_parse() filled.
 * @name: the option's name without "--".
 *
 * Context: any.
 * Return: true if it was on the command line.
 */
bool bench_opt_seen(const struct bench_opt *opts, const char *name);

/**
 * bench_name_find() - the index of @name in a table of names.
 * @names: the table (an option's values: workloads, policies).
 * @n: its entries.
 * @name: the name looked for.
 *
 * Context: any.
 * Return: the index, or -EINVAL when @name is NULL or not in @names.
 */
int bench_name_find(const char *const *names, unsigned int n, const char *name);

/**
 * bench_name_of() - entry @i of a table of names.
 * @names: the table.
 * @n: its entries.
 * @i: the index.
 *
 * Context: any.
 * Return: the name, or "?" for an index past the table.
 */
const char *bench_name_of(const char *const *names, unsigned int n,
			  unsigned int i);

/*
 * BENCH_NAMED_ENUM() - define @name_fn(v), the name of enum @type value @v
 * ("?" past the table), and @parse_fn(s, out), the value named @s (0, or
 * -EINVAL for an unknown name or a NULL argument), over the table @tbl of
 * @n names indexed by the enum.
 */
#define BENCH_NAMED_ENUM(type, tbl, n, name_fn, parse_fn)		\
const char *name_fn(type v)						\
{									\
	return bench_name_of(tbl, n, (unsigned int)v);			\
}									\
int parse_fn(const char *s, type *out)					\
{									\
	int i = bench_name_find(tbl, n, s);				\
									\
	if (i < 0 || !out)						\
		return -EINVAL;						\
	*out = (type)i;							\
	return 0;							\
}

/**
 * bench_parse_size() - read a size such as 4096, 0x1000, 64K, 2MiB or 1G.
 * @s: the text.
 * @out: the size in bytes.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a malformed, negative or too large (over 2^64 - 1)
 * size.
 */
int bench_parse_size(const char *s, uint64_t *out);

/**
 * bench_parse_fraction() - read a number such as 0.4 or a fraction such as
 *	1/16.
 * @s: the text.
 * @out: its value.
 *
 * Context: any.
 * Return: 0, or -EINVAL (@out untouched) for a malformed number, NaN or a
 * denominator that is not positive.
 */
int bench_parse_fraction(const char *s, double *out);

/* The largest window/file ratio a benchmark takes. */
#define BENCH_RATIO_MAX		64

/**
 * bench_ratio_add() - add one item of a --ratio list to a set of ratios.
 * @s: the item, as bench_parse_fraction() reads it.
 * @ratios: the set, @max entries.
 * @max: its room.
 * @nr: its entries, one more if @s is new.
 *
 * Context: any.
 * Return: 0 (also when the ratio is in the set already), or -EINVAL for a
 * malformed ratio, one outside (0, BENCH_RATIO_MAX], or no room left.
 */
int bench_ratio_add(const char *s, double *ratios, unsigned int max,
		    unsigned int *nr);

#endif /* BENCH_COMMON_OPTS_H */
