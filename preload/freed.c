/* SPDX-License-Identifier: MIT */
/*
 * freed.c - the recently-freed queue (Memcheck's freelist), sharded.
 *
 * Each shard is a FIFO ring of entries plus an open-addressing index
 * (linear probing, deletion by backward shift, as table.c does) mapping
 * an address to its ring slot. The ring drops from its head: the oldest
 * free goes first, as Memcheck releases its oldest blocks once the queued
 * volume exceeds --freelist-vol. A shard keeps 1/LP_FREED_SHARDS of the
 * volume; with addresses spread by hash that is the same bound in total.
 *
 * Cost on a free: one hash, one uncontended spinlock, one index insert
 * and, when the shard is full, one eviction. The arrays of a shard
 * (160 KiB) come from the arena on its first push.
 * Context: HOT; lp_freed_find is COLD but lock-safe anywhere.
 */
#include "preload/freed.h"

#include "preload/arena.h"

#define RING_MASK (LP_FREED_RING - 1)
#define INDEX_SLOTS (LP_FREED_RING * 2)
#define INDEX_MASK (INDEX_SLOTS - 1)

static struct shard {
    int lock; /* lp_spin_lock */
    uint32_t head, count;
    uint64_t volume;
    struct lp_freed *ring; /* LP_FREED_RING entries */
    uint32_t *index;       /* INDEX_SLOTS: ring slot + 1; 0 = empty */
    char pad[24];
} shards[LP_FREED_SHARDS];

static uint64_t shard_limit = LP_FREED_VOLUME_DEFAULT / LP_FREED_SHARDS;

static inline uint64_t mix(uintptr_t a)
{
    uint64_t k = a;

    k ^= k >> 31;
    k *= 0x9e3779b97f4a7c15ull;
    k ^= k >> 29;
    k *= 0xbf58476d1ce4e5b9ull;
    k ^= k >> 32;
    return k;
}

static inline struct shard *shard_of(uint64_t h)
{
    return &shards[h >> 58];
}

/* Index slot holding addr, or the empty slot ending its probe run. */
static inline size_t probe(const struct shard *s, uintptr_t addr, uint64_t h)
{
    size_t i = h & INDEX_MASK;

    while (s->index[i] && s->ring[s->index[i] - 1].addr != addr)
        i = (i + 1) & INDEX_MASK;
    return i;
}

/* Empty index slot i, shifting the rest of its run back. */
static void index_erase(struct shard *s, size_t i)
{
    size_t j = i;

    for (;;) {
        size_t home;

        j = (j + 1) & INDEX_MASK;
        if (!s->index[j])
            break;
        home = mix(s->ring[s->index[j] - 1].addr) & INDEX_MASK;
        if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
            s->index[i] = s->index[j];
            i = j;
        }
    }
    s->index[i] = 0;
}

/* Kill the entry in ring slot pos (lock held; its index entry exists). */
static void drop(struct shard *s, uint32_t pos)
{
    struct lp_freed *e = &s->ring[pos];

    if (!e->addr)
        return;
    index_erase(s, probe(s, e->addr, mix(e->addr)));
    s->volume -= e->size;
    e->addr = 0;
}

static bool ensure_arrays(struct shard *s)
{
    if (LP_LIKELY(s->ring != NULL))
        return true;
    s->ring = lp_arena_alloc(sizeof(*s->ring) * LP_FREED_RING);
    s->index = lp_arena_alloc(sizeof(*s->index) * INDEX_SLOTS);
    if (s->ring && s->index)
        return true;
    if (s->ring)
        lp_arena_free(s->ring, sizeof(*s->ring) * LP_FREED_RING);
    if (s->index)
        lp_arena_free(s->index, sizeof(*s->index) * INDEX_SLOTS);
    s->ring = NULL;
    s->index = NULL;
    return false;
}

