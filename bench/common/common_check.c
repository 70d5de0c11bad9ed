// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * common_check.c - checks of bench/common: the JSON writer's output and
 * escaping, the size parser's suffixes and overflow, the option parser's
 * values and errors.  Exits 1 on any failed check.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "lat_hist.h"
#include "opts.h"
#include "stats.h"

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		failures++;						\
	}								\
} while (0)

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void check_json(const char *dir)
{
	static const char expect[] =
		"{\n"
		"  \"a\\\"b\\\\c\\nd\": \"tab\\there \\u0001 \\\"q\\\" \\\\ \xc3\xa9\",\n"
		"  \"n\": 42,\n"
		"  \"f\": 0.125,\n"
		"  \"nan\": null,\n"
		"  \"inf\": null,\n"
		"  \"big\": 18446744073709551615,\n"
		"  \"d1\": 2.5,\n"
		"  \"g\": 0.0625,\n"
		"  \"o\": {\n"
		"    \"t\": true,\n"
		"    \"z\": null,\n"
		"    \"e\": {},\n"
		"    \"l\": [\n"
		"      1,\n"
		"      \"x\",\n"
		"      []\n"
		"    ]\n"
		"  },\n"
		"  \"k/3/x\": -7,\n"
		"  \"open\": [\n"
		"    false\n"
		"  ]\n"
		"}\n";
	char path[512];
	struct bench_json *j = bench_json_new();
	const char *got;

	CHECK(j);
	if (!j)
		return;
	snprintf(path, sizeof(path), "%s/check.json", dir);
	bench_json_str(j, "a\"b\\c\nd", "tab\there \x01 \"q\" \\ \xc3\xa9");
	bench_json_num(j, "n", 42);
	bench_json_num(j, "f", 0.125);
	bench_json_num(j, "nan", NAN);
	bench_json_dbl(j, "inf", INFINITY, 2);
	bench_json_u64(j, "big", UINT64_MAX);
	bench_json_dbl(j, "d1", 2.54, 1);
	bench_json_dbl(j, "g", 1.0 / 16, BENCH_JSON_G);
	bench_json_obj(j, "o");
	bench_json_bool(j, "t", true);
	bench_json_null(j, "z");
	bench_json_obj(j, "e");
	bench_json_end(j);
	bench_json_arr(j, "l");
	bench_json_num(j, NULL, 1);
	bench_json_str(j, NULL, "x");
	bench_json_arr(j, NULL);
	bench_json_end(j);
	bench_json_end(j);
	bench_json_end(j);
	bench_json_addf(j, -7, "k/%d/%s", 3, "x");
	bench_json_key(j, "%s", "open");
	bench_json_arr(j, NULL);
	bench_json_bool(j, NULL, false);
	/* save closes the array and the top object */
	CHECK(bench_json_save(j, path, "common-check") == 0);
	got = slurp(path);
	CHECK(got && !strcmp(got, expect));
	if (got && strcmp(got, expect))
		fprintf(stderr, "got:\n%s\nexpected:\n%s\n", got, expect);
	unlink(path);
	CHECK(bench_json_save(j, "/nonexistent-dir/x.json", "common-check") == -EIO);
	bench_json_free(j);

	/* An empty document is an empty object. */
	j = bench_json_new();
	CHECK(j && bench_json_save(j, path, "common-check") == 0);
	got = slurp(path);
	CHECK(got && !strcmp(got, "{}\n"));
	unlink(path);
	bench_json_free(j);
}

static void check_size(void)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "0", 0 }, { "4096", 4096 }, { "0x1000", 4096 },
		{ "64K", 65536 }, { "64k", 65536 }, { "2M", 2 << 20 },
		{ "2MiB", 2 << 20 }, { "3MB", 3 << 20 }, { "1G", 1ull << 30 },
		{ "5T", 5ull << 40 }, { "16777215T", 16777215ull << 40 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "K", "-1", "+1", "1X", "1iB", "1B", "1KiBx", "1 K",
		"16777216T", "18446744073709551616", "17179869184G", "0x",
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 1;
		CHECK(bench_parse_size(good[i].s, &v) == 0 && v == good[i].v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (bench_parse_size(bad[i], &v) != -EINVAL || v != 7) {
			fprintf(stderr, "size '%s' accepted\n", bad[i]);
			failures++;
		}
	}
}

