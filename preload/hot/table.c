/* SPDX-License-Identifier: MIT */
/*
 * table.c - the sharded live-block table.
 *
 * Each shard is an open-addressing hash table with linear probing over
 * inline struct lp_block slots, guarded by one spinlock; a shard is picked
 * by hashing the address, so unrelated frees rarely meet on a lock.
 *
 * Why not uthash here (it serves the cold paths elsewhere): a uthash entry
 * lives in its own allocation, chained from its bucket and linked into an
 * application-order list, so one insert plus one remove touches about ten
 * cache lines. Measured with 100,000 live blocks: 765 ns per remove+insert
 * pair with uthash, against a few tens of ns here, where a lookup is one
 * probe run in one array. Deletion shifts the run back (no tombstones), so
 * probe runs stay short however long the program churns.
 * Context: HOT; lp_table_for_each is COLD.
 */
#include "preload/hot/table.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/hot/arena.h"

#define INITIAL_SLOTS 512

static struct shard {
    int lock; /* lp_spin_lock */
    struct lp_block *slots; /* addr == 0: empty */
    size_t mask;            /* slots - 1; 0 before the first insert */
    size_t count;
    char pad[32];
} shards[LP_TABLE_SHARDS];

static uint16_t generation; /* lp_block_gen(): read per insert */

uint16_t lp_table_next_gen(void)
{
    return (uint16_t)(__atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED));
}


/*
 * The shard: a group chosen by the 64 MiB region of the address, then one
 * of the group's shards by hash. glibc gives each thread's arena heaps of
 * their own, 64 MiB-aligned, so two threads freeing their own blocks take
 * the locks of different groups and do not pull the same lock and slot
 * lines from each other's caches (35% of a 2-thread storm when every
 * address hashed to any of the 64 shards). Blocks of one region still
 * spread over a group's shards.
 */
#define GROUP_BITS 4 /* 16 groups of 4 shards */
#define REGION_SHIFT 26

static inline struct shard *shard_of(uintptr_t addr, uint64_t h)
{
    uint64_t g = lp_hash_addr(addr >> REGION_SHIFT) >> (64 - GROUP_BITS);

    return &shards[(g << (6 - GROUP_BITS)) | (h >> (64 - 6 + GROUP_BITS))];
}

/* Index of addr's slot, or of the empty slot ending its probe run. */
static inline size_t probe(const struct shard *s, uintptr_t addr, uint64_t h)
{
    size_t i = h & s->mask;

    while (s->slots[i].addr && s->slots[i].addr != addr)
        i = (i + 1) & s->mask;
    return i;
}

void lp_table_prefetch(uintptr_t addr)
{
    uint64_t h = lp_hash_addr(addr);
    const struct shard *s = shard_of(addr, h);
    /* Racy: a grow may swap the array between these loads; a prefetch of
     * a stale or wrong address is harmless (it never faults). */
    const struct lp_block *slots = lp_load_relaxed(&s->slots);
    size_t mask = lp_load_relaxed(&s->mask);

    if (slots)
        __builtin_prefetch(&slots[h & mask], 1, 3);
}

/*
 * A big slot array (a shard of 10^5 blocks and more): ask for huge pages
 * and map it in one call. Every slot is touched at random, so with 4 KiB
 * pages each first touch traps (the run's largest kernel cost with a
 * million live blocks) and each probe misses the TLB as well as the cache.
 */
#define BIG_ARRAY ((size_t)2 << 20)
static void back_big(void *p, size_t size)
{
    if (size < BIG_ARRAY)
        return;
    (void)madvise(p, size, MADV_HUGEPAGE);
    (void)madvise(p, size, MADV_POPULATE_WRITE);
}

