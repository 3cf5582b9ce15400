/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_TRACK_H
#define LP_PRELOAD_TRACK_H
/*
 * track.h - the policy layer between the hooks and the tables: take the
 * guard, capture the stack, record the block, update the counters.
 *
 * Context: HOT. Every function is a no-op for a thread holding the guard
 * (our own allocations) and before the profiler is READY.
 */
#include <errno.h>
#include <string.h>

#include "preload/hot/guard.h"
#include "preload/life/config.h"
#include "preload/lp.h"
#include "preload/hot/real.h"
#include "preload/hot/sample.h"
#include "preload/hot/table.h"
#include "preload/life/init.h"

/* Bring the profiler up if it is not (first allocation, constructor):
 * ready is one acquire load; the rest is init.c's. Returns false while
 * the real allocator is being resolved by this thread: the caller must
 * then serve the request from the boot arena. */
static inline bool lp_track_ready(void)
{
    return lp_load_acquire(&lp_init_state) == 2;
}

static inline bool lp_track_init(void)
{
    if (LP_LIKELY(lp_track_ready()))
        return true;
    return lp_init_slow();
}

/* A block p of size bytes was just handed to the program by an
 * allocation of family how (enum lp_how: malloc, new or new[]). The
 * sampler's verdict is inlined into each hook: with sample_bytes=N most
 * blocks stay untracked for the price of a countdown (sample.h). */
void lp_track_alloc_slow(void *p, size_t size, unsigned how);
/* The table found an entry for an address the allocator just handed out
 * again (a block freed behind our back): count that block as freed.
 * Guard held. */
void lp_track_stale(const struct lp_block *stale);
/* The table had no room for the block at addr (it stays counted, and
 * untracked): a later free of it must not look like a double free.
 * Guard held. */
void lp_track_lost(uintptr_t addr);
/*
 * Temporary allocations (heaptrack's definition): each thread keeps the
 * address of its latest allocation in its TCB slot; a free of exactly
 * that block, with no allocation of the thread in between, is temporary.
 * The address is kept complemented: the TCB is a root of the leak scan,
 * and a plain copy would make the thread's latest block reachable.
 */
#define LP_HIDE_ADDR(p) (~(uintptr_t)(p))

/*
 * Sampled mode (sample_bytes=N): true when a new block of size bytes stays
 * untracked and nothing has to happen around the real call either, so the
 * hook tail-calls the real allocator, as a preload that only forwards
 * does. That needs no fill (malloc_fill) and a program with threads: then
 * no handler of ours reads lp_in_libc (snapshot_signal.c starts its
 * thread from the handler only in a single-threaded program), and an
 * exit or exec from a program's handler looks at the stack instead
 * (lp_allocator_interrupted, exit_heap.c). The
 * sampler's quick case only (the countdown stays above the block): when a
 * point falls in the block this says false, consuming nothing, and
 * lp_track_alloc asks the sampler again (its slow path then decides).
 */
static inline __attribute__((always_inline)) bool lp_track_pass(size_t size)
{
    uint64_t left;

    /* One load for the four conditions (lp_hot_pass_update): sampling,
     * size below the interval, no fill, threaded (and so ready). */
    if (size >= lp_load_relaxed(&lp_hot.pass_below))
        return false;
    left = lp_self.sample_left;
    if (left <= size)
        return false;
    lp_self.sample_left = left - size;
    lp_self.last_alloc = 0; /* no tracked block is the thread's latest */
    return true;
}

/* A block as the real allocator filled it: calloc's zeroes, or bytes
 * the hook copied in itself. */
static inline __attribute__((always_inline)) void
lp_track_alloc_unfilled(void *p, size_t size, unsigned how)
{
    lp_self.last_alloc = LP_HIDE_ADDR(p);
    if (!lp_sample_skip(size))
        lp_track_alloc_slow(p, size, how);
}

/* malloc_fill=0xNN (Memcheck's --malloc-fill): bytes [from, to) of a new
 * or grown block p are set, and the rest of its usable size with them
 * (what a realloc then keeps as the old block's holds the fill where the
 * program wrote nothing); nothing when the option is off. */
static inline __attribute__((always_inline)) void
lp_track_malloc_fill(void *p, size_t from, size_t to)
{
    if (LP_UNLIKELY(lp_config.malloc_fill >= 0) && p != NULL) {
        size_t end = lp_real_usable(p);

        if (end < to)
            end = to;
        if (end > from)
            memset((char *)p + from, lp_config.malloc_fill, end - from);
    }
}

/* Any other new block: its bytes filled first (malloc_fill), tracked or
 * not. */
