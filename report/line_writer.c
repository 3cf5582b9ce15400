/* SPDX-License-Identifier: MIT */
/*
 * line_writer.c - every report line's "==PID== " prefix, Valgrind's time
 * stamps and error markers (line_writer.h).
 *
 * Memcheck's stamp is the time since Valgrind started, as
 * days:hours:minutes:seconds.milliseconds, between the "==" and the pid:
 * "==00:00:00:00.622 20163== ". Its preamble is printed at start, so it
 * shows 00:00:00:00.000; ours is printed with the rest of the report at
 * exit, and is stamped with the start time, as Memcheck's. The markers
 * are two lines Memcheck prints before and after each error (a heap
 * error, a loss record: its last blank line included, a generated
 * suppression after), each with the prefix.
 */
#include "report/line_writer.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#define MARKER_MAX 128

static struct {
    bool time_stamp;
    int64_t origin_ns;
    bool markers;
    char begin[MARKER_MAX], end[MARKER_MAX];
} style;

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void lp_line_style_set(bool time_stamp, const char *markers)
{
    style.time_stamp = time_stamp;
    style.origin_ns = now_ns();
    style.markers = markers != NULL && markers[0] != '\0';
    style.begin[0] = style.end[0] = '\0';
    if (style.markers) {
        size_t b = strcspn(markers, ",");

        snprintf(style.begin, sizeof(style.begin), "%.*s", (int)b, markers);
        if (markers[b] == ',')
            snprintf(style.end, sizeof(style.end), "%s", markers + b + 1);
    }
}

void lp_line_prefix(FILE *f, int pid, char mark, bool at_start)
{
    if (style.time_stamp) {
        int64_t ms = at_start ? 0 : (now_ns() - style.origin_ns) / 1000000;

        if (ms < 0)
            ms = 0;
        fprintf(f, "%c%c%02u:%02u:%02u:%02u.%03u %d%c%c ", mark, mark,
                (unsigned)(ms / 86400000), (unsigned)(ms / 3600000 % 24),
                (unsigned)(ms / 60000 % 60), (unsigned)(ms / 1000 % 60),
                (unsigned)(ms % 1000), pid, mark, mark);
    } else {
        fprintf(f, "%c%c%d%c%c ", mark, mark, pid, mark, mark);
    }
}

void lp_line(struct lp_line_writer *w, const char *fmt, ...)
{
    va_list ap;

    if (w->err != 0 || w->mute)
        return;
    lp_line_prefix(w->f, w->pid, '=', w->at_start);
    va_start(ap, fmt);
    vfprintf(w->f, fmt, ap);
    va_end(ap);
    if (fputc('\n', w->f) == EOF || ferror(w->f))
        w->err = errno != 0 ? -errno : -EIO;
}

void lp_line_error_begin(struct lp_line_writer *w)
{
    if (style.markers)
        lp_line(w, "%s", style.begin);
}

void lp_line_error_end(struct lp_line_writer *w)
{
    if (style.markers)
        lp_line(w, "%s", style.end);
}
