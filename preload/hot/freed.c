/* SPDX-License-Identifier: MIT */
/*
 * freed.c - the recently-freed queue (Memcheck's freelist), one lane per
 * thread.
 *
 * A lane is a FIFO ring with no index, kept as two arrays: the addresses
 * (8 bytes an entry, all that find reads while it scans) and the rest of
 * each entry (size, stacks, stamp). A push writes both at the tail, and
 * drops from the head when the lane would go over its share of the
 * volume (down to 63/64 of it) or of the slots: the oldest free goes
 * first, as Memcheck releases its oldest blocks once the queued volume
 * exceeds --freelist-vol. Why down to 63/64: dropping just enough for
 * each push meant zero, one or two drops a push, a count the branch
 * predictor cannot guess, with a load of the head entry to learn it
 * (append was 10% of a 2-thread storm); now a run of drops comes every
 * few dozen pushes, a streaming loop. Each lane
 * keeps 1/(number of lanes) of the volume and of LP_FREED_SLOTS (at least
 * LP_FREED_RING slots), so the totals stay within the bounds. Before,
 * each push inserted into a hash index and erased the evicted entry's
 * slot: two random cache misses a free (6.5-8.4% of a sqlite3 run).
 *
 * Why per thread: the queue is written on every free and read only when
 * a free goes wrong. Sharded by address, two threads freeing their own
 * blocks kept pulling the same shard locks and lines from each other's
 * caches (17% of a 2-thread storm). A thread's own lane stays in its own
 * cache, and its one writer appends without a lock (writer_begin says
 * when); the lock is only taken to swap the arrays, by find while it
 * reads a lane, and around fork.
 *
 * Time stamps order the lanes: an address freed by one thread, reused and
 * freed by another, sits in two lanes, and find reports the newest. A
 * forget (an address in use again by a block the table does not record)
 * queues a tombstone in the caller's lane with a fresh epoch, strictly
 * newer than every push that happened before it; the low bit of an
 * entry's key tells a freed block (1) from a tombstone (0), so comparing
 * keys ranks by stamp and, on a tie, a freed block first (a push that saw
 * the tombstone's epoch came after it or alongside it, never before).
 *
 * Which lane: thread_registry.c gives each thread record a lane (kept with
 * the record when it is recycled, like the unwinder's memo) and points
 * lp_self.freed_lane at it; the main thread and threads we did not see
 * start share the first lane.
 *
 * Cost on a free: a few stores to the lane's line and the ring's tail
 * and, when the lane is full, a read of its head: 9-10 ns a push in a
 * loop, against 95 ns with the index (200,000 addresses, 20M pushes).
 * The first lane takes its lock once the program has threads. A lane's
 * arrays come from the arena on its first push and grow (x4, up to
 * LP_FREED_RING_MAX entries) while its shares allow.
 * find reads every queued address at most once: at most
 * max(LP_FREED_SLOTS, lanes x LP_FREED_RING), 2^20 addresses (8 MiB) up
 * to 1,024 lanes: 0.9-1.0 ms for an address not queued, 16 full lanes,
 * on this machine. The lanes are locked one at a time, and a lane's scan
 * stops early once its stamps are older than the best entry found.
 * Context: HOT; lp_freed_find is COLD but lock-safe anywhere;
 * lp_freed_each_held is COLD (the leak scan, other threads parked).
 */
#include "preload/hot/freed.h"

#include "preload/hot/arena.h"
#include "preload/hot/guard.h"
#include "preload/hot/real.h"
#include "preload/hot/tcb_slot.h"
#include "preload/life/config.h"

struct meta {
    uint64_t size;
    uint32_t alloc_stack, free_stack;
    uint64_t key; /* stamp << 1 | 1 (a freed block) or | 0 (a tombstone) */
};

#define KEY_FREED 1u

