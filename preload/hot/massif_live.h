/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_MASSIF_LIVE_H
#define LP_PRELOAD_MASSIF_LIVE_H
/*
 * massif_live.h - which allocation contexts may hold bytes, and which
 * changed since the last detailed snapshot: two bitmaps by stack id that
 * events mark (inline here: on the hot paths of massif_count.c and
 * track.c) and that a detailed snapshot walks (massif_live.c), so that a
 * capture costs the live contexts, not every stack ever seen - and in a
 * single-threaded program only the contexts that changed.
 * Private to massif's hot half and to track.c, which marks the changes.
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

/* Nothing to mark: no context (id 0), or its bit is set already. */
static inline bool lp_massif_live_marked(uint32_t id)
{
    const uint64_t *w;

    if (!id)
        return true;
    w = lp_massif_live_word(id);
    return w && (lp_load_relaxed(w) >> (id & 63) & 1);
}

/* After an allocation charged bytes to the context id (0: none): make
 * sure its bit is set. In a threaded program the set is a locked or (a
 * full barrier, as the allocation's add to its stack counter is): a
 * context that turns live while a walk clears its bit is seen by one
 * side or the other. */
static inline void lp_massif_mark_live(uint32_t id)
{
    uint64_t *w, bit;

    if (!id)
        return;
    w = lp_massif_live_word(id);
    if (LP_UNLIKELY(!w)) {
        lp_massif_mark_live_slow(id);
        return;
    }
    bit = 1ull << (id & 63);
    if (LP_LIKELY(lp_load_relaxed(w) & bit))
        return;
    if (lp_load_relaxed(&lp_threaded))
        __atomic_fetch_or(w, bit, __ATOMIC_SEQ_CST);
    else
        lp_store_relaxed(w, lp_load_relaxed(w) | bit);
}

/*
 * Changed contexts. In a single-threaded program every change of a
 * context's live bytes (track.c, after the stack counters moved) sets its
 * bit here, with a plain store; a detailed snapshot then reads the
 * records of the marked contexts only and takes every other context's
 * bytes from the snapshot before (massif_count.c): python3's detailed
 * snapshots held 1,900 contexts each on average, of which a tenth had
 * changed since the one before. With threads, events are counted in
 * per-thread caches whose stores a capture cannot order against a bit,
 * so nothing is marked and every capture walks the live bitmap.
 */
extern uint64_t *lp_massif_dirty_dir[LP_LIVE_DIR_SIZE];
void lp_massif_mark_dirty_slow(uint32_t id);

static inline void lp_massif_mark_dirty(uint32_t id)
{
    uint64_t *chunk;

    if (!lp_snapshot_active || lp_load_relaxed(&lp_threaded))
        return;
    chunk = lp_massif_dirty_dir[id >> LP_LIVE_CHUNK_BITS & (LP_LIVE_DIR_SIZE - 1)];
    if (LP_UNLIKELY(!chunk || (id >> LP_LIVE_CHUNK_BITS) >= LP_LIVE_DIR_SIZE)) {
        lp_massif_mark_dirty_slow(id);
        return;
    }
    chunk[(id & ((1u << LP_LIVE_CHUNK_BITS) - 1)) >> 6] |= 1ull << (id & 63);
}

/* Whether every change since the process began was marked (no context
 * beyond the bitmap, no chunk missing for want of memory). */
bool lp_massif_dirty_complete(void);
/* How many contexts with ids 1..nstacks are marked. */
size_t lp_massif_dirty_count(uint32_t nstacks);
/* The marked contexts with ids 1..nstacks into out (room for
 * lp_massif_dirty_count), ids ascending, with their live bytes now, 0
 * included; their marks cleared, and the live bit of those now empty.
 * Returns the count. Single-threaded only, snapshot lock held. */
size_t lp_massif_collect_dirty(uint32_t nstacks, struct lp_snapshot_ent *out);
/* Clear every mark: a full capture has just read every context. */
void lp_massif_forget_dirty(void);

/* Incremental captures (single-threaded program, snapshot lock held):
 * ready: the last capture is kept, every change since was marked, and
 * there is room to merge; collect: the live contexts now, ids ascending,
 * in *out (until the next call), their count - the marks are used up;
 * keep: a full capture's contexts, the base of the next; drop: the next
 * capture must be a full one. */
bool lp_massif_inc_ready(uint32_t nstacks);
size_t lp_massif_inc_collect(uint32_t nstacks, const struct lp_snapshot_ent **out);
void lp_massif_inc_keep(const struct lp_snapshot_ent *e, size_t n);
void lp_massif_inc_drop(void);
/* Tests: how many captures were incremental. */
unsigned long lp_massif_incremental_captures(void);

/* The live contexts with ids 1..nstacks into out[0..cap), ids ascending,
 * with their live bytes. may_clear: drop the bits of empty contexts.
 * Returns the count, or -1 when more than cap are live. Snapshot lock
 * held. */
long lp_massif_collect_live(uint32_t nstacks, bool may_clear,
                            struct lp_snapshot_ent *out, size_t cap);

#endif /* LP_PRELOAD_MASSIF_LIVE_H */
