// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_attr.c - GETATTRs, invalidations and throughput of the two attribute
 * rules of <daxcache/attr.h>, side by side.
 *
 * One client runs a 75/25 random read/write mix of 4 KiB operations over one
 * file with a 1 s attribute timeout, against a simulated server: a GETATTR
 * costs a round trip (a busy-wait, 30 us by default), a read or a write a
 * smaller one, an invalidation (punching the inode's mappings) a little.
 * The server stamps every write with its clock; by default the writer does
 * not learn that mtime (as with FUSE), so a refresh after a write sees an
 * mtime it did not expect and invalidates.  As in a fio run with
 * --direct=1, there is no page cache to refill after an invalidation, so
 * its cost is the punch alone.
 *
 * Rows: the old rule (refresh on every read after a write), the new rule
 * (refresh on timeout only), and the new rule when the write's reply carries
 * the server's mtime.  The rules run in alternating slices of the measuring
 * time so that drift of the machine hits them alike.
 */
#include "platform.h"

#include <stdlib.h>

#include <daxcache/attr.h>

#include "../../lib/platform/prng.h"
#include "../common/json.h"
#include "../common/opts.h"

#define BLOCK		4096ull
#define FILE_SIZE	(1ull << 30)

struct cfg {
	double seconds;		/* per row */
	int slices;
	uint64_t getattr_ns, read_ns, write_ns, inval_ns, timeout_ns;
	uint64_t seed;
	const char *json;
};

struct row {
	const char *name;
	enum dc_attr_rule rule;
	bool writer_knows_mtime;
	/* results, summed over slices */
	uint64_t ops, reads, writes, getattrs, invals, elapsed_ns;
};

/* The simulated server and client of one row, kept across its slices. */
struct sim {
	struct dc_attr *attr;
	int64_t srv_mtime;
	uint64_t rng;
};

static void on_inval(void *data, const struct dc_attr_values *old,
		     const struct dc_attr_values *cur)
{
	const struct cfg *c = data;

	dci_delay_ns(c->inval_ns);	/* punch the mappings */
}

static void run_slice(const struct cfg *c, struct row *r, struct sim *s,
		      uint64_t ns)
{
	uint64_t start = dci_now_ns(), now = start, end = start + ns;

	while (now < end) {
		uint64_t pos = (dci_prng_next(&s->rng) % (FILE_SIZE / BLOCK)) * BLOCK;

		if (dci_prng_next(&s->rng) % 4) {
			uint64_t ver;

			if (dc_attr_read_check(s->attr, pos, BLOCK, now, &ver)) {
				struct dc_attr_values v = {
					.size = FILE_SIZE,
					.mtime_ns = s->srv_mtime,
					.ctime_ns = s->srv_mtime,
				};

				dci_delay_ns(c->getattr_ns);
				r->getattrs++;
				if (dc_attr_refresh(s->attr, &v, ver, dci_now_ns()) == 1)
					r->invals++;
			}
			dci_delay_ns(c->read_ns);
			r->reads++;
		} else {
			dci_delay_ns(c->write_ns);
			s->srv_mtime = (int64_t)dci_now_ns();
			dc_attr_note_write(s->attr, pos + BLOCK,
					   r->writer_knows_mtime ? s->srv_mtime :
					   DC_ATTR_MTIME_UNKNOWN, dci_now_ns());
			r->writes++;
		}
		r->ops++;
		now = dci_now_ns();
	}
	r->elapsed_ns += now - start;
}

static double per10k(uint64_t n, uint64_t ops)
{
	return ops ? (double)n * 10000.0 / (double)ops : 0.0;
}

static double ops_per_s(const struct row *r)
{
	return r->elapsed_ns ? (double)r->ops * 1e9 / (double)r->elapsed_ns : 0.0;
}

static int write_json(const struct cfg *c, const struct row *rows, int n)
{
	struct bench_json *j = bench_json_new();
	int i, ret;

	if (!j)
		return -1;
	bench_json_str(j, "bench", "attr");
	bench_json_obj(j, "config");
	bench_json_dbl(j, "seconds_per_rule", c->seconds, 3);
	bench_json_u64(j, "slices", (uint64_t)c->slices);
	bench_json_dbl(j, "getattr_us", c->getattr_ns / 1e3, 1);
	bench_json_dbl(j, "read_us", c->read_ns / 1e3, 1);
	bench_json_dbl(j, "write_us", c->write_ns / 1e3, 1);
	bench_json_dbl(j, "inval_us", c->inval_ns / 1e3, 1);
	bench_json_dbl(j, "timeout_ms", c->timeout_ns / 1e6, 1);
	bench_json_u64(j, "mix_read_pct", 75);
	bench_json_u64(j, "block", BLOCK);
	bench_json_u64(j, "file_size", FILE_SIZE);
	bench_json_end(j);
	bench_json_arr(j, "rows");
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		bench_json_obj(j, NULL);
		bench_json_str(j, "rule", r->name);
		bench_json_u64(j, "ops", r->ops);
		bench_json_dbl(j, "getattrs_per_10k", per10k(r->getattrs, r->ops), 2);
		bench_json_dbl(j, "invalidations_per_10k", per10k(r->invals, r->ops), 2);
		bench_json_dbl(j, "ops_per_s", ops_per_s(r), 1);
		bench_json_dbl(j, "speedup_vs_old", ops_per_s(r) / ops_per_s(&rows[0]), 4);
		bench_json_end(j);
	}
	ret = bench_json_save(j, c->json, "bench-attr");
	bench_json_free(j);
	return ret;
}

