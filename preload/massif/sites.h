/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SITES_H
#define LP_PRELOAD_SITES_H
/*
 * sites.h - the per-site figures the exports (pprof=, html=) add to the
 * stack table's own counters, gathered with no hot-path cost:
 *  - bytes live at the peak: the massif peak snapshot's raw tree (the
 *    per-stack bytes massif_count.c copied when it took the peak);
 *  - leaks by kind at exit, with the byte time of each stack's oldest and
 *    newest leaked block: the exit report's loss records, handed here by
 *    leakcheck.c after the scan.
 * And lp_sites_collect(): every stack as a report/sites.h record (names
 * symbolized) for the HTML report.
 * Context: COLD, guard held.
 */
#include "preload/lp.h"
#include "report/leaks.h"
#include "report/sites.h"

struct lp_sym;

/* Leak figures of one stack at exit. */
struct lp_site_leak {
    uint32_t id;
    uint64_t bytes[LP_KIND_COUNT], blocks[LP_KIND_COUNT];
    uint64_t oldest, newest;
};

/* leakcheck.c, exit report: keep the unsuppressed records' figures. */
void lp_sites_note_leaks(const struct lp_loss_record *recs, size_t n);
/* The exit report's figures for stack id, or NULL (none, or no report). */
const struct lp_site_leak *lp_sites_leak(uint32_t id);
/* True once an exit report has handed its records over. */
bool lp_sites_have_leaks(void);

/* Bytes live at the peak per stack: load from massif's history (false
 * when massif= is off or no peak was taken), then look up; release. */
struct lp_site_peak;
struct lp_site_peak *lp_sites_peak_load(void);
uint64_t lp_sites_peak_bytes(const struct lp_site_peak *p, uint32_t id);
void lp_sites_peak_free(struct lp_site_peak *p);

/* Every stack with an allocation as a site, frames symbolized (our hook
 * left out, Memcheck's cut after main); with sample_bytes=N the figures
 * are scaled back to the whole heap as the pprof= file's are. Returns 0
 * or -ENOMEM. */
int lp_sites_collect(struct lp_sites *out, struct lp_sym *sym);

#endif /* LP_PRELOAD_SITES_H */
