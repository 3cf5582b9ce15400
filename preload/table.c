/* SPDX-License-Identifier: MIT */
/*
 * table.c - the sharded live-block table.
 *
 * Each shard is a uthash table plus a free list of entries carved from
 * arena slabs, guarded by one mutex. A shard is picked by hashing the
 * address, so unrelated frees rarely meet on a lock.
 * Context: HOT; lp_table_for_each is COLD.
 */
#include "preload/table.h"

#include <errno.h>

#include "preload/htable.h"

struct entry {
    struct lp_block b;
    UT_hash_handle hh;
};

#define SLAB_ENTRIES 256

static struct shard {
    int lock; /* lp_spin_lock */
    struct entry *map;
    struct entry *free; /* chained through hh.next */
    size_t count;
    char pad[64];
} shards[LP_TABLE_SHARDS];

static uint64_t next_seq;

static struct shard *shard_of(uintptr_t addr)
{
    uint64_t h = (uint64_t)addr * 0x9E3779B97F4A7C15ull;

    return &shards[h >> 58]; /* top 6 bits: 64 shards */
}

static struct entry *entry_get(struct shard *s)
{
    struct entry *e = s->free;
    unsigned i;

    if (!e) {
        e = lp_arena_alloc(sizeof(*e) * SLAB_ENTRIES);
        if (!e)
            return NULL;
        for (i = 1; i < SLAB_ENTRIES - 1; i++)
            e[i].hh.next = &e[i + 1];
        e[SLAB_ENTRIES - 1].hh.next = NULL;
        s->free = &e[1];
        return e;
    }
    s->free = e->hh.next;
    return e;
}

static void entry_put(struct shard *s, struct entry *e)
{
    e->hh.next = s->free;
    s->free = e;
}

int lp_table_insert(uintptr_t addr, size_t size, uint32_t stack_id,
                    struct lp_block *stale)
{
    struct shard *s = shard_of(addr);
    struct entry *e, *old;
    bool htable_oom = false;
    int ret = 0;

    lp_spin_lock(&s->lock);
    HASH_FIND(hh, s->map, &addr, sizeof(addr), old);
    if (old) {
        /* The real allocator handed out an address we still track: a
         * block freed behind our back (e.g. before init). Replace it. */
        if (stale)
            *stale = old->b;
        old->b.size = size;
        old->b.stack_id = stack_id;
        old->b.seq = lp_add_relaxed(&next_seq, 1);
        lp_spin_unlock(&s->lock);
        return 1;
    }
    e = entry_get(s);
    if (!e) {
        lp_spin_unlock(&s->lock);
        return -ENOMEM;
    }
    e->b.addr = addr;
    e->b.size = size;
    e->b.stack_id = stack_id;
    e->b.seq = lp_add_relaxed(&next_seq, 1);
    HASH_ADD(hh, s->map, b.addr, sizeof(e->b.addr), e);
    if (htable_oom) {
        entry_put(s, e);
        ret = -ENOMEM;
    } else {
        s->count++;
    }
    lp_spin_unlock(&s->lock);
    return ret;
}

int lp_table_remove(uintptr_t addr, struct lp_block *out)
{
    struct shard *s = shard_of(addr);
    struct entry *e;

    lp_spin_lock(&s->lock);
    HASH_FIND(hh, s->map, &addr, sizeof(addr), e);
    if (!e) {
        lp_spin_unlock(&s->lock);
        return -ENOENT;
    }
    HASH_DELETE(hh, s->map, e);
    s->count--;
    if (out)
        *out = e->b;
    entry_put(s, e);
    lp_spin_unlock(&s->lock);
    return 0;
}

int lp_table_find(uintptr_t addr, struct lp_block *out)
{
    struct shard *s = shard_of(addr);
    struct entry *e;

    lp_spin_lock(&s->lock);
    HASH_FIND(hh, s->map, &addr, sizeof(addr), e);
    if (e && out)
        *out = e->b;
    lp_spin_unlock(&s->lock);
    return e ? 0 : -ENOENT;
}

size_t lp_table_count(void)
{
    size_t i, n = 0;

    for (i = 0; i < LP_TABLE_SHARDS; i++)
        n += lp_load_relaxed(&shards[i].count);
    return n;
}

void lp_table_for_each(void (*fn)(const struct lp_block *, void *), void *arg)
{
    size_t i;
    struct entry *e, *tmp;

    for (i = 0; i < LP_TABLE_SHARDS; i++) {
        lp_spin_lock(&shards[i].lock);
        HASH_ITER(hh, shards[i].map, e, tmp)
            fn(&e->b, arg);
        lp_spin_unlock(&shards[i].lock);
    }
}

void lp_table_lock_all(void)
{
    size_t i;

    for (i = 0; i < LP_TABLE_SHARDS; i++)
        lp_spin_lock(&shards[i].lock);
}

void lp_table_unlock_all(void)
{
    size_t i;

    for (i = LP_TABLE_SHARDS; i-- > 0;)
        lp_spin_unlock(&shards[i].lock);
}

void lp_table_atfork_child(void)
{
    size_t i;

    for (i = 0; i < LP_TABLE_SHARDS; i++)
        shards[i].lock = 0;
}
