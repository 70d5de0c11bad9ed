/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache_admit_types.h - admission control's state (cache_admit.c's): struct dci_admit, and
 * a miss as it saw it (struct dci_admit_cand).
 */
#ifndef DCI_CACHE_ADMIT_TYPES_H
#define DCI_CACHE_ADMIT_TYPES_H

#include "platform.h"

/*
 * Admission control (cache_admit.c), allocated under DC_ADMIT_FREQ only.
 * A count-min sketch of one-byte counters (saturating at 255) with two
 * hashes of (inode id, range index), halved every @sample increments, and a
 * direct-mapped table of recent misses (the ghost): in each slot a miss's
 * fingerprint, its position in its range and the forward steps that led
 * there (stream recognition), one 64-bit word.  Every update is on a miss
 * or a victim scan, never on a hit, and takes no lock: counters and ghost
 * slots are read and written with relaxed single-copy atomic accesses, and
 * a racing update may be lost (see cache_admit.c, "Races").  @lock is
 * taken only with a trylock, by the one thread that halves the sketch; it
 * is innermost (the hand counts hits under the pool lock).  @incs, which
 * every miss writes, has a line of its own, away from the read-mostly
 * fields before it and what follows in struct dc_cache; the eviction
 * budget's two words share it (@aged is written by the halving, @evict_at
 * by an eviction the budget pays for, and both are read only by a miss
 * that could win its contest), so the budget adds no line to a miss's.
 */
struct dci_admit {
	dci_spinlock_t lock;
	uint8_t *sketch;
	uint64_t *ghost;
	uint32_t sketch_mask;
	uint32_t ghost_mask;
	uint32_t sample;		/* halve after this many */
	uint32_t interval;		/* cfg.admit_evict_interval; 0: no budget */
	/* Increments since the last halving (dci_inc_racy()). */
	uint32_t incs __dc_cacheline_aligned;
	/* The increments of the halvings before: @aged + @incs is the clock. */
	uint64_t aged;
	/* The budget: no eviction on a count before the clock reaches this. */
	uint64_t evict_at;
} __dc_cacheline_aligned;

/* A miss under admission control, as dci_admit_note_miss() saw it. */
struct dci_admit_cand {
	uint64_t ino;
	uint64_t index;
	unsigned int est;		/* its estimate, this miss included */
	bool recent;			/* it was in the ghost: missed recently */
	uint16_t stride;		/* of the stream it continues; 0: none */
	bool write;			/* a write: never worth a victim */
	bool weak;			/* @est loses even to a victim of 0 */
};

/*
 * Whether @cand loses a contest against any victim (dci_admit_contest()):
 * a write, or a read that is not a stream's next read and is either not
 * recent or too rarely referenced to pay for a setup over any victim.
 */
static inline bool dci_admit_cand_hopeless(const struct dci_admit_cand *cand)
{
	return cand->write || (!cand->stride && (!cand->recent || cand->weak));
}

#endif /* DCI_CACHE_ADMIT_TYPES_H */
