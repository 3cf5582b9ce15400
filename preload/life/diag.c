/* SPDX-License-Identifier: MIT */
/*
 * diag.c - where our own output goes: the stderr the process started with.
 *
 * Many programs close fd 2 before they exit (ls, sort, tar...), and some
 * then open a file that takes number 2: a report written to "fd 2" would
 * be lost or, worse, land in the program's data. Like Valgrind, we keep a
 * private duplicate (close-on-exec, at a high number) taken when the
 * library starts, and remember what it was (device and inode). Writes go
 * to the duplicate while it still is that file; if the program closed it
 * too, to fd 2 only if fd 2 still is that file; otherwise nowhere.
 * fd_guard.c keeps the program's close, close_range, closefrom, dup2 and
 * dup3 off the duplicate (a daemon closing every descriptor).
 * Context: COLD/BOOT; lp_stderr_write is async-signal-safe.
 */
#include "preload/life/diag.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/life/fd_guard.h"
#include "preload/lp.h"

static struct {
    int fd; /* our duplicate, -1 when stderr was closed at start */
    dev_t dev;
    ino_t ino;
    bool known;
} err = {.fd = -1};

void lp_diag_init(void)
{
    struct stat st;
    int fd;

    if (err.known)
        return;
    if (fstat(2, &st) != 0) {
        /* Closed at start: no stderr of the program's to write to. A
         * descriptor 2 it opens later is its own (a data file): nothing
         * of ours goes there (Valgrind will not start then; we run the
         * program and lose what would have gone to stderr). */
        err.known = true;
        return;
    }
    fd = lp_fd_guard_dup_high(2);
    err.dev = st.st_dev;
    err.ino = st.st_ino;
    err.fd = fd;
    err.known = true;
    lp_fd_guard_keep(&err.fd);
}

static bool is_original(int fd)
{
    struct stat st;

    return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == err.dev &&
           st.st_ino == err.ino;
}

/* The descriptor that still is the original stderr, or -1. */
int lp_stderr_fd(void)
{
    int fd;

    if (!err.known)
        return 2; /* before the constructor ran: nothing to protect yet */
    fd = lp_load_relaxed(&err.fd);
    if (is_original(fd))
        return fd;
    if (is_original(2))
        return 2;
    return -1;
}

/* A program may have made the descriptor non-blocking (O_NONBLOCK is the
 * open file's, shared with us): wait until it takes more, up to 30 s
 * without progress, rather than drop the rest (a report to a slow pipe
 * stopped at 64 KiB, mid-line). */
bool lp_write_wait(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLOUT };
    int n;

    do
        n = poll(&p, 1, 30 * 1000);
    while (n < 0 && errno == EINTR);
    return n > 0 && !(p.revents & (POLLERR | POLLNVAL));
}

void lp_write_all(int fd, const char *buf, size_t len)
{
    while (fd >= 0 && len > 0) {
        ssize_t n = write(fd, buf, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
            lp_write_wait(fd))
            continue;
        if (n <= 0)
            break;
        buf += n;
        len -= (size_t)n;
    }
}

void lp_stderr_write(const char *buf, size_t len)
{
    lp_write_all(lp_stderr_fd(), buf, len);
}

void lp_diag(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    int saved = errno;
    int n = snprintf(buf, sizeof(buf), "==%d== leakprof: ", (int)getpid());

    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(buf) - 2)
        n = sizeof(buf) - 2;
    buf[n++] = '\n';
    lp_stderr_write(buf, (size_t)n);
    errno = saved;
}
