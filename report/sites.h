/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_SITES_H
#define LP_REPORT_SITES_H
/*
 * sites.h - allocation sites with heaptrack's per-site figures, as the
 * HTML report and the flame graphs read them: one record per allocation
 * stack (frames as function names, innermost first), its costs (live at
 * the peak, live at exit, leaked, allocation calls, bytes allocated,
 * temporary allocations), its leaks by kind and the age of its oldest and
 * newest leaked block.
 *
 * Filled by libleakprof.so from its stack table (preload/massif/sites.c) or by
 * leakprint from a pprof file (report/pprof_read.c). Frame names are
 * interned: a million stacks of thirty frames share a few thousand
 * strings. A cost the source does not know is marked absent (has), so
 * pages and selectors offer only what there is.
 * Context: COLD. Memory: plain malloc.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/leaks.h"

enum lp_cost {
    LP_COST_PEAK = 0,  /* bytes live at the heap's peak (massif's peak) */
    LP_COST_EXIT,      /* bytes live at exit (or at the snapshot) */
    LP_COST_LEAKED,    /* bytes definitely + indirectly lost at exit */
    LP_COST_CALLS,     /* allocation calls */
    LP_COST_ALLOCATED, /* bytes allocated, whole run */
    LP_COST_TEMP,      /* temporary allocations (heaptrack's definition) */
    LP_COST_COUNT
};
#define LP_COST_BIT(c) (1u << (c))

/* Short names (option values, HTML ids): peak, exit, leaked, calls,
 * allocated, temp. */
extern const char *const lp_cost_key[LP_COST_COUNT];
/* What a reader sees: "live at peak", ... */
extern const char *const lp_cost_title[LP_COST_COUNT];
/* Unit of each cost: "bytes" or "calls". */
extern const char *const lp_cost_unit[LP_COST_COUNT];
/* The cost for a key, or -1. */
int lp_cost_find(const char *key);

struct lp_site {
    uint32_t first, nframes; /* frame name ids in lp_sites.frames[first..] */
    uint64_t cost[LP_COST_COUNT];
    uint64_t leak_bytes[LP_KIND_COUNT], leak_blocks[LP_KIND_COUNT];
    uint64_t oldest, newest; /* byte time of the oldest/newest leaked
                                (or live) block; 0 unknown */
};

struct lp_sites {
    struct lp_site *v;
    size_t n, cap;
    uint32_t *frames; /* name ids, innermost first per site */
    size_t nframes, capframes;
    char **names;     /* interned frame names */
    size_t nnames, capnames;
    uint32_t *hash;   /* name hash table: id + 1, 0 free */
    size_t hcap;
    unsigned has;     /* LP_COST_BIT set: costs the source knows */
    bool has_leaks;   /* leak_* and ages are known */
    int err;          /* sticky: first failure (-ENOMEM) */
    char *command;    /* the profiled command, when known (malloc'd) */
};

void lp_sites_init(struct lp_sites *s);
void lp_sites_release(struct lp_sites *s);

/* Add a site: names[0..n) innermost first. Returns the site (zeroed
 * figures, for the caller to fill) or NULL after an error. */
struct lp_site *lp_sites_add(struct lp_sites *s, const char *const *names,
                             unsigned n);

/* Frame i (0 = innermost) of a site. */
static inline const char *lp_site_frame(const struct lp_sites *s,
                                        const struct lp_site *t, unsigned i)
{
    return s->names[s->frames[t->first + i]];
}

#endif /* LP_REPORT_SITES_H */
