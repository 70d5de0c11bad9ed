/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * reclaim.pml - a Promela model of libdaxcache's allocation, reclaim and
 * wait protocol, as in lib/core/cache_map.c, lib/core/cache_reclaim.c,
 * lib/core/cache_pool.c and the userspace dci_waitq of lib/platform/user/.  tests/model/run checks it
 * with spin; docs/design.md ("The model-checked reclaim protocol") says
 * what it abstracts and why.
 *
 * Processes: NT mapping threads, each mapping a file range (inode 1..NI,
 * index 0..NX-1, chosen anew each time), holding the pin a while and
 * unpinning it, forever (or ITERS times); the background reclaimer (a
 * worker with a pending flag); an invariant monitor; an end-state watchdog.
 *
 * Each thread is a state machine: one `atomic { pc == X -> ... }` per step,
 * named after the code it stands for.  A step holds one access to state
 * that others touch without a lock (a refcount operation, c->pool.waiters, the
 * event counter, the pending flag, a lock-free tree lookup, a pool-locked
 * section, a lock-free read of r->owner or r->index).  By Lipton's
 * reduction it may also hold a lock acquisition before that access, a
 * release after it, and accesses to state its lock protects that nobody
 * reads without the lock.  The few places that merge more say why.
 * Memory is sequentially consistent: the model checks the protocol, on
 * the assumption that its barriers order what the comments say they order.
 *
 * Encoding: a range pointer is range number + 1 (0: NULL); an inode is
 * 1..NI (0: none); a mutex holds its holder's _pid + 1 (0: unlocked).
 *
 * Build-time switches (spin -DNAME):
 *   NT, NR, NX		mapping threads (2..3), ranges (1..2), indexes per inode (1..2)
 *   ITERS		maps per thread, then it exits (0: forever)
 *   SETUP_FAIL		setup() may fail (the miss path's undo)
 *   KICK_BG_FIRST,
 *   INLINE_OWN_ONLY	the cache flags DC_CACHE_KICK_BG_FIRST, DC_CACHE_INLINE_OWN_ONLY
 *   LIVE		the LTL properties (spin -a; pan -a -f -N name)
 *   FIXED_INODE	the last thread maps inode 2 only, the others inode 1
 *   NO_SLOTS		no pin slots: every pin counted, as in the kernel
 *   M_*		mutants, each one known bug; see tests/model/run
 *
 * A miss's setup runs with no lock held (map_new()): the range goes into
 * the tree at count 0 marked as being set up (r->setting_up), the mutex is
 * dropped, and once the setup is over the mark is cleared and whoever waits
 * for it (a miss of the same index that found the pending entry under the
 * mutex) is woken through the setup wait queue (dci_pool_setup_wait(),
 * dci_pool_setup_end()).
 *
 * Pins in slots (cache_map.c, "Pins"; userspace): a hit that passed the
 * identity check may pin either way, counted or in its thread's slot (the
 * code takes a slot while one is free: a thread here holds one pin at a
 * time, so the choice stands for a thread whose slots are all taken).  A
 * slot pin publishes the range in the slot (xchg: a full barrier), then
 * checks that the count is not 0 and the generation has not moved; on
 * failure it empties the slot and takes the slow path.  A claim takes the
 * count 1 -> 0 in one step and looks at the slots in the next (after its
 * full barrier), giving the mapping back (count 1) if one names it.  The
 * look at the NT slots is one step: a slot filled after the 1 -> 0 sees the
 * count at 0 and is emptied again, whichever the look sees, and one
 * emptied before the look holds nothing.
 */

#ifndef NT
#define NT	3
#endif
#ifndef NR
#define NR	1
#endif
#define NI	2
#ifndef NX
#define NX	2
#endif
#ifndef ITERS
#define ITERS	0
#endif
/* c->threshold: 20% of nr_ranges rounded down, at least 1. */
#define THRESH	1

#if NR > 2 || NX > 2 || NT > 3 || NT < 2
#error "the properties below spell out 1..2 ranges, 1..2 indexes, 2..3 threads"
#endif

#define SLOT(i, x)	(((i) - 1) * NX + (x))

/* --- the cache -------------------------------------------------------------- */

byte ref[NR];			/* r->ref: 0 free or claimed, 1 idle, 1 + n pinned */
byte owner[NR];			/* r->owner */
byte idx[NR];			/* r->index */
/*
 * r->gen, which every setup moves (map_new(); upgrades are not modelled,
 * and only make a pin fail): a 64-bit counter that never wraps, kept as
 * what try_pin() asks of it.  gload[k] is the range whose generation
 * thread k loaded (0: none); genmoved[k], whether a setup moved it since.
 */
byte gload[NT];
bool genmoved[NT];
bool infree[NR] = 1;		/* on c->pool.free_list */
bool onbusy[NR];		/* on c->pool.busy */
byte nfree = NR;		/* c->pool.nr_free */
byte tree[NI * NX];		/* the mapping table: (inode, index) slot -> range + 1 */
byte mtx[NI + 1];		/* inode->mutex, by inode number */

