/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_STACK_COUNT_H
#define LP_PRELOAD_STACK_COUNT_H
/*
 * stack_count.h - the per-site counters of every stack record (live and
 * total bytes and blocks), kept without a shared cache line per event.
 *
 * Two threads allocating from the same site would pull the record's line
 * from each other's caches on every event (four locked adds an
 * allocation: 13% of a 2-thread storm), and even one thread misses the
 * record's line on most events in a program with many sites. So each
 * thread (the main thread from the start, every thread known to
 * thread_registry.c) counts into a small direct-mapped cache of its own
 * (LP_STACK_LOCAL_WAYS sites, keyed by stack id) and adds a site's deltas
 * to its record only when another site takes its way. Readers that want
 * a site's figures (massif's detailed snapshots, pprof, the totals at
 * exit) add every thread's pending deltas to the record's:
 * lp_stack_counts().
 *
 * Massif's maybe-live bitmap (massif_count.c) must not lose a site a
 * thread still counts in its cache: lp_stack_local_holds() tells it, and
 * a thread that takes a way for a site issues a full fence before its
 * allocation looks at the site's bit.
 *
 * Context: HOT (note_*), COLD (the readers, any thread).
 */
#include "preload/hot/stack.h"
#include "preload/hot/tcb_slot.h"

#define LP_STACK_LOCAL_WAYS 256

struct lp_stack_counts {
    uint64_t live_bytes, live_blocks, total_bytes, total_blocks;
    uint64_t temp_blocks; /* lp_stack_counts only (0 in the totals) */
};

struct lp_stack_local {
    uint32_t id[LP_STACK_LOCAL_WAYS]; /* 0: an empty way */
    int64_t live_bytes[LP_STACK_LOCAL_WAYS], live_blocks[LP_STACK_LOCAL_WAYS];
    uint64_t total_bytes[LP_STACK_LOCAL_WAYS], total_blocks[LP_STACK_LOCAL_WAYS];
    uint64_t temp_blocks[LP_STACK_LOCAL_WAYS];
    /* Every site together, this thread's share (live as a wrapping sum
     * of signed deltas): what lp_stack_totals adds up. */
    struct lp_stack_counts all;
    struct lp_stack_local *next; /* every cache, push-only */
};

/* The same sums for counts made without a cache (a thread we did not
 * see start, a cache that could not be made): lp_count_add. */
extern struct lp_stack_counts lp_stack_shared_totals;

/* A cache for a thread record (thread_registry.c); NULL without memory. */
struct lp_stack_local *lp_stack_local_new(void);

/* Way w of l now counts for the site id: its previous site's deltas go
 * to that site's record. */
void lp_stack_local_take(struct lp_stack_local *l, unsigned w, uint32_t id);

/* Add to the record's own counters and the shared totals: a thread
 * without a cache (one we did not see start, or memory ran out). */
void lp_stack_note_record(uint32_t id, int64_t live_bytes, int64_t live_blocks,
                          uint64_t total_bytes, uint64_t total_blocks);
void lp_stack_note_temp_record(uint32_t id, uint64_t blocks);

/* The way of l that counts for the site id, taken if another site had
 * it. */
static inline unsigned lp_stack_local_way(struct lp_stack_local *l,
                                          uint32_t id)
{
    unsigned w = id & (LP_STACK_LOCAL_WAYS - 1);

    if (LP_UNLIKELY(l->id[w] != id))
        lp_stack_local_take(l, w, id);
    return w;
}

/*
 * Counters: an allocation / a free, charged bytes and blocks (one block
 * of its size, or with sample_bytes=N what a tracked block stands for:
 * sample.h, blocks then in LP_SAMPLE_ONE units), to the site id (0: no
 * site, nothing counted).
 *
 * By id, not by record: an allocation whose walk repeated an earlier one
 * (stack_walk.c) has its id without reading the record, and a free has
 * it from the block's table entry; the record's line is read only when
 * the site takes a way of the cache. Counted into the record (two
 * dependent loads through the directory, then a line of 170,000 records
 * in python3) every event missed the cache: 4.6% of a sqlite3 run on
 * that one load.
 */
static inline void lp_stack_note(uint32_t id, int64_t live_bytes,
                                 int64_t live_blocks, uint64_t total_bytes,
                                 uint64_t total_blocks)
{
    struct lp_stack_local *l = lp_self.stack_local;
    unsigned w;

    if (LP_UNLIKELY(l == NULL || id == 0)) {
        lp_stack_note_record(id, live_bytes, live_blocks, total_bytes,
                             total_blocks);
        return;
    }
    w = lp_stack_local_way(l, id);
    lp_store_relaxed(&l->live_bytes[w], l->live_bytes[w] + live_bytes);
    lp_store_relaxed(&l->live_blocks[w], l->live_blocks[w] + live_blocks);
    lp_store_relaxed(&l->all.live_bytes, l->all.live_bytes + (uint64_t)live_bytes);
    lp_store_relaxed(&l->all.live_blocks, l->all.live_blocks + (uint64_t)live_blocks);
    if (total_blocks) {
        lp_store_relaxed(&l->total_bytes[w], l->total_bytes[w] + total_bytes);
        lp_store_relaxed(&l->total_blocks[w], l->total_blocks[w] + total_blocks);
        lp_store_relaxed(&l->all.total_bytes, l->all.total_bytes + total_bytes);
        lp_store_relaxed(&l->all.total_blocks, l->all.total_blocks + total_blocks);
    }
}

static inline void lp_stack_note_alloc(uint32_t id, uint64_t bytes,
                                       uint64_t blocks)
{
    lp_stack_note(id, (int64_t)bytes, (int64_t)blocks, bytes, blocks);
}

static inline void lp_stack_note_free(uint32_t id, uint64_t bytes,
                                      uint64_t blocks)
{
    lp_stack_note(id, -(int64_t)bytes, -(int64_t)blocks, 0, 0);
}

/* A temporary allocation (heaptrack's definition): the block freed was
 * its thread's last allocation, none in between. blocks: 1, or with
 * sample_bytes=N what the tracked block stands for (sample.h: fixed
 * point, read it through lp_sample_blocks_out). In the cache too: a
 * sqlite3 run frees a temporary block every few events, and the add to
 * the record was a third of lp_track_free. */
static inline void lp_stack_note_temp(uint32_t id, uint64_t blocks)
{
    struct lp_stack_local *l = lp_self.stack_local;
    unsigned w;

    if (LP_UNLIKELY(l == NULL || id == 0)) {
        lp_stack_note_temp_record(id, blocks);
        return;
    }
    w = lp_stack_local_way(l, id);
    lp_store_relaxed(&l->temp_blocks[w], l->temp_blocks[w] + blocks);
}

/* A site's figures: its record plus every thread's pending deltas. */
void lp_stack_counts(const struct lp_stack *s, struct lp_stack_counts *out);

/* Live bytes of one site (the same, one figure). */
uint64_t lp_stack_live_bytes(const struct lp_stack *s);

/* Whether some thread's cache has a way for the site id. */
bool lp_stack_local_holds(uint32_t id);

/* Every thread's pending deltas, all sites together. */
void lp_stack_local_pending(struct lp_stack_counts *out);

/* Every site's counters added up (the heap totals at exit), from running
 * sums: a few words per thread, where walking every site record cost a
 * cache miss per site (python3: 170,000 sites, 4.5% of the run). */
void lp_stack_totals(struct lp_stack_counts *out);

#endif /* LP_PRELOAD_STACK_COUNT_H */
