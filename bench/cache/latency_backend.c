// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * latency_backend.c - busy-waiting setup and remove, with a record of what
 * each window range maps.
 *
 * slot[i] holds key(ino, index) of the mapping window range i has, or 0.
 * The cache publishes a mapping (release) after setup returns and a pin is
 * taken with acquire ordering, so a pin holder reads the slot its setup
 * wrote; relaxed atomics suffice here.
 */
#include <stdlib.h>

#include "bench_util.h"
#include "latency_backend.h"

struct lat_backend {
	uint64_t setup_ns;
	uint64_t remove_ns;
	bool sleep;			/* sleep out each call's time */
	unsigned int nr_ranges;
	unsigned int shift;
	uint64_t *slot;
	struct lat_backend_counts c;	/* updated with atomic adds */
};

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#else
#define cpu_relax()	__asm__ __volatile__("" ::: "memory")
#endif

static uint64_t key(uint64_t ino, uint64_t index)
{
	return (ino << 40) + index + 1;
}

static void add(uint64_t *counter, uint64_t n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

/* Spin from @t0 until @ns have passed; return when it stopped. */
static uint64_t spin_until(uint64_t t0, uint64_t ns)
{
	uint64_t now;

	while ((now = bench_now_ns()) - t0 < ns)
		cpu_relax();
	return now;
}

/*
 * Spend a call's @ns from @t0, spinning or (lat_backend_set_sleep())
 * sleeping; return when it ended.
 */
static uint64_t wait_until(const struct lat_backend *b, uint64_t t0, uint64_t ns)
{
	uint64_t now = bench_now_ns();

	if (b->sleep && now - t0 < ns)
		bench_sleep_for((double)(ns - (now - t0)) / 1e9);
	return spin_until(t0, ns);
}

/* The slot of window offset @win_off, or NULL if it is not a range start. */
static uint64_t *slot_of(struct lat_backend *b, uint64_t win_off)
{
	uint64_t i = win_off >> b->shift;

	if (win_off & ((1ull << b->shift) - 1) || i >= b->nr_ranges)
		return NULL;
	return &b->slot[i];
}

static int lat_setup(void *priv, uint64_t ino, uint64_t file_off,
		     uint64_t win_off, uint64_t len, unsigned int flags)
{
	struct lat_backend *b = priv;
	uint64_t t0 = bench_now_ns(), *s = slot_of(b, win_off);

	if (!s || len != 1ull << b->shift ||
	    file_off & ((1ull << b->shift) - 1) || ino >= 1ull << 24)
		add(&b->c.bad_calls, 1);
	else
		__atomic_store_n(s, key(ino, file_off >> b->shift),
				 __ATOMIC_RELAXED);
	add(&b->c.setup_ns, wait_until(b, t0, b->setup_ns) - t0);
	add(&b->c.setups, 1);
	return 0;
}

static int lat_remove(void *priv, const struct dc_remove_entry *e,
		      unsigned int n)
{
	struct lat_backend *b = priv;
	uint64_t t0 = bench_now_ns(), *s, want;
	unsigned int i;

	for (i = 0; i < n; i++) {
		s = slot_of(b, e[i].win_off);
		if (!s || e[i].len != 1ull << b->shift) {
			add(&b->c.bad_calls, 1);
			continue;
		}
		want = key(e[i].ino, e[i].file_off >> b->shift);
		if (!__atomic_compare_exchange_n(s, &want, 0, false,
						 __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
			add(&b->c.stale_removes, 1);
	}
	add(&b->c.remove_ns, wait_until(b, t0, b->remove_ns) - t0);
	add(&b->c.remove_entries, n);
	add(&b->c.removes, 1);
	return 0;
}

const struct dc_backend_ops lat_backend_ops = {
	.setup = lat_setup,
	.remove = lat_remove,
};

struct lat_backend *lat_backend_create(uint64_t setup_ns, uint64_t remove_ns,
				       unsigned int nr_ranges,
				       unsigned int range_shift)
{
	struct lat_backend *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->slot = calloc(nr_ranges, sizeof(*b->slot));
	if (!b->slot) {
		free(b);
		return NULL;
	}
	b->setup_ns = setup_ns;
	b->remove_ns = remove_ns;
	b->nr_ranges = nr_ranges;
	b->shift = range_shift;
	return b;
}

void lat_backend_set_sleep(struct lat_backend *b, bool sleep)
{
	b->sleep = sleep;
}

void lat_backend_destroy(struct lat_backend *b)
{
	if (!b)
		return;
	free(b->slot);
	free(b);
}

bool lat_backend_check(struct lat_backend *b, uint64_t ino, uint64_t index,
		       uint64_t win_off)
{
	uint64_t *s = slot_of(b, win_off);

	if (s && __atomic_load_n(s, __ATOMIC_RELAXED) == key(ino, index))
		return true;
	add(&b->c.pin_mismatches, 1);
	return false;
}

void lat_backend_counts(struct lat_backend *b, struct lat_backend_counts *out)
{
	out->setups = __atomic_load_n(&b->c.setups, __ATOMIC_RELAXED);
	out->setup_ns = __atomic_load_n(&b->c.setup_ns, __ATOMIC_RELAXED);
	out->removes = __atomic_load_n(&b->c.removes, __ATOMIC_RELAXED);
	out->remove_entries = __atomic_load_n(&b->c.remove_entries,
					      __ATOMIC_RELAXED);
	out->remove_ns = __atomic_load_n(&b->c.remove_ns, __ATOMIC_RELAXED);
	out->bad_calls = __atomic_load_n(&b->c.bad_calls, __ATOMIC_RELAXED);
	out->stale_removes = __atomic_load_n(&b->c.stale_removes,
					     __ATOMIC_RELAXED);
	out->pin_mismatches = __atomic_load_n(&b->c.pin_mismatches,
					      __ATOMIC_RELAXED);
}
