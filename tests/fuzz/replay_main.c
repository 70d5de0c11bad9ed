// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * replay_main.c - run inputs through LLVMFuzzerTestOneInput without
 * libFuzzer, so that make check replays the seed corpus under gcc and the
 * sanitizer build.
 *
 *   fuzz-replay [FILE|DIR]...     each file, and each file in each directory
 *                                 (default: $srcdir/tests/fuzz/corpus)
 *   fuzz-replay --write-seeds DIR write the seed corpus into DIR
 *
 * The seeds are made from a fixed generator, so the same binary always
 * writes the same files: for each area, inputs of several lengths whose
 * bytes are random (every byte string decodes to calls), and a few built op
 * by op for paths random bytes rarely reach.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned long nr_inputs;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f) {
		fprintf(stderr, "fuzz-replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 4096);

			if (!nb) {
				fclose(f);
				free(buf);
				return -1;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	nr_inputs++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of @dir, in name order (so that runs are reproducible). */
static int run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;
	int ret = 0;

	if (!d) {
		fprintf(stderr, "fuzz-replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char **nn;

		if (e->d_name[0] == '.')
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!names[n])
			break;
		sprintf(names[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		if (run_file(names[i]))
			ret = -1;
		free(names[i]);
	}
	free(names);
	return ret;
}

static int run_path(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		fprintf(stderr, "fuzz-replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return S_ISDIR(st.st_mode) ? run_dir(path) : run_file(path);
}

/* --- seeds ---------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

static int write_seed(const char *dir, const char *name, const uint8_t *b,
		      size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "fuzz-replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static const char *const area_names[FZ_NR_AREAS] = {
	"cache", "itree", "reqq", "slots", "attr", "iocomp",
};

/*
 * Built seeds: a cache whose 2 ranges get pinned, then a blocking map that
 * must time out; a reqq whose device completes synchronously and refuses.
 */
static const uint8_t seed_cache_full[] = {
	FZ_AREA_CACHE,
	0x13, 0x09, 0x28, 0x00,		/* 2 ranges of 2 MiB, threshold 20% */
	0x02, 0x00, 0x00, 0x00, 0x00,	/* map ino 0 idx 0 */
	0x02, 0x04, 0x01, 0x00, 0x00,	/* map ino 0 idx 1, WRITE */
	0x02, 0x08, 0x20, 0x00, 0x00,	/* map ino 0 idx 2: short wait, times out */
	0x02, 0x08, 0x02, 0x00, 0x00,	/* NOWAIT: -EAGAIN */
	0x08, 0x01,			/* write through pin 1 */
	0x07, 0x04, 0x06,		/* punch over a pin: -EBUSY */
	0x05, 0x00, 0x05, 0x01,		/* unpin both */
	0x07, 0x00, 0x02,		/* punch everything */
	0x02, 0x00, 0x00, 0x00, 0x00,	/* a miss again */
};

static const uint8_t seed_reqq_sync[] = {
	FZ_AREA_REQQ, 0x20,		/* cap 2 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x02,	/* submit 0, 1, 2 (2 parks) */
	0x06, 0x02,			/* refuse after completing */
	0x00, 0x03, 0x00, 0x04,		/* submit 3, 4 */
	0x05, 0x01, 0x03, 0x00,		/* fail the 2nd next call; complete */
	0x06, 0x01,			/* synchronous completions */
	0x00, 0x05, 0x03, 0x00, 0x07, 0x07,	/* submit, complete, shutdown */
};

/* Runs of inserts that split nodes, thinning, and removal of everything. */
static const uint8_t seed_itree_grow[] = {
	FZ_AREA_ITREE,
	0x07, 100, 0, 0, 3, 5,		/* 108 intervals from 0, stride 1 */
	0x04, 1, 0, 0,			/* walk [0, 0] */
	0x77, 1, 0,			/* remove every second */
	0x07, 60, 2, 1, 3, 0x10, 9,	/* 68 more, stride 3 */
	0x77, 0, 0,			/* remove all (every one) */
	0x07, 120, 7, 3, 0, 0,		/* 128 from 0, stride 8 */
	0xf7,				/* remove everything, from the back */
};

int main(int argc, char **argv)
{
	int i, ret = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	if (argc == 3 && !strcmp(argv[1], "--write-seeds")) {
		static const size_t lens[] = { 8, 24, 64, 160, 400, 1000 };
		uint8_t buf[1000];
		char name[64];
		unsigned int a, l, v;

		mkdir(argv[2], 0777);
		for (a = 0; a < FZ_NR_AREAS; a++)
			for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
				for (v = 0; v < 2; v++) {
					size_t k;

					buf[0] = (uint8_t)a;
					for (k = 1; k < lens[l]; k++)
						buf[k] = rnd();
					snprintf(name, sizeof(name), "%s-%04zu-%u",
						 area_names[a], lens[l], v);
					if (write_seed(argv[2], name, buf, lens[l]))
						return 1;
				}
		if (write_seed(argv[2], "cache-full-window", seed_cache_full,
			       sizeof(seed_cache_full)) ||
		    write_seed(argv[2], "reqq-sync-refuse", seed_reqq_sync,
			       sizeof(seed_reqq_sync)) ||
		    write_seed(argv[2], "itree-grow-and-thin", seed_itree_grow,
			       sizeof(seed_itree_grow)))
			return 1;
		return 0;
	}
	if (argc < 2) {
		const char *srcdir = getenv("srcdir");
		char path[4096];

		snprintf(path, sizeof(path), "%s/tests/fuzz/corpus",
			 srcdir ? srcdir : ".");
		ret = run_path(path);
	}
	for (i = 1; i < argc; i++)
		if (run_path(argv[i]))
			ret = -1;
	printf("fuzz-replay: %lu inputs, no check failed\n", nr_inputs);
	return ret || !nr_inputs ? 1 : 0;
}
