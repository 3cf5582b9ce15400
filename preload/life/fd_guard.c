/* SPDX-License-Identifier: MIT */
/*
 * fd_guard.c - which descriptors are ours, and moving one when the
 * program wants its number.
 *
 * leakprof keeps a few descriptors for the whole run, each at a high
 * number (1000 up, close-on-exec) so the program's own open() still
 * returns the numbers it returns natively. A daemon, sshd, sudo or a
 * Python service that "closes every other descriptor" (a close() loop up
 * to the limit, close_range, closefrom) used to close them too: the
 * report then went nowhere, where Memcheck's still appears. fs_hooks.c
 * makes those calls skip ours; this file is the list they ask.
 * Context: BOOT (keep), then any (lock-free: relaxed loads of a few
 * ints; a slot is written by keep before any other thread exists, and by
 * a move, which races only with a program that dup2s onto a number it
 * cannot know).
 */
#include "preload/life/fd_guard.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/lp.h"

#define HIGH_FD 1000

static int *slots[LP_FD_GUARD_MAX];
static unsigned nslots;

int lp_fd_guard_dup_high(int fd)
{
    int d = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);

    return d >= 0 ? d : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

int lp_fd_guard_lift(int fd)
{
    int hi = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);

    if (hi < 0)
        return fd;
    (void)syscall(SYS_close, fd);
    return hi;
}

void lp_fd_guard_keep(int *slot)
{
    unsigned i;

    for (i = 0; i < nslots; i++)
        if (slots[i] == slot)
            return;
    if (nslots < LP_FD_GUARD_MAX) {
        lp_store_relaxed(&slots[nslots], slot);
        lp_store_relaxed(&nslots, nslots + 1);
    }
}

void lp_fd_guard_close(int *slot)
{
    int fd = lp_load_relaxed(slot);

    lp_store_relaxed(slot, -1);
    if (fd >= 0)
        (void)syscall(SYS_close, fd);
}

bool lp_fd_guard_ours(int fd)
{
    unsigned i, n = lp_load_relaxed(&nslots);

    if (fd < 0)
        return false;
    for (i = 0; i < n; i++)
        if (lp_load_relaxed(slots[i]) == fd)
            return true;
    return false;
}

int lp_fd_guard_within(unsigned first, unsigned last,
                       unsigned fds[LP_FD_GUARD_MAX])
{
    unsigned i, n = lp_load_relaxed(&nslots);
    int k = 0, j;

    for (i = 0; i < n; i++) {
        int fd = lp_load_relaxed(slots[i]);

        if (fd < 0 || (unsigned)fd < first || (unsigned)fd > last)
            continue;
        /* Insertion, ascending: at most LP_FD_GUARD_MAX. */
        for (j = k; j > 0 && fds[j - 1] > (unsigned)fd; j--)
            fds[j] = fds[j - 1];
        fds[j] = (unsigned)fd;
        k++;
    }
    return k;
}

void lp_fd_guard_move(int fd)
{
    unsigned i, n = lp_load_relaxed(&nslots);

    for (i = 0; i < n; i++) {
        int nfd;

        if (fd < 0 || lp_load_relaxed(slots[i]) != fd)
            continue;
        /* The next free number above, else from HIGH_FD, else from 3:
         * the old one is about to become the program's (dup2 replaces
         * it atomically). -1: lost (diag.c then writes to fd 2 while it
         * is still the original stderr). */
        nfd = fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
        if (nfd < 0)
            nfd = lp_fd_guard_dup_high(fd);
        lp_store_relaxed(slots[i], nfd);
    }
}
