/* SPDX-License-Identifier: MIT */
/*
 * track.c - what happens on every allocation and free.
 *
 * Order matters: the stack is captured before any lock is taken (unwinding
 * is the slow part and must not serialise threads); the table and the
 * stack counters are then updated under one shard lock at a time.
 * Context: HOT.
 */
#include "preload/hot/track.h"

#include <stdlib.h>
#include <string.h>

#include "preload/life/config.h"
#include "preload/hot/freed.h"
#include "preload/hot/foreign.h"
#include "preload/hot/guard.h"
#include "preload/hot/massif_live.h"
#include "preload/scan/heap_errors.h"
#include "preload/hot/real.h"
#include "preload/hot/sample.h"
#include "preload/life/snapshot_signal.h"
#include "preload/hot/snapshot.h"
#include "preload/hot/stack_count.h"

/* Usable size matters only to Massif's extra-heap accounting. */
static inline size_t usable(void *p)
{
    return lp_snapshot_active ? lp_real_usable(p) : 0;
}

/*
 * sample_bytes=N (sample.h): the sampler decides which blocks are
 * tracked; a tracked block is charged what it stands for, so every
 * counter holds an estimate of the whole heap. Without sampling the
 * charges are the block itself (size, one block). Each charge then marks
 * its context as changed for massif's next detailed snapshot
 * (massif_live.h).
 */
static inline void charge_alloc(uint32_t id, size_t size, double p)
{
    if (LP_LIKELY(!lp_sample_on()))
        lp_stack_note_alloc(id, size, 1);
    else
        lp_stack_note_alloc(id, lp_sample_est_bytes_p(size, p),
                            lp_sample_est_blocks_p(p));
    lp_massif_mark_dirty(id);
}

static inline void charge_free(uint32_t id, size_t size, double p)
{
    if (LP_LIKELY(!lp_sample_on()))
        lp_stack_note_free(id, size, 1);
    else
        lp_stack_note_free(id, lp_sample_est_bytes_p(size, p),
                           lp_sample_est_blocks_p(p));
    lp_massif_mark_dirty(id);
}

/* Massif's event for a block of size bytes (usable: its usable size),
 * an allocation charged to the site id (0: none) or a free. */
static inline void massif_note(uint32_t id, size_t size, size_t use,
                               bool is_alloc, double p)
{
    lp_snapshot_note(id, lp_sample_est_bytes_p(size, p),
                     lp_sample_est_usable_p(use, p), is_alloc);
}

/*
 * A block the table will not know (one of our own, made under the guard,
 * or one the table had no room for) may sit at an address the freed queue
 * still holds: forget it there, or the program's later free of it would
 * look like a double free.
 */
static LP_NOINLINE void untracked(void *p)
{
    if (lp_heap_errors_on() && lp_load_acquire(&lp_state) == LP_STATE_READY)
        lp_freed_forget((uintptr_t)p);
}

void lp_track_lost(uintptr_t addr)
{
    untracked((void *)addr);
    lp_sample_filter_del(addr);
}

void lp_track_stale(const struct lp_block *stale)
{
    double w = lp_sample_weight(stale->size);

    /* The old block was freed behind our back: forget it here too. */
    lp_sample_filter_del(stale->addr);
    lp_snapshot_before_shrink();
    charge_free(stale->stack_id, stale->size, w);
    massif_note(0, stale->size, stale->size, false, w);
}

