/* SPDX-License-Identifier: MIT */
/*
 * contexts.c - every context's stack filtered as massif filters it and
 * the contexts sorted by frames, once per massif.out file (contexts.h).
 *
 * A Python run has some 170,000 contexts of ~27 frames: naming every
 * frame of every stack (a symbolizer hash lookup and a dozen string
 * compares each) and a merge sort whose comparisons walk two frame arrays
 * out of cache took most of the writer's time. Here each distinct return
 * address is named once and its verdict kept in an open-addressing table;
 * the sort looks at one frame per context per level, on a contiguous
 * array of (frame, id) pairs, radix-sorted on the bytes that differ.
 * Contexts with the same filtered frames may come out in any order: the
 * tree builder only adds their bytes.
 * Context: COLD (massif writer; guard held). Memory: libc malloc.
 */
#include "preload/massif/contexts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "preload/life/config.h"
#include "preload/hot/stack.h"
#include "report/symbolize.h"

/* An address's verdict (KNOWN marks a filled slot's value). */
enum {
    V_ALLOC = 1u,      /* in an allocation function */
    V_MAIN = 2u,       /* in main */
    V_BELOW_MAIN = 4u, /* in a function below main */
    V_KNOWN = 8u,
};

struct verdicts {
    struct lp_sym *sym;
    uintptr_t *keys; /* 0: an empty slot */
    uint8_t *vals;
    size_t mask, used;
};

/* Copies of the filtered frames that are not a run of a record's frames:
 * chunks, never moved, freed with the set. */
struct side {
    uintptr_t *chunk;
    size_t used, cap;
    uintptr_t **all; /* every chunk, to free */
    size_t nall, capall;
};

static uintptr_t *side_alloc(struct side *sd, size_t n)
{
    uintptr_t *p;

    if (sd->used + n > sd->cap) {
        size_t cap = n > 4096 ? n : 4096;

        if (sd->nall == sd->capall) {
            size_t c = sd->capall ? sd->capall * 2 : 16;
            uintptr_t **a = realloc(sd->all, c * sizeof(*a));

            if (!a)
                return NULL;
            sd->all = a;
            sd->capall = c;
        }
        if (!(sd->chunk = malloc(cap * sizeof(*sd->chunk))))
            return NULL;
        sd->all[sd->nall++] = sd->chunk;
        sd->used = 0;
        sd->cap = cap;
    }
    p = sd->chunk + sd->used;
    sd->used += n;
    return p;
}

/* The first k kept frames of s from index first on, skipping dropped
 * ones. */
static bool side_copy(struct side *sd, const struct lp_stack *s,
                      unsigned first, unsigned k, const uintptr_t **out)
{
    uintptr_t *p = side_alloc(sd, k);
    unsigned i, n = 0;

    if (!p)
        return false;
    for (i = first; i < s->nframes && n < k; i++)
        if (s->frames[i] != 0 && !lp_stack_is_self(s->frames[i]))
            p[n++] = s->frames[i];
    *out = p;
    return true;
}

/* Massif's default --alloc-fn list (FORMATS.md 1.5). */
static bool is_alloc_fn(const char *fn)
{
    static const char *const names[] = {
        "malloc", "calloc", "realloc", "memalign", "posix_memalign",
        "valloc", "__builtin_new", "__builtin_vec_new",
    };
    size_t i;

    if (!fn)
        return false;
    if (strncmp(fn, "operator new", 12) == 0)
        return true;
    for (i = 0; i < LP_ARRAY_SIZE(names); i++)
        if (strcmp(fn, names[i]) == 0)
            return true;
    return false;
}

/* The out-of-line function containing return address ip (a symbol table
 * lookup, no line table or inline expansion), judged. */
static unsigned judge(struct lp_sym *sym, uintptr_t ip)
{
    const char *fn = lp_sym_function(sym, ip, true);
    unsigned v = V_KNOWN;

    if (is_alloc_fn(fn))
        v |= V_ALLOC;
    switch (lp_sym_fn_kind(fn)) {
    case LP_FN_MAIN:
        v |= V_MAIN;
        break;
    case LP_FN_BELOW_MAIN:
        v |= V_BELOW_MAIN;
        break;
    default:
        break;
    }
    return v;
}

