/* SPDX-License-Identifier: MIT */
/*
 * track.c - what happens on every allocation and free.
 *
 * Order matters: the stack is captured before any lock is taken (unwinding
 * is the slow part and must not serialise threads); the table and the
 * stack counters are then updated under one shard lock at a time.
 * Context: HOT.
 */
#include "preload/track.h"

#include <stdlib.h>

#include "preload/config.h"
#include "preload/guard.h"
#include "preload/real.h"
#include "preload/snapshot.h"
#include "preload/stack.h"

/* Usable size matters only to Massif's extra-heap accounting. */
static inline size_t usable(void *p)
{
    return lp_snapshot_active ? lp_real.malloc_usable_size(p) : 0;
}

static int init_state; /* 0 none, 1 running, 2 done */
#define init_here (lp_self.track_init_here)

bool lp_track_init(void)
{
    int expect = 0;

    if (LP_LIKELY(lp_load_acquire(&init_state) == 2))
        return true;
    if (init_here)
        return lp_real_init();
    if (!lp_cas(&init_state, &expect, 1)) {
        while (lp_load_acquire(&init_state) != 2)
            ;
        return true;
    }
    init_here = true;
    lp_real_init();
    lp_config_parse(&lp_config, getenv("LEAKPROF_OPTIONS"), true);
    (void)lp_stack_is_self((uintptr_t)&lp_track_init);
    lp_snapshot_init();
    init_here = false;
    lp_store_release(&lp_state, LP_STATE_READY);
    lp_store_release(&init_state, 2);
    return true;
}

/*
 * sample_bytes=N: track about one allocation per N bytes allocated, the
 * way sampling heap profilers do: each thread counts bytes down from N and
 * the allocation that crosses zero is tracked (so big blocks are always
 * seen). Untracked blocks cost nothing but this countdown; their frees
 * find no table entry and pass through.
 */
#define sample_left (lp_self.sample_left)

static inline bool sampled_out(size_t size)
{
    uint64_t every = lp_config.sample_bytes;

    if (LP_LIKELY(every == 0))
        return false;
    if (sample_left > size) {
        sample_left -= size;
        return true;
    }
    sample_left = every;
    return false;
}

void lp_track_alloc(void *p, size_t size)
{
    struct lp_guard g;
    uint32_t id;
    struct lp_stack *s;
    struct lp_block stale;

    if (sampled_out(size) || !lp_guard_enter(&g))
        return;
    id = lp_stack_capture();
    s = lp_stack_get(id);
    if (lp_table_insert((uintptr_t)p, size, id, &stale) == 1) {
        struct lp_stack *os = lp_stack_get(stale.stack_id);

        /* The old block was freed behind our back: forget it here too. */
        lp_snapshot_before_shrink();
        if (os)
            lp_stack_note_free(os, stale.size);
        lp_snapshot_note(stale.size, stale.size, false);
    }
    if (s)
        lp_stack_note_alloc(s, size);
    lp_snapshot_note(size, usable(p), true);
    lp_guard_leave(&g);
}

void lp_track_free(void *p)
{
    struct lp_guard g;
    struct lp_block b;

    if (!lp_guard_enter(&g))
        return;
    if (lp_table_remove((uintptr_t)p, &b) == 0) {
        struct lp_stack *s = lp_stack_get(b.stack_id);

        lp_snapshot_before_shrink();
        if (s)
            lp_stack_note_free(s, b.size);
        lp_snapshot_note(b.size, usable(p), false);
    }
    lp_guard_leave(&g);
}

bool lp_track_realloc_begin(void *old, struct lp_block *ob,
                            size_t *old_usable)
{
    struct lp_guard g;
    bool had;

    if (!lp_guard_enter(&g))
        return false;
    had = lp_table_remove((uintptr_t)old, ob) == 0;
    if (had)
        *old_usable = usable(old);
    lp_guard_leave(&g);
    return had;
}

void lp_track_realloc_end(void *old, void *np, size_t size, bool had,
                          const struct lp_block *ob, size_t old_usable)
{
    struct lp_guard g;
    uint32_t id;
    struct lp_stack *s, *os;

    if ((!had && np != NULL && sampled_out(size)) || !lp_guard_enter(&g))
        return;
    if (np == NULL) {
        /* The real realloc failed: the old block is still the program's. */
        if (had)
            lp_table_insert((uintptr_t)old, ob->size, ob->stack_id, NULL);
        lp_guard_leave(&g);
        return;
    }
    id = lp_stack_capture();
    s = lp_stack_get(id);
    lp_table_insert((uintptr_t)np, size, id, NULL);
    if (had && size < ob->size)
        lp_snapshot_before_shrink();
    /* Add before subtracting, so no snapshot sees the block missing. */
    if (s)
        lp_stack_note_alloc(s, size);
    if (had) {
        os = lp_stack_get(ob->stack_id);
        if (os)
            lp_stack_note_free(os, ob->size);
        lp_snapshot_note_realloc(ob->size, old_usable, size, usable(np));
    } else {
        lp_snapshot_note(size, usable(np), true);
    }
    lp_guard_leave(&g);
}

void lp_track_totals(struct lp_totals *t)
{
    uint32_t id, n = lp_stack_count();

    t->allocs = t->frees = t->bytes_allocated = 0;
    t->live_bytes = t->live_blocks = 0;
    for (id = 1; id <= n; id++) {
        struct lp_stack *s = lp_stack_get(id);

        if (!s)
            continue;
        t->allocs += lp_load_relaxed(&s->total_blocks);
        t->bytes_allocated += lp_load_relaxed(&s->total_bytes);
        t->live_bytes += lp_load_relaxed(&s->live_bytes);
        t->live_blocks += lp_load_relaxed(&s->live_blocks);
    }
    t->frees = t->allocs - t->live_blocks;
}
