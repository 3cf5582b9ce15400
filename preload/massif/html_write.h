/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_HTML_WRITE_H
#define LP_PRELOAD_HTML_WRITE_H
/*
 * html_write.h - the html= output: report/html.h's self-contained page.
 * The heap chart comes from the massif file this process has just written
 * (the same chart as `leakprint --html` draws; a relative massif= path is
 * looked up from the current directory; without massif= there is none);
 * the flame graphs by cost, the leak table with ages and the top tables
 * from the stack table's per-site figures (preload/massif/sites.h).
 * Context: COLD, guard held (the exit path, the dumper thread).
 */
#include "preload/lp.h"

/* seq 0: at exit, after massif.out; seq N: after massif.out.N, written to
 * the html path + ".N". Does nothing without html=. Failures give one
 * diagnostic line. */
void lp_html_write_file(unsigned seq);

#endif /* LP_PRELOAD_HTML_WRITE_H */
