/* SPDX-License-Identifier: MIT */
/*
 * massif_tree.c - massif's heap tree from (filtered stack, bytes)
 * contexts (FORMATS.md 1.5): group by address at each depth, merge the
 * groups below the significance threshold into one aggregate, order by
 * bytes then address, expand inlined callers into chains.
 * Context: COLD (writer, tests). Memory: libc malloc.
 */
#include "preload/hot/snapshot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/massif.h"
#include "report/symbolize.h"

uint64_t lp_snapshot_sig(uint64_t heap, uint64_t total, double threshold)
{
    if (heap == 0 && threshold != 0)
        return 1;
    return (uint64_t)((double)total * threshold / 100.0);
}

static int cmp_ctx(const void *a, const void *b)
{
    const struct lp_snapshot_ctx *x = a, *y = b;
    unsigned i, n = x->nframes < y->nframes ? x->nframes : y->nframes;

    for (i = 0; i < n; i++)
        if (x->frames[i] != y->frames[i])
            return x->frames[i] < y->frames[i] ? -1 : 1;
    return (x->nframes > y->nframes) - (x->nframes < y->nframes);
}

struct group {
    uintptr_t addr; /* 0 for the aggregate */
    uint64_t bytes;
    size_t lo, hi, places;
};

static int cmp_group(const void *a, const void *b)
{
    const struct group *x = a, *y = b;

    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

struct build {
    struct lp_massif *m;
    const struct lp_snapshot_ctx *c;
    uint64_t sig;
    double threshold;
    lp_snapshot_label_fn label;
    void *label_ctx;
    struct lp_snapshot_index *ix; /* the indexed builder's */
    uint32_t max_id;
};

static int emit_groups(struct build *b, struct lp_massif_node *parent,
                       struct group *g, size_t ng, unsigned d);

/* Add the children of a node covering contexts [lo, hi) at depth d.
 * The contexts are sorted, so those with exactly d frames come first and
 * each address forms one contiguous run. */
static int add_children(struct build *b, struct lp_massif_node *parent,
                        size_t lo, size_t hi, unsigned d)
{
    struct group *g;
    size_t i = lo, ng = 0;
    int rc;

    while (i < hi && b->c[i].nframes <= d)
        i++;
    if (i == hi)
        return 0;
    g = malloc(sizeof(*g) * (hi - i + 1));
    if (!g)
        return -ENOMEM;
    while (i < hi) {
        struct group cur = { .addr = b->c[i].frames[d], .lo = i };

        while (i < hi && b->c[i].frames[d] == cur.addr)
            cur.bytes += b->c[i++].bytes;
        cur.hi = i;
        g[ng++] = cur;
    }
    rc = emit_groups(b, parent, g, ng, d);
    free(g);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The indexed builder: the groups at each depth are the same runs of
 * the sorted contexts in every snapshot of a file, only their bytes
 * change. A node's children are found once, on its first expansion, and
 * kept; a group whose contexts all came after the snapshot (ids above
 * its count) is not in it. A group's bytes are the bytes of the
 * snapshot's contexts that hold any (a few thousand of 170,000 in a
 * Python run) whose places fall in the group's range: those contexts
 * are sorted by place once per snapshot, with running sums, and a range
 * is two binary searches; a pass over every context per snapshot, or an
 * array indexed by id read in place order, cost a cache miss per
 * context and snapshot.
 *
 * The lazy index sorts nothing up front: a node's places are put in
 * order by its frame at the node's depth when the node is first
 * expanded, which reorders places only inside the node's range. A file
 * of 170,000 Python contexts and ~20 trees expands a few hundred nodes
 * of the ~170,000 a full sort separates, and never reads (or names) the
 * frames below the significant ones. */

struct ix_node {
    uintptr_t addr;
    uint32_t lo, hi; /* its contexts in sorted order */
    uint32_t min_id; /* the first of them to exist */
    uint32_t first, n; /* its children: nodes[first..first+n) */
    bool expanded;
};

struct lp_snapshot_index {
    const struct lp_snapshot_ctx *c; /* sorted contexts, or NULL (lazy) */
    const uint32_t *id;              /* [n] the stack id at each place */
    uint32_t *ord;                   /* lazy: id, which order() permutes */
    size_t n;
    struct ix_node *nodes;
    size_t nnodes, cap;
    uint32_t *pos; /* [n+1] the place of each id (1..n) */
    /* The snapshot being built: its contexts that hold bytes, by place,
     * and sum[j] = bytes of held[0..j). */
    struct ix_held *held, *tmp; /* tmp: the radix sort's other half */
    uint64_t *sum;
    size_t nheld, capheld;
    /* Lazy: order() sorts a node's places on its first expansion. */
    lp_snapshot_order_fn order;
    void *order_ctx;
    uintptr_t *key; /* [n] order()'s frames, aligned with id */
};

struct ix_held {
    uint32_t pos, id;
    uint64_t bytes;
};

/* The first held context at a place >= p. */
static size_t held_at(const struct lp_snapshot_index *ix, uint32_t p)
{
    size_t lo = 0, hi = ix->nheld;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (ix->held[mid].pos < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The snapshot's bytes in places [lo, hi). */
static uint64_t range_bytes(const struct lp_snapshot_index *ix, uint32_t lo,
                            uint32_t hi)
{
    return ix->sum[held_at(ix, hi)] - ix->sum[held_at(ix, lo)];
}

/* Sort h[0..n) by place, tmp[0..n) as scratch: insertion sort when
 * short, else an LSD radix sort over the bytes in which the places
 * differ. Places are distinct, so any correct sort gives this order.
 * (python3 bench: 26 trees of ~9,800 held contexts, up to 26,000; glibc
 * qsort's merge sort with its indirect compares took ~3% of the run.) */
static void sort_by_place(struct ix_held *h, struct ix_held *tmp, size_t n)
{
    struct ix_held *src = h, *dst = tmp, *sw;
    uint32_t diff = 0;
    unsigned shift;
    size_t i, j;

    if (n < 32) {
        for (i = 1; i < n; i++) {
            struct ix_held x = h[i];

            for (j = i; j > 0 && h[j - 1].pos > x.pos; j--)
                h[j] = h[j - 1];
            h[j] = x;
        }
        return;
    }
    for (i = 1; i < n; i++)
        diff |= h[i].pos ^ h[0].pos;
    for (shift = 0; shift < 32; shift += 8) {
        size_t cnt[256] = { 0 }, sum = 0, c;

        if (!((diff >> shift) & 0xff))
            continue;
        for (i = 0; i < n; i++)
            cnt[(src[i].pos >> shift) & 0xff]++;
        for (i = 0; i < 256; i++) {
            c = cnt[i];
            cnt[i] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            dst[cnt[(src[i].pos >> shift) & 0xff]++] = src[i];
        sw = src;
        src = dst;
        dst = sw;
    }
    if (src != h)
        memcpy(h, src, n * sizeof(*h));
}

/* Sort held[a..b) by place and bring sum[a+1..b] up to date (sum[a] and
 * sum[b] stay: the same contexts, another order). */
static void held_sort(struct lp_snapshot_index *ix, size_t a, size_t b)
{
    size_t j;

    sort_by_place(ix->held + a, ix->tmp, b - a);
    for (j = a; j < b; j++)
        ix->sum[j + 1] = ix->sum[j] + ix->held[j].bytes;
}

static int ix_push(struct lp_snapshot_index *ix, const struct ix_node *nd)
{
    if (ix->nnodes == ix->cap) {
        size_t cap = ix->cap ? ix->cap * 2 : 1024;
        struct ix_node *p = realloc(ix->nodes, cap * sizeof(*p));

        if (!p)
            return -ENOMEM;
        ix->nodes = p;
        ix->cap = cap;
    }
    ix->nodes[ix->nnodes++] = *nd;
    return 0;
}

/* Lazy: put the places [lo, hi) of a node at depth d in order (those
 * without a frame d first, then by frame d; frames in ix->key) and
 * bring the places of the snapshot's held contexts among them up to
 * date. */
static uint32_t ix_order(struct lp_snapshot_index *ix, uint32_t lo,
                         uint32_t hi, unsigned d)
{
    size_t a = held_at(ix, lo), b = held_at(ix, hi), j;
    size_t ended = ix->order(ix->order_ctx, ix->ord + lo, ix->key + lo,
                             hi - lo, d);
    uint32_t i;

    for (i = lo; i < hi; i++)
        ix->pos[ix->id[i]] = i;
    for (j = a; j < b; j++)
        ix->held[j].pos = ix->pos[ix->held[j].id];
    held_sort(ix, a, b);
    return lo + (uint32_t)ended;
}

/* The children of node k, whose contexts share d frames: the runs of
 * frame d among those that have one. */
static int ix_expand(struct lp_snapshot_index *ix, uint32_t k, unsigned d)
{
    const struct lp_snapshot_ctx *c = ix->c;
    const uintptr_t *key = ix->key;
    uint32_t lo = ix->nodes[k].lo, hi = ix->nodes[k].hi, i = lo, first;

    if (c) {
        while (i < hi && c[i].nframes <= d)
            i++;
    } else {
        i = ix_order(ix, lo, hi, d);
    }
    first = (uint32_t)ix->nnodes;
    while (i < hi) {
        struct ix_node ch = { .addr = c ? c[i].frames[d] : key[i], .lo = i,
                              .min_id = UINT32_MAX };

        for (; i < hi && (c ? c[i].frames[d] : key[i]) == ch.addr; i++)
            if (ix->id[i] < ch.min_id)
                ch.min_id = ix->id[i];
        ch.hi = i;
        if (ix_push(ix, &ch) != 0)
            return -ENOMEM;
    }
    ix->nodes[k].first = first;
    ix->nodes[k].n = (uint32_t)ix->nnodes - first;
    ix->nodes[k].expanded = true;
    return 0;
}

static int add_children_ix(struct build *b, struct lp_massif_node *parent,
                           uint32_t k, unsigned d)
{
    struct lp_snapshot_index *ix = b->ix;
    const struct ix_node *nd;
    struct group *g;
    size_t ng = 0;
    uint32_t i;
    int rc;

    if (!ix->nodes[k].expanded && ix_expand(ix, k, d) != 0)
        return -ENOMEM;
    if (ix->nodes[k].n == 0)
        return 0;
    g = malloc(sizeof(*g) * (ix->nodes[k].n + 1));
    if (!g)
        return -ENOMEM;
    for (i = 0; i < ix->nodes[k].n; i++) {
        nd = &ix->nodes[ix->nodes[k].first + i];
        if (nd->min_id > b->max_id)
            continue;
        g[ng].addr = nd->addr;
        g[ng].bytes = range_bytes(ix, nd->lo, nd->hi);
        g[ng].lo = ix->nodes[k].first + i;
        g[ng].hi = 0;
        g[ng].places = 0;
        ng++;
    }
    rc = ng ? emit_groups(b, parent, g, ng, d) : 0;
    free(g);
    return rc;
}

struct lp_snapshot_index *lp_snapshot_index_new(
    const struct lp_snapshot_ctx *sorted, const uint32_t *sorted_id, size_t n)
{
    struct lp_snapshot_index *ix = calloc(1, sizeof(*ix));
    struct ix_node root = { .lo = 0, .hi = (uint32_t)n };
    size_t i;

    if (!ix)
        return NULL;
    ix->c = sorted;
    ix->id = sorted_id;
    ix->n = n;
    if (n >= UINT32_MAX ||
        !(ix->pos = calloc(n + 1, sizeof(*ix->pos))) ||
        ix_push(ix, &root) != 0) {
        lp_snapshot_index_free(ix);
        return NULL;
    }
    for (i = 0; i < n; i++)
        if (sorted_id[i] >= 1 && sorted_id[i] <= n)
            ix->pos[sorted_id[i]] = (uint32_t)i;
    return ix;
}

struct lp_snapshot_index *lp_snapshot_index_lazy(uint32_t *ids, size_t n,
                                                 lp_snapshot_order_fn order,
                                                 void *order_ctx)
{
    struct lp_snapshot_index *ix = lp_snapshot_index_new(NULL, ids, n);

    if (ix && !(ix->key = malloc(sizeof(*ix->key) * (n + 1)))) {
        lp_snapshot_index_free(ix);
        return NULL;
    }
    if (ix) {
        ix->ord = ids;
        ix->order = order;
        ix->order_ctx = order_ctx;
    }
    return ix;
}

void lp_snapshot_index_free(struct lp_snapshot_index *ix)
{
    if (!ix)
        return;
    free(ix->nodes);
    free(ix->pos);
    free(ix->held);
    free(ix->tmp);
    free(ix->sum);
    free(ix->key);
    free(ix);
}

struct lp_massif_node *lp_snapshot_build_tree_indexed(
    struct lp_massif *m, struct lp_snapshot_index *ix,
    const struct lp_snapshot_ent *e, size_t ne, uint32_t max_id,
    uint64_t sig, double threshold, lp_snapshot_label_fn label,
    void *label_ctx)
{
    struct build b = { m, ix->c, sig, threshold, label, label_ctx, ix, max_id };
    struct lp_massif_node *root;
    size_t i;

    if (ne > ix->capheld) {
        struct ix_held *h = realloc(ix->held, ne * sizeof(*h)), *t = NULL;
        uint64_t *sum = h ? realloc(ix->sum, (ne + 1) * sizeof(*sum)) : NULL;

        if (h)
            ix->held = h;
        if (sum) {
            ix->sum = sum;
            free(ix->tmp); /* scratch: nothing to keep */
            ix->tmp = t = malloc(ne * sizeof(*t));
        }
        if (!t)
            return NULL;
        ix->capheld = ne;
    }
    if (!ix->sum && !(ix->sum = malloc(sizeof(*ix->sum))))
        return NULL;
    ix->nheld = 0;
    for (i = 0; i < ne; i++)
        if (e[i].bytes && e[i].id >= 1 && e[i].id <= max_id &&
            e[i].id <= ix->n)
            ix->held[ix->nheld++] = (struct ix_held){ ix->pos[e[i].id],
                                                      e[i].id, e[i].bytes };
    ix->sum[0] = 0;
    held_sort(ix, 0, ix->nheld);
    root = lp_massif_node_new(m, ix->sum[ix->nheld], LP_MASSIF_ROOT_LABEL);
    if (!root || add_children_ix(&b, root, 0, 0) != 0)
        return NULL;
    return root;
}

/* ------------------------------------------------------------------ */

/* g[0..ng): the groups of a node's children at depth d, in address order
 * (room for one more). Merge the insignificant ones into an aggregate,
 * order them as massif does and add them, each with its own children. */
static int emit_groups(struct build *b, struct lp_massif_node *parent,
                       struct group *g, size_t ng, unsigned d)
{
    size_t i, k, agg = 0, n = 0;
    uint64_t agg_bytes = 0;
    int rc = 0;

    for (i = 0; i < ng; i++) {
        if (g[i].bytes < b->sig) {
            agg++;
            agg_bytes += g[i].bytes;
        } else {
            g[n++] = g[i];
        }
    }
    ng = n;
    if (agg) {
        g[ng].addr = 0;
        g[ng].bytes = agg_bytes;
        g[ng].lo = g[ng].hi = 0;
        g[ng].places = agg;
        ng++;
    }
    qsort(g, ng, sizeof(*g), cmp_group);
    for (k = 0; k < ng && rc == 0; k++) {
        struct lp_massif_node *node, *top = NULL, *last = NULL;

        if (g[k].places) {
            char text[128];

            if (g[k].places == 1)
                snprintf(text, sizeof(text),
                         "in 1 place, below massif's threshold (%.2f%%)",
                         b->threshold);
            else
                snprintf(text, sizeof(text),
                         "in %zu places, all below massif's threshold "
                         "(%.2f%%)",
                         g[k].places, b->threshold);
            node = lp_massif_node_new(b->m, g[k].bytes, text);
            rc = node ? lp_massif_node_add_child(parent, node) : -ENOMEM;
        } else {
            const char *labels[LP_SYM_MAX_INLINE];
            int nl = b->label(b->label_ctx, g[k].addr, labels,
                              LP_SYM_MAX_INLINE), j;

            /* Inlined callers: a chain of n1 nodes with the same address,
             * the real children under the last one. */
            for (j = 0; j < nl && rc == 0; j++) {
                node = lp_massif_node_new(b->m, g[k].bytes, labels[j]);
                if (!node)
                    rc = -ENOMEM;
                else if (!top)
                    top = node;
                else
                    rc = lp_massif_node_add_child(last, node);
                last = node;
            }
            if (rc == 0)
                rc = b->ix ? add_children_ix(b, last, (uint32_t)g[k].lo, d + 1)
                           : add_children(b, last, g[k].lo, g[k].hi, d + 1);
            if (rc == 0)
                rc = lp_massif_node_add_child(parent, top);
        }
    }
    return rc;
}

void lp_snapshot_sort_ctx(struct lp_snapshot_ctx *c, size_t n)
{
    qsort(c, n, sizeof(*c), cmp_ctx);
}

struct lp_massif_node *lp_snapshot_build_tree_sorted(
    struct lp_massif *m, const struct lp_snapshot_ctx *c, size_t n,
    uint64_t sig, double threshold, lp_snapshot_label_fn label,
    void *label_ctx)
{
    struct build b = { m, c, sig, threshold, label, label_ctx, NULL, 0 };
    struct lp_massif_node *root;
    uint64_t total = 0;
    size_t i;

    for (i = 0; i < n; i++)
        total += c[i].bytes;
    root = lp_massif_node_new(m, total, LP_MASSIF_ROOT_LABEL);
    if (!root || add_children(&b, root, 0, n, 0) != 0)
        return NULL;
    return root;
}

struct lp_massif_node *lp_snapshot_build_tree(struct lp_massif *m,
                                              struct lp_snapshot_ctx *c,
                                              size_t n, uint64_t sig,
                                              double threshold,
                                              lp_snapshot_label_fn label,
                                              void *label_ctx)
{
    lp_snapshot_sort_ctx(c, n);
    return lp_snapshot_build_tree_sorted(m, c, n, sig, threshold, label,
                                         label_ctx);
}