struct lp_freed_lane {
    int lock;      /* lp_spin_lock: arrays (addr, meta, cap) change under it */
    uint8_t owned; /* one writer: a thread record's lane (see writer_begin) */
    uint8_t busy;  /* a lock-free writer is inside append */
    uint32_t head, count, cap; /* cap: ring entries, a power of two */
    uint32_t pushes; /* pushes since the lane began (the epoch clock) */
    uint32_t blocks; /* entries that are freed blocks, not tombstones */
    uint64_t volume; /* their bytes */
    uintptr_t *addr;   /* cap entries */
    struct meta *meta; /* cap entries */
    struct lp_freed_lane *next; /* every lane, push-only */
};

static struct lp_freed_lane first_lane;
static struct lp_freed_lane *lanes = &first_lane;
static uint32_t nlanes = 1;
static uint64_t volume_limit = LP_FREED_VOLUME_DEFAULT;

/* A lane's shares, kept ready so a push divides nothing. Read on every
 * push, written when a lane is made or the volume set. */
static struct {
    uint64_t volume; /* bytes a lane may hold (+1: a bound, not a cap) */
    uint32_t slots;  /* entries a lane may hold */
} share = { LP_FREED_VOLUME_DEFAULT + 1, LP_FREED_RING_MAX };

/*
 * quarantine=yes (Memcheck's freelist proper): a queued block stays
 * allocated in the real allocator until it leaves its lane, and is freed
 * for real then (release). So no new block takes its address while it is
 * queued, and a dangling pointer to it points at no block, as under
 * Memcheck, whose allocator keeps freelist_vol bytes of freed blocks out
 * of circulation: without it glibc hands the address out again at once,
 * and a lost block's dangling pointer drags the new block into its
 * clique (postgres initdb: 39/61 definitely/indirectly lost here against
 * Memcheck's 48/52). The lanes then hold the volume whatever the count of
 * blocks (up to LP_FREED_QUARANTINE_RING entries a lane), as Memcheck's
 * freelist is bounded by volume only.
 */
#define LP_FREED_QUARANTINE_RING ((uint32_t)1 << 22)
static uint32_t ring_max = LP_FREED_RING_MAX; /* set at init */
bool lp_freed_hold;                           /* quarantine=yes */

static void release(uintptr_t addr)
{
    lp_in_libc++;
    lp_real.free((void *)addr);
    lp_in_libc--;
}

/*
 * When an entry was queued, comparable across lanes: a global epoch that
 * each lane moves on every LP_FREED_EPOCH_PUSHES of its pushes (freed.h).
 * One relaxed load of a line that is rarely written; rdtsc cost a fifth
 * of a push on this virtual machine, a shared counter bumped per push a
 * contended line. Two lanes holding the same address within one epoch
 * (an address freed by one thread, reused and freed again by another,
 * within a few hundred frees) tie: find then reports the first lane's
 * entry.
 */
static uint64_t epoch;

static inline uint64_t stamp_now(struct lp_freed_lane *l)
{
    if (++l->pushes % LP_FREED_EPOCH_PUSHES == 0)
        return lp_add_relaxed(&epoch, 1);
    return lp_load_relaxed(&epoch);
}

static inline struct lp_freed_lane *my_lane(void)
{
    struct lp_freed_lane *l = lp_self.freed_lane;

    return l ? l : &first_lane;
}

/* Recompute the shares until they match the lane count they read. */
static void share_update(void)
{
    uint32_t n;

    do {
        uint64_t slots;

        n = lp_load_relaxed(&nlanes);
        slots = LP_FREED_SLOTS / n;
        if (slots < LP_FREED_RING)
            slots = LP_FREED_RING;
        if (slots > ring_max || lp_freed_hold)
            slots = ring_max;
        lp_store_relaxed(&share.volume,
                         lp_load_relaxed(&volume_limit) / n + 1);
        lp_store_relaxed(&share.slots, (uint32_t)slots);
    } while (lp_load_relaxed(&nlanes) != n);
}

