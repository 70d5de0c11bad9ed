// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daxvfsd: a virtio-fs backend with a DAX window, written for the guest
 * tests (tests/virtiofs/run).  It listens on a UNIX socket for one
 * vhost-user front-end (QEMU's vhost-user-test-device-pci with
 * virtio-id=26), serves DIR to the guest through FUSE, and declares a DAX
 * window of WINDOW bytes (shared memory region 0).
 *
 *   daxvfsd --socket PATH --dir DIR [--window BYTES] [--tag TAG]
 *           [--workers N] [--counts FILE] [--counts-on-lookup]
 *
 * --counts FILE: the FUSE requests counted by opcode ("SETUPMAPPING 12"),
 * written when the front-end goes away and on SIGUSR1.
 * --counts-on-lookup: the guest looking up .daxvfsd-counts-N in the share's
 * root makes daxvfsd write the counts to that file first (the benchmark
 * reads them between measurements).
 * DAXVFSD_BREAK_MAPPING=1 (the negative test only): every SETUPMAPPING maps
 * the start of the file instead of the offset asked for.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daxvfsd.h"

static const char *counts_path;

static void *signal_thread(void *arg)
{
	sigset_t *set = arg;
	int sig;

	for (;;) {
		if (sigwait(set, &sig) == 0 && sig == SIGUSR1 && counts_path)
			fs_write_counts(counts_path);
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: daxvfsd --socket PATH --dir DIR [--window BYTES] [--tag TAG]"
		" [--workers N] [--counts FILE] [--counts-on-lookup]"
		" [--map-cost MICROSECONDS]\n");
	exit(2);
}

/* --map-cost's microseconds: at most 10 s. */
static unsigned int parse_map_cost(const char *v)
{
	char *end;
	unsigned long us = strtoul(v, &end, 10);

	if (!*v || *end || us > 10000000)
		usage();
	return us;
}

int main(int argc, char **argv)
{
	const char *sock_path = NULL, *dir = NULL, *tag = "daxvfs", *brk;
	struct vu_device dev = { .window = 64ull << 20, .num_queues = 2, .workers = 4 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lookup_counts = 0;
	uint8_t config[40];
	static sigset_t set;
	pthread_t t;
	int i, lfd, sock;

	for (i = 1; i < argc; i += 2) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--counts-on-lookup")) {
			lookup_counts = 1;
			i--;
			continue;
		}

		if (!v)
			usage();
		if (!strcmp(argv[i], "--socket"))
			sock_path = v;
		else if (!strcmp(argv[i], "--dir"))
			dir = v;
		else if (!strcmp(argv[i], "--window"))
			dev.window = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "--tag"))
			tag = v;
		else if (!strcmp(argv[i], "--workers"))
			dev.workers = atoi(v);
		else if (!strcmp(argv[i], "--counts"))
			counts_path = v;
		else if (!strcmp(argv[i], "--map-cost"))
			fs_set_map_cost(parse_map_cost(v));
		else
			usage();
	}
	if (!sock_path || !dir || dev.workers < 1 || !dev.window ||
	    (dev.window & (dev.window - 1)) || strlen(tag) > 36 ||
	    strlen(sock_path) >= sizeof(sa.sun_path))
		usage();
	brk = getenv("DAXVFSD_BREAK_MAPPING");
	if (fs_init(dir, dev.window, brk && !strcmp(brk, "1"), lookup_counts)) {
		perror(dir);
		return 1;
	}
	if (brk && !strcmp(brk, "1"))
		fprintf(stderr, "daxvfsd: DAXVFSD_BREAK_MAPPING=1: SETUPMAPPING maps the wrong offset\n");

	/* virtio-fs config space: tag[36], le32 num_request_queues. */
	memset(config, 0, sizeof(config));
	memcpy(config, tag, strlen(tag));
	config[36] = dev.num_queues - 1;
	dev.config = config;
	dev.config_len = sizeof(config);

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, signal_thread, &set))
		return 1;

	strcpy(sa.sun_path, sock_path);
	unlink(sock_path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 1) < 0) {
		perror(sock_path);
		return 1;
	}
	fprintf(stderr, "daxvfsd: listening on %s, serving %s, window %llu bytes\n",
		sock_path, dir, (unsigned long long)dev.window);
	do
		sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (sock < 0 && errno == EINTR);
	if (sock < 0) {
		perror("accept");
		return 1;
	}
	close(lfd);
	unlink(sock_path);
	vu_serve(sock, &dev);
	fs_finish();
	if (counts_path)
		fs_write_counts(counts_path);
	fprintf(stderr, "daxvfsd: front-end gone, exiting\n");
	return 0;
}
