/* SPDX-License-Identifier: MIT */
/*
 * arena.c - metadata memory straight from mmap.
 *
 * Requests up to 64 KiB come from power-of-two size classes carved out of
 * chunks, with a free list per class; larger requests get their own
 * mapping. Chunks are recorded in a small fixed array so the scan can
 * exclude them from the root set. One spinlock: the arena is reached only
 * when a slab or a hash bucket array needs memory, not per allocation.
 *
 * The first chunks are 1 MiB of small pages: a program with few stacks
 * and threads never needs more, and pays for no huge page. From
 * HUGE_AFTER chunks on, a chunk is one 2 MiB huge page (aligned, asked
 * for with MADV_HUGEPAGE): a program that needs that much metadata is one
 * with 100,000s of stacks, whose records are written once each on fresh
 * memory and read at random. python3 work.py (170,000 stacks, 49 MB of
 * records): one fault per 2 MiB instead of per 4 KiB, and a TLB entry
 * per 2 MiB; 3-6% of its run (medians of 15-21 interleaved runs).
 * Context: HOT (rare), any thread.
 */
#include "preload/hot/arena.h"
#include "preload/hot/fault.h"

#include <sched.h>
#include <sys/mman.h>
#include <string.h>

#define CHUNK_SIZE (1u << 20)
#define HUGE_CHUNK ((size_t)2 << 20)
#define HUGE_AFTER 4 /* small-page chunks first */
#define MIN_SHIFT 4
#define MAX_SHIFT 16
#define MAX_RANGES 8192

struct free_node {
    struct free_node *next;
};

static struct {
    int lock;
    struct free_node *free[MAX_SHIFT + 1];
    unsigned char *bump, *bump_end;
    uintptr_t lo[MAX_RANGES], hi[MAX_RANGES];
    unsigned nranges;
    unsigned chunks; /* chunks carved so far */
    bool failed; /* a mapping was refused: some metadata is missing */
} arena;

