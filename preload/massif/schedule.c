/* SPDX-License-Identifier: MIT */
/*
 * schedule.c - Massif's snapshot schedule (FORMATS.md 1.7), no state of its
 * own beyond struct lp_sched.
 *
 * The rules, in the order massif applies them:
 *  - A Normal request (after every allocation and free) is skipped while
 *    time < earliest_next; otherwise it is taken, detailed every
 *    detailed_freq-th snapshot.
 *  - A Peak request (before a free, or before a shrinking realloc) is taken
 *    when the total exceeds the last peak by more than peak_inaccuracy
 *    percent. It is always detailed and ignores the minimum interval. The
 *    previous peak, if still in the array, becomes an ordinary detailed
 *    snapshot and keeps its tree.
 *  - Any detailed snapshot (peaks too) restarts the detailed rhythm.
 *  - When the array fills, half of it is deleted, each time the snapshot
 *    whose neighbours are closest in time (first one on ties), sparing the
 *    first, the last and the current peak. The smallest remaining gap
 *    between survivors that are not both uncullable becomes the minimum
 *    interval between Normal snapshots from then on.
 * Context: HOT (under the snapshot lock), tests.
 */
#include "preload/massif/schedule.h"

#include <string.h>

void lp_sched_init(struct lp_sched *s, struct lp_sched_snap *buf,
                   unsigned cap, unsigned detailed_freq,
                   double peak_inaccuracy, lp_sched_drop_fn drop,
                   void *drop_ctx)
{
    memset(s, 0, sizeof(*s));
    s->snaps = buf;
    s->cap = cap < 2 ? 2 : cap;
    s->detailed_freq = detailed_freq ? detailed_freq : 1;
    s->peak_inaccuracy = peak_inaccuracy;
    s->drop = drop;
    s->drop_ctx = drop_ctx;
}

int lp_sched_want_normal(const struct lp_sched *s, int64_t time)
{
    if (time < s->earliest_next)
        return LP_SCHED_NONE;
    return s->since_detailed + 1 >= s->detailed_freq ? LP_SCHED_DETAILED
                                                     : LP_SCHED_EMPTY;
}

uint64_t lp_sched_peak_limit(const struct lp_sched *s)
{
    /* Massif computes the slack in floating point and truncates it. */
    return s->peak_total +
           (uint64_t)((double)s->peak_total * s->peak_inaccuracy / 100.0);
}

int lp_sched_want_peak(const struct lp_sched *s, uint64_t total)
{
    return total > lp_sched_peak_limit(s) ? LP_SCHED_PEAK : LP_SCHED_NONE;
}

static bool uncullable(const struct lp_sched *s, unsigned i)
{
    return i == 0 || i == s->n - 1 || s->snaps[i].kind == LP_SCHED_PEAK;
}

int64_t lp_sched_cull(struct lp_sched *s)
{
    unsigned todo = s->cap / 2, i;
    int64_t min_gap = -1;

    while (todo-- > 0 && s->n > 2) {
        unsigned victim = 0;
        int64_t best = 0;

        for (i = 1; i + 1 < s->n; i++) {
            int64_t span;

            if (s->snaps[i].kind == LP_SCHED_PEAK)
                continue;
            span = s->snaps[i + 1].time - s->snaps[i - 1].time;
            if (victim == 0 || span < best) {
                victim = i;
                best = span;
            }
        }
        if (victim == 0)
            break; /* only uncullable snapshots are left */
        if (s->drop && s->snaps[victim].tree)
            s->drop(s->drop_ctx, s->snaps[victim].tree);
        memmove(&s->snaps[victim], &s->snaps[victim + 1],
                (s->n - victim - 1) * sizeof(s->snaps[0]));
        s->n--;
    }
    for (i = 1; i < s->n; i++) {
        int64_t gap = s->snaps[i].time - s->snaps[i - 1].time;

        if (uncullable(s, i) && uncullable(s, i - 1))
            continue;
        if (min_gap < 0 || gap < min_gap)
            min_gap = gap;
    }
    s->culls++;
    return min_gap < 0 ? s->min_interval : min_gap;
}

void lp_sched_add(struct lp_sched *s, const struct lp_sched_snap *snap)
{
    struct lp_sched_snap *dst;
    unsigned i;

    if (snap->kind == LP_SCHED_PEAK) {
        for (i = 0; i < s->n; i++)
            if (s->snaps[i].kind == LP_SCHED_PEAK)
                s->snaps[i].kind = LP_SCHED_DETAILED;
        s->peak_total = snap->heap + snap->extra + snap->stacks;
    }
    if (s->n == s->cap) /* only if a cull could not free anything */
        return;
    dst = &s->snaps[s->n];
    *dst = *snap;
    if (dst->kind != LP_SCHED_EMPTY && dst->tree == NULL)
        dst->kind = LP_SCHED_EMPTY;
    if (snap->kind != LP_SCHED_EMPTY)
        s->since_detailed = 0;
    else
        s->since_detailed++;
    s->n++;
    if (s->n == s->cap)
        s->min_interval = lp_sched_cull(s);
    s->earliest_next = snap->time + s->min_interval;
}