void lp_track_alloc_slow(void *p, size_t size, unsigned how)
{
    double w;
    struct lp_guard g;
    uint32_t id;
    struct lp_stack *s;
    struct lp_block stale;
    int rc;

    if (!lp_guard_enter(&g)) {
        if (lp_guard_held)
            untracked(p);
        return;
    }
    lp_table_prefetch((uintptr_t)p);
    id = lp_stack_capture();
    s = lp_stack_get(id);
    if (LP_UNLIKELY(lp_foreign_stack(s))) { /* ours, from our libraries */
        untracked(p);
        lp_guard_leave(&g);
        return;
    }
    lp_sample_filter_add((uintptr_t)p); /* before the table: see sample.h */
    rc = lp_table_insert_how((uintptr_t)p, size, id, how,
                             lp_snapshot_byte_clock(), &stale);
    if (LP_UNLIKELY(rc < 0)) {
        lp_track_lost((uintptr_t)p);
    }
    if (rc == 1)
        lp_track_stale(&stale);
    w = lp_sample_weight(size);
    if (s == NULL)
        id = 0; /* no record: nothing charged, no context */
    charge_alloc(id, size, w);
    massif_note(id, size, usable(p), true, w);
    lp_guard_leave(&g);
}

/* Guard held. Remove p from the table and its counters; false if it was
 * not tracked. */
static bool untrack(void *p, struct lp_block *b)
{
    double w;

    if (lp_table_remove((uintptr_t)p, b) != 0)
        return false;
    w = lp_sample_weight(b->size);
    lp_sample_filter_del((uintptr_t)p);
    lp_snapshot_before_shrink();
    charge_free(b->stack_id, b->size, w);
    massif_note(0, b->size, usable(p), false, w);
    return true;
}

void lp_track_forget(void *p)
{
    struct lp_guard g;
    struct lp_block b;

    if (!lp_guard_enter(&g))
        return;
    (void)untrack(p, &b);
    lp_guard_leave(&g);
}

void lp_track_free_fill_untracked(void *p)
{
    memset(p, lp_config.free_fill, lp_real.malloc_usable_size(p));
}

bool lp_track_free(void *p, unsigned how)
{
    struct lp_guard g;
    struct lp_block b;
    bool pass = true;

    /* Sampled mode: most frees are of untracked blocks; the filter says
     * so without the table. */
    if (lp_sample_untracked((uintptr_t)p) || !lp_guard_enter(&g))
        return true;
    if (untrack(p, &b)) {
        if (LP_UNLIKELY(lp_config.free_fill >= 0))
            memset(p, lp_config.free_fill, b.size);
        if (LP_HIDE_ADDR(b.addr) == lp_self.last_alloc) {
            /* Freed before its thread allocated again: temporary. */
            lp_self.last_alloc = 0;
            lp_stack_note_temp(b.stack_id, lp_sample_est_blocks(b.size));
        }
        if (lp_heap_errors_on()) {
            /* The freed-at stack: the one capture a free costs, unless
             * keep_stacktraces=alloc (Memcheck's option) saves it. */
            uint32_t at = lp_config.keep_free_stacks ? lp_stack_capture() : 0;

            if (LP_UNLIKELY(b.how != how))
                lp_heap_error_mismatch(&b, how, at ? at : lp_stack_capture());
            /* quarantine=yes: the queue frees it when it leaves. */
            if (lp_freed_push(b.addr, b.size, b.stack_id, at))
                pass = false;
        }
    } else {
        if (lp_sample_filter)
            lp_sample_note_miss();
        pass = lp_heap_error_bad_free(p, how, false, 0);
    }
    lp_guard_leave(&g);
    return pass;
}

int lp_track_realloc_begin(void *old, size_t size, struct lp_block *ob,
                           size_t *old_usable)
{
    struct lp_guard g;
    int had;

    if (lp_sample_untracked((uintptr_t)old) || !lp_guard_enter(&g))
        return 0;
    had = lp_table_remove((uintptr_t)old, ob) == 0;
    if (had) {
        lp_sample_filter_del((uintptr_t)old);
        *old_usable = usable(old);
        if (LP_UNLIKELY(ob->how != LP_HOW_MALLOC) && lp_heap_errors_on())
            lp_heap_error_mismatch(ob, LP_HOW_MALLOC, lp_stack_capture());
    } else if (!lp_heap_error_bad_free(old, LP_HOW_MALLOC, true, size)) {
        had = -1;
    }
    lp_guard_leave(&g);
    return had;
}

