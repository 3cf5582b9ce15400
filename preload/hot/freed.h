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
 * One lane per thread (freed.c says why): a plain FIFO ring with no
 * index, so a push is a sequential write; a ring drops its oldest entries
 * when its share of the volume, or of the slots, is exceeded. A second
 * free of an address adds a newer entry (no dedup), and forget adds a
 * tombstone (a newer entry saying "not freed") to the caller's lane
 * instead of visiting every lane. find scans the lanes newest to oldest:
 * in a lane the first entry for the address is its newest; across lanes
 * the newest stamp wins, a freed entry before a tombstone on a tie.
 *
 * Worst case of find (a free of an address never queued): it reads every
 * queued address once, at most max(LP_FREED_SLOTS, lanes x LP_FREED_RING)
 * of them (8 bytes each: 8 MiB, about 1 ms; freed.c has the figures).
 * The slot share keeps that bound however many threads run.
 *
 * Known limit: a tombstone leaves its lane in FIFO order like any entry;
 * if it goes while an older entry for the same address survives in
 * another (quieter) lane, that entry is visible again. Only a free the
 * table does not know reaches find (our own frees under the guard never
 * ask): a program freeing a block of ours, or one the table had no room
 * for; the effect is at worst an "invalid free" reported with an old
 * block's stacks instead of as unknown memory.
 *
 * Context: HOT (push, forget), COLD (find). Memory: lp_arena, a lane's
 * arrays on its first push. Callers hold the guard.
 */
#include "preload/lp.h"

#define LP_FREED_RING 1024          /* first ring of a lane, a power of 2 */
#define LP_FREED_RING_MAX 65536     /* largest ring of a lane */
#define LP_FREED_SLOTS (1u << 20)   /* entries in all lanes (split evenly,
                                       at least LP_FREED_RING a lane) */
#define LP_FREED_VOLUME_DEFAULT 20000000ull
/* A lane moves the global epoch on every this many of its pushes. Every
 * lane reads the epoch's line on each push: moved every 32 pushes, the
 * line went back and forth between the threads of a 2-thread storm
 * (append's load of it and its locked add were 56% of append, 7% of the
 * run); every 256, 4-9% less CPU in that run (perf stat, 8 runs each). */
#define LP_FREED_EPOCH_PUSHES 256

struct lp_freed {
    uintptr_t addr;
    size_t size;
    uint32_t alloc_stack; /* lp_stack ids; 0 unknown */
    uint32_t free_stack;
};

/* Queue a block that was just freed. Never fails: without memory for
 * the lane's arrays the block is simply not remembered. Returns true
 * when the queue took the block over (quarantine=yes and it was queued):
 * the queue frees it for real when it leaves, and the caller must not;
 * otherwise the caller frees it as usual. */
bool lp_freed_push(uintptr_t addr, size_t size, uint32_t alloc_stack,
                   uint32_t free_stack);

/* quarantine=yes is in force (set by lp_freed_set_volume): queued
 * blocks are the queue's to free. */
extern bool lp_freed_hold;
static inline bool lp_freed_holding(void)
{
    return lp_freed_hold;
}

/* The newest queued block that starts at addr, copied to *out; false
 * when none is queued or a newer forget says it is in use again. */
bool lp_freed_find(uintptr_t addr, struct lp_freed *out);

/* COLD, for the leak scan (other threads parked): fn for each block
 * quarantine=yes holds (allocated in the real allocator until it leaves
 * the queue: a freed block whose memory is no root). Nothing without
 * quarantine. A lane another thread holds locked is skipped. */
void lp_freed_each_held(void (*fn)(uintptr_t addr, size_t size, void *arg),
                        void *arg);

/* The address is in use again by a block the table does not know: queue
 * a tombstone in the caller's lane so find no longer reports it. Never
 * fails (as push). */
void lp_freed_forget(uintptr_t addr);

/* Total bytes (sum of sizes) and freed-block entries queued now, counting
 * an address once per queued free, tombstones not at all (racy; tests). */
uint64_t lp_freed_volume(void);
size_t lp_freed_count(void);

/* A new lane for a thread record (thread_registry.c); NULL without memory. */
struct lp_freed_lane *lp_freed_lane_new(void);
/* Lanes made so far, the first included (the shares divide by it). */
uint32_t lp_freed_lanes(void);

/* Set the total volume (split evenly across lanes, as the slots are);
 * for tests and the freelist_vol option. 0 keeps nothing. */
void lp_freed_set_volume(uint64_t bytes);

/* Forget everything (tests). Not thread-safe. */
void lp_freed_reset(void);

/* fork: take / release every lane's lock; reinitialise them in the child. */
void lp_freed_lock_all(void);
void lp_freed_unlock_all(void);
void lp_freed_atfork_child(void);

#endif /* LP_PRELOAD_FREED_H */
