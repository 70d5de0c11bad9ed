// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * opts.c - the benchmarks' command-line parser and usage text.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

#define OPT_BASE	256	/* getopt_long's value for opts[0] */
#define OPT_HELP	1	/* and for --help */

/* The unsigned number @s starts with (strtoull's bases); -EINVAL for none. */
static int leading_u64(const char *s, uint64_t *v, char **end)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 0);
	return errno || *end == s ? -EINVAL : 0;
}

int bench_parse_size(const char *s, uint64_t *out)
{
	static const char suffixes[] = "kKmMgGtT";
	const char *suffix;
	unsigned int shift = 0;
	uint64_t v;
	char *end;

	if (leading_u64(s, &v, &end))
		return -EINVAL;
	suffix = *end ? strchr(suffixes, *end) : NULL;
	if (suffix) {
		shift = 10 * (1 + (unsigned int)(suffix - suffixes) / 2);
		end++;
		if (end[0] == 'i' && end[1] == 'B')
			end += 2;
		else if (end[0] == 'B')
			end++;
	}
	if (*end || v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = v << shift;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || *out != *out ? -EINVAL : 0;
}

int bench_parse_fraction(const char *s, double *out)
{
	double num, den = 1;
	char *end;

	errno = 0;
	num = strtod(s, &end);
	if (end != s && *end == '/') {
		s = end + 1;
		den = strtod(s, &end);
	}
	if (errno || end == s || *end || num != num || !(den > 0))
		return -EINVAL;
	*out = num / den;
	return 0;
}

int bench_ratio_add(const char *s, double *ratios, unsigned int max,
		    unsigned int *nr)
{
	unsigned int i;
	double r;

	if (bench_parse_fraction(s, &r) || r <= 0 || r > BENCH_RATIO_MAX)
		return -EINVAL;
	for (i = 0; i < *nr; i++)
		if (ratios[i] == r)
			return 0;
	if (*nr >= max)
		return -EINVAL;
	ratios[(*nr)++] = r;
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	return leading_u64(s, out, &end) || *end ? -EINVAL : 0;
}

/* Within [min, max]; both 0 means unbounded. */
static bool in_range(const struct bench_opt *o, double v)
{
	return (!o->min && !o->max) || (v >= o->min && v <= o->max);
}

/* Read @arg into @o->dst; 0 or -EINVAL. */
static int take_value(const struct bench_opt *o, const char *arg)
{
	uint64_t u;
	double d;
	int ret;

	switch (o->type) {
	case BENCH_OPT_FLAG:
		if (o->dst)
			*(bool *)o->dst = true;
		return 0;
	case BENCH_OPT_DOUBLE:
		if (parse_double(arg, &d) || !in_range(o, d))
			return -EINVAL;
		*(double *)o->dst = d;
		return 0;
	case BENCH_OPT_U64:
	case BENCH_OPT_UINT:
	case BENCH_OPT_SIZE:
		ret = o->type == BENCH_OPT_SIZE ? bench_parse_size(arg, &u) :
						  parse_u64(arg, &u);
		if (ret || !in_range(o, (double)u))
			return -EINVAL;
		if (o->type == BENCH_OPT_UINT) {
			if (u > UINT32_MAX)
				return -EINVAL;
			*(unsigned int *)o->dst = (unsigned int)u;
		} else {
			*(uint64_t *)o->dst = u;
		}
		return 0;
	case BENCH_OPT_STRING:
		*(const char **)o->dst = arg;
		return 0;
	case BENCH_OPT_CALL:
		return o->call(arg, o->dst) ? -EINVAL : 0;
	}
	return -EINVAL;
}

/* --quick was given: the on_quick options not given take their quick value. */
static void apply_quick(struct bench_opt *opts)
{
	for (; opts->name; opts++) {
		if (!opts->on_quick || opts->seen)
			continue;
		if (opts->type == BENCH_OPT_DOUBLE)
			*(double *)opts->dst = opts->quick;
		else if (opts->type == BENCH_OPT_UINT)
			*(unsigned int *)opts->dst = (unsigned int)opts->quick;
		else if (opts->type == BENCH_OPT_U64 || opts->type == BENCH_OPT_SIZE)
			*(uint64_t *)opts->dst = (uint64_t)opts->quick;
	}
}

static size_t count_opts(const struct bench_opt *opts)
{
	size_t n = 0;

	while (opts[n].name)
		n++;
	return n;
}

int bench_opts_parse(const char *prog, struct bench_opt *opts, int argc,
		     char **argv)
{
	size_t i, n = count_opts(opts);
	struct option *lo = calloc(n + 2, sizeof(*lo));
	int c, ret = 0;

	if (!lo) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		opts[i].seen = false;
		lo[i].name = opts[i].name;
		lo[i].has_arg = opts[i].type == BENCH_OPT_FLAG ? no_argument :
				required_argument;
		lo[i].val = OPT_BASE + (int)i;
	}
	lo[n].name = "help";
	lo[n].val = OPT_HELP;
	optind = 0;	/* a fresh scan, also for a second call */
	opterr = 0;	/* the messages below name the program */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == OPT_HELP || c == 'h') {
			bench_opts_usage(stdout, prog, opts);
			ret = 1;
			break;
		}
		if (c < OPT_BASE || (size_t)(c - OPT_BASE) >= n) {
			fprintf(stderr, "%s: %s: unknown option or missing value\n",
				prog, argv[optind - 1]);
			ret = -EINVAL;
			break;
		}
		c -= OPT_BASE;
		if (take_value(&opts[c], optarg)) {
			fprintf(stderr, "%s: bad --%s '%s'\n", prog,
				opts[c].name, optarg);
			ret = -EINVAL;
			break;
		}
		opts[c].seen = true;
	}
	if (!ret && optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog,
			argv[optind]);
		ret = -EINVAL;
	}
	if (!ret && bench_opt_seen(opts, "quick"))
		apply_quick(opts);
	if (ret < 0)
		bench_opts_usage(stderr, prog, opts);
	free(lo);
	return ret;
}