byte waiters;			/* c->pool.waiters */
bool reg[NT];			/* map_slow()'s registered: counted in c->pool.waiters */
bool moved[NT];			/* c->pool.events moved past this thread's snapshot ev */
byte wqw;			/* c->pool.waitq.waiters */
bool asleep[NT];		/* in pthread_cond_wait(&c->pool.waitq.cond) */
bool pending;			/* c->pool.reclaimer.pending */
bool setting[NR];		/* r->setting_up: a setup in flight, no lock held */
byte slot[NT];			/* each thread's pin slot: range + 1, 0 empty */
byte swaiters;			/* c->pool.setup_waiters */
bool sasleep[NT];		/* asleep on c->pool.setup_waitq */
byte swr[NT];			/* the range whose setup the thread waits for */

/* --- ghosts: not in the code; for the properties --------------------------------- */

bool held[NR];			/* claimed: count 0, off every list, one thread's */
byte gpins[NR];			/* counted pins handed out by dc_map() */
byte gspins[NR];		/* pins handed out in slots */
#ifdef LIVE
bool gotpin[NT];		/* the thread's current dc_map() has returned a pin */
#define GOTPIN(v)	gotpin[me] = v
#else
#define GOTPIN(v)	skip
#endif

/* --- helpers ------------------------------------------------------------------------ */

#define LOCK_FREE(m)	(mtx[m] == 0)
#define LOCK(m)		mtx[m] = _pid + 1
#define UNLOCK(m)	assert(mtx[m] == _pid + 1); mtx[m] = 0

/* The pool-locked half of dci_pool_put_free(). */
#define PUT_FREE(pr) \
	assert(ref[pr - 1] == 0 && held[pr - 1] && !onbusy[pr - 1] && gpins[pr - 1] == 0 && \
	       gspins[pr - 1] == 0); \
	held[pr - 1] = 0; \
	infree[pr - 1] = 1; \
	nfree++

/*
 * The pool-locked half of dci_pool_take_free(): pop the free stack's top;
 * below the threshold, kick the reclaimer (after the unlock).  The code
 * kicks there only when the miss may (one that cannot reclaim inline, or a
 * cache that kicks first); here every such take kicks, and since the
 * reclaimer need not take a kick at once, the model's runs include the
 * code's (a waiter kicks for itself).  The code
 * first reads c->pool.nr_free without the lock and returns at 0: nr_free
 * changes only with the free list, in pool-locked sections, so that read
 * answers as this section would at that moment (an empty stack), and a
 * nonzero one just leads here.  One step either way.
 */
#if NR > 1
#define FREE_TOP	(infree[0] -> 1 : (infree[1] -> 2 : 0))
#else
#define FREE_TOP	(infree[0] -> 1 : 0)
#endif
#define TAKE_FREE(pr) \
	pr = FREE_TOP; \
	if \
	:: pr -> \
		assert(ref[pr - 1] == 0 && !held[pr - 1] && gpins[pr - 1] == 0 && !onbusy[pr - 1]); \
		infree[pr - 1] = 0; \
		held[pr - 1] = 1; \
		nfree--; \
		kick_it = nfree < THRESH \
	:: else \
	fi

/*
 * pick_victim(): under the pool lock, an idle range on the busy ring, and
 * its owner (stable while it is on the ring).  The hand's order and the
 * CLOCK bit are abstracted away: any idle busy range may be picked.
 */
#define IDLE(k)	(onbusy[k] && ref[k] == 1)
#if NR > 1
#define PICK_VICTIM(pv, po) \
	if \
	:: IDLE(0) -> pv = 1 \
	:: IDLE(1) -> pv = 2 \
	:: else -> pv = 0 \
	fi; \
	po = (pv -> owner[pv - 1] : 0)
#else
#define PICK_VICTIM(pv, po) \
	pv = (IDLE(0) -> 1 : 0); \
	po = (pv -> owner[pv - 1] : 0)
#endif

/*
 * The claim proper, by a holder of @co's mutex that read the range's index
 * into ci: the tree still maps @cr there, dec_if_one (1 -> 0), out of the
 * tree and off the busy ring.  The tree check is under the mutex we hold;
 * a range at count 0 cannot be pinned or picked, so whether a lock-free
 * reader sees it in the tree or on the ring a moment longer changes nothing.
 */
#define CLAIM(co, cr, cok) \
	if \
	:: tree[SLOT(co, ci)] == cr && ref[cr - 1] == 1 -> \
		ref[cr - 1] = 0; \
		cok = 1 \
	:: else -> cok = 0 \
	fi

/*
 * claim_idle()'s second step, after a CLAIM that took the count to 0 and
 * a full barrier: the look at every thread's slot.  A slot naming @cr gives
 * the mapping back (count 1); else the claim stands: out of the tree and
 * off the busy ring.  M_NO_SLOT_SCAN: a claim that does not look.
 */
#ifdef M_NO_SLOT_SCAN
#define SLOTTED(k)	0
#elif NT == 3
#define SLOTTED(k)	(slot[0] == (k) + 1 || slot[1] == (k) + 1 || slot[2] == (k) + 1)
#else
#define SLOTTED(k)	(slot[0] == (k) + 1 || slot[1] == (k) + 1)
#endif
#define CLAIM_SCAN(co, cr, cok) \
	assert(ref[cr - 1] == 0 && tree[SLOT(co, ci)] == cr); \
	if \
	:: SLOTTED(cr - 1) -> ref[cr - 1] = 1; cok = 0 \
	:: else -> \
		assert(!held[cr - 1] && gpins[cr - 1] == 0 && gspins[cr - 1] == 0 && \
		       onbusy[cr - 1]); \
		held[cr - 1] = 1; \
		tree[SLOT(co, ci)] = 0; \
		onbusy[cr - 1] = 0; \
		cok = 1 \
	fi

