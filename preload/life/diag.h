/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_DIAG_H
#define LP_PRELOAD_DIAG_H
/*
 * diag.h - leakprof's own output channel: the stderr the process started
 * with (a private duplicate, so a program that closes or reuses fd 2 does
 * not lose our report or receive it in its data), and one-line warnings,
 * prefixed "==PID== leakprof: ", written with a single write(2), never
 * stdio buffers. Context: COLD and BOOT (lp_diag formats: not SIGNAL).
 */
#include <stdbool.h>
#include <stddef.h>

/* Take the private duplicate of fd 2 (constructor, once). */
void lp_diag_init(void);

/* The descriptor that still is the original stderr, or -1 if the program
 * closed every copy of it. */
int lp_stderr_fd(void);

/* Write all of buf to fd (retrying short writes and EINTR; a negative fd
 * or an error drops the rest). */
/* Wait (up to 30 s) until fd, non-blocking, takes more; false if not. */
bool lp_write_wait(int fd);
void lp_write_all(int fd, const char *buf, size_t len);

/* Write all of buf to the original stderr (dropped if it is gone). */
void lp_stderr_write(const char *buf, size_t len);

void lp_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LP_PRELOAD_DIAG_H */
