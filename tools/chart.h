/* SPDX-License-Identifier: MIT */
#ifndef LP_TOOLS_CHART_H
#define LP_TOOLS_CHART_H
/*
 * chart.h - ms_print's ASCII heap graph, byte for byte (FORMATS.md 2.5).
 * Context: COLD (leakprint only). Allocates one (X+1) x (Y+1) canvas.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One snapshot as the graph sees it. bar is ':' (normal), '@' (detailed)
 * or '#' (the one whose index equals the peak's snapshot number). */
struct lp_chart_point {
    int64_t time;
    uint64_t total;
    char bar;
};

/*
 * Print the graph for n >= 1 points to out: the unit line, Y+1 rows and
 * the x-label line. width/height are ms_print's --x/--y (4..1000);
 * time_unit is "i", "ms" or "B". Returns 0, -EINVAL for an unknown time
 * unit or a negative end time (ms_print dies there too), or -ENOMEM.
 */
int lp_chart_print(FILE *out, const struct lp_chart_point *pts, size_t n,
                   int width, int height, const char *time_unit);

/* Thousands separators in the leading run of digits of s, as ms_print
 * does ("1234567 " -> "1,234,567 "). Writes at most outlen bytes
 * (NUL included) and returns out. */
char *lp_commify(const char *s, char *out, size_t outlen);

#endif /* LP_TOOLS_CHART_H */
