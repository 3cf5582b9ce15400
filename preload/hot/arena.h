/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_ARENA_H
#define LP_PRELOAD_ARENA_H
/*
 * arena.h - mmap-backed allocator for all of preload's metadata (tables,
 * stack records). Never touches the hooked malloc, so its memory is not in
 * the program's heap and the leak scan skips it (lp_arena_owns()).
 *
 * Context: HOT (called rarely: slab refills and hash-bucket growth), any
 * thread; internally locked by one spinlock. Async-signal-unsafe.
 */
#include "preload/lp.h"

/* Zeroed memory of at least size bytes, or NULL when mmap fails. */
void *lp_arena_alloc(size_t size);
/* Give back memory from lp_arena_alloc(size). */
void lp_arena_free(void *p, size_t size);
/* A request above 64 KiB (a mapping of its own) resized to new_size
 * (also above 64 KiB) by mremap: its pages move, none is copied, a
 * growth's new tail is zero. The new address, or NULL (p unchanged). */
void *lp_arena_remap(void *p, size_t old_size, size_t new_size);
/* Fault in the whole pages inside [p, p + size) now, in one call: one
 * trap per page as they are first written costs about twice as much in
 * a VM (5.6 against 11 us a page). For memory about to be written in
 * full, the arena's or glibc's (pages already there keep their
 * contents); a kernel without MADV_POPULATE_WRITE leaves the pages to
 * fault in as before. */
void lp_populate(void *p, size_t size);
/* True when addr lies in memory the arena mapped. */
bool lp_arena_owns(uintptr_t addr);
/* Visit every mapping the arena holds (for the scan's root exclusion).
 * COLD; call with all other threads stopped or with no arena users. */
void lp_arena_for_each_range(void (*fn)(uintptr_t lo, uintptr_t hi, void *),
                             void *arg);

/* True once a mapping was refused: blocks or stacks may have gone
 * untracked, and every figure is incomplete. */
bool lp_arena_failed(void);

/* For the fork protocol (preload/life/fork.c) only. */
void lp_arena_lock(void);
void lp_arena_unlock(void);
void lp_arena_atfork_child(void);

#endif /* LP_PRELOAD_ARENA_H */
