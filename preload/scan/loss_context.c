/* SPDX-License-Identifier: MIT */
/*
 * loss_context.c - stacks grouped by their first depth frames
 * (loss_context.h).
 *
 * Two tables that live as long as the process: the representative of
 * each stack id asked about (an array indexed by id, 0 unknown), and an
 * open-addressing set of representatives keyed by the hash of their
 * first depth frames. An id is resolved once; a report costs a lookup a
 * loss record, not a block. If the depth changes between reports (it
 * does not: it is an option read at start) the tables start over.
 * Context: COLD.
 */
#include "preload/scan/loss_context.h"

#include <stdlib.h>
#include <string.h>

#include "preload/hot/stack.h"
#include "report/leaks.h"

static uint32_t *rep_of; /* by stack id */
static size_t rep_cap;
static uint32_t *set; /* representatives; 0 empty */
static size_t set_mask, set_used;
static unsigned set_depth;

/* The slot of s's prefix in the set: its representative's or an empty one. */
static size_t probe(const struct lp_stack *s, uint64_t h, unsigned depth)
{
    size_t i = (size_t)h & set_mask;

    while (set[i] != 0) {
        const struct lp_stack *r = lp_stack_get(set[i]);

        if (r != NULL && lp_stack_same_prefix(r, s, depth))
            break;
        i = (i + 1) & set_mask;
    }
    return i;
}

static void reset(unsigned depth)
{
    free(rep_of);
    free(set);
    rep_of = set = NULL;
    rep_cap = set_mask = set_used = 0;
    set_depth = depth;
}

static int set_grow(void)
{
    size_t mask = set_mask ? set_mask * 2 + 1 : 1023, i;
    uint32_t *old = set, *g = calloc(mask + 1, sizeof(*g));
    size_t old_mask = set_mask;

    if (g == NULL)
        return -1;
    set = g;
    set_mask = mask;
    for (i = 0; old != NULL && i <= old_mask; i++) {
        const struct lp_stack *r = old[i] ? lp_stack_get(old[i]) : NULL;

        if (r != NULL)
            set[probe(r, lp_stack_prefix_hash(r, set_depth), set_depth)] = old[i];
    }
    free(old);
    return 0;
}

/*
 * How many of s's frames Memcheck's depth frames stand for: our hook
 * under operator new is one frame shown for two of ours (folded), the
 * aligned forms show two frames for one (report/leaks.c,
 * lp_leaks_nips). Grouped by depth frames of ours, troff's records at
 * depth=4 merged blocks Memcheck keeps apart by their fourth frame.
 */
static unsigned frames_for(const struct lp_stack *s, unsigned depth,
                           struct lp_sym *sym)
{
    static uintptr_t *ips;
    static size_t cap;
    unsigned n = s->nframes;

    if (sym == NULL || n == 0)
        return depth;
    if (n > cap) {
        uintptr_t *g = realloc(ips, n * sizeof(*g));

        if (g == NULL)
            return depth;
        ips = g;
        cap = n;
    }
    lp_stack_frames(s, ips);
    return lp_leaks_nips(sym, ips, n, (int)depth);
}

uint32_t lp_loss_context(uint32_t stack_id, unsigned depth, struct lp_sym *sym)
{
    const struct lp_stack *s = lp_stack_get(stack_id);
    size_t slot;

    if (s == NULL || depth == 0)
        return stack_id;
    if (depth != set_depth)
        reset(depth);
    if (stack_id < rep_cap && rep_of[stack_id] != 0)
        return rep_of[stack_id];
    if (stack_id >= rep_cap) {
        size_t cap = rep_cap ? rep_cap : 1024;
        uint32_t *g;

        while (cap <= stack_id)
            cap *= 2;
        g = realloc(rep_of, cap * sizeof(*g));
        if (g == NULL)
            return stack_id;
        memset(g + rep_cap, 0, (cap - rep_cap) * sizeof(*g));
        rep_of = g;
        rep_cap = cap;
    }
    if ((set_used + 1) * 2 > set_mask + 1 && set_grow() != 0)
        return stack_id;
    depth = frames_for(s, depth, sym);
    slot = probe(s, lp_stack_prefix_hash(s, depth), depth);
    if (set[slot] == 0) {
        set[slot] = stack_id;
        set_used++;
    }
    rep_of[stack_id] = set[slot];
    return set[slot];
}
