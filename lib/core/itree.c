// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * DOC: itree.c - interval tree with lockless (RCU) readers.
 *
 * A B+tree of non-overlapping closed intervals ordered by start.  Nodes are
 * immutable once published, except for the child pointers of internal
 * nodes and the unused slots of leaves: a writer changes a node by building
 * a copy and publishing it with one pointer store into the parent's child
 * slot (or the root).  A reader therefore always walks a consistent set of
 * nodes: each one it reaches is either the old or the new version, and both
 * route every key correctly.  Replaced nodes are freed after a grace period.
 *
 * The one change made in place: an entry whose start is above every start
 * of its leaf, in a leaf with room (ascending insertion, as a file read in
 * order maps its ranges), is written into the leaf's first unused slot,
 * which no reader has ever seen used (slots are never reused in place:
 * removal copies), and then counted in with a release store of @nr.  A
 * reader loads a leaf's @nr with acquire before anything else of it and
 * takes no entry at or past it (see leaf_nr()), so it sees the leaf as it
 * was before the append or after it, whole.
 *
 * Internal node: children child[0..nr-1]; child i holds the starts in
 * [key[i], key[i+1]) (key[0] is not used: child 0 takes everything below
 * key[1]).  Separators never move while an interval stays in the tree, so
 * an interval is always found in the leaf its start routes to.  Because an
 * interval may reach past its leaf's separator, a point lookup searches for
 * the greatest start <= point and, when the routed leaf holds none, takes
 * the rightmost entry of the nearest subtree to the left.
 *
 * No node is ever empty: a leaf whose last entry goes is unlinked together
 * with any ancestors left without children, and a root with a single child
 * is replaced by that child.  A removal thus builds at most one new node,
 * and when that allocation fails it reuses a node retired earlier after
 * waiting for a grace period, so removal never fails.  See docs/design.md.
 *
 * Locks: readers take none (a read-side section); writers are serialized
 * by their caller (a lock it may name with dci_itree_set_writer_lock(), so
 * that PROVE_RCU checks it).
 *
 * Callers: the API (<daxcache/itree.h>), and itree_internal.h's extras
 * (a lookup that notes where an insert goes, and the insert there).  The
 * window cache no longer keeps a tree: see cache_maptab.c.
 */
#include "platform.h"

#include "itree_internal.h"

#define ITREE_FANOUT	16
#define ITREE_MAX_DEPTH	DCI_ITREE_MAX_DEPTH
#define ITREE_PAD	UINT64_MAX
/*
 * Lookups prefetch each node's lines in trees whose root is at least this
 * high (4 levels: with full nodes, over 16^3 intervals in some 100 KiB),
 * whose nodes no longer all stay in the nearer caches.
 */
#define ITREE_PREFETCH_LEVEL	3

/*
 * key[] comes first: it is what a lookup scans.  Unused key slots hold
 * ITREE_PAD, so scans run over the whole fixed-size array without branches.
 * Leaves: key[] are the starts, ent[] the rest of each entry.  Internal
 * nodes: key[0] is always 0, key[i] the lowest start child[i] may hold.
 */
struct itree_node {
	uint64_t key[ITREE_FANOUT];
	union {
		struct {
			uint64_t last;
			void *item;
		} ent[ITREE_FANOUT];
		struct itree_node __rcu *child[ITREE_FANOUT];
	};
	unsigned int nr;		/* entries or children, never 0 */
	bool leaf;
	/*
	 * 0 for a leaf, one more than its children's for an inner node.
	 * Fixed for a node's lifetime, as its parent's is one more, so a
	 * reader reads the root's alone and then knows where the leaves are.
	 */
	unsigned char level;
	struct itree_node *next_free;	/* on a recycling list; writer only */
	dci_rcu_head_t rcu;		/* frees a list, past what a tree keeps */
	void *mem;			/* what itn_alloc() allocated */
};

struct dc_itree {
	struct itree_node __rcu *root;
	size_t count;
	uint64_t changes;		/* inserts and removes; see dci_itree_changes() */
	unsigned int height;		/* levels; 0 when empty */
	/* Removal's reserve: a ready node, or one retired before a grace period. */
	struct itree_node *spare;
	struct itree_node *retired_spare;
	dci_rcu_head_t rcu;
	dci_mutex_t *writer_lock;	/* see dci_itree_set_writer_lock() */
	/*
	 * Recycling replaced nodes (the writer's, but for @batch_done and
	 * @refs): retired nodes collect on @retiring; ITREE_BATCH of them go
	 * @inflight under one call_rcu(), whose callback sets @batch_done;
	 * then they are @free for the writer to reuse, instead of a free()
	 * on the callback thread and a malloc() here for every one.
	 */
	struct itree_node *free;	/* past their grace period */
	struct itree_node *retiring;	/* no grace period asked for yet */
	struct itree_node *inflight;	/* waiting for @batch_rcu */
	unsigned int nr_free, nr_retiring;
	unsigned int nr_taken;		/* nodes taken since the batch was sent */
	bool batch_pending;
	int batch_done;			/* release-stored by the callback */
	dci_rcu_head_t batch_rcu;
	/* The tree's own, and one while a batch is in flight. */
	dci_refcount_t refs;
};