static void free_arrays(uintptr_t *addr, struct meta *meta, uint32_t cap)
{
    if (addr)
        lp_arena_free(addr, sizeof(*addr) * cap);
    if (meta)
        lp_arena_free(meta, sizeof(*meta) * cap);
}

/* Give the lane a ring of cap entries, keeping its entries in order.
 * False (and the lane unchanged) without memory. Lock held. */
static bool resize(struct lp_freed_lane *l, uint32_t cap)
{
    uintptr_t *addr = lp_arena_alloc(sizeof(*addr) * cap);
    struct meta *meta = lp_arena_alloc(sizeof(*meta) * cap);
    uint32_t i;

    if (!addr || !meta) {
        free_arrays(addr, meta, cap);
        return false;
    }
    /* Their pages now, in one call each: a lane grows only when it is
     * full, so the new ring fills too, and page by page its first pass
     * faulted 680 times in a sqlite3 run (73% as many faults as the
     * whole program takes natively; each a trap into a VM's kernel). */
    if (cap > LP_FREED_RING) {
        lp_populate(addr, sizeof(*addr) * cap);
        lp_populate(meta, sizeof(*meta) * cap);
    }
    for (i = 0; i < l->count; i++) {
        uint32_t from = (l->head + i) & (l->cap - 1);

        addr[i] = l->addr[from];
        meta[i] = l->meta[from];
    }
    free_arrays(l->addr, l->meta, l->cap);
    l->addr = addr;
    l->meta = meta;
    l->cap = cap;
    l->head = 0;
    return true;
}

/* Grow (or first give) the lane its arrays; locked unless the caller
 * holds the lock already, so that find never reads freed arrays. */
static LP_NOINLINE bool lane_grow(struct lp_freed_lane *l, uint32_t cap,
                             bool locked)
{
    bool ok;

    if (!locked)
        lp_spin_lock(&l->lock);
    ok = resize(l, cap);
    if (!locked)
        lp_spin_unlock(&l->lock);
    return ok;
}

/*
 * Queue an entry at the lane's tail: the lane's one writer (locked: it
 * holds the lock). The stamp is taken here, by that writer, so a lane's
 * keys never go backwards. The entry is written before count covers it;
 * a find running meanwhile (it holds the lock, the writer may not) can
 * still read the one slot being recycled half old, half new: only a free
 * of that very address, racing with it, could see that.
 */
static inline bool append(struct lp_freed_lane *l, uintptr_t addr,
                          size_t size, uint32_t alloc_stack,
                          uint32_t free_stack, bool tombstone, bool locked)
{
    uint64_t vshare = lp_load_relaxed(&share.volume), key, volume, goal;
    uint32_t slots = lp_load_relaxed(&share.slots), pos, head, count, cap,
             blocks;
    struct meta *m;

    if (LP_UNLIKELY(!l->addr) && !lane_grow(l, LP_FREED_RING, locked))
        return false;
    /* Full but within its shares: grow rather than forget. */
    if (LP_UNLIKELY(l->count == l->cap) && l->cap < slots &&
        l->volume + size <= vshare)
        (void)lane_grow(l, l->cap * 4 > ring_max ? ring_max
                                                          : l->cap * 4,
                        locked);
    /* The lane's counters in registers, stored once at the end: each is
     * an atomic (find reads them), and stored and loaded again for every
     * entry dropped they made a chain of store-to-load forwards (a third
     * of a push). */
    head = l->head;
    count = l->count;
    cap = l->cap;
    blocks = l->blocks;
    volume = l->volume;
    /* Oldest first, until the new entry fits: under the volume share
     * with 1/64 of it to spare, and in the slots (a block bigger than the
     * whole share is still kept, alone, as the newest). */
    goal = volume + size > vshare ? vshare - (vshare >> 6) : UINT64_MAX;
    while (count > 0 &&
           (count == cap || count >= slots || volume + size > goal)) {
        const struct meta *old = &l->meta[head];

        volume -= old->size;
        blocks -= (uint32_t)(old->key & KEY_FREED);
        /* Before the slot can be taken by the new entry. */
        if (LP_UNLIKELY(lp_freed_hold) && (old->key & KEY_FREED))
            release(l->addr[head]);
        count--;
        head = (head + 1) & (cap - 1);
    }
    pos = (head + count) & (cap - 1);
    m = &l->meta[pos];
    if (tombstone) {
        key = lp_add_relaxed(&epoch, 1) << 1;
    } else {
        key = stamp_now(l) << 1 | KEY_FREED;
        blocks++;
    }
    lp_store_relaxed(&m->size, size);
    lp_store_relaxed(&m->alloc_stack, alloc_stack);
    lp_store_relaxed(&m->free_stack, free_stack);
    lp_store_relaxed(&m->key, key);
    lp_store_relaxed(&l->addr[pos], addr);
    lp_store_relaxed(&l->head, head);
    lp_store_relaxed(&l->blocks, blocks);
    lp_store_relaxed(&l->volume, volume + size);
    lp_store_release(&l->count, count + 1);
    return true;
}

