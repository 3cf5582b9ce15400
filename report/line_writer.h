/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_LINE_WRITER_H
#define LP_REPORT_LINE_WRITER_H
/*
 * line_writer.h - the report's lines as Valgrind prints them: "==PID== "
 * before each (or "--PID-- " for the side lines of -s and -v), with
 * Valgrind's --time-stamp=yes ("==00:00:00:01.234 PID== ", the time
 * since the profiler started) and --error-markers=BEGIN,END (a line
 * before and after each error) when the library asked for them.
 *
 * Context: COLD (report writing; stdio).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The report writers' output with a sticky first error (err, 0 or
 * -errno); mute drops lines (quiet mode); at_start: the lines Valgrind
 * prints when the program starts (the preamble), stamped as then. */
struct lp_line_writer {
    FILE *f;
    int pid;
    int err;
    bool mute;
    bool at_start;
};
void lp_line(struct lp_line_writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The style of every line from now on: time stamps counted from now
 * (the profiler's start), and the error markers given as "begin,end"
 * (NULL or "": none; no comma: an end marker of ""). */
void lp_line_style_set(bool time_stamp, const char *markers);

/* A line's prefix: mark twice ('=' or '-'), the time stamp if on, the
 * pid, mark twice and a space. at_start: stamped with the start time. */
void lp_line_prefix(FILE *f, int pid, char mark, bool at_start);

/* The error markers' lines around one error (nothing without markers). */
void lp_line_error_begin(struct lp_line_writer *w);
void lp_line_error_end(struct lp_line_writer *w);

#endif /* LP_REPORT_LINE_WRITER_H */