/* Sampled mode: the old block was tracked, its successor is not (the
 * sampler decides each block afresh, as if realloc were a free and a
 * malloc): the old block is freed as far as the counters know. */
static void realloc_untracked(const struct lp_block *ob, size_t old_usable)
{
    double w = lp_sample_weight(ob->size);

    lp_snapshot_before_shrink();
    charge_free(ob->stack_id, ob->size, w);
    massif_note(0, ob->size, old_usable, false, w);
}

bool lp_track_realloc_end(void *old, void *np, size_t size, bool had,
                          const struct lp_block *ob, size_t old_usable)
{
    struct lp_guard g;
    uint32_t id;
    struct lp_stack *s;
    double w, ow;
    bool skip = np != NULL && lp_sample_skip(size), held = false;

    if ((!had && skip) || !lp_guard_enter(&g))
        return false;
    if (np == NULL) {
        /* The real realloc failed: the old block is still the program's. */
        if (had) {
            lp_sample_filter_add((uintptr_t)old);
            lp_table_insert_how((uintptr_t)old, ob->size, ob->stack_id,
                                ob->how, ob->time, NULL);
        }
        lp_guard_leave(&g);
        return false;
    }
    if (skip) {
        realloc_untracked(ob, old_usable);
        lp_guard_leave(&g);
        return false;
    }
    id = lp_stack_capture();
    s = lp_stack_get(id);
    if (LP_UNLIKELY(!had && lp_foreign_stack(s))) { /* ours (foreign.h) */
        untracked(np);
        lp_guard_leave(&g);
        return false;
    }
    /* A moved block: the old address is freed, "at realloc". */
    if (had && np != old && lp_heap_errors_on())
        held = lp_freed_push((uintptr_t)old, ob->size, ob->stack_id,
                             lp_config.keep_free_stacks ? id : 0);
    lp_sample_filter_add((uintptr_t)np);
    lp_self.last_alloc = LP_HIDE_ADDR(np);
    if (lp_table_insert_how((uintptr_t)np, size, id, LP_HOW_MALLOC,
                            lp_snapshot_byte_clock(), NULL) < 0) {
        lp_track_lost((uintptr_t)np);
    }
    w = lp_sample_weight(size);
    ow = had ? lp_sample_weight(ob->size) : 1.0;
    if (had &&
        lp_sample_est_bytes_p(size, w) < lp_sample_est_bytes_p(ob->size, ow))
        lp_snapshot_before_shrink();
    /* Add before subtracting, so no snapshot sees the block missing. */
    if (s == NULL)
        id = 0; /* no record: nothing charged, no context */
    charge_alloc(id, size, w);
    if (had) {
        charge_free(ob->stack_id, ob->size, ow);
        lp_snapshot_note_realloc(id, lp_sample_est_bytes_p(ob->size, ow),
                                 lp_sample_est_usable_p(old_usable, ow),
                                 lp_sample_est_bytes_p(size, w),
                                 lp_sample_est_usable_p(usable(np), w));
    } else {
        massif_note(id, size, usable(np), true, w);
    }
    lp_guard_leave(&g);
    return held;
}

void lp_track_totals(struct lp_totals *t)
{
    struct lp_stack_counts sum;

    lp_stack_totals(&sum);
    t->allocs = sum.total_blocks;
    t->bytes_allocated = sum.total_bytes;
    t->live_bytes = sum.live_bytes;
    t->live_blocks = sum.live_blocks;
    /* Sampled mode: block counts are fixed-point estimates (sample.h). */
    t->allocs = lp_sample_blocks_out(t->allocs);
    t->live_blocks = lp_sample_blocks_out(t->live_blocks);
    t->frees = t->allocs - t->live_blocks;
    /* Bad calls count as Memcheck counts them: a free each, and a bad
     * realloc an alloc of its size too. */
    {
        uint64_t a, f, b;

        lp_heap_errors_totals(&a, &f, &b);
        t->allocs += a;
        t->frees += f;
        t->bytes_allocated += b;
    }
}
