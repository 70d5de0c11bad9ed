/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fault_test.h - what the parts of the fault-injection test share: the
 * check macros, and a cache over the simulation backend with its
 * invariant checks.
 */
#ifndef DC_FAULT_TEST_H
#define DC_FAULT_TEST_H

#include "platform.h"

#include <daxcache/daxcache.h>
#include <daxcache/fault.h>
#include <daxcache/simbe.h>

#include "../cases/sim_env.h"

#define FT_INODES	3u
#define FT_INO_BASE	500u
#define FT_WAIT_NS	(300ull * 1000000000ull)	/* a bound, not a measurement */
#define FT_MS		1000000ull

/* --- checks ------------------------------------------------------------- */

/* Failed checks so far, and what the test is doing (for the messages). */
extern unsigned long ft_failures;
extern char ft_context[256];

void ft_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define FT_CHECK(cond) do {						\
	if (!(cond))							\
		ft_fail(__FILE__, __LINE__, "%s", #cond);		\
} while (0)

#define FT_CHECK_INT(a, b) do {						\
	long long __ft_a = (long long)(a), __ft_b = (long long)(b);	\
	if (__ft_a != __ft_b)						\
		ft_fail(__FILE__, __LINE__, "%s is %lld, not %s (%lld)",\
			#a, __ft_a, #b, __ft_b);			\
} while (0)

void ft_sleep_us(unsigned int us);

/*
 * Wait for @cond with a generous bound; false (and a failed check) when it
 * did not come.  Never a measurement: a fast machine and a slow one pass.
 */
#define FT_WAIT(cond) ({						\
	uint64_t __ft_end = dci_now_ns() + FT_WAIT_NS;			\
	bool __ft_ok = true;						\
	while (!(cond)) {						\
		if (dci_now_ns() > __ft_end) {				\
			ft_fail(__FILE__, __LINE__,			\
				"gave up waiting for %s", #cond);	\
			__ft_ok = false;				\
			break;						\
		}							\
		ft_sleep_us(200);					\
	}								\
	__ft_ok;							\
})

/* --- a cache over the simulation backend --------------------------------- */

struct ft_env {
	struct dc_cache_config cfg;
	struct dc_simbe_config bcfg;
	struct dc_backend_ops ops;
	struct dc_simbe *be;
	struct dc_cache *cache;
	struct dc_inode *inode[FT_INODES];
	uint64_t rs;
	unsigned int nr;
	/*
	 * Backend failures were injected: the backend may keep records the
	 * cache no longer knows (failed removes), and dirty data may have been
	 * dropped (failed writebacks on eviction).
	 */
	bool faults;
};

static inline uint64_t ft_ino(unsigned int i)
{
	return FT_INO_BASE + i;
}

/* Defaults: @nr ranges of 64 KiB, a reclaim threshold of one range. */
void ft_env_init(struct ft_env *e, unsigned int nr);
/* Create the backend, the cache and @nr_inodes inodes; 0 or -errno. */
int ft_env_start(struct ft_env *e, unsigned int nr_inodes);
/* Wait until no background work is in flight. */
void ft_env_settle(struct ft_env *e);
/* Settle, then check every invariant that holds whenever it is quiet. */
void ft_env_check(struct ft_env *e);
/* Put the inodes, destroy the cache (checking it left nothing mapped). */
void ft_env_stop(struct ft_env *e);

/* Snapshots of the cache's and the backend's counters. */
#define ft_cst(e)	sim_cache_stats((e)->cache)
#define ft_sst(e)	sim_be_stats((e)->be)

/*
 * dc_map() inode @i at @off; on success check that the backend maps what
 * the pin says, with the right content.  Returns what dc_map() returned.
 */
int ft_map(struct ft_env *e, unsigned int i, uint64_t off, unsigned int flags,
	   struct dc_pin *pin);
/* ft_map() that must succeed, then unpin. */
void ft_touch(struct ft_env *e, unsigned int i, uint64_t off, unsigned int flags);
/*
 * Fill the window so that the next miss of inode 0 must reclaim inline,
 * with the background reclaimer held at a writeback; false if it never
 * got there.
 */
bool ft_freeze_reclaimer(struct ft_env *e);

/* --- the two halves of the test ------------------------------------------ */

/* Every allocation site failed in turn; returns the number of cases. */
unsigned long ft_alloc_run(void);
/* Every backend op x errno x calling path; returns the number of cases. */
unsigned long ft_backend_run(void);
/* The mmap backend's error paths; returns the number of cases. */
unsigned long ft_mmapbe_run(void);

#endif /* DC_FAULT_TEST_H */