static void check_fraction(void)
{
	static const struct { const char *s; double v; } good[] = {
		{ "0.4", 0.4 }, { "2", 2 }, { "1/16", 0.0625 }, { "3/2", 1.5 },
		{ "0.5/2", 0.25 }, { "1e-2", 0.01 },
	};
	static const char *const bad[] = {
		"", "x", "0.4x", "/2", "1/", "1/0", "1/-2", "1/2/3", "nan",
		"1/nan",
	};
	double v;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = -1;
		CHECK(bench_parse_fraction(good[i].s, &v) == 0 && v == good[i].v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (bench_parse_fraction(bad[i], &v) != -EINVAL || v != 7) {
			fprintf(stderr, "fraction '%s' accepted\n", bad[i]);
			failures++;
		}
	}
}

struct vals {
	double seconds;
	bool quick;
	const char *json;
	uint64_t seed, size, any;
	unsigned int threads;
	int even;
};

static int parse_even(const char *arg, void *dst)
{
	int v = atoi(arg);

	if (v % 2)
		return -EINVAL;
	*(int *)dst = v;
	return 0;
}

/* Parse the NULL-ended @args into @v; the parser's return. */
static int parse(struct vals *v, struct bench_opt **table, ...)
{
	static struct bench_opt opts[9];
	char *argv[16];
	const char *a;
	va_list ap;
	int argc = 0;

	struct bench_opt o[] = {
		BENCH_OPT_TIME(&v->seconds, 0.5, "seconds"),
		BENCH_OPT_QUICK(&v->quick, "quick\nsecond line"),
		BENCH_OPT_JSON(&v->json, "results"),
		BENCH_OPT_SEED(&v->seed, "seed"),
		BENCH_OPT_THREADS(&v->threads, 1, 8, "threads"),
		{ .name = "size", .arg = "BYTES", .help = "a size",
		  .type = BENCH_OPT_SIZE, .dst = &v->size, .min = 4096,
		  .max = 1 << 30 },
		{ .name = "any", .arg = "N", .type = BENCH_OPT_U64, .dst = &v->any },
		{ .name = "even", .arg = "N", .type = BENCH_OPT_CALL,
		  .dst = &v->even, .call = parse_even },
		BENCH_OPT_END,
	};

	_Static_assert(sizeof(o) <= sizeof(opts), "opts too small");
	memcpy(opts, o, sizeof(o));
	*table = opts;
	memset(v, 0, sizeof(*v));
	argv[argc++] = "common-check";
	va_start(ap, table);
	while ((a = va_arg(ap, const char *)))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return bench_opts_parse("common-check", opts, argc, argv);
}

