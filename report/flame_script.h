/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_FLAME_SCRIPT_H
#define LP_REPORT_FLAME_SCRIPT_H
/*
 * flame_script.h - the JavaScript that makes a flame graph SVG
 * interactive, as flamegraph.pl's are: click a frame to zoom into it,
 * "Reset Zoom" to go back, "Search" for a regular expression (matches
 * turn magenta and "Matched: P%" gives their share, nested matches
 * counted once), hover shows a frame's title at the bottom. Opening the
 * file with ?s=REGEX searches at load.
 *
 * The script is written as the last child of the flame graph's <svg>
 * element and works on that element only (document.currentScript's
 * parent), so a standalone .svg file and several graphs inline in one
 * HTML page all work. Frames are <g class="f"> with data-n (name), data-b
 * (bytes), data-l (depth), data-x and data-w (unzoomed pixels); the <svg>
 * carries data-width, data-pad and data-total. When it has run, the svg
 * has data-js-ok="1"; an exception is written to data-js-error.
 * Context: COLD (leakprint; libleakprof.so's html= writer).
 */
#include <stdio.h>

/* Write the <script> element (CDATA-wrapped). */
void lp_flame_script(FILE *out);

#endif /* LP_REPORT_FLAME_SCRIPT_H */