/*
 * Who may write a lane without its lock: a thread record's lane has one
 * writer (the thread that owns the record, a record serving one thread
 * at a time); the first lane, shared by the main thread and threads we
 * did not see start, has one only until the program makes a second
 * thread (lp_threaded, as lp_count_add reasons). A lock-free writer marks
 * the lane busy while it appends: a signal handler that allocates under
 * our guard (its forget) then leaves the lane alone rather than tear it,
 * and a child forked meanwhile empties a lane caught half written.
 * Returns false when the lane is busy already (the entry is skipped).
 */
static inline bool writer_begin(struct lp_freed_lane *l, bool *locked)
{
    *locked = !l->owned && lp_load_relaxed(&lp_threaded);
    if (*locked) {
        lp_spin_lock(&l->lock);
        return true;
    }
    if (LP_UNLIKELY(l->busy))
        return false;
    lp_store_relaxed(&l->busy, 1);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return true;
}

static inline void writer_end(struct lp_freed_lane *l, bool locked)
{
    if (locked) {
        lp_spin_unlock(&l->lock);
        return;
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    lp_store_release(&l->busy, 0);
}

bool lp_freed_push(uintptr_t addr, size_t size, uint32_t alloc_stack,
                   uint32_t free_stack)
{
    struct lp_freed_lane *l = my_lane();
    bool locked, queued;

    if (lp_load_relaxed(&volume_limit) == 0 || addr == 0 ||
        !writer_begin(l, &locked))
        return false;
    queued = append(l, addr, size, alloc_stack, free_stack, false, locked);
    writer_end(l, locked);
    return queued && lp_freed_hold;
}

void lp_freed_forget(uintptr_t addr)
{
    struct lp_freed_lane *l = my_lane();
    bool locked;

    if (lp_load_relaxed(&volume_limit) == 0 || addr == 0 ||
        !writer_begin(l, &locked))
        return;
    (void)append(l, addr, 0, 0, 0, true, locked);
    writer_end(l, locked);
}

/* The ring slot of the lane's newest entry for addr that could beat
 * best_key, or -1 (lock held). A lane's keys never decrease from head to
 * tail, so the scan stops at the first key below best_key's stamp. */
static long lane_newest(const struct lp_freed_lane *l, uintptr_t addr,
                        uint64_t best_key)
{
    uint32_t mask = l->cap - 1, i = lp_load_acquire(&l->count),
             head = lp_load_relaxed(&l->head);
    uint64_t floor = best_key >> 1;

    while (i-- > 0) {
        uint32_t pos = (head + i) & mask;

        if (lp_load_relaxed(&l->addr[pos]) == addr)
            return lp_load_relaxed(&l->meta[pos].key) > best_key ? (long)pos
                                                                : -1;
        /* Every 64 entries: still new enough to beat the best? */
        if (floor && i % 64 == 0 &&
            (lp_load_relaxed(&l->meta[pos].key) >> 1) < floor)
            return -1;
    }
    return -1;
}

bool lp_freed_find(uintptr_t addr, struct lp_freed *out)
{
    uint64_t best_key = 0;
    struct lp_freed best = { 0 };
    struct lp_freed_lane *l;

    if (addr == 0)
        return false;
    for (l = lp_load_acquire(&lanes); l; l = l->next) {
        long pos;

        lp_spin_lock(&l->lock);
        if (l->addr && (pos = lane_newest(l, addr, best_key)) >= 0) {
            const struct meta *m = &l->meta[pos];

            best_key = lp_load_relaxed(&m->key);
            best.addr = addr;
            best.size = lp_load_relaxed(&m->size);
            best.alloc_stack = lp_load_relaxed(&m->alloc_stack);
            best.free_stack = lp_load_relaxed(&m->free_stack);
        }
        lp_spin_unlock(&l->lock);
    }
    if (!(best_key & KEY_FREED))
        return false; /* none, or a tombstone is the newest */
    if (out)
        *out = best;
    return true;
}

void lp_freed_each_held(void (*fn)(uintptr_t addr, size_t size, void *arg),
                        void *arg)
{
    struct lp_freed_lane *l;

    if (!lp_freed_hold)
        return;
    for (l = lp_load_acquire(&lanes); l; l = l->next) {
        uint32_t i, n, head, mask;

        /* A try: a parked thread may hold it (its lane is then skipped,
         * and its blocks stay where the scan finds them). */
        if (__atomic_exchange_n(&l->lock, 1, __ATOMIC_ACQUIRE))
            continue;
        if (l->addr && !lp_load_acquire(&l->busy)) {
            mask = l->cap - 1;
            n = lp_load_acquire(&l->count);
            head = lp_load_relaxed(&l->head);
            for (i = 0; i < n; i++) {
                uint32_t pos = (head + i) & mask;

                if (l->meta[pos].key & KEY_FREED)
                    fn(l->addr[pos], l->meta[pos].size, arg);
            }
        }
        lp_spin_unlock(&l->lock);
    }
}

struct lp_freed_lane *lp_freed_lane_new(void)
{
    struct lp_freed_lane *l = lp_arena_alloc(sizeof(*l));

    if (l == NULL)
        return NULL;
    l->owned = 1;
    lp_list_push(&lanes, l);
    lp_add_relaxed(&nlanes, 1);
    share_update();
    return l;
}

uint32_t lp_freed_lanes(void)
{
    return lp_load_relaxed(&nlanes);
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
    const struct lp_freed_lane *l;
    size_t n = 0;

    for (l = lp_load_acquire(&lanes); l; l = l->next)
        n += lp_load_relaxed(&l->blocks);
    return n;
}

void lp_freed_set_volume(uint64_t bytes)
{
    lp_freed_hold = lp_config.quarantine && bytes > 0;
    ring_max = lp_freed_hold ? LP_FREED_QUARANTINE_RING : LP_FREED_RING_MAX;
    lp_store_relaxed(&volume_limit, bytes);
    share_update();
}

void lp_freed_reset(void)
{
    struct lp_freed_lane *l;

    for (l = lanes; l; l = l->next) {
        free_arrays(l->addr, l->meta, l->cap);
        l->addr = NULL;
        l->meta = NULL;
        l->cap = l->head = l->count = l->blocks = l->pushes = 0;
        l->volume = 0;
        l->lock = 0;
        l->busy = 0;
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

/* A lane whose lock-free writer was mid-append when the parent forked
 * (its thread is gone in the child) is emptied: its counters may not
 * match its ring. Arrays never change without the lock, which the
 * parent held across fork. */
void lp_freed_atfork_child(void)
{
    struct lp_freed_lane *l;

    for (l = lanes; l; l = l->next) {
        l->lock = 0;
        if (l->busy) {
            l->head = l->count = l->blocks = 0;
            l->volume = 0;
            l->busy = 0;
        }
    }
}
