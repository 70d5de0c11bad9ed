/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbtree_rwlock.c - augmented red-black interval tree behind a rwlock.
 *
 * A red-black tree ordered by start.  Every node caches subtree_last, the
 * largest last index in its subtree: insert raises it on the way down,
 * a rotation hands it from the old subtree root to the new one, and erase
 * recomputes it from the unlinked node's parent up to the root before it
 * rebalances.  Nodes are private, so erasing a node with two children moves
 * its successor's interval into it and unlinks the successor instead.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "rbtree_rwlock.h"

struct rb_inode {
	struct rb_inode *child[2];	/* [0] left, [1] right */
	struct rb_inode *parent;
	uint64_t start;
	uint64_t last;
	uint64_t subtree_last;
	void *item;
	bool red;
};

struct rbtree_rwlock {
	pthread_rwlock_t lock;
	struct rb_inode *root;
};

static bool is_red(const struct rb_inode *n)
{
	return n && n->red;
}

static uint64_t compute_subtree_last(const struct rb_inode *n)
{
	uint64_t max = n->last;
	int dir;

	for (dir = 0; dir < 2; dir++)
		if (n->child[dir] && n->child[dir]->subtree_last > max)
			max = n->child[dir]->subtree_last;
	return max;
}

/* Refresh subtree_last from @n up to the root. */
static void propagate(struct rb_inode *n)
{
	for (; n; n = n->parent)
		n->subtree_last = compute_subtree_last(n);
}

/* Put @repl (may be NULL) where @old hangs under its parent. */
static void replace_child(struct rbtree_rwlock *t, struct rb_inode *old,
			  struct rb_inode *repl)
{
	struct rb_inode *p = old->parent;

	if (!p)
		t->root = repl;
	else
		p->child[p->child[1] == old] = repl;
	if (repl)
		repl->parent = p;
}

/*
 * Rotate @x down towards @dir (0: left rotation, 1: right rotation); its
 * child on the other side takes its place and its subtree_last.
 */
static void rotate(struct rbtree_rwlock *t, struct rb_inode *x, int dir)
{
	struct rb_inode *y = x->child[!dir];

	x->child[!dir] = y->child[dir];
	if (y->child[dir])
		y->child[dir]->parent = x;
	replace_child(t, x, y);
	y->child[dir] = x;
	x->parent = y;
	y->subtree_last = x->subtree_last;
	x->subtree_last = compute_subtree_last(x);
}

static void insert_fixup(struct rbtree_rwlock *t, struct rb_inode *n)
{
	struct rb_inode *p, *g, *u;
	int dir;

	while (is_red(p = n->parent)) {
		g = p->parent;		/* exists: a red node is never the root */
		dir = g->child[1] == p;
		u = g->child[!dir];
		if (is_red(u)) {
			p->red = false;
			u->red = false;
			g->red = true;
			n = g;
			continue;
		}
		if (n == p->child[!dir]) {
			rotate(t, p, dir);
			n = p;
			p = n->parent;
		}
		p->red = false;
		g->red = true;
		rotate(t, g, !dir);
	}
	t->root->red = false;
}

/* Restore black heights after a black node left @x's place under @p. */
static void erase_fixup(struct rbtree_rwlock *t, struct rb_inode *x,
			struct rb_inode *p)
{
	struct rb_inode *w;
	int dir;

	while (x != t->root && !is_red(x)) {
		dir = p->child[1] == x;
		w = p->child[!dir];	/* exists: x's side is a black short */
		if (w->red) {
			w->red = false;
			p->red = true;
			rotate(t, p, dir);
			w = p->child[!dir];
		}
		if (!is_red(w->child[0]) && !is_red(w->child[1])) {
			w->red = true;
			x = p;
			p = x->parent;
			continue;
		}
		if (!is_red(w->child[!dir])) {
			w->child[dir]->red = false;
			w->red = true;
			rotate(t, w, !dir);
			w = p->child[!dir];
		}
		w->red = p->red;
		p->red = false;
		w->child[!dir]->red = false;
		rotate(t, p, dir);
		x = t->root;
	}
	if (x)
		x->red = false;
}

