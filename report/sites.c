/* SPDX-License-Identifier: MIT */
/*
 * sites.c - the allocation-site table (sites.h): interned frame names,
 * growable arrays.
 * Context: COLD.
 */
#include "report/sites.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const lp_cost_key[LP_COST_COUNT] = {
    "peak", "exit", "leaked", "calls", "allocated", "temp",
};
const char *const lp_cost_title[LP_COST_COUNT] = {
    "live at peak", "live at exit", "leaked", "allocation calls",
    "bytes allocated", "temporary allocations",
};
const char *const lp_cost_unit[LP_COST_COUNT] = {
    "bytes", "bytes", "bytes", "calls", "bytes", "calls",
};

int lp_cost_find(const char *key)
{
    int c;

    for (c = 0; c < LP_COST_COUNT; c++)
        if (!strcmp(lp_cost_key[c], key))
            return c;
    return -1;
}

void lp_sites_init(struct lp_sites *s)
{
    memset(s, 0, sizeof(*s));
}

void lp_sites_release(struct lp_sites *s)
{
    size_t i;

    for (i = 0; i < s->nnames; i++)
        free(s->names[i]);
    free(s->names);
    free(s->hash);
    free(s->frames);
    free(s->v);
    free(s->command);
    memset(s, 0, sizeof(*s));
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap ? *cap : 64;
    void *q;

    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    q = realloc(*p, c * size);
    if (!q)
        return -ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

static uint64_t hash_str(const char *p)
{
    uint64_t h = 0xcbf29ce484222325ull;

    while (*p)
        h = (h ^ (unsigned char)*p++) * 0x100000001b3ull;
    return h ^ (h >> 31);
}

static int rehash(struct lp_sites *s)
{
    size_t cap = s->hcap ? s->hcap * 2 : 1024, i;
    uint32_t *h = calloc(cap, sizeof(*h));

    if (!h)
        return -ENOMEM;
    for (i = 0; i < s->nnames; i++) {
        size_t j = hash_str(s->names[i]) & (cap - 1);

        while (h[j])
            j = (j + 1) & (cap - 1);
        h[j] = (uint32_t)i + 1;
    }
    free(s->hash);
    s->hash = h;
    s->hcap = cap;
    return 0;
}

/* The id of name, interning it; UINT32_MAX on error. */
static uint32_t intern(struct lp_sites *s, const char *name)
{
    size_t j;
    char *copy;

    if ((s->nnames + 1) * 2 > s->hcap && rehash(s))
        return UINT32_MAX;
    j = hash_str(name) & (s->hcap - 1);
    while (s->hash[j]) {
        if (!strcmp(s->names[s->hash[j] - 1], name))
            return s->hash[j] - 1;
        j = (j + 1) & (s->hcap - 1);
    }
    if (grow((void **)&s->names, &s->capnames, s->nnames + 1,
             sizeof(*s->names)))
        return UINT32_MAX;
    copy = strdup(name);
    if (!copy)
        return UINT32_MAX;
    s->names[s->nnames] = copy;
    s->hash[j] = (uint32_t)++s->nnames;
    return (uint32_t)(s->nnames - 1);
}

struct lp_site *lp_sites_add(struct lp_sites *s, const char *const *names,
                             unsigned n)
{
    struct lp_site *t;
    unsigned i;

    if (s->err)
        return NULL;
    if (grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) ||
        grow((void **)&s->frames, &s->capframes, s->nframes + n + 1,
             sizeof(*s->frames))) {
        s->err = -ENOMEM;
        return NULL;
    }
    t = &s->v[s->n];
    memset(t, 0, sizeof(*t));
    t->first = (uint32_t)s->nframes;
    for (i = 0; i < n; i++) {
        uint32_t id = intern(s, names[i] ? names[i] : "???");

        if (id == UINT32_MAX) {
            s->err = -ENOMEM;
            return NULL;
        }
        s->frames[s->nframes++] = id;
    }
    t->nframes = n;
    s->n++;
    return t;
}
