/* SPDX-License-Identifier: MIT */
/*
 * freed.c - the recently-freed queue (Memcheck's freelist), one lane per
 * thread.
 *
 * A lane is a FIFO ring of entries plus an open-addressing index (linear
 * probing, deletion by backward shift, as table.c does) mapping an
 * address to its ring slot. The ring drops from its head: the oldest free
 * goes first, as Memcheck releases its oldest blocks once the queued
 * volume exceeds --freelist-vol. Each lane keeps 1/(number of lanes) of
 * the volume, so the total stays within the bound.
 *
 * Why per thread: the queue is written on every free and read only when
 * a free goes wrong. Sharded by address, two threads freeing their own
 * blocks kept pulling the same shard locks, rings and index lines from
 * each other's caches (17% of a 2-thread storm). A thread's own lane
 * stays in its own cache; its spinlock is taken uncontended except when
 * a bad free or a forget (both rare) visits every lane. Entries carry a
 * time stamp so that, when two lanes hold the same address (freed by one
 * thread, reused and freed by another), find reports the newest.
 *
 * Which lane: thread_registry.c gives each thread record a lane (kept with the
 * record when it is recycled, like the unwinder's memo) and points
 * lp_self.freed_lane at it; the main thread and threads we did not see
 * start share the first lane.
 *
 * Cost on a free: one hash, one uncontended spinlock on a line of our
 * own, one index insert and, when the lane is full, one eviction. A
 * lane's arrays come from the arena on its first push and grow (x4, up
 * to LP_FREED_RING_MAX entries) while its volume share allows.
 * Context: HOT; lp_freed_find is COLD but lock-safe anywhere.
 */
#include "preload/hot/freed.h"

#include "preload/hot/arena.h"
#include "preload/hot/tcb_slot.h"

struct lp_freed_lane {
    int lock; /* lp_spin_lock */
    uint32_t head, count, cap; /* cap: ring entries, a power of two */
    uint32_t pushes;
    uint64_t volume;
    struct ent *ring; /* cap entries */
    uint64_t *index;  /* 2 * cap slots: hash low 32 bits << 32 | ring
                         slot + 1; 0 = empty */
    struct lp_freed_lane *next; /* every lane, push-only */
    char pad[8];
};

struct ent {
    struct lp_freed f;
    uint64_t stamp; /* when it was queued (orders lanes) */
};

static struct lp_freed_lane first_lane;
static struct lp_freed_lane *lanes = &first_lane;
static uint32_t nlanes = 1;
static uint64_t volume_limit = LP_FREED_VOLUME_DEFAULT;

/*
 * When an entry was queued, comparable across lanes: a global epoch that
 * each lane moves on every EPOCH_PUSHES of its pushes. One relaxed load
 * of a line that is rarely written; rdtsc cost a fifth of a push on this
 * virtual machine, a shared counter bumped per push a contended line.
 * Two lanes holding the same address within one epoch (an address freed
 * by one thread, reused and freed again by another, within a few dozen
 * frees) tie: find then reports the first lane's entry.
 */
#define EPOCH_PUSHES 32
static uint64_t epoch;

static inline uint64_t stamp_now(struct lp_freed_lane *l)
{
    if (++l->pushes % EPOCH_PUSHES == 0)
        return lp_add_relaxed(&epoch, 1);
    return lp_load_relaxed(&epoch);
}


static inline struct lp_freed_lane *my_lane(void)
{
    struct lp_freed_lane *l = lp_self.freed_lane;

    return l ? l : &first_lane;
}

/* Index slot holding addr, or the empty slot ending its probe run. */
static inline size_t probe(const struct lp_freed_lane *l, uintptr_t addr,
                           uint64_t h)
{
    size_t mask = (size_t)l->cap * 2 - 1, i = h & mask;
    uint64_t v;

    /* The hash bits in the slot spare a ring line per step of the run. */
    while ((v = l->index[i]) != 0 &&
           ((uint32_t)(v >> 32) != (uint32_t)h ||
            l->ring[(uint32_t)v - 1].f.addr != addr))
        i = (i + 1) & mask;
    return i;
}