void bench_opts_main(const char *prog, struct bench_opt *opts, int argc,
		     char **argv)
{
	int ret = bench_opts_parse(prog, opts, argc, argv);

	if (ret)
		exit(ret == 1 ? 0 : 2);
}

/* "--name ARG" as the usage text shows it; its length. */
static int opt_form(char *buf, size_t size, const struct bench_opt *o)
{
	return snprintf(buf, size, "--%s%s%s", o->name, o->arg ? " " : "",
			o->arg ? o->arg : "");
}

void bench_opts_usage(FILE *f, const char *prog, const struct bench_opt *opts)
{
	size_t i, n = count_opts(opts);
	int col, len, width = 0;
	const char *h, *nl;
	char form[64];

	col = fprintf(f, "usage: %s", prog);
	for (i = 0; i < n; i++) {
		len = opt_form(form, sizeof(form), &opts[i]) + 3;
		if (col + len > 78)
			col = fprintf(f, "\n%*s", (int)strlen(prog) + 6, "") - 1;
		col += fprintf(f, " [%s]", form);
		if (len - 3 > width)
			width = len - 3;
	}
	fprintf(f, "\n");
	for (i = 0; i < n; i++) {
		opt_form(form, sizeof(form), &opts[i]);
		fprintf(f, "  %-*s  ", width, form);
		for (h = opts[i].help ? opts[i].help : ""; (nl = strchr(h, '\n'));
		     h = nl + 1)
			fprintf(f, "%.*s\n  %-*s  ", (int)(nl - h), h, width, "");
		fprintf(f, "%s\n", h);
	}
}

int bench_name_find(const char *const *names, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; name && i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -EINVAL;
}

const char *bench_name_of(const char *const *names, unsigned int n,
			  unsigned int i)
{
	return i < n && names[i] ? names[i] : "?";
}

bool bench_opt_seen(const struct bench_opt *opts, const char *name)
{
	for (; opts->name; opts++)
		if (!strcmp(opts->name, name))
			return opts->seen;
	return false;
}
