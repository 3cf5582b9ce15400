/* SPDX-License-Identifier: MIT */
/*
 * massif_live.c - the contexts of massif's detailed snapshots: the
 * maybe-live bitmap's missing chunks and the walk that collects the
 * contexts holding bytes; the marks of changed contexts, and the
 * incremental capture that merges them into the capture before.
 *
 * Each allocation sets its stack's bit (massif_live.h: a load, and a
 * store only when the bit was clear); the walk visits set bits only and
 * clears the bits of contexts it finds empty, so it is proportional to
 * the contexts that are live, not to every stack ever seen (python3 has
 * hundreds of thousands). In a threaded program the allocation's
 * lock-prefixed add to its stack counter and the walk's atomic clear are
 * both full barriers, so a context that turns live while its bit is
 * cleared is seen by one side or the other. The dumper thread's walk (a
 * live dump in a single-threaded program, where the program's stores are
 * plain) only reads the bitmap.
 * Context: HOT (the slow mark, from an allocation); the walk runs under
 * the snapshot lock, from an allocation or the dumper.
 * Memory: lp_arena for the bitmap's chunks, never freed.
 */
#include "preload/hot/massif_live.h"

#include <string.h>

#include "preload/hot/arena.h"
#include "preload/hot/stack_count.h"

uint64_t *lp_massif_live_dir[LP_LIVE_DIR_SIZE];
/* A context the bitmap could not mark: walks visit every context. */
static bool live_overflow;
uint64_t *lp_massif_dirty_dir[LP_LIVE_DIR_SIZE];
/* A change the bitmap could not mark: captures are never incremental. */
static bool dirty_overflow;

void lp_massif_mark_live_slow(uint32_t id)
{
    uint64_t *chunk = NULL, *expect = NULL;
    uint32_t d = id >> LP_LIVE_CHUNK_BITS;

    if (d >= LP_LIVE_DIR_SIZE ||
        !(chunk = lp_arena_alloc(LP_LIVE_CHUNK_WORDS * sizeof(uint64_t)))) {
        lp_store_relaxed(&live_overflow, true);
        return;
    }
    if (!lp_cas(&lp_massif_live_dir[d], &expect, chunk)) {
        lp_arena_free(chunk, LP_LIVE_CHUNK_WORDS * sizeof(uint64_t));
        chunk = expect;
    }
    __atomic_fetch_or(&chunk[(id & ((1u << LP_LIVE_CHUNK_BITS) - 1)) >> 6],
                      1ull << (id & 63), __ATOMIC_SEQ_CST);
}

/* Judge a batch of candidate contexts (their records prefetched while
 * the batch was gathered): append the live ones to out, clear the bits
 * of the empty ones when allowed. Returns false when out is full. */
struct batch {
    uint32_t id[64];
    uint64_t *word[64];
    const struct lp_stack *st[64]; /* looked up once, when prefetched */
    unsigned n;
};

static uint64_t rec_bytes(const struct lp_stack *st)
{
    return st ? lp_stack_live_bytes(st) : 0;
}

static bool judge_batch(struct batch *b, struct lp_snapshot_ent *out,
                        size_t cap, size_t *n, bool may_clear, bool threaded)
{
    unsigned i;
    size_t m = *n; /* out[] stores cannot change it: kept in a register */

    for (i = 0; i < b->n; i++) {
        uint32_t id = b->id[i];
        uint64_t *w = b->word[i], bit = 1ull << (id & 63);
        uint64_t bytes = rec_bytes(b->st[i]);

        /* A site some thread still counts in its cache stays
         * (stack_count.h): its next event will not set the bit. */
        if (w && !bytes && may_clear &&
            !(threaded && lp_stack_local_holds(id))) {
            if (threaded) {
                __atomic_fetch_and(w, ~bit, __ATOMIC_SEQ_CST);
                bytes = rec_bytes(b->st[i]);
                if (bytes || lp_stack_local_holds(id))
                    __atomic_fetch_or(w, bit, __ATOMIC_SEQ_CST);
            } else {
                lp_store_relaxed(w, lp_load_relaxed(w) & ~bit);
            }
        }
        if (!bytes)
            continue;
        if (m == cap) {
            *n = m;
            return false;
        }
        out[m].id = id;
        out[m].bytes = bytes;
        m++;
    }
    *n = m;
    b->n = 0;
    return true;
}

static void batch_add(struct batch *b, uint32_t id, uint64_t *word)
{
    const struct lp_stack *st = lp_stack_get(id);

    if (st)
        __builtin_prefetch(&st->live_bytes);
    b->st[b->n] = st;
    b->id[b->n] = id;
    b->word[b->n++] = word;
}

/* Collect the live contexts with ids 1..nstacks into out[0..cap), ids
 * ascending. may_clear: drop the bits of empty contexts. Returns the
 * count, or -1 when more than cap are live. The bitmap is read a word at
 * a time and the stack records of a batch of 64 candidates are
 * prefetched together: the walk waits for one round of cache misses per
 * batch, not one per context. */
