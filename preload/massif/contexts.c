/* SPDX-License-Identifier: MIT */
/*
 * contexts.c - the contexts of a massif.out file for the writer's lazy
 * tree index: each stack filtered as massif filters it, one frame at a
 * time, and a node's contexts sorted by their next frame (contexts.h).
 *
 * A Python run has some 170,000 contexts of ~30 frames, and ~20 trees
 * whose significant nodes reach a few hundred of the ~170,000 nodes a
 * full sort separates: filtering every frame of every stack and sorting
 * them all down to single contexts took most of the writer's time
 * (13.8% of the run). Here a context's filter advances one kept frame per
 * depth at which the index looks at it (460,000 steps in that run, 170,000
 * of them at the root), each distinct return address is named once and
 * its verdict kept in an open-addressing table, and a node's contexts
 * are sorted as (frame, id) pairs: counted by frame when the frames are
 * few (as they are), else radix-sorted on the bytes that differ.
 * Contexts with the same filtered frames may come out in any order: the
 * tree builder only adds their bytes.
 * Context: COLD (massif writer; guard held). Memory: libc malloc (at
 * exit mostly memory the program freed, already faulted in: fresh
 * mappings cost more, page faults at 11 us a page in a VM, or the
 * clearing of huge pages).
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
    V_START = 16u,     /* in _start */
};

struct verdicts {
    struct lp_sym *sym;
    uintptr_t *keys; /* 0: an empty slot */
    uint8_t *vals;
    size_t mask, used;
};

/* Massif's default --alloc-fn list (FORMATS.md 1.5), and the names given
 * with alloc_fn= (compared whole, as Massif does: no patterns). */
static bool is_alloc_fn(const char *fn)
{
    static const char *const names[] = {
        "malloc", "calloc", "realloc", "memalign", "posix_memalign",
        "valloc", "__builtin_new", "__builtin_vec_new",
    };
    size_t i;

    if (!fn)
        return false;
    if (strncmp(fn, "operator new", 12) == 0 ||
        lp_config_is_alloc_fn(&lp_config, fn))
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
    if (fn != NULL && strcmp(fn, "_start") == 0)
        v |= V_START;
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
    size_t cap = t->keys ? (t->mask + 1) * 2 : 256, i;
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
    uint32_t st; /* contexts: the filter's state (struct cursor packed) */
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;

    return (x->key > y->key) - (x->key < y->key);
}

/* Sort a[0..n) by key, tmp as scratch: insertion sort when short, qsort
 * when middling, else an LSD radix sort over the bytes in which the keys
 * differ, from bit low up (the bits below it left in input order: a
 * coarser order, when that is all the caller needs). */
static void sort_keyed(struct keyed *a, struct keyed *tmp, size_t n,
                       unsigned low)
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
    diff >>= low;
    if (diff == 0)
        return;
    if (n < 512) {
        qsort(a, n, sizeof(*a), cmp_keyed);
        return;
    }
    for (shift = 0; shift < sizeof(uintptr_t) * 8 - low; shift += 8) {
        size_t cnt[256] = { 0 }, sum = 0, c;

        if (!((diff >> shift) & 0xff))
            continue;
        for (i = 0; i < n; i++)
            cnt[(src[i].key >> (low + shift)) & 0xff]++;
        for (i = 0; i < 256; i++) {
            c = cnt[i];
            cnt[i] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            dst[cnt[(src[i].key >> (low + shift)) & 0xff]++] = src[i];
        sw = src;
        src = dst;
        dst = sw;
    }
    if (src != a)
        memcpy(a, src, n * sizeof(*a));
}

/*
 * A node's contexts have few distinct next frames (python3 bench: 395
 * among 170,000 contexts at the root, 1,349 keys in the 30 sorts of 512
 * or more): count each key in a small open-addressing table, order the
 * distinct keys, and place every context by its key's offset in one
 * stable pass. That is the order the radix sort gives (by key, ties in
 * input order) for two hash lookups per context instead of up to eight
 * passes over them. Returns false, a[] untouched, when the keys do not
 * fit the table.
 */