/* Double the slot array (lock held). Returns 0 or -ENOMEM. */
static int grow(struct shard *s)
{
    size_t n = s->mask ? (s->mask + 1) * 2 : INITIAL_SLOTS, i;
    struct lp_block *old = s->slots, *fresh;
    size_t old_n = s->mask ? s->mask + 1 : 0;

    fresh = lp_arena_alloc(n * sizeof(*fresh));
    if (!fresh)
        return -ENOMEM;
    back_big(fresh, n * sizeof(*fresh));
    s->slots = fresh;
    s->mask = n - 1;
    for (i = 0; i < old_n; i++)
        if (old[i].addr)
            fresh[probe(s, old[i].addr, lp_hash_addr(old[i].addr))] = old[i];
    lp_arena_free(old, old_n * sizeof(*old));
    return 0;
}

int lp_table_insert(uintptr_t addr, size_t size, uint32_t stack_id,
                    struct lp_block *stale)
{
    return lp_table_insert_how(addr, size, stack_id, LP_HOW_MALLOC, 0, stale);
}

int lp_table_insert_how(uintptr_t addr, size_t size, uint32_t stack_id,
                        unsigned how, uint64_t time, struct lp_block *stale)
{
    uint64_t h = lp_hash_addr(addr);
    struct shard *s = shard_of(addr, h);
    struct lp_block *b;
    int ret = 0;

    lp_spin_lock(&s->lock);
    /* Keep the load at or below 0.7: with 24-byte slots and deletion by
     * backward shift, probe runs stay short (a few slots, one or two
     * cache lines), and a live block costs 34-69 bytes here. */
    if ((s->count + 1) * 10 > (s->mask + 1) * 7 && grow(s) != 0) {
        lp_spin_unlock(&s->lock);
        return -ENOMEM;
    }
    b = &s->slots[probe(s, addr, h)];
    if (b->addr) {
        /* The real allocator handed out an address we still track: a
         * block freed behind our back (e.g. before init). Replace it. */
        if (stale)
            *stale = *b;
        ret = 1;
    } else {
        s->count++;
    }
    b->addr = addr;
    b->size = size;
    b->stack_id = stack_id;
    b->how = how;
    b->time = (time & ((1ull << LP_BLOCK_TIME_BITS) - 1)) |
              (uint64_t)lp_load_relaxed(&generation) << LP_BLOCK_TIME_BITS;
    lp_spin_unlock(&s->lock);
    return ret;
}

/* Empty slot i and shift the rest of its probe run back (lock held). */
static void erase(struct shard *s, size_t i)
{
    size_t j = i;

    for (;;) {
        size_t home;

        j = (j + 1) & s->mask;
        if (!s->slots[j].addr)
            break;
        home = lp_hash_addr(s->slots[j].addr) & s->mask;
        /* Move j into the hole at i unless its home lies in (i, j]. */
        if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
            s->slots[i] = s->slots[j];
            i = j;
        }
    }
    s->slots[i].addr = 0;
    s->count--;
}

int lp_table_remove(uintptr_t addr, struct lp_block *out)
{
    uint64_t h = lp_hash_addr(addr);
    struct shard *s = shard_of(addr, h);
    size_t i;

    lp_spin_lock(&s->lock);
    if (!s->mask || !s->slots[i = probe(s, addr, h)].addr) {
        lp_spin_unlock(&s->lock);
        return -ENOENT;
    }
    if (out)
        *out = s->slots[i];
    erase(s, i);
    lp_spin_unlock(&s->lock);
    return 0;
}

int lp_table_find(uintptr_t addr, struct lp_block *out)
{
    uint64_t h = lp_hash_addr(addr);
    struct shard *s = shard_of(addr, h);
    size_t i;
    int ret = -ENOENT;

    lp_spin_lock(&s->lock);
    if (s->mask && s->slots[i = probe(s, addr, h)].addr) {
        if (out)
            *out = s->slots[i];
        ret = 0;
    }
    lp_spin_unlock(&s->lock);
    return ret;
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
    size_t i, j;

    for (i = 0; i < LP_TABLE_SHARDS; i++) {
        struct shard *s = &shards[i];

        lp_spin_lock(&s->lock);
        for (j = 0; s->mask && j <= s->mask; j++)
            if (s->slots[j].addr)
                fn(&s->slots[j], arg);
        lp_spin_unlock(&s->lock);
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