static inline uint64_t slot_value(uint64_t h, uint32_t pos)
{
    return (uint64_t)(uint32_t)h << 32 | (pos + 1);
}

/* Empty index slot i, shifting the rest of its run back. */
static void index_erase(struct lp_freed_lane *l, size_t i)
{
    size_t mask = (size_t)l->cap * 2 - 1, j = i;

    for (;;) {
        size_t home;

        j = (j + 1) & mask;
        if (!l->index[j])
            break;
        home = (size_t)(l->index[j] >> 32) & mask;
        if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
            l->index[i] = l->index[j];
            i = j;
        }
    }
    l->index[i] = 0;
}

/* Kill the entry in ring slot pos (lock held; its index entry exists). */
static void drop(struct lp_freed_lane *l, uint32_t pos)
{
    struct ent *e = &l->ring[pos];

    if (!e->f.addr)
        return;
    index_erase(l, probe(l, e->f.addr, lp_hash_addr(e->f.addr)));
    l->volume -= e->f.size;
    e->f.addr = 0;
}

static void free_arrays(struct ent *ring, uint64_t *index, uint32_t cap)
{
    if (ring)
        lp_arena_free(ring, sizeof(*ring) * cap);
    if (index)
        lp_arena_free(index, sizeof(*index) * cap * 2);
}

/* Give the lane a ring of cap entries, keeping its live entries in
 * order. False (and the lane unchanged) without memory. */
static bool resize(struct lp_freed_lane *l, uint32_t cap)
{
    struct ent *ring = lp_arena_alloc(sizeof(*ring) * cap);
    uint64_t *index = lp_arena_alloc(sizeof(*index) * cap * 2);
    struct ent *old = l->ring;
    uint32_t i, n = 0, oldcap = l->cap;

    if (!ring || !index) {
        free_arrays(ring, index, cap);
        return false;
    }
    for (i = 0; old && i < l->count; i++) {
        struct ent *e = &old[(l->head + i) & (oldcap - 1)];

        if (e->f.addr)
            ring[n++] = *e;
    }
    free_arrays(old, l->index, oldcap);
    l->ring = ring;
    l->index = index;
    l->cap = cap;
    l->head = 0;
    l->count = n;
    for (i = 0; i < n; i++)
        l->index[probe(l, ring[i].f.addr, lp_hash_addr(ring[i].f.addr))] =
            slot_value(lp_hash_addr(ring[i].f.addr), i);
    return true;
}

void lp_freed_push(uintptr_t addr, size_t size, uint32_t alloc_stack,
                   uint32_t free_stack)
{
    uint64_t h = lp_hash_addr(addr), limit = lp_load_relaxed(&volume_limit);
    struct lp_freed_lane *l = my_lane();
    struct ent *e;
    size_t i;
    uint32_t pos;

    if (limit == 0 || addr == 0)
        return;
    limit = limit / lp_load_relaxed(&nlanes) + 1;
    lp_spin_lock(&l->lock);
    if (LP_UNLIKELY(!l->ring) && !resize(l, LP_FREED_RING))
        goto out;
    i = probe(l, addr, h);
    if (l->index[i])
        drop(l, (uint32_t)l->index[i] - 1);
    /* Full but within its volume share: grow rather than forget. */
    if (LP_UNLIKELY(l->count == l->cap) && l->cap < LP_FREED_RING_MAX &&
        l->volume + size <= limit)
        (void)resize(l, l->cap * 4);
    /* Oldest first, until the new entry fits (a block bigger than the
     * whole share is still kept, alone, as the newest). */
    while (l->count > 0 && (l->count == l->cap || l->volume + size > limit)) {
        drop(l, l->head);
        l->head = (l->head + 1) & (l->cap - 1);
        l->count--;
    }
    pos = (l->head + l->count) & (l->cap - 1);
    e = &l->ring[pos];
    e->f.addr = addr;
    e->f.size = size;
    e->f.alloc_stack = alloc_stack;
    e->f.free_stack = free_stack;
    e->stamp = stamp_now(l);
    l->index[probe(l, addr, h)] = slot_value(h, pos);
    l->count++;
    l->volume += size;
out:
    lp_spin_unlock(&l->lock);
}

