/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_cache.h - the cache area's world: a cache over the simulation
 * backend, and what the harness knows about it.
 */
#ifndef DC_FUZZ_CACHE_H
#define DC_FUZZ_CACHE_H

#include "fuzz.h"

#include <daxcache/cache.h>
#include <daxcache/simbe.h>

#define FZ_NINO		4	/* inode slots */
#define FZ_NIDX		8	/* file ranges per inode the ops reach */
#define FZ_NPIN		16	/* pins held at once */

struct fz_pin {
	bool used;
	unsigned int ino;	/* inode slot */
	unsigned int idx;	/* file range index */
	uint64_t file_off;
	struct dc_pin pin;
};

struct fz_world {
	struct dc_cache *cache;
	struct dc_simbe *be;
	struct dc_cache_config cfg;
	struct dc_backend_ops ops;	/* a copy: remove/writeback may be absent */
	uint64_t rs;			/* range size */
	unsigned int nr;		/* ranges */
	struct dc_inode *inode[FZ_NINO];
	unsigned int refs[FZ_NINO];
	uint64_t id[FZ_NINO];
	/* [ino][idx]: certainly not mapped (nothing mapped it since a punch) */
	bool unmapped[FZ_NINO][FZ_NIDX];
	struct fz_pin pins[FZ_NPIN];
	/* faults armed at some point of this input */
	bool setup_faults, remove_faults, writeback_faults;
	int setup_err, writeback_err;
	uint64_t hits, misses;		/* the counters as last seen */
	uint64_t rofs_writes;		/* writes to read-only mappings (-EROFS) */
};

/*
 * fz_cache_create() - decode configs until one is valid, checking that each
 * bad one is refused with -EINVAL; then create the backend and the cache.
 */
void fz_cache_create(struct fz_in *in, struct fz_world *w);

#endif /* DC_FUZZ_CACHE_H */
