/* SPDX-License-Identifier: MIT */
/*
 * nursery.c - the threads' nurseries of young blocks (nursery.h): the
 * list of them, the search of a block freed by another thread, the flush
 * into the shared table, and the cold visitors (each a visit of
 * nursery_bias.c: with its spinlock, every nursery is theirs to read).
 * Context: HOT (take_elsewhere, flush); the rest COLD.
 */
#include "preload/hot/nursery.h"

#include "preload/hot/arena.h"

bool lp_any_thread;

static struct lp_nursery *nurseries; /* push-only list */
static struct lp_nursery *main_nursery;

/* From the arena like the rest, not our .bss: a slot holds a block's
 * address as is, and the leak scan reads our data segment as a root
 * (only the arena is ours to skip), so a leak still young would look
 * reachable from here. */
struct lp_nursery *lp_nursery_main(void)
{
    if (lp_load_acquire(&main_nursery) == NULL)
        lp_store_release(&main_nursery, lp_nursery_new());
    return lp_load_acquire(&main_nursery);
}

struct lp_nursery *lp_nursery_first(void)
{
    return lp_load_acquire(&nurseries);
}

struct lp_nursery *lp_nursery_new(void)
{
    struct lp_nursery *n = lp_arena_alloc(sizeof(*n));

    if (n)
        lp_list_push(&nurseries, n);
    return n;
}

/*
 * A block freed by a thread that did not make it (or made it under
 * another nursery: a recycled thread record's). The regions filter is
 * read without the lock: the block's insert set its bit before the block
 * was handed to the program, and so before any free of it; a flush moves
 * the blocks out before it clears the filter (release), so a search that
 * reads a cleared filter finds the block in the shared table after.
 */
bool lp_nursery_take_elsewhere(const struct lp_nursery *skip, uintptr_t addr,
                               struct lp_block *out)
{
    uint64_t bit = lp_nursery_region_bit(addr);
    struct lp_nursery *n;
    bool visiting = false, hit = false;

    for (n = lp_load_acquire(&nurseries); n && !hit; n = n->next) {
        if (n == skip || !(lp_load_acquire(&n->regions) & bit))
            continue;
        if (!visiting) {
            lp_nursery_visit_begin();
            visiting = true;
        }
        lp_spin_lock(&n->lock);
        hit = lp_nursery_take_locked(n, addr, out);
        lp_spin_unlock(&n->lock);
    }
    if (visiting) {
        if (hit)
            lp_nursery_bias_note_handover();
        lp_nursery_visit_end();
    }
    return hit;
}

void lp_nursery_flush(struct lp_nursery *n,
                      void (*put)(const struct lp_slot *, unsigned, void *),
                      void *arg)
{
    struct lp_slot batch[LP_NURSERY_BATCH];
    unsigned k = 0;
    size_t i;

    for (i = 0; i < LP_NURSERY_SLOTS; i++) {
        if (lp_slot_addr(&n->slots[i])) {
            batch[k++] = n->slots[i];
            n->slots[i].w0 = 0;
            if (k == LP_NURSERY_BATCH) {
                put(batch, k, arg);
                k = 0;
            }
        }
    }
    if (k)
        put(batch, k, arg);
    n->count = 0;
    lp_store_release(&n->regions, 0);
}

/* ---- cold ------------------------------------------------------------ */

static void visit(struct lp_nursery *n,
                  void (*fn)(const struct lp_block *, void *), void *arg)
{
    size_t i;

    /* An empty nursery's pages may never have been touched: reading them
     * would fault each in (an empty program's exit paid 12 faults). */
    if (n->count == 0)
        return;
    for (i = 0; i < LP_NURSERY_SLOTS; i++)
        if (lp_slot_addr(&n->slots[i])) {
            struct lp_block b;

            lp_slot_unpack(&n->slots[i], &b);
            fn(&b, arg);
        }
}

void lp_nursery_for_each(void (*fn)(const struct lp_block *, void *),
                         void *arg)
{
    struct lp_nursery *n;

    lp_nursery_visit_begin();
    for (n = lp_load_acquire(&nurseries); n; n = n->next) {
        lp_spin_lock(&n->lock);
        visit(n, fn, arg);
        lp_spin_unlock(&n->lock);
    }
    lp_nursery_visit_end();
}

bool lp_nursery_find(uintptr_t addr, struct lp_block *out)
{
    struct lp_nursery *n;
    bool hit = false;

    lp_nursery_visit_begin();
    for (n = lp_load_acquire(&nurseries); n && !hit; n = n->next) {
        size_t i;

        lp_spin_lock(&n->lock);
        i = lp_nursery_probe(n, addr);
        hit = lp_slot_addr(&n->slots[i]) != 0;
        if (hit && out)
            lp_slot_unpack(&n->slots[i], out);
        lp_spin_unlock(&n->lock);
    }
    lp_nursery_visit_end();
    return hit;
}

size_t lp_nursery_count(void)
{
    const struct lp_nursery *n;
    size_t c = 0;

    for (n = lp_load_acquire(&nurseries); n; n = n->next)
        c += lp_load_relaxed(&n->count);
    return c;
}

void lp_nursery_drain(void (*fn)(const struct lp_block *, void *), void *arg)
{
    struct lp_nursery *n;

    lp_nursery_visit_begin();
    for (n = lp_load_acquire(&nurseries); n; n = n->next) {
        size_t i;

        lp_spin_lock(&n->lock);
        visit(n, fn, arg);
        if (n->count) /* else its pages may never have been touched */
            for (i = 0; i < LP_NURSERY_SLOTS; i++)
                if (n->slots[i].w0) /* no write to a page never used */
                    n->slots[i].w0 = 0;
        n->count = 0;
        n->regions = 0;
        n->drained = true;
        lp_spin_unlock(&n->lock);
    }
    lp_nursery_visit_end();
}

/* A visit that spans both calls (fork, the stop of the leak scan). */
void lp_nursery_lock_all(void)
{
    struct lp_nursery *n;

    lp_nursery_visit_begin();
    for (n = lp_load_acquire(&nurseries); n; n = n->next)
        lp_spin_lock(&n->lock);
}

void lp_nursery_unlock_all(void)
{
    struct lp_nursery *n;

    for (n = lp_load_acquire(&nurseries); n; n = n->next)
        lp_spin_unlock(&n->lock);
    lp_nursery_visit_end();
}

void lp_nursery_atfork_child(void)
{
    struct lp_nursery *n;

    for (n = nurseries; n; n = n->next) {
        n->lock = 0;
        n->busy = 0; /* its thread is gone */
    }
    lp_nursery_bias_atfork_child();
}
