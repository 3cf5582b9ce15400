/* SPDX-License-Identifier: MIT */
/*
 * blocks.c - the scan's copy of the live blocks.
 *
 * One pass over the table's shards collects the addresses (8 bytes a
 * block), each tagged with its place in that pass; sort.c sorts them,
 * with the blocks' array (not yet filled) as its scratch, which gives
 * each block its rank; a second pass over the table, in the same order,
 * writes each block's size, stack and time (24 bytes) at its rank. Both
 * passes read the table's pages in order: looking each sorted address up
 * in the table instead cost a TLB and a cache miss a block, even with
 * the lookups prefetched (that is the fallback). Arrays of a few MiB ask
 * for huge pages: in a VM, the page faults of 4 KiB pages cost as much as
 * the scan's own work.
 * live_blocks 1000000 (875,000 blocks at exit), exit check (scan,
 * grouping, report): 400-660 ms with 48-byte blocks filled by lookups,
 * 145-260 ms so; its memory peak 47 MB above the running one, 41 MB so.
 * That is the live report's way (the table lives on). The exit's final
 * check drains the table instead (lp_scan_blocks_drain): one pass copies
 * address and block (32 bytes) while the table's pages (24 bytes a slot,
 * 34-69 a block) are given back, and the pairs are radix-sorted in place
 * (sort.c), so the check's peak is about the table's own size: the same
 * run, 132/145 ms (min/median of 9 interleaved runs, 134/197 before) and
 * a peak of 116-137 MB where it was 148-172.
 * Context: COLD (the leak scan: mmap only, see roots.c).
 */
#include "preload/scan/blocks.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/hot/table.h"
#include "preload/scan/sort.h"

#define PREFETCH_AHEAD 16
#define HUGE_FROM (4u << 20)

int lp_scan_buf_reserve(struct lp_scan_buf *b, size_t bytes)
{
    size_t len = (bytes + 4095) & ~(size_t)4095;
    void *p;

    if (len == 0)
        len = 4096;
    if (b->p && len <= b->len)
        return 0;
    if (b->p)
        p = mremap(b->p, b->len, len, MREMAP_MAYMOVE);
    else
        p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -ENOMEM;
    /* A page fault costs more than the scan's work on the 4 KiB it
     * brings in (a million blocks: tens of thousands of faults). */
    if (len >= HUGE_FROM)
        (void)madvise(p, len, MADV_HUGEPAGE);
    b->p = p;
    b->len = len;
    return 0;
}

void lp_scan_buf_free(struct lp_scan_buf *b)
{
    if (b->p)
        munmap(b->p, b->len);
    b->p = NULL;
    b->len = 0;
}

/* ind[] follows link[], aligned for its 8-byte fields. */
static size_t ind_offset(size_t n)
{
    return (n * sizeof(uint32_t) + 15) & ~(size_t)15;
}

static size_t links_bytes(size_t cap)
{
    return ind_offset(cap) + (cap / 2 + 2) * sizeof(struct lp_scan_ind);
}

int lp_scan_blocks_reserve(struct lp_scan_blocks *bb, size_t cap)
{
    size_t work = (2 * cap + 2 + cap / 2 + 2) * sizeof(uint32_t);

    if (lp_scan_buf_reserve(&bb->blocks,
                            cap * sizeof(struct lp_scan_block)) != 0 ||
        lp_scan_buf_reserve(&bb->keys, cap * sizeof(uintptr_t)) != 0 ||
        lp_scan_buf_reserve(&bb->work, work) != 0 ||
        lp_scan_buf_reserve(&bb->links, links_bytes(cap)) != 0)
        return -ENOMEM;
    return 0;
}

static size_t blocks_cap(const struct lp_scan_blocks *bb)
{
    size_t a = bb->blocks.len / sizeof(struct lp_scan_block);
    size_t b = bb->keys.len / sizeof(uintptr_t);

    return a < b ? a : b;
}

struct collect {
    uintptr_t *addrs;
    size_t n, cap;
};

