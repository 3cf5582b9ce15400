/* SPDX-License-Identifier: MIT */
/*
 * sites.c - per-site figures beyond the stack counters (sites.h).
 *
 * Leaks: the exit report's records, one entry per stack, sorted by stack
 * id and found by binary search (a few hundred records usually, as many
 * as the stacks at worst). Peak: a copy of the peak snapshot's (id,
 * bytes) pairs, already in id order. Neither walks the blocks.
 * Context: COLD, guard held.
 */
#include "preload/massif/sites.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/hot/massif_state.h"
#include "preload/hot/sample.h"
#include "preload/hot/stack.h"
#include "preload/hot/stack_count.h"
#include "report/symbolize.h"

static struct {
    struct lp_site_leak *v;
    size_t n;
    bool have;
} leaks;

static int cmp_rec_id(const void *a, const void *b)
{
    const struct lp_loss_record *x = a, *y = b;

    return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

void lp_sites_note_leaks(const struct lp_loss_record *recs, size_t n)
{
    struct lp_loss_record *c = malloc(sizeof(*c) * (n + 1));
    struct lp_site_leak *v = calloc(n + 1, sizeof(*v));
    size_t i, k = 0;

    if (!c || !v) {
        free(c);
        free(v);
        return;
    }
    memcpy(c, recs, sizeof(*c) * n);
    qsort(c, n, sizeof(*c), cmp_rec_id);
    for (i = 0; i < n; i++) {
        struct lp_site_leak *l;

        if (c[i].supp >= 0 || c[i].blocks == 0 ||
            (unsigned)c[i].kind >= LP_KIND_COUNT)
            continue;
        if (k == 0 || v[k - 1].id != c[i].stack_id) {
            v[k].id = c[i].stack_id;
            v[k].oldest = c[i].first_time;
            k++;
        }
        l = &v[k - 1];
        l->bytes[c[i].kind] += c[i].bytes;
        l->blocks[c[i].kind] += c[i].blocks;
        if (c[i].first_time < l->oldest)
            l->oldest = c[i].first_time;
        if (c[i].last_time > l->newest)
            l->newest = c[i].last_time;
    }
    free(c);
    free(leaks.v);
    leaks.v = v;
    leaks.n = k;
    leaks.have = true;
}

bool lp_sites_have_leaks(void)
{
    return leaks.have;
}

const struct lp_site_leak *lp_sites_leak(uint32_t id)
{
    size_t lo = 0, hi = leaks.n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (leaks.v[mid].id == id)
            return &leaks.v[mid];
        if (leaks.v[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

struct lp_site_peak {
    size_t n;
    struct lp_snapshot_ent e[];
};

struct lp_site_peak *lp_sites_peak_load(void)
{
    const struct lp_sched *sc;
    const struct lp_massif_raw *t = NULL;
    struct lp_site_peak *p = NULL;
    unsigned i;

    if (!lp_massif_enabled())
        return NULL;
    lp_massif_hist_lock();
    sc = lp_massif_sched();
    for (i = 0; i < sc->n; i++)
        if (sc->snaps[i].kind == LP_SCHED_PEAK && sc->snaps[i].tree)
            t = sc->snaps[i].tree;
    if (t) {
        p = malloc(sizeof(*p) + t->nents * sizeof(p->e[0]));
        if (p) {
            p->n = t->nents;
            memcpy(p->e, t->e, t->nents * sizeof(p->e[0]));
        }
    }
    lp_massif_hist_unlock();
    return p;
}

uint64_t lp_sites_peak_bytes(const struct lp_site_peak *p, uint32_t id)
{
    size_t lo = 0, hi = p ? p->n : 0;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (p->e[mid].id == id)
            return p->e[mid].bytes;
        if (p->e[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

void lp_sites_peak_free(struct lp_site_peak *p)
{
    free(p);
}

/* "fn (file:line)", "fn" or "???": what the HTML tables show; the flame
 * graph keeps the function name only. */
static const char *frame_text(const struct lp_sym_frame *f, char *buf,
                              size_t n)
{
    if (!f->fn)
        return "???";
    if (f->file && f->line > 0)
        snprintf(buf, n, "%s (%s:%d)", f->fn, f->file, f->line);
    else
        snprintf(buf, n, "%s", f->fn);
    return buf;
}

int lp_sites_collect(struct lp_sites *out, struct lp_sym *sym)
{
    enum { MAXF = 64 * LP_SYM_MAX_INLINE };
    struct lp_sym_frame *f = malloc(sizeof(*f) * MAXF);
    const char **names = malloc(sizeof(*names) * MAXF);
    char *bufs = malloc((size_t)MAXF * 256);
    uintptr_t *ips = malloc(sizeof(*ips) * LP_STACK_MAX_DEPTH);
    struct lp_site_peak *peak = lp_sites_peak_load();
    uint32_t id, count = lp_stack_count();

    lp_sites_init(out);
    if (!f || !names || !bufs || !ips) {
        free(f);
        free(names);
        free(bufs);
        free(ips);
        lp_sites_peak_free(peak);
        return -ENOMEM;
    }
    out->has = LP_COST_BIT(LP_COST_EXIT) | LP_COST_BIT(LP_COST_CALLS) |
               LP_COST_BIT(LP_COST_ALLOCATED) | LP_COST_BIT(LP_COST_TEMP);
    if (peak)
        out->has |= LP_COST_BIT(LP_COST_PEAK);
    if (leaks.have) {
        out->has |= LP_COST_BIT(LP_COST_LEAKED);
        out->has_leaks = true;
    }
    for (id = 1; id <= count && !out->err; id++) {
        struct lp_stack *s = lp_stack_get(id);
        const struct lp_site_leak *l;
        struct lp_stack_counts c;
        struct lp_site *t;
        int nf, i;

        if (!s)
            continue;
        /* Pending thread deltas included; with sample_bytes=N the
         * counters already hold estimates of the whole heap (blocks in
         * fixed point: sample.h), as do the peak (massif's tree) and the
         * leak records. */
        lp_stack_counts(s, &c);
        if (c.total_blocks == 0)
            continue;
        lp_stack_frames(s, ips);
        nf = lp_leaks_frames(sym, ips, s->nframes, f, MAXF);
        /* f[0] is our hook (malloc, operator new...): the site starts at
         * its caller, as pprof's drop_frames and massif's trees show. */
        for (i = 1; i < nf; i++)
            names[i - 1] = frame_text(&f[i], bufs + (size_t)(i - 1) * 256, 256);
        t = lp_sites_add(out, names, nf > 1 ? (unsigned)nf - 1 : 0);
        if (!t)
            break;
        t->cost[LP_COST_CALLS] = lp_sample_blocks_out(c.total_blocks);
        t->cost[LP_COST_ALLOCATED] = c.total_bytes;
        t->cost[LP_COST_EXIT] = c.live_bytes;
        t->cost[LP_COST_TEMP] =
            lp_sample_blocks_out(c.temp_blocks);
        t->cost[LP_COST_PEAK] = lp_sites_peak_bytes(peak, id);
        l = leaks.have ? lp_sites_leak(id) : NULL;
        if (l) {
            memcpy(t->leak_bytes, l->bytes, sizeof(t->leak_bytes));
            memcpy(t->leak_blocks, l->blocks, sizeof(t->leak_blocks));
            t->cost[LP_COST_LEAKED] =
                l->bytes[LP_KIND_DEFINITE] + l->bytes[LP_KIND_INDIRECT];
            t->oldest = l->oldest;
            t->newest = l->newest;
        }
    }
    free(f);
    free(names);
    free(bufs);
    free(ips);
    lp_sites_peak_free(peak);
    return out->err;
}
