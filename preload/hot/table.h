/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_TABLE_H
#define LP_PRELOAD_TABLE_H
/*
 * table.h - live blocks: address -> (size, stack id, sequence number).
 *
 * Split by address hash into LP_TABLE_SHARDS open-addressing hash tables,
 * each with its own lock, so threads freeing unrelated blocks never
 * contend. Memory
 * comes from lp_arena only. Callers must hold the guard (see guard.h).
 *
 * Context: HOT, except lp_table_for_each(), lp_table_drain() and
 * lp_table_lock_all() (COLD).
 */
#include "preload/lp.h"

#define LP_TABLE_SHARDS 64

/* How a block was allocated, so a mismatched release can be told apart
 * (Memcheck's "Mismatched free() / delete / delete []"). */
enum lp_how { LP_HOW_MALLOC = 0, LP_HOW_NEW, LP_HOW_NEW_ARRAY };

struct lp_block {
    uintptr_t addr;
    size_t size;       /* requested size */
    uint32_t stack_id; /* from lp_stack_intern(); 0 = unknown */
    uint32_t how;      /* enum lp_how */
    uint64_t time;     /* when: lp_block_time(), lp_block_gen() */
};

/*
 * A block's time stamp: when it was allocated, in bytes allocated+freed
 * since start (massif's B time; 0 when massif= is off), in the low 48
 * bits; in the high 16, the table's generation at that moment, which
 * each live leak report moves on (lp_table_next_gen), so "allocated since
 * the previous report" is one comparison and costs the hot path one
 * relaxed load, where a global sequence number was a contended atomic
 * on every insert. The table keeps 47 bits of the time (table.c packs a
 * block into 24 bytes): 2^47 bytes of allocation traffic wrap it.
 */
#define LP_BLOCK_TIME_BITS 48
static inline uint64_t lp_block_time(const struct lp_block *b)
{
    return b->time & ((1ull << LP_BLOCK_TIME_BITS) - 1);
}
static inline uint16_t lp_block_gen(const struct lp_block *b)
{
    return (uint16_t)(b->time >> LP_BLOCK_TIME_BITS);
}

/* Start a new generation (a live report was just taken); returns it. */
uint16_t lp_table_next_gen(void);

/* Track a block. Returns 0, or -ENOMEM if the arena is exhausted; the
 * block is then simply untracked. A stale entry at addr is replaced (and
 * its data copied to *stale, if non-NULL, with 1 returned). */
int lp_table_insert(uintptr_t addr, size_t size, uint32_t stack_id,
                    struct lp_block *stale);
/* The same, recording how the block was allocated (enum lp_how) and
 * when (struct lp_block.time); lp_table_insert() records LP_HOW_MALLOC
 * at time 0. */
int lp_table_insert_how(uintptr_t addr, size_t size, uint32_t stack_id,
                        unsigned how, uint64_t time, struct lp_block *stale);

/* Forget a block, copying it to *out when out is non-NULL. Returns 0, or
 * -ENOENT for an address we never saw (allocated before init, or ours). */
int lp_table_remove(uintptr_t addr, struct lp_block *out);

/* Start loading addr's slot into the cache, lock-free: called before the
 * stack is captured, so that the slot's cache miss overlaps the walk. */
void lp_table_prefetch(uintptr_t addr);

/* Look a block up without removing it. */
int lp_table_find(uintptr_t addr, struct lp_block *out);

/* Number of live blocks right now (sum over shards, racy). */
size_t lp_table_count(void);

/* Visit every live block, holding one shard lock at a time. The block
 * passed to fn is a copy, valid during the call. */
void lp_table_for_each(void (*fn)(const struct lp_block *, void *), void *arg);

/* The final leak check's copy: visit every live block as
 * lp_table_for_each() does, giving each shard's pages back as they are
 * read, and leave the table empty and dead: later removes and finds see
 * nothing, later inserts fail (-ENOMEM: untracked). Only once the
 * process stopped tracking (lp_state DONE) and the other threads are
 * stopped. COLD. */
void lp_table_drain(void (*fn)(const struct lp_block *, void *), void *arg);

/* Take / release every shard lock (fork, stop-the-world scans). */
void lp_table_lock_all(void);
void lp_table_unlock_all(void);
/* In a fork child: reinitialise the locks. */
void lp_table_atfork_child(void);

#endif /* LP_PRELOAD_TABLE_H */
