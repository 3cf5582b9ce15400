/* SPDX-License-Identifier: MIT */
/*
 * stack.c - capturing and interning allocation stacks.
 *
 * Capture walks the stack with stack_walk.c (DWARF-exact, identical to
 * libunwind's unw_backtrace, from a cache of unwind rules) or with frame
 * pointers. Our own frames
 * (this file, track.c) are dropped except the outermost one, the hook the
 * program called, which Memcheck prints as the "at" line.
 *
 * Interning hashes the frame array and looks it up in one index; a
 * known stack is found without any lock, a new one is made under the
 * spinlock of one of STACK_SHARDS shards and put in the index under the
 * index's. Ids are handed out by an atomic counter and published
 * in a two-level directory so lp_stack_get() never locks. A record's
 * frames are packed in 32 bits each, by region (stack.h); the regions
 * are added, once each, under a lock of their own taken inside a shard's.
 * Context: HOT.
 */
#include "preload/hot/stack.h"

#include <string.h>
#include <sys/mman.h>

#include "preload/hot/arena.h"
#include "preload/life/config.h"
#include "preload/hot/stack_walk.h"

#define STACK_SHARDS 32
#define FIRST_SLOTS 1024 /* 8 KiB */
#define DIR_BITS 12
#define DIR_SIZE (1u << DIR_BITS)

/* Records are carved from slabs of their shard, at their exact size
 * (the arena's power-of-two classes would round a 34-frame record of
 * 320 bytes up to 512: more pages to touch, more cache lines apart). */
#define SLAB_SIZE 65536

/*
 * The index: open addressing with linear probing over slots of one
 * word, the stack's id and the top 32 bits of its hash (the tag), at
 * most half full, so a lookup reads one cache line of the index or two
 * and touches a record only when the tag matches - a new stack (the
 * costly case: a program with 100,000s of them) touches none. Chains
 * from fixed buckets took a miss per record on the way, and grew with
 * the program's stacks. A slot starts at the tag's low bits, so a copy
 * into a larger index needs no record either.
 *
 * Lock-free readers: a slot is written once, with a release store, after
 * the record was published in the id directory; a reader that sees the
 * slot with an acquire load finds the record there. When half full the
 * index is copied into one twice as large and published with a release
 * store; a reader still in the old one finds every stack that was in it
 * (it is never written again), and a stack it misses sends it to the
 * locked path, which looks again in the current index. Old indexes stay
 * mapped (a reader may be in one), their pages given back (index_retire).
 *
 * One index for every shard (the shards' locks serialize the making of
 * records; the index's own lock, taken inside one of them, only its
 * puts and growths): python3's 170,000 stacks fill 4 MiB of slots in
 * one mapping (on huge pages where it is 2 MiB-aligned), where they were
 * spread over 32 indexes of 128 KiB in small pages: index_find and the
 * locked path went from 6.3% to 4.4% of its run's samples.
 */
#define SLOT(tag, id) (((uint64_t)(tag) << 32) | (id)) /* 0: empty */
#define SLOT_TAG(v) ((uint32_t)((v) >> 32))
#define SLOT_ID(v) ((uint32_t)(v))
struct stack_index {
    uint64_t mask;
    uint64_t used; /* under idx.lock */
    uint64_t slot[];
};

static struct {
    int lock; /* lp_spin_lock; writers only */
    unsigned char *bump, *bump_end; /* under lock */
    unsigned slabs;
    char pad[64];
} shards[STACK_SHARDS];

static struct {
    int lock; /* lp_spin_lock, inside a shard's: puts and growths */
    struct stack_index *index; /* acquire */
} idx;

/*
 * Each thread's intern cache, in front of the shared table: a direct-
 * mapped array of the stacks it interned lately, by hash. A hit costs a
 * load from a small per-thread array and a compare with a record this
 * thread used lately (both in its cache), instead of a bucket array and
 * chains shared by every thread and as large as the program's stacks.
 * Records are never freed, so an entry can never dangle; the frames are
 * always compared, so an entry can never give a wrong stack.
 */
struct tcache_entry {
    uint64_t hash;
    struct lp_stack *s;
};
#define TCACHE_SIZE (LP_UNWIND_SCRATCH_BYTES / sizeof(struct tcache_entry))
_Static_assert((TCACHE_SIZE & (TCACHE_SIZE - 1)) == 0, "power of two");

static struct lp_stack **dir[DIR_SIZE];
static uint32_t next_id;
bool lp_stack_is_self(uintptr_t pc)
{
    return lp_unwind_is_self(pc);
}

