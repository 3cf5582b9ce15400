/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_HTML_WRITE_H
#define LP_PRELOAD_HTML_WRITE_H
/*
 * html_write.h - the html= output: report/html.h's self-contained page
 * (heap over time, flame graph and top consumers of the peak), made from
 * the massif file this process has just written, so the page and
 * `leakprint --html` show the same figures. Needs massif= (the default);
 * a relative massif= path is looked up from the current directory.
 * Context: COLD, guard held (the exit path, the dumper thread).
 */
#include "preload/lp.h"

/* seq 0: at exit, after massif.out; seq N: after massif.out.N, written to
 * the html path + ".N". Does nothing without html=. Failures give one
 * diagnostic line. */
void lp_html_write_file(unsigned seq);

#endif /* LP_PRELOAD_HTML_WRITE_H */
