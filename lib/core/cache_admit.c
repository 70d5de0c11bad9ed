// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: cache_admit.c - admission control: whether a miss that would evict a
 * mapping deserves it, or should be answered DC_MAP_BYPASS.
 *
 * Two pieces of history, both updated only off the hit path:
 *
 * - a count-min sketch of how often each file range (inode id, range index)
 *   was referenced lately: +1 on each miss (mapped or bypassed), +1 for
 *   each hit of a mapped range (counted in the range's own cache line by
 *   the hit, which writes it anyway, and taken into the sketch when the
 *   victim scan, the hand or the own-inode walk of inline reclaim, passes
 *   the range, whatever the victim policy; the hits of a stream's pass
 *   through a range it mapped count as one, see stream_stride()), and +1 on
 *   each write to a read-only mapping while no range is free
 *   (dci_admit_write_hit(): a range written often enough is upgraded).
 *   Counters saturate at DCI_ADMIT_MAX and are all halved every @sample
 *   increments, so the counts follow recent behaviour.
 * - the ghost: a direct-mapped table of fingerprints of recent misses,
 *   about two windows' worth, that tells a re-reference at a short distance
 *   (a range missed again before a window's worth of other misses passed)
 *   from the long-distance re-references of a uniform spread.
 *
 * A contested miss (no free range) is admitted when it is in the ghost and
 * its count leads the victim's by more than the client's setup cost, out
 * of the counts' noise (see dci_admit_contest()), or at once when it
 * continues a sequential stream (see stream_stride()): the ghost also
 * keeps where in its range each recent miss fell, and how many equal
 * forward steps in a row led there, which tells a stream's steps from the
 * scattered offsets of random reads.
 *
 * The eviction budget (cfg.admit_evict_interval, off by default): at most
 * one eviction by a miss admitted on its count per that many references
 * counted here, read off a clock that costs no store of its own (the
 * sketch's count of increments, and what the halvings took off it).  A
 * miss that would win while the budget is spent is bypassed, and without
 * the inode's mutex when no range is free, as a hopeless miss is (see
 * dci_admit_over_budget(), dci_admit_contest()).
 *
 * Races: nothing here takes a lock but the halving, which a trylock keeps
 * to one thread at a time (the admission lock, the innermost of the
 * cache's locks); a miss's note, the victim scan's hit counts, a contest
 * and a write hit read and write the counters, the ghost and the count
 * of increments with relaxed single-copy atomic accesses (dci_read_once(),
 * dci_write_once(), dci_inc_racy()), as Caffeine's TinyLFU sketch does.  A
 * miss that would be refused, most misses of a file larger than the
 * window, so costs no atomic read-modify-write and no line taken
 * exclusively but those it writes.  What two racing updates can do is lose
 * one of them: a counter, or the count of increments, one short (a
 * reference not counted, a halving a little late); a halving undone on
 * one counter by an increment that read it before (that counter too high
 * until the next halving: one reference's worth of weight per period in a
 * count-min of two counters); a ghost slot that keeps the other miss (one
 * word: a fingerprint never pairs with another miss's position).  Each is
 * one estimate off by about one reference, in a policy that admits only
 * leads that stand out of the counts' noise (DCI_ADMIT_NOISE), and a
 * wrong decision costs one setup or one bypass: never a wrong mapping,
 * since what is mapped is decided under the inode's mutex.  With one
 * thread every update is exact, as it was under the lock.
 *
 * Callers: cache_map.c (a miss is noted, and the budget asked before the
 * mutex), cache_reclaim.c (the victim scan's hit counts and the contest
 * of a miss against its victim), cache.c (setup and teardown).
 */
#include "cache_admit.h"
#include "cache_inode.h"
#include "cache_pool.h"

#define DCI_ADMIT_MAX		255u	/* counters saturate here */
#define DCI_ADMIT_SKETCH_PER_RANGE 8u	/* counters per window range */
#define DCI_ADMIT_SKETCH_MIN	256u
#define DCI_ADMIT_SKETCH_MAX	(1u << 22)
#define DCI_ADMIT_SAMPLE_PER_RANGE 10u	/* halve after 10 increments per window range */
#define DCI_ADMIT_SAMPLE_MIN	64u
#define DCI_ADMIT_SAMPLE_MAX	(1u << 27)	/* 8 halvings' increments fit 32 bits */
#define DCI_ADMIT_GHOST_PER_RANGE 1u	/* ghost slots per window range */
#define DCI_ADMIT_GHOST_MIN	16u
#define DCI_ADMIT_GHOST_MAX	(1u << 22)
/*
 * The lead over the victim that a contest asks beyond the setup cost must
 * stand out of the counts' noise: (lead - cost)^2 > DCI_ADMIT_NOISE * (the
 * two counts' sum), about 1.4 standard deviations of the difference of two
 * Poisson counts of those means.  Chosen by bench-hitratio (see
 * docs/design.md, "The rule"): 4 and 6 cut uniform churn little further
 * and cost the zipf and shift workloads 1-3 points of hits.
 */
#define DCI_ADMIT_NOISE		2u
#define DCI_ADMIT_UPGRADE_MIN	3u	/* a write hit upgrades at this estimate */
/*
 * Positions in a range, for stream recognition: 0..DCI_ADMIT_POS_N - 1 (the
 * offset in the range scaled to 16 bits: 32 bytes of a 2 MiB range).  A
 * forward step from the range's last miss of at most DCI_ADMIT_STRIDE_MAX
 * (just under 1/4 of the range: reads of up to 512 KiB in a 2 MiB range)
 * is a step of a stream when it is as long as the step before it (within
 * one position, for reads whose length the scaling rounds), and
 * DCI_ADMIT_RUN such steps in a row make one: the fourth read of a stream,
 * in its first range.  A step that crosses into the next range counts
 * when it lands where the last step of the range before predicts.
 */
#define DCI_ADMIT_POS_BITS	16u
#define DCI_ADMIT_POS_N		(1u << DCI_ADMIT_POS_BITS)
#define DCI_ADMIT_STRIDE_BITS	14u
#define DCI_ADMIT_STRIDE_MAX	((1u << DCI_ADMIT_STRIDE_BITS) - 1)
#define DCI_ADMIT_RUN		3u

/*
 * Whether a candidate of estimate @est beats a victim of estimate @vest
 * when a setup costs @cost: its lead pays for the setup, and what is left
 * of it stands out of the noise (see dci_admit_contest()).
 */
static bool lead_wins(unsigned int est, unsigned int vest, unsigned int cost)
{
	uint32_t lead;

	if (est <= vest + cost)
		return false;
	lead = est - vest - cost;
	return lead * lead > DCI_ADMIT_NOISE * (est + vest);
}

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

/* Free the sketch and the ghost (NULL: not allocated, or freed). */
static void admit_free(struct dci_admit *a)
{
	dci_free(a->sketch);
	dci_free(a->ghost);
	a->sketch = NULL;
	a->ghost = NULL;
}

int dci_admit_init(struct dc_cache *c)
{
	struct dci_admit *a = &c->adm;
	uint32_t ns, ng;
	uint64_t sample;

	if (c->cfg.admit != DC_ADMIT_FREQ)
		return 0;
	ns = pow2_clamp((uint64_t)c->nr_ranges * DCI_ADMIT_SKETCH_PER_RANGE,
			DCI_ADMIT_SKETCH_MIN, DCI_ADMIT_SKETCH_MAX);
	ng = pow2_clamp((uint64_t)c->nr_ranges * DCI_ADMIT_GHOST_PER_RANGE,
			DCI_ADMIT_GHOST_MIN, DCI_ADMIT_GHOST_MAX);
	a->sketch = dci_zalloc(ns);
	a->ghost = dci_zalloc((size_t)ng * sizeof(*a->ghost));
	if (!a->sketch || !a->ghost) {
		admit_free(a);
		return -ENOMEM;
	}
	a->sketch_mask = ns - 1;
	a->ghost_mask = ng - 1;
	sample = (uint64_t)c->nr_ranges * DCI_ADMIT_SAMPLE_PER_RANGE;
	if (sample < DCI_ADMIT_SAMPLE_MIN)
		sample = DCI_ADMIT_SAMPLE_MIN;
	/* Room above it for the increments of 8 halvings (age()). */
	a->sample = sample < DCI_ADMIT_SAMPLE_MAX ? (uint32_t)sample :
		    DCI_ADMIT_SAMPLE_MAX;
	a->incs = 0;
	a->aged = 0;
	/* 1 bounds nothing: every eviction follows a miss, a reference. */
	a->interval = c->cfg.admit_evict_interval > 1 ?
		      c->cfg.admit_evict_interval : 0;
	/* As if an eviction had been paid for at creation. */
	a->evict_at = a->interval;
	dci_spin_lock_init(&a->lock);
	return 0;
}

void dci_admit_fini(struct dc_cache *c)
{
	struct dci_admit *a = &c->adm;

	if (!a->sketch)
		return;
	dci_spin_lock_destroy(&a->lock);
	admit_free(a);
}

/* The two counters of a key: the low and the high half of its hash. */
static inline void slots_of(const struct dci_admit *a, uint64_t h,
			    uint32_t *s0, uint32_t *s1)
{
	*s0 = (uint32_t)h & a->sketch_mask;
	*s1 = (uint32_t)(h >> 32) & a->sketch_mask;
}

static inline unsigned int estimate(const struct dci_admit *a, uint64_t h)
{
	uint32_t s0, s1;
	unsigned int v0, v1;

	slots_of(a, h, &s0, &s1);
	v0 = dci_read_once(a->sketch[s0]);
	v1 = dci_read_once(a->sketch[s1]);
	return v0 < v1 ? v0 : v1;
}

/*
 * Halve every counter once per @sample references counted: old references
 * weigh half as much as new ones.  A batch of hits taken at once may span
 * several samples (at most 8 halvings: a counter is 8 bits).  One thread
 * at a time (the trylock: another that finds it held leaves the halving to
 * it); increments meanwhile may undo it on their counter, or be lost from
 * @incs (see "Races" above).  Returns whether it halved.
 */
static dci_noinline bool age(struct dci_admit *a)
{
	unsigned int shift = 0;
	uint32_t start, incs, i;

	if (!dci_spin_trylock(&a->lock))
		return false;
	start = dci_read_once(a->incs);
	incs = start;
	while (incs >= a->sample && shift < 8) {
		incs -= a->sample;
		shift++;
	}
	if (incs >= a->sample)
		incs = 0;
	/*
	 * The budget's clock keeps what the halving takes off @incs; a miss
	 * that reads it between the two stores sees it a halving's worth off.
	 */
	dci_write_once(a->aged, a->aged + (start - incs));
	dci_write_once(a->incs, incs);
	for (i = 0; shift && i <= a->sketch_mask; i++)
		dci_write_once(a->sketch[i],
			      (uint8_t)(dci_read_once(a->sketch[i]) >> shift));
	dci_spin_unlock(&a->lock);
	return shift;
}

/*
 * Count @n references: both counters, as the conservative update of a
 * count-min sketch does (only those below the new estimate grow to it),
 * so that a collision inflates an estimate as little as it can.  Every
 * reference counts towards the next halving, saturated or not.  Returns
 * the key's estimate with them counted (and halved, if this halved).
 */
static unsigned int count(struct dci_admit *a, uint64_t h, uint32_t n)
{
	uint32_t s0, s1, incs;
	unsigned int v0, v1, est;

	slots_of(a, h, &s0, &s1);
	v0 = dci_read_once(a->sketch[s0]);
	v1 = dci_read_once(a->sketch[s1]);
	est = v0 < v1 ? v0 : v1;
	if (est < DCI_ADMIT_MAX) {
		est = n < DCI_ADMIT_MAX - est ? est + n : DCI_ADMIT_MAX;
		if (v0 < est)
			dci_write_once(a->sketch[s0], (uint8_t)est);
		if (v1 < est)
			dci_write_once(a->sketch[s1], (uint8_t)est);
	}
	if (n == 1) {
		dci_inc_racy(a->incs);
		incs = dci_read_once(a->incs);
	} else {
		/* At most 8 halvings' worth: more would age no further. */
		incs = dci_read_once(a->incs) +
		       (n < 8 * a->sample ? n : 8 * a->sample);
		dci_write_once(a->incs, incs);
	}
	if (dci_unlikely(incs >= a->sample) && age(a))
		est = estimate(a, h);
	return est;
}

/*
 * The budget's clock: the references counted since the cache was created
 * (those of the halvings before, and those since the last), which takes no
 * store of its own: the miss and the victim scan count them anyway.
 */
static inline uint64_t refs_now(const struct dci_admit *a)
{
	return dci_read_once(a->aged) + dci_read_once(a->incs);
}

/* Whether the eviction budget refuses an eviction now. */
static inline bool budget_spent(const struct dci_admit *a)
{
	return a->interval && refs_now(a) < dci_read_once(a->evict_at);
}

/* A non-zero fingerprint from bits of the hash the slots do not use. */
static inline uint32_t fingerprint(uint64_t h)
{
	return (uint32_t)(mix64(h) >> 32) | 1u;
}

/* The ghost slot of a key. */
static inline uint32_t ghost_slot(const struct dci_admit *a, uint64_t h)
{
	return (uint32_t)(h >> 17) & a->ghost_mask;
}

/*
 * A ghost slot's word: the fingerprint of the miss (bits 32-63), the equal
 * forward steps in a row that led to it (bits 30-31, at most
 * DCI_ADMIT_RUN), the length of the last of them (bits 16-29; 0: the miss
 * was no step) and its position in its range (bits 0-15).  One word, read
 * and written once: a racing miss replaces the whole of it.
 */
#define DCI_ADMIT_RUN_SHIFT	(DCI_ADMIT_POS_BITS + DCI_ADMIT_STRIDE_BITS)

static inline uint64_t ghost_word(uint32_t fp, uint32_t run, uint32_t stride,
				  uint32_t pos)
{
	return (uint64_t)fp << 32 | run << DCI_ADMIT_RUN_SHIFT |
	       stride << DCI_ADMIT_POS_BITS | pos;
}

static inline uint32_t ghost_fp(uint64_t w)
{
	return (uint32_t)(w >> 32);
}

static inline uint32_t ghost_run(uint64_t w)
{
	return (uint32_t)w >> DCI_ADMIT_RUN_SHIFT;
}

static inline uint32_t ghost_stride(uint64_t w)
{
	return ((uint32_t)w >> DCI_ADMIT_POS_BITS) & DCI_ADMIT_STRIDE_MAX;
}

static inline uint32_t ghost_pos(uint64_t w)
{
	return (uint32_t)w & (DCI_ADMIT_POS_N - 1);
}

/*
 * The equal forward steps in a row that a step of @step positions after
 * the miss of ghost word @w ends (0: it is no step).  A step as long as
 * the one before it (within one position) extends that one's run; any
 * other forward step starts a run of one.
 */
static uint32_t step_run(uint64_t w, uint32_t step)
{
	uint32_t run = ghost_run(w), last = ghost_stride(w);

	if (!step || step > DCI_ADMIT_STRIDE_MAX)
		return 0;
	if (run && step + 1 >= last && step <= last + 1)
		return run < DCI_ADMIT_RUN ? run + 1 : DCI_ADMIT_RUN;
	return 1;
}

/*
 * The run that a miss at position @pos of range @index of @inode continues
 * from the range before: that range's last miss (still in the ghost) was a
 * step of a run, and a step as long from it lands here, to within one
 * position (a stream that crossed into this range).  *@step receives the
 * step.  Only for a @pos within DCI_ADMIT_STRIDE_MAX of the start.
 */
static uint32_t run_across(struct dci_admit *a, const struct dc_inode *inode,
			   uint64_t index, uint32_t pos, uint32_t *step)
{
	uint64_t h = key_hash(inode->id, index - 1);
	uint64_t w = dci_read_once(a->ghost[ghost_slot(a, h)]);

	if (ghost_fp(w) != fingerprint(h) || !ghost_run(w))
		return 0;
	*step = pos + DCI_ADMIT_POS_N - ghost_pos(w);
	return step_run(w, *step);
}

/*
 * The stride of the sequential stream that a miss at position @pos
 * continues, or 0 if it continues none, given @run, the equal forward
 * steps in a row that it ends, of @stride positions each (its range's
 * recent misses or, across the range boundary, those of the range before:
 * see step_run(), run_across()), and @prev, the mapping of the range
 * before, looked up when @pos is within DCI_ADMIT_STRIDE_MAX of the start
 * and @run falls short of a stream (else NULL).  A stream's miss is either
 *
 * - a stream's steps: DCI_ADMIT_RUN equal forward steps in a row, the
 *   last ending at this miss; or
 * - the start of a stream's next range: the range before was mapped by a
 *   stream's miss (its stride still recorded, see below), was hit since it
 *   was mapped or last passed by the victim scan (the stream read through
 *   it), and this miss is less than that stride from the start.
 *
 * Random reads rarely look like this.  Of their re-misses about 1/4 step
 * forward by less than DCI_ADMIT_STRIDE_MAX, and 4 KiB reads land on 512
 * positions of a range, so three equal steps in a row take about 1/10^6;
 * and a start within one 4 KiB stride of a range after one that a stream
 * mapped, 1/512 of the offsets there.  Steps of varied lengths are no
 * stream: a reader that draws blocks at random but skips those it has read
 * (fio's random map) steps forward through the last few blocks of each
 * pass, and while any two forward steps of up to 1/32 of a range in a row
 * counted, those mapped ranges all along.  A scan that reads
 * one page per range leaves the ranges it maps unaccessed.
 *
 * A range that a stream's miss maps keeps the stream's stride (struct
 * dci_range's @stream_stride): the stream reads it through, a hit a step,
 * and predicts no reuse by it, so the victim walks count those hits as one
 * reference a pass until a pass finds none (cache_reclaim.c's
 * seen_refs()).
 */
static uint32_t stream_stride(uint32_t run, uint32_t stride, uint32_t pos,
			      const struct dci_range *prev)
{
	uint32_t s;

	if (run >= DCI_ADMIT_RUN)
		return stride;
	if (!prev)
		return 0;
	s = dci_read_once(prev->stream_stride);
	return s && pos < s && dci_read_once(prev->hits) ? s : 0;
}

/**
 * dci_admit_note_miss() - count a miss under admission control.
 * @c: the cache (admit policy DC_ADMIT_FREQ).
 * @inode: the inode that missed.
 * @file_off: the file offset that missed.
 * @write: whether the miss is a write's.
 * @cand: receives what the decision needs: @write, whether the range was
 *	missed recently (in the ghost, which now records it and where in the
 *	range it fell), whether the miss continues a sequential stream, and
 *	its estimate with this miss counted, and whether that estimate is too
 *	small to beat any victim.
 *
 * Context: a reference to @inode held; takes no lock (the mapping before,
 * looked up in the table for a miss at the start of its range, is exact
 * under @inode's mutex, and without it may be changing: the stream test
 * reads it all the same).
 */
void dci_admit_note_miss(struct dc_cache *c, struct dc_inode *inode,
			 uint64_t file_off, bool write, struct dci_admit_cand *cand)
{
	struct dci_admit *a = &c->adm;
	uint64_t index = file_off >> c->cfg.range_shift;
	uint64_t h = key_hash(inode->id, index);
	uint32_t fp = fingerprint(h);
	uint64_t *slot = &a->ghost[ghost_slot(a, h)];
	uint32_t pos = (uint32_t)(((file_off & (c->range_size - 1)) <<
				   DCI_ADMIT_POS_BITS) >> c->cfg.range_shift);
	const struct dci_range *prev = NULL;
	uint32_t run = 0, stride = 0, across, step;
	uint64_t w;

	cand->ino = inode->id;
	cand->index = index;
	cand->write = write;
	w = dci_read_once(*slot);
	cand->recent = ghost_fp(w) == fp;
	if (cand->recent && pos > ghost_pos(w)) {
		stride = pos - ghost_pos(w);
		run = step_run(w, stride);
	}
	if (index && pos <= DCI_ADMIT_STRIDE_MAX) {
		across = run_across(a, inode, index, pos, &step);
		if (across > run) {
			run = across;
			stride = step;
		}
		/* Type-stable: a range object lives as long as the cache. */
		if (run < DCI_ADMIT_RUN)
			prev = dci_maptab_lookup(inode, index - 1);
	}
	cand->stride = stream_stride(run, stride, pos, prev);
	dci_write_once(*slot, ghost_word(fp, run, run ? stride : 0, pos));
	cand->est = count(a, h, 1);
	/* Whether it could beat even a victim never referenced. */
	cand->weak = !lead_wins(cand->est, 0, c->cfg.admit_setup_cost);
}

/**
 * dci_admit_over_budget() - whether the eviction budget refuses a miss
 *	before its contest.
 * @c: the cache (admit policy DC_ADMIT_FREQ).
 * @cand: a miss that dci_admit_note_miss() noted and that is not hopeless
 *	(dci_admit_cand_hopeless()): one that could beat a victim never
 *	referenced.
 *
 * A stream's miss is never refused.  Asked before the inode's mutex is
 * taken, so that a miss the budget refuses does not wait for it; a refusal
 * is counted in bypass_budget (the caller counts the bypass).
 *
 * Context: a reference to the missing inode held; takes no lock.
 * Return: true to bypass the miss, false to go on to its contest.
 */
bool dci_admit_over_budget(struct dc_cache *c, const struct dci_admit_cand *cand)
{
	if (cand->stride || !budget_spent(&c->adm))
		return false;
	dci_stat_inc(c, DCI_STAT_BYPASS_BUDGET);
	return true;
}

/**
 * dci_admit_seen() - count the hits of a mapped range, taken by the victim
 *	scan from the range's count (dci_range_hits_take()).
 * @c: the cache.
 * @ino: the inode id.
 * @index: the range index.
 * @hits: hits since the scan last passed the range (non-zero).
 *
 * Each hit counts as a miss does: one reference.  Does nothing unless the
 * admit policy is DC_ADMIT_FREQ.
 *
 * Context: any lock but the admission lock held (the hand holds the pool
 * lock); takes none but for a halving, with a trylock; never sleeps.
 */
void dci_admit_seen(struct dc_cache *c, uint64_t ino, uint64_t index,
		    uint32_t hits)
{
	struct dci_admit *a = &c->adm;

	if (!a->sketch)
		return;
	count(a, key_hash(ino, index), hits);
}

/**
 * dci_admit_contest() - decide a contested miss against its victim.
 * @c: the cache (admit policy DC_ADMIT_FREQ).
 * @cand: the miss, from dci_admit_note_miss().
 * @victim_ino: the inode id of the idle mapping that would be reclaimed.
 * @victim_index: its range index.
 *
 * Admit a read that continues a sequential stream whatever the victim: the
 * rest of the range is read next, and a bypass would pay a direct access
 * for each of those reads.  Otherwise admit only a read that was missed
 * recently (short re-reference distance) and whose expected hits pay for
 * the swap: its estimate leads the victim's by more than the setup cost
 * (cfg.admit_setup_cost, in accesses served without the window), and the
 * lead beyond the cost stands out of the counts' noise (DCI_ADMIT_NOISE).
 * Both estimates count every reference, hit or miss, over the same
 * halving period of the sketch, about as long as a mapping lasts, so the
 * lead is the hits a swap gains over that period and the cost what it
 * pays once.  The noise test is what keeps uniform access from churning:
 * every range is worth the same there, and the small counts of a
 * candidate (counted at the miss that contests) and a victim (taken when
 * it was not hit) differ by chance; a candidate that is really hotter
 * clears it, its count growing with each miss.  A write never wins: it
 * would make the new mapping writable, and a writable mapping costs a
 * writeback before its reclaim, while a direct write costs no more than a
 * write through the window.
 *
 * A read that wins is still refused while the eviction budget
 * (cfg.admit_evict_interval) is spent (counted in bypass_budget), and one
 * that wins while it is not pays for the eviction: the next on a count
 * waits until cfg.admit_evict_interval more references have been counted.
 * Even a rule that admits only clear leads admits some by chance where
 * every range is worth the same, and the budget bounds what those cost:
 * at most one eviction per interval, with no credit saved up beyond one
 * (a burst after a quiet spell is one eviction).  A stream's miss is
 * neither held back nor charged.  A win whose victim then cannot be
 * claimed (pinned meanwhile) has paid all the same; two misses of
 * different inodes that contest at once may both find the budget unspent.
 *
 * Context: the mapping inode's mutex held; takes no lock.
 * Return: true to map the miss over the victim, false to bypass.
 */
bool dci_admit_contest(struct dc_cache *c, const struct dci_admit_cand *cand,
		       uint64_t victim_ino, uint64_t victim_index)
{
	struct dci_admit *a = &c->adm;
	unsigned int vest, cost = c->cfg.admit_setup_cost;
	bool admit;

	if (dci_admit_cand_hopeless(cand))
		return false;
	if (cand->stride)
		return true;
	vest = estimate(a, key_hash(victim_ino, victim_index));
	admit = lead_wins(cand->est, vest, cost);
	if (admit && a->interval) {
		/* Again: another inode's miss may have spent it since the note. */
		if (budget_spent(a)) {
			dci_stat_inc(c, DCI_STAT_BYPASS_BUDGET);
			admit = false;
		} else {
			dci_write_once(a->evict_at, refs_now(a) + a->interval);
		}
	}
	dci_trace_admit(cand->ino, cand->index, cand->est, victim_ino,
			victim_index, vest, admit);
	return admit;
}

/**
 * dci_admit_write_hit() - decide a write to a read-only mapping while no
 *	range is free: upgrade it, or serve the write directly.
 * @c: the cache (admit policy DC_ADMIT_FREQ).
 * @ino: the inode id of the mapping.
 * @index: its range index.
 *
 * The write is counted as a reference to the range (the hit path counts
 * none), and the mapping is upgraded once its estimate reaches
 * DCI_ADMIT_UPGRADE_MIN: an upgrade needs no new range, only a setup now and
 * a writeback before the range is reclaimed, and a range written again and
 * again is one the victim scan rarely takes.  A range written once in a
 * while stays read-only and its writes go direct.  In a window that holds
 * every range it is asked for, nothing is ever reclaimed: without this,
 * a write to a range mapped read-only there would bypass for ever.
 *
 * Context: any lock but the admission lock held (dc_map() holds none);
 * takes none but for a halving, with a trylock; never sleeps.
 * Return: true to upgrade the mapping, false to bypass.
 */
bool dci_admit_write_hit(struct dc_cache *c, uint64_t ino, uint64_t index)
{
	struct dci_admit *a = &c->adm;

	return count(a, key_hash(ino, index), 1) >= DCI_ADMIT_UPGRADE_MIN;
}
