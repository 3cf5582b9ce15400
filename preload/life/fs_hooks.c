/* SPDX-License-Identifier: MIT */
/*
 * fs_hooks.c - the program's calls that would take our files away: the
 * close family, and chroot.
 *
 * close, close_range, closefrom, dup2 and dup3 never take one of our
 * descriptors (fd_guard.c). As natively, where those do not exist:
 *  - close of one of ours fails with EBADF and closes nothing;
 *  - close_range and closefrom close everything they were asked to but
 *    ours (the range is split around them);
 *  - dup2 and dup3 onto the number of one of ours first move it to
 *    another free number, then do what was asked; with one of ours as
 *    the source (a number the program cannot have) they fail with EBADF.
 * A call that does not involve ours goes straight through. System calls
 * made directly (syscall(2)) are not seen. Nothing there allocates or
 * locks: they run in vfork children and signal handlers.
 *
 * chroot: past it, the program's libraries and their debug files are out
 * of reach (root_dir.c only keeps /proc and our outputs in reach), and a
 * report would show "???" for every frame, where Memcheck, which read
 * them as they were mapped, names them. So the symbolizer opens them all
 * first (libdw itself included: it is loaded lazily), once; it costs the
 * time of reading their debug information, at the chroot instead of at
 * the report.
 *
 * The real functions are looked up once, at start.
 * Context: BOOT (lp_fs_hooks_init), then any; chroot: COLD.
 */
#include "preload/life/fs_hooks.h"

#include <dlfcn.h>
#include <errno.h>
#include <unistd.h>

#include "preload/hot/guard.h"
#include "preload/life/fd_guard.h"
#include "preload/lp.h"
#include "preload/scan/leakcheck.h"

typedef int close_fn(int);
typedef int close_range_fn(unsigned, unsigned, int);
typedef void closefrom_fn(int);
typedef int dup2_fn(int, int);
typedef int dup3_fn(int, int, int);
typedef int chroot_fn(const char *);

static struct {
    close_fn *close;
    close_range_fn *close_range;
    closefrom_fn *closefrom;
    dup2_fn *dup2;
    dup3_fn *dup3;
    chroot_fn *chroot;
} real;

void lp_fs_hooks_init(void)
{
    real.close = (close_fn *)dlsym(RTLD_NEXT, "close");
    real.close_range = (close_range_fn *)dlsym(RTLD_NEXT, "close_range");
    real.closefrom = (closefrom_fn *)dlsym(RTLD_NEXT, "closefrom");
    real.dup2 = (dup2_fn *)dlsym(RTLD_NEXT, "dup2");
    real.dup3 = (dup3_fn *)dlsym(RTLD_NEXT, "dup3");
    real.chroot = (chroot_fn *)dlsym(RTLD_NEXT, "chroot");
}

/* Resolved lazily too, should a call come before our constructor. */
#define REAL(f) (real.f != NULL ? real.f : (lp_fs_hooks_init(), real.f))

LP_EXPORT int close(int fd)
{
    if (LP_UNLIKELY(lp_fd_guard_ours(fd))) {
        errno = EBADF;
        return -1;
    }
    return REAL(close)(fd);
}

/* close_range over [first, last] but ours (the real one must exist). */
static int close_but_ours(unsigned first, unsigned last, int flags)
{
    unsigned fds[LP_FD_GUARD_MAX], lo[LP_FD_GUARD_MAX + 1],
        hi[LP_FD_GUARD_MAX + 1];
    int n = lp_fd_guard_within(first, last, fds), k, i, rc = 0;

    if (n == 0)
        return real.close_range(first, last, flags);
    k = lp_fd_guard_split(first, last, fds, n, lo, hi);
    for (i = 0; i < k && rc == 0; i++)
        rc = real.close_range(lo[i], hi[i], flags);
    return rc;
}

LP_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
    if (REAL(close_range) == NULL) {
        errno = ENOSYS;
        return -1;
    }
    /* CLOSE_RANGE_CLOEXEC closes nothing (ours are close-on-exec). */
    if (first > last || (flags & CLOSE_RANGE_CLOEXEC))
        return real.close_range(first, last, flags);
    return close_but_ours(first, last, flags);
}

LP_EXPORT void closefrom(int lowfd)
{
    unsigned fds[LP_FD_GUARD_MAX];
    unsigned low = lowfd < 0 ? 0 : (unsigned)lowfd, top;
    int n, fd;

    if (REAL(closefrom) == NULL)
        return;
    n = lp_fd_guard_within(low, ~0u, fds);
    if (n == 0) {
        real.closefrom(lowfd);
        return;
    }
    /* Below our highest: close_range around ours, or one close each
     * where the kernel has none (as glibc's closefrom falls back); above
     * it, the real closefrom. */
    top = fds[n - 1];
    if (top > low &&
        (real.close_range == NULL || close_but_ours(low, top - 1, 0) != 0))
        for (fd = (int)low; fd < (int)top; fd++)
            if (!lp_fd_guard_ours(fd))
                (void)REAL(close)(fd);
    real.closefrom((int)top + 1);
}

/* newfd is about to be taken over: move ours out of the way. */
static int make_room(int oldfd, int newfd)
{
    if (LP_UNLIKELY(lp_fd_guard_ours(oldfd))) {
        errno = EBADF;
        return -1;
    }
    if (LP_UNLIKELY(lp_fd_guard_ours(newfd)))
        lp_fd_guard_move(newfd);
    return 0;
}

LP_EXPORT int dup2(int oldfd, int newfd)
{
    if (make_room(oldfd, newfd) != 0)
        return -1;
    return REAL(dup2)(oldfd, newfd);
}

LP_EXPORT int dup3(int oldfd, int newfd, int flags)
{
    if (make_room(oldfd, newfd) != 0)
        return -1;
    return REAL(dup3)(oldfd, newfd, flags);
}

LP_EXPORT int chroot(const char *path)
{
    struct lp_guard g;

    if (lp_load_acquire(&lp_state) == LP_STATE_READY) {
        /* The symbolizer's dlopen below runs under our guard, and every
         * dl call frees the thread's pending dl error message (a failed
         * dlsym of the program's, earlier): that free would bypass the
         * table and leave the block "definitely lost". A successful
         * lookup first, outside the guard, frees it tracked; the message
         * was the program's to lose either way. */
        (void)dlsym(RTLD_DEFAULT, "chroot");
        if (lp_guard_enter(&g)) {
            lp_leakcheck_sym_prime();
            lp_guard_leave(&g);
        }
    }
    return REAL(chroot)(path);
}
