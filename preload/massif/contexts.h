/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_MASSIF_CONTEXTS_H
#define LP_PRELOAD_MASSIF_CONTEXTS_H
/*
 * contexts.h - the allocation contexts of a massif.out file, for the
 * writer's lazy tree index (massif_tree.c): each stack filtered as
 * massif filters it, a frame at a time, and the contexts of a tree node
 * sorted by their frame at the node's depth when the index first expands
 * the node. Nothing is filtered, named or sorted up front: what a file
 * costs follows the trees' significant nodes, not the number of stacks.
 *
 * Massif's per-stack filtering: drop our hook frame and the contiguous
 * allocation functions (massif's default --alloc-fn list, any
 * "operator new...") on top, drop frames of our own library (wrappers of
 * main and of thread start routines), cut below main (or below the first
 * below-main function when there is no main), keep depth= frames.
 *
 * What it costs: one symbol-table lookup (lp_sym_function) per distinct
 * return address reached, its verdict ("allocation function", "main",
 * "below main") kept in a flat table; one step of a context's filter per
 * depth at which the index looks at it; a radix sort of (frame, id) pairs
 * per expanded node.
 *
 * Context: COLD (massif writer; guard held). Memory: libc malloc.
 */
#include "preload/hot/snapshot.h"

struct lp_sym;

struct lp_massif_contexts {
    uint32_t nids; /* ids 1..nids-1 */
    uint32_t *ids; /* [nids-1] those ids, for the index to permute */
    void *priv;    /* filter state, verdicts, scratch */
};

/* Set up the contexts of the stacks with ids 1..nids-1, frames to be
 * named through sym. Returns 0 or -ENOMEM (then c holds nothing to
 * free). */
int lp_massif_contexts_init(struct lp_massif_contexts *c,
                            struct lp_sym *sym, uint32_t nids);
void lp_massif_contexts_free(struct lp_massif_contexts *c);

/* An lp_snapshot_order_fn (snapshot.h) over c: order ids[0..n), whose
 * filtered stacks share their first d frames, by filtered frame d. */
size_t lp_massif_contexts_order(void *c, uint32_t *ids, uintptr_t *key,
                                size_t n, unsigned d);

#endif /* LP_PRELOAD_MASSIF_CONTEXTS_H */
