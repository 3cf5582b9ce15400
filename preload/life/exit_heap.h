/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_EXIT_HEAP_H
#define LP_PRELOAD_EXIT_HEAP_H
/*
 * exit_heap.h - the heap our own code uses at an exit that interrupted
 * the real allocator: exit() called from a signal handler that ran in
 * the middle of a malloc or free (or a fork) of the same thread.
 * Context: COLD; the allocator it puts in place is SIGNAL-safe.
 */
#include "preload/lp.h"

/* True when this thread is inside the real allocator (or fork) below a
 * signal handler that calls exit or exec: its heap may be half-updated
 * and its locks held by this very thread. Not for the hot path: in
 * sampled mode it may walk the stack. */
bool lp_allocator_interrupted(void);

/* From now on, every allocation made with the guard held (ours, and the
 * libraries' we call: the symbolizer's) is served from a mapping of our
 * own and never reaches the real allocator, whose heap is left as it
 * was; their frees, and ours of blocks the real heap holds, are dropped.
 * The program's other threads keep the real allocator. Once per process;
 * false if no memory could be mapped (nothing changed then). */
bool lp_exit_heap_take(void);

/* Whether lp_exit_heap_take took over. */
bool lp_exit_heap_on(void);

#endif /* LP_PRELOAD_EXIT_HEAP_H */