void lp_freed_push(uintptr_t addr, size_t size, uint32_t alloc_stack,
                   uint32_t free_stack)
{
    uint64_t h = mix(addr), limit = lp_load_relaxed(&shard_limit);
    struct shard *s = shard_of(h);
    struct lp_freed *e;
    size_t i;
    uint32_t pos;

    if (limit == 0 || addr == 0)
        return;
    lp_spin_lock(&s->lock);
    if (!ensure_arrays(s))
        goto out;
    i = probe(s, addr, h);
    if (s->index[i])
        drop(s, s->index[i] - 1);
    /* Oldest first, until the new entry fits (a block bigger than the
     * whole share is still kept, alone, as the newest). */
    while (s->count > 0 &&
           (s->count == LP_FREED_RING || s->volume + size > limit)) {
        drop(s, s->head);
        s->head = (s->head + 1) & RING_MASK;
        s->count--;
    }
    pos = (s->head + s->count) & RING_MASK;
    e = &s->ring[pos];
    e->addr = addr;
    e->size = size;
    e->alloc_stack = alloc_stack;
    e->free_stack = free_stack;
    s->index[probe(s, addr, h)] = pos + 1;
    s->count++;
    s->volume += size;
out:
    lp_spin_unlock(&s->lock);
}

bool lp_freed_find(uintptr_t addr, struct lp_freed *out)
{
    uint64_t h = mix(addr);
    struct shard *s = shard_of(h);
    bool found = false;
    size_t i;

    if (addr == 0)
        return false;
    lp_spin_lock(&s->lock);
    if (s->ring && s->index[i = probe(s, addr, h)]) {
        if (out)
            *out = s->ring[s->index[i] - 1];
        found = true;
    }
    lp_spin_unlock(&s->lock);
    return found;
}

void lp_freed_forget(uintptr_t addr)
{
    uint64_t h = mix(addr);
    struct shard *s = shard_of(h);
    size_t i;

    /* Racy peek: a shard never used has nothing to forget. */
    if (addr == 0 || lp_load_relaxed(&s->ring) == NULL)
        return;
    lp_spin_lock(&s->lock);
    if (s->ring && s->index[i = probe(s, addr, h)])
        drop(s, s->index[i] - 1);
    lp_spin_unlock(&s->lock);
}

uint64_t lp_freed_volume(void)
{
    uint64_t v = 0;
    size_t i;

    for (i = 0; i < LP_FREED_SHARDS; i++)
        v += lp_load_relaxed(&shards[i].volume);
    return v;
}

size_t lp_freed_count(void)
{
    size_t i, j, n = 0;

    for (i = 0; i < LP_FREED_SHARDS; i++) {
        struct shard *s = &shards[i];

        lp_spin_lock(&s->lock);
        for (j = 0; s->ring && j < s->count; j++)
            if (s->ring[(s->head + j) & RING_MASK].addr)
                n++;
        lp_spin_unlock(&s->lock);
    }
    return n;
}

void lp_freed_set_volume(uint64_t bytes)
{
    lp_store_relaxed(&shard_limit, bytes / LP_FREED_SHARDS +
                                       (bytes % LP_FREED_SHARDS != 0));
}

void lp_freed_reset(void)
{
    size_t i;

    for (i = 0; i < LP_FREED_SHARDS; i++) {
        struct shard *s = &shards[i];

        if (s->ring) {
            lp_arena_free(s->ring, sizeof(*s->ring) * LP_FREED_RING);
            lp_arena_free(s->index, sizeof(*s->index) * INDEX_SLOTS);
        }
        s->ring = NULL;
        s->index = NULL;
        s->head = s->count = 0;
        s->volume = 0;
        s->lock = 0;
    }
}

void lp_freed_lock_all(void)
{
    size_t i;

    for (i = 0; i < LP_FREED_SHARDS; i++)
        lp_spin_lock(&shards[i].lock);
}

void lp_freed_unlock_all(void)
{
    size_t i;

    for (i = LP_FREED_SHARDS; i-- > 0;)
        lp_spin_unlock(&shards[i].lock);
}

void lp_freed_atfork_child(void)
{
    size_t i;

    for (i = 0; i < LP_FREED_SHARDS; i++)
        shards[i].lock = 0;
}