#define KEYS_MIN 512 /* smaller sorts: sort_keyed() */
#define KEYS_SLOTS 4096u
#define KEYS_MAX (KEYS_SLOTS / 2)

struct key_table {
    uintptr_t key[KEYS_SLOTS];
    uint32_t cnt[KEYS_SLOTS]; /* 0: an empty slot */
    uint32_t start[KEYS_SLOTS]; /* where the key's next context goes */
    struct keyed order[KEYS_MAX]; /* the distinct keys, id = slot */
    struct keyed order_tmp[KEYS_MAX];
};

static inline uint32_t key_slot(const struct key_table *t, uintptr_t key)
{
    uint32_t h = (uint32_t)lp_hash_addr(key) & (KEYS_SLOTS - 1);

    while (t->cnt[h] && t->key[h] != key)
        h = (h + 1) & (KEYS_SLOTS - 1);
    return h;
}

static bool sort_few_keys(struct key_table *t, struct keyed *a,
                          struct keyed *tmp, size_t n)
{
    size_t i, k = 0, sum = 0;

    memset(t->cnt, 0, sizeof(t->cnt));
    for (i = 0; i < n; i++) {
        uint32_t h = key_slot(t, a[i].key);

        if (!t->cnt[h]) {
            if (k == KEYS_MAX)
                return false;
            t->key[h] = a[i].key;
            t->order[k].key = a[i].key;
            t->order[k++].id = h;
        }
        t->cnt[h]++;
    }
    sort_keyed(t->order, t->order_tmp, k, 0);
    for (i = 0; i < k; i++) {
        uint32_t h = t->order[i].id;

        t->start[h] = (uint32_t)sum;
        sum += t->cnt[h];
    }
    for (i = 0; i < n; i++)
        tmp[t->start[key_slot(t, a[i].key)]++] = a[i];
    memcpy(a, tmp, n * sizeof(*a));
    return true;
}

/* ------------------------------------------------------------------ */
/* Each context's filtered frames, one at a time                       */

/* How far a context's filter has gone: its next frame is found from
 * frames[next] on, kept frames were handed out so far. Packed in 32 bits
 * it travels with the context's id through the sorts, in the order the
 * index keeps its contexts: no array indexed by id to miss in. */
enum {
    C_STARTED = 1u, /* the allocation functions on top are skipped */
    C_END = 2u,     /* no more frames */
    C_BELOW = 4u,   /* a below-main function was kept (main follows) */
};

struct cursor {
    unsigned next, kept, flags;
};

#define MAX_NEXT 0xffffu /* frames beyond this are not looked at */

static struct cursor unpack(uint32_t st)
{
    return (struct cursor){ st & 0xffff, (st >> 16) & 0xff, st >> 24 };
}

static uint32_t pack(const struct cursor *cu)
{
    return (uint32_t)cu->next | (uint32_t)cu->kept << 16 |
           (uint32_t)cu->flags << 24;
}

struct ctxs {
    struct verdicts t;
    unsigned depth;    /* at most 255 (config: 200) */
    uint32_t *st;      /* [nids-1] the packed cursors, aligned with ids */
    struct keyed *vis, *tmp; /* [nids-1] scratch for order() */
    struct key_table *keys; /* order()'s, for large nodes */
    size_t keyed_bytes, ids_bytes;
};

static bool dropped(uintptr_t ip)
{
    return ip == 0 || lp_stack_is_self(ip);
}

/* Is there a kept frame in main from frames[i] on? */
static bool main_follows(struct verdicts *t, const struct lp_stack *s,
                         unsigned i)
{
    for (; i < s->nframes; i++) {
        uintptr_t ip = lp_stack_frame(s, i);

        if (!dropped(ip) && (verdict(t, ip) & V_MAIN))
            return true;
    }
    return false;
}

