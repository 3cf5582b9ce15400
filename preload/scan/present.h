/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SCAN_PRESENT_H
#define LP_PRELOAD_SCAN_PRESENT_H
/*
 * present.h - which pages of a private anonymous range can hold a
 * pointer: those the kernel has in memory or in swap. A page of such a
 * range that is neither was never written (or was given back): reading it
 * yields zeros, after a page fault that maps the zero page and a page
 * table to hold it. The leak scan reads every word of its roots and
 * blocks; a program with a big sparse mapping (a 32 GiB MAP_NORESERVE
 * arena, a 4 GiB calloc touched in one page) made it fault in every page
 * of it: 3.5 s and 64 MB of page tables at the exit of a 32 GiB one.
 *
 * The kernel's answer: the PAGEMAP_SCAN ioctl on /proc/self/pagemap
 * (Linux 6.7), which returns the runs of pages that are present or
 * swapped, or else /proc/self/pagemap read 8 bytes a page (bits 63
 * present, 62 swapped). Only for private anonymous memory: a page of a
 * file or of shared memory that is not mapped here may still have
 * contents elsewhere.
 * Context: COLD (the leak scan: plain system calls, no allocation, no
 * stdio; while other threads are parked).
 */
#include <stdbool.h>
#include <stdint.h>

#include "preload/scan/classify.h"

/* Whether a mapping (its LP_SCAN_MAP_* flags) is one to ask about:
 * readable, writable, private and anonymous - the program's own memory
 * (heaps, arenas, stacks), which the kernel zero-fills; not a file's or
 * shared memory's pages, nor a driver's mapping. */
static inline bool lp_present_applies(unsigned flags)
{
    return (flags & (LP_SCAN_MAP_R | LP_SCAN_MAP_W | LP_SCAN_MAP_FILE |
                     LP_SCAN_MAP_SHARED)) == (LP_SCAN_MAP_R | LP_SCAN_MAP_W);
}

/* Ranges below this are read whole: asking costs more than reading.
 * Asking is one ioctl (or pread) on a descriptor the scan keeps open;
 * reading 32 KiB is 4,096 words to look up, and a page never written
 * costs a fault to read (10-15 us each on a paravirtualized VM): a
 * compile's cc1 read 320 such pages in calloc'ed tables of 32 KiB to
 * 1 MiB at each exit. */
#define LP_PRESENT_MIN ((uintptr_t)1 << 15)

/* Close the descriptor lp_present_runs opened and keeps for the rest of
 * the scan: at its end (lp_scan_core_finish) and before a new one. */
void lp_present_done(void);

/* Call fn for each run [a, b) of [lo, hi) whose pages are present or
 * swapped, in address order (clipped to [lo, hi)). Returns true when
 * every such run was given; false when the kernel could not tell from
 * some address on (no /proc, a seccomp filter, an error): then fn has
 * seen the runs below *undecided, and the caller reads [*undecided, hi)
 * whole. */
bool lp_present_runs(uintptr_t lo, uintptr_t hi,
                     void (*fn)(uintptr_t a, uintptr_t b, void *arg),
                     void *arg, uintptr_t *undecided);

/* Tests: 0 = as above, 1 = never use the ioctl (the pagemap read), 2 =
 * never ask (every range undecided). */
extern int lp_present_mode;

#endif /* LP_PRELOAD_SCAN_PRESENT_H */
