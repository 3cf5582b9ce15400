/* SPDX-License-Identifier: MIT */
/*
 * fd_guard.c - keeping our private stderr duplicate out of the program's
 * descriptor housekeeping.
 *
 * diag.c writes the report to a duplicate of the stderr the process
 * started with, at a high number, so that a program that closes or
 * reuses fd 2 neither loses the report nor finds it in its data. A
 * daemon, sshd, sudo or a Python service that "closes every other
 * descriptor" (a close() loop up to the limit, close_range, closefrom)
 * used to close the duplicate too, and the report went nowhere; Memcheck
 * still prints it, its descriptors being out of the client's reach.
 *
 * So, as natively (where the duplicate does not exist):
 *  - close(fd) of the duplicate fails with EBADF and closes nothing;
 *  - close_range and closefrom close everything they were asked to but
 *    the duplicate (the range is split around it);
 *  - dup2 and dup3 onto its number first move the duplicate to another
 *    free number, then do what was asked; with it as the source (a number
 *    the program cannot have) they fail with EBADF.
 * Calls that do not involve the duplicate go straight through: one
 * compare. System calls made directly (syscall(2)) are not seen.
 * Nothing here allocates or locks: these run in vfork children and signal
 * handlers. The real functions are looked up once, at start.
 * Context: BOOT (lp_fd_guard_init), then any.
 */
#include "preload/life/fd_guard.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "preload/life/diag.h"
#include "preload/lp.h"

typedef int close_fn(int);
typedef int close_range_fn(unsigned, unsigned, int);
typedef void closefrom_fn(int);
typedef int dup2_fn(int, int);
typedef int dup3_fn(int, int, int);

static struct {
    close_fn *close;
    close_range_fn *close_range;
    closefrom_fn *closefrom;
    dup2_fn *dup2;
    dup3_fn *dup3;
} real;

void lp_fd_guard_init(void)
{
    real.close = (close_fn *)dlsym(RTLD_NEXT, "close");
    real.close_range = (close_range_fn *)dlsym(RTLD_NEXT, "close_range");
    real.closefrom = (closefrom_fn *)dlsym(RTLD_NEXT, "closefrom");
    real.dup2 = (dup2_fn *)dlsym(RTLD_NEXT, "dup2");
    real.dup3 = (dup3_fn *)dlsym(RTLD_NEXT, "dup3");
}

/* Resolved lazily too, should a call come before our constructor. */
#define REAL(f) (real.f != NULL ? real.f : (lp_fd_guard_init(), real.f))

LP_EXPORT int close(int fd)
{
    if (LP_UNLIKELY(fd >= 0 && fd == lp_diag_private_fd())) {
        errno = EBADF;
        return -1;
    }
    return REAL(close)(fd);
}

LP_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
    int p = lp_diag_private_fd(), n, i, rc = 0;
    unsigned lo[2], hi[2];

    if (REAL(close_range) == NULL) {
        errno = ENOSYS;
        return -1;
    }
    /* CLOSE_RANGE_CLOEXEC closes nothing (ours is close-on-exec already). */
    if (p < 0 || first > last || (flags & CLOSE_RANGE_CLOEXEC))
        return real.close_range(first, last, flags);
    n = lp_fd_guard_split(first, last, (unsigned)p, lo, hi);
    for (i = 0; i < n && rc == 0; i++)
        rc = real.close_range(lo[i], hi[i], flags);
    return rc;
}

LP_EXPORT void closefrom(int lowfd)
{
    int p = lp_diag_private_fd(), fd;

    if (REAL(closefrom) == NULL)
        return;
    if (p < 0 || lowfd > p) {
        real.closefrom(lowfd);
        return;
    }
    if (lowfd < 0)
        lowfd = 0;
    /* Below ours: one close_range, or one close each where the kernel
     * has none (as glibc's closefrom falls back). */
    if (lowfd < p && (real.close_range == NULL ||
                      real.close_range((unsigned)lowfd, (unsigned)p - 1, 0) != 0))
        for (fd = lowfd; fd < p; fd++)
            (void)REAL(close)(fd);
    real.closefrom(p + 1);
}

/* newfd is about to be taken over: move ours out of the way. */
static int make_room(int oldfd, int newfd)
{
    int p = lp_diag_private_fd();

    if (p < 0)
        return 0;
    if (oldfd == p) {
        errno = EBADF;
        return -1;
    }
    if (newfd == p)
        lp_diag_private_move();
    return 0;
}

LP_EXPORT int dup2(int oldfd, int newfd)
{
    if (LP_UNLIKELY(make_room(oldfd, newfd) != 0))
        return -1;
    return REAL(dup2)(oldfd, newfd);
}

LP_EXPORT int dup3(int oldfd, int newfd, int flags)
{
    if (LP_UNLIKELY(make_room(oldfd, newfd) != 0))
        return -1;
    return REAL(dup3)(oldfd, newfd, flags);
}
