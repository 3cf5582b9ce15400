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
};

/* Add the children of a node covering contexts [lo, hi) at depth d.
 * The contexts are sorted, so those with exactly d frames come first and
 * each address forms one contiguous run. */
static int add_children(struct build *b, struct lp_massif_node *parent,
                        size_t lo, size_t hi, unsigned d)
{
    struct group *g;
    size_t i = lo, ng = 0, k, agg = 0;
    uint64_t agg_bytes = 0;
    int rc = 0;

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
        if (cur.bytes < b->sig) {
            agg++;
            agg_bytes += cur.bytes;
        } else {
            g[ng++] = cur;
        }
    }
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
                rc = add_children(b, last, g[k].lo, g[k].hi, d + 1);
            if (rc == 0)
                rc = lp_massif_node_add_child(parent, top);
        }
    }
    free(g);
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
    struct build b = { m, c, sig, threshold, label, label_ctx };
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