/* Four independent lanes (the frames of one capture hash in a few ns,
 * not one multiply latency per frame), folded and mixed at the end so
 * the high bits that tell libraries apart reach the low bits that pick
 * the shard and the bucket. */
#define HK1 0x9e3779b97f4a7c15ull
#define HK2 0xc2b2ae3d27d4eb4full
static inline uint64_t rotl64(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t hash_frames(const uintptr_t *f, unsigned n)
{
    uint64_t a = HK1 ^ n, b = HK2, c = HK1 + HK2, d = HK2 - HK1, h;
    unsigned i = 0;

    for (; i + 4 <= n; i += 4) {
        a = rotl64((a ^ f[i]) * HK1, 29);
        b = rotl64((b ^ f[i + 1]) * HK1, 29);
        c = rotl64((c ^ f[i + 2]) * HK1, 29);
        d = rotl64((d ^ f[i + 3]) * HK1, 29);
    }
    for (; i < n; i++)
        a = rotl64((a ^ f[i]) * HK2, 31);
    h = a ^ rotl64(b, 16) ^ rotl64(c, 32) ^ rotl64(d, 48);
    return lp_hash_addr(h); /* the same 64-bit finalizer (lp.h) */
}

/* Whether s (of n frames) holds exactly these frames. */
static inline bool same_frames(const struct lp_stack *s, const uintptr_t *f,
                               unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++)
        if (lp_stack_frame(s, i) != f[i])
            return false;
    return true;
}

void lp_stack_frames(const struct lp_stack *s, uintptr_t *out)
{
    unsigned i;

    for (i = 0; i < s->nframes; i++)
        out[i] = lp_stack_frame(s, i);
}

/* --- the regions of packed frames (stack.h) ----------------------------- */

uintptr_t lp_frame_region[LP_FRAME_REGIONS];
static unsigned nregions; /* acquire; added under region_lock */
static int region_lock;

/* The index of the region starting at base, added when new; or
 * LP_FRAME_REGIONS when the table is full. */
static unsigned region_of(uintptr_t base)
{
    unsigned n = lp_load_acquire(&nregions), i;

    for (i = 0; i < n; i++)
        if (lp_frame_region[i] == base)
            return i;
    lp_spin_lock(&region_lock);
    for (n = nregions; i < n; i++)
        if (lp_frame_region[i] == base)
            break;
    if (i == n && n < LP_FRAME_REGIONS) {
        lp_frame_region[n] = base;
        lp_store_release(&nregions, n + 1);
    }
    lp_spin_unlock(&region_lock);
    return i;
}

/* Pack frames into p (n slots), when p is not NULL; false when a frame's
 * region does not fit in the table (the record then keeps whole words). */