static void arena_lock(void)
{
    while (__atomic_exchange_n(&arena.lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void arena_unlock(void) { __atomic_store_n(&arena.lock, 0, __ATOMIC_RELEASE); }

/* A fresh mapping of size bytes aligned to align (a power of two, 4 KiB
 * or more), recorded for the scan; lock held. */
static void *map_aligned(size_t size, size_t align)
{
    void *p;
    size_t extra = align > 4096 ? align : 0;

    if (lp_fault(LP_FAULT_ARENA)) {
        lp_store_relaxed(&arena.failed, true); /* tests: memory runs out */
        return NULL;
    }
    p = mmap(NULL, size + extra, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED) {
        lp_store_relaxed(&arena.failed, true);
        return NULL;
    }
    if (extra) {
        /* Keep the aligned size bytes, give back what is around them
         * (the tail is never empty: at < lo + align). */
        uintptr_t lo = (uintptr_t)p, at = (lo + align - 1) & ~(align - 1);

        if (at > lo)
            (void)munmap(p, at - lo);
        (void)munmap((void *)(at + size), lo + extra - at);
        p = (void *)at;
    }
    if (arena.nranges < MAX_RANGES) {
        arena.lo[arena.nranges] = (uintptr_t)p;
        arena.hi[arena.nranges] = (uintptr_t)p + size;
        lp_store_release(&arena.nranges, arena.nranges + 1);
    }
    return p;
}

static void *map(size_t size) { return map_aligned(size, 4096); }

/* The next chunk, its size in *size; lock held. */
static void *new_chunk(size_t *size)
{
    void *p;

    if (arena.chunks < HUGE_AFTER) {
        *size = CHUNK_SIZE;
        p = map(CHUNK_SIZE);
    } else {
        *size = HUGE_CHUNK;
        p = map_aligned(HUGE_CHUNK, HUGE_CHUNK);
        if (p)
            (void)madvise(p, HUGE_CHUNK, MADV_HUGEPAGE);
    }
    if (p)
        arena.chunks++;
    return p;
}

static unsigned size_class(size_t size)
{
    unsigned shift = MIN_SHIFT;

    while (((size_t)1 << shift) < size)
        shift++;
    return shift;
}

void *lp_arena_alloc(size_t size)
{
    unsigned c;
    void *p;

    if (size == 0)
        size = 1;
    if (size > ((size_t)1 << MAX_SHIFT)) {
        size = (size + 4095) & ~(size_t)4095;
        arena_lock();
        p = map(size);
        arena_unlock();
        return p;
    }
    c = size_class(size);
    size = (size_t)1 << c;
    arena_lock();
    if (arena.free[c]) {
        p = arena.free[c];
        arena.free[c] = arena.free[c]->next;
        arena_unlock();
        memset(p, 0, size);
        return p;
    }
    if (!arena.bump || (size_t)(arena.bump_end - arena.bump) < size) {
        size_t chunk;

        arena.bump = new_chunk(&chunk);
        if (!arena.bump) {
            arena.bump_end = NULL;
            arena_unlock();
            return NULL;
        }
        arena.bump_end = arena.bump + chunk;
    }
    p = arena.bump;
    arena.bump += size;
    arena_unlock();
    return p; /* fresh mmap memory is zero */
}

void lp_arena_free(void *p, size_t size)
{
    unsigned c;
    struct free_node *n = p;

    if (!p)
        return;
    if (size == 0)
        size = 1;
    if (size > ((size_t)1 << MAX_SHIFT)) {
        /* Large mappings are rare (bucket arrays); keep the range record
         * and just drop the pages. */
        madvise(p, (size + 4095) & ~(size_t)4095, MADV_DONTNEED);
        return;
    }
    c = size_class(size);
    arena_lock();
    n->next = arena.free[c];
    arena.free[c] = n;
    arena_unlock();
}

void *lp_arena_remap(void *p, size_t old_size, size_t new_size)
{
    size_t old_len = (old_size + 4095) & ~(size_t)4095,
           new_len = (new_size + 4095) & ~(size_t)4095;
    unsigned i;
    void *q;

    if (old_size <= ((size_t)1 << MAX_SHIFT) || new_size <= ((size_t)1 << MAX_SHIFT))
        return NULL; /* not a mapping of its own */
    if (old_len == new_len)
        return p;
    if (lp_fault(LP_FAULT_ARENA))
        return NULL; /* tests: the kernel refuses */
    arena_lock();
    q = mremap(p, old_len, new_len, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) {
        arena_unlock();
        return NULL;
    }
    /* Its range record follows it: the old addresses may be the
     * program's next mapping, which the scan must not skip. */
    for (i = 0; i < arena.nranges; i++)
        if (arena.lo[i] == (uintptr_t)p) {
            lp_store_relaxed(&arena.lo[i], (uintptr_t)q);
            lp_store_relaxed(&arena.hi[i], (uintptr_t)q + new_len);
            break;
        }
    arena_unlock();
    return q;
}

void lp_populate(void *p, size_t size)
{
    /* Arena blocks need not start on a page: whole pages inside only. */
    uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)p + size) & ~(uintptr_t)4095;

    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}

bool lp_arena_owns(uintptr_t addr)
{
    unsigned i, n = lp_load_acquire(&arena.nranges);

    for (i = 0; i < n; i++)
        if (addr >= arena.lo[i] && addr < arena.hi[i])
            return true;
    return false;
}

void lp_arena_for_each_range(void (*fn)(uintptr_t, uintptr_t, void *),
                             void *arg)
{
    unsigned i, n = lp_load_acquire(&arena.nranges);

    for (i = 0; i < n; i++)
        fn(arena.lo[i], arena.hi[i], arg);
}

/* fork(): preload/life/fork.c takes the arena lock last, after every lock whose
 * holder may still need the arena. */
void lp_arena_lock(void) { arena_lock(); }
void lp_arena_unlock(void) { arena_unlock(); }
void lp_arena_atfork_child(void) { arena.lock = 0; }

bool lp_arena_failed(void) { return lp_load_relaxed(&arena.failed); }