#define ITREE_BATCH	8	/* retired nodes per call_rcu() */
/*
 * Reusable nodes a tree keeps: a few, and as many as its writer took while
 * the last batch waited for its grace period (what it needs per grace
 * period, which a busy writer in a big tree makes hundreds).
 */
#define ITREE_KEEP_MIN	16
#define ITREE_KEEP_MAX	32
/* Retired while a batch is in flight: past this many, freed as a list. */
#define ITREE_RETIRING_MAX	32

/*
 * Whether the caller may act as @t's writer: it holds the writer lock, as
 * far as the lock validator can tell, or the tree has none registered.
 * Only ever evaluated by the kernel's PROVE_RCU checks.
 */
#define itree_writer(t)	\
	(!(t)->writer_lock || dci_lockdep_is_held((t)->writer_lock))

/*
 * A node only the writer can reach: a new one not yet published, or one
 * unlinked (retired, or the tree is being destroyed).  Its child pointers
 * are read without a check.
 */
#define private_child(n, i)	dci_rcu_dereference_protected((n)->child[i], true)


/*
 * A node, cache-line aligned (see itn_prefetch()).  Not from dci_alloc():
 * its aligned allocation costs glibc several hundred instructions, which
 * made it the largest part of a miss; an allocation DCI_CACHELINE -
 * DCI_ALLOC_MIN_ALIGN bytes longer than a node holds an aligned one.
 */
static struct itree_node *itn_alloc(void)
{
	void *mem = dci_alloc_unaligned(sizeof(struct itree_node) +
				       DCI_CACHELINE - DCI_ALLOC_MIN_ALIGN);
	struct itree_node *n;

	if (!mem)
		return NULL;
	n = (struct itree_node *)(((uintptr_t)mem + DCI_CACHELINE - 1) &
				  ~(uintptr_t)(DCI_CACHELINE - 1));
	n->mem = mem;
	return n;
}

static void itn_free(struct itree_node *n)
{
	if (n)
		dci_free(n->mem);
}

static void free_list(struct itree_node *n)
{
	struct itree_node *next;

	for (; n; n = next) {
		next = n->next_free;
		itn_free(n);
	}
}

/* The last reference is gone: every list is past its grace period. */
static void tree_free(struct dc_itree *t)
{
	free_list(t->free);
	free_list(t->retiring);
	free_list(t->inflight);
	itn_free(t->spare);
	itn_free(t->retired_spare);
	dci_free(t);
}

static void tree_put(struct dc_itree *t)
{
	if (dci_refcount_dec_and_test(&t->refs))
		tree_free(t);
}

static void batch_done_rcu(dci_rcu_head_t *head)
{
	struct dc_itree *t = dci_container_of(head, struct dc_itree, batch_rcu);

	/* Orders the grace period before the writer's reuse of the batch. */
	dci_store_release(&t->batch_done, 1);
	tree_put(t);
}

/*
 * Take in a batch whose grace period has passed (up to ITREE_KEEP nodes
 * stay for reuse, the rest is freed), and send the next one.
 */
static void recycle(struct dc_itree *t)
{
	struct itree_node *n;

	if (t->batch_pending) {
		if (!dci_load_acquire(&t->batch_done))
			return;
		t->batch_pending = false;
		while ((n = t->inflight)) {
			t->inflight = n->next_free;
			if (t->nr_free < ITREE_KEEP_MIN + t->nr_taken &&
			    t->nr_free < ITREE_KEEP_MAX) {
				n->next_free = t->free;
				t->free = n;
				t->nr_free++;
			} else {
				itn_free(n);
			}
		}
	}
	if (t->nr_retiring >= ITREE_BATCH && !t->batch_pending) {
		t->nr_taken = 0;
		t->inflight = t->retiring;
		t->retiring = NULL;
		t->nr_retiring = 0;
		t->batch_pending = true;
		dci_write_once(t->batch_done, 0);
		dci_refcount_inc(&t->refs);
		dci_call_rcu(&t->batch_rcu, batch_done_rcu);
	}
}

/* A node for the writer: a recycled one if there is one, else a new one. */
static struct itree_node *itn_new(struct dc_itree *t)
{
	struct itree_node *n;

	recycle(t);
	t->nr_taken++;
	n = t->free;
	if (!n)
		return itn_alloc();
	t->free = n->next_free;
	t->nr_free--;
	return n;
}

/* A node that was never published goes straight back for reuse. */
static void itn_unused(struct dc_itree *t, struct itree_node *n)
{
	n->next_free = t->free;
	t->free = n;
	t->nr_free++;
}

/* Free the list of nodes @head's node starts, a grace period after. */
static void list_free_rcu(dci_rcu_head_t *head)
{
	free_list(dci_container_of(head, struct itree_node, rcu));
}

/*
 * @n is unlinked; readers may still see it until a grace period passes.
 * It waits for the next batch, unless so many already do (the last batch
 * is still in flight): then those go to be freed after a grace period of
 * their own, under one call_rcu() (the first node's head) instead of one
 * each, so that a tree never holds more than a few batches' worth.
 */