/* M_CLAIM_RACY: the count is read, then written in a later step. */
#define CLAIM_CHECK(co, cr, cok) \
	cok = (tree[SLOT(co, ci)] == cr && ref[cr - 1] == 1)
#define CLAIM_WRITE(co, cr) \
	ref[cr - 1] = 0; \
	assert(!held[cr - 1] && gspins[cr - 1] == 0); \
	held[cr - 1] = 1; \
	tree[SLOT(co, ci)] = 0; \
	onbusy[cr - 1] = 0

/* A pin handed out: it maps what was asked for. */
#define GOT_PIN(pr) \
	assert(owner[pr - 1] == i && idx[pr - 1] == x && ref[pr - 1] >= 2); \
	gpins[pr - 1]++; \
	GOTPIN(1)

/* A slot pin handed out: it maps what was asked for, and nobody claimed it. */
#define GOT_SLOT_PIN(pr) \
	assert(owner[pr - 1] == i && idx[pr - 1] == x && ref[pr - 1] >= 1 && \
	       !held[pr - 1] && slot[me] == pr); \
	gspins[pr - 1]++; \
	sp = 1; \
	GOTPIN(1)

/* --- dci_pool_wake(), shared by both kinds of thread ------------------------------------- */

/*
 * wake_waiters(ret): if (dci_atomic_read(&c->pool.waiters)) dci_pool_wake(c);
 * then go on at @ret.  dci_pool_wake(): dci_atomic64_inc(&c->pool.events), then
 * dci_waitq_wake_all(): under the waitq lock, broadcast if anyone sleeps.
 *
 * The increment and the broadcast are one step.  A thread's snapshot of
 * the counter matters only while it is registered (it takes the snapshot
 * after registering), so `moved` is kept for registered threads only.  The
 * counter is read only by a sleeper's check, under the waitq lock, which
 * the broadcast takes: a check between the two sees the increment and does
 * not sleep, as it would after both; one before both sleeps and is woken,
 * as it would be before both.  What the split adds is a spurious wake-up of
 * a thread that registered in between, which checks and sleeps again.
 */
#define WAKE_STEPS \
	:: atomic { pc == WAKE_CHECK -> \
		if \
		:: waiters > 0 -> pc = WAKE_EVENT \
		:: else -> pc = ret; ret = 0 \
		fi \
	} \
	:: atomic { pc == WAKE_EVENT -> \
		for (k : 0 .. NT - 1) { moved[k] = reg[k] }; \
		if \
		:: wqw > 0 -> for (k : 0 .. NT - 1) { asleep[k] = 0 } \
		:: else \
		fi; \
		k = 0; \
		pc = ret; \
		ret = 0 \
	}

/* --- mapping threads ------------------------------------------------------------------------ */

/* Steps of a mapping thread. */
#define START		1	/* dc_map(): choose (i, x); map_fast's tree lookup */
#define PIN		2	/* try_pin(): inc_not_zero and the generation check */
#define STALE		3	/* try_pin() pinned something else: range_unpin() */
#define SLOW_LOCK	4	/* map_slow(): lock, lookup, dci_pool_take_free() */
#define TAKE_KICK	5	/* the take left the pool below threshold: kick */
#define BG_FIRST	6	/* DC_CACHE_KICK_BG_FIRST: kick before inline reclaim */
#define OWN		7	/* reclaim_own(): claim an idle mapping of our inode */
#define OWN_WRITE	8	/* M_CLAIM_RACY: the claim's write */
#define OTHER		9	/* reclaim_other(): pick_victim() */
#define V_LOCK		10	/* trylock the victim's owner; owner check */
#define V_INDEX		11	/* read the victim's index */
#define V_CLAIM		12	/* the claim; unlock the owner */
#define MAP_NEW		13	/* owner, index, into the tree at count 0 */
#define SETUP		14	/* ops->setup(): succeeds, or fails and frees */
#define FAILED_DONE	15	/* after the failed setup's free: return */
#define PUBLISH		16	/* count 2: the mapping and our pin */
#define ADD_BUSY	17	/* onto the busy ring; unlock */
#define KICK_WAIT	18	/* no range: unlocked; kick the reclaimer */
#define REGISTER	19	/* dci_atomic_inc(&c->pool.waiters); ev = events */
#define SLEEP		21	/* dci_waitq_wait_timeout(): check, sleep */
#define WOKEN		22	/* woken: check again */
#define UNREGISTER	23	/* dci_atomic_dec(&c->pool.waiters) */
#define PINNED		24	/* holding the pin; the step is dc_unpin() */
#define UNPIN_DEC	25	/* M_UNPIN_PEEK_FIRST: the decrement */
#define WAKE_CHECK	26
#define WAKE_EVENT	27
#define SETUP_FREE	30	/* M_WAKE_BEFORE_FREE: the free after the wake */
#define PRECHECK	31	/* try_pin(): owner and index, before the count */
#define GEN_LOAD	32	/* try_pin(): load-acquire the generation */
#define SETUP_END	33	/* dci_pool_setup_end(): clear the mark */
#define SETUP_WAKE	34	/* ... barrier; setup waiters? wake them */
#define SETUP_CLEAR	35	/* M_SETUP_PEEK_FIRST: the clear after the look */
#define SW_REG		36	/* dci_pool_setup_wait(): count us in */
#define SW_SLEEP	37	/* dc_waitq_wait(): check the mark, sleep */
#define SW_WOKEN	38	/* woken: check again */
#define SW_UNREG	39	/* count us out; look again (map_slow()) */
#define FAILED_FREE	40	/* the failed setup's dci_range_release() */
#define SPUB		41	/* slot pin: publish the range in our slot (xchg) */
#define SCHECK		42	/* slot pin: count not 0, generation unmoved? */
#define SSTALE		43	/* slot pin failed: empty the slot, then wake_waiters */
#define OWN_SCAN	44	/* reclaim_own()'s claim: the look at the slots */
#define V_SCAN		45	/* reclaim_other()'s claim: the look at the slots */