static inline void copy_block(struct lp_scan_block *out,
                              const struct lp_block *blk)
{
    out->size = blk->size;
    out->time = blk->time;
    out->stack_id = blk->stack_id;
}

static void collect_addr(const struct lp_block *blk, void *arg)
{
    struct collect *c = arg;

    if (c->n < c->cap)
        c->addrs[c->n] = blk->addr;
    c->n++; /* counts past cap: the caller grows the arrays and retries */
}

/* Put the block at the j-th address in blocks[j], looked up in the table
 * (when the second walk cannot: see sort_with_rank and place_block). */
static void fill_in_order(const uintptr_t *addrs, struct lp_scan_block *b,
                          size_t n)
{
    size_t j;

    for (j = 0; j < n; j++) {
        struct lp_block blk;

        /* Each lookup is a cache miss in a table of tens of MB: start the
         * ones a few blocks ahead so that the misses overlap. */
        if (j + PREFETCH_AHEAD < n)
            lp_table_prefetch(addrs[j + PREFETCH_AHEAD]);
        memset(&b[j], 0, sizeof(b[j]));
        if (lp_table_find(addrs[j], &blk) == 0)
            copy_block(&b[j], &blk);
    }
}

static unsigned bit_len(uint64_t v)
{
    return v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
}

/*
 * Sort the n addresses in k (with t as scratch) and, when an address's
 * offset from the lowest one (in units of the alignment they all share)
 * fits in one word beside a block index, which it does unless the
 * addresses span most of the 64 bits, set rank[i] to the sorted position
 * of the i-th address collected. Returns whether rank[] was set.
 */
static bool sort_with_rank(uintptr_t *k, uintptr_t *t, uint32_t *rank,
                           size_t n)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0, diff = 0, mask;
    unsigned shift, ib;
    size_t i;

    for (i = 0; i < n; i++) {
        lo = k[i] < lo ? k[i] : lo;
        hi = k[i] > hi ? k[i] : hi;
    }
    for (i = 0; i < n; i++)
        diff |= k[i] - lo;
    shift = diff ? (unsigned)__builtin_ctzll(diff) : 0;
    ib = n > 1 ? bit_len(n - 1) : 1;
    if (n == 0 || n > UINT32_MAX || bit_len((hi - lo) >> shift) + ib > 64) {
        lp_scan_sort_addrs(k, t, n);
        return false;
    }
    mask = ((uintptr_t)1 << ib) - 1;
    for (i = 0; i < n; i++)
        k[i] = ((k[i] - lo) >> shift) << ib | i;
    lp_scan_sort_addrs(k, t, n);
    for (i = 0; i < n; i++) {
        rank[k[i] & mask] = (uint32_t)i;
        k[i] = lo + ((k[i] >> ib) << shift);
    }
    return true;
}

struct place {
    const uintptr_t *addrs;
    const uint32_t *rank;
    struct lp_scan_block *blocks;
    size_t i, n;
    bool mismatch;
};

/* The second walk meets the blocks in the first walk's order: the world is
 * stopped. A thread that never parked may still have changed the table:
 * then an address does not match and the caller looks the blocks up. */
static void place_block(const struct lp_block *blk, void *arg)
{
    struct place *p = arg;
    size_t j;

    if (p->i >= p->n) {
        p->mismatch = true;
        return;
    }
    j = p->rank[p->i++];
    if (p->addrs[j] != blk->addr) {
        p->mismatch = true;
        return;
    }
    copy_block(&p->blocks[j], blk);
}

/*
 * An address the table holds twice: its older entry went stale (that
 * block was freed behind our back, by code running under our guard, and
 * the address handed out again) and the newer one waits in a nursery,
 * whose flush to the shared table would have settled the stale one
 * (table.h). The newer block stands. Both arrays in address order;
 * returns how many blocks are left.
 */
static size_t drop_stale(uintptr_t *keys, struct lp_scan_block *b, size_t n)
{
    size_t i, m = 0;

    for (i = 0; i < n; i++) {
        if (m && keys[m - 1] == keys[i]) {
            if (b[i].time > b[m - 1].time)
                b[m - 1] = b[i];
            continue;
        }
        if (m != i) {
            keys[m] = keys[i];
            b[m] = b[i];
        }
        m++;
    }
    return m;
}

