/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * itree_internal.h - what the core's other files may tell an interval tree
 * beyond <daxcache/itree.h>.
 */
#ifndef DC_ITREE_INTERNAL_H
#define DC_ITREE_INTERNAL_H

#include "platform.h"

#include <daxcache/itree.h>

/**
 * dci_itree_set_writer_lock() - name the lock that serializes @t's writers.
 * @t: the tree.
 * @lock: the mutex every writer of @t holds, or NULL (the default: writers
 *	are serialized by means the tree cannot check).
 *
 * Lookups then count as legitimate either inside a read-side section or
 * under @lock, and writers must hold @lock: the kernel's PROVE_RCU checks
 * both.  Nothing changes in userspace, which has no such checker.
 *
 * Context: the writer, before the tree is shared.
 */
void dci_itree_set_writer_lock(struct dc_itree *t, dc_mutex_t *lock);

#endif /* DC_ITREE_INTERNAL_H */
