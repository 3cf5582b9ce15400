/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_FD_GUARD_H
#define LP_PRELOAD_FD_GUARD_H
/*
 * fd_guard.h - the descriptors leakprof keeps open for the whole run (the
 * stderr duplicate, diag.c; the start-up root, root_dir.c; the snapshot
 * signal's pipe, snapshot_signal.c), kept out of
 * the program's reach as Valgrind keeps its own: fs_hooks.c interposes
 * close, close_range, closefrom, dup2 and dup3 and asks here.
 * Context: BOOT (lp_fd_guard_keep), then any: lock-free, async-signal-
 * safe, no allocation (the hooks run in vfork children and handlers).
 */
#include <stdbool.h>

#define LP_FD_GUARD_MAX 16

/* A close-on-exec duplicate of fd at a high number (1000 up: the program's
 * own open() still returns the numbers it returns natively), else at the
 * lowest free from 3; -1 if none. */
int lp_fd_guard_dup_high(int fd);

/* fd moved to a high number (the low one closed); fd itself when it
 * cannot be moved. */
int lp_fd_guard_lift(int fd);

/* *slot holds one of ours (or -1), read and written with relaxed atomics
 * from now on; a move (lp_fd_guard_move) updates it. */
void lp_fd_guard_keep(int *slot);

/* Close the descriptor *slot holds, ours, and set it to -1 (our own
 * close: the close hook would refuse it). */
void lp_fd_guard_close(int *slot);

/* Is fd one of ours? */
bool lp_fd_guard_ours(int fd);

/* Ours within [first, last], ascending, into fds[]; returns how many. */
int lp_fd_guard_within(unsigned first, unsigned last,
                       unsigned fds[LP_FD_GUARD_MAX]);

/* The program is about to take number fd (dup2 onto it): if it is ours,
 * move ours to another free number (close-on-exec, high). */
void lp_fd_guard_move(int fd);

/* The parts of [first, last] (first <= last) without the n ascending
 * numbers in fds[] (all within it): up to n + 1 ranges into lo[] and
 * hi[]; returns how many. */
static inline int lp_fd_guard_split(unsigned first, unsigned last,
                                    const unsigned *fds, int n,
                                    unsigned *lo, unsigned *hi)
{
    int k = 0, i;

    for (i = 0; i < n; i++) {
        if (fds[i] > first) {
            lo[k] = first;
            hi[k++] = fds[i] - 1;
        }
        if (fds[i] == last)
            return k;
        first = fds[i] + 1;
    }
    lo[k] = first;
    hi[k++] = last;
    return k;
}

#endif /* LP_PRELOAD_FD_GUARD_H */