/* Point the core at the arrays, for n blocks in address order. */
static void point_core(const struct lp_scan_blocks *bb, struct lp_scan_core *c,
                       size_t n)
{
    c->addrs = bb->keys.p;
    c->blocks = bb->blocks.p;
    c->nblocks = n;
    c->link = bb->links.p;
    c->ind = (struct lp_scan_ind *)((char *)bb->links.p + ind_offset(n));
    c->stack = bb->work.p;
    c->stack_cap = 2 * n + 2;
    c->dir = c->stack + c->stack_cap;
    c->dir_cap = n / 2 + 2;
}

int lp_scan_blocks_collect(struct lp_scan_blocks *bb, struct lp_scan_core *c)
{
    struct place pl;
    uint32_t *rank;
    struct collect col;

    for (;;) {
        col = (struct collect){bb->keys.p, 0, blocks_cap(bb)};
        lp_table_for_each(collect_addr, &col);
        if (col.n <= col.cap)
            break;
        if (lp_scan_blocks_reserve(bb, col.n + 1024) != 0)
            return -ENOMEM;
    }
    /* The blocks' array is the sort's scratch: the fill overwrites it. */
    _Static_assert(sizeof(struct lp_scan_block) >= sizeof(uintptr_t),
                   "the sort's scratch fits in the blocks' array");
    rank = bb->work.p; /* before it is the mark stack */
    pl = (struct place){bb->keys.p, rank, bb->blocks.p, 0, col.n, false};
    if (sort_with_rank(bb->keys.p, bb->blocks.p, rank, col.n)) {
        /* Read the table front to back once more (its pages in order),
         * writing each block to its place. */
        lp_table_for_each(place_block, &pl);
    }
    if (pl.i != col.n || pl.mismatch)
        fill_in_order(bb->keys.p, bb->blocks.p, col.n);
    point_core(bb, c, drop_stale(bb->keys.p, bb->blocks.p, col.n));
    return 0;
}

struct drain {
    struct lp_scan_blocks *bb;
    size_t n, cap;
    bool failed; /* the arrays could not grow: blocks were lost */
};

/* Each block at the end of the arrays, in the table's order. */
static void drain_block(const struct lp_block *blk, void *arg)
{
    struct drain *d = arg;

    if (d->n == d->cap) {
        if (d->failed ||
            lp_scan_blocks_reserve(d->bb, d->cap + d->cap / 8 + 1024) != 0) {
            d->failed = true;
            return;
        }
        d->cap = blocks_cap(d->bb);
    }
    ((uintptr_t *)d->bb->keys.p)[d->n] = blk->addr;
    copy_block(&((struct lp_scan_block *)d->bb->blocks.p)[d->n], blk);
    d->n++;
}

int lp_scan_blocks_drain(struct lp_scan_blocks *bb, struct lp_scan_core *c)
{
    struct drain d = {bb, 0, 0, false};
    size_t want = lp_table_count() + 1024;

    /* Exact now that the world is stopped (a straggler may add a few). */
    if (want > blocks_cap(bb) && lp_scan_blocks_reserve(bb, want) != 0)
        return -ENOMEM;
    d.cap = blocks_cap(bb);
    lp_table_drain(drain_block, &d);
    if (d.failed || d.n > UINT32_MAX)
        return -ENOMEM;
    /* In place: no scratch, so nothing more is touched than the copy. */
    lp_scan_sort_pairs(bb->keys.p, bb->blocks.p, d.n);
    point_core(bb, c, drop_stale(bb->keys.p, bb->blocks.p, d.n));
    return 0;
}

void lp_scan_blocks_free(struct lp_scan_blocks *bb)
{
    lp_scan_buf_free(&bb->blocks);
    lp_scan_buf_free(&bb->keys);
    lp_scan_buf_free(&bb->work);
    lp_scan_buf_free(&bb->links);
}
