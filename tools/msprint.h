/* SPDX-License-Identifier: MIT */
#ifndef LP_TOOLS_MSPRINT_H
#define LP_TOOLS_MSPRINT_H
/*
 * msprint.h - render a struct lp_massif exactly as Valgrind 3.19's ms_print
 * prints it (FORMATS.md section 2): header, graph, snapshot summary,
 * snapshot tables and trees.
 * Context: COLD (leakprint and its fuzz target).
 */
#include <stddef.h>
#include <stdio.h>

struct lp_massif;

struct lp_msprint_opts {
    double threshold;           /* --threshold, 0..100 (printed %05.2f) */
    int width;                  /* --x, 4..1000 */
    int height;                 /* --y, 4..1000 */
    int argc;                   /* arguments echoed on the */
    char **argv;                /* "ms_print arguments:" line */
};

/*
 * Parse ms_print's --threshold value: digits and dots, optionally one
 * trailing '%', value in [0, 100]. Returns 0 and sets *out, or -EINVAL.
 */
int lp_msprint_parse_threshold(const char *text, double *out);

/*
 * Print m (best read with LP_MASSIF_READ_MS_PRINT) to out. Like ms_print,
 * the header is printed before the checks that need the snapshots, so a
 * file with zero snapshots or a bad time_unit gives the header and then -EINVAL with a message in err ("no snapshots"
 * etc., without file name). -ENOMEM on allocation failure.
 */
int lp_msprint(FILE *out, const struct lp_massif *m,
               const struct lp_msprint_opts *o, char *err, size_t errlen);

#endif /* LP_TOOLS_MSPRINT_H */