static void itn_retire(struct dc_itree *t, struct itree_node *n)
{
	n->next_free = t->retiring;
	t->retiring = n;
	if (++t->nr_retiring > ITREE_RETIRING_MAX) {
		dci_call_rcu(&n->rcu, list_free_rcu);
		t->retiring = NULL;
		t->nr_retiring = 0;
	}
}

/*
 * How many keys of @n are <= @key (pads count only for UINT64_MAX).  Four
 * partial sums, so that the compares do not wait on one another's carry.
 */
static inline unsigned int count_le(const struct itree_node *n, uint64_t key)
{
	unsigned int i, c0 = 0, c1 = 0, c2 = 0, c3 = 0;

	for (i = 0; i < ITREE_FANOUT; i += 4) {
		c0 += n->key[i] <= key;
		c1 += n->key[i + 1] <= key;
		c2 += n->key[i + 2] <= key;
		c3 += n->key[i + 3] <= key;
	}
	return c0 + c1 + c2 + c3;
}

/*
 * How many keys of @n are <= @key, for @key below UINT64_MAX (so pads never
 * count): the keys are sorted, so three compares pick the quarter that
 * holds the last one <= @key and four more count within it.  Seven loads
 * in two rounds of independent ones, no branch.
 */
static inline unsigned int count_le_below_max(const struct itree_node *n,
					      uint64_t key)
{
	unsigned int q = (dci_read_racy(n->key[4]) <= key) +
			 (dci_read_racy(n->key[8]) <= key) +
			 (dci_read_racy(n->key[12]) <= key);
	const uint64_t *k = &n->key[4 * q];

	return 4 * q + (dci_read_racy(k[0]) <= key) + (dci_read_racy(k[1]) <= key) +
	       (dci_read_racy(k[2]) <= key) + (dci_read_racy(k[3]) <= key);
}

/*
 * The entries of leaf @n a reader may take, read first: the entries below
 * it were all written before the release store that set it (see
 * leaf_append()), so they are complete.  Keys at or past it may be filled
 * in meanwhile, and are read with dci_read_racy() (leaf_count_le() and
 * leaf_count_lt()): each one is a pad or a key above every key below @nr,
 * so whichever a reader sees, a count that reaches @nr means that every
 * entry the reader may take counts.
 */
static inline unsigned int leaf_nr(const struct itree_node *n)
{
	return dci_load_acquire(&n->nr);
}

/*
 * count_le_below_max() of a leaf whose count @nr the caller read with
 * leaf_nr(), capped at @nr.  The keys are sorted at every moment (a slot
 * gains a key above all before it), so only keys at or past @nr may be
 * stale; where one of them decides a quarter or counts, the answer is
 * @nr or more, which the cap makes right.  (count_le_below_max() reads
 * every key with dci_read_racy() for this: in an internal node, never
 * written once published, that is an ordinary load.)
 */
static inline unsigned int leaf_count_le(const struct itree_node *n,
					 unsigned int nr, uint64_t key)
{
	unsigned int c = count_le_below_max(n, key);

	return c < nr ? c : nr;
}

/* How many keys of leaf @n are below @key, capped at @nr as above. */
static inline unsigned int leaf_count_lt(const struct itree_node *n,
					 unsigned int nr, uint64_t key)
{
	return key ? leaf_count_le(n, nr, key - 1) : 0;
}

/* The child of internal node @n to descend into for @key. */
static inline unsigned int route(const struct itree_node *n, uint64_t key)
{
	unsigned int i;

	/* key[0] == 0 always counts; below UINT64_MAX no pad does. */
	if (dci_likely(key != UINT64_MAX))
		return count_le_below_max(n, key) - 1;
	i = count_le(n, key) - 1;
	return i < n->nr ? i : n->nr - 1;
}

/* A reader's step down; the writer may look things up too. */
static inline struct itree_node *child(const struct dc_itree *t,
				       const struct itree_node *n, unsigned int i)
{
	return dci_rcu_dereference_check(((struct itree_node *)n)->child[i],
					itree_writer(t));
}

static inline struct itree_node *reader_root(const struct dc_itree *t)
{
	return dci_rcu_dereference_check(((struct dc_itree *)t)->root,
					itree_writer(t));
}

dci_static_assert(ITREE_FANOUT == 16, "count_le_below_max() scans 16 keys");
dci_static_assert(offsetof(struct itree_node, key) == 0 &&
		 offsetof(struct itree_node, child) == 2 * DCI_CACHELINE &&
		 offsetof(struct itree_node, ent) == 2 * DCI_CACHELINE,
		 "itn_prefetch() knows where the searched lines are");

/*
 * Ask for the lines of @n a lookup reads (nodes are cache-line aligned):
 * the keys, then the child pointers of an inner node (@leaf false) or the
 * entries of a leaf, so that the misses overlap instead of queueing.
 */
static dci_always_inline void itn_prefetch(const struct itree_node *n, bool leaf)
{
	const char *p = (const char *)n;

	dci_prefetch(p);
	dci_prefetch(p + DCI_CACHELINE);
	dci_prefetch(p + 2 * DCI_CACHELINE);
	dci_prefetch(p + 3 * DCI_CACHELINE);
	if (leaf) {
		dci_prefetch(p + 4 * DCI_CACHELINE);
		dci_prefetch(p + 5 * DCI_CACHELINE);
	}
}