/*
 * range_unpin(r), then go on at @next: dci_refcount_dec(&r->ref); barrier;
 * if anyone waits, wake them.
 */
#ifdef M_UNPIN_PEEK_FIRST
/* The waiter count is read before the decrement. */
#define UNPIN(next)	lk = waiters > 0; ret = next; pc = UNPIN_DEC
#else
#define UNPIN(next)	ref[r - 1]--; r = 0; ret = next; pc = WAKE_CHECK
#endif

active [NT] proctype mapper()
{
	byte me = _pid;
	byte pc = START, ret, ret2;
	byte i, x, r, o, v, n, ci, k;
	bool ok, lk, kick_it;
	bool sp;			/* the pin held is in our slot */
#if ITERS
	byte it;
#endif

	assert(_pid < NT);
	do
#if ITERS
	:: atomic { pc == START && it == ITERS -> break }
#endif
	:: atomic {
		pc == START &&
#if ITERS
		it < ITERS ->
#else
		true ->
#endif
#if ITERS
		it++;
#endif
		GOTPIN(0);
#ifdef FIXED_INODE
		/* the last thread maps inode 2, the others inode 1 */
		i = (me == NT - 1 -> 2 : 1);
#else
		select(i : 1 .. NI);
#endif
		select(x : 0 .. NX - 1);
		/*
		 * map_fast(): the tree under RCU.  The hint is not modelled
		 * apart: this lookup already yields a pointer that may be
		 * reclaimed and reused before the pin; a hint is an older one.
		 */
		r = tree[SLOT(i, x)];
		pc = (r -> GEN_LOAD : SLOW_LOCK)
	}
	:: atomic {
		pc == GEN_LOAD ->
		/* try_pin(): gen = dci_load_acquire(&r->gen), first of all. */
		gload[me] = r;
		genmoved[me] = 0;
		pc = PRECHECK
	}
	:: atomic {
		pc == PRECHECK ->
		/*
		 * try_pin(): owner and index, before touching the count.  Read
		 * in one step: a torn pair can only pass where the range is
		 * being reused, which the generation check catches, as it
		 * catches a reuse right after this look.  Read after the
		 * generation (acquire), they are at least as new as it.
		 */
#if defined(M_NO_IDCHECK) || defined(M_NO_PRECHECK)
		pc = PIN
#else
		if
		:: owner[r - 1] == i && idx[r - 1] == x -> pc = PIN
#ifndef NO_SLOTS
		:: owner[r - 1] == i && idx[r - 1] == x -> pc = SPUB
#endif
		:: else -> r = 0; gload[me] = 0; genmoved[me] = 0; pc = SLOW_LOCK
		fi
#endif
	}
#ifndef NO_SLOTS
	:: atomic { pc == SPUB -> assert(slot[me] == 0); slot[me] = r; pc = SCHECK }
	:: atomic {
		pc == SCHECK ->
		/*
		 * After the publication and its barrier: a count of 0 is a
		 * claim (or a pending entry), a moved generation a setup since
		 * the first load.  M_SLOT_NO_RECHECK: the count is not looked
		 * at.  The generation moves only at count 0 (PUBLISH), so the
		 * two reads may be one step.
		 */
		if
#ifdef M_SLOT_NO_RECHECK
		:: !genmoved[me] ->
#else
		:: ref[r - 1] > 0 && !genmoved[me] ->
#endif
			pc = PINNED;
			GOT_SLOT_PIN(r)
		:: else -> pc = SSTALE
		fi;
		gload[me] = 0;
		genmoved[me] = 0
	}
	/* slot_unpin() of the failed pin: empty the slot; waiters?  wake them */
	:: atomic { pc == SSTALE -> slot[me] = 0; r = 0; ret = SLOW_LOCK; pc = WAKE_CHECK }
#endif
	:: atomic {
		pc == PIN ->
		/*
		 * try_pin(): inc_not_zero, then the generation again.  One step:
		 * with the count raised nobody can claim the range, and its
		 * generation moves only while it is claimed (PUBLISH asserts
		 * so), so reading it now is reading it later.  Unchanged, it
		 * says no setup came between the first load and the pin: the
		 * identity read in between is still the range's.
		 */
		if
		:: ref[r - 1] > 0 ->
			ref[r - 1]++;
#if defined(M_NO_IDCHECK) || defined(M_NO_GENCHECK)
			pc = PINNED;
			GOT_PIN(r)
#else
			if
			:: !genmoved[me] ->
				pc = PINNED;
				GOT_PIN(r)
			:: else -> pc = STALE
			fi
#endif
		:: else -> r = 0; pc = SLOW_LOCK
		fi;
		gload[me] = 0;
		genmoved[me] = 0
	}
	:: atomic { pc == STALE -> UNPIN(SLOW_LOCK) }
	:: atomic {
		pc == SLOW_LOCK && LOCK_FREE(i) ->
		/* dci_mutex_lock(&inode->mutex); look again */
		LOCK(i);
		r = tree[SLOT(i, x)];
		if
		:: r && ref[r - 1] > 0 ->
			/* mapped by a racing thread: pin theirs */
			ref[r - 1]++;
			UNLOCK(i);
			GOT_PIN(r);
			pc = (reg[me] -> UNREGISTER : PINNED)
		:: r && ref[r - 1] == 0 ->
			/* a pending entry: wait for its setup, then again */
			assert(setting[r - 1]);
			UNLOCK(i);
			swr[me] = r;
			r = 0;
			pc = SW_REG
		:: else ->
			/* alloc_range(): the free pool first */
			TAKE_FREE(r);
			if
			:: r -> pc = (kick_it -> TAKE_KICK : MAP_NEW); kick_it = 0
#ifdef KICK_BG_FIRST
			:: else -> pc = BG_FIRST
#else
			:: else -> pc = OWN
#endif
			fi
		fi
	}
	:: atomic { pc == TAKE_KICK -> pending = 1; pc = MAP_NEW }
	:: atomic { pc == BG_FIRST -> pending = 1; pc = OWN }
	:: atomic {
		pc == OWN ->
		/*
		 * reclaim_own(): two rounds of our tree (the budget is twice
		 * the count), one slot a step.  Our tree, under our mutex:
		 * its ranges keep owner and index; the code's look at the
		 * count first only filters what dec_if_one decides.  Unless
		 * the own walk is all there is, a miss may also start at the
		 * hand (its inode holds no more than half the window).
		 */
		if
#ifndef INLINE_OWN_ONLY
		:: n == 0 ->
			n = NR;
			pc = OTHER
#endif
		:: n < 2 * NX ->
			ci = n % NX;
			v = tree[SLOT(i, ci)];
			n++;
			if
			:: v ->
#ifdef M_CLAIM_RACY
				CLAIM_CHECK(i, v, ok);
				if
				:: ok -> pc = OWN_WRITE
				:: else -> v = 0; ci = 0
				fi
#else
				CLAIM(i, v, ok);
				if
				:: ok -> pc = OWN_SCAN
				:: else -> v = 0; ci = 0
				fi;
				ok = 0
#endif
			:: else -> ci = 0
			fi
		:: else ->
#ifdef INLINE_OWN_ONLY
			n = 0;
			UNLOCK(i);
			pc = KICK_WAIT
#else
			n = NR;
			pc = OTHER
#endif
		fi
	}
	:: atomic {
		pc == OWN_SCAN ->
		CLAIM_SCAN(i, v, ok);
		if
		:: ok -> r = v; n = 0; pc = MAP_NEW
		:: else -> pc = OWN
		fi;
		v = 0; ok = 0; ci = 0
	}
#ifdef M_CLAIM_RACY
	:: atomic {
		pc == OWN_WRITE ->
		CLAIM_WRITE(i, v);
		r = v; v = 0; n = 0; ok = 0; ci = 0;
		pc = MAP_NEW
	}
#endif
	:: atomic {
		pc == OTHER ->
		/* reclaim_other(): at most nr_ranges victims from the hand */
		if
		:: n > 0 ->
			n--;
			PICK_VICTIM(v, o);
			if
			:: v -> pc = V_LOCK
			:: else -> n = 0; UNLOCK(i); pc = KICK_WAIT
			fi
		:: else -> UNLOCK(i); pc = KICK_WAIT
		fi
	}
	:: atomic {
		pc == V_LOCK &&
#ifdef M_BLOCKING_OTHER
		(o == i || LOCK_FREE(o)) ->
#else
		true ->
#endif
		/*
		 * Our own inode's victim: we hold its mutex.  Another's: by
		 * trylock only, since we hold ours.  Then claim_locked():
		 * still the owner's?  (The victim may have been claimed and
		 * reused since the hand saw it.)
		 */
		if
		:: o == i -> lk = 1
		:: else ->
			if
			:: LOCK_FREE(o) -> LOCK(o); lk = 1
			:: else -> lk = 0
			fi
		fi;
		if
		:: lk && owner[v - 1] == o -> pc = V_INDEX
		:: else ->
			if
			:: lk && o != i -> UNLOCK(o)
			:: else
			fi;
			v = 0; o = 0; pc = OTHER
		fi;
		lk = 0
	}
	:: atomic { pc == V_INDEX -> ci = idx[v - 1]; pc = V_CLAIM }
	:: atomic {
		pc == V_CLAIM ->
		CLAIM(o, v, ok);
		if
		:: ok -> pc = V_SCAN
		:: else ->
			if
			:: o != i -> UNLOCK(o)
			:: else
			fi;
			pc = OTHER;
			v = 0; o = 0; ci = 0
		fi;
		ok = 0
	}
	:: atomic {
		pc == V_SCAN ->
		CLAIM_SCAN(o, v, ok);
		if
		:: o != i -> UNLOCK(o)
		:: else
		fi;
		if
		:: ok -> r = v; n = 0; pc = MAP_NEW
		:: else -> pc = OTHER
		fi;
		v = 0; o = 0; ok = 0; ci = 0
	}
	:: atomic {
		pc == MAP_NEW ->
		/*
		 * map_new(): the mark, the new owner and index (the mapping
		 * table's key), then into the table (tree[]), at count 0, and
		 * unlock for the setup.  A lock-free reader that finds a
		 * range at count 0 fails to pin it whatever it read; one that
		 * loaded the old generation fails its check after the pin; a
		 * miss that finds it under the mutex waits for the mark to
		 * clear.
		 */
		assert(mtx[i] == _pid + 1);
		assert(ref[r - 1] == 0 && held[r - 1] && gpins[r - 1] == 0 &&
		       !infree[r - 1] && !onbusy[r - 1] && tree[SLOT(i, x)] == 0 &&
		       !setting[r - 1]);
		setting[r - 1] = 1;
		owner[r - 1] = i;
		idx[r - 1] = x;
		tree[SLOT(i, x)] = r;
		UNLOCK(i);
		pc = SETUP
	}
	/* ops->setup(), no lock held: it succeeds ... */
	:: atomic { pc == SETUP -> pc = PUBLISH }
#ifdef SETUP_FAIL
	:: atomic {
		pc == SETUP && LOCK_FREE(i) ->
		/* ... or fails: map_new_failed(): out of the tree under the mutex */
		LOCK(i);
		assert(tree[SLOT(i, x)] == r && ref[r - 1] == 0);
		tree[SLOT(i, x)] = 0;
		UNLOCK(i);
		ret2 = FAILED_FREE;
		pc = SETUP_END
	}
	:: atomic {
		pc == FAILED_FREE ->
		/* dci_range_release(), after the mark is clear */
#ifdef M_WAKE_BEFORE_FREE
		ret = SETUP_FREE;	/* the free after the wake */
		pc = WAKE_CHECK
#else
		PUT_FREE(r);
		ret = FAILED_DONE;
		pc = WAKE_CHECK
#endif
	}
	:: atomic {
		pc == FAILED_DONE ->
		r = 0; i = 0; x = 0;
		pc = (reg[me] -> UNREGISTER : START)
	}
#ifdef M_WAKE_BEFORE_FREE
	:: atomic { pc == SETUP_FREE -> PUT_FREE(r); pc = FAILED_DONE }
#endif
#endif
	:: atomic {
		pc == PUBLISH ->
		/*
		 * The new generation (release), then
		 * dci_refcount_set_release(&r->ref, 2): one step, as the
		 * identity (written at MAP_NEW) changes only at count 0 and
		 * the release publishes it with the count.  A reader that
		 * loaded the old generation fails its check; one that loads
		 * the new one reads the new identity.
		 */
		assert(ref[r - 1] == 0 && owner[r - 1] == i && idx[r - 1] == x);
		for (k : 0 .. NT - 1) {
			if
			:: gload[k] == r -> genmoved[k] = 1
			:: else
			fi
		};
		k = 0;
		ref[r - 1] = 2;
		held[r - 1] = 0;
		GOT_PIN(r);
		pc = ADD_BUSY
	}
	:: atomic {
		pc == ADD_BUSY ->
		/* dci_pool_add_busy(), then the setup's end */
		onbusy[r - 1] = 1;
		ret2 = (reg[me] -> UNREGISTER : PINNED);
		pc = SETUP_END
	}
	/*
	 * dci_pool_setup_end(): clear the mark (release); full barrier; if the
	 * count of setup waiters says someone waits, wake the setup queue
	 * (under its lock, as a sleeper checks the mark under it).  Then on
	 * at ret2.
	 */
#ifdef M_SETUP_PEEK_FIRST
	/* The waiters are counted before the mark is cleared. */
	:: atomic { pc == SETUP_END -> lk = swaiters > 0; pc = SETUP_CLEAR }
	:: atomic {
		pc == SETUP_CLEAR ->
		setting[r - 1] = 0;
		if
		:: lk -> for (k : 0 .. NT - 1) { sasleep[k] = 0 }; k = 0
		:: else
		fi;
		lk = 0;
		pc = ret2;
		ret2 = 0
	}
#else
	:: atomic { pc == SETUP_END -> setting[r - 1] = 0; pc = SETUP_WAKE }
	:: atomic {
		pc == SETUP_WAKE ->
		if
		:: swaiters > 0 -> for (k : 0 .. NT - 1) { sasleep[k] = 0 }; k = 0
		:: else
		fi;
		pc = ret2;
		ret2 = 0
	}
#endif
	/*
	 * dci_pool_setup_wait(): count us in (then a full barrier), then
	 * dc_waitq_wait(): under the queue's lock, check the mark and sleep
	 * (one step, as in SLEEP); woken, check again.  No timeout: a lost
	 * wake-up sleeps for good, which the watchdog reports.
	 */
	:: atomic { pc == SW_REG -> swaiters++; pc = SW_SLEEP }
	:: atomic {
		pc == SW_SLEEP ->
		if
		:: !setting[swr[me] - 1] -> pc = SW_UNREG
		:: else -> sasleep[me] = 1; pc = SW_WOKEN
		fi
	}
	:: atomic {
		pc == SW_WOKEN && !sasleep[me] ->
		if
		:: !setting[swr[me] - 1] -> pc = SW_UNREG
		:: else -> sasleep[me] = 1
		fi
	}
	:: atomic { pc == SW_UNREG -> swaiters--; swr[me] = 0; pc = SLOW_LOCK }
	:: atomic {
		pc == KICK_WAIT ->
		/* unlocked, no range: dci_pool_kick_reclaimer() */
		pending = 1;
		pc = (reg[me] -> SLEEP : REGISTER)
	}
	:: atomic {
		pc == REGISTER ->
		/*
		 * Register, snapshot ev, and look once more before sleeping.
		 * The increment and the snapshot are one step: an event
		 * between them would bump a snapshot not yet taken.
		 */
		waiters++;
		reg[me] = 1;
		moved[me] = 0;
#ifdef M_SLEEP_AT_ONCE
		pc = SLEEP
#else
		pc = SLOW_LOCK
#endif
	}
	:: atomic {
		pc == SLEEP ->
		/*
		 * dci_waitq_wait_timeout(&c->pool.waitq, events != ev, forever):
		 * lock, count, check, and pthread_cond_wait's unlock-and-
		 * sleep, in one step (lock ... unlock around one read).
		 * No timeout and no spurious wake-up: a lost wake-up sleeps
		 * forever.  When the wait returns, map_slow() takes a new
		 * snapshot (ev = events); it is taken in the same step.  An
		 * event between the two was published before it was counted,
		 * so the look that follows sees what it announced.
		 */
		if
		:: moved[me] -> moved[me] = 0; pc = SLOW_LOCK
		:: else -> wqw++; asleep[me] = 1; pc = WOKEN
		fi
	}
	:: atomic {
		pc == WOKEN && !asleep[me] ->
		/* broadcast: take the lock again, check again */
		if
		:: moved[me] -> wqw--; moved[me] = 0; pc = SLOW_LOCK
		:: else -> asleep[me] = 1
		fi
	}
	:: atomic {
		pc == UNREGISTER ->
		waiters--;
		reg[me] = 0;
		moved[me] = 0;
		pc = (r -> PINNED : START)
	}
	:: atomic {
		pc == PINNED && !sp ->
		/* the caller used the window; dc_unpin() */
		assert(owner[r - 1] == i && idx[r - 1] == x &&
		       ref[r - 1] >= gpins[r - 1] + 1);
		gpins[r - 1]--;
		i = 0;
		x = 0;
		UNPIN(START)
	}
	:: atomic {
		pc == PINNED && sp ->
		/*
		 * The same with a slot pin: still the mapping asked for, and
		 * nobody's claim; dc_unpin() empties the slot (xchg), then
		 * wake_waiters.
		 */
		assert(owner[r - 1] == i && idx[r - 1] == x && !held[r - 1] &&
		       slot[me] == r && gspins[r - 1] > 0);
		gspins[r - 1]--;
		slot[me] = 0;
		sp = 0;
		i = 0;
		x = 0;
		r = 0;
		ret = START;
		pc = WAKE_CHECK
	}
#ifdef M_UNPIN_PEEK_FIRST
	:: atomic {
		pc == UNPIN_DEC ->
		ref[r - 1]--;
		r = 0;
		pc = (lk -> WAKE_EVENT : ret);
		ret = (lk -> ret : 0);
		lk = 0
	}
#endif
	WAKE_STEPS
	od
}

