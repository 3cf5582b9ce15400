/* SPDX-License-Identifier: MIT */
/*
 * stack_count.c - the threads' caches of per-site counters: taking a way
 * (the flush of the site it held) and the readers that add the pending
 * deltas back. stack_count.h says why the caches exist.
 *
 * A cache is written only by the thread it belongs to (relaxed stores)
 * and read by anyone (relaxed loads): a reader may miss an event in
 * flight, or count a flush twice for an instant, never tear a value.
 * Caches are never freed: each goes with its thread record to the next
 * thread, pending deltas and all.
 * Context: HOT (lp_stack_local_take, lp_stack_note_record), COLD (the
 * rest).
 */
#include "preload/hot/stack_count.h"

#include "preload/hot/arena.h"

static struct lp_stack_local *caches;
struct lp_stack_counts lp_stack_shared_totals;

void lp_stack_totals(struct lp_stack_counts *out)
{
    const struct lp_stack_local *l;

    out->live_bytes = lp_load_relaxed(&lp_stack_shared_totals.live_bytes);
    out->live_blocks = lp_load_relaxed(&lp_stack_shared_totals.live_blocks);
    out->total_bytes = lp_load_relaxed(&lp_stack_shared_totals.total_bytes);
    out->total_blocks = lp_load_relaxed(&lp_stack_shared_totals.total_blocks);
    out->temp_blocks = 0;
    for (l = lp_load_acquire(&caches); l; l = l->next) {
        out->live_bytes += lp_load_relaxed(&l->all.live_bytes);
        out->live_blocks += lp_load_relaxed(&l->all.live_blocks);
        out->total_bytes += lp_load_relaxed(&l->all.total_bytes);
        out->total_blocks += lp_load_relaxed(&l->all.total_blocks);
    }
}

struct lp_stack_local *lp_stack_local_new(void)
{
    struct lp_stack_local *l = lp_arena_alloc(sizeof(*l));

    if (l == NULL)
        return NULL;
    lp_list_push(&caches, l);
    return l;
}

/* lp_count_add with the thread state already read. */
static inline void count_add(uint64_t *p, uint64_t v, bool threaded)
{
    if (threaded)
        lp_add_relaxed(p, v);
    else
        lp_store_relaxed(p, lp_load_relaxed(p) + v);
}

void lp_stack_note_record(uint32_t id, int64_t live_bytes, int64_t live_blocks,
                          uint64_t total_bytes, uint64_t total_blocks)
{
    struct lp_stack *s = lp_stack_get(id); /* NULL for id 0 */
    struct lp_stack_counts *t = &lp_stack_shared_totals;
    /* lp_threaded read once, not by each add (lp_count_add reads it
     * every time: 8 loads and branches an allocation). */
    bool threaded = lp_load_relaxed(&lp_threaded);

    if (s == NULL)
        return;
    count_add(&s->live_bytes, (uint64_t)live_bytes, threaded);
    count_add(&s->live_blocks, (uint64_t)live_blocks, threaded);
    count_add(&t->live_bytes, (uint64_t)live_bytes, threaded);
    count_add(&t->live_blocks, (uint64_t)live_blocks, threaded);
    if (total_blocks) {
        count_add(&s->total_bytes, total_bytes, threaded);
        count_add(&s->total_blocks, total_blocks, threaded);
        count_add(&t->total_bytes, total_bytes, threaded);
        count_add(&t->total_blocks, total_blocks, threaded);
    }
}

void lp_stack_note_temp_record(uint32_t id, uint64_t blocks)
{
    struct lp_stack *s = lp_stack_get(id);

    if (s != NULL)
        lp_count_add(&s->temp_blocks, blocks);
}

