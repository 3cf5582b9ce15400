/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_FLAME_SITES_H
#define LP_REPORT_FLAME_SITES_H
/*
 * flame_sites.h - a flame graph of allocation sites (sites.h) weighted by
 * one cost: live at peak, at exit, leaked, allocation calls, bytes
 * allocated or temporary allocations. Frames show function names (the
 * "(file:line)" of a site's frame is dropped, as in the massif flame
 * graph), outermost at the bottom.
 * Context: COLD.
 */
#include "report/flame.h"
#include "report/sites.h"

/* A new flame tree of s weighted by cost c (lp_flame_free it), or NULL
 * when out of memory. */
struct lp_flame *lp_flame_of_sites(const struct lp_sites *s, enum lp_cost c);

/* Several graphs of the same sites: prepare once (shortened names, sites
 * sorted by path), build each cost, release. NULL when out of memory. */
struct lp_flame_sites_prep;
struct lp_flame_sites_prep *lp_flame_sites_prepare(const struct lp_sites *s);
struct lp_flame *lp_flame_sites_build(const struct lp_flame_sites_prep *p,
                                      enum lp_cost c);
void lp_flame_sites_release(struct lp_flame_sites_prep *p);

#endif /* LP_REPORT_FLAME_SITES_H */