/* Unlink @y, which has at most one child, and rebalance. */
static void unlink_node(struct rbtree_rwlock *t, struct rb_inode *y)
{
	struct rb_inode *c = y->child[0] ? y->child[0] : y->child[1];
	struct rb_inode *p = y->parent;

	replace_child(t, y, c);
	propagate(p);
	if (y->red)
		return;
	if (is_red(c))
		c->red = false;
	else
		erase_fixup(t, c, p);
}

static struct rb_inode *find_start(struct rb_inode *n, uint64_t start)
{
	while (n && n->start != start)
		n = n->child[start > n->start];
	return n;
}

/*
 * Descend left whenever the left subtree reaches @point: if nothing there
 * contains it, the interval ending last there starts after @point, and so
 * does every interval to its right.
 */
static const struct rb_inode *stab(const struct rb_inode *n, uint64_t point)
{
	while (n && n->subtree_last >= point) {
		const struct rb_inode *l = n->child[0];

		if (l && l->subtree_last >= point) {
			n = l;
			continue;
		}
		if (point < n->start)
			return NULL;
		if (point <= n->last)
			return n;
		n = n->child[1];
	}
	return NULL;
}

static void free_subtree(struct rb_inode *n)
{
	struct rb_inode *right;

	while (n) {
		free_subtree(n->child[0]);
		right = n->child[1];
		free(n);
		n = right;
	}
}

struct rbtree_rwlock *rbtree_rwlock_create(void)
{
	struct rbtree_rwlock *t = malloc(sizeof(*t));

	if (!t)
		return NULL;
	if (pthread_rwlock_init(&t->lock, NULL)) {
		free(t);
		return NULL;
	}
	t->root = NULL;
	return t;
}

void rbtree_rwlock_destroy(struct rbtree_rwlock *t)
{
	free_subtree(t->root);
	pthread_rwlock_destroy(&t->lock);
	free(t);
}

int rbtree_rwlock_insert(struct rbtree_rwlock *t, uint64_t start,
			 uint64_t last, void *item)
{
	struct rb_inode *n = malloc(sizeof(*n));
	struct rb_inode **link, *parent = NULL;

	if (!n)
		return -ENOMEM;
	n->child[0] = NULL;
	n->child[1] = NULL;
	n->start = start;
	n->last = last;
	n->subtree_last = last;
	n->item = item;
	n->red = true;

	pthread_rwlock_wrlock(&t->lock);
	link = &t->root;
	while (*link) {
		parent = *link;
		if (parent->subtree_last < last)
			parent->subtree_last = last;
		link = &parent->child[start >= parent->start];
	}
	n->parent = parent;
	*link = n;
	insert_fixup(t, n);
	pthread_rwlock_unlock(&t->lock);
	return 0;
}

int rbtree_rwlock_erase(struct rbtree_rwlock *t, uint64_t start)
{
	struct rb_inode *z, *y;

	pthread_rwlock_wrlock(&t->lock);
	z = find_start(t->root, start);
	if (!z) {
		pthread_rwlock_unlock(&t->lock);
		return -ENOENT;
	}
	y = z;
	if (z->child[0] && z->child[1]) {
		for (y = z->child[1]; y->child[0]; y = y->child[0])
			;
		z->start = y->start;
		z->last = y->last;
		z->item = y->item;
	}
	unlink_node(t, y);
	pthread_rwlock_unlock(&t->lock);
	free(y);
	return 0;
}

void *rbtree_rwlock_lookup(struct rbtree_rwlock *t, uint64_t point)
{
	const struct rb_inode *n;
	void *item;

	pthread_rwlock_rdlock(&t->lock);
	n = stab(t->root, point);
	item = n ? n->item : NULL;
	pthread_rwlock_unlock(&t->lock);
	return item;
}
