/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_HTML_SITES_H
#define LP_REPORT_HTML_SITES_H
/*
 * html_sites.h - the HTML report's sections built from allocation sites
 * (sites.h), heaptrack's questions:
 *  - a flame graph per cost the source has, with a selector (live at
 *    peak, live at exit, leaked, allocation calls, bytes allocated,
 *    temporary allocations): <select id="flame-cost">, each graph in a
 *    <div class="flame" data-cost="KEY">, one shown at a time;
 *  - the top tables: <table class="top" data-cost="KEY"> for most calls,
 *    most bytes allocated, most temporary, peak consumers and leaked, each
 *    site with its innermost frame and its full stack (<details>);
 *  - the leak table by kind (<table id="leaks">): bytes, blocks, the byte
 *    time of the oldest and newest block, full stack.
 * Tables keep their first rows (TOP_ROWS, LEAK_ROWS per kind) and say how
 * many more there are, so a million sites still give a small page.
 * Context: COLD.
 */
#include <stdio.h>

#include "report/sites.h"

void lp_html_sites_flames(FILE *out, const struct lp_sites *s,
                          const char *name);
void lp_html_sites_tables(FILE *out, const struct lp_sites *s);
void lp_html_sites_leaks(FILE *out, const struct lp_sites *s);

/* html.c's escaping and thousands separators, shared. */
void lp_html_esc(FILE *out, const char *s);
const char *lp_html_sep(uint64_t n, char *buf, size_t len);

#endif /* LP_REPORT_HTML_SITES_H */