/* The leaf holding the greatest start of the subtree @n, and its index. */
static const struct itree_node *rightmost(const struct dc_itree *t,
					  const struct itree_node *n,
					  unsigned int *idx)
{
	for (; !n->leaf; n = child(t, n, n->nr - 1))
		;
	*idx = leaf_nr(n) - 1;
	return n;
}

/*
 * search_floor() for a leaf that holds no start <= @key, which is rare:
 * the interval sought, if any, starts below the separator that routed
 * @key there.  A second walk from the root finds the deepest inner node
 * where the route did not take child 0; the answer is the rightmost entry
 * of its child left of the one taken.  Any version of that child holds
 * the same starts, all below the separator and so below @key.
 */
static dci_noinline const struct itree_node *
search_floor_left(const struct dc_itree *t, uint64_t key, unsigned int *idx)
{
	const struct itree_node *n = reader_root(t);
	const struct itree_node *left = NULL;
	unsigned int i;

	if (!n)
		return NULL;
	while (!n->leaf) {
		i = count_le_below_max(n, key) - 1;
		if (i)
			left = child(t, n, i - 1);
		n = child(t, n, i);
	}
	i = leaf_count_le(n, leaf_nr(n), key);
	if (i) {
		/* The leaf changed since the first walk. */
		*idx = i - 1;
		return n;
	}
	return left ? rightmost(t, left, idx) : NULL;
}

/*
 * Find the entry with the greatest start <= @key.  Returns its leaf and
 * stores the index in @idx, or returns NULL if every start is above @key.
 *
 * The hot path of every lookup.  The root's level says how many inner
 * nodes lie above the leaves, so no other node's header is read, and the
 * lines of each node are asked for together when the tree is too big to
 * stay cached (below that, the prefetches would only cost instructions).
 */
static dci_always_inline const struct itree_node *
search_floor_path(const struct dc_itree *t, uint64_t key, unsigned int *idx,
		  struct dci_itree_path *p)
{
	const struct itree_node *n = reader_root(t);
	unsigned int level, i, depth = 0;
	bool big;

	if (!n) {
		if (p)
			p->depth = 0;
		return NULL;
	}
	if (dci_unlikely(key == UINT64_MAX)) {
		if (p)
			p->depth = DCI_ITREE_PATH_NONE;	/* walk() routes pads */
		return rightmost(t, n, idx);	/* pads count: the greatest start */
	}
	level = n->level;
	big = level >= ITREE_PREFETCH_LEVEL;
	for (; level; level--) {
		/* key[0] of an inner node is 0 and always counts: route(). */
		i = count_le_below_max(n, key) - 1;
		if (p) {
			p->node[depth] = (struct itree_node *)n;
			p->slot[depth++] = i;
		}
		n = child(t, n, i);
		if (big)
			itn_prefetch(n, level == 1);
	}
	if (p) {
		p->node[depth] = (struct itree_node *)n;
		p->depth = depth + 1;
	}
	i = leaf_count_le(n, leaf_nr(n), key);
	if (dci_unlikely(!i))
		return search_floor_left(t, key, idx);
	*idx = i - 1;
	return n;
}

static dci_always_inline const struct itree_node *
search_floor(const struct dc_itree *t, uint64_t key, unsigned int *idx)
{
	return search_floor_path(t, key, idx, NULL);
}

/* Find the entry with the smallest start >= @key, like search_floor(). */
static const struct itree_node *search_ceil(const struct dc_itree *t,
					    uint64_t key, unsigned int *idx)
{
	const struct itree_node *n = reader_root(t);
	const struct itree_node *right = NULL;
	unsigned int j, nr;

	if (!n)
		return NULL;
	while (!n->leaf) {
		unsigned int i = route(n, key);

		if (i + 1 < n->nr)
			right = child(t, n, i + 1);
		n = child(t, n, i);
	}
	nr = leaf_nr(n);
	j = leaf_count_lt(n, nr, key);
	if (j < nr) {
		*idx = j;
		return n;
	}
	if (!right)
		return NULL;
	/* Every start in @right is at or above its separator, above @key. */
	for (n = right; !n->leaf; n = child(t, n, 0))
		;
	*idx = 0;
	return n;
}

static inline void fill_entry(const struct itree_node *n, unsigned int j,
			      struct dc_itree_entry *ent)
{
	ent->start = n->key[j];
	ent->last = n->ent[j].last;
	ent->item = n->ent[j].item;
}

bool dc_itree_lookup_entry(const struct dc_itree *t, uint64_t point,
			   struct dc_itree_entry *ent)
{
	const struct itree_node *n;
	unsigned int j;

	n = search_floor(t, point, &j);
	if (!n || n->ent[j].last < point)
		return false;
	fill_entry(n, j, ent);
	return true;
}
DCI_EXPORT(dc_itree_lookup_entry);

void *dci_itree_lookup_path(const struct dc_itree *t, uint64_t point,
			    struct dci_itree_path *p)
{
	const struct itree_node *n;
	unsigned int j;

	p->changes = dci_itree_changes(t);
	n = search_floor_path(t, point, &j, p);
	if (!n || n->ent[j].last < point)
		return NULL;
	p->depth = DCI_ITREE_PATH_NONE;	/* found: nothing to insert */
	return n->ent[j].item;
}
DCI_TEST_EXPORT(dci_itree_lookup_path);

