// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cache_admit.c - admission control: whether a miss that would evict a
 * mapping deserves it, or should be answered DC_MAP_BYPASS.
 *
 * Two pieces of history, both updated only off the hit path:
 *
 * - a count-min sketch of how often each file range (inode id, range index)
 *   was referenced lately: +1 on each miss (mapped or bypassed), and +1 when
 *   the victim scan (the CLOCK hand, or the own-inode walk of inline reclaim)
 *   finds a mapped range's accessed bit set.  Counters saturate at
 *   DC_ADMIT_MAX and are all halved every @sample increments, so the counts
 *   follow recent behaviour.
 * - the ghost: a direct-mapped table of fingerprints of recent misses,
 *   about two windows' worth, that tells a re-reference at a short distance
 *   (a range missed again before a window's worth of other misses passed)
 *   from the long-distance re-references of a uniform spread.
 *
 * A contested miss (no free range) is admitted when it is in the ghost and
 * its count beats the victim's (see dc_admit_contest()).
 */
#include "cache_internal.h"

#define DC_ADMIT_MAX		255u	/* counters saturate here */
#define DC_ADMIT_SKETCH_PER_RANGE 8u	/* counters per window range */
#define DC_ADMIT_SKETCH_MIN	256u
#define DC_ADMIT_SKETCH_MAX	(1u << 22)
#define DC_ADMIT_SAMPLE_PER_RANGE 10u	/* halve after 10 increments per window range */
#define DC_ADMIT_SAMPLE_MIN	64u
#define DC_ADMIT_GHOST_PER_RANGE 1u	/* ghost slots per window range */
#define DC_ADMIT_GHOST_MIN	16u
#define DC_ADMIT_GHOST_MAX	(1u << 22)
#define DC_ADMIT_MARGIN		2u	/* the candidate must beat the victim by this */

/* The smallest power of two >= @n, within [@lo, @hi] (powers of two). */
static uint32_t pow2_clamp(uint64_t n, uint32_t lo, uint32_t hi)
{
	uint32_t p = lo;

	while (p < n && p < hi)
		p <<= 1;
	return p;
}

/* A 64-bit mix (the splitmix64 finalizer). */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static inline uint64_t key_hash(uint64_t ino, uint64_t index)
{
	return mix64(mix64(ino + 0x9e3779b97f4a7c15ull) ^ index);
}

int dc_admit_init(struct dc_cache *c)
{
	struct dc_admit *a = &c->adm;
	uint32_t ns, ng;

	if (c->cfg.admit != DC_ADMIT_FREQ)
		return 0;
	ns = pow2_clamp((uint64_t)c->nr_ranges * DC_ADMIT_SKETCH_PER_RANGE,
			DC_ADMIT_SKETCH_MIN, DC_ADMIT_SKETCH_MAX);
	ng = pow2_clamp((uint64_t)c->nr_ranges * DC_ADMIT_GHOST_PER_RANGE,
			DC_ADMIT_GHOST_MIN, DC_ADMIT_GHOST_MAX);
	a->sketch = dc_zalloc(ns);
	a->ghost = dc_zalloc((size_t)ng * sizeof(*a->ghost));
	if (!a->sketch || !a->ghost) {
		dc_free(a->sketch);
		dc_free(a->ghost);
		a->sketch = NULL;
		a->ghost = NULL;
		return -ENOMEM;
	}
	a->sketch_mask = ns - 1;
	a->ghost_mask = ng - 1;
	a->sample = (uint64_t)c->nr_ranges * DC_ADMIT_SAMPLE_PER_RANGE;
	if (a->sample < DC_ADMIT_SAMPLE_MIN)
		a->sample = DC_ADMIT_SAMPLE_MIN;
	dc_spin_lock_init(&a->lock);
	return 0;
}

void dc_admit_fini(struct dc_cache *c)
{
	struct dc_admit *a = &c->adm;

	if (!a->sketch)
		return;
	dc_spin_lock_destroy(&a->lock);
	dc_free(a->sketch);
	dc_free(a->ghost);
	a->sketch = NULL;
	a->ghost = NULL;
}

/* The two counters of a key: the low and the high half of its hash. */
static inline void slots_of(const struct dc_admit *a, uint64_t h,
			    uint32_t *s0, uint32_t *s1)
{
	*s0 = (uint32_t)h & a->sketch_mask;
	*s1 = (uint32_t)(h >> 32) & a->sketch_mask;
}

static inline unsigned int estimate_locked(const struct dc_admit *a, uint64_t h)
{
	uint32_t s0, s1;

	slots_of(a, h, &s0, &s1);
	return a->sketch[s0] < a->sketch[s1] ? a->sketch[s0] : a->sketch[s1];
}

/* Halve every counter: old references weigh half as much as new ones. */
static void age_locked(struct dc_admit *a)
{
	uint32_t i;

	for (i = 0; i <= a->sketch_mask; i++)
		a->sketch[i] >>= 1;
	a->incs = 0;
}

/*
 * Count one reference: both counters, as the conservative update of a
 * count-min sketch does (only those at the minimum grow), so that a
 * collision inflates an estimate as little as it can.
 */
static void count_locked(struct dc_admit *a, uint64_t h)
{
	unsigned int est = estimate_locked(a, h);
	uint32_t s0, s1;

	if (est >= DC_ADMIT_MAX)
		return;
	slots_of(a, h, &s0, &s1);
	if (a->sketch[s0] == est)
		a->sketch[s0]++;
	if (a->sketch[s1] == est)
		a->sketch[s1]++;
	if (++a->incs >= a->sample)
		age_locked(a);
}

/* A non-zero fingerprint from bits of the hash the slots do not use. */
static inline uint32_t fingerprint(uint64_t h)
{
	return (uint32_t)(mix64(h) >> 32) | 1u;
}

/**
 * dc_admit_note_miss() - count a miss under admission control.
 * @c: the cache (admit policy DC_ADMIT_FREQ).
 * @ino: the inode id.
 * @index: the range index.
 * @cand: receives what the decision needs: whether the range was missed
 *	recently (in the ghost, which now records it) and its estimate with
 *	this miss counted.
 *
 * Context: the inode mutex held; takes the admission lock.
 */
void dc_admit_note_miss(struct dc_cache *c, uint64_t ino, uint64_t index,
			struct dc_admit_cand *cand)
{
	struct dc_admit *a = &c->adm;
	uint64_t h = key_hash(ino, index);
	uint32_t fp = fingerprint(h);
	uint32_t g = (uint32_t)(h >> 17) & a->ghost_mask;

	cand->ino = ino;
	cand->index = index;
	dc_spin_lock(&a->lock);
	cand->recent = a->ghost[g] == fp;
	a->ghost[g] = fp;
	count_locked(a, h);
	cand->est = estimate_locked(a, h);
	dc_spin_unlock(&a->lock);
}

/**
 * dc_admit_seen() - count a reference to a mapped range, seen by the victim
 *	scan as its accessed bit (which the scan then clears).
 * @c: the cache.
 * @ino: the inode id.
 * @index: the range index.
 *
 * Does nothing unless the admit policy is DC_ADMIT_FREQ.
 *
 * Context: any lock but the admission lock held; never sleeps.
 */
void dc_admit_seen(struct dc_cache *c, uint64_t ino, uint64_t index)
{
	struct dc_admit *a = &c->adm;

	if (!a->sketch)
		return;
	dc_spin_lock(&a->lock);
	count_locked(a, key_hash(ino, index));
	dc_spin_unlock(&a->lock);
}

/**
 * dc_admit_contest() - decide a contested miss against its victim.
 * @c: the cache (admit policy DC_ADMIT_FREQ).
 * @cand: the miss, from dc_admit_note_miss().
 * @victim_ino: the inode id of the idle mapping that would be reclaimed.
 * @victim_index: its range index.
 *
 * Admit only a read that was missed recently (short re-reference distance)
 * and is referenced more than the victim by DC_ADMIT_MARGIN.  Near-ties keep
 * the victim: swapping two ranges of about equal worth costs a setup and
 * gains nothing.  A write never wins: it would make the new mapping
 * writable, and a writable mapping costs a writeback before its reclaim,
 * while a direct write costs no more than a write through the window.
 *
 * Context: the mapping inode's mutex held; takes the admission lock.
 * Return: true to map the miss over the victim, false to bypass.
 */
bool dc_admit_contest(struct dc_cache *c, const struct dc_admit_cand *cand,
		      uint64_t victim_ino, uint64_t victim_index)
{
	struct dc_admit *a = &c->adm;
	unsigned int vest;

	if (cand->write || !cand->recent)
		return false;
	dc_spin_lock(&a->lock);
	vest = estimate_locked(a, key_hash(victim_ino, victim_index));
	dc_spin_unlock(&a->lock);
	return cand->est >= vest + DC_ADMIT_MARGIN;
}
