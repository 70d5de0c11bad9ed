// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: simbe.c - the simulation backend (see include/daxcache/simbe.h).
 *
 * One record per window range, each guarded by one of a set of striped
 * spinlocks so that calls on different ranges do not contend.  A call marks
 * the ranges it touches busy for its whole duration (latency included): a
 * second call that finds one of them busy is an overlap, which the cache's
 * pin and claim protocol must never allow.  The busy-wait of the latency
 * model runs without any lock held.
 *
 * The tag of a range is its simulated content: four words written by the
 * setup that maps a new file range and cleared by remove, read without a
 * lock by dc_simbe_check_tag().  The last word is a checksum of the others,
 * so a reader that races with a rewrite sees a mismatch; a rewrite under a
 * pinned reader is a cache bug, which is what the check is for.  A setup
 * that maps the same file range again (an upgrade) leaves the tag alone: the
 * content does not change.
 *
 * Callers: the cache, through the backend ops it hands out
 * (dc_simbe_ops()); tests, benchmarks and examples, which inspect it.
 */
#include "platform.h"
#include "struct_size.h"

#include <daxcache/simbe.h>

#define SIMBE_STRIPES		64u
#define SIMBE_MIN_SHIFT		12u
#define SIMBE_MAX_SHIFT		40u
#define SIMBE_GATE_TIMEOUT_NS	(30ull * 1000000000ull)
#define SIMBE_PPM		1000000u

struct simbe_tag {
	uint64_t ino;
	uint64_t index;
	uint64_t seq;
	uint64_t sum;
};

struct simbe_range {
	bool mapped;
	bool dirty;
	unsigned int flags;
	unsigned int busy;		/* calls in progress on this range */
	uint64_t ino;
	uint64_t file_off;
	uint64_t seq;			/* setup that mapped this file range */
	uint64_t setup_seq;		/* latest setup */
};

struct simbe_fault_state {
	dci_spinlock_t lock;
	dci_atomic_t armed;
	struct dc_simbe_fault f;
	unsigned int count;		/* calls since the last every-Nth failure */
	uint64_t rng;
};

struct simbe_gate {
	dci_atomic_t closed;
	dci_atomic_t waiters;
	struct dci_waitq wq;
};

/* Counters, one per member of struct dc_simbe_stats but the gauge. */
enum simbe_stat {
	ST_SETUPS_READ,
	ST_SETUPS_WRITE,
	ST_SETUPS_REPLACING,
	ST_SETUPS_SAME,
	ST_REMOVED_ENTRIES,
	ST_WRITEBACKS,
	ST_REMOVE_MISMATCHES,
	ST_REMOVE_UNMAPPED,
	ST_WRITEBACK_MISMATCHES,
	ST_LOST_WRITES,
	ST_OVERLAPS,
	ST_BAD_CALLS,
	ST_TAG_FAILURES,
	ST_GATE_TIMEOUTS,
	ST_TAG_CHECKS,
	ST_NR
};

struct dc_simbe {
	struct dc_simbe_config cfg;
	uint64_t range_size;
	uint64_t nr_ranges;
	struct simbe_range *ranges;
	struct simbe_tag *tags;
	dci_spinlock_t stripe[SIMBE_STRIPES];

	dci_spinlock_t seq_lock;		/* @seq and @max_batch */
	uint64_t seq;
	uint64_t max_batch;

	dci_atomic64_t latency_ns[DC_SIMBE_NR_OPS];
	dci_atomic64_t entry_ns;
	struct simbe_fault_state fault[DC_SIMBE_NR_OPS];
	struct simbe_gate gate[DC_SIMBE_NR_OPS];

	dci_atomic64_t calls[DC_SIMBE_NR_OPS];
	dci_atomic64_t injected[DC_SIMBE_NR_OPS];
	dci_atomic64_t total_ns[DC_SIMBE_NR_OPS];
	dci_atomic64_t st[ST_NR];
	dci_atomic64_t nr_mapped;
};