bool lp_freed_find(uintptr_t addr, struct lp_freed *out)
{
    uint64_t h = lp_hash_addr(addr), best_stamp = 0;
    struct lp_freed_lane *l;
    bool found = false;

    if (addr == 0)
        return false;
    for (l = lp_load_acquire(&lanes); l; l = l->next) {
        size_t i;

        lp_spin_lock(&l->lock);
        if (l->ring && l->index[i = probe(l, addr, h)]) {
            const struct ent *e = &l->ring[(uint32_t)l->index[i] - 1];

            if (!found || e->stamp > best_stamp) {
                if (out)
                    *out = e->f;
                best_stamp = e->stamp;
                found = true;
            }
        }
        lp_spin_unlock(&l->lock);
    }
    return found;
}

void lp_freed_forget(uintptr_t addr)
{
    uint64_t h = lp_hash_addr(addr);
    struct lp_freed_lane *l;

    if (addr == 0)
        return;
    for (l = lp_load_acquire(&lanes); l; l = l->next) {
        size_t i;

        /* Racy peek: a lane never used has nothing to forget. */
        if (lp_load_relaxed(&l->ring) == NULL)
            continue;
        lp_spin_lock(&l->lock);
        if (l->ring && l->index[i = probe(l, addr, h)])
            drop(l, (uint32_t)l->index[i] - 1);
        lp_spin_unlock(&l->lock);
    }
}

struct lp_freed_lane *lp_freed_lane_new(void)
{
    struct lp_freed_lane *l = lp_arena_alloc(sizeof(*l));

    if (l == NULL)
        return NULL;
    lp_list_push(&lanes, l);
    lp_add_relaxed(&nlanes, 1);
    return l;
}

uint64_t lp_freed_volume(void)
{
    const struct lp_freed_lane *l;
    uint64_t v = 0;

    for (l = lp_load_acquire(&lanes); l; l = l->next)
        v += lp_load_relaxed(&l->volume);
    return v;
}

size_t lp_freed_count(void)
{
    struct lp_freed_lane *l;
    size_t j, n = 0;

    for (l = lp_load_acquire(&lanes); l; l = l->next) {
        lp_spin_lock(&l->lock);
        for (j = 0; l->ring && j < l->count; j++)
            if (l->ring[(l->head + j) & (l->cap - 1)].f.addr)
                n++;
        lp_spin_unlock(&l->lock);
    }
    return n;
}

void lp_freed_set_volume(uint64_t bytes)
{
    lp_store_relaxed(&volume_limit, bytes);
}

void lp_freed_reset(void)
{
    struct lp_freed_lane *l;

    for (l = lanes; l; l = l->next) {
        free_arrays(l->ring, l->index, l->cap);
        l->ring = NULL;
        l->index = NULL;
        l->cap = l->head = l->count = 0;
        l->volume = 0;
        l->lock = 0;
    }
}

void lp_freed_lock_all(void)
{
    struct lp_freed_lane *l;

    for (l = lp_load_acquire(&lanes); l; l = l->next)
        lp_spin_lock(&l->lock);
}

void lp_freed_unlock_all(void)
{
    struct lp_freed_lane *l;

    for (l = lp_load_acquire(&lanes); l; l = l->next)
        lp_spin_unlock(&l->lock);
}

void lp_freed_atfork_child(void)
{
    struct lp_freed_lane *l;

    for (l = lanes; l; l = l->next)
        l->lock = 0;
}