static bool pack_frames(uint32_t *p, const uintptr_t *f, unsigned n)
{
    uintptr_t base = 1; /* no region starts there */
    unsigned i, r = 0;

    for (i = 0; i < n; i++) {
        if ((f[i] & ~(uintptr_t)LP_FRAME_OFFSET_MASK) != base) {
            base = f[i] & ~(uintptr_t)LP_FRAME_OFFSET_MASK;
            r = region_of(base);
            if (r >= LP_FRAME_REGIONS)
                return false;
        }
        if (p)
            p[i] = (uint32_t)(r << LP_FRAME_OFFSET_BITS) |
                   (uint32_t)(f[i] & LP_FRAME_OFFSET_MASK);
    }
    return true;
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

/* A record for n frames, in words (wide) or packed, from shard si's
 * slab; call with its lock held. */
static struct lp_stack *record_new(unsigned si, unsigned n, bool wide)
{
    size_t size = (sizeof(struct lp_stack) +
                   n * (wide ? sizeof(uintptr_t) : sizeof(uint32_t)) + 7) &
                  ~(size_t)7;
    struct lp_stack *s;

    if (size > SLAB_SIZE / 4)
        return lp_arena_alloc(size);
    if ((size_t)(shards[si].bump_end - shards[si].bump) < size) {
        shards[si].bump = lp_arena_alloc(SLAB_SIZE);
        if (shards[si].bump == NULL) {
            shards[si].bump_end = NULL;
            return NULL;
        }
        shards[si].bump_end = shards[si].bump + SLAB_SIZE;
        /* Its pages now, in one call (lp_populate): a program
         * with 100,000s of stacks fills slab after slab. Only from a
         * shard's second slab on, so a program with few stacks does not
         * commit memory it will not use. */
        if (shards[si].slabs++ > 0)
            lp_populate(shards[si].bump, SLAB_SIZE);
    }
    s = (struct lp_stack *)(void *)shards[si].bump;
    shards[si].bump += size;
    return s; /* arena memory is zeroed */
}

static uint32_t intern_shared(uint64_t h, const uintptr_t *frames,
                              unsigned n, struct lp_stack **found);

static inline uint32_t tag_of(uint64_t h) { return (uint32_t)(h >> 32); }

static inline size_t slot_of(uint32_t tag, uint64_t mask)
{
    return (size_t)(tag & mask); /* h's low 5 bits chose the shard */
}

/* Start the load of h's slot in the shared index (a miss, in a program
 * with many stacks) while the thread's own cache is looked at. */
static inline void index_prefetch(uint64_t h)
{
    const struct stack_index *x = lp_load_acquire(&idx.index);

    if (x)
        __builtin_prefetch(&x->slot[slot_of(tag_of(h), x->mask)]);
}

uint32_t lp_stack_intern(const uintptr_t *frames, unsigned n)
{
    uint64_t h;
    struct tcache_entry *tc = lp_unwind_thread_scratch(), *e;
    struct lp_stack *s = NULL;
    uint32_t id;

    if (n > LP_STACK_MAX_DEPTH)
        n = LP_STACK_MAX_DEPTH; /* captures keep at most depth + 4 */
    h = hash_frames(frames, n);

    if (tc == NULL)
        return intern_shared(h, frames, n, &s);
    index_prefetch(h);
    e = &tc[(h ^ (h >> 32)) & (TCACHE_SIZE - 1)];
    s = e->s;
    if (e->hash == h && s && s->nframes == n && same_frames(s, frames, n))
        return s->id;
    id = intern_shared(h, frames, n, &s);
    if (s) {
        e->hash = h;
        e->s = s;
    }
    return id;
}

/* The record of these frames in x, or NULL. Lock-free. */
static struct lp_stack *index_find(const struct stack_index *x, uint64_t h,
                                   const uintptr_t *frames, unsigned n)
{
    uint32_t tag = tag_of(h);
    size_t mask = x->mask, i = slot_of(tag, mask);
    uint64_t v;

    for (; (v = lp_load_acquire(&x->slot[i])) != 0; i = (i + 1) & mask) {
        struct lp_stack *s;

        if (SLOT_TAG(v) == tag && (s = lp_stack_get(SLOT_ID(v))) &&
            s->nframes == n && same_frames(s, frames, n))
            return s;
    }
    return NULL;
}

/* Add slot v to x, which has a free slot; under the lock. */
static void index_put(struct stack_index *x, uint64_t v)
{
    size_t mask = x->mask, i = slot_of(SLOT_TAG(v), mask);

    while (x->slot[i] != 0)
        i = (i + 1) & mask;
    lp_store_release(&x->slot[i], v);
    x->used++;
}

static struct stack_index *index_new(size_t slots)
{
    size_t size = sizeof(struct stack_index) + slots * sizeof(uint64_t);
    struct stack_index *x = lp_arena_alloc(size);

    if (x) {
        if (size >= ((size_t)2 << 20)) /* its aligned 2 MiB, at least */
            (void)madvise(x, size, MADV_HUGEPAGE);
        if (size >= 65536)
            lp_populate(x, size); /* every page gets written */
        x->mask = slots - 1;
    }
    return x;
}

/*
 * Give back the pages of an index that was replaced, but its first (the
 * mask, which a reader must find intact) and its mapping: a reader still
 * in it then reads zeros, empty slots, which end its probe - a miss,
 * which the locked path looks up again in the current index. Never to
 * the arena for reuse: other data there could be an endless probe.
 */
static void index_retire(struct stack_index *x)
{
    uintptr_t lo = ((uintptr_t)x->slot + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)&x->slot[x->mask + 1]) & ~(uintptr_t)4095;

    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* The index with room for one more stack (grown if it was half full),
 * or NULL; under idx.lock. */
static struct stack_index *index_room(void)
{
    struct stack_index *x = idx.index, *g;
    size_t i;

    if (x == NULL) {
        x = index_new(FIRST_SLOTS);
        if (x)
            lp_store_release(&idx.index, x);
        return x;
    }
    if ((x->used + 1) * 2 <= x->mask + 1)
        return x;
    g = index_new((x->mask + 1) * 2);
    if (g == NULL)
        return (x->used + 1 <= x->mask) ? x : NULL; /* fuller, still ends */
    for (i = 0; i <= x->mask; i++)
        if (x->slot[i] != 0)
            index_put(g, x->slot[i]);
    lp_store_release(&idx.index, g);
    index_retire(x);
    return g;
}

/* The shared table; *found is the record, when there is one. */
static uint32_t intern_shared(uint64_t h, const uintptr_t *frames,
                              unsigned n, struct lp_stack **found)
{
    unsigned si = h % STACK_SHARDS;
    struct stack_index *x = lp_load_acquire(&idx.index);
    struct lp_stack *s;
    uint32_t id = 0;
    bool wide;

    *found = NULL;
    /* The common case, a stack seen before: no lock. */
    if (x && (s = index_find(x, h, frames, n))) {
        *found = s;
        return s->id;
    }
    /* Every stack of this shard is put in the index under its lock:
     * with it held, the index (grown meanwhile or not) has them all. */
    lp_spin_lock(&shards[si].lock);
    x = lp_load_acquire(&idx.index);
    if (x && (s = index_find(x, h, frames, n))) {
        *found = s;
        id = s->id;
        goto out;
    }
    wide = !pack_frames(NULL, frames, n); /* every region in the table */
    s = record_new(si, n, wide);
    if (!s)
        goto out;
    if (wide) {
        s->wide = 1;
        memcpy(s->packed, frames, n * sizeof(*frames));
    } else {
        (void)pack_frames(s->packed, frames, n);
    }
    /* The id first: a locked add waits for every store before it, and
     * the record's are misses (fresh memory) that may drain later. */
    s->id = lp_add_relaxed(&next_id, 1);
    s->nframes = (uint16_t)n;
    if (!publish(s))
        goto out; /* id space exhausted: leave it unreachable */
    lp_spin_lock(&idx.lock);
    x = index_room();
    if (x) /* else (no memory) a later capture makes another record */
        index_put(x, SLOT(tag_of(h), s->id));
    lp_spin_unlock(&idx.lock);
    *found = s;
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

#define CAPTURE_MAX \
    (LP_STACK_MAX_DEPTH + 16 < LP_UNWIND_MAX ? LP_STACK_MAX_DEPTH + 16 \
                                             : LP_UNWIND_MAX)

uint32_t lp_stack_capture(void)
{
    /* Our own frames (at most 4: capture, track, a hook, operator new),
     * the hook, depth callers, and 3 below main so that main's cut is
     * seen even on a stack exactly depth deep. */
    int want = lp_config.depth + 8 < CAPTURE_MAX ? lp_config.depth + 8
                                                 : CAPTURE_MAX,
        n, i, j, k;
    /* As long as asked for, not the most any depth could ask: 304 bytes
     * at depth=30, where the array for 272 frames took 2.2 KiB of every
     * allocating stack - too much for a signal handler on an 8 KiB
     * sigaltstack (with its kernel frame) or a small coroutine stack. */
    void *buf[want];
    uint32_t *known = NULL, id;

    if (lp_config.unwind_fp) {
        n = fp_backtrace(buf, want);
    } else {
        n = lp_unwind_capture(buf, want, &known);
        if (known && *known)
            return *known; /* these very frames were interned before */
    }
    /* Skip our own frames, keeping the outermost one: the hook. */
    for (i = 0; i < n && lp_unwind_is_self((uintptr_t)buf[i]); i++)
        ;
    if (i > 0)
        i--;
    /* Further out, our frames are wrappers the program never wrote
     * (the pthread_create start routine, main's wrapper): drop them. */
    for (j = k = i + 1; j < n; j++)
        if (!lp_unwind_is_self((uintptr_t)buf[j]))
            buf[k++] = buf[j];
    n = k < n ? k : n;
    if (n - i > lp_config.depth + 4)
        n = i + lp_config.depth + 4;
    id = lp_stack_intern((const uintptr_t *)(buf + i), n - i);
    if (known)
        *known = id;
    return id;
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
    lp_spin_lock(&idx.lock);
}

void lp_stack_unlock_all(void)
{
    unsigned i;

    lp_spin_unlock(&idx.lock);
    for (i = STACK_SHARDS; i-- > 0;)
        lp_spin_unlock(&shards[i].lock);
}

void lp_stack_atfork_child(void)
{
    unsigned i;

    for (i = 0; i < STACK_SHARDS; i++)
        shards[i].lock = 0;
    idx.lock = 0;
    region_lock = 0; /* only taken under a shard's lock, so free */
}
