/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_MASSIF_LIVE_H
#define LP_PRELOAD_MASSIF_LIVE_H
/*
 * massif_live.h - which allocation contexts may hold bytes: a bitmap by
 * stack id that every allocation marks (inline here: on the hot path of
 * massif_count.c) and that a detailed snapshot walks (massif_live.c), so
 * that the walk costs the live contexts, not every stack ever seen.
 * Private to massif's hot half.
 * Context: HOT.
 */
#include "preload/hot/snapshot.h"
#include "preload/hot/stack.h"
#include "preload/lp.h"

#define LP_LIVE_CHUNK_BITS 12 /* 4096 contexts per bitmap chunk */
#define LP_LIVE_CHUNK_WORDS ((1u << LP_LIVE_CHUNK_BITS) / 64)
#define LP_LIVE_DIR_SIZE 4096 /* up to 16M contexts, then a full walk */

/* Bit id of chunk id >> LP_LIVE_CHUNK_BITS (chunks from the arena). */
extern uint64_t *lp_massif_live_dir[LP_LIVE_DIR_SIZE];

/* Set id's bit where its chunk is missing (or id is beyond the
 * directory: then every later walk visits every context). */
void lp_massif_mark_live_slow(uint32_t id);

static inline uint64_t *lp_massif_live_word(uint32_t id)
{
    uint64_t *chunk = lp_load_acquire(
        &lp_massif_live_dir[id >> LP_LIVE_CHUNK_BITS & (LP_LIVE_DIR_SIZE - 1)]);

    if (!chunk || (id >> LP_LIVE_CHUNK_BITS) >= LP_LIVE_DIR_SIZE)
        return NULL;
    return &chunk[(id & ((1u << LP_LIVE_CHUNK_BITS) - 1)) >> 6];
}

/* Nothing to mark: no context, or its bit is set already. */
static inline bool lp_massif_live_marked(const struct lp_stack *s)
{
    const uint64_t *w;

    if (!s)
        return true;
    w = lp_massif_live_word(s->id);
    return w && (lp_load_relaxed(w) >> (s->id & 63) & 1);
}

/* After an allocation charged bytes to s: make sure its bit is set. In a
 * threaded program the set is a locked or (a full barrier, as the
 * allocation's add to its stack counter is): a context that turns live
 * while a walk clears its bit is seen by one side or the other. */
static inline void lp_massif_mark_live(const struct lp_stack *s)
{
    uint64_t *w, bit;

    if (!s)
        return;
    w = lp_massif_live_word(s->id);
    if (LP_UNLIKELY(!w)) {
        lp_massif_mark_live_slow(s->id);
        return;
    }
    bit = 1ull << (s->id & 63);
    if (LP_LIKELY(lp_load_relaxed(w) & bit))
        return;
    if (lp_load_relaxed(&lp_threaded))
        __atomic_fetch_or(w, bit, __ATOMIC_SEQ_CST);
    else
        lp_store_relaxed(w, lp_load_relaxed(w) | bit);
}

/* The live contexts with ids 1..nstacks into out[0..cap), ids ascending,
 * with their live bytes. may_clear: drop the bits of empty contexts.
 * Returns the count, or -1 when more than cap are live. Snapshot lock
 * held. */
long lp_massif_collect_live(uint32_t nstacks, bool may_clear,
                            struct lp_snapshot_ent *out, size_t cap);

#endif /* LP_PRELOAD_MASSIF_LIVE_H */
