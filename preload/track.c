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
#include <sys/auxv.h>

#include "preload/config.h"
#include "preload/freed.h"
#include "preload/guard.h"
#include "preload/heap_errors.h"
#include "preload/real.h"
#include "preload/signal.h"
#include "preload/snapshot.h"
#include "preload/stack.h"

/* Usable size matters only to Massif's extra-heap accounting. */
static inline size_t usable(void *p)
{
    return lp_snapshot_active ? lp_real.malloc_usable_size(p) : 0;
}

/*
 * Temporary allocations (heaptrack's definition): each thread keeps the
 * address of its latest allocation in its TCB slot; a free of exactly
 * that block, with no allocation of the thread in between, is temporary.
 * The address is kept complemented: the TCB is a root of the leak scan,
 * and a plain copy would make the thread's latest block reachable.
 */
#define HIDE(p) (~(uintptr_t)(p))

/* 0 none, 1 running, 2 done, 3 done and a service request is pending */
static int init_state;
#define init_here (lp_self.track_init_here)

void lp_track_request_service(void)
{
    int expect = 2;

    lp_cas(&init_state, &expect, 3);
}

/* Serve a pending request, outside any handler and any lock of ours. */
static LP_NOINLINE bool serve_request(void)
{
    int expect = 3;

    if (!lp_guard_held && lp_cas(&init_state, &expect, 2))
        lp_signal_start_dumper();
    return true;
}

bool lp_track_init(void)
{
    int expect = 0, st = lp_load_acquire(&init_state);

    if (LP_LIKELY(st == 2))
        return true;
    if (st == 3)
        return serve_request();
    if (init_here)
        return lp_real_init();
    if (!lp_cas(&init_state, &expect, 1)) {
        while (lp_load_acquire(&init_state) < 2)
            ;
        return true;
    }
    init_here = true;
    lp_real_init();
    if (getauxval(AT_SECURE)) {
        /* setuid/setgid: the caller's environment must not steer a
         * privileged process; read no options, write nothing, install
         * nothing. Every hook passes straight through. */
        lp_config_parse(&lp_config, NULL, false);
        init_here = false;
        lp_store_release(&lp_state, LP_STATE_DONE);
        lp_store_release(&init_state, 2);
        return true;
    }
    lp_config_parse(&lp_config, getenv("LEAKPROF_OPTIONS"), true);
    lp_freed_set_volume(lp_config.freelist_vol);
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

void lp_track_alloc(void *p, size_t size, unsigned how)
{
    struct lp_guard g;
    uint32_t id;
    struct lp_stack *s;
    struct lp_block stale;
    int rc;

    lp_self.last_alloc = HIDE(p); /* for temporary allocations */
    if (sampled_out(size))
        return;
    if (!lp_guard_enter(&g)) {
        if (lp_guard_held)
            untracked(p);
        return;
    }
    id = lp_stack_capture();
    s = lp_stack_get(id);
    rc = lp_table_insert_how((uintptr_t)p, size, id, how,
                             lp_snapshot_byte_clock(), &stale);
    if (LP_UNLIKELY(rc < 0))
        untracked(p);
    if (rc == 1) {
        struct lp_stack *os = lp_stack_get(stale.stack_id);

        /* The old block was freed behind our back: forget it here too. */
        lp_snapshot_before_shrink();
        if (os)
            lp_stack_note_free(os, stale.size);
        lp_snapshot_note(NULL, stale.size, stale.size, false);
    }
    if (s)
        lp_stack_note_alloc(s, size);
    lp_snapshot_note(s, size, usable(p), true);
    lp_guard_leave(&g);
}

/* Guard held. Remove p from the table and its counters; false if it was
 * not tracked. */
static bool untrack(void *p, struct lp_block *b)
{
    struct lp_stack *s;

    if (lp_table_remove((uintptr_t)p, b) != 0)
        return false;
    s = lp_stack_get(b->stack_id);
    lp_snapshot_before_shrink();
    if (s)
        lp_stack_note_free(s, b->size);
    lp_snapshot_note(NULL, b->size, usable(p), false);
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

bool lp_track_free(void *p, unsigned how)
{
    struct lp_guard g;
    struct lp_block b;
    bool pass = true;

    if (!lp_guard_enter(&g))
        return true;
    if (untrack(p, &b)) {
        if (HIDE(b.addr) == lp_self.last_alloc) {
            /* Freed before its thread allocated again: temporary. */
            struct lp_stack *s = lp_stack_get(b.stack_id);

            lp_self.last_alloc = 0;
            if (s)
                lp_stack_note_temp(s);
        }
        if (lp_heap_errors_on()) {
            /* The freed-at stack: the one capture a free costs, unless
             * keep_stacktraces=alloc (Memcheck's option) saves it. */
            uint32_t at = lp_config.keep_free_stacks ? lp_stack_capture() : 0;

            if (LP_UNLIKELY(b.how != how))
                lp_heap_error_mismatch(&b, how, at ? at : lp_stack_capture());
            lp_freed_push(b.addr, b.size, b.stack_id, at);
        }
    } else {
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

    if (!lp_guard_enter(&g))
        return 0;
    had = lp_table_remove((uintptr_t)old, ob) == 0;
    if (had) {
        *old_usable = usable(old);
        if (LP_UNLIKELY(ob->how != LP_HOW_MALLOC) && lp_heap_errors_on())
            lp_heap_error_mismatch(ob, LP_HOW_MALLOC, lp_stack_capture());
    } else if (!lp_heap_error_bad_free(old, LP_HOW_MALLOC, true, size)) {
        had = -1;
    }
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
            lp_table_insert_how((uintptr_t)old, ob->size, ob->stack_id,
                                ob->how, ob->time, NULL);
        lp_guard_leave(&g);
        return;
    }
    id = lp_stack_capture();
    s = lp_stack_get(id);
    /* A moved block: the old address is freed, "at realloc". */
    if (had && np != old && lp_heap_errors_on())
        lp_freed_push((uintptr_t)old, ob->size, ob->stack_id,
                      lp_config.keep_free_stacks ? id : 0);
    lp_self.last_alloc = HIDE(np);
    if (lp_table_insert_how((uintptr_t)np, size, id, LP_HOW_MALLOC,
                            lp_snapshot_byte_clock(), NULL) < 0)
        untracked(np);
    if (had && size < ob->size)
        lp_snapshot_before_shrink();
    /* Add before subtracting, so no snapshot sees the block missing. */
    if (s)
        lp_stack_note_alloc(s, size);
    if (had) {
        os = lp_stack_get(ob->stack_id);
        if (os)
            lp_stack_note_free(os, ob->size);
        lp_snapshot_note_realloc(s, ob->size, old_usable, size, usable(np));
    } else {
        lp_snapshot_note(s, size, usable(np), true);
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
