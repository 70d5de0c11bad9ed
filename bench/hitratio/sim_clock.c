// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sim_clock.c - reference policies over a circular array of frames in load
 * order: textbook CLOCK (second chance: a frame's bit is set when it is
 * loaded or hit; the hand clears set bits and evicts the first clear one),
 * the same CLOCK loading frames with the bit clear (as the library does: a
 * new mapping is not marked accessed until its first hit), and FIFO (the
 * hand evicts the next frame, whatever was hit).
 */
#include <stdlib.h>

#include "hitratio.h"

#define NONE	UINT32_MAX

static uint64_t sim_ring(const struct hr_trace *t, uint32_t cap, int second_chance,
			uint8_t load_bit)
{
	uint32_t *frame_key = malloc((size_t)cap * sizeof(*frame_key));
	uint32_t *where = malloc((size_t)t->nr_keys * sizeof(*where));	/* key -> frame */
	uint8_t *ref = calloc(cap, 1);
	uint64_t i, hits = UINT64_MAX;
	uint32_t k, hand = 0, used = 0;

	if (!frame_key || !where || !ref)
		goto out;
	for (k = 0; k < t->nr_keys; k++)
		where[k] = NONE;
	hits = 0;
	for (i = 0; i < t->n; i++) {
		uint32_t f;

		k = t->idx[i];
		if (where[k] != NONE) {
			hits++;
			ref[where[k]] = 1;
			continue;
		}
		if (used < cap) {
			f = used++;
		} else {
			while (second_chance && ref[hand]) {
				ref[hand] = 0;
				hand = (hand + 1) % cap;
			}
			f = hand;
			hand = (hand + 1) % cap;
			where[frame_key[f]] = NONE;
		}
		frame_key[f] = k;
		where[k] = f;
		ref[f] = load_bit;
	}
out:
	free(frame_key);
	free(where);
	free(ref);
	return hits;
}

uint64_t hr_sim_clock(const struct hr_trace *t, uint32_t cap)
{
	return sim_ring(t, cap, 1, 1);
}

uint64_t hr_sim_clock_cold(const struct hr_trace *t, uint32_t cap)
{
	return sim_ring(t, cap, 1, 0);
}

uint64_t hr_sim_fifo(const struct hr_trace *t, uint32_t cap)
{
	return sim_ring(t, cap, 0, 0);
}

/*
 * CLOCK with the bit clear on load whose victim comes from the missing
 * key's own file first, as the library's inline reclaim takes it: once no
 * frame is free, a miss in a file that has keys in the cache walks them in
 * key order from where its last walk stopped (clearing set bits, at most
 * two rounds) and evicts the first clear one; only a file with none takes
 * its victim from the global hand.  One file: CLOCK in key order.
 */
uint64_t hr_sim_clock_own(const struct hr_trace *t, uint32_t cap)
{
	uint32_t files = t->nr_files > 1 ? t->nr_files : 1;
	uint32_t fr = files > 1 ? t->file_ranges : t->nr_keys;
	uint32_t *frame_key = malloc((size_t)cap * sizeof(*frame_key));
	uint32_t *where = malloc((size_t)t->nr_keys * sizeof(*where));
	uint32_t *resident = calloc(files, sizeof(*resident));
	uint32_t *cursor = calloc(files, sizeof(*cursor));
	uint8_t *ref = calloc(cap, 1);
	uint64_t i, hits = UINT64_MAX;
	uint32_t k, hand = 0, used = 0;

	if (!frame_key || !where || !resident || !cursor || !ref || !fr)
		goto out;
	for (k = 0; k < t->nr_keys; k++)
		where[k] = NONE;
	hits = 0;
	for (i = 0; i < t->n; i++) {
		uint32_t f, file, first, len, step, v = NONE;

		k = t->idx[i];
		if (where[k] != NONE) {
			hits++;
			ref[where[k]] = 1;
			continue;
		}
		file = k / fr < files ? k / fr : files - 1;
		first = file * fr;
		len = file == files - 1 ? t->nr_keys - first : fr;
		if (used < cap) {
			f = used++;
		} else {
			for (step = 0; resident[file] && step < 2 * len && v == NONE; step++) {
				uint32_t c = first + (cursor[file] + step) % len;

				if (where[c] == NONE)
					continue;
				if (ref[where[c]]) {
					ref[where[c]] = 0;
				} else {
					v = c;
					cursor[file] = (c - first + 1) % len;
				}
			}
			if (v == NONE) {
				while (ref[hand]) {
					ref[hand] = 0;
					hand = (hand + 1) % cap;
				}
				v = frame_key[hand];
				hand = (hand + 1) % cap;
			}
			f = where[v];
			where[v] = NONE;
			resident[v / fr < files ? v / fr : files - 1]--;
		}
		frame_key[f] = k;
		where[k] = f;
		ref[f] = 0;
		resident[file]++;
	}
out:
	free(frame_key);
	free(where);
	free(resident);
	free(cursor);
	free(ref);
	return hits;
}
