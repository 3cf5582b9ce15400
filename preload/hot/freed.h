/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_FREED_H
#define LP_PRELOAD_FREED_H
/*
 * freed.h - the queue of recently freed blocks, as Memcheck keeps one
 * (--freelist-vol, 20,000,000 bytes by default), so that a second free of
 * the same address can be told from a free of memory we never saw, and
 * reported with where the block was allocated and where it was freed.
 *
 * Unlike Memcheck we do not hold the memory back: glibc may hand the
 * address out again at once. A live block always wins (the table is
 * asked first), and an allocation the table does not record (one of our
 * own, made under the guard) calls lp_freed_forget() so a later free of it
 * is never taken for a double free.
 *
 * One lane per thread (freed.c says why): a FIFO ring with a hash index
 * and a spinlock; a ring drops its oldest entries when its share of the
 * volume, or its slot count, is exceeded. A second free of an address
 * already queued in the same lane replaces the entry (it moves to the
 * tail); across lanes, find reports the newest.
 *
 * Context: HOT (push, forget), COLD (find). Memory: lp_arena, a lane's
 * arrays on its first push. Callers hold the guard.
 */
#include "preload/lp.h"

#define LP_FREED_RING 1024          /* first ring of a lane, a power of 2 */
#define LP_FREED_RING_MAX 65536     /* largest ring of a lane */
#define LP_FREED_VOLUME_DEFAULT 20000000ull

struct lp_freed {
    uintptr_t addr;       /* 0: a dead slot (forgotten or replaced) */
    size_t size;
    uint32_t alloc_stack; /* lp_stack ids; 0 unknown */
    uint32_t free_stack;
};

/* Queue a block that was just freed. Never fails: without memory for
 * the lane's arrays the block is simply not remembered. */
void lp_freed_push(uintptr_t addr, size_t size, uint32_t alloc_stack,
                   uint32_t free_stack);

/* The queued block that starts at addr, copied to *out. */
bool lp_freed_find(uintptr_t addr, struct lp_freed *out);

/* Drop the entry starting at addr, if any (the address is in use again
 * by a block the table does not know). */
void lp_freed_forget(uintptr_t addr);

/* Total bytes (sum of sizes) and entries queued now (racy; tests). */
uint64_t lp_freed_volume(void);
size_t lp_freed_count(void);

/* A new lane for a thread record (thread_registry.c); NULL without memory. */
struct lp_freed_lane *lp_freed_lane_new(void);

/* Set the total volume (split evenly across lanes); for tests and the
 * freelist_vol option. 0 keeps nothing. */
void lp_freed_set_volume(uint64_t bytes);

/* Forget everything (tests). Not thread-safe. */
void lp_freed_reset(void);

/* fork: take / release every lane's lock; reinitialise them in the child. */
void lp_freed_lock_all(void);
void lp_freed_unlock_all(void);
void lp_freed_atfork_child(void);

#endif /* LP_PRELOAD_FREED_H */
