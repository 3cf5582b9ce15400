/* SPDX-License-Identifier: MIT */
/*
 * stack.c - capturing and interning allocation stacks.
 *
 * Capture walks the stack with unwind.c (DWARF-exact, identical to
 * libunwind's unw_backtrace, from a cache of unwind rules) or with frame
 * pointers. Our own frames
 * (this file, track.c) are dropped except the outermost one, the hook the
 * program called, which Memcheck prints as the "at" line.
 *
 * Interning hashes the frame array into one of STACK_SHARDS chains; a
 * known stack is found without any lock, a new one is added under its
 * shard's spinlock. Ids are handed out by an atomic counter and published
 * in a two-level directory so lp_stack_get() never locks.
 * Context: HOT.
 */
#include "preload/stack.h"

#include <dlfcn.h>
#include <string.h>

#include "preload/arena.h"
#include "preload/config.h"
#include "preload/unwind.h"

#define STACK_SHARDS 32
#define BUCKETS_PER_SHARD 4096
#define DIR_BITS 12
#define DIR_SIZE (1u << DIR_BITS)

static struct {
    int lock; /* lp_spin_lock; writers only */
    struct lp_stack **buckets;
    char pad[64];
} shards[STACK_SHARDS];

static struct lp_stack **dir[DIR_SIZE];
static uint32_t next_id;
static uintptr_t self_lo, self_hi;

/* Our own object's mapping, from glibc's lock-free lookup: no
 * dl_iterate_phdr (the loader lock) even on the first allocation. */
static LP_COLD void find_self(void)
{
    struct dl_find_object obj;

    if (_dl_find_object((void *)(uintptr_t)&find_self, &obj) == 0) {
        self_lo = (uintptr_t)obj.dlfo_map_start;
        lp_store_release(&self_hi, (uintptr_t)obj.dlfo_map_end);
    }
}

bool lp_stack_is_self(uintptr_t pc)
{
    if (LP_UNLIKELY(lp_load_acquire(&self_hi) == 0))
        find_self();
    return pc >= self_lo && pc < self_hi;
}