void lp_stack_local_take(struct lp_stack_local *l, unsigned w, uint32_t id)
{
    struct lp_stack *old = l->id[w] ? lp_stack_get(l->id[w]) : NULL;
    bool threaded = lp_load_relaxed(&lp_threaded);

    if (old != NULL) {
        count_add(&old->live_bytes, (uint64_t)l->live_bytes[w], threaded);
        count_add(&old->live_blocks, (uint64_t)l->live_blocks[w], threaded);
        count_add(&old->total_bytes, l->total_bytes[w], threaded);
        count_add(&old->total_blocks, l->total_blocks[w], threaded);
        count_add(&old->temp_blocks, l->temp_blocks[w], threaded);
    }
    lp_store_relaxed(&l->temp_blocks[w], 0);
    lp_store_relaxed(&l->live_bytes[w], 0);
    lp_store_relaxed(&l->live_blocks[w], 0);
    lp_store_relaxed(&l->total_bytes[w], 0);
    lp_store_relaxed(&l->total_blocks[w], 0);
    lp_store_relaxed(&l->id[w], id);
    /* Publish the way before this allocation reads the site's bit in
     * massif's maybe-live bitmap (stack_count.h). Single-threaded, only
     * a signal handler of this thread could look. */
    if (threaded)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    else
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void lp_stack_counts(const struct lp_stack *s, struct lp_stack_counts *out)
{
    unsigned w = s->id & (LP_STACK_LOCAL_WAYS - 1);
    const struct lp_stack_local *l;

    out->live_bytes = lp_load_relaxed(&s->live_bytes);
    out->live_blocks = lp_load_relaxed(&s->live_blocks);
    out->total_bytes = lp_load_relaxed(&s->total_bytes);
    out->total_blocks = lp_load_relaxed(&s->total_blocks);
    out->temp_blocks = lp_load_relaxed(&s->temp_blocks);
    for (l = lp_load_acquire(&caches); l; l = l->next) {
        if (lp_load_relaxed(&l->id[w]) != s->id)
            continue;
        out->live_bytes += (uint64_t)lp_load_relaxed(&l->live_bytes[w]);
        out->live_blocks += (uint64_t)lp_load_relaxed(&l->live_blocks[w]);
        out->total_bytes += lp_load_relaxed(&l->total_bytes[w]);
        out->total_blocks += lp_load_relaxed(&l->total_blocks[w]);
        out->temp_blocks += lp_load_relaxed(&l->temp_blocks[w]);
    }
}

uint64_t lp_stack_live_bytes(const struct lp_stack *s)
{
    unsigned w = s->id & (LP_STACK_LOCAL_WAYS - 1);
    uint64_t b = lp_load_relaxed(&s->live_bytes);
    const struct lp_stack_local *l;

    for (l = lp_load_acquire(&caches); l; l = l->next)
        if (lp_load_relaxed(&l->id[w]) == s->id)
            b += (uint64_t)lp_load_relaxed(&l->live_bytes[w]);
    /* A free counted before its allocation's flush: never "negative". */
    return (int64_t)b < 0 ? 0 : b;
}

bool lp_stack_local_holds(uint32_t id)
{
    unsigned w = id & (LP_STACK_LOCAL_WAYS - 1);
    const struct lp_stack_local *l;

    for (l = lp_load_acquire(&caches); l; l = l->next)
        if (lp_load_relaxed(&l->id[w]) == id)
            return true;
    return false;
}

void lp_stack_local_pending(struct lp_stack_counts *out)
{
    const struct lp_stack_local *l;
    unsigned w;

    out->live_bytes = out->live_blocks = 0;
    out->total_bytes = out->total_blocks = out->temp_blocks = 0;
    for (l = lp_load_acquire(&caches); l; l = l->next) {
        for (w = 0; w < LP_STACK_LOCAL_WAYS; w++) {
            if (lp_load_relaxed(&l->id[w]) == 0)
                continue;
            out->live_bytes += (uint64_t)lp_load_relaxed(&l->live_bytes[w]);
            out->live_blocks += (uint64_t)lp_load_relaxed(&l->live_blocks[w]);
            out->total_bytes += lp_load_relaxed(&l->total_bytes[w]);
            out->total_blocks += lp_load_relaxed(&l->total_blocks[w]);
            out->temp_blocks += lp_load_relaxed(&l->temp_blocks[w]);
        }
    }
}