static bool verdict_is_start(struct ctxs *x, const struct lp_stack *s,
                             unsigned nf)
{
    return nf > 0 && (verdict(&x->t, lp_stack_frame(s, nf - 1)) & V_START);
}

/* show_below_main=yes: past a stack's end in _start, the "???" frames
 * Massif's unwinder makes of the words past _start's frame, as in the
 * leak report (lp_sym_below_main); frames nf, nf + 1, ... stand for
 * them. */
static bool past_start_step(struct ctxs *x, struct cursor *cu,
                            const struct lp_stack *s, unsigned nf,
                            uintptr_t *ip)
{
    const struct lp_sym_below_main *b = lp_sym_below_main();
    unsigned j = cu->next - nf;

    if (cu->next < nf || j >= (unsigned)b->n || nf >= MAX_NEXT - 4 ||
        (j == 0 && !verdict_is_start(x, s, nf))) {
        cu->flags |= C_END;
        return false;
    }
    *ip = b->past[j];
    cu->next++;
    cu->kept++;
    return true;
}

/* The next kept frame of stack s into *ip, as massif's filter keeps
 * them: past the allocation functions on top, without zero frames and
 * our own library's, at most depth of them, ending with main when main
 * is there, else with the first below-main function, else where the
 * stack ends. false when the context has no more frames. */
