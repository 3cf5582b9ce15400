/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_DIAG_H
#define LP_PRELOAD_DIAG_H
/*
 * diag.h - leakprof's own warnings: one line on stderr, prefixed
 * "==PID== leakprof: ", written with a single write(2), never stdio
 * buffers. Context: COLD and BOOT (not SIGNAL: it formats).
 */
void lp_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LP_PRELOAD_DIAG_H */