static inline void st_inc(struct dc_simbe *be, enum simbe_stat s)
{
	dci_atomic64_inc(&be->st[s]);
}

static inline uint64_t range_index(const struct dc_simbe *be, uint64_t win_off)
{
	return win_off >> be->cfg.range_shift;
}

static inline dci_spinlock_t *range_lock(struct dc_simbe *be, uint64_t idx)
{
	return &be->stripe[idx & (SIMBE_STRIPES - 1)];
}

static uint64_t tag_sum(uint64_t ino, uint64_t index, uint64_t seq)
{
	uint64_t h = ino * 0x9e3779b97f4a7c15ull;

	h ^= (index + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
	h ^= (seq + 0x2545f4914f6cdd1dull) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h | 1;			/* never 0: a cleared tag is unmapped */
}

static void tag_write(struct dc_simbe *be, uint64_t idx, uint64_t ino,
		      uint64_t file_off, uint64_t seq)
{
	struct simbe_tag *tg = &be->tags[idx];
	uint64_t findex = file_off >> be->cfg.range_shift;

	dci_write_once(tg->sum, 0);
	dci_smp_wmb();
	dci_write_once(tg->ino, ino);
	dci_write_once(tg->index, findex);
	dci_write_once(tg->seq, seq);
	dci_smp_wmb();
	dci_write_once(tg->sum, tag_sum(ino, findex, seq));
}

static void tag_clear(struct dc_simbe *be, uint64_t idx)
{
	dci_write_once(be->tags[idx].sum, 0);
}

/* Whether this call of @op fails, and with which error. */
static int fault_decide(struct dc_simbe *be, enum dc_simbe_op op)
{
	struct simbe_fault_state *fs = &be->fault[op];
	bool fail = false;
	int err;

	if (!dci_atomic_read(&fs->armed))
		return 0;
	dci_spin_lock(&fs->lock);
	if (fs->f.next) {
		fs->f.next--;
		fail = true;
	}
	if (fs->f.every && ++fs->count >= fs->f.every) {
		fs->count = 0;
		fail = true;
	}
	if (fs->f.ppm &&
	    (uint32_t)(dci_prng_next(&fs->rng) >> 32) % SIMBE_PPM < fs->f.ppm)
		fail = true;
	if (!fs->f.next && !fs->f.every && !fs->f.ppm)
		dci_atomic_set(&fs->armed, 0);
	err = fs->f.err;
	dci_spin_unlock(&fs->lock);
	if (!fail)
		return 0;
	dci_atomic64_inc(&be->injected[op]);
	return err;
}

static void gate_pass(struct dc_simbe *be, enum dc_simbe_op op)
{
	struct simbe_gate *g = &be->gate[op];
	int ret;

	if (!dci_atomic_read(&g->closed))
		return;
	dci_atomic_inc(&g->waiters);
	ret = dci_waitq_wait_timeout(&g->wq, !dci_atomic_read(&g->closed),
				    be->cfg.gate_timeout_ns);
	dci_atomic_dec(&g->waiters);
	if (ret)
		st_inc(be, ST_GATE_TIMEOUTS);
}

/* Start a call: count it and pass the gate.  Returns the start time. */
static uint64_t op_begin(struct dc_simbe *be, enum dc_simbe_op op)
{
	dci_atomic64_inc(&be->calls[op]);
	gate_pass(be, op);
	return dci_now_ns();
}

/* End a call: count the time it took. */
static void op_end(struct dc_simbe *be, enum dc_simbe_op op, uint64_t start)
{
	dci_atomic64_add(&be->total_ns[op], dci_now_ns() - start);
}

/* End a call the backend refuses: count it as a bad call.  -EINVAL. */
static int bad_call(struct dc_simbe *be, enum dc_simbe_op op, uint64_t start)
{
	st_inc(be, ST_BAD_CALLS);
	op_end(be, op, start);
	return -EINVAL;
}

static void mark_busy(struct dc_simbe *be, uint64_t idx, uint64_t n)
{
	uint64_t i;

	for (i = idx; i < idx + n; i++) {
		dci_spinlock_t *l = range_lock(be, i);

		dci_spin_lock(l);
		if (be->ranges[i].busy++)
			st_inc(be, ST_OVERLAPS);
		dci_spin_unlock(l);
	}
}

static void mark_idle(struct dc_simbe *be, uint64_t idx, uint64_t n)
{
	uint64_t i;

	for (i = idx; i < idx + n; i++) {
		dci_spinlock_t *l = range_lock(be, i);

		dci_spin_lock(l);
		be->ranges[i].busy--;
		dci_spin_unlock(l);
	}
}

/*
 * The work of a call on the @n window ranges from @idx (a setup or a
 * writeback): mark them busy, decide its fault, and take its latency.
 * Returns the injected error, or 0.
 */
static int span_enter(struct dc_simbe *be, enum dc_simbe_op op, uint64_t idx,
		      uint64_t n)
{
	int err;

	mark_busy(be, idx, n);
	err = fault_decide(be, op);
	dci_delay_ns(dci_atomic64_read(&be->latency_ns[op]));
	return err;
}

/* Whether [off, off + len) is range-aligned and inside the window. */
static bool span_ok(const struct dc_simbe *be, uint64_t off, uint64_t len)
{
	uint64_t mask = be->range_size - 1;

	return len && !(off & mask) && !(len & mask) &&
	       off < be->cfg.window_size && len <= be->cfg.window_size - off;
}

static uint64_t next_seq(struct dc_simbe *be)
{
	uint64_t seq;

	dci_spin_lock(&be->seq_lock);
	seq = ++be->seq;
	dci_spin_unlock(&be->seq_lock);
	return seq;
}

static void note_batch(struct dc_simbe *be, uint64_t n)
{
	dci_spin_lock(&be->seq_lock);
	if (n > be->max_batch)
		be->max_batch = n;
	dci_spin_unlock(&be->seq_lock);
}

/* Record one window range as mapping @ino at @file_off.  Stripe lock held. */
static void record_setup(struct dc_simbe *be, uint64_t idx, uint64_t ino,
			 uint64_t file_off, unsigned int flags, uint64_t seq)
{
	struct simbe_range *r = &be->ranges[idx];

	if (r->mapped && r->ino == ino && r->file_off == file_off) {
		/* The same file range again: an upgrade or a refresh. */
		st_inc(be, ST_SETUPS_SAME);
		r->flags = flags;
		r->setup_seq = seq;
		return;
	}
	if (r->mapped) {
		st_inc(be, ST_SETUPS_REPLACING);
		if (r->dirty)
			st_inc(be, ST_LOST_WRITES);
	} else {
		dci_atomic64_inc(&be->nr_mapped);
	}
	r->mapped = true;
	r->dirty = false;
	r->ino = ino;
	r->file_off = file_off;
	r->flags = flags;
	r->seq = seq;
	r->setup_seq = seq;
	tag_write(be, idx, ino, file_off, seq);
}

static int simbe_setup(void *priv, uint64_t ino, uint64_t file_off,
		       uint64_t win_off, uint64_t len, unsigned int flags)
{
	struct dc_simbe *be = priv;
	uint64_t start, idx, n, i, seq;
	int err;

	start = op_begin(be, DC_SIMBE_SETUP);
	if (!span_ok(be, win_off, len) || (file_off & (be->range_size - 1)) ||
	    file_off + (len - 1) < file_off || !(flags & DC_MAP_READ) ||
	    (flags & ~(DC_MAP_READ | DC_MAP_WRITE)))
		return bad_call(be, DC_SIMBE_SETUP, start);
	idx = range_index(be, win_off);
	n = len >> be->cfg.range_shift;
	err = span_enter(be, DC_SIMBE_SETUP, idx, n);
	if (!err) {
		seq = next_seq(be);
		for (i = 0; i < n; i++) {
			dci_spinlock_t *l = range_lock(be, idx + i);

			dci_spin_lock(l);
			record_setup(be, idx + i, ino,
				     file_off + (i << be->cfg.range_shift),
				     flags, seq);
			dci_spin_unlock(l);
		}
		st_inc(be, (flags & DC_MAP_WRITE) ? ST_SETUPS_WRITE :
						     ST_SETUPS_READ);
	}
	mark_idle(be, idx, n);
	op_end(be, DC_SIMBE_SETUP, start);
	return err;
}

/* Unmap one window range on behalf of entry (@ino, @file_off).  Lock held. */
static void record_remove(struct dc_simbe *be, uint64_t idx, uint64_t ino,
			  uint64_t file_off)
{
	struct simbe_range *r = &be->ranges[idx];

	if (!r->mapped) {
		st_inc(be, ST_REMOVE_UNMAPPED);
		return;
	}
	if (r->ino != ino || r->file_off != file_off)
		st_inc(be, ST_REMOVE_MISMATCHES);
	if (r->dirty)
		st_inc(be, ST_LOST_WRITES);
	/* The window range is unmapped whatever it held, as a daemon would. */
	r->mapped = false;
	r->dirty = false;
	r->flags = 0;
	tag_clear(be, idx);
	dci_atomic64_add(&be->nr_mapped, (uint64_t)-1);
}

static bool entry_ok(const struct dc_simbe *be, const struct dc_remove_entry *e)
{
	return span_ok(be, e->win_off, e->len) &&
	       !(e->file_off & (be->range_size - 1)) &&
	       e->file_off + (e->len - 1) >= e->file_off;
}

static int simbe_remove(void *priv, const struct dc_remove_entry *entries,
			unsigned int n)
{
	struct dc_simbe *be = priv;
	uint64_t start, delay;
	unsigned int k;
	int err;

	start = op_begin(be, DC_SIMBE_REMOVE);
	if (!n || !entries ||
	    (be->cfg.remove_batch_max && n > be->cfg.remove_batch_max))
		return bad_call(be, DC_SIMBE_REMOVE, start);
	for (k = 0; k < n; k++) {
		if (!entry_ok(be, &entries[k]))
			return bad_call(be, DC_SIMBE_REMOVE, start);
	}
	note_batch(be, n);
	for (k = 0; k < n; k++)
		mark_busy(be, range_index(be, entries[k].win_off),
			  entries[k].len >> be->cfg.range_shift);
	err = fault_decide(be, DC_SIMBE_REMOVE);
	delay = dci_atomic64_read(&be->latency_ns[DC_SIMBE_REMOVE]) +
		(uint64_t)n * dci_atomic64_read(&be->entry_ns);
	dci_delay_ns(delay);
	for (k = 0; !err && k < n; k++) {
		const struct dc_remove_entry *e = &entries[k];
		uint64_t idx = range_index(be, e->win_off);
		uint64_t cnt = e->len >> be->cfg.range_shift, i;

		for (i = 0; i < cnt; i++) {
			dci_spinlock_t *l = range_lock(be, idx + i);

			dci_spin_lock(l);
			record_remove(be, idx + i, e->ino,
				      e->file_off + (i << be->cfg.range_shift));
			dci_spin_unlock(l);
		}
	}
	if (!err)
		dci_atomic64_add(&be->st[ST_REMOVED_ENTRIES], n);
	for (k = 0; k < n; k++)
		mark_idle(be, range_index(be, entries[k].win_off),
			  entries[k].len >> be->cfg.range_shift);
	op_end(be, DC_SIMBE_REMOVE, start);
	return err;
}

static int simbe_writeback(void *priv, uint64_t ino, uint64_t file_off,
			   uint64_t len, uint64_t win_off)
{
	struct dc_simbe *be = priv;
	uint64_t start, idx, n, i;
	int err;

	start = op_begin(be, DC_SIMBE_WRITEBACK);
	if (!span_ok(be, win_off, len) || (file_off & (be->range_size - 1)))
		return bad_call(be, DC_SIMBE_WRITEBACK, start);
	idx = range_index(be, win_off);
	n = len >> be->cfg.range_shift;
	err = span_enter(be, DC_SIMBE_WRITEBACK, idx, n);
	for (i = 0; i < n; i++) {
		struct simbe_range *r = &be->ranges[idx + i];
		dci_spinlock_t *l = range_lock(be, idx + i);

		dci_spin_lock(l);
		if (!r->mapped || r->ino != ino ||
		    r->file_off != file_off + (i << be->cfg.range_shift))
			st_inc(be, ST_WRITEBACK_MISMATCHES);
		else if (!err)
			r->dirty = false;
		dci_spin_unlock(l);
	}
	if (!err)
		st_inc(be, ST_WRITEBACKS);
	mark_idle(be, idx, n);
	op_end(be, DC_SIMBE_WRITEBACK, start);
	return err;
}

static const struct dc_backend_ops simbe_ops = {
	.setup = simbe_setup,
	.remove = simbe_remove,
	.writeback = simbe_writeback,
};

const struct dc_backend_ops *dc_simbe_ops(void)
{
	return &simbe_ops;
}
DCI_EXPORT(dc_simbe_ops);

int dc_simbe_config_init(struct dc_simbe_config *cfg, size_t size,
			 uint64_t window_size)
{
	struct dc_simbe_config def;

	memset(&def, 0, sizeof(def));
	def.window_size = window_size;
	def.range_shift = 21;
	def.gate_timeout_ns = SIMBE_GATE_TIMEOUT_NS;
	return sized_copy_out(cfg, size, &def, sizeof(def),
			      DC_SIMBE_CONFIG_SIZE_VER0);
}
DCI_EXPORT(dc_simbe_config_init);

static int config_check(const struct dc_simbe_config *cfg)
{
	if (cfg->range_shift < SIMBE_MIN_SHIFT ||
	    cfg->range_shift > SIMBE_MAX_SHIFT) {
		dci_pr_err("simbe: range_shift %u is not in %u..%u",
			  cfg->range_shift, SIMBE_MIN_SHIFT, SIMBE_MAX_SHIFT);
		return -EINVAL;
	}
	if (!cfg->window_size ||
	    (cfg->window_size & ((1ull << cfg->range_shift) - 1))) {
		dci_pr_err("simbe: window size %llu is not a non-zero multiple of the range size",
			  (unsigned long long)cfg->window_size);
		return -EINVAL;
	}
	return 0;
}

int dc_simbe_create(const struct dc_simbe_config *ucfg, size_t size,
		    struct dc_simbe **out)
{
	const struct dc_simbe_config *cfg;
	struct dc_simbe_config kcfg;
	struct dc_simbe *be;
	unsigned int i;
	uint64_t nr;
	int ret;

	ret = sized_create_in(out, &kcfg, ucfg, size, DC_SIMBE_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	cfg = &kcfg;
	ret = config_check(cfg);
	if (ret)
		return ret;
	nr = cfg->window_size >> cfg->range_shift;
	if (nr > SIZE_MAX / sizeof(struct simbe_range))
		return -ENOMEM;
	be = dci_zalloc(sizeof(*be));
	if (!be)
		return -ENOMEM;
	be->ranges = dci_zalloc((size_t)nr * sizeof(*be->ranges));
	be->tags = dci_zalloc((size_t)nr * sizeof(*be->tags));
	if (!be->ranges || !be->tags) {
		dci_free(be->ranges);
		dci_free(be->tags);
		dci_free(be);
		return -ENOMEM;
	}
	be->cfg = *cfg;
	if (!be->cfg.gate_timeout_ns)
		be->cfg.gate_timeout_ns = SIMBE_GATE_TIMEOUT_NS;
	be->range_size = 1ull << cfg->range_shift;
	be->nr_ranges = nr;
	for (i = 0; i < SIMBE_STRIPES; i++)
		dci_spin_lock_init(&be->stripe[i]);
	dci_spin_lock_init(&be->seq_lock);
	for (i = 0; i < DC_SIMBE_NR_OPS; i++) {
		dci_spin_lock_init(&be->fault[i].lock);
		dci_atomic_set(&be->fault[i].armed, 0);
		dci_atomic_set(&be->gate[i].closed, 0);
		dci_atomic_set(&be->gate[i].waiters, 0);
		dci_waitq_init(&be->gate[i].wq);
		dci_atomic64_set(&be->latency_ns[i], cfg->latency_ns[i]);
	}
	dci_atomic64_set(&be->entry_ns, cfg->remove_entry_ns);
	*out = be;
	return 0;
}
DCI_EXPORT(dc_simbe_create);

void dc_simbe_destroy(struct dc_simbe *be)
{
	unsigned int i;

	if (!be)
		return;
	for (i = 0; i < DC_SIMBE_NR_OPS; i++) {
		dci_waitq_destroy(&be->gate[i].wq);
		dci_spin_lock_destroy(&be->fault[i].lock);
	}
	dci_spin_lock_destroy(&be->seq_lock);
	for (i = 0; i < SIMBE_STRIPES; i++)
		dci_spin_lock_destroy(&be->stripe[i]);
	dci_free(be->tags);
	dci_free(be->ranges);
	dci_free(be);
}
DCI_EXPORT(dc_simbe_destroy);

uint64_t dc_simbe_range_size(const struct dc_simbe *be)
{
	return be->range_size;
}
DCI_EXPORT(dc_simbe_range_size);

uint64_t dc_simbe_nr_ranges(const struct dc_simbe *be)
{
	return be->nr_ranges;
}
DCI_EXPORT(dc_simbe_nr_ranges);

void dc_simbe_set_latency(struct dc_simbe *be, enum dc_simbe_op op,
			  uint64_t per_call_ns, uint64_t per_entry_ns)
{
	if ((unsigned int)op >= DC_SIMBE_NR_OPS)
		return;
	dci_atomic64_set(&be->latency_ns[op], per_call_ns);
	if (op == DC_SIMBE_REMOVE)
		dci_atomic64_set(&be->entry_ns, per_entry_ns);
}
DCI_EXPORT(dc_simbe_set_latency);

int dc_simbe_set_fault(struct dc_simbe *be, enum dc_simbe_op op,
		       const struct dc_simbe_fault *uf, size_t size)
{
	struct simbe_fault_state *fs;
	struct dc_simbe_fault kf;
	const struct dc_simbe_fault *f = NULL;
	int ret;

	if (!be || (unsigned int)op >= DC_SIMBE_NR_OPS)
		return -EINVAL;
	if (uf) {
		ret = sized_copy_in(&kf, sizeof(kf), uf, size,
				    DC_SIMBE_FAULT_SIZE_VER0);
		if (ret)
			return ret;
		f = &kf;
	}
	if (f && (f->err > 0 || f->err < -4095))
		return -EINVAL;
	fs = &be->fault[op];
	dci_spin_lock(&fs->lock);
	if (f) {
		fs->f = *f;
		if (!fs->f.err)
			fs->f.err = -EIO;
		if (fs->f.ppm > SIMBE_PPM)
			fs->f.ppm = SIMBE_PPM;
		fs->count = 0;
		fs->rng = f->seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
		if (!fs->rng)
			fs->rng = 1;
		dci_atomic_set(&fs->armed, f->every || f->ppm || f->next);
	} else {
		memset(&fs->f, 0, sizeof(fs->f));
		dci_atomic_set(&fs->armed, 0);
	}
	dci_spin_unlock(&fs->lock);
	return 0;
}
DCI_EXPORT(dc_simbe_set_fault);

int dc_simbe_fail_next(struct dc_simbe *be, enum dc_simbe_op op,
		       int err)
{
	struct dc_simbe_fault f = { .err = err, .next = 1 };

	return dc_simbe_set_fault(be, op, &f, sizeof(f));
}
DCI_EXPORT(dc_simbe_fail_next);

int dc_simbe_lookup(struct dc_simbe *be, uint64_t win_off,
		    struct dc_simbe_mapping *um, size_t size)
{
	struct dc_simbe_mapping km, *m = &km;
	struct simbe_range *r;
	dci_spinlock_t *l;
	uint64_t idx;
	int ret = 0;

	if (!be || win_off >= be->cfg.window_size ||
	    (um && size < DC_SIMBE_MAPPING_SIZE_VER0))
		return -EINVAL;
	memset(&km, 0, sizeof(km));
	idx = range_index(be, win_off);
	r = &be->ranges[idx];
	l = range_lock(be, idx);
	dci_spin_lock(l);
	if (!r->mapped) {
		ret = -ENOENT;
	} else {
		m->win_off = idx << be->cfg.range_shift;
		m->len = be->range_size;
		m->ino = r->ino;
		m->file_off = r->file_off;
		m->flags = r->flags;
		m->dirty = r->dirty;
		m->seq = r->seq;
		m->setup_seq = r->setup_seq;
	}
	dci_spin_unlock(l);
	if (!ret && um)
		ret = sized_copy_out(um, size, &km, sizeof(km),
				     DC_SIMBE_MAPPING_SIZE_VER0);
	return ret;
}
DCI_EXPORT(dc_simbe_lookup);

/* The tag check of dc_simbe_check_tag(), without counting. */
static int tag_check(struct dc_simbe *be, uint64_t win_off, uint64_t ino,
		     uint64_t file_off)
{
	const struct simbe_tag *tg;
	uint64_t mask, sum, t_ino, t_index, t_seq;

	if (win_off >= be->cfg.window_size)
		return -EINVAL;
	tg = &be->tags[range_index(be, win_off)];
	mask = be->range_size - 1;
	sum = dci_read_once(tg->sum);
	if (!sum)
		return -ENOENT;
	dci_smp_rmb();
	t_ino = dci_read_once(tg->ino);
	t_index = dci_read_once(tg->index);
	t_seq = dci_read_once(tg->seq);
	dci_smp_rmb();
	if (dci_read_once(tg->sum) != sum || sum != tag_sum(t_ino, t_index, t_seq))
		return -ESTALE;		/* rewritten under the reader */
	if (t_ino != ino || t_index != file_off >> be->cfg.range_shift ||
	    (win_off & mask) != (file_off & mask))
		return -ESTALE;
	return 0;
}

int dc_simbe_check_tag(struct dc_simbe *be, uint64_t win_off,
		       uint64_t ino, uint64_t file_off)
{
	int ret;

	if (!be)
		return -EINVAL;
	st_inc(be, ST_TAG_CHECKS);
	ret = tag_check(be, win_off, ino, file_off);
	if (ret)
		st_inc(be, ST_TAG_FAILURES);
	return ret;
}
DCI_EXPORT(dc_simbe_check_tag);

int dc_simbe_write(struct dc_simbe *be, uint64_t win_off,
		   uint64_t ino, uint64_t file_off)
{
	struct simbe_range *r;
	dci_spinlock_t *l;
	uint64_t idx;
	int ret;

	if (!be)
		return -EINVAL;
	st_inc(be, ST_TAG_CHECKS);
	ret = tag_check(be, win_off, ino, file_off);
	if (!ret) {
		idx = range_index(be, win_off);
		r = &be->ranges[idx];
		l = range_lock(be, idx);
		dci_spin_lock(l);
		if (!r->mapped || r->ino != ino ||
		    r->file_off != (file_off & ~(be->range_size - 1)))
			ret = -ESTALE;
		else if (!(r->flags & DC_MAP_WRITE))
			ret = -EROFS;
		else
			r->dirty = true;
		dci_spin_unlock(l);
	}
	if (ret)
		st_inc(be, ST_TAG_FAILURES);
	return ret;
}
DCI_EXPORT(dc_simbe_write);

void dc_simbe_gate_close(struct dc_simbe *be, enum dc_simbe_op op)
{
	if ((unsigned int)op < DC_SIMBE_NR_OPS)
		dci_atomic_set(&be->gate[op].closed, 1);
}
DCI_EXPORT(dc_simbe_gate_close);

void dc_simbe_gate_open(struct dc_simbe *be, enum dc_simbe_op op)
{
	if ((unsigned int)op >= DC_SIMBE_NR_OPS)
		return;
	dci_atomic_set(&be->gate[op].closed, 0);
	dci_waitq_wake_all(&be->gate[op].wq);
}
DCI_EXPORT(dc_simbe_gate_open);

unsigned int dc_simbe_gate_waiters(struct dc_simbe *be,
				   enum dc_simbe_op op)
{
	if ((unsigned int)op >= DC_SIMBE_NR_OPS)
		return 0;
	return (unsigned int)dci_atomic_read(&be->gate[op].waiters);
}
DCI_EXPORT(dc_simbe_gate_waiters);

int dc_simbe_stats(const struct dc_simbe *cbe,
		   struct dc_simbe_stats *st, size_t size)
{
	struct dc_simbe *be = (struct dc_simbe *)cbe;
	struct dc_simbe_stats s;
	unsigned int i;

	if (!be || !st || size < DC_SIMBE_STATS_SIZE_VER0)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < DC_SIMBE_NR_OPS; i++) {
		s.calls[i] = dci_atomic64_read(&be->calls[i]);
		s.injected[i] = dci_atomic64_read(&be->injected[i]);
		s.total_ns[i] = dci_atomic64_read(&be->total_ns[i]);
	}
	s.setups_read = dci_atomic64_read(&be->st[ST_SETUPS_READ]);
	s.setups_write = dci_atomic64_read(&be->st[ST_SETUPS_WRITE]);
	s.setups_replacing = dci_atomic64_read(&be->st[ST_SETUPS_REPLACING]);
	s.setups_same = dci_atomic64_read(&be->st[ST_SETUPS_SAME]);
	s.removed_entries = dci_atomic64_read(&be->st[ST_REMOVED_ENTRIES]);
	dci_spin_lock(&be->seq_lock);
	s.max_batch = be->max_batch;
	dci_spin_unlock(&be->seq_lock);
	s.writebacks = dci_atomic64_read(&be->st[ST_WRITEBACKS]);
	s.remove_mismatches = dci_atomic64_read(&be->st[ST_REMOVE_MISMATCHES]);
	s.remove_unmapped = dci_atomic64_read(&be->st[ST_REMOVE_UNMAPPED]);
	s.writeback_mismatches = dci_atomic64_read(&be->st[ST_WRITEBACK_MISMATCHES]);
	s.lost_writes = dci_atomic64_read(&be->st[ST_LOST_WRITES]);
	s.overlaps = dci_atomic64_read(&be->st[ST_OVERLAPS]);
	s.bad_calls = dci_atomic64_read(&be->st[ST_BAD_CALLS]);
	s.tag_failures = dci_atomic64_read(&be->st[ST_TAG_FAILURES]);
	s.gate_timeouts = dci_atomic64_read(&be->st[ST_GATE_TIMEOUTS]);
	s.tag_checks = dci_atomic64_read(&be->st[ST_TAG_CHECKS]);
	s.nr_mapped = dci_atomic64_read(&be->nr_mapped);
	return sized_copy_out(st, size, &s, sizeof(s), DC_SIMBE_STATS_SIZE_VER0);
}
DCI_EXPORT(dc_simbe_stats);

void dc_simbe_reset_stats(struct dc_simbe *be)
{
	unsigned int i;

	for (i = 0; i < DC_SIMBE_NR_OPS; i++) {
		dci_atomic64_set(&be->calls[i], 0);
		dci_atomic64_set(&be->injected[i], 0);
		dci_atomic64_set(&be->total_ns[i], 0);
	}
	for (i = 0; i < ST_NR; i++)
		dci_atomic64_set(&be->st[i], 0);
	dci_spin_lock(&be->seq_lock);
	be->max_batch = 0;
	dci_spin_unlock(&be->seq_lock);
}
DCI_EXPORT(dc_simbe_reset_stats);
