/* SPDX-License-Identifier: MIT */
#ifndef LP_SCAN_HEAP_WALK_H
#define LP_SCAN_HEAP_WALK_H
/*
 * heap_walk.h - sampled mode's roots in glibc's heaps: the in-use chunks
 * the sampler left untracked (heap_walk.c).
 * Context: COLD (the leak scan, the world stopped); reads memory only.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Takes one run [lo, hi); false when there is no room for it. */
typedef bool lp_heap_run_fn(uintptr_t lo, uintptr_t hi, void *arg);

/*
 * Walk the chunks of one heap, from the header of its first chunk to end,
 * where its last chunk (the top) ends. tracked[0, n) are the user
 * addresses of the tracked blocks in the heap, ascending. Gives add the
 * runs of consecutive in-use chunks that are not tracked - each chunk's
 * user bytes, up to and with the next chunk's prev_size word, which an
 * in-use chunk owns - and returns how many, or -1 when the walk does not
 * hold together: a size out of range or misaligned, a tracked block that
 * is not at a chunk, the last chunk not ending at end (or within its last
 * page, past which the mapping reads 0), or add out of room. On -1 the
 * runs already given must be dropped.
 */
long lp_heap_untracked_runs(uintptr_t first, uintptr_t end,
                            const uintptr_t *tracked, size_t n,
                            lp_heap_run_fn *add, void *arg);

/* The first chunk's header of the non-main arena heap whose heap_info is
 * at base (64 MiB-aligned), or 0 when its fields make no sense. */
uintptr_t lp_heap_first_chunk(uintptr_t base);

#endif /* LP_SCAN_HEAP_WALK_H */