/* --- the background reclaimer ------------------------------------------------------------------ */

#define R_IDLE		1	/* the worker waits for pending */
#define R_CHECK		2	/* nr_free(c) < c->threshold? */
#define R_PICK		3	/* pick_victim() */
#define R_LOCK		4	/* trylock the owner; owner check */
#define R_INDEX		5	/* read the victim's index */
#define R_CLAIM		6	/* the claim; unlock */
#define R_FLUSH		7	/* batch_flush(): free the next claimed range */
#define R_PUSH		8	/* M_WAKE_BEFORE_FREE: the free after the wake */
#define R_SCAN		9	/* the claim's look at the slots; unlock */

/*
 * dci_reclaimer_fn(): passes while fewer than THRESH ranges are free; a pass
 * claims up to nr_ranges victims (reclaim_batch 10 and remove_batch_max 256
 * never fill), owners by trylock only, then removes and frees them all; a
 * pass that got none stops.  Its mutex holds and waits are all trylocks,
 * so it blocks only while idle: every state of it is a valid end state.
 */
active proctype reclaimer()
{
	byte pc = R_IDLE, ret;
	byte k, v, o, n, got, batch, ci;
	bool ok, lk;

end_reclaimer:
	do
	:: atomic { pc == R_IDLE && pending -> pending = 0; pc = R_CHECK }
	:: atomic {
		pc == R_CHECK ->
		if
		:: nfree < THRESH -> n = NR; pc = R_PICK
		:: else -> pc = R_IDLE
		fi
	}
	:: atomic {
		pc == R_PICK ->
		if
		:: n > 0 ->
			n--;
			PICK_VICTIM(v, o);
			if
			:: v -> pc = R_LOCK
			:: else -> n = 0; pc = R_FLUSH
			fi
		:: else -> pc = R_FLUSH
		fi
	}
	:: atomic {
		pc == R_LOCK ->
		/* "Never wait for a lock while holding one": trylock */
		if
		:: LOCK_FREE(o) ->
			LOCK(o);
			if
			:: owner[v - 1] == o -> pc = R_INDEX
			:: else -> UNLOCK(o); v = 0; o = 0; pc = R_PICK
			fi
		:: else -> v = 0; o = 0; pc = R_PICK
		fi
	}
	:: atomic { pc == R_INDEX -> ci = idx[v - 1]; pc = R_CLAIM }
	:: atomic {
		pc == R_CLAIM ->
		CLAIM(o, v, ok);
		if
		:: ok -> pc = R_SCAN
		:: else -> UNLOCK(o); v = 0; o = 0; ci = 0; pc = R_PICK
		fi;
		ok = 0
	}
	:: atomic {
		pc == R_SCAN ->
		CLAIM_SCAN(o, v, ok);
		UNLOCK(o);
		if
		:: ok -> batch = batch | (1 << (v - 1)); got++
		:: else
		fi;
		v = 0; o = 0; ok = 0; ci = 0;
		pc = R_PICK
	}
	:: atomic {
		pc == R_FLUSH ->
		/* backend remove, then dci_pool_put_free() for each */
		if
		:: batch & 1 -> batch = batch & ~1; v = 1
		:: batch & 2 -> batch = batch & ~2; v = 2
		:: else -> v = 0
		fi;
		if
		:: v ->
#ifdef M_WAKE_BEFORE_FREE
			ret = R_PUSH;
#else
			PUT_FREE(v);
			ret = R_FLUSH;
			v = 0;
#endif
			pc = WAKE_CHECK
		:: else ->
			pc = (got -> R_CHECK : R_IDLE);
			got = 0
		fi
	}
#ifdef M_WAKE_BEFORE_FREE
	:: atomic { pc == R_PUSH -> PUT_FREE(v); v = 0; pc = R_FLUSH }
#endif
	WAKE_STEPS
	od
}