/* The option @dst (a uint64_t of ns) from a number of @scale ns. */
static int parse_scaled(const char *arg, uint64_t *dst, double scale)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 0) || v > 1e9)
		return -EINVAL;
	*dst = (uint64_t)(v * scale);
	return 0;
}

static int parse_us(const char *arg, void *dst)
{
	return parse_scaled(arg, dst, 1e3);
}

static int parse_ms(const char *arg, void *dst)
{
	return parse_scaled(arg, dst, 1e6);
}

#define NS_OPT(n, d, fn, h) \
	{ .name = (n), .arg = "N", .type = BENCH_OPT_CALL, .dst = (d), \
	  .call = (fn), .help = (h) }

int main(int argc, char **argv)
{
	struct cfg c = {
		.seconds = 3.0, .slices = 6, .getattr_ns = 30000, .read_ns = 10000,
		.write_ns = 15000, .inval_ns = 2000, .timeout_ns = 1000000000ull,
		.seed = 1, .json = NULL,
	};
	bool quick = false;
	struct bench_opt opts[] = {
		BENCH_OPT_TIME(&c.seconds, 0.5, "measuring time per rule (default 3 s; --quick: 0.5 s)"),
		BENCH_OPT_QUICK(&quick, "0.5 s per rule in 2 slices"),
		BENCH_OPT_JSON(&c.json, "results file (default: none)"),
		NS_OPT("getattr-us", &c.getattr_ns, parse_us,
		       "cost of a GETATTR round trip (default 30)"),
		NS_OPT("read-us", &c.read_ns, parse_us, "cost of a 4 KiB read (default 10)"),
		NS_OPT("write-us", &c.write_ns, parse_us, "cost of a 4 KiB write (default 15)"),
		NS_OPT("inval-us", &c.inval_ns, parse_us, "cost of an invalidation (default 2)"),
		NS_OPT("timeout-ms", &c.timeout_ns, parse_ms,
		       "attribute timeout (default 1000)"),
		BENCH_OPT_SEED(&c.seed, "the generator's seed (default 1)"),
		BENCH_OPT_END,
	};
	struct row rows[] = {
		{ .name = "old: every read",	.rule = DC_ATTR_RULE_EVERY_READ },
		{ .name = "new: on timeout",	.rule = DC_ATTR_RULE_TIMEOUT },
		{ .name = "new, mtime known",	.rule = DC_ATTR_RULE_TIMEOUT,
		  .writer_knows_mtime = true },
	};
	const int nrows = (int)DCI_ARRAY_SIZE(rows);
	struct sim sims[DCI_ARRAY_SIZE(rows)];
	uint64_t wall;
	int i, k;

	bench_opts_main("bench-attr", opts, argc, argv);
	if (quick)
		c.slices = 2;

	for (k = 0; k < nrows; k++) {
		struct dc_attr_config p = {
			.timeout_ns = c.timeout_ns, .rule = rows[k].rule,
			.auto_inval = true, .invalidate = on_inval, .data = &c,
		};

		if (dc_attr_create(&p, sizeof(p), &sims[k].attr)) {
			fprintf(stderr, "dc_attr_create failed\n");
			return 1;
		}
		sims[k].srv_mtime = 1;
		sims[k].rng = c.seed * 0x9e3779b97f4a7c15ull + 1;
	}
	wall = dci_now_ns();
	for (i = 0; i < c.slices; i++)
		for (k = 0; k < nrows; k++)
			run_slice(&c, &rows[k], &sims[k],
				  (uint64_t)(c.seconds * 1e9 / c.slices));
	wall = dci_now_ns() - wall;

	printf("attr: 75/25 random 4 KiB read/write, one file, attribute timeout %.0f ms\n"
	       "      GETATTR %.0f us, read %.0f us, write %.0f us, invalidation %.0f us; %.1f s per rule in %d slices\n\n",
	       c.timeout_ns / 1e6, c.getattr_ns / 1e3, c.read_ns / 1e3,
	       c.write_ns / 1e3, c.inval_ns / 1e3, c.seconds, c.slices);
	printf("%-18s %10s %14s %14s %12s %9s\n", "rule", "ops",
	       "GETATTR/10k", "inval/10k", "ops/s", "vs old");
	for (k = 0; k < nrows; k++) {
		const struct row *r = &rows[k];

		printf("%-18s %10llu %14.1f %14.1f %12.0f %8.2fx\n", r->name,
		       (unsigned long long)r->ops, per10k(r->getattrs, r->ops),
		       per10k(r->invals, r->ops), ops_per_s(r),
		       ops_per_s(r) / ops_per_s(&rows[0]));
	}
	/* The attributes age in wall time, across the other rows' slices. */
	printf("\nnew rule: %llu GETATTRs in %.1f s of wall time (bound: one per timeout, %.0f)\n",
	       (unsigned long long)rows[1].getattrs, wall / 1e9,
	       (double)wall / (double)c.timeout_ns + 1);
	if (c.json && write_json(&c, rows, nrows))
		return 1;
	for (k = 0; k < nrows; k++)
		dc_attr_destroy(sims[k].attr);
	return 0;
}