static bool cursor_step(struct ctxs *x, struct cursor *cu,
                        const struct lp_stack *s, uintptr_t *ip)
{
    unsigned i, v, nf;

    if (cu->flags & C_END)
        return false;
    nf = s ? (s->nframes < MAX_NEXT ? s->nframes : MAX_NEXT) : 0;
    if (!(cu->flags & C_STARTED)) {
        cu->flags |= C_STARTED;
        if (nf <= 1)
            goto end;
        for (i = 1;
             i < nf && (verdict(&x->t, lp_stack_frame(s, i)) & V_ALLOC); i++)
            ;
        cu->next = i;
    }
    if (cu->kept >= x->depth)
        goto end;
    for (i = cu->next; i < nf && dropped(lp_stack_frame(s, i)); i++)
        ;
    if (i >= nf && lp_config.show_below_main) {
        cu->next = i;
        return past_start_step(x, cu, s, nf, ip);
    }
    if (i >= nf)
        goto end;
    *ip = lp_stack_frame(s, i);
    cu->next = i + 1;
    cu->kept++;
    /* show_below_main=yes: no cut at main (Massif's --show-below-main). */
    v = lp_config.show_below_main ? 0 : verdict(&x->t, *ip);
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

/* Frame d of the context whose record is s and filter state *st (the
 * index asks for each depth in turn; any other order starts the
 * context's filter over). */
static bool frame_at(struct ctxs *x, uint32_t *st, const struct lp_stack *s,
                     unsigned d, uintptr_t *ip)
{
    struct cursor cu = unpack(*st);
    bool more;

    if (cu.kept != d) {
        cu = unpack(0);
        while (cu.kept < d)
            if (!cursor_step(x, &cu, s, ip))
                break;
    }
    more = cu.kept == d && cursor_step(x, &cu, s, ip);
    *st = pack(&cu);
    return more;
}

/* The stack records lie in the arena in no order related to their ids
 * (python3: 170,000 records over 86 MB), and a node's contexts come in
 * frame order: visited as they come, each record costs a TLB miss and a
 * cache miss or two. A large node's contexts are visited in the order
 * of their records' addresses instead, with a software prefetch ahead. */
#define ADDR_ORDER_MIN 1024
#define PREFETCH 16

size_t lp_massif_contexts_order(void *ctx, uint32_t *ids, uintptr_t *key,
                                size_t n, unsigned d)
{
    struct lp_massif_contexts *c = ctx;
    struct ctxs *x = c->priv;
    struct keyed *vis = x->vis;
    size_t total = c->nids > 1 ? c->nids - 1 : 0, m = 0, r = 0, i;
    /* The index orders c->ids in place: ids[] is a slice of it. */
    uint32_t *st = ids >= c->ids && ids + n <= c->ids + total
                       ? x->st + (ids - c->ids) : NULL;

    for (i = 0; i < n; i++) {
        uint32_t id = ids[i];

        vis[i].key = (uintptr_t)(id < c->nids ? lp_stack_get(id) : NULL);
        vis[i].id = id;
        vis[i].st = st ? st[i] : 0;
    }
    if (n >= ADDR_ORDER_MIN)
        sort_keyed(vis, x->tmp, n, 12); /* by page: what the TLB sees */
    for (i = 0; i < n; i++) {
        const struct lp_stack *s = (const struct lp_stack *)vis[i].key;
        uint32_t id = vis[i].id, cst = vis[i].st;
        uintptr_t ip = 0;

        /* Two stages: a record's header first, and its next frame only
         * PREFETCH contexts later, when the header that says where that
         * frame is (wide) has arrived. Read at once, the header was a
         * demand miss inside the prefetch: 63% of this function's time
         * (python3, 1.8% of the run). */
        if (i + 2 * PREFETCH < n)
            __builtin_prefetch((const void *)vis[i + 2 * PREFETCH].key);
        if (i + PREFETCH < n && vis[i + PREFETCH].key) {
            const struct lp_stack *p =
                (const struct lp_stack *)vis[i + PREFETCH].key;
            struct cursor pc = unpack(vis[i + PREFETCH].st);

            __builtin_prefetch(&p->packed[(pc.flags & C_STARTED ? pc.next
                                                                : 1) <<
                                          p->wide]);
        }
        if (!frame_at(x, &cst, s, d, &ip)) {
            ids[m++] = id;
        } else {
            vis[r].key = ip; /* r <= i: vis[i] was read already */
            vis[r].id = id;
            vis[r].st = cst;
            r++;
        }
    }
    if (r < KEYS_MIN || !x->keys || !sort_few_keys(x->keys, vis, x->tmp, r))
        sort_keyed(vis, x->tmp, r, 0);
    for (i = 0; i < m && st; i++)
        st[i] = 0; /* ended: asked again, they start over */
    for (i = 0; i < r; i++) {
        ids[m + i] = vis[i].id;
        key[m + i] = vis[i].key;
        if (st)
            st[m + i] = vis[i].st;
    }
    return m;
}

void lp_massif_contexts_free(struct lp_massif_contexts *c)
{
    struct ctxs *x = c->priv;

    if (x) {
        free(x->t.keys);
        free(x->t.vals);
        free(x->st);
        free(x->vis);
        free(x->tmp);
        free(x->keys);
        free(c->ids);
        free(x);
    }
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
    if (!x)
        return -ENOMEM;
    x->keyed_bytes = (n + 1) * sizeof(struct keyed);
    x->ids_bytes = (n + 1) * sizeof(*c->ids);
    x->st = calloc(n + 1, sizeof(*x->st)); /* every filter at its start */
    x->vis = malloc(x->keyed_bytes);
    x->tmp = malloc(x->keyed_bytes);
    x->keys = n >= KEYS_MIN ? malloc(sizeof(*x->keys)) : NULL; /* optional */
    c->ids = malloc(x->ids_bytes);
    if (!x->st || !x->vis || !x->tmp || !c->ids) {
        lp_massif_contexts_free(c);
        return -ENOMEM;
    }
    x->t.sym = sym;
    x->depth = lp_config.depth > 0 ? (unsigned)lp_config.depth : 30;
    if (x->depth > 255)
        x->depth = 255;
    for (i = 0; i < n; i++)
        c->ids[i] = (uint32_t)(i + 1);
    return 0;
}