long lp_massif_collect_live(uint32_t nstacks, bool may_clear,
                            struct lp_snapshot_ent *out, size_t cap)
{
    bool threaded = lp_load_relaxed(&lp_threaded);
    uint32_t d, nd = (nstacks >> LP_LIVE_CHUNK_BITS) + 1, id;
    struct batch b;
    size_t n = 0;

    b.n = 0;
    if (lp_load_relaxed(&live_overflow)) {
        for (id = 1; id <= nstacks; id++) {
            batch_add(&b, id, NULL);
            if (b.n == 64 && !judge_batch(&b, out, cap, &n, false, threaded))
                return -1;
        }
        return judge_batch(&b, out, cap, &n, false, threaded) ? (long)n : -1;
    }
    if (nd > LP_LIVE_DIR_SIZE)
        nd = LP_LIVE_DIR_SIZE;
    for (d = 0; d < nd; d++) {
        uint64_t *chunk = lp_load_acquire(&lp_massif_live_dir[d]);
        unsigned wi;

        if (!chunk)
            continue;
        for (wi = 0; wi < LP_LIVE_CHUNK_WORDS; wi++) {
            uint64_t w = lp_load_relaxed(&chunk[wi]);

            while (w) {
                unsigned bi = (unsigned)__builtin_ctzll(w);

                w &= w - 1;
                id = (d << LP_LIVE_CHUNK_BITS) | (wi << 6) | bi;
                if (id == 0 || id > nstacks)
                    continue;
                batch_add(&b, id, &chunk[wi]);
                if (b.n == 64 &&
                    !judge_batch(&b, out, cap, &n, may_clear, threaded))
                    return -1;
            }
        }
    }
    return judge_batch(&b, out, cap, &n, may_clear, threaded) ? (long)n : -1;
}

/* ---- contexts changed since the last capture ------------------------ */

void lp_massif_mark_dirty_slow(uint32_t id)
{
    uint64_t *chunk;
    uint32_t d = id >> LP_LIVE_CHUNK_BITS;

    if (d >= LP_LIVE_DIR_SIZE ||
        !(chunk = lp_arena_alloc(LP_LIVE_CHUNK_WORDS * sizeof(uint64_t)))) {
        lp_store_relaxed(&dirty_overflow, true);
        return;
    }
    /* Single-threaded: no other writer of the directory. */
    lp_store_release(&lp_massif_dirty_dir[d], chunk);
    chunk[(id & ((1u << LP_LIVE_CHUNK_BITS) - 1)) >> 6] |= 1ull << (id & 63);
}

bool lp_massif_dirty_complete(void)
{
    return !lp_load_relaxed(&dirty_overflow);
}

/* Word wi of a chunk d with the bits of ids above nstacks (and id 0)
 * masked off. */
static uint64_t dirty_word(const uint64_t *chunk, uint32_t d, unsigned wi,
                           uint32_t nstacks)
{
    uint32_t first = (d << LP_LIVE_CHUNK_BITS) | (wi << 6);
    uint64_t w = chunk[wi];

    if (first == 0)
        w &= ~(uint64_t)1;
    if (first + 63 > nstacks)
        w &= first > nstacks ? 0 : ~(uint64_t)0 >> (63 - (nstacks - first));
    return w;
}

size_t lp_massif_dirty_count(uint32_t nstacks)
{
    uint32_t d, nd = (nstacks >> LP_LIVE_CHUNK_BITS) + 1;
    size_t n = 0;
    unsigned wi;

    if (nd > LP_LIVE_DIR_SIZE)
        nd = LP_LIVE_DIR_SIZE;
    for (d = 0; d < nd; d++) {
        const uint64_t *chunk = lp_massif_dirty_dir[d];

        if (chunk)
            for (wi = 0; wi < LP_LIVE_CHUNK_WORDS; wi++)
                n += (size_t)__builtin_popcountll(dirty_word(chunk, d, wi, nstacks));
    }
    return n;
}

/* The bytes of a batch of marked contexts (records prefetched), into out;
 * an empty one leaves the live bitmap. */
static size_t dirty_batch(struct batch *b, struct lp_snapshot_ent *out)
{
    unsigned i;

    for (i = 0; i < b->n; i++) {
        uint32_t id = b->id[i];

        out[i].id = id;
        out[i].bytes = rec_bytes(b->st[i]);
        if (!out[i].bytes) {
            uint64_t *w = lp_massif_live_word(id);

            if (w)
                lp_store_relaxed(w, lp_load_relaxed(w) & ~(1ull << (id & 63)));
        }
    }
    i = b->n;
    b->n = 0;
    return i;
}

