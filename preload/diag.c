/* SPDX-License-Identifier: MIT */
/*
 * diag.c - one-line diagnostics on stderr, "==PID== leakprof: ...".
 * Context: COLD/BOOT (snprintf into a stack buffer, one write(2)).
 */
#include "preload/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

void lp_diag(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    int n = snprintf(buf, sizeof(buf), "==%d== leakprof: ", (int)getpid());

    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(buf) - 2)
        n = sizeof(buf) - 2;
    buf[n++] = '\n';
    (void)!write(2, buf, n);
}

