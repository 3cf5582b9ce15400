/* SPDX-License-Identifier: MIT */
/*
 * arena.c - metadata memory straight from mmap.
 *
 * Requests up to 64 KiB come from power-of-two size classes carved out of
 * 1 MiB chunks, with a free list per class; larger requests get their own
 * mapping. Chunks are recorded in a small fixed array so the scan can
 * exclude them from the root set. One spinlock: the arena is reached only
 * when a slab or a hash bucket array needs memory, not per allocation.
 * Context: HOT (rare), any thread.
 */
#include "preload/hot/arena.h"
#include "preload/hot/fault.h"

#include <sched.h>
#include <sys/mman.h>
#include <string.h>

#define CHUNK_SIZE (1u << 20)
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
    bool failed; /* a mapping was refused: some metadata is missing */
} arena;

static void arena_lock(void)
{
    while (__atomic_exchange_n(&arena.lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void arena_unlock(void) { __atomic_store_n(&arena.lock, 0, __ATOMIC_RELEASE); }

static void *map(size_t size)
{
    void *p;

    if (lp_fault(LP_FAULT_ARENA)) {
        lp_store_relaxed(&arena.failed, true); /* tests: memory runs out */
        return NULL;
    }
    p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED) {
        lp_store_relaxed(&arena.failed, true);
        return NULL;
    }
    if (arena.nranges < MAX_RANGES) {
        arena.lo[arena.nranges] = (uintptr_t)p;
        arena.hi[arena.nranges] = (uintptr_t)p + size;
        lp_store_release(&arena.nranges, arena.nranges + 1);
    }
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
        arena.bump = map(CHUNK_SIZE);
        if (!arena.bump) {
            arena.bump_end = NULL;
            arena_unlock();
            return NULL;
        }
        arena.bump_end = arena.bump + CHUNK_SIZE;
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
