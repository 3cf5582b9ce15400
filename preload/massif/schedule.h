/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SCHED_H
#define LP_PRELOAD_SCHED_H
/*
 * schedule.h - Massif's snapshot schedule as a pure state machine
 * (FORMATS.md 1.7): which requests become snapshots, which snapshots are
 * detailed or the peak, and how a full array is culled.
 *
 * The caller feeds requests and gets decisions:
 *   Normal request at time t:   k = lp_sched_want_normal(s, t)
 *   Peak request with total T:  k = lp_sched_want_peak(s, T)
 * k is LP_SCHED_NONE (skip) or the kind of snapshot to take. The caller then
 * measures the state (for a detailed or peak kind it captures a tree and
 * passes it as an opaque pointer) and records it with lp_sched_add(). A
 * snapshot deleted by culling has its tree handed to the drop callback.
 *
 * No globals and no locking: one struct lp_sched per profile, serialised
 * by its owner (snapshot.c holds the snapshot lock). The snapshot array is
 * the caller's memory (capacity = max_snapshots). Nothing here allocates,
 * so it may run on the hot path under that lock.
 * Context: HOT (under the snapshot lock) and tests.
 */
#include "preload/lp.h"

enum lp_sched_kind {
    LP_SCHED_NONE = -1,    /* request skipped */
    LP_SCHED_EMPTY = 0,    /* heap_tree=empty */
    LP_SCHED_DETAILED = 1, /* heap_tree=detailed (also demoted old peaks) */
    LP_SCHED_PEAK = 2,     /* heap_tree=peak: the current peak */
};

struct lp_sched_snap {
    int64_t time;
    uint64_t heap, extra, stacks;
    int kind;   /* enum lp_sched_kind, never NONE */
    void *tree; /* the caller's tree for DETAILED/PEAK, or NULL */
};

typedef void (*lp_sched_drop_fn)(void *ctx, void *tree);

struct lp_sched {
    struct lp_sched_snap *snaps; /* [cap], the first n in use, time order */
    unsigned cap, n;
    int64_t min_interval;  /* starts 0; set by each cull */
    int64_t earliest_next; /* a Normal request before this time is skipped */
    unsigned since_detailed, detailed_freq;
    uint64_t peak_total;
    double peak_inaccuracy; /* percent */
    unsigned culls;         /* how many culls ran (tests, diagnostics) */
    lp_sched_drop_fn drop;
    void *drop_ctx;
};

/* Start a schedule over buf[cap] (cap >= 2; massif's --max-snapshots is
 * 10..1000). detailed_freq >= 1. drop may be NULL. */
void lp_sched_init(struct lp_sched *s, struct lp_sched_snap *buf,
                   unsigned cap, unsigned detailed_freq,
                   double peak_inaccuracy, lp_sched_drop_fn drop,
                   void *drop_ctx);

/* Normal request: NONE if time < earliest_next, else EMPTY or DETAILED
 * (detailed when since_detailed == detailed_freq - 1). */
int lp_sched_want_normal(const struct lp_sched *s, int64_t time);

/* Peak request: PEAK if total > peak_limit(s), else NONE. The minimum
 * interval does not apply. */
int lp_sched_want_peak(const struct lp_sched *s, uint64_t total);

/* The total a Peak request must exceed: peak_total +
 * floor(peak_total * peak_inaccuracy / 100). Cached by the hot path. */
uint64_t lp_sched_peak_limit(const struct lp_sched *s);

/* Record a snapshot the schedule asked for (snap->kind as returned by
 * want_*; a DETAILED/PEAK snapshot whose tree could not be captured may
 * pass tree == NULL and is then written as empty). Demotes the previous
 * peak (it keeps its tree), updates the detailed rhythm, culls when the
 * array is full and sets earliest_next. */
void lp_sched_add(struct lp_sched *s, const struct lp_sched_snap *snap);

/* Massif's cull (exposed for tests): delete floor(cap / 2) snapshots with
 * the smallest spans, never the first, the last or the current peak;
 * returns the new minimum interval. Called by lp_sched_add. */
int64_t lp_sched_cull(struct lp_sched *s);

#endif /* LP_PRELOAD_SCHED_H */