static uint64_t hash_frames(const uintptr_t *f, unsigned n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    unsigned i;

    for (i = 0; i < n; i++) {
        h ^= f[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h;
}

static bool publish(struct lp_stack *s)
{
    uint32_t hi = s->id >> DIR_BITS, lo = s->id & (DIR_SIZE - 1);
    struct lp_stack **chunk;

    if (hi >= DIR_SIZE)
        return false;
    chunk = lp_load_acquire(&dir[hi]);
    if (!chunk) {
        struct lp_stack **fresh = lp_arena_alloc(sizeof(*fresh) * DIR_SIZE);
        struct lp_stack **expect = NULL;

        if (!fresh)
            return false;
        if (lp_cas(&dir[hi], &expect, fresh))
            chunk = fresh;
        else {
            lp_arena_free(fresh, sizeof(*fresh) * DIR_SIZE);
            chunk = expect;
        }
    }
    lp_store_release(&chunk[lo], s);
    return true;
}

/* Chains only ever grow at their head, and a record is fully written
 * before it is published with a release store, so readers walk them
 * without the lock. */
static struct lp_stack *chain_find(struct lp_stack *s, uint64_t h,
                                   const uintptr_t *frames, unsigned n)
{
    for (; s; s = lp_load_acquire(&s->next))
        if (s->hash == h && s->nframes == n &&
            memcmp(s->frames, frames, n * sizeof(*frames)) == 0)
            return s;
    return NULL;
}

uint32_t lp_stack_intern(const uintptr_t *frames, unsigned n)
{
    uint64_t h = hash_frames(frames, n);
    unsigned si = h % STACK_SHARDS;
    unsigned bi = (h >> 8) % BUCKETS_PER_SHARD;
    struct lp_stack **buckets = lp_load_acquire(&shards[si].buckets);
    struct lp_stack *s;
    uint32_t id = 0;

    /* The common case, a stack seen before: no lock. */
    if (buckets && (s = chain_find(lp_load_acquire(&buckets[bi]), h, frames, n)))
        return s->id;
    lp_spin_lock(&shards[si].lock);
    buckets = shards[si].buckets;
    if (!buckets) {
        buckets = lp_arena_alloc(sizeof(struct lp_stack *) * BUCKETS_PER_SHARD);
        if (!buckets)
            goto out;
        lp_store_release(&shards[si].buckets, buckets);
    }
    s = chain_find(buckets[bi], h, frames, n);
    if (s) {
        id = s->id;
        goto out;
    }
    s = lp_arena_alloc(sizeof(*s) + n * sizeof(*frames));
    if (!s)
        goto out;
    s->hash = h;
    s->nframes = n;
    memcpy(s->frames, frames, n * sizeof(*frames));
    s->id = lp_add_relaxed(&next_id, 1);
    if (!publish(s))
        goto out; /* id space exhausted: leave it unreachable */
    s->next = buckets[bi];
    lp_store_release(&buckets[bi], s);
    id = s->id;
out:
    lp_spin_unlock(&shards[si].lock);
    return id;
}

/* Frame-pointer walk: cheap, exact only where everything keeps frame
 * pointers. Stops at the first frame pointer that does not grow upward. */
static int fp_backtrace(void **buf, int max)
{
    uintptr_t *fp = __builtin_frame_address(0);
    int n = 0;

    buf[n++] = __builtin_return_address(0);
    while (n < max && fp) {
        uintptr_t *next = (uintptr_t *)fp[0];
        uintptr_t ret = fp[1];

        if (ret < 4096)
            break;
        buf[n++] = (void *)ret;
        if (next <= fp || (uintptr_t)next - (uintptr_t)fp > (1u << 24) ||
            ((uintptr_t)next & 7))
            break;
        fp = next;
    }
    return n;
}

uint32_t lp_stack_capture(void)
{
    void *buf[LP_STACK_MAX_DEPTH + 16 < LP_UNWIND_MAX
                  ? LP_STACK_MAX_DEPTH + 16
                  : LP_UNWIND_MAX];
    /* Our own frames (at most 4: capture, track, a hook, operator new),
     * the hook, depth callers, and 3 below main so that main's cut is
     * seen even on a stack exactly depth deep. */
    int want = lp_config.depth + 8, n, i, j, k;

    if (want > (int)LP_ARRAY_SIZE(buf))
        want = LP_ARRAY_SIZE(buf);
    if (lp_config.unwind_fp)
        n = fp_backtrace(buf, want);
    else
        n = lp_unwind_backtrace(buf, want);
    /* Skip our own frames, keeping the outermost one: the hook. */
    for (i = 0; i < n && lp_stack_is_self((uintptr_t)buf[i]); i++)
        ;
    if (i > 0)
        i--;
    /* Further out, our frames are wrappers the program never wrote
     * (the pthread_create start routine, main's wrapper): drop them. */
    for (j = k = i + 1; j < n; j++)
        if (!lp_stack_is_self((uintptr_t)buf[j]))
            buf[k++] = buf[j];
    n = k < n ? k : n;
    if (n - i > lp_config.depth + 4)
        n = i + lp_config.depth + 4;
    return lp_stack_intern((const uintptr_t *)(buf + i), n - i);
}

struct lp_stack *lp_stack_get(uint32_t id)
{
    struct lp_stack **chunk;

    if (id == 0 || (id >> DIR_BITS) >= DIR_SIZE)
        return NULL;
    chunk = lp_load_acquire(&dir[id >> DIR_BITS]);
    return chunk ? lp_load_acquire(&chunk[id & (DIR_SIZE - 1)]) : NULL;
}

uint32_t lp_stack_count(void) { return lp_load_acquire(&next_id); }

void lp_stack_lock_all(void)
{
    unsigned i;

    for (i = 0; i < STACK_SHARDS; i++)
        lp_spin_lock(&shards[i].lock);
}

void lp_stack_unlock_all(void)
{
    unsigned i;

    for (i = STACK_SHARDS; i-- > 0;)
        lp_spin_unlock(&shards[i].lock);
}

void lp_stack_atfork_child(void)
{
    unsigned i;

    for (i = 0; i < STACK_SHARDS; i++)
        shards[i].lock = 0;
}