void *dc_itree_lookup(const struct dc_itree *t, uint64_t point)
{
	const struct itree_node *n;
	unsigned int j;

	n = search_floor(t, point, &j);
	if (!n || n->ent[j].last < point)
		return NULL;
	return n->ent[j].item;
}
DCI_EXPORT(dc_itree_lookup);

bool dc_itree_first(const struct dc_itree *t, uint64_t a, uint64_t b,
		    struct dc_itree_entry *ent)
{
	const struct itree_node *n;
	unsigned int j;

	if (a > b)
		return false;
	n = search_floor(t, a, &j);
	if (n && n->ent[j].last >= a) {
		fill_entry(n, j, ent);
		return true;
	}
	n = search_ceil(t, a, &j);
	if (!n || n->key[j] > b)
		return false;
	fill_entry(n, j, ent);
	return true;
}
DCI_EXPORT(dc_itree_first);

bool dc_itree_next(const struct dc_itree *t, struct dc_itree_entry *ent,
		   uint64_t b)
{
	const struct itree_node *n;
	unsigned int j;

	if (ent->start == UINT64_MAX || ent->start >= b)
		return false;
	n = search_ceil(t, ent->start + 1, &j);
	if (!n || n->key[j] > b)
		return false;
	fill_entry(n, j, ent);
	return true;
}
DCI_EXPORT(dc_itree_next);

size_t dc_itree_count(const struct dc_itree *t)
{
	return dci_read_once(((struct dc_itree *)t)->count);
}
DCI_EXPORT(dc_itree_count);

void dci_itree_set_writer_lock(struct dc_itree *t, dci_mutex_t *lock)
{
	t->writer_lock = lock;
}

