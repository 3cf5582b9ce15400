/* SPDX-License-Identifier: MIT */
/*
 * loss_group.c - group the scan's blocks into loss records.
 *
 * A hash map from (kind, context) to record, filled in one pass over the
 * blocks, then the records (few: one per site and kind) sorted. The
 * context is the stack's first depth frames (loss_context.h), as
 * Memcheck's records are kept by the frames it recorded. Memory is
 * in records, not in blocks: sorting pointers to a million blocks took two
 * 8-byte arrays a block (glibc's merge sort copies) and a worst-case
 * record array of one 88-byte record a block (77 MB of address space at
 * 875,000 blocks).
 * Context: COLD.
 */
#include "preload/scan/loss_group.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* No exit on a failed allocation: the record goes without its stack. */
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) \
    do { \
        (void)(obj); \
        kept_oom = true; \
    } while (0)
#include <uthash.h>

#include "preload/hot/stack.h"
#include "preload/hot/table.h"
#include "preload/life/config.h"
#include "preload/scan/loss_context.h"

struct map {
    uint32_t *slot; /* record index + 1; 0 empty */
    size_t mask;
};

static inline size_t hash_key(unsigned kind, uint32_t stack_id)
{
    uint64_t k = ((uint64_t)stack_id << 8 | kind) * 0x9e3779b97f4a7c15ull;

    return (size_t)(k ^ k >> 29);
}

/*
 * A record's ips (report/leaks.h): its stack's frames as words. Stack
 * records keep them packed (stack.h), so each context a report shows is
 * unpacked once into an array kept for the process's life: records
 * outlive one report (live reports keep the previous one's) and a later
 * report shows mostly the same contexts. Under the leak check's lock.
 */
struct kept {
    uint32_t id;
    UT_hash_handle hh;
    uintptr_t ips[];
};
static struct kept *kept;
static bool kept_oom; /* uthash could not add the last one */

static const uintptr_t *frames_kept(const struct lp_stack *st)
{
    struct kept *k;

    HASH_FIND(hh, kept, &st->id, sizeof(st->id), k);
    if (k)
        return k->ips;
    k = malloc(sizeof(*k) + sizeof(k->ips[0]) * st->nframes);
    if (!k)
        return NULL;
    k->id = st->id;
    lp_stack_frames(st, k->ips);
    HASH_ADD(hh, kept, id, sizeof(k->id), k);
    if (kept_oom) {
        kept_oom = false;
        free(k);
        return NULL;
    }
    return k->ips;
}

/* The slot for (kind, stack id): its record's, or the empty one. */
static size_t probe(const struct map *m, const struct lp_loss_record *recs,
                    unsigned kind, uint32_t stack_id)
{
    size_t i = hash_key(kind, stack_id) & m->mask;

    while (m->slot[i]) {
        const struct lp_loss_record *r = &recs[m->slot[i] - 1];

        if (r->kind == kind && r->stack_id == stack_id)
            break;
        i = (i + 1) & m->mask;
    }
    return i;
}

/*
 * leak_resolution=low|med (Memcheck's --leak-resolution): blocks whose
 * stacks agree on their first res frames (2 or 4) share a record, shown
 * with the stack of the first of them in address order, as Memcheck's
 * record keeps the context of the first block it met. 0: all frames.
 */
static unsigned res;

/* probe() at a resolution: the slot of (kind, stack_id's first res
 * frames). */
static size_t probe_res(const struct map *m, const struct lp_loss_record *recs,
                        unsigned kind, uint32_t stack_id)
{
    const struct lp_stack *s = lp_stack_get(stack_id);
    size_t i;

    if (s == NULL)
        return probe(m, recs, kind, stack_id);
    i = hash_key(kind, (uint32_t)lp_stack_prefix_hash(s, res)) & m->mask;
    while (m->slot[i]) {
        const struct lp_loss_record *r = &recs[m->slot[i] - 1];
        const struct lp_stack *rs = lp_stack_get(r->stack_id);

        if (r->kind == kind &&
            (rs ? lp_stack_same_prefix(rs, s, res) : r->stack_id == stack_id))
            break;
        i = (i + 1) & m->mask;
    }
    return i;
}

static size_t find_slot(const struct map *m, const struct lp_loss_record *recs,
                        unsigned kind, uint32_t stack_id)
{
    return res ? probe_res(m, recs, kind, stack_id)
               : probe(m, recs, kind, stack_id);
}

