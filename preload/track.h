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
#include "preload/lp.h"
#include "preload/table.h"

/* Bring the profiler up if it is not (first allocation, constructor).
 * Returns false while the real allocator is being resolved by this
 * thread: the caller must then serve the request from the boot arena. */
bool lp_track_init(void);

/* From a signal handler (async-signal-safe): ask the next allocation, in
 * any thread, to start the snapshot dumper (signal.c) outside the
 * handler. Costs the hot path nothing: the init check fails once. */
void lp_track_request_service(void);

/* A block p of size bytes was just handed to the program. */
void lp_track_alloc(void *p, size_t size);

/* The program frees p: forget it. Called before the real free, because
 * after it another thread may receive the same address. */
void lp_track_free(void *p);

/* realloc in two steps around the real call: begin forgets old (true if
 * it was tracked, with its record in *ob); end records the outcome:
 * np == NULL means the real realloc failed and old is tracked again. */
bool lp_track_realloc_begin(void *old, struct lp_block *ob,
                            size_t *old_usable);
void lp_track_realloc_end(void *old, void *np, size_t size, bool had,
                          const struct lp_block *ob, size_t old_usable);

/* Heap totals derived from the per-stack counters (COLD). */
struct lp_totals {
    uint64_t allocs, frees, bytes_allocated;
    uint64_t live_bytes, live_blocks;
};
void lp_track_totals(struct lp_totals *t);

#endif /* LP_PRELOAD_TRACK_H */