static void check_opts(void)
{
	struct bench_opt *t;
	struct vals v;

	CHECK(parse(&v, &t, NULL) == 0 && !bench_opt_seen(t, "time") &&
	      !v.quick && !v.json);
	CHECK(parse(&v, &t, "--time", "0.25", "--quick", "--json", "x.json",
		    "--seed=0x10", "--threads", "8", "--size", "2M",
		    "--even", "4", NULL) == 0);
	CHECK(v.seconds == 0.25 && v.quick && !strcmp(v.json, "x.json") &&
	      v.seed == 16 && v.threads == 8 && v.size == 2 << 20 &&
	      v.even == 4);
	CHECK(bench_opt_seen(t, "time") && bench_opt_seen(t, "quick") &&
	      bench_opt_seen(t, "even") && !bench_opt_seen(t, "nosuch"));
	/* seen is reset by each parse; --quick sets an unset --time */
	CHECK(parse(&v, &t, "--quick", NULL) == 0 && !bench_opt_seen(t, "time") &&
	      v.seconds == 0.5);
	CHECK(parse(&v, &t, "--time", "2", "--quick", NULL) == 0 && v.seconds == 2);
	CHECK(parse(&v, &t, "--time", "2", NULL) == 0 && v.seconds == 2 && !v.quick);
	CHECK(parse(&v, &t, "--any", "0", NULL) == 0 && v.any == 0);
	CHECK(parse(&v, &t, "--any", "18446744073709551615", NULL) == 0 &&
	      v.any == UINT64_MAX);
	fprintf(stderr, "common-check: errors expected below\n");
	CHECK(parse(&v, &t, "--time", "0", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--time", "3601", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--time", "1s", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--time", "nan", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--time", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--threads", "0", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--threads", "9", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--threads", "-1", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--seed", "18446744073709551616", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--size", "1K", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--size", "2G", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--even", "3", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--nosuch", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--quick=1", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "operand", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "-q", NULL) == -EINVAL);
	CHECK(parse(&v, &t, "--help", NULL) == 1);
	CHECK(parse(&v, &t, "-h", NULL) == 1);
}

enum colour { RED, GREEN, NR_COLOURS };
static const char *const colours[NR_COLOURS] = { [RED] = "red", [GREEN] = "green" };
const char *colour_name(enum colour v);
int colour_parse(const char *s, enum colour *out);
BENCH_NAMED_ENUM(enum colour, colours, NR_COLOURS, colour_name, colour_parse)

static void check_names(void)
{
	enum colour c = RED;

	CHECK(colour_parse("green", &c) == 0 && c == GREEN);
	CHECK(colour_parse("blue", &c) == -EINVAL && c == GREEN);
	CHECK(colour_parse(NULL, &c) == -EINVAL);
	CHECK(colour_parse("red", NULL) == -EINVAL);
	CHECK(!strcmp(colour_name(RED), "red") && !strcmp(colour_name(NR_COLOURS), "?"));
}

static void check_hist(void)
{
	static struct lat_hist a, b;
	uint64_t i, p;

	for (i = 1; i <= 1000; i++)
		lat_hist_add(i % 2 ? &a : &b, i * 1000);
	lat_hist_merge(&a, &b);
	CHECK(a.n == 1000 && a.max == 1000000);
	p = lat_hist_percentile(&a, 50);
	CHECK(p >= 500000 * 63 / 64 && p <= 500000 * 65 / 64);
	p = lat_hist_percentile(&a, 99);
	CHECK(p >= 990000 * 63 / 64 && p <= 990000 * 65 / 64);
	memset(&b, 0, sizeof(b));
	CHECK(lat_hist_percentile(&b, 50) == 0);
	lat_hist_add(&b, 5);
	CHECK(lat_hist_percentile(&b, 100) == 5);
}

/*
 * The median and its interval: ranks against the binomial table (95%: 1
 * of 6, 2 of 10, 6 of 20, 7 of 23), and a pairing that skips rounds with
 * a value not above 0 and keeps each round's own ratio.
 */
static void check_stats(void)
{
	double v[] = { 3, 1, 2, 5, 4, 6 };
	double a[] = { 4, 9, 0, 8, 6, 20 }, b[] = { 2, 3, 5, 2, 1, 4 };
	double m, lo, hi;

	CHECK(bench_median(v, 0) == 0.0);
	CHECK(bench_median(v, 5) == 3.0);
	CHECK(v[0] == 1 && v[4] == 5);
	CHECK(bench_median(v, 6) == 3.5);
	CHECK(bench_median_ci_rank(1) == 1);
	CHECK(bench_median_ci_rank(5) == 1);
	CHECK(bench_median_ci_rank(6) == 1);
	CHECK(bench_median_ci_rank(10) == 2);
	CHECK(bench_median_ci_rank(20) == 6);
	CHECK(bench_median_ci_rank(23) == 7);
	/* Ratios 2, 3, (skipped), 4, 6, 5: median 4, whole range under 6. */
	CHECK(bench_paired_median(a, b, 6, &m, &lo, &hi) == 5);
	CHECK(m == 4.0 && lo == 2.0 && hi == 6.0);
	CHECK(bench_paired_median(a, b, 0, &m, &lo, &hi) == 0);
	CHECK(m == 0.0 && lo == 0.0 && hi == 0.0);
}

int main(void)
{
	const char *dir = getenv("TMPDIR");

	check_json(dir && *dir ? dir : "/tmp");
	check_size();
	check_fraction();
	check_opts();
	check_hist();
	check_stats();
	check_names();
	printf("common-check: %d checks failed\n", failures);
	return failures ? 1 : 0;
}
