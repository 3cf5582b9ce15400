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
 * ours included) only its thread can, and nothing is taken. From then on
 * the thread keeps its nursery by a biased lock (nursery_bias.c): it
 * marks the nursery busy with a plain store and goes on unless a visitor
 * is about (lp_nursery_locking), with no atomic read-modify-write; a
 * visitor raises lp_nursery_locking, makes every thread's stores visible
 * (membarrier) and waits for the busy ones to finish, and from then on
 * owners and visitors alike take the nursery's spinlock until the last
 * visitor leaves. The uncontended spinlock each operation took before
 * (a locked exchange, which drains the store buffer of everything the
 * hook just wrote) was 48% of the table's share of a 2-thread storm.
 * A free that misses in its own nursery and in the shared table looks
 * through the other nurseries; each says which 64 MiB regions of the
 * address space it holds blocks of (regions, a 64-bit filter: glibc
 * gives each thread's arena heaps of their own), so the search visits
 * only the nurseries that may hold the block.
 *
 * Context: HOT; the visitors, the drain and the locks-all are COLD.
 */
#include "preload/hot/table_slot.h"
#include "preload/hot/tcb_slot.h"

#define LP_NURSERY_SLOTS 2048u /* a power of two: a mask picks the home */
#define LP_NURSERY_FULL 1024u  /* load 0.5 at most: short probe runs */
#define LP_NURSERY_REGION_SHIFT 26

struct lp_nursery {
    int lock;     /* lp_spin_lock: visitors, and owners while one is about */
    bool drained; /* the final leak check emptied it for good */
    uint8_t busy; /* its thread is inside, biased (nursery_bias.c) */
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
/* The list of every nursery (push-only). */
struct lp_nursery *lp_nursery_first(void);

static inline uint64_t lp_nursery_region_bit(uintptr_t addr)
{
    return 1ull << (lp_hash_addr(addr >> LP_NURSERY_REGION_SHIFT) & 63);
}

/* Nonzero while owners must take their nursery's spinlock: a visitor is
 * about, or the biased lock is off for good (no membarrier, or threads
 * hand young blocks to each other often: nursery_bias.c). */
extern uint8_t lp_nursery_locking;

/* How an owner holds its nursery. */
enum { LP_OWN_FREE, LP_OWN_BIASED, LP_OWN_LOCKED };

/* The thread takes its own nursery (lp_self.nursery). Biased: the busy
 * mark, then the visitors' flag. A visitor stores the flag, then makes
 * every thread's stores visible (membarrier), then reads busy: so either
 * it sees this mark, or this load sees its flag (the compiler barrier
 * keeps the two in order here; membarrier stands for the hardware fence
 * this side leaves out). */
static inline int lp_nursery_own(struct lp_nursery *n)
{
    if (!lp_load_relaxed(&lp_any_thread))
        return LP_OWN_FREE;
    lp_store_relaxed(&n->busy, 1);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (LP_LIKELY(!lp_load_acquire(&lp_nursery_locking)))
        return LP_OWN_BIASED;
    lp_store_release(&n->busy, 0);
    lp_spin_lock(&n->lock);
    return LP_OWN_LOCKED;
}

static inline void lp_nursery_disown(struct lp_nursery *n, int how)
{
    if (how == LP_OWN_BIASED) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        lp_store_release(&n->busy, 0);
    } else if (how == LP_OWN_LOCKED) {
        lp_spin_unlock(&n->lock);
    }
}

/* A visitor (any thread, the owner too, outside its own operations):
 * between begin and end every nursery is held by its spinlock, which
 * the visitor takes for each nursery it reads or changes. Nest freely;
 * never call begin holding a shard lock or a nursery lock (an owner
 * busy in a flush may be waiting for one). COLD. */
void lp_nursery_visit_begin(void);
void lp_nursery_visit_end(void);

/* Can the biased lock be used (membarrier)? Asked when the process gets
 * its second thread (pthread_create, before the thread exists); until
 * then, and if not, owners lock whenever they must lock at all. */
void lp_nursery_bias_init(void);
/* Fork child: one thread, no visitor; the registration is per process. */
void lp_nursery_bias_atfork_child(void);
/* A young block freed by another thread, taken inside a visit: counted;
 * past a bound the bias is given up (each such visit costs a membarrier).
 * COLD. */
void lp_nursery_bias_note_handover(void);

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
