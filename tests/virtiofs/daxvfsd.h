/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxvfsd: a virtio-fs backend with a DAX window, for the guest tests
 * (tests/virtiofs/run).  vhost.c speaks vhost-user to the VMM; fs.c serves
 * the FUSE requests from a host directory; main.c starts both.
 */
#ifndef DAXVFSD_H
#define DAXVFSD_H

#include <stddef.h>
#include <stdint.h>

struct vu_device {
	const uint8_t *config;	/* the virtio-fs config space */
	uint32_t config_len;
	uint64_t window;	/* bytes of shared memory region 0: the DAX window */
	uint64_t num_queues;
	int workers;		/* threads serving requests */
};

/* Serve the front-end on sock until it goes away. */
void vu_serve(int sock, const struct vu_device *dev);

/* Map fd's [fd_offset, fd_offset + len) at shm_offset of the window. */
int vu_shmem_map(int fd, uint64_t fd_offset, uint64_t shm_offset, uint64_t len, int writable);
/* Remove the mapping at [shm_offset, shm_offset + len): exactly one. */
int vu_shmem_unmap(uint64_t shm_offset, uint64_t len);

/* Serve one FUSE request (in: in_len bytes); the reply's length in out. */
size_t fs_request(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_max);
int fs_init(const char *dir, uint64_t window, int break_mapping, int lookup_counts);
/* Make each SETUPMAPPING and REMOVEMAPPING take at least us microseconds. */
void fs_set_map_cost(unsigned int us);
/* Cut off the padding of the files mapped past their end. */
void fs_finish(void);
/* Write "OPCODE COUNT" lines, one per opcode seen, to path. */
void fs_write_counts(const char *path);

#endif
