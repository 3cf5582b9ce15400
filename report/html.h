/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_HTML_H
#define LP_REPORT_HTML_H
/*
 * html.h - one self-contained HTML report of a massif profile: the heap
 * over time (an inline SVG chart, one marker per snapshot, detailed ones
 * larger, the peak marked; hovering a marker shows that snapshot), the
 * interactive flame graph of the peak (flame.h) and a table of the peak's
 * top consumers. No network and no external file: styles and scripts are
 * inline, so the page opens from file:// anywhere, offline.
 *
 * For tests: window.onerror writes any script error into the page
 * (#js-errors, and data-js-error on <html>); when every script has run,
 * <body> gets data-js-ok="1".
 * Context: COLD (leakprint; libleakprof.so's html= writer).
 */
#include <stddef.h>
#include <stdio.h>

struct lp_massif;

/* snap = -1: the default snapshot (the peak) for the flame graph and the
 * table. Returns 0, -EINVAL (err set) or -ENOMEM. */
int lp_html_report(FILE *out, const struct lp_massif *m, const char *name,
                   long snap, char *err, size_t errlen);

/*
 * The same with allocation sites (sites.h; NULL: as lp_html_report): the
 * heap chart (when m is not NULL), then flame graphs by cost with a
 * selector, the leak table by kind with stacks and ages, and the
 * heaptrack-style top tables (html_sites.h) instead of the massif tree's
 * flame graph and table. m == NULL: a page of the sites alone (leakprint
 * --html of a pprof file).
 */
struct lp_sites;
int lp_html_report_sites(FILE *out, const struct lp_massif *m,
                         const char *name, long snap,
                         const struct lp_sites *sites, char *err,
                         size_t errlen);

#endif /* LP_REPORT_HTML_H */
