/* SPDX-License-Identifier: MIT */
/*
 * table.c - the sharded live-block table.
 *
 * Each shard is an open-addressing hash table with linear probing over
 * inline 24-byte slots (the block, packed), guarded by one spinlock; a shard is picked
 * by hashing the address, so unrelated frees rarely meet on a lock.
 *
 * Why not uthash here (it serves the cold paths elsewhere): a uthash entry
 * lives in its own allocation, chained from its bucket and linked into an
 * application-order list, so one insert plus one remove touches about ten
 * cache lines. Measured with 100,000 live blocks: 765 ns per remove+insert
 * pair with uthash, against a few tens of ns here, where a lookup is one
 * probe run in one array. Deletion shifts the run back (no tombstones), so
 * probe runs stay short however long the program churns.
 * Context: HOT; lp_table_for_each and lp_table_drain are COLD.
 */
#include "preload/hot/table.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/hot/arena.h"
#include "preload/hot/nursery.h"
#include "preload/hot/table_slot.h"
#include "preload/hot/track.h"

#define INITIAL_SLOTS 512

static struct shard {
    int lock; /* lp_spin_lock */
    struct lp_slot *slots;
    size_t cap;   /* slots; 0 before the first insert */
    size_t count;
    bool drained; /* lp_table_drain() emptied it for good */
    char pad[31];
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

/* A block's home slot in a shard's array of cap slots. */
static inline size_t home_of(uintptr_t addr, size_t cap)
{
    return lp_slot_home(lp_hash_addr(addr), cap);
}

static inline struct shard *shard_of(uintptr_t addr, uint64_t h)
{
    uint64_t g = lp_hash_addr(addr >> REGION_SHIFT) >> (64 - GROUP_BITS);

    return &shards[(g << (6 - GROUP_BITS)) | (h >> (64 - 6 + GROUP_BITS))];
}

/* Start loading the home slot of hash h in its shard (lock-free; see
 * lp_table_prefetch). */
static inline void prefetch_shared(uintptr_t addr, uint64_t h)
{
    const struct shard *s = shard_of(addr, h);
    /* Racy: a grow may swap the array between these loads; a prefetch of
     * a stale or wrong address is harmless (it never faults). */
    const struct lp_slot *slots = lp_load_relaxed(&s->slots);
    size_t cap = lp_load_relaxed(&s->cap);

    if (slots && cap)
        __builtin_prefetch(&slots[lp_slot_home(h, cap)], 1, 3);
}

void lp_table_prefetch(uintptr_t addr)
{
    const struct lp_nursery *n = lp_self.nursery;

    if (n) /* a new block goes to the thread's nursery */
        __builtin_prefetch(&n->slots[lp_nursery_home(addr)], 1, 3);
    else
        prefetch_shared(addr, lp_hash_addr(addr));
}

/*
 * A big slot array (a shard of 10^5 blocks and more): ask for huge pages
 * and map it in one call. Every slot is touched at random, so with 4 KiB
 * pages each first touch traps (the run's largest kernel cost with a
 * million live blocks) and each probe misses the TLB as well as the cache.
 */
#define BIG_ARRAY ((size_t)2 << 20)
/* arena.c: a request above 64 KiB gets a mapping of its own, whose pages
 * may be dropped (or moved: lp_arena_remap); a smaller one shares its
 * pages with other arena objects. */
#define OWN_MAPPING ((size_t)64 << 10)
/* From 16 KiB on, map the pages in one call even without huge pages: a
 * grow writes all of them at once anyway, and in a VM each first-touch
 * trap costs microseconds (python3: 1.5% of its run was the faults of
 * slot arrays of 24-768 KiB). */
#define POPULATE_FROM ((size_t)16 << 10)
static void back_big(void *p, size_t size)
{
    if (size >= BIG_ARRAY)
        (void)madvise(p, size, MADV_HUGEPAGE);
    if (size >= POPULATE_FROM)
        lp_populate(p, size);
}

/* The old array's pages already copied, given back while the copy goes
 * on, so a grow's peak is the new array plus one step, not both arrays;
 * whole huge pages, so none is split. */
#define RELEASE_STEP ((size_t)2 << 20)

/*
 * Grow the slot array (lock held; returns 0 or -ENOMEM). Small arrays
 * double: the load stays between 0.35 and 0.7, 34-69 bytes a block.
 * From 65,536 slots (1.5 MB) on, an array grows by half: 0.47-0.7, 34-51
 * bytes a block, where the memory is. Doubling big arrays too cost 60
 * B/block at the peak of live_blocks 1000000 (median, and up to 73 when
 * its blocks fill few shards just after they doubled); growing by half,
 * 51 (at most 56), for 8% more CPU in that run (more rehashing, fresh
 * pages to zero) and 0-4% in a churn of up to 950,000 live blocks.
 * Measured and not taken: a 0.85 load limit for big arrays (47 B median
 * but up to 28% more CPU in the churn, from long probe runs).
 */
#define GROW_BY_HALF_FROM ((size_t)1 << 16)

/*
 * Growing in place. A fresh array for every growth zeroes, in new
 * pages, the whole new array: 3x the final size over the growths by
 * half (live_blocks 1000000: 119 MB, the kernel's page clearing 17% of
 * the run in this VM). A big array is a mapping of its own, so mremap
 * extends it instead (its pages move, none is copied or cleared again:
 * only the new tail is fresh) and the blocks are re-placed where they
 * are, each slot from the top down:
 *  - the block is taken out and the hole closed by backward shift, over
 *    the slots above it, which all hold re-placed blocks by then;
 *  - it goes in at the first empty slot from its new home (which is at
 *    least its old one: the home scales with the capacity). Old blocks
 *    not re-placed yet count as occupied, and the hole each leaves when
 *    its turn comes is closed the same way, so every re-placed block
 *    stays on an unbroken probe run from its home.
 * A block may land below the cursor (in a gap between old runs) and be
 * re-placed again when the cursor gets there: same rule, same result.
 * Probe runs do not wrap while this goes on: the mapping reaches count
 * slots past the new capacity (address space only; a run can never be
 * longer), which take what would wrap, and those move to the bottom
 * once every block is in place; then the mapping is cut back.
 */

/* Empty slot i of slots[0, lim) (linear: no wrap) and close the hole;
 * homes in an array of cap. */
static void erase_linear(struct lp_slot *slots, size_t lim, size_t cap,
                         size_t i)
{
    size_t j;

    for (j = i + 1; j < lim; j++) {
        uintptr_t a = lp_slot_addr(&slots[j]);

        if (!a)
            break;
        if (home_of(a, cap) <= i) {
            slots[i] = slots[j];
            i = j;
        }
    }
    slots[i].w0 = 0;
}

/* 0, or -1 when the mapping could not be extended (nothing changed). */
static int grow_in_place(struct shard *s, size_t n)
{
    size_t old_n = s->cap, lim = n + s->count + 1, i;
    size_t old_bytes = old_n * sizeof(struct lp_slot),
           lim_bytes = lim * sizeof(struct lp_slot),
           new_bytes = n * sizeof(struct lp_slot),
           map_old = (old_bytes + 4095) & ~(size_t)4095,
           map_new = (new_bytes + 4095) & ~(size_t)4095;
    struct lp_slot *slots, *cut;

    slots = lp_arena_remap(s->slots, old_bytes, lim_bytes);
    if (!slots)
        return -1;
    if (new_bytes >= BIG_ARRAY)
        (void)madvise(slots, map_new, MADV_HUGEPAGE);
    if (map_new > map_old) /* the tail every slot of which is written */
        (void)madvise((char *)slots + map_old, map_new - map_old,
                      MADV_POPULATE_WRITE);
    for (i = old_n; i-- > 0;) {
        struct lp_slot b = slots[i];
        uintptr_t a = lp_slot_addr(&b);
        size_t j;

        if (!a)
            continue;
        erase_linear(slots, lim, n, i);
        /* At most count - 1 other blocks: j stays below lim. */
        for (j = home_of(a, n); lp_slot_addr(&slots[j]); j++)
            ;
        slots[j] = b;
    }
    /* What ran past the capacity wraps to the bottom now. */
    for (i = n; i < lim; i++) {
        struct lp_slot b = slots[i];
        uintptr_t a = lp_slot_addr(&b);

        if (!a)
            break; /* the one run past n ended: nothing further up */
        slots[i].w0 = 0;
        slots[lp_slots_probe(slots, n, a, home_of(a, n))] = b;
    }
    /* Cut back (in place: shrinking never moves); should it fail, the
     * array keeps its room above, empty. */
    cut = lp_arena_remap(slots, lim_bytes, new_bytes);
    lp_store_relaxed(&s->slots, cut ? cut : slots);
    lp_store_relaxed(&s->cap, n);
    return 0;
}

static int grow(struct shard *s)
{
    size_t n = !s->cap ? INITIAL_SLOTS
               : s->cap < GROW_BY_HALF_FROM ? s->cap * 2
                                            : s->cap + s->cap / 2;
    size_t i, done = 0;
    size_t old_n = s->cap, old_bytes = old_n * sizeof(struct lp_slot);
    struct lp_slot *old = s->slots, *fresh;

    if (s->drained)
        return -ENOMEM; /* after the final leak check: left untracked */
    if (old_bytes > OWN_MAPPING && grow_in_place(s, n) == 0)
        return 0;
    fresh = lp_arena_alloc(n * sizeof(*fresh));
    if (!fresh)
        return -ENOMEM;
    back_big(fresh, n * sizeof(*fresh));
    for (i = 0; i < old_n; i++) {
        uintptr_t a = lp_slot_addr(&old[i]);

        if (a)
            fresh[lp_slots_probe(fresh, n, a, home_of(a, n))] = old[i];
        if (old_bytes >= BIG_ARRAY &&
            (uintptr_t)&old[i + 1] - (uintptr_t)old - done >= RELEASE_STEP) {
            uintptr_t lo = ((uintptr_t)old + done + 4095) & ~(uintptr_t)4095;
            uintptr_t hi =
                ((uintptr_t)&old[i + 1]) & ~(uintptr_t)(RELEASE_STEP - 1);

            if (hi > lo)
                (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
            done = hi - (uintptr_t)old;
        }
    }
    lp_store_relaxed(&s->slots, fresh);
    lp_store_relaxed(&s->cap, n);
    if (old)
        lp_arena_free(old, old_bytes);
    return 0;
}

int lp_table_insert(uintptr_t addr, size_t size, uint32_t stack_id,
                    struct lp_block *stale)
{
    return lp_table_insert_how(addr, size, stack_id, LP_HOW_MALLOC, 0, stale);
}

/* The hot paths take a shard's lock only once the process has a second
 * thread (lp_any_thread, nursery.h: set before any other thread exists):
 * before, no other thread can reach the shard, and an uncontended lock
 * still costs a locked exchange, which drains the store buffer of
 * everything the hook just wrote. The cold visitors always lock. */
static inline void shard_lock(struct shard *s)
{
    if (lp_load_relaxed(&lp_any_thread))
        lp_spin_lock(&s->lock);
}

static inline void shard_unlock(struct shard *s)
{
    if (lp_load_relaxed(&lp_any_thread))
        lp_spin_unlock(&s->lock);
}

/* Put a packed block into the shared table (h: its hash); 0, 1 when it
 * replaced a stale entry (copied to *stale), -ENOMEM. */
static int shared_insert(const struct lp_slot *packed, uint64_t h,
                         struct lp_block *stale)
{
    uintptr_t addr = lp_slot_addr(packed);
    struct shard *s = shard_of(addr, h);
    struct lp_slot *b;
    int ret = 0;

    shard_lock(s);
    /* Keep the load at or below 0.7: with deletion by backward shift,
     * probe runs stay short (a few slots, one or two cache lines). */
    if ((s->count + 1) * 10 > s->cap * 7 && grow(s) != 0) {
        shard_unlock(s);
        return -ENOMEM;
    }
    b = &s->slots[lp_slots_probe(s->slots, s->cap, addr,
                                  lp_slot_home(h, s->cap))];
    if (lp_slot_addr(b)) {
        /* The real allocator handed out an address we still track: a
         * block freed behind our back (e.g. before init). Replace it. */
        if (stale)
            lp_slot_unpack(b, stale);
        ret = 1;
    } else {
        s->count++;
    }
    *b = *packed;
    shard_unlock(s);
    return ret;
}

/* A flush's put: blocks grown old in their nursery move to the shared
 * table, their slots' cache misses started together. A stale entry
 * there (a block freed behind our back while this one was young) is
 * settled as lp_track_alloc_slow settles one. */
static void promote(const struct lp_slot *batch, unsigned k, void *arg)
{
    uint64_t h[LP_NURSERY_BATCH];
    unsigned i;

    (void)arg;
    for (i = 0; i < k; i++) {
        h[i] = lp_hash_addr(lp_slot_addr(&batch[i]));
        prefetch_shared(lp_slot_addr(&batch[i]), h[i]);
    }
    for (i = 0; i < k; i++) {
        struct lp_block stale;
        int rc = shared_insert(&batch[i], h[i], &stale);

        if (rc == 1)
            lp_track_stale(&stale);
        else if (rc < 0) /* no memory: untracked from now on */
            lp_track_lost(lp_slot_addr(&batch[i]));
    }
}

int lp_table_insert_how(uintptr_t addr, size_t size, uint32_t stack_id,
                        unsigned how, uint64_t time, struct lp_block *stale)
{
    struct lp_nursery *n = lp_self.nursery;
    struct lp_slot packed, *b;
    uint64_t region;
    int own, ret = 0;

    if (LP_UNLIKELY(addr == 0 || addr > LP_SLOT_ADDR_MASK))
        return -ENOMEM; /* cannot be packed: left untracked */
    if (!n) {
        lp_slot_pack(&packed, addr, size, stack_id, how, time,
                     lp_load_relaxed(&generation));
        return shared_insert(&packed, lp_hash_addr(addr), stale);
    }
    own = lp_nursery_own(n);
    if (LP_UNLIKELY(n->drained)) {
        lp_nursery_disown(n, own);
        return -ENOMEM; /* after the final leak check: left untracked */
    }
    if (LP_UNLIKELY(n->count >= LP_NURSERY_FULL))
        lp_nursery_flush(n, promote, NULL);
    b = &n->slots[lp_nursery_probe(n, addr)];
    if (lp_slot_addr(b)) {
        /* A stale entry in this nursery (see shared_insert). */
        if (stale)
            lp_slot_unpack(b, stale);
        ret = 1;
    } else {
        n->count++;
    }
    /* Packed in place: a copy of a slot packed on the stack loaded it in
     * 16 bytes from three 8-byte stores, which the store buffer cannot
     * forward (a stall on every insert). */
    lp_slot_pack(b, addr, size, stack_id, how, time,
                 lp_load_relaxed(&generation));
    region = lp_nursery_region_bit(addr);
    if (!(n->regions & region))
        lp_store_release(&n->regions, n->regions | region);
    lp_nursery_disown(n, own);
    return ret;
}

/* Empty slot i of a shard (lock held). */
static void erase(struct shard *s, size_t i)
{
    lp_slots_erase(s->slots, s->cap, i, home_of);
    s->count--;
}

static int shared_remove(uintptr_t addr, uint64_t h, struct lp_block *out)
{
    struct shard *s = shard_of(addr, h);
    size_t i;

    shard_lock(s);
    if (!s->cap || addr == 0 ||
        !lp_slot_addr(&s->slots[i = lp_slots_probe(s->slots, s->cap, addr,
                                                     lp_slot_home(h, s->cap))])) {
        shard_unlock(s);
        return -ENOENT;
    }
    if (out)
        lp_slot_unpack(&s->slots[i], out);
    erase(s, i);
    shard_unlock(s);
    return 0;
}

/*
 * Where a block can be: the thread's own nursery (a young block, the
 * common case), the shared table (an old one, or one made by a thread
 * without a nursery), another thread's nursery (a young block handed
 * over). A flush may move a block from a nursery to the shared table
 * while we look: the shared table is read once more after the nurseries.
 */
int lp_table_remove(uintptr_t addr, struct lp_block *out)
{
    struct lp_nursery *n = lp_self.nursery;
    uint64_t h;

    if (LP_UNLIKELY(addr == 0))
        return -ENOENT;
    if (n) {
        int own = lp_nursery_own(n);
        bool hit = lp_nursery_take_locked(n, addr, out);

        lp_nursery_disown(n, own);
        if (hit)
            return 0;
    }
    h = lp_hash_addr(addr);
    if (shared_remove(addr, h, out) == 0)
        return 0;
    if (!lp_load_relaxed(&lp_any_thread) && n)
        return -ENOENT; /* n is the only nursery that was ever used */
    if (lp_nursery_take_elsewhere(n, addr, out))
        return 0;
    return shared_remove(addr, h, out);
}

int lp_table_find(uintptr_t addr, struct lp_block *out)
{
    uint64_t h = lp_hash_addr(addr);
    struct shard *s = shard_of(addr, h);
    size_t i;
    int ret = -ENOENT;

    if (addr == 0)
        return -ENOENT;
    if (lp_nursery_find(addr, out))
        return 0;
    lp_spin_lock(&s->lock);
    if (s->cap &&
        lp_slot_addr(&s->slots[i = lp_slots_probe(s->slots, s->cap, addr,
                                                    lp_slot_home(h, s->cap))])) {
        if (out)
            lp_slot_unpack(&s->slots[i], out);
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
    return n + lp_nursery_count();
}

void lp_table_for_each(void (*fn)(const struct lp_block *, void *), void *arg)
{
    size_t i, j;

    lp_nursery_for_each(fn, arg);
    for (i = 0; i < LP_TABLE_SHARDS; i++) {
        struct shard *s = &shards[i];

        lp_spin_lock(&s->lock);
        for (j = 0; j < s->cap; j++)
            if (lp_slot_addr(&s->slots[j])) {
                struct lp_block b;

                lp_slot_unpack(&s->slots[j], &b);
                fn(&b, arg);
            }
        lp_spin_unlock(&s->lock);
    }
}

/* The drain gives pages back a huge page at a time: the copy grows by 32
 * bytes a block while the table shrinks by 34-69, so the two together
 * stay near the table's size. Whole huge pages: dropping part of one
 * splits it, and 256 KiB steps cost 60 ms more at a million blocks (TLB
 * flushes); the copy itself keeps huge pages (4 KiB faults: 80 ms more). */
#define DRAIN_STEP ((size_t)2 << 20)

/*
 * Give the pages of bytes [done, upto) of a slot array of bytes back
 * (whole pages, ending on a huge-page boundary unless upto is the end;
 * only from an array with a mapping of its own); returns the new done
 * mark.
 */
static size_t release_upto(struct lp_slot *slots, size_t bytes, size_t done,
                           size_t upto)
{
    uintptr_t lo = ((uintptr_t)slots + done + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)slots + upto) & ~(uintptr_t)(DRAIN_STEP - 1);

    if (bytes <= OWN_MAPPING)
        return done;
    if (upto == bytes)
        hi = ((uintptr_t)slots + bytes + 4095) & ~(uintptr_t)4095;
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
    return hi > lo ? (size_t)(hi - (uintptr_t)slots) : done;
}

void lp_table_drain(void (*fn)(const struct lp_block *, void *), void *arg)
{
    size_t i, j;

    lp_nursery_drain(fn, arg);
    for (i = 0; i < LP_TABLE_SHARDS; i++) {
        struct shard *s = &shards[i];
        size_t bytes, done = 0;
        struct lp_slot *slots;

        lp_spin_lock(&s->lock);
        slots = s->slots;
        bytes = s->cap * sizeof(struct lp_slot);
        for (j = 0; j < s->cap; j++) {
            if (lp_slot_addr(&slots[j])) {
                struct lp_block b;

                lp_slot_unpack(&slots[j], &b);
                fn(&b, arg);
            }
            /* Pages read are given back as the copy grows, so the two
             * together never hold much more than the table did. */
            if ((j + 1) * sizeof(struct lp_slot) - done >= DRAIN_STEP)
                done = release_upto(slots, bytes, done,
                                    (j + 1) * sizeof(struct lp_slot));
        }
        if (slots)
            (void)release_upto(slots, bytes, done, bytes);
        /* Dead for good: a remove or find sees nothing, an insert goes
         * to grow(), which refuses. The array stays mapped (a racy
         * prefetch may still name it; the arena keeps its range). */
        lp_store_relaxed(&s->cap, 0);
        lp_store_relaxed(&s->slots, NULL);
        s->count = 0;
        s->drained = true;
        lp_spin_unlock(&s->lock);
    }
}

/* Nurseries first: a flush holds its nursery's lock, then shard locks. */
void lp_table_lock_all(void)
{
    size_t i;

    lp_nursery_lock_all();
    for (i = 0; i < LP_TABLE_SHARDS; i++)
        lp_spin_lock(&shards[i].lock);
}

void lp_table_unlock_all(void)
{
    size_t i;

    for (i = LP_TABLE_SHARDS; i-- > 0;)
        lp_spin_unlock(&shards[i].lock);
    lp_nursery_unlock_all();
}

void lp_table_atfork_child(void)
{
    size_t i;

    for (i = 0; i < LP_TABLE_SHARDS; i++)
        shards[i].lock = 0;
    lp_nursery_atfork_child();
}