static bool verdicts_grow(struct verdicts *t)
{
    size_t cap = t->keys ? (t->mask + 1) * 2 : 4096, i;
    uintptr_t *keys = calloc(cap, sizeof(*keys));
    uint8_t *vals = malloc(cap);

    if (!keys || !vals) {
        free(keys);
        free(vals);
        return false;
    }
    for (i = 0; t->keys && i <= t->mask; i++) {
        size_t h;

        if (!t->keys[i])
            continue;
        h = lp_hash_addr(t->keys[i]) & (cap - 1);
        while (keys[h])
            h = (h + 1) & (cap - 1);
        keys[h] = t->keys[i];
        vals[h] = t->vals[i];
    }
    free(t->keys);
    free(t->vals);
    t->keys = keys;
    t->vals = vals;
    t->mask = cap - 1;
    return true;
}

static unsigned verdict(struct verdicts *t, uintptr_t ip)
{
    size_t h;
    unsigned v;

    if (ip == 0)
        return judge(t->sym, ip);
    if (t->keys) {
        for (h = lp_hash_addr(ip) & t->mask; t->keys[h]; h = (h + 1) & t->mask)
            if (t->keys[h] == ip)
                return t->vals[h];
    }
    v = judge(t->sym, ip);
    if ((t->used + 1) * 2 > (t->keys ? t->mask + 1 : 0) && !verdicts_grow(t))
        return v; /* right, only not remembered */
    for (h = lp_hash_addr(ip) & t->mask; t->keys[h]; h = (h + 1) & t->mask)
        ;
    t->keys[h] = ip;
    t->vals[h] = (uint8_t)v;
    t->used++;
    return v;
}

/* Filter stack s: its frames are (*out)[0..k), k returned. Usually they
 * are a run of the record's own frames (a few alloc functions dropped on
 * top, the rest cut at depth or below main) and *out points into the
 * record, which is never freed; only when a frame inside the kept run is
 * dropped (0, or our own library) are they copied to side storage. */
static unsigned filter_stack(struct verdicts *t, const struct lp_stack *s,
                             struct side *sd, const uintptr_t **out,
                             unsigned depth)
{
    unsigned i = 1, k = 0, below = 0, first;
    bool found_main = false, gap = false;

    *out = NULL;
    if (!s || s->nframes <= 1)
        return 0;
    while (i < s->nframes && (verdict(t, s->frames[i]) & V_ALLOC))
        i++;
    first = i;
    for (; i < s->nframes; i++) {
        uintptr_t ip = s->frames[i];
        unsigned v;

        if (ip == 0 || lp_stack_is_self(ip)) {
            if (k < depth && k > 0)
                gap = true; /* may lie inside the kept run */
            else if (k == 0)
                first = i + 1;
            continue;
        }
        k++;
        v = verdict(t, ip);
        if (v & V_MAIN) {
            found_main = true;
            break;
        }
        if ((v & V_BELOW_MAIN) && !below)
            below = k;
    }
    if (!found_main && below)
        k = below;
    if (k > depth)
        k = depth;
    if (!gap || k == 0) {
        *out = s->frames + first;
        return k;
    }
    return side_copy(sd, s, first, k, out) ? k : 0;
}

/* ------------------------------------------------------------------ */
/* Sorting: most significant frame first                               */

struct keyed {
    uintptr_t key; /* the frame at the level being sorted */
    uint32_t id;
};

struct sorter {
    const struct lp_snapshot_ctx *ctx; /* [id] */
    struct keyed *buf, *tmp;
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;

    return (x->key > y->key) - (x->key < y->key);
}

/* Sort a[0..n) by key, tmp as scratch: insertion sort when short, qsort
 * when middling, else an LSD radix sort over the bytes in which the keys
 * differ. */
