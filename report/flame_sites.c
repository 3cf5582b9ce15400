/* SPDX-License-Identifier: MIT */
/*
 * flame_sites.c - flame graphs of allocation sites by cost
 * (flame_sites.h).
 *
 * A million sites must not cost a million tree searches per graph. Once
 * per site table: every interned frame name is shortened to what the
 * graph shows, equal shortened names get one canonical id, and the sites
 * are sorted by their canonical paths, outermost frame first. Each graph
 * then walks the sites in that order and hands the flame tree the length
 * of the prefix a site shares with the previous one (integer compares),
 * so the tree appends new frames without looking for them.
 * Context: COLD.
 */
#include "report/flame_sites.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct lp_flame_sites_prep {
    const struct lp_sites *s;
    char **shown;     /* per name id: the text the graph shows */
    uint32_t *canon;  /* name id -> canonical id: the first name id with
                         the same shown text */
    size_t *order;    /* site indices, sorted by canonical path */
};

static const struct lp_flame_sites_prep *sort_prep; /* qsort context */

static int cmp_name(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(sort_prep->shown[x], sort_prep->shown[y]);

    return c ? c : (x < y ? -1 : x > y);
}

/* Canonical id of frame k (outermost = 0) of site t. */
static inline uint32_t frame_at(const struct lp_flame_sites_prep *p,
                                const struct lp_site *t, unsigned k)
{
    return p->canon[p->s->frames[t->first + t->nframes - 1 - k]];
}

static int cmp_site(const void *a, const void *b)
{
    const struct lp_flame_sites_prep *p = sort_prep;
    const struct lp_site *x = &p->s->v[*(const size_t *)a];
    const struct lp_site *y = &p->s->v[*(const size_t *)b];
    unsigned n = x->nframes < y->nframes ? x->nframes : y->nframes, k;

    for (k = 0; k < n; k++) {
        uint32_t fx = frame_at(p, x, k), fy = frame_at(p, y, k);

        if (fx != fy)
            return fx < fy ? -1 : 1;
    }
    if (x->nframes != y->nframes)
        return x->nframes < y->nframes ? -1 : 1;
    return x < y ? -1 : x > y;
}

void lp_flame_sites_release(struct lp_flame_sites_prep *p)
{
    size_t i;

    if (!p)
        return;
    for (i = 0; p->shown && i < p->s->nnames; i++)
        free(p->shown[i]);
    free(p->shown);
    free(p->canon);
    free(p->order);
    free(p);
}

struct lp_flame_sites_prep *lp_flame_sites_prepare(const struct lp_sites *s)
{
    struct lp_flame_sites_prep *p = calloc(1, sizeof(*p));
    uint32_t *byname = NULL;
    size_t i, nn = s->nnames;

    if (!p)
        return NULL;
    p->s = s;
    p->shown = calloc(nn + 1, sizeof(*p->shown));
    p->canon = calloc(nn + 1, sizeof(*p->canon));
    p->order = malloc((s->n + 1) * sizeof(*p->order));
    byname = malloc((nn + 1) * sizeof(*byname));
    if (!p->shown || !p->canon || !p->order || !byname)
        goto fail;
    for (i = 0; i < nn; i++) {
        if ((p->shown[i] = lp_flame_frame_name(s->names[i])) == NULL)
            goto fail;
        byname[i] = (uint32_t)i;
    }
    /* Equal shown names share the id of the first of them. */
    sort_prep = p;
    qsort(byname, nn, sizeof(*byname), cmp_name);
    for (i = 0; i < nn; i++)
        p->canon[byname[i]] =
            i && !strcmp(p->shown[byname[i]], p->shown[byname[i - 1]])
                ? p->canon[byname[i - 1]]
                : byname[i];
    free(byname);
    byname = NULL;
    for (i = 0; i < s->n; i++)
        p->order[i] = i;
    qsort(p->order, s->n, sizeof(*p->order), cmp_site);
    return p;
fail:
    free(byname);
    lp_flame_sites_release(p);
    return NULL;
}

struct lp_flame *lp_flame_sites_build(const struct lp_flame_sites_prep *p,
                                      enum lp_cost c)
{
    const struct lp_sites *s = p->s;
    struct lp_flame *f = lp_flame_new();
    const char **path = NULL;
    const struct lp_site *prev = NULL;
    unsigned cap = 0;
    size_t i;
    int rc = f ? 0 : -ENOMEM;

    for (i = 0; i < s->n && rc == 0; i++) {
        const struct lp_site *t = &s->v[p->order[i]];
        unsigned k, same = 0;

        if (t->cost[c] == 0)
            continue;
        if (t->nframes == 0) {
            static const char *const none[] = { "[no stack]" };

            rc = lp_flame_add(f, none, 1, t->cost[c]);
            prev = NULL;
            continue;
        }
        if (t->nframes > cap) {
            const char **np = realloc(path, sizeof(*np) * t->nframes);

            if (!np) {
                rc = -ENOMEM;
                break;
            }
            path = np;
            cap = t->nframes;
        }
        while (prev && same < prev->nframes && same < t->nframes &&
               frame_at(p, prev, same) == frame_at(p, t, same))
            same++;
        for (k = 0; k < t->nframes; k++)
            path[k] = p->shown[frame_at(p, t, k)];
        rc = lp_flame_add_sorted(f, path, t->nframes, same, t->cost[c]);
        prev = t;
    }
    free(path);
    if (rc != 0) {
        lp_flame_free(f);
        return NULL;
    }
    return f;
}

struct lp_flame *lp_flame_of_sites(const struct lp_sites *s, enum lp_cost c)
{
    struct lp_flame_sites_prep *p = lp_flame_sites_prepare(s);
    struct lp_flame *f = p ? lp_flame_sites_build(p, c) : NULL;

    lp_flame_sites_release(p);
    return f;
}