/* --- properties ---------------------------------------------------------------------------------- */

/* How many tree slots map range k (at most one). */
#define MAPS(s, k)	(tree[s] == (k) + 1 -> 1 : 0)
#if NX == 2
#define NMAPS(k)	(MAPS(0, k) + MAPS(1, k) + MAPS(2, k) + MAPS(3, k))
#else
#define NMAPS(k)	(MAPS(0, k) + MAPS(1, k))
#endif

/*
 * Range k is consistent: mapped in at most one slot; free means count 0,
 * off the busy ring, unclaimed, unmapped; a count above 0 means it maps
 * what its owner's tree says at its index and is nobody's claim; the pins
 * handed out are counted in it.
 */
#define RANGE_OK(k)	(NMAPS(k) <= 1 && \
			 (!infree[k] || (ref[k] == 0 && !onbusy[k] && !held[k] && NMAPS(k) == 0)) && \
			 (ref[k] == 0 || (owner[k] >= 1 && !held[k] && \
					  tree[SLOT(owner[k], idx[k])] == (k) + 1)) && \
			 (gpins[k] == 0 || ref[k] >= gpins[k] + 1) && \
			 (gspins[k] == 0 || (!held[k] && !infree[k])))
#if NR == 2
#define INVARIANT	(RANGE_OK(0) && RANGE_OK(1) && nfree == (infree[0] -> 1 : 0) + (infree[1] -> 1 : 0))
#define AVAILABLE	(infree[0] || ref[0] == 1 || infree[1] || ref[1] == 1)
#else
#define INVARIANT	(RANGE_OK(0) && nfree == (infree[0] -> 1 : 0))
#define AVAILABLE	(infree[0] || ref[0] == 1)
#endif