static bool map_grow(struct map *m, const struct lp_loss_record *recs,
                     size_t nrecs)
{
    struct map g = { .mask = m->mask ? m->mask * 2 + 1 : 255 };
    size_t i;

    g.slot = calloc(g.mask + 1, sizeof(*g.slot));
    if (!g.slot)
        return false;
    for (i = 0; i < nrecs; i++)
        g.slot[find_slot(&g, recs, recs[i].kind, recs[i].stack_id)] = (uint32_t)(i + 1);
    free(m->slot);
    *m = g;
    return true;
}

static const struct lp_loss_record *sort_base;

static int cmp_rec(const void *a, const void *b)
{
    const struct lp_loss_record *x = &sort_base[*(const uint32_t *)a];
    const struct lp_loss_record *y = &sort_base[*(const uint32_t *)b];

    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->stack_id != y->stack_id)
        return x->stack_id < y->stack_id ? -1 : 1;
    return 0;
}

/* Sort recs[0..n) by (kind, stack id) and renumber rec_of to match. */
static struct lp_loss_record *sort_records(struct lp_loss_record *recs,
                                           size_t n, uint32_t *rec_of,
                                           size_t nblocks)
{
    uint32_t *order = malloc(sizeof(*order) * (n + 1));
    uint32_t *pos = malloc(sizeof(*pos) * (n + 1));
    struct lp_loss_record *out = malloc(sizeof(*out) * (n + 1));
    size_t i;

    if (!order || !pos || !out) {
        free(order);
        free(pos);
        free(out);
        free(recs);
        return NULL;
    }
    for (i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    sort_base = recs; /* the report runs under the leak check's lock */
    qsort(order, n, sizeof(*order), cmp_rec);
    for (i = 0; i < n; i++) {
        out[i] = recs[order[i]];
        pos[order[i]] = (uint32_t)i;
    }
    for (i = 0; i < nblocks; i++)
        if (rec_of[i] != LP_LOSS_NO_REC)
            rec_of[i] = pos[rec_of[i]];
    free(order);
    free(pos);
    free(recs);
    return out;
}

struct lp_loss_record *lp_loss_group(const struct lp_scan *sc, size_t *nrecs,
                                     uint32_t *rec_of, bool only_gen,
                                     uint16_t gen, struct lp_sym *sym)
{
    struct lp_loss_record *recs = NULL;
    struct map m = {0};
    size_t i, n = 0, cap = 0;

    res = lp_config.leak_resolution < lp_config.depth
              ? (unsigned)lp_config.leak_resolution : 0;

    for (i = 0; i < sc->nblocks; i++) {
        const struct lp_scan_block *b = &sc->blocks[i];
        uint64_t time = b->time & ((1ull << LP_BLOCK_TIME_BITS) - 1);
        struct lp_loss_record *r;
        uint32_t ctx;
        size_t s;

        if (only_gen && (uint16_t)(b->time >> LP_BLOCK_TIME_BITS) != gen) {
            rec_of[i] = LP_LOSS_NO_REC;
            continue;
        }
        if ((n + 1) * 2 > m.mask + 1 && !map_grow(&m, recs, n))
            goto fail;
        ctx = lp_loss_context(b->stack_id, (unsigned)lp_config.depth, sym);
        s = find_slot(&m, recs, b->kind, ctx);
        if (!m.slot[s]) {
            struct lp_stack *st = lp_stack_get(ctx);

            if (n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                struct lp_loss_record *g = realloc(recs, nc * sizeof(*g));

                if (!g)
                    goto fail;
                recs = g;
                cap = nc;
            }
            r = &recs[n];
            memset(r, 0, sizeof(*r));
            r->kind = b->kind;
            r->stack_id = ctx;
            r->ips = st ? frames_kept(st) : NULL;
            r->nips = r->ips ? st->nframes : 0;
            r->supp = -1;
            m.slot[s] = (uint32_t)++n;
        }
        r = &recs[m.slot[s] - 1];
        if (r->blocks == 0 || time < r->first_time)
            r->first_time = time;
        if (time > r->last_time)
            r->last_time = time;
        r->bytes += b->size;
        r->blocks++;
        if (b->kind == LP_KIND_DEFINITE) {
            r->indirect_bytes += lp_scan_indirect_bytes(sc, i);
            r->indirect_blocks += lp_scan_indirect_blocks(sc, i);
        }
        rec_of[i] = m.slot[s] - 1;
    }
    free(m.slot);
    *nrecs = n;
    if (n == 0) {
        free(recs);
        return calloc(1, sizeof(*recs)); /* non-NULL: "no records" */
    }
    return sort_records(recs, n, rec_of, sc->nblocks);
fail:
    free(m.slot);
    free(recs);
    return NULL;
}
