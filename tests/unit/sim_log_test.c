// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_log_test.c - libdaxcache-sim's messages go where libdaxcache's go:
 * a refusal of dc_simbe_create() (a message of the simulation library's
 * own code) reaches the function given to dc_set_log_fn(), at its level
 * and with nothing on stderr, and goes to stderr again once the hook is
 * taken away.  Linked against the two shared libraries as a user links
 * them, not the in-tree core library, which holds both in one object.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <daxcache/daxcache.h>
#include <daxcache/simbe.h>

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "sim-log-test: FAIL: %s (line %d)\n",	\
			#cond, __LINE__);				\
		failures++;						\
	}								\
} while (0)

static int tag;
static unsigned int hook_calls;
static int hook_level;
static void *hook_priv;
static char hook_msg[256];

static void hook(void *priv, int level, const char *msg)
{
	hook_calls++;
	hook_level = level;
	hook_priv = priv;
	snprintf(hook_msg, sizeof(hook_msg), "%s", msg);
}

/*
 * Try to create a backend whose range_shift is out of range, with stderr
 * sent to a temporary file; returns what was written there (at most
 * @len - 1 bytes) and dc_simbe_create()'s answer in @ret.
 */
static void create_refused(char *err, size_t len, int *ret)
{
	struct dc_simbe_config cfg;
	struct dc_simbe *be = NULL;
	FILE *f = tmpfile();
	int saved;
	size_t n;

	err[0] = 0;
	*ret = 0;
	if (!f) {
		perror("sim-log-test: tmpfile");
		failures++;
		return;
	}
	CHECK(dc_simbe_config_init(&cfg, sizeof(cfg), 1ull << 30) == 0);
	cfg.range_shift = 50;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	CHECK(saved >= 0 && dup2(fileno(f), STDERR_FILENO) >= 0);
	*ret = dc_simbe_create(&cfg, sizeof(cfg), &be);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	n = fread(err, 1, len - 1, f);
	err[n] = 0;
	fclose(f);
	CHECK(be == NULL);
	dc_simbe_destroy(be);
}

int main(void)
{
	char err[512];
	int ret;

	/* With a hook: the message is the hook's, and only the hook's. */
	dc_set_log_fn(hook, &tag);
	create_refused(err, sizeof(err), &ret);
	CHECK(ret == -EINVAL);
	CHECK(hook_calls == 1);
	CHECK(hook_priv == &tag);
	CHECK(hook_level == 3);		/* an error, syslog's numbering */
	CHECK(strstr(hook_msg, "simbe: range_shift 50") != NULL);
	CHECK(err[0] == 0);
	if (hook_calls != 1 || err[0])
		fprintf(stderr, "sim-log-test: hook saw %u message(s) (last: \"%s\"); stderr had \"%s\"\n",
			hook_calls, hook_msg, err);

	/* Without: back to stderr, the default of the same sink. */
	dc_set_log_fn(NULL, NULL);
	create_refused(err, sizeof(err), &ret);
	CHECK(ret == -EINVAL);
	CHECK(hook_calls == 1);
	CHECK(strstr(err, "simbe: range_shift 50") != NULL);

	if (failures)
		return 1;
	printf("sim-log-test: libdaxcache-sim's message reached dc_set_log_fn()'s hook, and stderr without one\n");
	return 0;
}
