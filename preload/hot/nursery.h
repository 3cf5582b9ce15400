/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_NURSERY_H
#define LP_PRELOAD_NURSERY_H
/*
 * nursery.h - each thread's nursery: the front of the live-block table
 * (table.c) where the thread's new blocks live until they are freed or
 * grow old.
 *
 * Why: most blocks die young, freed by the thread that made them within
 * a few dozen allocations (sqlite3: 99.9% of its frees come within 64
 * allocations of the block's; the bench's storm, 98% within 1,024;
 * python3, 45%). In the shared table each of them cost two cache misses
 * (a random slot among megabytes, on insert and on remove) and two shard
 * locks whose lines other threads pull away. A nursery is a small
 * open-addressing array of the same packed slots (table_slot.h), 48 KiB,
 * that stays in the thread's own cache: a young block is inserted and
 * removed there and never reaches the shared table.
 *
 * Growing old: when a nursery holds LP_NURSERY_FULL blocks, table.c moves
 * them all to the shared table (a flush) and the nursery starts empty.
 * The blocks that live that long pay the shared insert they always paid,
 * once; the few young ones caught by the flush pay it too.
 *
 * Who may touch a nursery: its thread, and any other thread that frees a
 * block the nursery holds (a block handed to another thread), lists the
 * live blocks, or forks. Until the process has a second thread
 * (lp_any_thread: set by pthread_create before any other thread exists,
 * ours included) only its thread can, and no lock is taken; from then on
 * every access holds the nursery's lock - its own line, in its thread's
 * cache unless another thread just came by. A free that misses in its
 * own nursery and in the shared table looks through the other
 * nurseries; each says which 64 MiB regions of the address space it
 * holds blocks of (regions, a 64-bit filter: glibc gives each thread's
 * arena heaps of their own), so the search locks only the nurseries that
 * may hold the block.
 *
 * Context: HOT; the visitors, the drain and the locks-all are COLD.
 */
#include "preload/hot/table_slot.h"
#include "preload/hot/tcb_slot.h"

#define LP_NURSERY_SLOTS 2048u /* a power of two: a mask picks the home */
#define LP_NURSERY_FULL 1024u  /* load 0.5 at most: short probe runs */
#define LP_NURSERY_REGION_SHIFT 26

struct lp_nursery {
    int lock;     /* lp_spin_lock, taken once lp_any_thread */
    bool drained; /* the final leak check emptied it for good */
    uint32_t count;
    uint64_t regions; /* bit (region hash & 63) per region with blocks here */
    struct lp_nursery *next; /* every nursery, push-only */
    struct lp_slot slots[LP_NURSERY_SLOTS];
};

/* A second thread exists (the program's or ours): nurseries lock. */
extern bool lp_any_thread;

/* The nursery of the thread that brought the library up; and a fresh
 * one for a thread record (arena; NULL without memory). */
struct lp_nursery *lp_nursery_main(void);
struct lp_nursery *lp_nursery_new(void);

static inline uint64_t lp_nursery_region_bit(uintptr_t addr)
{
    return 1ull << (lp_hash_addr(addr >> LP_NURSERY_REGION_SHIFT) & 63);
}

static inline bool lp_nursery_lock(struct lp_nursery *n)
{
    if (!lp_load_relaxed(&lp_any_thread))
        return false;
    lp_spin_lock(&n->lock);
    return true;
}

static inline void lp_nursery_unlock(struct lp_nursery *n, bool locked)
{
    if (locked)
        lp_spin_unlock(&n->lock);
}

/* A block's home slot in a nursery: its address in 16-byte granules
 * (malloc's alignment) modulo the nursery, no mixing. Young blocks are
 * neighbours in the heap (glibc's tcache hands the same addresses back,
 * the top chunk is split in order), so their slots share lines and the
 * nursery's footprint in the L1 cache stays small: against a
 * multiplicative hash, our share of the samples per sample of the
 * program's own code fell 9% on sqlite3, 2% on python3 and 9% on the
 * 2-thread storm (medians of 5). Blocks 32 KiB apart share a home; probe
 * runs stay short at the nursery's load of at most 0.5. */
static inline size_t lp_nursery_home(uintptr_t addr)
{
    return (size_t)(addr >> 4) & (LP_NURSERY_SLOTS - 1);
}

/* The same, in table_slot.h's shape (the nursery's cap is fixed). */
static inline size_t lp_nursery_home_of(uintptr_t addr, size_t cap)
{
    (void)cap;
    return lp_nursery_home(addr);
}

/* Index of addr's slot in n, or of the empty slot ending its run
 * (lock held, or no second thread). */
static inline size_t lp_nursery_probe(const struct lp_nursery *n,
                                      uintptr_t addr)
{
    return lp_slots_probe(n->slots, LP_NURSERY_SLOTS, addr,
                          lp_nursery_home(addr));
}

/* Empty slot i of n and shift the rest of its run back. */
static inline void lp_nursery_erase(struct lp_nursery *n, size_t i)
{
    lp_slots_erase(n->slots, LP_NURSERY_SLOTS, i, lp_nursery_home_of);
    n->count--;
}

/* Take addr out of n if n holds it (*out: its block); lock held or no
 * second thread. */
static inline bool lp_nursery_take_locked(struct lp_nursery *n, uintptr_t addr,
                                          struct lp_block *out)
{
    size_t i = lp_nursery_probe(n, addr);

    if (!lp_slot_addr(&n->slots[i]))
        return false;
    if (out)
        lp_slot_unpack(&n->slots[i], out);
    lp_nursery_erase(n, i);
    return true;
}

/* Take addr out of whichever nursery but skip holds it (lock-safe
 * anywhere: one nursery lock at a time). */
bool lp_nursery_take_elsewhere(const struct lp_nursery *skip, uintptr_t addr,
                               struct lp_block *out);

/* Move every block of n out through put (shared-table inserts, given
 * LP_NURSERY_BATCH blocks at a time so that their cache misses overlap),
 * and leave n empty; n's lock held or no second thread. */
#define LP_NURSERY_BATCH 16
void lp_nursery_flush(struct lp_nursery *n,
                      void (*put)(const struct lp_slot *, unsigned, void *),
                      void *arg);

/* COLD: every nursery's blocks (one lock at a time); find one; count. */
void lp_nursery_for_each(void (*fn)(const struct lp_block *, void *),
                         void *arg);
bool lp_nursery_find(uintptr_t addr, struct lp_block *out);
size_t lp_nursery_count(void);
/* The final leak check: visit every block and leave every nursery empty
 * and dead (later inserts fail, as the shared table's do). */
void lp_nursery_drain(void (*fn)(const struct lp_block *, void *), void *arg);
/* Fork and stop-the-world: every nursery lock, in list order. */
void lp_nursery_lock_all(void);
void lp_nursery_unlock_all(void);
void lp_nursery_atfork_child(void);

#endif /* LP_PRELOAD_NURSERY_H */