int dc_itree_create(struct dc_itree **out)
{
	struct dc_itree *t;

	if (!out)
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	t = dci_zalloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	dci_refcount_set(&t->refs, 1);
	t->spare = itn_alloc();
	if (!t->spare) {
		dci_free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}
DCI_EXPORT(dc_itree_create);

static void retire_subtree(struct dc_itree *t, struct itree_node *n)
{
	unsigned int i;

	if (!n->leaf)
		for (i = 0; i < n->nr; i++)
			retire_subtree(t, private_child(n, i));
	itn_retire(t, n);
}

static void tree_free_rcu(dci_rcu_head_t *head)
{
	tree_put(dci_container_of(head, struct dc_itree, rcu));
}

void dc_itree_destroy(struct dc_itree *t)
{
	struct itree_node *root;

	/* In a child forked unprepared, left to the exit: no call_rcu there. */
	if (!t || dci_fork_check(__func__))
		return;
	/* Destroyed by its last user: nobody else writes it any more. */
	root = dci_rcu_dereference_protected(t->root, true);
	if (root)
		retire_subtree(t, root);
	/* Everything retired goes with the tree, after this grace period. */
	dci_call_rcu(&t->rcu, tree_free_rcu);
}
DCI_EXPORT(dc_itree_destroy);

/* Walk from the root towards @key, recording the path. */
static void walk(struct dc_itree *t, uint64_t key, struct dci_itree_path *p)
{
	struct itree_node *n = dci_rcu_dereference_protected(t->root, itree_writer(t));

	p->depth = 0;
	while (n) {
		p->node[p->depth] = n;
		if (n->leaf) {
			p->depth++;
			return;
		}
		p->slot[p->depth] = route(n, key);
		n = dci_rcu_dereference_protected(n->child[p->slot[p->depth]],
						 itree_writer(t));
		p->depth++;
	}
}

/* Make @n the node at @level of @p's path, where the old one hung. */
static void publish(struct dc_itree *t, const struct dci_itree_path *p,
		    unsigned int level,
		    struct itree_node *n)
{
	if (!level)
		dci_rcu_assign_pointer(t->root, n);
	else
		dci_rcu_assign_pointer(p->node[level - 1]->child[p->slot[level - 1]], n);
}

/* --- insertion ---------------------------------------------------------- */

/* A pool of nodes allocated before anything is changed. */
struct node_pool {
	unsigned int nr;
	struct itree_node *n[2 * ITREE_MAX_DEPTH + 1];
};

static int pool_fill(struct dc_itree *t, struct node_pool *pool,
		     unsigned int want)
{
	for (pool->nr = 0; pool->nr < want; pool->nr++) {
		pool->n[pool->nr] = itn_new(t);
		if (!pool->n[pool->nr]) {
			while (pool->nr)
				itn_unused(t, pool->n[--pool->nr]);
			return -ENOMEM;
		}
	}
	return 0;
}

static struct itree_node *pool_take(struct node_pool *pool)
{
	return pool->n[--pool->nr];
}

/* Copy entries [from, to) of @src into @dst at @at. */
static void entries_copy(struct itree_node *dst, unsigned int at,
			 const struct itree_node *src, unsigned int from,
			 unsigned int to)
{
	unsigned int n = to - from;

	memcpy(&dst->key[at], &src->key[from], n * sizeof(uint64_t));
	if (src->leaf)
		memcpy(&dst->ent[at], &src->ent[from], n * sizeof(dst->ent[0]));
	else
		memcpy(&dst->child[at], &src->child[from], n * sizeof(void *));
}

/* Fill the unused key slots of @n, and keep key[0] of inner nodes 0. */
static void itn_seal(struct itree_node *n)
{
	unsigned int i;

	for (i = n->nr; i < ITREE_FANOUT; i++)
		n->key[i] = ITREE_PAD;
	if (!n->leaf)
		n->key[0] = 0;
}

/* One entry of either kind of node, while it moves between nodes. */
struct wide_entry {
	uint64_t key;
	uint64_t last;		/* leaves only */
	void *p;		/* leaf: item; inner: child */
};

static void itn_set(struct itree_node *n, unsigned int i, const struct wide_entry *e)
{
	n->key[i] = e->key;
	if (n->leaf) {
		n->ent[i].last = e->last;
		n->ent[i].item = e->p;
	} else {
		dci_rcu_init_pointer(n->child[i], e->p);
	}
}

static void itn_get(const struct itree_node *n, unsigned int i, struct wide_entry *e)
{
	e->key = n->key[i];
	e->last = n->leaf ? n->ent[i].last : 0;
	/* @n is on the writer's path, which walk() took under the writer lock. */
	e->p = n->leaf ? n->ent[i].item :
	       (void *)dci_rcu_dereference_protected(n->child[i], true);
}

/* Build in @dst a copy of @src with @ne inserted at @pos. */
static void copy_insert(struct itree_node *dst, const struct itree_node *src,
			unsigned int pos, const struct wide_entry *ne)
{
	dst->leaf = src->leaf;
	dst->level = src->level;
	dst->nr = src->nr + 1;
	entries_copy(dst, 0, src, 0, pos);
	entries_copy(dst, pos + 1, src, pos, src->nr);
	itn_set(dst, pos, ne);
}

/*
 * Split the F + 1 entries of @src plus @ne at @pos into @lo and @hi.  An
 * entry appended at the end (ascending insertion, as sequential access maps
 * ranges) goes alone into @hi, so such runs leave full nodes behind.
 */
static void split_insert(struct itree_node *lo, struct itree_node *hi,
			 const struct itree_node *src, unsigned int pos,
			 const struct wide_entry *ne)
{
	unsigned int total = src->nr + 1, i;
	unsigned int half = pos == src->nr ? src->nr : total / 2;
	struct wide_entry e;

	lo->leaf = hi->leaf = src->leaf;
	lo->level = hi->level = src->level;
	lo->nr = half;
	hi->nr = total - half;
	for (i = 0; i < total; i++) {
		if (i < pos)
			itn_get(src, i, &e);
		else if (i == pos)
			e = *ne;
		else
			itn_get(src, i - 1, &e);
		itn_set(i < half ? lo : hi, i < half ? i : i - half, &e);
	}
}

/* How many starts of @leaf are below @start (pads never are). */
static unsigned int leaf_pos(const struct itree_node *leaf, uint64_t start)
{
	return start ? count_le_below_max(leaf, start - 1) : 0;
}

/* Restock removal's reserve so that it need not wait for readers. */
static void spare_restock(struct dc_itree *t)
{
	if (t->spare)
		return;
	t->spare = itn_new(t);
	if (t->spare && t->retired_spare) {
		itn_retire(t, t->retired_spare);
		t->retired_spare = NULL;
	}
}

/*
 * Add @ne to published leaf @leaf, in place, past all its entries (it has
 * room, and @ne's start is above all of theirs).  The slot has held a pad
 * since @leaf was published; readers may read its key at any time, and
 * take its entry once @nr counts it (leaf_nr()).
 */
static void leaf_append(struct itree_node *leaf, const struct wide_entry *ne)
{
	unsigned int pos = leaf->nr;

	leaf->ent[pos].last = ne->last;
	leaf->ent[pos].item = ne->p;
	dci_write_once(leaf->key[pos], ne->key);
	dci_store_release(&leaf->nr, pos + 1);
}

/* @t has one entry more, published: count it, then the change. */
static void insert_done(struct dc_itree *t)
{
	dci_write_once(t->count, t->count + 1);
	/* After the publish: see dci_itree_changes(). */
	dci_store_release(&t->changes, t->changes + 1);
}

/* The first entry of the empty @t, @ne, in a root leaf from @pool. */
static void insert_root_leaf(struct dc_itree *t, struct node_pool *pool,
			     const struct wide_entry *ne)
{
	struct itree_node *lo = pool_take(pool);

	lo->leaf = true;
	lo->level = 0;
	lo->nr = 1;
	itn_set(lo, 0, ne);
	itn_seal(lo);
	dci_rcu_assign_pointer(t->root, lo);
	t->height = 1;
}

/* The old root split into @lo and @hi (@ne, its entry): a new root over both. */
static void grow_root(struct dc_itree *t, struct node_pool *pool,
		      struct itree_node *lo, const struct wide_entry *ne)
{
	struct itree_node *root = pool_take(pool);

	root->leaf = false;
	root->level = lo->level + 1;
	root->nr = 2;
	dci_rcu_init_pointer(root->child[0], lo);
	itn_set(root, 1, ne);
	itn_seal(root);
	dci_rcu_assign_pointer(t->root, root);
	t->height++;
}

/*
 * Point @lo's or @hi's child @pos (counted across both, as in the node
 * they split from) at @rep, the left half of the child that split below.
 */
static void split_set_child(struct itree_node *lo, struct itree_node *hi,
			    unsigned int pos, struct itree_node *rep)
{
	if (pos < lo->nr)
		dci_rcu_init_pointer(lo->child[pos], rep);
	else
		dci_rcu_init_pointer(hi->child[pos - lo->nr], rep);
}

/*
 * Start @hi, a new right sibling of the full @old, with @ne alone; @ne then
 * becomes the entry that points at it.  @hi's first key is read before the
 * seal, which zeroes an inner node's.
 */
static void sibling_start(struct itree_node *hi, const struct itree_node *old,
			  struct wide_entry *ne)
{
	hi->leaf = old->leaf;
	hi->level = old->level;
	hi->nr = 1;
	itn_set(hi, 0, ne);
	ne->key = hi->key[0];
	ne->last = 0;
	ne->p = hi;
	itn_seal(hi);
}

/*
 * Insert @ne, at position @pos of the leaf @p ends at, with nodes from
 * @pool, bottom-up: a node with room is copied with the new entry and
 * published, which ends the walk; a full one splits into @lo and @hi, and
 * its parent's copy must then take @lo in place of it and @hi as the new
 * entry after it.  An entry appended past the end of a full node whose
 * own entries do not change (ascending insertion, as sequential access
 * maps ranges) leaves that node as it is, still published, and starts a
 * sibling alone: @lo is the node itself, which a split would only have
 * copied.  Replaced nodes stay reachable until the final publish, so they
 * are retired only after it.  insert_want() counts the nodes this takes.
 */
static void insert_path(struct dc_itree *t, const struct dci_itree_path *p,
			struct node_pool *pool, struct wide_entry ne,
			unsigned int pos)
{
	struct itree_node *replaced[ITREE_MAX_DEPTH] dci_uninitialized;
	struct itree_node *lo, *hi, *old, *rep = NULL;
	unsigned int lvl = p->depth - 1, nr_replaced = 0;
	bool kept = true;	/* every node below kept as it was */

	for (;;) {
		old = p->node[lvl];
		kept = kept && old->nr == ITREE_FANOUT && pos == old->nr;
		if (kept) {
			sibling_start(pool_take(pool), old, &ne);
			rep = old;
			if (!lvl) {
				grow_root(t, pool, old, &ne);
				old = NULL;
				break;
			}
			lvl--;
			pos = p->slot[lvl] + 1;
			continue;
		}
		if (old->nr < ITREE_FANOUT) {
			lo = pool_take(pool);
			copy_insert(lo, old, pos, &ne);
			if (rep)
				dci_rcu_init_pointer(lo->child[pos - 1], rep);
			itn_seal(lo);
			publish(t, p, lvl, lo);
			break;
		}
		lo = pool_take(pool);
		hi = pool_take(pool);
		split_insert(lo, hi, old, pos, &ne);
		if (rep)
			split_set_child(lo, hi, pos - 1, rep);
		replaced[nr_replaced++] = old;
		rep = lo;
		ne.key = hi->key[0];
		ne.last = 0;
		ne.p = hi;
		itn_seal(lo);
		itn_seal(hi);
		if (!lvl) {
			grow_root(t, pool, lo, &ne);
			old = NULL;
			break;
		}
		lvl--;
		pos = p->slot[lvl] + 1;
	}
	while (nr_replaced)
		itn_retire(t, replaced[--nr_replaced]);
	if (old)
		itn_retire(t, old);
}

/*
 * The nodes insert_path() takes for an entry at @pos of the leaf @p ends
 * at: two per full node on the path (it splits), or one for a full node
 * kept as it is (a sibling), and one for the first node with room (its
 * copy), or for a new root when they are all full.
 */
static unsigned int insert_want(const struct dci_itree_path *p, unsigned int pos)
{
	unsigned int lvl = p->depth, want = 0;
	bool kept = true;

	while (lvl-- > 0) {
		const struct itree_node *n = p->node[lvl];

		if (n->nr < ITREE_FANOUT)
			return want + 1;
		kept = kept && pos == n->nr;
		want += kept ? 1 : 2;
		if (lvl)
			pos = p->slot[lvl - 1] + 1;
	}
	return want + 1;
}

/*
 * Insert @ne at @pos of the leaf @p ends at (or as the first entry of an
 * empty @t) with new nodes: the leaf has no room, or @ne does not go past
 * its last entry.  Returns 0 or -ENOMEM, @t unchanged.
 */
static dci_noinline int insert_copying(struct dc_itree *t,
				      const struct dci_itree_path *p,
				      const struct wide_entry *ne,
				      unsigned int pos)
{
	struct node_pool pool dci_uninitialized;

	/* Allocate every node first, so that failure changes nothing. */
	if (pool_fill(t, &pool, insert_want(p, pos)))
		return -ENOMEM;
	spare_restock(t);
	if (p->depth)
		insert_path(t, p, &pool, *ne, pos);
	else
		insert_root_leaf(t, &pool, ne);
	dci_warn_once(pool.nr, "itree: insert_want() counted %u nodes too many",
		     pool.nr);
	insert_done(t);
	return 0;
}

/*
 * Insert [@start, @last] -> @item, which overlaps nothing in @t, at @seen
 * (a lookup's path) if @t is as the lookup saw it, else where a walk says.
 * An entry past the last of a leaf with room goes in place.
 */
static int insert_new(struct dc_itree *t, uint64_t start, uint64_t last,
		      void *item, const struct dci_itree_path *seen)
{
	struct wide_entry ne = { .key = start, .last = last, .p = item };
	const struct dci_itree_path *p = seen;
	struct itree_node *lo;
	unsigned int pos = 0;
	struct dci_itree_path walked dci_uninitialized;

	if (!p || p->depth == DCI_ITREE_PATH_NONE || p->changes != t->changes) {
		walk(t, start, &walked);
		p = &walked;
	}
	if (p->depth) {
		lo = p->node[p->depth - 1];
		pos = leaf_pos(lo, start);
		if (pos == lo->nr && pos < ITREE_FANOUT) {
			spare_restock(t);
			leaf_append(lo, &ne);
			insert_done(t);
			return 0;
		}
	}
	return insert_copying(t, p, &ne, pos);
}

int dc_itree_insert(struct dc_itree *t, uint64_t start, uint64_t last,
		    void *item)
{
	struct dc_itree_entry cur;

	if (start > last || !item)
		return -EINVAL;
	if (dci_fork_check(__func__))
		return -ECHILD;
	if (dc_itree_first(t, start, last, &cur))
		return -EEXIST;
	return insert_new(t, start, last, item, NULL);
}
DCI_EXPORT(dc_itree_insert);

int dci_itree_insert_new(struct dc_itree *t, uint64_t start, uint64_t last,
			 void *item, const struct dci_itree_path *p)
{
	if (start > last || !item)
		return -EINVAL;
	return insert_new(t, start, last, item, p);
}
DCI_TEST_EXPORT(dci_itree_insert_new);

/* --- removal ------------------------------------------------------------ */

/* A node for removal: fresh if possible, else the reserve. */
static struct itree_node *removal_node(struct dc_itree *t, bool *from_reserve)
{
	struct itree_node *n = itn_new(t);

	*from_reserve = !n;
	if (n)
		return n;
	if (!t->spare) {
		/* Nobody can still see the node retired last time. */
		dci_synchronize_rcu();
		t->spare = t->retired_spare;
		t->retired_spare = NULL;
	}
	n = t->spare;
	t->spare = NULL;
	return n;
}

/* Build in @dst a copy of @src without entry @pos. */
static void copy_delete(struct itree_node *dst, const struct itree_node *src,
			unsigned int pos)
{
	dst->leaf = src->leaf;
	dst->level = src->level;
	dst->nr = src->nr - 1;
	entries_copy(dst, 0, src, 0, pos);
	entries_copy(dst, pos, src, pos + 1, src->nr);
}

int dc_itree_remove(struct dc_itree *t, uint64_t start, void **out)
{
	struct itree_node *leaf, *old, *n;
	struct dci_itree_path p dci_uninitialized;
	unsigned int lvl, pos;
	bool from_reserve;

	if (dci_fork_check(__func__))
		return -ECHILD;
	walk(t, start, &p);
	if (!p.depth)
		return -ENOENT;
	leaf = p.node[p.depth - 1];
	for (pos = 0; pos < leaf->nr && leaf->key[pos] != start; pos++)
		;
	if (pos == leaf->nr)
		return -ENOENT;
	if (out)
		*out = leaf->ent[pos].item;

	/* The lowest node on the path that keeps at least one entry. */
	lvl = p.depth - 1;
	while (p.node[lvl]->nr == 1 && lvl > 0) {
		lvl--;
		pos = p.slot[lvl];
	}
	old = p.node[lvl];
	if (old->nr == 1) {
		/* The whole tree held this one interval. */
		dci_rcu_assign_pointer(t->root, NULL);
		t->height = 0;
		retire_subtree(t, old);
		goto done;
	}
	n = removal_node(t, &from_reserve);
	copy_delete(n, old, pos);
	itn_seal(n);
	publish(t, &p, lvl, n);
	/* Unlinked single-child chain below @old, then @old itself. */
	if (lvl + 1 < p.depth)
		retire_subtree(t, p.node[lvl + 1]);
	if (from_reserve && !t->retired_spare)
		t->retired_spare = old;
	else
		itn_retire(t, old);

	/* A root with one child gives way to it. */
	for (;;) {
		old = dci_rcu_dereference_protected(t->root, itree_writer(t));
		if (old->leaf || old->nr != 1)
			break;
		dci_rcu_assign_pointer(t->root,
				      dci_rcu_dereference_protected(old->child[0],
								   itree_writer(t)));
		t->height--;
		itn_retire(t, old);
	}
done:
	dci_write_once(t->count, t->count - 1);
	dci_store_release(&t->changes, t->changes + 1);
	return 0;
}
DCI_EXPORT(dc_itree_remove);

uint64_t dci_itree_changes(const struct dc_itree *t)
{
	return dci_load_acquire(&((struct dc_itree *)t)->changes);
}
