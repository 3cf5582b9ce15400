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

/* ------------------------------------------------------------------ */
/* Sorting: most significant frame first                               */

struct keyed {
    uintptr_t key; /* the frame at the level being sorted */
    uint32_t id;
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


/* ------------------------------------------------------------------ */
/* Each context's filtered frames, one at a time                       */

/* How far a context's filter has gone: its next frame is found from
 * frames[next] on, kept frames were handed out so far. */
enum {
    C_STARTED = 1u, /* the allocation functions on top are skipped */
    C_END = 2u,     /* no more frames */
    C_BELOW = 4u,   /* a below-main function was kept (main follows) */
};

struct cursor {
    uint32_t next;
    uint16_t kept;
    uint8_t flags;
};

struct ctxs {
    struct verdicts t;
    unsigned depth;
    struct cursor *cur; /* [nids] */
    struct keyed *buf, *tmp; /* [nids] scratch for order() */
};

static bool dropped(uintptr_t ip)
{
    return ip == 0 || lp_stack_is_self(ip);
}

/* Is there a kept frame in main from frames[i] on? */
static bool main_follows(struct verdicts *t, const struct lp_stack *s,
                         unsigned i)
{
    for (; i < s->nframes; i++)
        if (!dropped(s->frames[i]) && (verdict(t, s->frames[i]) & V_MAIN))
            return true;
    return false;
}

/* The next kept frame of stack s into *ip, as massif's filter keeps
 * them: past the allocation functions on top, without zero frames and
 * our own library's, at most depth of them, ending with main when main
 * is there, else with the first below-main function, else where the
 * stack ends. false when the context has no more frames. */
static bool cursor_step(struct ctxs *x, struct cursor *cu,
                        const struct lp_stack *s, uintptr_t *ip)
{
    unsigned i;
    unsigned v;

    if (cu->flags & C_END)
        return false;
    if (!(cu->flags & C_STARTED)) {
        cu->flags |= C_STARTED;
        if (!s || s->nframes <= 1)
            goto end;
        for (i = 1; i < s->nframes && (verdict(&x->t, s->frames[i]) & V_ALLOC);
             i++)
            ;
        cu->next = i;
    }
    if (cu->kept >= x->depth)
        goto end;
    for (i = cu->next; i < s->nframes && dropped(s->frames[i]); i++)
        ;
    if (i >= s->nframes)
        goto end;
    *ip = s->frames[i];
    cu->next = i + 1;
    cu->kept++;
    v = verdict(&x->t, *ip);
    if (v & V_MAIN) {
        cu->flags |= C_END; /* main is the last frame */
    } else if ((v & V_BELOW_MAIN) && !(cu->flags & C_BELOW)) {
        cu->flags |= C_BELOW;
        if (!main_follows(&x->t, s, i + 1))
            cu->flags |= C_END; /* no main: cut below it */
    }
    return true;
end:
    cu->flags |= C_END;
    return false;
}

/* Frame d of context id (the index asks for each depth in turn; any
 * other order starts the context's filter over). */
static bool frame_at(struct ctxs *x, uint32_t id, unsigned d, uintptr_t *ip)
{
    struct cursor *cu = &x->cur[id];
    const struct lp_stack *s = lp_stack_get(id);

    if (cu->kept != d) {
        memset(cu, 0, sizeof(*cu));
        while (cu->kept < d)
            if (!cursor_step(x, cu, s, ip))
                return false;
    }
    return cursor_step(x, cu, s, ip);
}

/* Ask for the memory frame_at() will read for a context a few places
 * ahead: its stack record's header and the frame its filter reads next
 * (the records of 170,000 Python contexts take 48 MB, read in an order
 * unrelated to where they lie). */
#define PREFETCH 24

static void prefetch_ctx(const struct ctxs *x, uint32_t id, uint32_t nids)
{
    const struct lp_stack *s = id < nids ? lp_stack_get(id) : NULL;
    const struct cursor *cu = &x->cur[id < nids ? id : 0];

    if (!s)
        return;
    __builtin_prefetch(s);
    __builtin_prefetch(&s->frames[cu->flags & C_STARTED ? cu->next : 1]);
}

/* ------------------------------------------------------------------ */

size_t lp_massif_contexts_order(void *ctx, uint32_t *ids, uintptr_t *key,
                                size_t n, unsigned d)
{
    struct lp_massif_contexts *c = ctx;
    struct ctxs *x = c->priv;
    size_t m = 0, r = 0, i;

    for (i = 0; i < n; i++) {
        uint32_t id = ids[i];
        uintptr_t ip = 0;

        if (i + PREFETCH < n)
            prefetch_ctx(x, ids[i + PREFETCH], c->nids);
        if (id >= c->nids || !frame_at(x, id, d, &ip)) {
            ids[m++] = id; /* m <= i: ids[i] was read already */
        } else {
            x->buf[r].key = ip;
            x->buf[r].id = id;
            r++;
        }
    }
    sort_keyed(x->buf, x->tmp, r);
    for (i = 0; i < r; i++) {
        ids[m + i] = x->buf[i].id;
        key[m + i] = x->buf[i].key;
    }
    return m;
}

void lp_massif_contexts_free(struct lp_massif_contexts *c)
{
    struct ctxs *x = c->priv;

    if (x) {
        free(x->t.keys);
        free(x->t.vals);
        free(x->cur);
        free(x->buf);
        free(x->tmp);
        free(x);
    }
    free(c->ids);
    memset(c, 0, sizeof(*c));
}

int lp_massif_contexts_init(struct lp_massif_contexts *c, struct lp_sym *sym,
                            uint32_t nids)
{
    struct ctxs *x;
    size_t n = nids > 1 ? nids - 1 : 0, i;

    memset(c, 0, sizeof(*c));
    c->nids = nids;
    c->priv = x = calloc(1, sizeof(*x));
    c->ids = malloc(sizeof(*c->ids) * (n + 1));
    if (!x || !c->ids ||
        !(x->cur = calloc((size_t)nids + 1, sizeof(*x->cur))) ||
        !(x->buf = malloc(sizeof(*x->buf) * (n + 1))) ||
        !(x->tmp = malloc(sizeof(*x->tmp) * (n + 1)))) {
        lp_massif_contexts_free(c);
        return -ENOMEM;
    }
    x->t.sym = sym;
    x->depth = lp_config.depth > 0 ? (unsigned)lp_config.depth : 30;
    for (i = 0; i < n; i++)
        c->ids[i] = (uint32_t)(i + 1);
    return 0;
}
