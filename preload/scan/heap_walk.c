/* SPDX-License-Identifier: MIT */
/*
 * heap_walk.c - sampled mode's roots in glibc's heaps.
 *
 * In sampled mode most blocks are not in the table, so the scan neither
 * follows them as blocks nor, their heaps being left out of the roots as
 * Memcheck leaves its heap out, reads them as roots: a tracked block that
 * only untracked blocks point to came out "definitely lost" (redis-server,
 * sample_bytes=524288: one sampled block of its dict, 524 KB estimated,
 * at every snapshot's live report, reachable in the default mode). So
 * each heap that holds tracked blocks is walked chunk by chunk, as glibc
 * lays it out (a chunk's size word 8 bytes before its user bytes, the
 * PREV_INUSE bit of the next chunk saying it is in use), and its in-use
 * chunks that are not tracked become roots: a conservative answer, since
 * such a block may be leaked itself, which a sample cannot tell. Free
 * chunks stay out (their stale words would hold on to lost blocks), and
 * so do tcache and fastbin chunks' links only by their mangling (glibc
 * 2.32 on protects them with the address bits: no longer heap addresses).
 *
 * The walk checks itself: every tracked block must be met at a chunk, in
 * order, and the last chunk must end where the heap does. Anything else
 * (another allocator, glibc's layout changed, a thread that never parked
 * moving the heap) returns -1 and the caller leaves the heap out, as it
 * always did.
 * Context: COLD, the world stopped; reads memory only.
 */
#include "preload/scan/heap_walk.h"

#define MIN_CHUNK 32
#define PREV_INUSE 1u
#define IS_MMAPPED 2u
#define FLAGS 7u
#define PAGE 4096u
#define HEAP_MAX ((uintptr_t)64 << 20)
/* glibc 2.26+ on 64-bit: struct malloc_state, which follows the heap_info
 * of an arena's first heap (the walk proves it or gives up). */
#define MALLOC_STATE_SIZE 2200u

static inline uintptr_t word(uintptr_t at) { return *(const uintptr_t *)at; }

long lp_heap_untracked_runs(uintptr_t first, uintptr_t end,
                            const uintptr_t *tracked, size_t n,
                            lp_heap_run_fn *add, void *arg)
{
    uintptr_t ch = first, run_lo = 0, run_hi = 0;
    size_t t = 0;
    long runs = 0;

    if (first & 15 || first >= end)
        return -1;
    for (;;) {
        uintptr_t hdr, size, next, user = ch + 16;
        bool in_use, is_tracked;

        if (ch + 16 > end)
            return -1;
        hdr = word(ch + 8);
        size = hdr & ~(uintptr_t)FLAGS;
        if ((hdr & IS_MMAPPED) || size < MIN_CHUNK || (size & 15) ||
            size > end - ch)
            return -1;
        next = ch + size;
        is_tracked = t < n && tracked[t] == user;
        if (t < n && tracked[t] < next && !is_tracked)
            return -1; /* a tracked block inside a chunk: not a heap */
        if (next == end ||
            (end - next < PAGE && next + 16 <= end && word(next + 8) == 0)) {
            /* The top chunk: free, and the heap's end. */
            if (is_tracked)
                return -1;
            break;
        }
        if (next + 16 > end)
            return -1;
        in_use = word(next + 8) & PREV_INUSE;
        if (is_tracked && !in_use)
            return -1;
        t += is_tracked;
        if (in_use && !is_tracked) {
            if (!run_lo)
                run_lo = user;
            run_hi = next + 8;
        } else if (run_lo) {
            if (!add(run_lo, run_hi, arg))
                return -1;
            runs++;
            run_lo = 0;
        }
        ch = next;
    }
    if (t != n)
        return -1; /* a tracked block the walk never met */
    if (run_lo) {
        if (!add(run_lo, run_hi, arg))
            return -1;
        runs++;
    }
    return runs;
}

uintptr_t lp_heap_first_chunk(uintptr_t base)
{
    /* heap_info: ar_ptr, prev, size, ... The arena's malloc_state follows
     * the heap_info of its first heap, so that heap's base is ar_ptr's
     * 64 MiB block and the heap_info's size is ar_ptr's offset in it. */
    uintptr_t ar = word(base), base0 = ar & ~(HEAP_MAX - 1),
              info = ar - base0;

    if (base & (HEAP_MAX - 1) || info < 32 || info > 64 || (info & 15))
        return 0;
    if (base == base0)
        return (ar + MALLOC_STATE_SIZE + 15) & ~(uintptr_t)15;
    return base + info;
}