/* Thread k sleeps for a setup that is over: a lost wake-up. */
#define SLOST(k)	(sasleep[k] && !setting[swr[k] - 1])
#if NT == 3
#define ASLEEP		(asleep[0] || asleep[1] || asleep[2])
#define ANYPIN		(gotpin[0] || gotpin[1] || gotpin[2])
#define SETUP_LOST	(SLOST(0) || SLOST(1) || SLOST(2))
#else
#define ASLEEP		(asleep[0] || asleep[1])
#define ANYPIN		(gotpin[0] || gotpin[1])
#define SETUP_LOST	(SLOST(0) || SLOST(1))
#endif

/* Blocked until the invariant breaks: so it is checked in every state. */
active proctype monitor()
{
end_monitor:
	atomic { !INVARIANT -> assert(INVARIANT) }
}

/*
 * When nothing can move (spin's timeout), no thread may sleep while a range
 * is free or idle, nor for a setup that is over: each is a lost wake-up.
 * Any other stuck state is an invalid end state: a mapping thread is not
 * at its end.
 */
active proctype watchdog()
{
end_watchdog:
	timeout -> assert(!(ASLEEP && AVAILABLE) && !SETUP_LOST)
}

#ifdef LIVE
/* Some thread's dc_map() returns a pin infinitely often. */
ltl some_maps { []<> ANYPIN }
/* Every thread's does (thread 0's; the threads run the same code). */
ltl each_maps { []<> gotpin[0] }
/* A sleeping thread is woken. */
ltl woken { [] (asleep[0] -> <> !asleep[0]) }
/* No thread sleeps forever while a range is free or idle. */
ltl no_lost_wakeup { ! <> [] (asleep[0] && AVAILABLE) }
#endif