static void sort_keyed(struct keyed *a, struct keyed *tmp, size_t n)
{
    uintptr_t diff = 0;
    struct keyed *src = a, *dst = tmp, *sw;
    size_t i, j;
    unsigned shift;

    if (n < 24) {
        for (i = 1; i < n; i++) {
            struct keyed x = a[i];

            for (j = i; j > 0 && a[j - 1].key > x.key; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    for (i = 1; i < n; i++)
        diff |= a[i].key ^ a[0].key;
    if (diff == 0)
        return;
    if (n < 512) {
        qsort(a, n, sizeof(*a), cmp_keyed);
        return;
    }
    for (shift = 0; shift < sizeof(uintptr_t) * 8; shift += 8) {
        size_t cnt[256] = { 0 }, sum = 0, c;

        if (!((diff >> shift) & 0xff))
            continue;
        for (i = 0; i < n; i++)
            cnt[(src[i].key >> shift) & 0xff]++;
        for (i = 0; i < 256; i++) {
            c = cnt[i];
            cnt[i] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            dst[cnt[(src[i].key >> shift) & 0xff]++] = src[i];
        sw = src;
        src = dst;
        dst = sw;
    }
    if (src != a)
        memcpy(a, src, n * sizeof(*a));
}

/* Sort ids ord[lo..hi), whose contexts share their first d frames, as
 * cmp_ctx orders them: shorter first, then by frame d, and so on. One
 * pass reads each context's length and frame d into buf; buf[lo..hi)
 * then stays aligned with ord[lo..hi), and a run's recursion uses only
 * its own part of buf and tmp, so the later runs' keys stay readable. */
static void sort_level(struct sorter *s, uint32_t *ord, size_t lo, size_t hi,
                       unsigned d)
{
    size_t m = lo, r = 0, i, j;

    for (i = lo; i < hi; i++) {
        uint32_t id = ord[i];
        const struct lp_snapshot_ctx *c = &s->ctx[id];

        if (c->nframes <= d) {
            ord[m++] = id; /* m <= i: ord[i] was read already */
        } else {
            s->buf[lo + r].key = c->frames[d];
            s->buf[lo + r].id = id;
            r++;
        }
    }
    if (r <= 1) {
        if (r == 1)
            ord[m] = s->buf[lo].id;
        return;
    }
    sort_keyed(s->buf + lo, s->tmp + lo, r);
    if (m != lo)
        memmove(s->buf + m, s->buf + lo, r * sizeof(*s->buf));
    for (i = m; i < hi; i++)
        ord[i] = s->buf[i].id;
    for (i = m; i < hi; i = j) {
        uintptr_t key = s->buf[i].key;

        for (j = i + 1; j < hi && s->buf[j].key == key; j++)
            ;
        if (j - i > 1)
            sort_level(s, ord, i, j, d + 1);
    }
}

/* ------------------------------------------------------------------ */

int lp_massif_contexts_sort(const struct lp_snapshot_ctx *ctx, uint32_t *ord,
                            size_t n)
{
    struct sorter so = { ctx, malloc(sizeof(*so.buf) * (n + 1)),
                         malloc(sizeof(*so.tmp) * (n + 1)) };
    int rc = -ENOMEM;

    if (so.buf && so.tmp) {
        sort_level(&so, ord, 0, n, 0);
        rc = 0;
    }
    free(so.buf);
    free(so.tmp);
    return rc;
}

void lp_massif_contexts_free(struct lp_massif_contexts *c)
{
    struct side *sd = c->side;
    size_t i;

    for (i = 0; sd && i < sd->nall; i++)
        free(sd->all[i]);
    if (sd)
        free(sd->all);
    free(sd);
    free(c->sorted);
    free(c->sorted_id);
    memset(c, 0, sizeof(*c));
}

int lp_massif_contexts_build(struct lp_massif_contexts *c,
                             struct lp_sym *sym, uint32_t nids)
{
    unsigned depth = lp_config.depth > 0 ? (unsigned)lp_config.depth : 30;
    struct verdicts t = { .sym = sym };
    struct lp_snapshot_ctx *ctx = NULL;
    size_t n = nids > 1 ? nids - 1 : 0, i;
    uint32_t id;
    int rc = -ENOMEM;

    memset(c, 0, sizeof(*c));
    c->nids = nids;
    c->side = calloc(1, sizeof(struct side));
    c->sorted = malloc(sizeof(*c->sorted) * (n + 1));
    c->sorted_id = malloc(sizeof(*c->sorted_id) * (n + 1));
    ctx = malloc(sizeof(*ctx) * (n + 1));
    if (!c->side || !c->sorted || !c->sorted_id || !ctx)
        goto out;
    /* ctx[id] (id 0 unused): the filtered frames of each stack. */
    ctx[0] = (struct lp_snapshot_ctx){ NULL, 0, 0 };
    for (id = 1; id < nids; id++) {
        const uintptr_t *f;
        unsigned k = filter_stack(&t, lp_stack_get(id), c->side, &f, depth);

        ctx[id] = (struct lp_snapshot_ctx){ f, k, 0 };
    }
    for (i = 0; i < n; i++)
        c->sorted_id[i] = (uint32_t)(i + 1);
    if (lp_massif_contexts_sort(ctx, c->sorted_id, n) != 0)
        goto out;
    for (i = 0; i < n; i++)
        c->sorted[i] = ctx[c->sorted_id[i]];
    rc = 0;
out:
    free(ctx);
    free(t.keys);
    free(t.vals);
    if (rc != 0)
        lp_massif_contexts_free(c);
    return rc;
}