static inline __attribute__((always_inline)) void
lp_track_alloc(void *p, size_t size, unsigned how)
{
    lp_track_malloc_fill(p, 0, size);
    lp_track_alloc_unfilled(p, size, how);
}

/* free_fill=0xNN (Memcheck's --free-fill), for a block the table does
 * not know (sampled mode): its usable bytes, just before the real free. */
void lp_track_free_fill_untracked(void *p);

/* The program releases p with a call of family how: forget it, remember
 * it in the recently-freed queue, report a mismatched release. Called
 * before the real free, because after it another thread may receive the
 * same address. Returns false when p is a bad pointer (reported; see
 * heap_errors.h): it must then not reach the real free. */
bool lp_track_free(void *p, unsigned how);

/* Count p as freed if it is tracked, silently (no error report, no freed
 * queue): for blocks the runtime would free at exit (exit.c). */
void lp_track_forget(void *p);

/* free(), operator delete and delete[] in one body. Always inlined into
 * each hook (free's body), so that the hook itself is the frame the error
 * and the freed-at stacks start with. lp_track_release_block takes a p
 * that is neither NULL nor a boot block (free has asked already),
 * lp_track_release any p. */
/* errno: free() leaves it as it was. lp_track_free's guard restores it
 * after our own work, and glibc's free keeps it itself (since 2.33), so
 * the hook saves nothing more: two __errno_location calls a free less. */
static inline __attribute__((always_inline)) void
lp_track_release_block(void *p, unsigned how)
{
    if (lp_sample_untracked((uintptr_t)p)) {
        /* Sampled mode, a block the table certainly does not hold. */
        if (LP_UNLIKELY(lp_config.free_fill >= 0))
            lp_track_free_fill_untracked(p);
        lp_in_libc++;
        lp_real.free(p);
        lp_in_libc--;
        return;
    }
    if (LP_LIKELY(lp_track_free(p, how))) {
        lp_in_libc++;
        lp_real.free(p);
        lp_in_libc--;
    }
}

static inline __attribute__((always_inline)) void
lp_track_release(void *p, unsigned how)
{
    if (p == NULL || LP_UNLIKELY(lp_boot_owns(p)))
        return;
    lp_track_release_block(p, how);
}

/* Sampled mode: true when p is certainly a block the table does not hold
 * and nothing has to happen around the real free (no free_fill; a
 * program with threads, as lp_track_pass says): the hook then tail-calls
 * the real free. Asked before free's NULL and boot tests: a boot block's
 * counter is stuck (lp_sample_filter_pin), so it never passes, and NULL
 * passing is harmless (the real free ignores it). */
static inline __attribute__((always_inline)) bool
lp_track_release_pass(void *p)
{
    uint8_t *f = lp_load_relaxed(&lp_hot.pass_filter);

    return f != NULL &&
           lp_load_relaxed(lp_sample_slot_in(f, (uintptr_t)p)) == 0;
}

/* Recompute lp_hot's pass fields from the options and lp_threaded: at
 * init (init.c) and when the program gets its second thread
 * (thread_registry.c), by the only thread that could race. */
static inline void lp_hot_pass_update(void)
{
    bool on = lp_sample_on() && lp_load_relaxed(&lp_threaded);

    lp_store_relaxed(&lp_hot.pass_below, on && lp_config.malloc_fill < 0
                                             ? lp_config.sample_bytes : 0);
    lp_store_relaxed(&lp_hot.pass_filter,
                     on && lp_config.free_fill < 0 ? lp_sample_filter : NULL);
}

/* realloc in two steps around the real call: begin forgets old and
 * returns 1 if it was tracked (its record in *ob), 0 if it was not (pass
 * it on), -1 if it is a bad pointer (reported: realloc must return NULL
 * without calling the real one); end records the outcome: np == NULL
 * means the real realloc failed and old is tracked again. end returns
 * true when a moved old block went into the freed queue while it holds
 * blocks back (quarantine=yes): the queue frees it then, not the caller;
 * the realloc hook moves every tracked block itself in that mode, so
 * old is still allocated. */
int lp_track_realloc_begin(void *old, size_t size, struct lp_block *ob,
                           size_t *old_usable);
bool lp_track_realloc_end(void *old, void *np, size_t size, bool had,
                          const struct lp_block *ob, size_t old_usable);

/* Heap totals derived from the per-stack counters (COLD). */
struct lp_totals {
    uint64_t allocs, frees, bytes_allocated;
    uint64_t live_bytes, live_blocks;
};
void lp_track_totals(struct lp_totals *t);

#endif /* LP_PRELOAD_TRACK_H */
