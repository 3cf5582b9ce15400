/* SPDX-License-Identifier: MIT */
/*
 * flame_sites.c - flame graphs of allocation sites by cost
 * (flame_sites.h). Each interned frame name is shortened once, not once
 * per stack: a million stacks cost one pass over their frame ids.
 * Context: COLD.
 */
#include "report/flame_sites.h"

#include <stdlib.h>

struct lp_flame *lp_flame_of_sites(const struct lp_sites *s, enum lp_cost c)
{
    struct lp_flame *f = lp_flame_new();
    char **shown = calloc(s->nnames + 1, sizeof(*shown));
    const char **path = NULL;
    unsigned cap = 0;
    size_t i;
    int rc = f && shown ? 0 : -1;

    for (i = 0; i < s->nnames && rc == 0; i++)
        if ((shown[i] = lp_flame_frame_name(s->names[i])) == NULL)
            rc = -1;
    for (i = 0; i < s->n && rc == 0; i++) {
        const struct lp_site *t = &s->v[i];
        unsigned k;

        if (t->cost[c] == 0)
            continue;
        if (t->nframes > cap) {
            const char **p = realloc(path, sizeof(*p) * t->nframes);

            if (!p) {
                rc = -1;
                break;
            }
            path = p;
            cap = t->nframes;
        }
        /* Outermost first. */
        for (k = 0; k < t->nframes; k++)
            path[k] = shown[s->frames[t->first + t->nframes - 1 - k]];
        if (t->nframes == 0) {
            static const char *const none[] = { "[no stack]" };

            rc = lp_flame_add(f, none, 1, t->cost[c]);
        } else {
            rc = lp_flame_add(f, path, t->nframes, t->cost[c]);
        }
    }
    for (i = 0; shown && i < s->nnames; i++)
        free(shown[i]);
    free(shown);
    free(path);
    if (rc != 0) {
        lp_flame_free(f);
        return NULL;
    }
    return f;
}