size_t lp_massif_collect_dirty(uint32_t nstacks, struct lp_snapshot_ent *out)
{
    uint32_t d, nd = (nstacks >> LP_LIVE_CHUNK_BITS) + 1;
    struct batch b;
    size_t n = 0;
    unsigned wi;

    b.n = 0;
    if (nd > LP_LIVE_DIR_SIZE)
        nd = LP_LIVE_DIR_SIZE;
    for (d = 0; d < nd; d++) {
        uint64_t *chunk = lp_massif_dirty_dir[d];

        if (!chunk)
            continue;
        for (wi = 0; wi < LP_LIVE_CHUNK_WORDS; wi++) {
            uint64_t w = dirty_word(chunk, d, wi, nstacks);

            chunk[wi] &= ~w;
            while (w) {
                unsigned bi = (unsigned)__builtin_ctzll(w);

                w &= w - 1;
                batch_add(&b, (d << LP_LIVE_CHUNK_BITS) | (wi << 6) | bi, NULL);
                if (b.n == 64)
                    n += dirty_batch(&b, out + n);
            }
        }
    }
    return n + dirty_batch(&b, out + n);
}

void lp_massif_forget_dirty(void)
{
    uint32_t d;

    for (d = 0; d < LP_LIVE_DIR_SIZE; d++)
        if (lp_massif_dirty_dir[d])
            memset(lp_massif_dirty_dir[d], 0,
                   LP_LIVE_CHUNK_WORDS * sizeof(uint64_t));
}

/* ---- incremental captures ------------------------------------------ */

/*
 * In a single-threaded program the last capture's contexts (base, arena
 * memory: glibc's heap keeps the pattern massif_count.c's captures always
 * gave it) stand for every context not marked since, so a capture reads
 * the records of the marked ones only and merges (python3: 1,360
 * captures, 2.6M contexts, 72 ms in the captures; a tenth of the contexts
 * had changed from one to the next). valid: base is the previous
 * capture's, and no change since went unmarked.
 */
static struct {
    struct lp_snapshot_ent *base, *next, *dirty;
    size_t nbase, base_cap, next_cap, dirty_cap;
    bool valid;
    unsigned long count; /* incremental captures so far (tests) */
} inc;

unsigned long lp_massif_incremental_captures(void)
{
    return inc.count;
}

/* An arena array of at least n entries in *p (of *cap); its contents are
 * not kept. */
static bool reserve(struct lp_snapshot_ent **p, size_t *cap, size_t n)
{
    size_t c = *cap ? *cap : 1024;
    struct lp_snapshot_ent *q;

    if (n <= *cap)
        return true;
    while (c < n)
        c *= 2;
    q = lp_arena_alloc(c * sizeof(*q));
    if (!q)
        return false;
    /* The n entries about to be written: their pages in one call, not a
     * trap each (1,060 of them in a python3 run). */
    lp_populate(q, n * sizeof(*q));
    if (*p)
        lp_arena_free(*p, *cap * sizeof(**p));
    *p = q;
    *cap = c;
    return true;
}

/* base merged with the marked contexts d (their bytes now, ids
 * ascending) into out: d's entries replace base's, empty ones dropped. */
static size_t merge(const struct lp_snapshot_ent *base, size_t nb,
                    const struct lp_snapshot_ent *d, size_t nd,
                    struct lp_snapshot_ent *out)
{
    size_t i = 0, j = 0, n = 0;

    while (j < nd) {
        uint32_t id = d[j].id;

        while (i < nb && base[i].id < id)
            out[n++] = base[i++];
        if (i < nb && base[i].id == id)
            i++;
        if (d[j].bytes)
            out[n++] = d[j];
        j++;
    }
    while (i < nb)
        out[n++] = base[i++];
    return n;
}

bool lp_massif_inc_ready(uint32_t nstacks)
{
    return inc.valid && lp_massif_dirty_complete() &&
           reserve(&inc.dirty, &inc.dirty_cap, lp_massif_dirty_count(nstacks)) &&
           reserve(&inc.next, &inc.next_cap, inc.nbase + inc.dirty_cap);
}

size_t lp_massif_inc_collect(uint32_t nstacks, const struct lp_snapshot_ent **out)
{
    /* dirty_cap: at least the marked count, which needs no second pass. */
    size_t nd = lp_massif_collect_dirty(nstacks, inc.dirty);
    size_t m = merge(inc.base, inc.nbase, inc.dirty, nd, inc.next);
    struct lp_snapshot_ent *t = inc.base;
    size_t cap = inc.base_cap;

    /* The merge is the new base. */
    inc.base = inc.next;
    inc.next = t;
    inc.base_cap = inc.next_cap;
    inc.next_cap = cap;
    inc.nbase = m;
    inc.count++;
    *out = inc.base;
    return m;
}

void lp_massif_inc_keep(const struct lp_snapshot_ent *e, size_t n)
{
    lp_massif_forget_dirty(); /* every context was just read */
    inc.valid = reserve(&inc.base, &inc.base_cap, n);
    if (inc.valid) {
        if (n)
            memcpy(inc.base, e, n * sizeof(*e));
        inc.nbase = n;
    }
}

void lp_massif_inc_drop(void)
{
    inc.valid = false;
}
