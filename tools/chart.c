/* SPDX-License-Identifier: MIT */
/*
 * chart.c - ms_print's ASCII graph.
 * Context: COLD.
 *
 * Every floating-point step is done in the order ms_print does it, in IEEE
 * double, so that a bar reaches exactly the rows it reaches there: the
 * column is trunc((t / end) * X) + 1 and a row y is filled when
 * (double)total >= y * (peak / Y). Reordering either expression changes
 * the picture for some inputs (FORMATS.md 2.5).
 */
#include "tools/chart.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *lp_commify(const char *s, char *out, size_t outlen)
{
    size_t digits = strspn(s, "0123456789"), o = 0;

    if (outlen == 0)
        return out;
    for (size_t i = 0; s[i] != '\0' && o + 1 < outlen; i++) {
        if (i > 0 && i < digits && (digits - i) % 3 == 0) {
            out[o++] = ',';
            if (o + 1 >= outlen)
                break;
        }
        out[o++] = s[i];
    }
    out[o] = '\0';
    return out;
}

/* ms_print's 5-wide number: the unscaled value below 1000, else the scaled
 * value with 3, 2 or 1 decimals. */
static void label5(char *buf, size_t len, double v, double scaled)
{
    if (v < 1000)
        snprintf(buf, len, "%5lld", (long long)v);
    else if (scaled < 10)
        snprintf(buf, len, "%5.3f", scaled);
    else if (scaled < 100)
        snprintf(buf, len, "%5.2f", scaled);
    else
        snprintf(buf, len, "%5.1f", scaled);
}

/* Scale by 1024 while >= 1000 through units[1..]; units[0] is unscaled. */
static const char *scale1024(double v, const char *const *units, double *s)
{
    const char *unit = units[0];

    *s = v;
    for (int i = 1; units[i] != NULL; i++) {
        if (*s >= 1000) {
            *s /= 1024;
            unit = units[i];
        }
    }
    return unit;
}

static const char *const byte_units[] = { "B",  "KB", "MB", "GB", "TB",
                                          "PB", "EB", "ZB", "YB", NULL };
static const char *const instr_units[] = { "i",  "ki", "Mi", "Gi", "Ti",
                                           "Pi", "Ei", "Zi", "Yi", NULL };

static int time_label(const char *tu, double v, char *num, size_t len,
                      const char **unit)
{
    double s;

    if (strcmp(tu, "B") == 0) {
        *unit = scale1024(v, byte_units, &s);
    } else if (strcmp(tu, "i") == 0) {
        *unit = scale1024(v, instr_units, &s);
    } else if (strcmp(tu, "ms") == 0) {
        *unit = "ms";
        s = v;
        if (v >= 1000) {
            s = v / 1000;
            *unit = "s";
        }
        if (s >= 3600) {
            s /= 3600;
            *unit = "h";
        }
    } else {
        return -EINVAL;
    }
    label5(num, len, v, s);
    return 0;
}

int lp_chart_print(FILE *out, const struct lp_chart_point *pts, size_t n,
                   int width, int height, const char *time_unit)
{
    const size_t cols = (size_t)width + 1;
    char *canvas, xnum[64], ynum[64];
    const char *xunit, *yunit;
    double end_time, peak = 0, k, ys;
    long long x = 0, prev_x, prev_ymax = 0;
    char prev_char = ':';

    if (n == 0 || pts[n - 1].time < 0)
        return -EINVAL;
    end_time = (double)pts[n - 1].time;
    if (end_time == 0)
        end_time = 1;
    for (size_t i = 0; i < n; i++)
        if ((double)pts[i].total > peak)
            peak = (double)pts[i].total;
    if (peak == 0)
        peak = 1;
    if (time_label(time_unit, end_time, xnum, sizeof(xnum), &xunit) != 0)
        return -EINVAL;
    yunit = scale1024(peak, byte_units, &ys);
    label5(ynum, sizeof(ynum), peak, ys);

    canvas = malloc(cols * ((size_t)height + 1));
    if (canvas == NULL)
        return -ENOMEM;
#define CELL(cx, cy) canvas[(size_t)(cy) * cols + (size_t)(cx)]
    memset(canvas, ' ', cols * ((size_t)height + 1));
    for (int c = 1; c <= width; c++)
        CELL(c, 0) = '-';
    for (int r = 1; r <= height; r++)
        CELL(0, r) = '|';
    CELL(0, 0) = '+';
    CELL(width, 0) = '>';
    CELL(0, height) = '^';

    k = peak / height;
    for (size_t i = 0; i < n; i++) {
        double t = (double)pts[i].time;
        long long ymax = 0;
        char ch = pts[i].bar;

        prev_x = x;
        if (t == end_time)
            x = width;
        else {
            double col = (t / end_time) * width;

            /* Columns past X are never printed and a gap fill stops at
             * X, so every x > X draws the same picture as X + 1; the
             * clamp only keeps huge times (a non-monotonic file) from
             * overflowing the conversion. */
            x = col >= width ? width + 1 : (long long)col + 1;
        }
        if (prev_ymax > 0)
            for (long long c = prev_x + 1; c < x; c++)
                if (c >= 0 && c <= width)
                    CELL(c, prev_ymax) = prev_char;
        for (int r = 1; r <= height; r++) {
            if ((double)pts[i].total >= r * k) {
                if (x >= 0 && x <= width) {
                    char *cell = &CELL(x, r);

                    if (ch == '#' || (ch == '@' && *cell != '#') ||
                        (ch == ':' && (*cell == ' ' || *cell == ':')))
                        *cell = ch;
                }
                ymax = r;
            }
        }
        prev_ymax = ymax;
        prev_char = ch;
    }

    fprintf(out, "    %2s\n", yunit);
    for (int r = height; r >= 0; r--) {
        if (r == height)
            fputs(ynum, out);
        else if (r == 0)
            fputs("   0 ", out);
        else
            fputs("     ", out);
        fwrite(&CELL(0, r), 1, cols, out);
        if (r == 0)
            fputs(xunit, out);
        fputc('\n', out);
    }
#undef CELL
    fputs("     0", out);
    for (int c = 5; c < width; c++)
        fputc(' ', out);
    fprintf(out, "%5s\n", xnum);
    free(canvas);
    return 0;
}
