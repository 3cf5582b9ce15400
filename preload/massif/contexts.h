/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_MASSIF_CONTEXTS_H
#define LP_PRELOAD_MASSIF_CONTEXTS_H
/*
 * contexts.h - every allocation context of a massif.out file, once per
 * file: each stack filtered as massif filters it and all of them sorted
 * by their frames, so that each detailed snapshot's contexts are a
 * subsequence in tree order (massif_write.c builds the trees).
 *
 * Massif's per-stack filtering: drop our hook frame and the contiguous
 * allocation functions (massif's default --alloc-fn list, any
 * "operator new...") on top, drop frames of our own library (wrappers of
 * main and of thread start routines), cut below main (or below the first
 * below-main function when there is no main), keep depth= frames.
 *
 * What it costs: one symbol-table lookup (lp_sym_function) per distinct
 * return address, not per frame of every stack (an address's verdict,
 * "allocation function", "main", "below main", is kept in a flat table);
 * a context's frames are, but for rare stacks, a run of its stack
 * record's own frames, pointed to, not copied (fresh memory is dear: a
 * copy of every frame took as long as the rest together);
 * the sort is a radix sort by frame, one level per depth, stopping where
 * a group has one context left, instead of a comparison sort whose every
 * comparison walked two frame arrays.
 *
 * Context: COLD (massif writer; guard held). Memory: libc malloc.
 */
#include "preload/hot/snapshot.h"

struct lp_sym;

struct lp_massif_contexts {
    uint32_t nids;                  /* ids 1..nids-1 */
    void *side; /* frames that are not a run of their stack record's */
    struct lp_snapshot_ctx *sorted; /* [nids-1] every context, sorted */
    uint32_t *sorted_id;            /* [i] the stack id of sorted[i] */
};

/* Filter and sort the stacks with ids 1..nids-1, naming frames through
 * sym. Returns 0 or -ENOMEM (then c holds nothing to free). */
int lp_massif_contexts_build(struct lp_massif_contexts *c,
                             struct lp_sym *sym, uint32_t nids);
void lp_massif_contexts_free(struct lp_massif_contexts *c);

/* The sort alone (exposed for tests/unit/test_snapshot_tree.c): order
 * the ids ord[0..n) so that ctx[ord[i]] are in lp_snapshot_sort_ctx()
 * order (contexts with equal frames in any order among themselves).
 * Returns 0 or -ENOMEM (ord unchanged). */
int lp_massif_contexts_sort(const struct lp_snapshot_ctx *ctx, uint32_t *ord,
                            size_t n);

#endif /* LP_PRELOAD_MASSIF_CONTEXTS_H */
